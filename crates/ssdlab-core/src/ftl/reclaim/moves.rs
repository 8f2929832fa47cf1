//! Layer: ftl. Emptying a victim: its valid pages moved (read, then programmed) to the stream
//! their move goes to, handed to the mapping in one batch, the victim erased; and migration,
//! which empties a region's victims into another.

use crate::device::{Device, Source};
use crate::error::{Error, Result};
use crate::ftl::blocks::{Owner, RegionId, StreamId};
use crate::ftl::mapping::Relocation;
use crate::ftl::placement::PlacementView;
use crate::ftl::region::{RegionPolicy, NATIVE};
use crate::ftl::store::Store;
use crate::nand::BlockMode;
use crate::units::{BlockId, Lpn, PlaneId, Ppn, SimTime};

use super::{reclaim_busy, Reclaimer};

/// Why pages move: GC within a region, migration into another region, or GC within a region
/// that keeps the pages its policy wants and migrates the others (`RegionAction::Collect`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::ftl) enum Move {
    Gc,
    Migration { to: RegionId },
    Sort { to: RegionId },
}

impl Move {
    fn source(self) -> Source {
        match self {
            Move::Gc | Move::Sort { .. } => Source::Gc,
            Move::Migration { .. } => Source::Migration,
        }
    }
}

impl Reclaimer {
    /// Empty victims of region `from` (migrating into `why`'s region; with `Move::Sort`, `keep`
    /// says which pages stay) until `from` has `target` free blocks.
    #[allow(clippy::too_many_arguments)]
    pub(in crate::ftl) fn migrate_until(
        &mut self,
        store: &mut Store,
        from: RegionId,
        target: u32,
        why: Move,
        mut keep: Option<&mut (dyn RegionPolicy + 'static)>,
        now: SimTime,
        device: &mut Device,
    ) -> Result<SimTime> {
        let (Move::Migration { to } | Move::Sort { to }) = why else {
            return Err(Error::invariant("migration asked for GC"));
        };
        let mut end = now;
        let domain = store.blocks.domain_of(from, PlaneId(0));
        let mut why = why;
        while store.blocks.region_free_blocks(from) < target {
            let Some(victim) = self.choose_victim(store, why, (from, domain), 0.0, now)? else {
                // Every block of the region is open or free: nothing to migrate yet.
                break;
            };
            let plane = store.blocks.geometry().plane_of_block(victim);
            let free_before = store.blocks.region_free_blocks(from);
            let keep = keep.as_deref_mut();
            let (_, t) = self.empty_victim(store, victim, (0, u32::MAX), (why, keep), now, device)?;
            store.stats.migrated_victims += 1;
            end = end.max(t);
            if matches!(why, Move::Sort { .. }) && store.blocks.region_free_blocks(from) <= free_before {
                // The victim's pages all stayed and filled what its erase freed: the next
                // victim migrates whole, or collection would never end.
                why = Move::Migration { to };
            }
            // The copies went to the victim's plane: with per-plane GC in the target region,
            // that plane reclaims as a host write there would make it (host writes to the SLC
            // region never check the native planes).
            if !self.region_wide() && to == NATIVE {
                let d = store.blocks.domain_of(to, plane);
                if store.blocks.domain_free_blocks(to, d) < self.trigger_free_blocks {
                    self.stats.foreground_invocations += 1;
                    end = end.max(self.reclaim_triggered(store, to, d, self.target_free_blocks, now, device)?);
                }
            }
            // With region-wide GC the scheduler decides only at requests, and a migration is
            // FTL work between them: one that used up the blocks the host may open would next
            // eat GC's reserve, so the native region reclaims inline first, back to one block
            // beyond the reserve (the scheduler's own regime, RLGC's intensive GC included,
            // works above that).
            if self.region_wide() && to == NATIVE && store.blocks.host_free_blocks() == 0 {
                self.stats.foreground_invocations += 1;
                let planes = store.blocks.geometry().planes();
                let target = planes * store.blocks.gc_reserve(NATIVE) + 1;
                end = end.max(self.reclaim_triggered(store, NATIVE, self.native_domain, target, now, device)?);
            }
        }
        Ok(end)
    }

    /// `empty_victim` for GC: copy up to `copies` valid pages of `b` from page `from`.
    pub(super) fn empty_victim_from(
        &mut self,
        store: &mut Store,
        b: BlockId,
        (from, copies): (u32, u32),
        why: Move,
        now: SimTime,
        device: &mut Device,
    ) -> Result<(Option<u32>, SimTime)> {
        self.empty_victim(store, b, (from, copies), (why, None), now, device)
    }

    /// Copy up to `copies` valid pages of victim `b` from page `from`; if it then holds no
    /// valid page (and no copy was asked of this step, or `copies` is unlimited), erase it.
    /// With `Move::Sort`, `keep` (the region policy) says which data pages stay in the region.
    /// Returns the page to resume from (None once erased) and the end time.
    fn empty_victim(
        &mut self,
        store: &mut Store,
        b: BlockId,
        (mut from, copies): (u32, u32),
        (why, mut keep): (Move, Option<&mut (dyn RegionPolicy + 'static)>),
        now: SimTime,
        device: &mut Device,
    ) -> Result<(Option<u32>, SimTime)> {
        let g = store.blocks.geometry().clone();
        let victim_plane = g.plane_of_block(b);
        let victim_mode = store.blocks.mode(b);
        let victim_region = store.blocks.region(b);
        let source = why.source();
        let busy = reclaim_busy(device);
        let pages = (store.stats.gc_reads, store.stats.migration_reads);
        let mut end = now;
        // Bring the mapping entries of the pages this step will move into cache first: the
        // relocations below store to them at random, and stores that miss stall the store
        // buffer (and every later load behind it).
        let mut ahead = 0u32;
        let mut page = from;
        while ahead < copies {
            let Some((ppn, owner)) = store.blocks.next_valid_page(b, page) else { break };
            if let Owner::Data(lpn) = owner {
                store.mapping.touch(lpn);
            }
            page = g.page_in_block(ppn) + 1;
            ahead += 1;
        }
        let mut moves = std::mem::take(&mut self.moves);
        moves.clear();
        // Every data page of the victim goes to one stream, unless the placement chooses
        // streams by LPN.
        let per_page = store.placer.has_own_streams();
        let data_dest = move_dest(store, Owner::Data(Lpn(0)), why, victim_region);
        let mut done = 0u32;
        while done < copies {
            let Some((old, owner)) = store.blocks.next_valid_page(b, from) else { break };
            // Collection: the region policy keeps each data page or lets it migrate.
            let page_why = match (why, owner, keep.as_deref_mut()) {
                (Move::Sort { to }, Owner::Data(lpn), Some(policy)) => {
                    if policy.keep_in_region(lpn) {
                        Move::Gc
                    } else {
                        Move::Migration { to }
                    }
                }
                _ => why,
            };
            let dest = match owner {
                Owner::Data(_) if !per_page && page_why == why => data_dest,
                _ => move_dest(store, owner, page_why, victim_region),
            };
            let (new, t) =
                self.move_page(store, old, owner, (victim_plane, victim_mode), dest, page_why, now, device)?;
            end = end.max(t);
            moves.push(Relocation { owner, from: old, to: new });
            from = g.page_in_block(old) + 1;
            done += 1;
        }
        if !moves.is_empty() {
            store.relocated(&moves, device, now)?;
        }
        self.moves = moves;
        let copies_left = copies == u32::MAX || done == 0;
        let erased = store.blocks.valid(b) == 0 && copies_left;
        if erased {
            end = end.max(device.erase(b, victim_mode, end, source));
            store.erased(b);
            if why == Move::Gc {
                self.stats.victims_reclaimed += 1;
            }
        }
        let (gc, migration) = reclaim_busy(device);
        let r = &mut store.region_stats[victim_region.0 as usize];
        r.gc_ns += gc - busy.0;
        r.migration_out_ns += migration - busy.1;
        r.gc_pages += store.stats.gc_reads - pages.0;
        r.migrated_out_pages += store.stats.migration_reads - pages.1;
        Ok((if erased { None } else { Some(from) }, end))
    }

    /// Move one valid page `old` (holding `owner`, in a block of mode `victim_mode`) to
    /// `stream`: on the victim's plane while it has room, else the first plane with room in
    /// channel-first order, the GC reserve included; with `row_by_row` (see `move_dest`) on the
    /// placement's plane. The copy (read, then program) is booked at `now`; the old page becomes
    /// invalid, the new one `owner`'s. Returns the new page and when the copy ends.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    pub(super) fn move_page(
        &mut self,
        store: &mut Store,
        old: Ppn,
        owner: Owner,
        (victim_plane, victim_mode): (PlaneId, BlockMode),
        (stream, row_by_row): (StreamId, bool),
        why: Move,
        now: SimTime,
        device: &mut Device,
    ) -> Result<(Ppn, SimTime)> {
        let new = if row_by_row {
            allocate_line_move(store, stream, owner, now, device)?
        } else {
            match store.allocate(stream, victim_plane, now) {
                Some(p) => p,
                None => allocate_elsewhere(store, stream, now)?,
            }
        };
        let mode = store.blocks.mode(store.blocks.geometry().block_of(new));
        let end = device.copy(old, victim_mode, new, mode, now, why.source());
        store.page_moved(owner, old, new);
        match why {
            Move::Gc | Move::Sort { .. } => {
                store.stats.gc_reads += 1;
                store.stats.gc_programs += 1;
                self.stats.pages_copied += 1;
            }
            Move::Migration { .. } => {
                store.stats.migration_reads += 1;
                store.stats.migration_programs += 1;
            }
        }
        Ok((new, end))
    }
}

/// The stream a moved page goes to: translation pages to the translation stream, data to
/// the placement's own stream for it (native region), else the GC stream of its region or
/// the migration stream of the target region.
#[inline]
fn move_stream(store: &Store, owner: Owner, why: Move, victim_region: RegionId) -> StreamId {
    let streams = &store.placer.streams;
    let lpn = match owner {
        Owner::Map(_) => return streams.map,
        Owner::Data(lpn) => lpn,
    };
    let to = match why {
        Move::Gc => victim_region,
        Move::Migration { to } | Move::Sort { to } => to,
    };
    if let Some(s) = store.placer.own_stream(to, lpn) {
        return s;
    }
    match why {
        Move::Gc => streams.gc[victim_region.0 as usize],
        Move::Migration { to } | Move::Sort { to } => streams.migration[to.0 as usize],
    }
}

/// The stream a moved page goes to (`move_stream`), and whether it is written row by row:
/// data streams of a line-mode region are; translation pages go to any plane with room in
/// their line, as `MapCtx` writes them.
#[inline]
pub(super) fn move_dest(store: &Store, owner: Owner, why: Move, victim_region: RegionId) -> (StreamId, bool) {
    let stream = move_stream(store, owner, why, victim_region);
    (stream, stream != store.placer.streams.map && store.blocks.is_line_stream(stream))
}

/// A page of line-mode `stream` for a moved page: on the placement's plane.
#[cold]
fn allocate_line_move(store: &mut Store, stream: StreamId, owner: Owner, now: SimTime, device: &Device) -> Result<Ppn> {
    let lpns = [owner.lpn().unwrap_or(Lpn(0))];
    let view = PlacementView::new(device, &store.blocks, stream, 0);
    let plane = store
        .placer
        .policy
        .plane(&lpns, &view)
        .ok_or_else(|| Error::DeviceFull { reason: "GC found no free line for relocation".into() })?;
    store.allocate(stream, plane, now).ok_or_else(|| Error::invariant("plane with room gave no page"))
}

/// A page of `stream` on any plane with room (GC and migration may use the reserve).
fn allocate_elsewhere(store: &mut Store, stream: StreamId, now: SimTime) -> Result<Ppn> {
    for plane in store.blocks.geometry().channel_first_order() {
        if store.blocks.has_room(stream, plane, 0) {
            if let Some(p) = store.allocate(stream, plane, now) {
                return Ok(p);
            }
        }
    }
    Err(Error::DeviceFull { reason: "GC found no free page for relocation".into() })
}
