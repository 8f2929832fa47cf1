//! Layer: ftl. The reclaimer: executes GC and migration. It owns the GC scheduler and the
//! victim policy, the GC trigger and domain, the partial GC's current victim and the GC
//! figures; it borrows the `Store` (blocks, mapping, placement, figures) and the device for
//! each operation. Victims are chosen per GC domain by the victim policy, emptied whole
//! (foreground) or in partial steps (background), their valid pages copied to a write stream
//! (GC: the victim's region; migration: another region's) and handed to the mapping in one
//! batch per step, then erased. Every operation is tagged with its `Source`.
//!
//! Files: `mod.rs` (the scheduler's decisions, whole-victim GC, victim choice, partial
//! steps), `moves.rs` (emptying a victim: page moves, erases, migration), `lines.rs` (line
//! collection, LearnedFTL's group GC).

mod lines;
mod moves;

use crate::device::{Device, Source};
use crate::error::{Error, Result};
use crate::ftl::blocks::{BlockManager, BlockState, DomainId, GcScope, Owner, RegionId};
use crate::ftl::gc::{
    GcAction, GcObservation, GcScheduler, GcStats, IdleObservation, LineCensus, VictimPolicy, VictimView,
};
use crate::ftl::mapping::Relocation;
use crate::ftl::region::NATIVE;
use crate::ftl::request::RequestInfo;
use crate::ftl::store::Store;
use crate::units::{BlockId, Ppn, SimTime};

pub(super) use moves::Move;

/// Array time booked so far by GC and by migration (a region's figures take the difference
/// across its work).
pub(super) fn reclaim_busy(device: &Device) -> (u64, u64) {
    let c = &device.counters().by_source;
    (c.get(Source::Gc).busy_ns, c.get(Source::Migration).busy_ns)
}

#[derive(Clone)]
pub(super) struct Reclaimer {
    pub(super) victim: Box<dyn VictimPolicy>,
    /// The victim policy's registry id (`Entry::id`), for an invariant's message.
    victim_id: &'static str,
    pub(super) scheduler: Box<dyn GcScheduler>,
    pub(super) scope: GcScope,
    /// The native region's GC domain when GC runs region-wide (the scheduler's domain).
    pub(super) native_domain: DomainId,
    pub(super) trigger_free_blocks: u32,
    pub(super) target_free_blocks: u32,
    /// GC works in idle time (`gc.background = "idle"`).
    pub(super) when_idle: bool,
    pub(super) stats: GcStats,
    /// Victim being emptied by partial steps, and the next page to look at.
    partial: Option<(BlockId, u32)>,
    /// Line-mode background GC found no line with enough invalid pages: (invalidations, lines
    /// sealed, pages short). Until a line seals or that many more pages are invalidated no line
    /// can pass, so the census is not taken again (the same decisions, at a fraction of the
    /// cost: the census sums every sealed line's blocks).
    line_gc_wait: Option<(u64, u64, u64)>,
    // Scratch buffers reused across operations.
    /// Line mode: the sealed lines a victim policy chooses among, and a collection's pages.
    line_census: Vec<LineCensus>,
    collected: Vec<(Owner, Ppn)>,
    moves: Vec<Relocation>,
}

impl Reclaimer {
    pub(super) fn new(
        (victim, victim_id): (Box<dyn VictimPolicy>, &'static str),
        scheduler: Box<dyn GcScheduler>,
        scope: GcScope,
        native_domain: DomainId,
        (trigger_free_blocks, target_free_blocks): (u32, u32),
        when_idle: bool,
    ) -> Reclaimer {
        Reclaimer {
            victim,
            victim_id,
            scheduler,
            scope,
            native_domain,
            trigger_free_blocks,
            target_free_blocks,
            when_idle,
            stats: GcStats::default(),
            partial: None,
            line_gc_wait: None,
            line_census: Vec::new(),
            collected: Vec::new(),
            moves: Vec::new(),
        }
    }

    /// Whether the scheduler decides GC at requests (region-wide GC); per-plane GC is
    /// triggered by allocation instead.
    #[inline]
    pub(super) fn region_wide(&self) -> bool {
        self.scope == GcScope::Region
    }

    /// Whether GC has idle-time work (`gc.background = "idle"`, region-wide GC).
    pub(super) fn works_when_idle(&self) -> bool {
        self.when_idle && self.region_wide()
    }

    fn observation(
        &self,
        blocks: &BlockManager,
        req: RequestInfo,
        now: SimTime,
        interval_ns: u64,
        idle_before_ns: u64,
    ) -> GcObservation {
        let victim_valid_left = self.partial.map(|(b, _)| blocks.valid(b)).unwrap_or(0);
        GcObservation {
            now,
            request_seq: req.seq,
            op: req.op,
            request_pages: req.pages,
            free_blocks: blocks.region_free_blocks(NATIVE),
            host_free_blocks: blocks.region_host_free_blocks(NATIVE),
            total_blocks: blocks.region_blocks(NATIVE),
            interval_ns,
            idle_before_ns,
            victim_valid_left,
            pages_per_block: blocks.geometry().pages_per_block,
            gc_copies_total: self.stats.pages_copied,
            gc_erases_total: self.stats.victims_reclaimed,
        }
    }

    /// The scheduler's decision at a request's arrival, executed. Returns when the request may
    /// be served (later than `now` after foreground GC).
    pub(super) fn before_serve(
        &mut self,
        store: &mut Store,
        req: RequestInfo,
        now: SimTime,
        (interval, idle_before): (u64, u64),
        device: &mut Device,
    ) -> Result<SimTime> {
        let obs = self.observation(&store.blocks, req, now, interval, idle_before);
        let action = self.scheduler.before_serve(&obs);
        self.run_action(store, action, now, device)
    }

    /// After request `req` completed at `now` with `response_ns`: the scheduler's background
    /// work, if it asks for any.
    pub(super) fn after_serve(
        &mut self,
        store: &mut Store,
        req: RequestInfo,
        response_ns: u64,
        now: SimTime,
        device: &mut Device,
    ) -> Result<()> {
        let obs = self.observation(&store.blocks, req, now, 0, 0);
        let action = self.scheduler.after_serve(&obs, response_ns);
        // No request waits for GC decided after one was served: background work.
        device.set_background(true);
        let result = self.run_action(store, action, now, device);
        device.set_background(false);
        result.map(|_| ())
    }

    fn run_action(
        &mut self,
        store: &mut Store,
        action: GcAction,
        now: SimTime,
        device: &mut Device,
    ) -> Result<SimTime> {
        let domain = self.native_domain;
        match action {
            GcAction::Nothing => Ok(now),
            GcAction::Reclaim { target_free_blocks } => {
                self.stats.foreground_invocations += 1;
                let end = self.reclaim_until(store, NATIVE, domain, target_free_blocks, now, device)?;
                self.stats.foreground_wait_ns += end - now;
                Ok(end)
            }
            GcAction::Partial { copies, min_invalid_fraction } => {
                Ok(now.max(self.partial_step(store, copies, min_invalid_fraction, now, device)?))
            }
        }
    }

    /// Idle time's GC step (`gc.background = "idle"`), as the scheduler decides: returns when
    /// it ends, or None if it did nothing.
    pub(super) fn idle_step(
        &mut self,
        store: &mut Store,
        now: SimTime,
        device: &mut Device,
    ) -> Result<Option<SimTime>> {
        if !self.works_when_idle() {
            return Ok(None);
        }
        let obs = IdleObservation {
            now,
            free_blocks: store.blocks.region_free_blocks(NATIVE),
            total_blocks: store.blocks.region_blocks(NATIVE),
            victim_valid_left: self.partial.map(|(b, _)| store.blocks.valid(b)).unwrap_or(0),
        };
        let GcAction::Partial { copies, min_invalid_fraction } = self.scheduler.on_idle(&obs) else {
            return Ok(None);
        };
        let (copied, erased) = (self.stats.pages_copied, self.stats.victims_reclaimed);
        let t = self.partial_step(store, copies, min_invalid_fraction, now, device)?;
        let (copied, erased) = (self.stats.pages_copied - copied, self.stats.victims_reclaimed - erased);
        if copied + erased == 0 {
            return Ok(None);
        }
        self.stats.idle_steps += 1;
        self.stats.idle_pages_copied += copied;
        self.stats.idle_victims_reclaimed += erased;
        Ok(Some(t))
    }

    /// Foreground GC of a plane that is its own GC domain, before a unit lands there.
    #[cold]
    pub(super) fn plane_gc(
        &mut self,
        store: &mut Store,
        region: RegionId,
        domain: DomainId,
        ready: SimTime,
        device: &mut Device,
    ) -> Result<SimTime> {
        self.stats.foreground_invocations += 1;
        let end = self.reclaim_triggered(store, region, domain, self.target_free_blocks, ready, device)?;
        self.stats.foreground_wait_ns += end - ready;
        Ok(end.max(ready))
    }

    /// Reclaim whole victims of `domain` (in `region`) until the domain has `target` free
    /// blocks. Returns when the last GC operation ends.
    pub(super) fn reclaim_until(
        &mut self,
        store: &mut Store,
        region: RegionId,
        domain: DomainId,
        target: u32,
        now: SimTime,
        device: &mut Device,
    ) -> Result<SimTime> {
        let mut end = now;
        while store.blocks.domain_free_blocks(region, domain) < target {
            let t = self
                .reclaim_one(store, region, domain, now, device)?
                .ok_or_else(|| Error::DeviceFull { reason: "GC found no sealed block to reclaim".into() })?;
            end = end.max(t);
        }
        Ok(end)
    }

    /// Empty and erase the next GC victim of `domain` (in a line-mode region: collect the
    /// lines of the stream the victim policy picks); when that ends, or None if there is no
    /// victim.
    fn reclaim_one(
        &mut self,
        store: &mut Store,
        region: RegionId,
        domain: DomainId,
        now: SimTime,
        device: &mut Device,
    ) -> Result<Option<SimTime>> {
        if store.blocks.is_line_region(region) {
            return self.collect_next_lines(store, region, 0.0, now, device);
        }
        let Some(victim) = self.next_gc_victim(store, region, domain, now)? else { return Ok(None) };
        Ok(Some(self.empty_victim_from(store, victim, (0, u32::MAX), Move::Gc, now, device)?.1))
    }

    /// Reclaim toward `target` free blocks when a trigger fired but space is not yet short:
    /// once no sealed block of the domain holds an invalid page (a freshly filled drive, or one
    /// holding translation pages beside a full share of data), GC cannot gain a block and
    /// stops without error; the write uses the free blocks the domain still has. Where no
    /// block is left at all the allocation's emergency reclaim reports the device full.
    pub(super) fn reclaim_triggered(
        &mut self,
        store: &mut Store,
        region: RegionId,
        domain: DomainId,
        target: u32,
        now: SimTime,
        device: &mut Device,
    ) -> Result<SimTime> {
        let mut end = now;
        while store.blocks.domain_free_blocks(region, domain) < target {
            let blocks = &store.blocks;
            let cannot_gain = self.partial.is_none()
                && blocks.domain_free_blocks(region, domain) > 0
                && blocks.min_valid_sealed(domain).is_none_or(|b| blocks.valid(b) >= blocks.capacity(b));
            if cannot_gain {
                break;
            }
            let Some(t) = self.reclaim_one(store, region, domain, now, device)? else { break };
            end = end.max(t);
        }
        Ok(end)
    }

    /// The victim a whole-victim GC of `domain` empties next: the partial GC's current victim
    /// if it is in `region`, else a new one (None if no block is sealed).
    fn next_gc_victim(
        &mut self,
        store: &mut Store,
        region: RegionId,
        domain: DomainId,
        now: SimTime,
    ) -> Result<Option<BlockId>> {
        match self.partial.take() {
            Some((b, _)) if store.blocks.region(b) == region => Ok(Some(b)),
            other => {
                self.partial = other;
                self.choose_victim(store, Move::Gc, (region, domain), 0.0, now)
            }
        }
    }

    /// The victim policy's choice in `domain` of `region`, checked and marked, for GC or
    /// migration (`why`); None if no block is sealed.
    fn choose_victim(
        &mut self,
        store: &mut Store,
        why: Move,
        (region, domain): (RegionId, DomainId),
        min_invalid_fraction: f64,
        now: SimTime,
    ) -> Result<Option<BlockId>> {
        let blocks = &mut store.blocks;
        let mut view = VictimView { blocks, domain, now };
        let Some(b) = self.victim.select(&mut view, min_invalid_fraction) else {
            return Ok(None);
        };
        if blocks.state(b) != BlockState::Sealed || blocks.region(b) != region {
            return Err(Error::invariant(format!(
                "victim policy '{}' chose block {} which is not a sealed block of region {}",
                self.victim_id, b.0, region.0
            )));
        }
        // A full victim is legitimate for some policies (FIFO rotates cold data), but if even
        // the emptiest sealed block is full, GC within the region cannot gain space: the device
        // is full. Migration gains space in its region whatever the victim holds.
        if why == Move::Gc && blocks.valid(b) >= blocks.capacity(b) {
            if let Some(least) = blocks.min_valid_sealed(domain) {
                if blocks.valid(least) >= blocks.capacity(least) {
                    return Err(Error::DeviceFull {
                        reason: format!(
                            "every sealed block holds only valid pages (block {} among them): the logical data does \
                             not fit the physical space (lower device.utilization or raise device.overprovisioning)",
                            least.0
                        ),
                    });
                }
            }
        }
        self.stats.victims_chosen += 1;
        self.stats.victim_valid_pages_at_choice += blocks.valid(b) as u64;
        if min_invalid_fraction > 0.0 {
            let invalid = 1.0 - blocks.valid(b) as f64 / blocks.capacity(b) as f64;
            let s = &mut self.stats;
            s.filtered_victims_chosen += 1;
            s.filtered_victims_min_invalid_fraction = s.filtered_victims_min_invalid_fraction.min(invalid);
        }
        store.take_victim(b);
        Ok(Some(b))
    }

    /// One partial GC step of the native region: up to `copies` page copies from the current
    /// victim, or its erase once it holds no valid page. Returns when the step's operations end.
    fn partial_step(
        &mut self,
        store: &mut Store,
        copies: u32,
        min_invalid: f64,
        now: SimTime,
        device: &mut Device,
    ) -> Result<SimTime> {
        if copies == 0 {
            return Ok(now);
        }
        if store.blocks.is_line_region(NATIVE) {
            // Line mode (`gc.background = "between_requests"`): a step is one line collection.
            if let Some((invalidations, sealed, short)) = self.line_gc_wait {
                if store.blocks.lines_sealed() == sealed && store.blocks.invalidations() - invalidations < short {
                    return Ok(now);
                }
                self.line_gc_wait = None;
            }
            let collected = self.collect_next_lines(store, NATIVE, min_invalid, now, device)?;
            if collected.is_some() {
                self.stats.partial_steps += 1;
            }
            return Ok(collected.unwrap_or(now));
        }
        let (victim, from) = match self.partial {
            Some(p) => p,
            None => {
                let domain = self.native_domain;
                match self.choose_victim(store, Move::Gc, (NATIVE, domain), min_invalid, now)? {
                    Some(b) => (b, 0),
                    None => return Ok(now),
                }
            }
        };
        self.stats.partial_steps += 1;
        let (next, end) = self.empty_victim_from(store, victim, (from, copies), Move::Gc, now, device)?;
        self.partial = next.map(|page| (victim, page));
        Ok(end)
    }
}
