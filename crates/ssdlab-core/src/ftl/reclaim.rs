//! Layer: ftl. Executing GC and migration: victims chosen per GC domain by the victim policy,
//! emptied whole (foreground) or in partial steps (background), their valid pages copied to a
//! write stream (GC: the victim's region; migration: another region's) and handed to the
//! mapping in one batch per step, then erased. Every operation is tagged with its `Source`.

use crate::device::{Device, Source};
use crate::error::{Error, Result};
use crate::ftl::blocks::{BlockState, DomainId, GcScope, Owner, RegionId, StreamId};
use crate::ftl::gc::{GcAction, IdleObservation, LineCensus, LineVictim, LineVictimView, VictimView};
use crate::ftl::mapping::Relocation;
use crate::ftl::placement::PlacementView;
use crate::ftl::region::{RegionAction, RegionView, MAX_ACTIONS_PER_WRITE, NATIVE};
use crate::ftl::{Ftl, RequestInfo};
use crate::units::{BlockId, PlaneId, Ppn, SimTime};

/// Why pages move: GC within a region, migration into another region, or GC within a region
/// that keeps the pages its policy wants and migrates the others (`RegionAction::Collect`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Move {
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

/// Array time booked so far by GC and by migration (a region's figures take the difference
/// across its work).
fn reclaim_busy(device: &Device) -> (u64, u64) {
    let c = &device.counters().by_source;
    (c.get(Source::Gc).busy_ns, c.get(Source::Migration).busy_ns)
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

    /// What a region policy sees now.
    fn region_view(&self, now: SimTime) -> RegionView<'_> {
        Self::view_of(
            &self.blocks,
            &self.region_stats,
            self.logical_capacity_pages,
            self.target_free_blocks,
            self.overprovisioning,
            now,
        )
    }

    fn view_of<'a>(
        blocks: &'a crate::ftl::blocks::BlockManager,
        stats: &'a [crate::ftl::region::RegionStats],
        logical_pages: u64,
        native_target_free_blocks: u32,
        overprovisioning: f64,
        now: SimTime,
    ) -> RegionView<'a> {
        RegionView {
            now,
            blocks,
            stats,
            logical_pages,
            native_keep_free_blocks: native_target_free_blocks + 1,
            native_spare_fraction: overprovisioning,
        }
    }

    /// The region policy's space work before a write, executed (the write waits for it): its
    /// actions one after another until it asks for none (at most `MAX_ACTIONS_PER_WRITE`).
    pub(super) fn before_write_regions(&mut self, now: SimTime, device: &mut Device) -> Result<SimTime> {
        let mut end = now;
        for _ in 0..MAX_ACTIONS_PER_WRITE {
            let view = Self::view_of(
                &self.blocks,
                &self.region_stats,
                self.logical_capacity_pages,
                self.target_free_blocks,
                self.overprovisioning,
                now,
            );
            let t = match self.regions.before_write(&view) {
                RegionAction::Nothing => break,
                RegionAction::Migrate { from, to, target_free_blocks } => {
                    self.migrate_until(from, to, target_free_blocks, Move::Migration { to }, now, device)?
                }
                RegionAction::Collect { region, to, target_free_blocks } => {
                    self.migrate_until(region, to, target_free_blocks, Move::Sort { to }, now, device)?
                }
                RegionAction::Resize { region, blocks } => self.resize_region(region, blocks, now, device)?,
            };
            end = end.max(t);
        }
        Ok(end)
    }

    /// Make region `r` hold `blocks` blocks, as far as it can (`RegionAction::Resize`).
    fn resize_region(&mut self, r: RegionId, blocks: u32, now: SimTime, device: &mut Device) -> Result<SimTime> {
        if r == NATIVE || r.0 as usize >= self.blocks.regions() {
            return Err(Error::invariant(format!("region policy asked to resize region {}", r.0)));
        }
        let planes = self.blocks.geometry().planes();
        let mut end = now;
        if blocks > self.blocks.region_blocks(r) {
            let cap = self.region_view(now).max_region_blocks(r);
            let keep = self.target_free_blocks + 1;
            let mut reclaimed = false;
            while self.blocks.region_blocks(r) < blocks.min(cap) {
                if self.blocks.region_free_blocks(NATIVE) <= keep + planes * self.blocks.gc_reserve(NATIVE) {
                    // No free native block to spare: GC the native region for one, once per
                    // resize (the agent pays for it in QLC-to-QLC time).
                    if reclaimed || self.gc_scope != GcScope::Region {
                        break;
                    }
                    reclaimed = true;
                    let before = self.blocks.region_free_blocks(NATIVE);
                    let (gc0, _) = reclaim_busy(device);
                    let copied = self.stats.gc_reads;
                    let domain = self.native_domain;
                    let target =
                        keep + planes * self.blocks.gc_reserve(NATIVE) + (blocks - self.blocks.region_blocks(r));
                    end = end.max(self.reclaim_triggered(NATIVE, domain, target, now, device)?);
                    let stats = &mut self.region_stats[NATIVE.0 as usize];
                    stats.gc_ns += reclaim_busy(device).0 - gc0;
                    stats.gc_pages += self.stats.gc_reads - copied;
                    if self.blocks.region_free_blocks(NATIVE) <= before {
                        break;
                    }
                    continue;
                }
                let Some(plane) = self.fullest_plane(NATIVE) else { break };
                self.blocks
                    .move_free_block(NATIVE, r, plane)
                    .ok_or_else(|| Error::invariant("plane lost its free block"))?;
                self.region_stats[r.0 as usize].blocks_converted_in += 1;
            }
        } else {
            while self.blocks.region_blocks(r) > blocks {
                if let Some(plane) = self.fullest_plane(r) {
                    self.blocks
                        .move_free_block(r, NATIVE, plane)
                        .ok_or_else(|| Error::invariant("plane lost its free block"))?;
                    self.region_stats[r.0 as usize].blocks_converted_out += 1;
                    continue;
                }
                // No free block to give back: migrate a victim's data out to free one.
                let free = self.blocks.region_free_blocks(r);
                end = end.max(self.migrate_until(r, NATIVE, free + 1, Move::Migration { to: NATIVE }, now, device)?);
                if self.blocks.region_free_blocks(r) <= free {
                    break;
                }
            }
        }
        Ok(end)
    }

    /// The plane where region `r` has the most free blocks (the first such in plane order), or
    /// None if it has none.
    fn fullest_plane(&self, r: RegionId) -> Option<PlaneId> {
        let planes = self.blocks.geometry().planes();
        (0..planes)
            .map(PlaneId)
            .filter(|&p| self.blocks.region_free_blocks_in(r, p) > 0)
            .max_by_key(|&p| (self.blocks.region_free_blocks_in(r, p), std::cmp::Reverse(p.0)))
    }

    /// Empty victims of region `from` (migrating into `to`, or with `Move::Sort` keeping what
    /// the policy wants) until `from` has `target` free blocks.
    fn migrate_until(
        &mut self,
        from: RegionId,
        to: RegionId,
        target: u32,
        why: Move,
        now: SimTime,
        device: &mut Device,
    ) -> Result<SimTime> {
        let mut end = now;
        let domain = self.blocks.domain_of(from, PlaneId(0));
        let mut why = why;
        while self.blocks.region_free_blocks(from) < target {
            let Some(victim) = self.choose_victim_for(why, from, domain, 0.0, now)? else {
                // Every block of the region is open or free: nothing to migrate yet.
                break;
            };
            let plane = self.blocks.geometry().plane_of_block(victim);
            let free_before = self.blocks.region_free_blocks(from);
            let (_, t) = self.empty_victim_from(victim, 0, u32::MAX, why, now, device)?;
            self.stats.migrated_victims += 1;
            end = end.max(t);
            if matches!(why, Move::Sort { .. }) && self.blocks.region_free_blocks(from) <= free_before {
                // The victim's pages all stayed and filled what its erase freed: the next
                // victim migrates whole, or collection would never end.
                why = Move::Migration { to };
            }
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

    /// Empty and erase the next GC victim of `domain` (in a line-mode region: collect the
    /// lines of the stream the victim policy picks); when that ends, or None if there is no
    /// victim.
    fn reclaim_one(
        &mut self,
        region: RegionId,
        domain: DomainId,
        now: SimTime,
        device: &mut Device,
    ) -> Result<Option<SimTime>> {
        if self.blocks.is_line_region(region) {
            return self.collect_next_lines(region, 0.0, now, device);
        }
        let Some(victim) = self.next_gc_victim(region, domain, now)? else { return Ok(None) };
        Ok(Some(self.empty_victim_from(victim, 0, u32::MAX, Move::Gc, now, device)?.1))
    }

    /// Line mode: what the victim policy picks among the region's sealed lines, collected; a
    /// single line only if at least `min_invalid` of its pages are invalid (background GC).
    fn collect_next_lines(
        &mut self,
        region: RegionId,
        min_invalid: f64,
        now: SimTime,
        device: &mut Device,
    ) -> Result<Option<SimTime>> {
        let mut census = std::mem::take(&mut self.line_census);
        census.clear();
        for s in 0..self.blocks.streams().len() as u16 {
            let stream = StreamId(s);
            if self.blocks.stream_region(stream) != region || self.blocks.sealed_lines(stream).is_empty() {
                continue;
            }
            let room = self.collect_room(self.gc_destination(stream));
            for &index in self.blocks.sealed_lines(stream) {
                let (valid, capacity) = self.blocks.line_census(index);
                let collectable = valid < capacity && valid as u64 <= room;
                census.push(LineCensus { index, stream, valid_pages: valid, capacity_pages: capacity, collectable });
            }
        }
        let choice = self.victim.select_lines(&LineVictimView { lines: &census, now });
        let passes = |l: &LineCensus| l.invalid_pages() as f64 >= min_invalid * l.capacity_pages as f64;
        let target = match choice {
            Some(LineVictim::Stream(stream)) => Some((stream, None)),
            Some(LineVictim::Line(index)) => {
                census.iter().find(|l| l.index == index).filter(|l| passes(l)).map(|l| (l.stream, Some(index)))
            }
            None => None,
        };
        if target.is_none() && min_invalid > 0.0 && !census.iter().any(passes) {
            // No sealed line, collectable now or not, has enough invalid pages: each page
            // invalidated adds one to one line, so none can pass before `short` more are (or a
            // line seals). Lines are all the same size.
            let most = census.iter().map(|l| l.invalid_pages()).max().unwrap_or(0) as u64;
            let capacity = census.first().map_or(0, |l| l.capacity_pages) as f64;
            let bar = (min_invalid * capacity).ceil() as u64;
            if census.iter().all(|l| l.capacity_pages as f64 == capacity) && bar > most {
                self.line_gc_wait = Some((self.blocks.invalidations(), self.blocks.lines_sealed(), bar - most));
            }
        }
        self.line_census = census;
        match target {
            Some((stream, only)) => self.collect_lines(stream, only, now, device),
            None => Ok(None),
        }
    }

    /// The stream GC writes the valid pages of `stream`'s lines to (line mode): a placement
    /// stream's data back to itself (LearnedFTL's groups), translation pages to the
    /// translation stream, any other data to its region's GC stream.
    fn gc_destination(&self, stream: StreamId) -> StreamId {
        if stream == self.streams.map || self.is_placement_stream(stream) {
            stream
        } else {
            self.streams.gc[self.blocks.stream_region(stream).0 as usize]
        }
    }

    /// Pages GC can write into `stream` now: its open line's room and every free line of its
    /// region (GC may take the reserve).
    fn collect_room(&self, stream: StreamId) -> u64 {
        let region = self.blocks.stream_region(stream);
        let g = self.blocks.geometry();
        let line_pages = g.planes() as u64 * g.pages_in_mode(self.blocks.region_spec(region).mode) as u64;
        self.blocks.line_room(stream) as u64 + self.blocks.free_lines(region) as u64 * line_pages
    }

    /// Collect sealed lines of `stream` together: line `only`, or (LearnedFTL's group GC, Sec.
    /// 3.3.3) the stream's lines with the most invalid pages first, as many as the room GC has
    /// can take the valid pages of (a line without an invalid page gains nothing and stays).
    /// Every valid page is read, the pages sorted by owner (LPN; translation pages by number)
    /// and written back in that order (row by row on a line stream, so consecutive LPNs of a
    /// group get consecutive virtual PPNs), the lines erased, and the moves handed to the
    /// mapping as one batch (LearnedFTL retrains each translation page it touches once).
    /// Returns when the last operation ends, or None if no line could be taken.
    pub(super) fn collect_lines(
        &mut self,
        stream: StreamId,
        only: Option<u32>,
        now: SimTime,
        device: &mut Device,
    ) -> Result<Option<SimTime>> {
        let mut lines: Vec<(u32, u32)> = match only {
            Some(index) => vec![(self.blocks.line_census(index).0, index)],
            None => self.blocks.sealed_lines(stream).iter().map(|&i| (self.blocks.line_census(i).0, i)).collect(),
        };
        lines.sort_unstable();
        let mut room = self.collect_room(self.gc_destination(stream));
        let mut taken = Vec::new();
        for (valid, index) in lines {
            let (_, capacity) = self.blocks.line_census(index);
            if valid >= capacity || valid as u64 > room {
                break;
            }
            room -= valid as u64;
            taken.push(index);
        }
        if taken.is_empty() {
            return Ok(None);
        }
        let busy = reclaim_busy(device).0;
        let copied = self.stats.gc_reads;
        let g = self.blocks.geometry().clone();
        let mut pages = std::mem::take(&mut self.collected);
        pages.clear();
        let mut victims = Vec::with_capacity(taken.len() * g.planes() as usize);
        for &index in &taken {
            self.blocks.take_sealed_line(stream, index);
            for b in self.blocks.line_blocks(index) {
                victims.push(b);
                let mut from = 0;
                while let Some((ppn, owner)) = self.blocks.next_valid_page(b, from) {
                    pages.push((owner, ppn));
                    from = g.page_in_block(ppn) + 1;
                }
            }
        }
        self.gc_stats.victims_chosen += victims.len() as u64;
        self.gc_stats.victim_valid_pages_at_choice += pages.len() as u64;
        self.gc_stats.line_collections += 1;
        self.gc_stats.lines_collected += taken.len() as u64;
        pages.sort_unstable();
        // When each victim block's last page was read: its erase follows.
        let mut read_end = vec![now; victims.len()];
        let mut moves = std::mem::take(&mut self.moves);
        moves.clear();
        let region = self.blocks.stream_region(stream);
        let planes = g.planes() as usize;
        for &(owner, old) in &pages {
            // `victims` holds the taken lines' blocks line by line, in plane order.
            let b = g.block_of(old);
            let line = taken.iter().position(|&i| i == g.block_in_plane(b)).expect("a page of a taken line");
            let k = line * planes + g.plane_of_block(b).index();
            let victim = (g.plane_of_block(b), self.blocks.mode(b));
            let dest = self.move_dest(owner, Move::Gc, region);
            let (new, t) = self.move_page(old, owner, victim, dest, Move::Gc, now, device)?;
            moves.push(Relocation { owner, from: old, to: new });
            read_end[k] = read_end[k].max(t);
        }
        // The lines are erased before the mapping writes its translation pages back: a
        // write-back that used the last free line gets it back first.
        let mut end = now;
        for (k, &b) in victims.iter().enumerate() {
            let mode = self.blocks.mode(b);
            end = end.max(device.erase(b, mode, read_end[k], Source::Gc));
            self.blocks.erase(b);
            self.gc_stats.victims_reclaimed += 1;
            self.placement.on_room(g.plane_of_block(b));
        }
        if !moves.is_empty() {
            let mut ctx = Self::map_ctx(device, &mut self.blocks, &mut self.stats.translation, self.streams.map, now);
            self.mapping.relocated(&moves, &mut ctx)?;
        }
        self.moves = moves;
        self.collected = pages;
        let r = &mut self.region_stats[region.0 as usize];
        r.gc_ns += reclaim_busy(device).0 - busy;
        r.gc_pages += self.stats.gc_reads - copied;
        Ok(Some(end))
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
        if self.blocks.is_line_region(NATIVE) {
            // Line mode (`gc.background = "between_requests"`): a step is one line collection.
            if let Some((invalidations, sealed, short)) = self.line_gc_wait {
                if self.blocks.lines_sealed() == sealed && self.blocks.invalidations() - invalidations < short {
                    return Ok(now);
                }
                self.line_gc_wait = None;
            }
            let collected = self.collect_next_lines(NATIVE, min_invalid, now, device)?;
            if collected.is_some() {
                self.gc_stats.partial_steps += 1;
            }
            return Ok(collected.unwrap_or(now));
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
    /// the placement's own stream for it (native region), else the GC stream of its region or
    /// the migration stream of the target region.
    #[inline]
    fn move_stream(&self, owner: Owner, why: Move, victim_region: RegionId) -> StreamId {
        let lpn = match owner {
            Owner::Map(_) => return self.streams.map,
            Owner::Data(lpn) => lpn,
        };
        let to = match why {
            Move::Gc => victim_region,
            Move::Migration { to } | Move::Sort { to } => to,
        };
        if let Some(s) = self.placement_stream(to, lpn) {
            return s;
        }
        match why {
            Move::Gc => self.streams.gc[victim_region.0 as usize],
            Move::Migration { to } | Move::Sort { to } => self.streams.migration[to.0 as usize],
        }
    }

    /// Move one valid page `old` (holding `owner`, in a block of mode `victim_mode`) to
    /// `stream`: on the victim's plane while it has room, else the first plane with room in
    /// channel-first order, the GC reserve included; with `row_by_row` (see `move_dest`) on the
    /// placement's plane. The copy (read, then program) is booked at `now`; the old page becomes
    /// invalid, the new one `owner`'s. Returns the new page and when the copy ends.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn move_page(
        &mut self,
        old: Ppn,
        owner: Owner,
        (victim_plane, victim_mode): (PlaneId, crate::nand::BlockMode),
        (stream, row_by_row): (StreamId, bool),
        why: Move,
        now: SimTime,
        device: &mut Device,
    ) -> Result<(Ppn, SimTime)> {
        let new = if row_by_row {
            self.allocate_line_move(stream, owner, now, device)?
        } else {
            match self.blocks.allocate(stream, victim_plane, now) {
                Some(p) => p,
                None => self.allocate_elsewhere(stream, now)?,
            }
        };
        let mode = self.blocks.mode(self.blocks.geometry().block_of(new));
        let end = device.copy(old, victim_mode, new, mode, now, why.source());
        self.blocks.invalidate(old);
        self.blocks.set_owner(new, owner);
        if let Some(v) = &mut self.verify {
            v.on_copy(old, new);
        }
        match why {
            Move::Gc | Move::Sort { .. } => {
                self.stats.gc_reads += 1;
                self.stats.gc_programs += 1;
                self.gc_stats.pages_copied += 1;
            }
            Move::Migration { .. } => {
                self.stats.migration_reads += 1;
                self.stats.migration_programs += 1;
            }
        }
        Ok((new, end))
    }

    /// The stream a moved page goes to (`move_stream`), and whether it is written row by row:
    /// data streams of a line-mode region are; translation pages go to any plane with room in
    /// their line, as `MapCtx` writes them.
    #[inline]
    fn move_dest(&self, owner: Owner, why: Move, victim_region: RegionId) -> (StreamId, bool) {
        let stream = self.move_stream(owner, why, victim_region);
        (stream, stream != self.streams.map && self.blocks.is_line_stream(stream))
    }

    /// A page of line-mode `stream` for a moved page: on the placement's plane.
    #[cold]
    fn allocate_line_move(&mut self, stream: StreamId, owner: Owner, now: SimTime, device: &Device) -> Result<Ppn> {
        let lpns = [owner.lpn().unwrap_or(crate::units::Lpn(0))];
        let view = PlacementView::new(device, &self.blocks, stream, 0);
        let plane = self
            .placement
            .plane(&lpns, &view)
            .ok_or_else(|| Error::DeviceFull { reason: "GC found no free line for relocation".into() })?;
        self.blocks.allocate(stream, plane, now).ok_or_else(|| Error::invariant("plane with room gave no page"))
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
        let busy = reclaim_busy(device);
        let pages = (self.stats.gc_reads, self.stats.migration_reads);
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
        // Every data page of the victim goes to one stream, unless the placement chooses
        // streams by LPN.
        let per_page = !self.placement_streams.is_empty();
        let data_dest = self.move_dest(Owner::Data(crate::units::Lpn(0)), why, victim_region);
        let mut done = 0u32;
        while done < copies {
            let Some((old, owner)) = self.blocks.next_valid_page(b, from) else { break };
            // Collection: the region policy keeps each data page or lets it migrate.
            let page_why = match (why, owner) {
                (Move::Sort { to }, Owner::Data(lpn)) => {
                    if self.regions.keep_in_region(lpn) {
                        Move::Gc
                    } else {
                        Move::Migration { to }
                    }
                }
                _ => why,
            };
            let dest = match owner {
                Owner::Data(_) if !per_page && page_why == why => data_dest,
                _ => self.move_dest(owner, page_why, victim_region),
            };
            let (new, t) = self.move_page(old, owner, (victim_plane, victim_mode), dest, page_why, now, device)?;
            end = end.max(t);
            moves.push(Relocation { owner, from: old, to: new });
            from = g.page_in_block(old) + 1;
            done += 1;
        }
        if !moves.is_empty() {
            let mut ctx = Self::map_ctx(device, &mut self.blocks, &mut self.stats.translation, self.streams.map, now);
            self.mapping.relocated(&moves, &mut ctx)?;
        }
        self.moves = moves;
        let copies_left = copies == u32::MAX || done == 0;
        let erased = self.blocks.valid(b) == 0 && copies_left;
        if erased {
            end = end.max(device.erase(b, victim_mode, end, source));
            self.blocks.erase(b);
            if why == Move::Gc {
                self.gc_stats.victims_reclaimed += 1;
            }
            self.placement.on_room(victim_plane);
        }
        let (gc, migration) = reclaim_busy(device);
        let r = &mut self.region_stats[victim_region.0 as usize];
        r.gc_ns += gc - busy.0;
        r.migration_out_ns += migration - busy.1;
        r.gc_pages += self.stats.gc_reads - pages.0;
        r.migrated_out_pages += self.stats.migration_reads - pages.1;
        Ok((if erased { None } else { Some(from) }, end))
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
