//! Layer: ftl. Executing GC and migration: victims chosen per GC domain by the victim policy,
//! emptied whole (foreground) or in partial steps (background), their valid pages copied to a
//! write stream (GC: the victim's region; migration: another region's) and handed to the
//! mapping in one batch per step, then erased. Every operation is tagged with its `Source`.

use crate::device::{Device, Source};
use crate::error::{Error, Result};
use crate::ftl::blocks::{BlockState, DomainId, GcScope, Owner, RegionId, StreamId};
use crate::ftl::gc::{GcAction, IdleObservation, VictimView};
use crate::ftl::mapping::Relocation;
use crate::ftl::region::{RegionAction, RegionView, NATIVE};
use crate::ftl::{Ftl, RequestInfo};
use crate::units::{BlockId, PlaneId, Ppn, SimTime};

/// Why pages move: GC within a region, or migration into another region.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Move {
    Gc,
    Migration { to: RegionId },
}

impl Move {
    fn source(self) -> Source {
        match self {
            Move::Gc => Source::Gc,
            Move::Migration { .. } => Source::Migration,
        }
    }
}

impl Ftl {
    /// The scheduler's decision at a request's arrival, executed. Returns when the request may
    /// be served (later than `now` after foreground GC).
    pub(super) fn before_serve_gc(
        &mut self,
        req: RequestInfo,
        now: SimTime,
        interval: u64,
        idle_before: u64,
        device: &mut Device,
    ) -> Result<SimTime> {
        let action = self.scheduler.before_serve(&self.observation(req, now, interval, idle_before));
        self.run_gc_action(action, now, device)
    }

    pub(super) fn run_gc_action(&mut self, action: GcAction, now: SimTime, device: &mut Device) -> Result<SimTime> {
        let domain = self.native_domain;
        match action {
            GcAction::Nothing => Ok(now),
            GcAction::Reclaim { target_free_blocks } => {
                self.gc_stats.foreground_invocations += 1;
                let end = self.reclaim_until(NATIVE, domain, target_free_blocks, now, device)?;
                self.gc_stats.foreground_wait_ns += end - now;
                Ok(end)
            }
            GcAction::Partial { copies, min_invalid_fraction } => {
                Ok(now.max(self.partial_step(copies, min_invalid_fraction, now, device)?))
            }
        }
    }

    /// Idle time: the host has had nothing outstanding for `idle.gap_ns` (or the work asked for
    /// last time ended and it still has none). Runs the idle-time work the config asks for, at
    /// `now` with no request waiting: the write buffer's flush (`cache.flush_on_idle`), then one
    /// GC step (`gc.background = "idle"`, as the scheduler decides). Returns when that work ends
    /// (the engine calls again then if the host is still idle), or None if there was none.
    pub fn on_idle(&mut self, now: SimTime, device: &mut Device) -> Result<Option<SimTime>> {
        // Nothing waits for idle-time work: with `scheduler.policy = "priority"` it yields to
        // any request that arrives.
        device.set_background(true);
        let result = self.idle_work(now, device);
        device.set_background(false);
        result
    }

    fn idle_work(&mut self, now: SimTime, device: &mut Device) -> Result<Option<SimTime>> {
        let mut end = None;
        if self.flush_on_idle && self.buffer.as_ref().is_some_and(|b| b.dirty() > 0) {
            end = Some(self.flush_idle(now, device)?);
        }
        if self.gc_when_idle && self.gc_scope == GcScope::Region {
            let obs = IdleObservation {
                now,
                free_blocks: self.blocks.region_free_blocks(NATIVE),
                total_blocks: self.blocks.region_blocks(NATIVE),
                victim_valid_left: self.partial.map(|(b, _)| self.blocks.valid(b)).unwrap_or(0),
            };
            if let GcAction::Partial { copies, min_invalid_fraction } = self.scheduler.on_idle(&obs) {
                let (copied, erased) = (self.gc_stats.pages_copied, self.gc_stats.victims_reclaimed);
                let t = self.partial_step(copies, min_invalid_fraction, now, device)?;
                let (copied, erased) = (self.gc_stats.pages_copied - copied, self.gc_stats.victims_reclaimed - erased);
                if copied + erased > 0 {
                    self.gc_stats.idle_steps += 1;
                    self.gc_stats.idle_pages_copied += copied;
                    self.gc_stats.idle_victims_reclaimed += erased;
                    end = Some(end.unwrap_or(now).max(t));
                }
            }
        }
        Ok(end)
    }

    /// Whether any idle-time work is configured (else the engine only counts idle periods).
    pub fn works_when_idle(&self) -> bool {
        self.flush_on_idle || (self.gc_when_idle && self.gc_scope == GcScope::Region)
    }

    /// The region policy's space work before a write, executed (the write waits for it).
    pub(super) fn before_write_regions(&mut self, now: SimTime, device: &mut Device) -> Result<SimTime> {
        let view = RegionView { now, blocks: &self.blocks };
        match self.regions.before_write(&view) {
            RegionAction::Nothing => Ok(now),
            RegionAction::Migrate { from, to, target_free_blocks } => {
                self.migrate_until(from, to, target_free_blocks, now, device)
            }
        }
    }

    /// Migrate victims of region `from` into region `to` until `from` has `target` free blocks.
    fn migrate_until(
        &mut self,
        from: RegionId,
        to: RegionId,
        target: u32,
        now: SimTime,
        device: &mut Device,
    ) -> Result<SimTime> {
        let mut end = now;
        let domain = self.blocks.domain_of(from, PlaneId(0));
        while self.blocks.region_free_blocks(from) < target {
            let Some(victim) = self.choose_victim_for(Move::Migration { to }, from, domain, 0.0, now)? else {
                // Every block of the region is open or free: nothing to migrate yet.
                break;
            };
            let plane = self.blocks.geometry().plane_of_block(victim);
            let (_, t) = self.empty_victim_from(victim, 0, u32::MAX, Move::Migration { to }, now, device)?;
            self.stats.migrated_victims += 1;
            end = end.max(t);
            // The copies went to the victim's plane: with per-plane GC in the target region,
            // that plane reclaims as a host write there would make it (host writes to the SLC
            // region never check the native planes).
            if self.gc_scope == GcScope::Plane && to == NATIVE {
                let d = self.blocks.domain_of(to, plane);
                if self.blocks.domain_free_blocks(to, d) < self.trigger_free_blocks {
                    self.gc_stats.foreground_invocations += 1;
                    end = end.max(self.reclaim_triggered(to, d, self.target_free_blocks, now, device)?);
                }
            }
        }
        Ok(end)
    }

    /// Reclaim whole victims of `domain` (in `region`) until the domain has `target` free
    /// blocks. Returns when the last GC operation ends.
    pub(super) fn reclaim_until(
        &mut self,
        region: RegionId,
        domain: DomainId,
        target: u32,
        now: SimTime,
        device: &mut Device,
    ) -> Result<SimTime> {
        let mut end = now;
        while self.blocks.domain_free_blocks(region, domain) < target {
            let t = self
                .reclaim_one(region, domain, now, device)?
                .ok_or_else(|| Error::DeviceFull { reason: "GC found no sealed block to reclaim".into() })?;
            end = end.max(t);
        }
        Ok(end)
    }

    /// Empty and erase the next GC victim of `domain`; when that ends, or None if there is no
    /// victim.
    fn reclaim_one(
        &mut self,
        region: RegionId,
        domain: DomainId,
        now: SimTime,
        device: &mut Device,
    ) -> Result<Option<SimTime>> {
        let Some(victim) = self.next_gc_victim(region, domain, now)? else { return Ok(None) };
        Ok(Some(self.empty_victim_from(victim, 0, u32::MAX, Move::Gc, now, device)?.1))
    }

    /// Reclaim toward `target` free blocks when a trigger fired but space is not yet short:
    /// once no sealed block of the domain holds an invalid page (a freshly filled drive, or one
    /// holding translation pages beside a full share of data), GC cannot gain a block and
    /// stops without error; the write uses the free blocks the domain still has. Where no
    /// block is left at all the allocation's emergency reclaim reports the device full.
    pub(super) fn reclaim_triggered(
        &mut self,
        region: RegionId,
        domain: DomainId,
        target: u32,
        now: SimTime,
        device: &mut Device,
    ) -> Result<SimTime> {
        let mut end = now;
        while self.blocks.domain_free_blocks(region, domain) < target {
            let cannot_gain = self.partial.is_none()
                && self.blocks.domain_free_blocks(region, domain) > 0
                && self.blocks.min_valid_sealed(domain).is_none_or(|b| self.blocks.valid(b) >= self.blocks.capacity(b));
            if cannot_gain {
                break;
            }
            let Some(t) = self.reclaim_one(region, domain, now, device)? else { break };
            end = end.max(t);
        }
        Ok(end)
    }

    /// The victim a whole-victim GC of `domain` empties next: the partial GC's current victim
    /// if it is in `region`, else a new one (None if no block is sealed).
    fn next_gc_victim(&mut self, region: RegionId, domain: DomainId, now: SimTime) -> Result<Option<BlockId>> {
        match self.partial.take() {
            Some((b, _)) if self.blocks.region(b) == region => Ok(Some(b)),
            other => {
                self.partial = other;
                self.choose_victim(region, domain, 0.0, now)
            }
        }
    }

    pub(super) fn choose_victim(
        &mut self,
        region: RegionId,
        domain: DomainId,
        min_invalid_fraction: f64,
        now: SimTime,
    ) -> Result<Option<BlockId>> {
        self.choose_victim_for(Move::Gc, region, domain, min_invalid_fraction, now)
    }

    fn choose_victim_for(
        &mut self,
        why: Move,
        region: RegionId,
        domain: DomainId,
        min_invalid_fraction: f64,
        now: SimTime,
    ) -> Result<Option<BlockId>> {
        let mut view = VictimView { blocks: &mut self.blocks, domain, now };
        let Some(b) = self.victim.select(&mut view, min_invalid_fraction) else {
            return Ok(None);
        };
        if self.blocks.state(b) != BlockState::Sealed || self.blocks.region(b) != region {
            return Err(Error::invariant(format!(
                "victim policy '{}' chose block {} which is not a sealed block of region {}",
                self.victim.id(),
                b.0,
                region.0
            )));
        }
        // A full victim is legitimate for some policies (FIFO rotates cold data), but if even
        // the emptiest sealed block is full, GC within the region cannot gain space: the device
        // is full. Migration gains space in its region whatever the victim holds.
        if why == Move::Gc && self.blocks.valid(b) >= self.blocks.capacity(b) {
            if let Some(least) = self.blocks.min_valid_sealed(domain) {
                if self.blocks.valid(least) >= self.blocks.capacity(least) {
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
        self.gc_stats.victims_chosen += 1;
        self.gc_stats.victim_valid_pages_at_choice += self.blocks.valid(b) as u64;
        if min_invalid_fraction > 0.0 {
            let invalid = 1.0 - self.blocks.valid(b) as f64 / self.blocks.capacity(b) as f64;
            let s = &mut self.gc_stats;
            s.filtered_victims_chosen += 1;
            s.filtered_victims_min_invalid_fraction = s.filtered_victims_min_invalid_fraction.min(invalid);
        }
        self.blocks.mark_victim(b);
        Ok(Some(b))
    }

    /// One partial GC step of the native region: up to `copies` page copies from the current
    /// victim, or its erase once it holds no valid page. Returns when the step's operations end.
    pub(super) fn partial_step(
        &mut self,
        copies: u32,
        min_invalid: f64,
        now: SimTime,
        device: &mut Device,
    ) -> Result<SimTime> {
        if copies == 0 {
            return Ok(now);
        }
        let (victim, from) = match self.partial {
            Some(p) => p,
            None => {
                let domain = self.native_domain;
                match self.choose_victim(NATIVE, domain, min_invalid, now)? {
                    Some(b) => (b, 0),
                    None => return Ok(now),
                }
            }
        };
        self.gc_stats.partial_steps += 1;
        let (next, end) = self.empty_victim_from(victim, from, copies, Move::Gc, now, device)?;
        self.partial = next.map(|page| (victim, page));
        Ok(end)
    }

    /// The stream a moved page goes to: translation pages to the translation stream, data to
    /// the GC stream of its region or the migration stream of the target region.
    fn move_stream(&self, owner: Owner, why: Move, victim_region: RegionId) -> StreamId {
        match (owner, why) {
            (Owner::Map(_), _) => self.streams.map,
            (Owner::Data(_), Move::Gc) => self.streams.gc[victim_region.0 as usize],
            (Owner::Data(_), Move::Migration { to }) => self.streams.migration[to.0 as usize],
        }
    }

    /// Copy up to `copies` valid pages of victim `b` from page `from`; if it then holds no
    /// valid page (and no copy was asked of this step, or `copies` is unlimited), erase it.
    /// Returns the page to resume from (None once erased) and the end time.
    pub(super) fn empty_victim_from(
        &mut self,
        b: BlockId,
        mut from: u32,
        copies: u32,
        why: Move,
        now: SimTime,
        device: &mut Device,
    ) -> Result<(Option<u32>, SimTime)> {
        let g = self.blocks.geometry().clone();
        let victim_plane = g.plane_of_block(b);
        let victim_mode = self.blocks.mode(b);
        let victim_region = self.blocks.region(b);
        let source = why.source();
        let mut end = now;
        // Bring the mapping entries of the pages this step will move into cache first: the
        // relocations below store to them at random, and stores that miss stall the store
        // buffer (and every later load behind it).
        let mut ahead = 0u32;
        let mut page = from;
        while ahead < copies {
            let Some((ppn, owner)) = self.blocks.next_valid_page(b, page) else { break };
            if let Owner::Data(lpn) = owner {
                self.mapping.touch(lpn);
            }
            page = g.page_in_block(ppn) + 1;
            ahead += 1;
        }
        let mut moves = std::mem::take(&mut self.moves);
        moves.clear();
        let data_stream = self.move_stream(Owner::Data(crate::units::Lpn(0)), why, victim_region);
        let mut done = 0u32;
        while done < copies {
            let Some((old, owner)) = self.blocks.next_valid_page(b, from) else { break };
            let stream = match owner {
                Owner::Data(_) => data_stream,
                Owner::Map(_) => self.streams.map,
            };
            let new = match self.blocks.allocate(stream, victim_plane, now) {
                Some(p) => p,
                None => self.allocate_elsewhere(stream, now)?,
            };
            let mode = self.blocks.mode(g.block_of(new));
            end = end.max(device.copy(old, victim_mode, new, mode, now, source));
            self.blocks.invalidate(old);
            self.blocks.set_owner(new, owner);
            if let Some(v) = &mut self.verify {
                v.on_copy(old, new);
            }
            moves.push(Relocation { owner, from: old, to: new });
            match why {
                Move::Gc => {
                    self.stats.gc_reads += 1;
                    self.stats.gc_programs += 1;
                    self.gc_stats.pages_copied += 1;
                }
                Move::Migration { .. } => {
                    self.stats.migration_reads += 1;
                    self.stats.migration_programs += 1;
                }
            }
            from = g.page_in_block(old) + 1;
            done += 1;
        }
        if !moves.is_empty() {
            let mut ctx = Self::map_ctx(device, &mut self.blocks, &mut self.stats.translation, self.streams.map, now);
            self.mapping.relocated(&moves, &mut ctx)?;
        }
        self.moves = moves;
        let copies_left = copies == u32::MAX || done == 0;
        if self.blocks.valid(b) == 0 && copies_left {
            end = end.max(device.erase(b, victim_mode, end, source));
            self.blocks.erase(b);
            if why == Move::Gc {
                self.gc_stats.victims_reclaimed += 1;
            }
            self.placement.on_room(victim_plane);
            return Ok((None, end));
        }
        Ok((Some(from), end))
    }

    /// A page of `stream` on any plane with room (GC and migration may use the reserve).
    fn allocate_elsewhere(&mut self, stream: StreamId, now: SimTime) -> Result<Ppn> {
        for plane in self.blocks.geometry().channel_first_order() {
            if self.blocks.has_room(stream, plane, 0) {
                if let Some(p) = self.blocks.allocate(stream, plane, now) {
                    return Ok(p);
                }
            }
        }
        Err(Error::DeviceFull { reason: "GC found no free page for relocation".into() })
    }
}
