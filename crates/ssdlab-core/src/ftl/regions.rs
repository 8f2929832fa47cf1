//! Layer: ftl. The region manager: owns the region policy (the SLC cache's, for a hybrid
//! drive) and executes what it asks before each write: migration out of a region, collection
//! (GC that keeps what the policy wants), and resizing (moving free blocks between regions,
//! reclaiming native blocks first when none is free). The page moves themselves are the
//! reclaimer's; this unit decides when and how many blocks change hands.

use crate::device::Device;
use crate::error::{Error, Result};
use crate::ftl::blocks::RegionId;
use crate::ftl::reclaim::{Move, Reclaimer};
use crate::ftl::region::{RegionAction, RegionPolicy, RegionView, WriteInfo, MAX_ACTIONS_PER_WRITE, NATIVE};
use crate::ftl::store::Store;
use crate::units::{Lpn, PlaneId, SimTime};

#[derive(Clone)]
pub(super) struct RegionManager {
    pub(super) policy: Box<dyn RegionPolicy>,
    /// `policy.wants_placements()`, asked once.
    wants_placements: bool,
    /// The logical capacity in pages (space utilisation's denominator).
    logical_capacity_pages: u64,
    /// `device.overprovisioning`: the spare the native region keeps when another grows.
    overprovisioning: f64,
}

impl RegionManager {
    pub(super) fn new(policy: Box<dyn RegionPolicy>, logical_capacity_pages: u64, overprovisioning: f64) -> Self {
        RegionManager { wants_placements: policy.wants_placements(), policy, logical_capacity_pages, overprovisioning }
    }

    /// The region a write (or a buffered unit written as `info`) goes to.
    #[inline]
    pub(super) fn route(&mut self, info: &WriteInfo) -> RegionId {
        self.policy.route(info)
    }

    /// A unit of `lpns` landed in `region` (told only to policies that ask).
    #[inline]
    pub(super) fn placed(&mut self, region: RegionId, lpns: &[Lpn]) {
        if self.wants_placements {
            self.policy.placed(region, lpns);
        }
    }

    /// What the region policy sees now.
    fn view<'a>(&self, store: &'a Store, native_target_free_blocks: u32, now: SimTime) -> RegionView<'a> {
        RegionView {
            now,
            blocks: &store.blocks,
            stats: &store.region_stats,
            logical_pages: self.logical_capacity_pages,
            native_keep_free_blocks: native_target_free_blocks + 1,
            native_spare_fraction: self.overprovisioning,
        }
    }

    /// A host write arrived (before anything is done for it): the policy's per-request step.
    pub(super) fn before_request(&mut self, store: &Store, native_target_free_blocks: u32, now: SimTime) {
        let view = self.view(store, native_target_free_blocks, now);
        self.policy.before_request(&view);
    }

    /// The region policy's space work before a write, executed (the write waits for it): its
    /// actions one after another until it asks for none (at most `MAX_ACTIONS_PER_WRITE`).
    pub(super) fn before_write(
        &mut self,
        store: &mut Store,
        reclaimer: &mut Reclaimer,
        now: SimTime,
        device: &mut Device,
    ) -> Result<SimTime> {
        let mut end = now;
        for _ in 0..MAX_ACTIONS_PER_WRITE {
            let view = self.view(store, reclaimer.target_free_blocks, now);
            let t = match self.policy.before_write(&view) {
                RegionAction::Nothing => break,
                RegionAction::Migrate { from, to, target_free_blocks } => reclaimer.migrate_until(
                    store,
                    from,
                    target_free_blocks,
                    Move::Migration { to },
                    None,
                    now,
                    device,
                )?,
                RegionAction::Collect { region, to, target_free_blocks } => {
                    let keep = Some(self.policy.as_mut());
                    reclaimer.migrate_until(store, region, target_free_blocks, Move::Sort { to }, keep, now, device)?
                }
                RegionAction::Resize { region, blocks } => {
                    self.resize(store, reclaimer, (region, blocks), now, device)?
                }
            };
            end = end.max(t);
        }
        Ok(end)
    }

    /// Make region `r` hold `blocks` blocks, as far as it can (`RegionAction::Resize`).
    fn resize(
        &mut self,
        store: &mut Store,
        reclaimer: &mut Reclaimer,
        (r, blocks): (RegionId, u32),
        now: SimTime,
        device: &mut Device,
    ) -> Result<SimTime> {
        if r == NATIVE || r.0 as usize >= store.blocks.regions() {
            return Err(Error::invariant(format!("region policy asked to resize region {}", r.0)));
        }
        let planes = store.blocks.geometry().planes();
        let mut end = now;
        if blocks > store.blocks.region_blocks(r) {
            let cap = self.view(store, reclaimer.target_free_blocks, now).max_region_blocks(r);
            let keep = reclaimer.target_free_blocks + 1;
            let mut reclaimed = false;
            while store.blocks.region_blocks(r) < blocks.min(cap) {
                let reserve = planes * store.blocks.gc_reserve(NATIVE);
                if store.blocks.region_free_blocks(NATIVE) <= keep + reserve {
                    // No free native block to spare: GC the native region for one, once per
                    // resize (the agent pays for it in QLC-to-QLC time).
                    if reclaimed || !reclaimer.region_wide() {
                        break;
                    }
                    reclaimed = true;
                    let before = store.blocks.region_free_blocks(NATIVE);
                    let (gc0, _) = super::reclaim::reclaim_busy(device);
                    let copied = store.stats.gc_reads;
                    let domain = reclaimer.native_domain;
                    let target = keep + reserve + (blocks - store.blocks.region_blocks(r));
                    end = end.max(reclaimer.reclaim_triggered(store, NATIVE, domain, target, now, device)?);
                    let stats = &mut store.region_stats[NATIVE.0 as usize];
                    stats.gc_ns += super::reclaim::reclaim_busy(device).0 - gc0;
                    stats.gc_pages += store.stats.gc_reads - copied;
                    if store.blocks.region_free_blocks(NATIVE) <= before {
                        break;
                    }
                    continue;
                }
                let Some(plane) = fullest_plane(store, NATIVE) else { break };
                store.convert_free_block(NATIVE, r, plane)?;
            }
        } else {
            while store.blocks.region_blocks(r) > blocks {
                if let Some(plane) = fullest_plane(store, r) {
                    store.convert_free_block(r, NATIVE, plane)?;
                    continue;
                }
                // No free block to give back: migrate a victim's data out to free one.
                let free = store.blocks.region_free_blocks(r);
                let why = Move::Migration { to: NATIVE };
                end = end.max(reclaimer.migrate_until(store, r, free + 1, why, None, now, device)?);
                if store.blocks.region_free_blocks(r) <= free {
                    break;
                }
            }
        }
        Ok(end)
    }
}

/// The plane where region `r` has the most free blocks (the first such in plane order), or
/// None if it has none.
fn fullest_plane(store: &Store, r: RegionId) -> Option<PlaneId> {
    let blocks = &store.blocks;
    (0..blocks.geometry().planes())
        .map(PlaneId)
        .filter(|&p| blocks.region_free_blocks_in(r, p) > 0)
        .max_by_key(|&p| (blocks.region_free_blocks_in(r, p), std::cmp::Reverse(p.0)))
}
