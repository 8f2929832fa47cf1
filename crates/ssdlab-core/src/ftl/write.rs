//! Layer: ftl. The write path: host writes go to the write buffer (merging in DRAM, evicting as
//! program units) or, without one, straight to the flash as one-page units; a program unit is
//! placed on a plane by the placement policy, takes consecutive pages of its stream's write
//! point there, updates the mapping and is programmed page by page or, for a whole wordline of
//! a multi-level cell, one-shot.

use crate::device::{Device, Source};
use crate::error::{Error, Result};
use crate::ftl::blocks::{DomainId, GcScope, Owner, RegionId, StreamId};
use crate::ftl::cache::{PageWrite, Rewrite};
use crate::ftl::placement::PlacementView;
use crate::ftl::region::{WriteInfo, NATIVE};
use crate::ftl::{Ftl, PageRequest};
use crate::nand::BlockMode;
use crate::units::{Lpn, PlaneId, Ppn, SimTime};

impl Ftl {
    pub(super) fn write_request(
        &mut self,
        request: &PageRequest,
        ready: SimTime,
        now: SimTime,
        device: &mut Device,
    ) -> Result<SimTime> {
        let info = WriteInfo {
            request_bytes: request.size_bytes,
            request_pages: request.lpns.len() as u32,
            lpn: request.lpns.first().copied().unwrap_or(Lpn(0)),
        };
        if self.buffer.is_some() {
            return self.write_buffered(request, &info, ready, now, device);
        }
        let region = self.regions.route(&info);
        let mut done = ready;
        let last = request.lpns.len().saturating_sub(1);
        for (i, &lpn) in request.lpns.iter().enumerate() {
            let partial = (i == 0 && request.partial_head) || (i == last && request.partial_tail);
            done = done.max(self.write_direct(lpn, partial, region, ready, now, device)?);
        }
        Ok(done)
    }

    /// One host page programmed at once (no write buffer).
    fn write_direct(
        &mut self,
        lpn: Lpn,
        partial: bool,
        region: RegionId,
        mut ready: SimTime,
        now: SimTime,
        device: &mut Device,
    ) -> Result<SimTime> {
        self.stats.host_write_pages += 1;
        if partial {
            if let Some(old) = self.mapping.peek(lpn) {
                // Read-modify-write: the unwritten part of the page comes from the old copy.
                self.stats.rmw_reads += 1;
                let mode = self.blocks.mode(self.blocks.geometry().block_of(old));
                ready = device.read(old, mode, ready, Source::Host);
            }
        }
        self.unit.clear();
        self.unit.push(lpn);
        // No versions: the host write gets its version when it is committed, so a write the
        // device refuses (DeviceFull) is not taken for data the FTL lost.
        self.versions.clear();
        self.program_unit(Source::Host, region, ready, now, device)
    }

    fn write_buffered(
        &mut self,
        request: &PageRequest,
        info: &WriteInfo,
        ready: SimTime,
        now: SimTime,
        device: &mut Device,
    ) -> Result<SimTime> {
        // The request's pages cross the DRAM bus one after another.
        let mut done = ready + request.lpns.len() as u64 * self.dram_page_ns;
        let last = request.lpns.len().saturating_sub(1);
        for (i, &lpn) in request.lpns.iter().enumerate() {
            self.stats.host_write_pages += 1;
            let partial = (i == 0 && request.partial_head) || (i == last && request.partial_tail);
            let buffered = {
                let b = self.buffer.as_mut().expect("buffered write without a buffer");
                b.stats.write_lookups += 1;
                b.contains(lpn)
            };
            if buffered {
                self.buffer.as_mut().expect("buffer").stats.write_hits += 1;
            } else {
                if partial {
                    if let Some(old) = self.mapping.peek(lpn) {
                        // The rest of the page comes from flash before it merges in DRAM.
                        self.stats.rmw_reads += 1;
                        let mode = self.blocks.mode(self.blocks.geometry().block_of(old));
                        done = done.max(device.read(old, mode, ready, Source::Host) + self.dram_page_ns);
                    }
                }
                done = done.max(self.make_room(now, device)?);
            }
            let version = self.verify.as_mut().map(|v| v.on_host_write(lpn)).unwrap_or(0);
            let b = self.buffer.as_mut().expect("buffer");
            let write = PageWrite { request_pages: info.request_pages, partial };
            b.insert(lpn, true, write, version);
            b.policy.on_write(lpn, write);
        }
        if self.buffer.as_ref().is_some_and(|b| b.above_high()) {
            self.buffer.as_mut().expect("buffer").stats.flushes += 1;
            while !self.buffer.as_ref().expect("buffer").at_or_below_low() {
                if !self.evict_unit(now, now, device)? {
                    break;
                }
            }
        }
        Ok(done)
    }

    /// A host read of `lpn` missed the buffer and read a flash page of `page_type`, ending at
    /// `read_end`: the eviction policy hears of it and may ask for the page back as dirty data
    /// (`Rewrite`: the FSP paper's rewrite modules), else with `cache.insert_reads` the page is
    /// kept, clean (dirty with `cache.write_back_reads`). Returns when the read may complete
    /// (later only if it waited for room to keep the page; a rewrite is the FTL's own work, no
    /// read waits for it).
    pub(super) fn after_flash_read(
        &mut self,
        lpn: Lpn,
        page_type: u32,
        request_pages: u32,
        read_end: SimTime,
        now: SimTime,
        device: &mut Device,
    ) -> Result<SimTime> {
        let b = self.buffer.as_mut().expect("a buffered FTL");
        let rewrite = b.policy.on_flash_read(lpn, page_type);
        b.policy.on_read(lpn, false);
        // The flash holds the latest data: the buffer holds that version again.
        let version = self.verify.as_ref().map(|v| v.latest(lpn)).unwrap_or(0);
        let write = PageWrite { request_pages, partial: false };
        match rewrite {
            Rewrite::No if self.insert_reads => {
                let t = self.make_room(now, device)?;
                // Written back when it leaves (`write_back_reads`): routed as a write of the
                // read's size would be.
                let (dirty, write) = if self.write_back_reads { (true, write) } else { (false, PageWrite::default()) };
                self.buffer.as_mut().expect("buffer").insert(lpn, dirty, write, version);
                Ok(t)
            }
            Rewrite::No => Ok(now),
            Rewrite::Regroup => {
                let b = self.buffer.as_mut().expect("buffer");
                b.release_until(now);
                if b.contains(lpn) {
                    return Ok(now);
                }
                if b.has_free_slot() {
                    b.insert_at_tail(lpn, write, version);
                    b.stats.rewrite_pages += 1;
                } else {
                    b.stats.rewrites_skipped_full += 1;
                }
                Ok(now)
            }
            Rewrite::Immediate => {
                if self.buffer.as_ref().expect("buffer").contains(lpn) {
                    return Ok(now);
                }
                self.make_room(now, device)?;
                let b = self.buffer.as_mut().expect("buffer");
                b.insert_at_tail(lpn, write, version);
                b.stats.rewrite_pages += 1;
                // Its data is in controller memory once the read ends.
                self.evict_unit(now, read_end, device)?;
                Ok(now)
            }
        }
    }

    /// Make room for one more page: give back finished programs' space, drop a clean page (as
    /// `cache.room_order` allows), or wait for the earliest program in flight to end; only when
    /// none is in flight, evict a unit of dirty pages first (its pages free their space when
    /// their program ends). Evicting
    /// while programs are in flight would free nothing sooner: it would empty the buffer of
    /// dirty pages, unit after unit, at every write that finds it full. Returns when the room
    /// is there.
    fn make_room(&mut self, now: SimTime, device: &mut Device) -> Result<SimTime> {
        let mut at = now;
        loop {
            let b = self.buffer.as_mut().expect("buffer");
            b.release_until(now);
            if b.occupied() < b.capacity_pages() || b.drop_for_room() {
                return Ok(at);
            }
            if b.dirty() > 0 && b.in_flight() == 0 {
                self.evict_unit(now, now, device)?;
                continue;
            }
            let b = self.buffer.as_mut().expect("buffer");
            match b.wait_one() {
                Some(t) => {
                    if t > now {
                        b.stats.writes_waited += 1;
                        b.stats.wait_ns += t - now;
                    }
                    at = at.max(t);
                    return Ok(at);
                }
                None => return Err(Error::invariant("write buffer full with nothing dirty or in flight")),
            }
        }
    }

    /// Evict one program unit chosen by the eviction policy, programmed not before `ready`.
    /// False if nothing is dirty.
    fn evict_unit(&mut self, now: SimTime, ready: SimTime, device: &mut Device) -> Result<bool> {
        let mut unit = std::mem::take(&mut self.unit);
        let mut versions = std::mem::take(&mut self.versions);
        let b = self.buffer.as_mut().expect("buffer");
        // The unit's region (and so its size) follows the request that wrote its first page.
        let first = b.view().from_tail().find(|p| p.dirty);
        let Some(first) = first else {
            self.unit = unit;
            self.versions = versions;
            return Ok(false);
        };
        let info = WriteInfo {
            request_bytes: first.request_pages as u64 * self.blocks.geometry().page_bytes,
            request_pages: first.request_pages,
            lpn: first.lpn,
        };
        let region = self.regions.route(&info);
        b.next_unit(self.unit_pages[region.0 as usize], &mut unit);
        versions.clear();
        for &lpn in &unit {
            let (_, version) = b.remove(lpn).ok_or_else(|| Error::invariant("evicting a page the buffer lacks"))?;
            versions.push(version);
        }
        let n = unit.len() as u64;
        b.stats.evicted_pages += n;
        b.stats.evicted_units += 1;
        self.unit = unit;
        self.versions = versions;
        let end = self.program_unit(Source::BufferFlush, region, ready, now, device)?;
        let b = self.buffer.as_mut().expect("buffer");
        for _ in 0..n {
            b.hold_until(end);
        }
        Ok(true)
    }

    /// Program every dirty page in idle time (`cache.flush_on_idle`). Returns when the last
    /// program ends.
    pub(super) fn flush_idle(&mut self, now: SimTime, device: &mut Device) -> Result<SimTime> {
        let pages = self.evict_all(now, device)?;
        let Some(b) = &mut self.buffer else { return Ok(now) };
        b.stats.idle_flushes += 1;
        b.stats.idle_flush_pages += pages;
        Ok(now.max(b.latest_release()))
    }

    /// Flush every dirty page (end of the run): before the final figures and the verify pass.
    pub fn flush_buffer(&mut self, now: SimTime, device: &mut Device) -> Result<SimTime> {
        let pages = self.evict_all(now, device)?;
        let Some(b) = &mut self.buffer else { return Ok(now) };
        b.stats.final_flush_pages += pages;
        let mut end = now;
        while let Some(t) = b.wait_one() {
            end = end.max(t);
        }
        Ok(end)
    }

    /// Evict every dirty page as program units (page by page once fewer than a unit are
    /// left). Returns the pages evicted.
    pub(super) fn evict_all(&mut self, now: SimTime, device: &mut Device) -> Result<u64> {
        let before = self.buffer.as_ref().map_or(0, |b| b.dirty() as u64);
        while self.buffer.as_ref().is_some_and(|b| b.dirty() > 0) {
            self.evict_unit(now, now, device)?;
        }
        Ok(before)
    }

    /// Program the unit in `self.unit` for `source` into `region`, not before `ready`. Verify
    /// mode: `self.versions` holds the versions the buffer kept, or is empty for a direct host
    /// write (each page then gets a new version as it is committed). Returns when its programs
    /// and mapping updates are done.
    fn program_unit(
        &mut self,
        source: Source,
        region: RegionId,
        mut ready: SimTime,
        now: SimTime,
        device: &mut Device,
    ) -> Result<SimTime> {
        let unit = std::mem::take(&mut self.unit);
        let versions = std::mem::take(&mut self.versions);
        let result = (|| {
            let stream = self.host_stream(region, unit[0]);
            let (first, gc_end, region, stream) = self.allocate_unit(&unit, stream, region, ready, now, device)?;
            let busy_before = device.counters().by_source.get(source).busy_ns;
            ready = ready.max(gc_end);
            let block = self.blocks.geometry().block_of(first);
            let mode = self.blocks.mode(block);
            let mut done = ready;
            for (k, &lpn) in unit.iter().enumerate() {
                done = done.max(self.commit_page(
                    lpn,
                    Ppn(first.0 + k as u32),
                    versions.get(k).copied(),
                    ready,
                    device,
                )?);
            }
            let bits = match mode {
                BlockMode::Native => self.blocks.geometry().cell.bits_per_cell(),
                BlockMode::Slc => 1,
            };
            let n = unit.len() as u32;
            if n > 1 && n == bits {
                debug_assert_eq!(
                    self.blocks.geometry().page_in_block(first) % n,
                    0,
                    "a one-shot unit starts on a wordline"
                );
                done = done.max(device.program_wordline(first, n, ready, source));
            } else {
                for k in 0..n {
                    done = done.max(device.program(Ppn(first.0 + k), mode, ready, source));
                }
            }
            self.note_programmed(stream, block, device);
            let r = &mut self.region_stats[region.0 as usize];
            r.host_pages += n as u64;
            r.host_write_ns += device.counters().by_source.get(source).busy_ns - busy_before;
            if self.regions_want_placements {
                self.regions.placed(region, &unit);
            }
            Ok(done)
        })();
        self.unit = unit;
        self.versions = versions;
        result
    }

    /// Map `lpn` to its new page `ppn` (not yet programmed): the mapping update (which may
    /// need translation reads and writes, not before `ready`), the old copy's invalidation, the
    /// owner entry and, in verify mode, the page's version (`version` kept by the buffer, or a
    /// new one for a direct host write). Returns when the mapping update is done.
    #[inline]
    fn commit_page(
        &mut self,
        lpn: Lpn,
        ppn: Ppn,
        version: Option<u32>,
        ready: SimTime,
        device: &mut Device,
    ) -> Result<SimTime> {
        let (old, updated) = {
            let mut ctx = Self::map_ctx(device, &mut self.blocks, &mut self.stats.translation, self.streams.map, ready);
            self.mapping.update(lpn, ppn, &mut ctx)?
        };
        if let Some(o) = old {
            let r = self.blocks.invalidate(o);
            self.region_stats[r.0 as usize].overwritten_pages += 1;
        }
        self.blocks.set_owner(ppn, Owner::Data(lpn));
        if let Some(v) = &mut self.verify {
            let version = version.unwrap_or_else(|| v.on_host_write(lpn));
            v.on_program(ppn, version);
        }
        self.stats.host_programs += 1;
        Ok(updated)
    }

    /// Tell a placement that tracks programs about `block`'s plane after a unit of host
    /// `stream` went there (timed units only: see `Placement::on_programmed`).
    #[inline(always)]
    fn note_programmed(&mut self, stream: StreamId, block: crate::units::BlockId, device: &Device) {
        if self.placement_tracks_programs && device.is_timed() {
            self.report_programmed(stream, block, device);
        }
    }

    fn report_programmed(&mut self, stream: StreamId, block: crate::units::BlockId, device: &Device) {
        let plane = self.blocks.geometry().plane_of_block(block);
        let region = self.blocks.stream_region(stream);
        // Room for one more page: a lower bound of room for any unit (a query for a larger
        // unit that finds none there corrects the bound itself).
        let room = self.blocks.has_room(stream, plane, self.blocks.gc_reserve(region));
        self.placement.on_programmed(stream, plane, device.plane_free_at(plane), room);
    }

    /// Pages for a whole unit on one plane of `stream` (consecutive pages of one block): the
    /// placement's plane, after the plane's own GC with per-plane GC. If no plane has room, GC
    /// must reclaim first (an emergency: the scheduler did not keep up), one victim at a time,
    /// until a plane has room: a reclaimed block may land on a plane that holds only its GC
    /// reserve. Once a region has more free blocks than its planes' reserves, some plane has
    /// one beyond its reserve, so this ends. A placement stream about to open a line while
    /// holding `max_lines` - 1 sealed ones is collected first. Returns the first page, when
    /// the GC the unit waits for (as a write waits for blocking GC) ended, and the region and
    /// stream it went to.
    #[inline(always)]
    fn allocate_unit(
        &mut self,
        lpns: &[Lpn],
        stream: StreamId,
        region: RegionId,
        mut ready: SimTime,
        now: SimTime,
        device: &mut Device,
    ) -> Result<(Ppn, SimTime, RegionId, StreamId)> {
        if self.max_lines.is_some() {
            ready = ready.max(self.collect_at_threshold(stream, ready, device)?);
        }
        let reserve = self.blocks.gc_reserve(region);
        let view = PlacementView::new(device, &self.blocks, stream, reserve);
        let (first, gc_end, region) = match self.placement.plane(lpns, &view) {
            Some(plane) => self.allocate_on(plane, lpns, stream, region, ready, now, device),
            None => return self.allocate_unit_reclaiming(lpns, stream, region, ready, now, device),
        }?;
        Ok((first, gc_end, region, stream))
    }

    /// The per-group line threshold (`PlacementLayout::max_lines`): a placement stream whose
    /// next page opens a line while it holds `max_lines` - 1 sealed lines is collected first.
    /// Returns when that collection ends (`ready` if none ran).
    #[cold]
    fn collect_at_threshold(&mut self, stream: StreamId, ready: SimTime, device: &mut Device) -> Result<SimTime> {
        let Some(max) = self.max_lines else { return Ok(ready) };
        if self.blocks.has_open_line(stream)
            || !self.is_placement_stream(stream)
            || (self.blocks.sealed_lines(stream).len() as u32) + 1 < max
        {
            return Ok(ready);
        }
        match self.collect_lines(stream, None, ready, device)? {
            Some(end) => {
                self.gc_stats.threshold_collections += 1;
                self.gc_stats.foreground_invocations += 1;
                self.gc_stats.foreground_wait_ns += end.saturating_sub(ready);
                Ok(end.max(ready))
            }
            None => Ok(ready),
        }
    }

    /// The unit's pages on `plane`, which the placement chose, after that plane's own GC
    /// with per-plane GC.
    #[inline]
    #[allow(clippy::too_many_arguments)]
    fn allocate_on(
        &mut self,
        plane: PlaneId,
        lpns: &[Lpn],
        stream: StreamId,
        region: RegionId,
        ready: SimTime,
        now: SimTime,
        device: &mut Device,
    ) -> Result<(Ppn, SimTime, RegionId)> {
        let mut gc_end = ready;
        // The plane is its own GC domain: its free blocks are its domain's.
        if self.gc_scope == GcScope::Plane
            && region == NATIVE
            && self.blocks.region_free_blocks_in(region, plane) < self.trigger_free_blocks
        {
            gc_end = self.plane_gc(region, self.blocks.domain_of(region, plane), ready, device)?;
        }
        let first = self
            .blocks
            .allocate_run(stream, plane, lpns.len() as u32, self.unit_pages[region.0 as usize], now)
            .ok_or_else(|| Error::invariant("plane with room gave no page"))?;
        Ok((first, gc_end, region))
    }

    /// Foreground GC of a plane that is its own GC domain, before a unit lands there.
    #[cold]
    fn plane_gc(&mut self, region: RegionId, domain: DomainId, ready: SimTime, device: &mut Device) -> Result<SimTime> {
        self.gc_stats.foreground_invocations += 1;
        let end = self.reclaim_triggered(region, domain, self.target_free_blocks, ready, device)?;
        self.gc_stats.foreground_wait_ns += end - ready;
        Ok(end.max(ready))
    }

    /// `allocate_unit` when no plane has room for the unit: overflow to the native region, or
    /// reclaim (see `allocate_unit`) and ask the placement again.
    #[cold]
    fn allocate_unit_reclaiming(
        &mut self,
        lpns: &[Lpn],
        stream: StreamId,
        region: RegionId,
        ready: SimTime,
        now: SimTime,
        device: &mut Device,
    ) -> Result<(Ppn, SimTime, RegionId, StreamId)> {
        let planes = self.blocks.geometry().planes();
        let reserve = self.blocks.gc_reserve(region);
        let mut reclaimed = false;
        loop {
            if region != NATIVE {
                // A region emptied by migration (the SLC cache) with no room for the unit (on
                // its plane, with static placement; anywhere, if migration fell behind): the
                // unit goes to the native region, as a drive writes past a full SLC cache.
                self.stats.region_overflow_units += 1;
                let native = self.host_stream(NATIVE, lpns[0]);
                return self.allocate_unit(lpns, native, NATIVE, ready, now, device);
            }
            let wanted = self.placement.wanted_plane(lpns, self.blocks.geometry());
            let domain = self.blocks.domain_of(region, wanted.unwrap_or(PlaneId(0)));
            // Free blocks beyond the reserve: device-wide, some plane then has room; on a
            // plane that is its own GC domain, that plane has.
            let beyond_reserve = if self.blocks.is_line_region(region) {
                self.blocks.free_lines(region) > reserve
            } else if self.blocks.domain_is_plane(region) {
                self.blocks.domain_free_blocks(region, domain) > reserve
            } else {
                self.blocks.region_free_blocks(region) > planes * reserve
            };
            if reclaimed && beyond_reserve {
                return Err(Error::DeviceFull { reason: "no plane has a free page after GC reclaimed blocks".into() });
            }
            if !reclaimed {
                self.gc_stats.emergency_reclaims += 1;
                reclaimed = true;
            }
            let target = self.blocks.domain_free_blocks(region, domain) + 1;
            // The unit's program is not made to wait for this reclaim: where it lands on the
            // reclaimed plane, that plane's array unit runs the erase first anyway.
            self.reclaim_until(region, domain, target, ready, device)?;
            let view = PlacementView::new(device, &self.blocks, stream, reserve);
            if let Some(plane) = self.placement.plane(lpns, &view) {
                let (first, gc_end, region) = self.allocate_on(plane, lpns, stream, region, ready, now, device)?;
                return Ok((first, gc_end, region, stream));
            }
        }
    }

    /// One page for `lpns[0]` (a premapped page: no program).
    pub(super) fn allocate_unit_page(
        &mut self,
        lpns: &[Lpn],
        stream: StreamId,
        region: RegionId,
        now: SimTime,
        device: &mut Device,
    ) -> Result<Ppn> {
        Ok(self.allocate_unit(&lpns[..1], stream, region, now, now, device)?.0)
    }

    /// Warm-up write: no timing, no scheduler, no buffer; GC reclaims inline when free blocks
    /// run low. The same steps as `program_unit` for a one-page host unit, without its unit
    /// buffers and one-shot branch: the warm-up fill of a large device runs this for every
    /// logical page.
    pub fn warm_write(&mut self, lpn: Lpn, device: &mut Device) -> Result<()> {
        if self.gc_scope == GcScope::Region && self.blocks.region_free_blocks(NATIVE) < self.trigger_free_blocks {
            let domain = self.native_domain;
            self.reclaim_triggered(NATIVE, domain, self.trigger_free_blocks + 1, 0, device)?;
        }
        let stream = self.host_stream(NATIVE, lpn);
        let (ppn, _, _, stream) = self.allocate_unit(std::slice::from_ref(&lpn), stream, NATIVE, 0, 0, device)?;
        self.commit_page(lpn, ppn, None, 0, device)?;
        let block = self.blocks.geometry().block_of(ppn);
        device.program(ppn, self.blocks.mode(block), 0, Source::Host);
        self.note_programmed(stream, block, device);
        Ok(())
    }
}
