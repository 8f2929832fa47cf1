//! Layer: ftl. The host path's writes: host writes go to the write buffer (merging in DRAM, evicting as
//! program units) or, without one, straight to the flash as one-page units; a program unit is
//! placed on a plane by the placement policy, takes consecutive pages of its stream's write
//! point there, updates the mapping and is programmed page by page or, for a whole wordline of
//! a multi-level cell, one-shot.

use crate::device::Source;
use crate::error::{Error, Result};
use crate::ftl::blocks::RegionId;
use crate::ftl::cache::{PageWrite, Rewrite};
use crate::ftl::region::{WriteInfo, NATIVE};
use crate::ftl::request::PageRequest;
use crate::nand::BlockMode;
use crate::units::{Lpn, Ppn, SimTime};

use super::allocate::{allocate_unit, reclaim_for_warm_write};
use super::{HostPath, Units};

impl HostPath {
    pub(in crate::ftl) fn write_request(
        &mut self,
        request: &PageRequest,
        ready: SimTime,
        now: SimTime,
        u: &mut Units,
    ) -> Result<SimTime> {
        let info = WriteInfo {
            request_bytes: request.size_bytes,
            request_pages: request.lpns.len() as u32,
            lpn: request.lpns.first().copied().unwrap_or(Lpn(0)),
        };
        if self.buffer.is_some() {
            return self.write_buffered(request, &info, ready, now, u);
        }
        let region = u.regions.route(&info);
        let mut done = ready;
        let last = request.lpns.len().saturating_sub(1);
        for (i, &lpn) in request.lpns.iter().enumerate() {
            let partial = (i == 0 && request.partial_head) || (i == last && request.partial_tail);
            done = done.max(self.write_direct(lpn, partial, region, ready, now, u)?);
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
        u: &mut Units,
    ) -> Result<SimTime> {
        u.store.stats.host_write_pages += 1;
        if partial {
            if let Some(old) = u.store.mapping.peek(lpn) {
                // Read-modify-write: the unwritten part of the page comes from the old copy.
                u.store.stats.rmw_reads += 1;
                let mode = u.store.blocks.mode(u.store.blocks.geometry().block_of(old));
                ready = u.device.read(old, mode, ready, Source::Host);
            }
        }
        self.unit.clear();
        self.unit.push(lpn);
        // No versions: the host write gets its version when it is committed, so a write the
        // device refuses (DeviceFull) is not taken for data the FTL lost.
        self.versions.clear();
        self.program_unit(Source::Host, region, ready, now, u)
    }

    fn write_buffered(
        &mut self,
        request: &PageRequest,
        info: &WriteInfo,
        ready: SimTime,
        now: SimTime,
        u: &mut Units,
    ) -> Result<SimTime> {
        // The request's pages cross the DRAM bus one after another.
        let mut done = ready + request.lpns.len() as u64 * self.settings.dram_page_ns;
        let last = request.lpns.len().saturating_sub(1);
        for (i, &lpn) in request.lpns.iter().enumerate() {
            u.store.stats.host_write_pages += 1;
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
                    if let Some(old) = u.store.mapping.peek(lpn) {
                        // The rest of the page comes from flash before it merges in DRAM.
                        u.store.stats.rmw_reads += 1;
                        let mode = u.store.blocks.mode(u.store.blocks.geometry().block_of(old));
                        done = done.max(u.device.read(old, mode, ready, Source::Host) + self.settings.dram_page_ns);
                    }
                }
                done = done.max(self.make_room(now, u)?);
            }
            let version = u.store.verify.as_mut().map(|v| v.on_host_write(lpn)).unwrap_or(0);
            let b = self.buffer.as_mut().expect("buffer");
            let write = PageWrite { request_pages: info.request_pages, partial };
            b.insert(lpn, true, write, version);
            b.policy.on_write(lpn, write);
        }
        if self.buffer.as_ref().is_some_and(|b| b.above_high()) {
            self.buffer.as_mut().expect("buffer").stats.flushes += 1;
            while !self.buffer.as_ref().expect("buffer").at_or_below_low() {
                if !self.evict_unit(now, now, u)? {
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
        u: &mut Units,
    ) -> Result<SimTime> {
        let b = self.buffer.as_mut().expect("a buffered FTL");
        let rewrite = b.policy.on_flash_read(lpn, page_type);
        b.policy.on_read(lpn, false);
        // The flash holds the latest data: the buffer holds that version again.
        let version = u.store.verify.as_ref().map(|v| v.latest(lpn)).unwrap_or(0);
        let write = PageWrite { request_pages, partial: false };
        match rewrite {
            Rewrite::No if self.settings.insert_reads => {
                let t = self.make_room(now, u)?;
                // Written back when it leaves (`write_back_reads`): routed as a write of the
                // read's size would be.
                let (dirty, write) =
                    if self.settings.write_back_reads { (true, write) } else { (false, PageWrite::default()) };
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
                self.make_room(now, u)?;
                let b = self.buffer.as_mut().expect("buffer");
                b.insert_at_tail(lpn, write, version);
                b.stats.rewrite_pages += 1;
                // Its data is in controller memory once the read ends.
                self.evict_unit(now, read_end, u)?;
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
    fn make_room(&mut self, now: SimTime, u: &mut Units) -> Result<SimTime> {
        let mut at = now;
        loop {
            let b = self.buffer.as_mut().expect("buffer");
            b.release_until(now);
            if b.occupied() < b.capacity_pages() || b.drop_for_room() {
                return Ok(at);
            }
            if b.dirty() > 0 && b.in_flight() == 0 {
                self.evict_unit(now, now, u)?;
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
    fn evict_unit(&mut self, now: SimTime, ready: SimTime, u: &mut Units) -> Result<bool> {
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
            request_bytes: first.request_pages as u64 * u.store.blocks.geometry().page_bytes,
            request_pages: first.request_pages,
            lpn: first.lpn,
        };
        let region = u.regions.route(&info);
        b.next_unit(u.store.placer.unit_pages[region.0 as usize], &mut unit);
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
        let end = self.program_unit(Source::BufferFlush, region, ready, now, u)?;
        let b = self.buffer.as_mut().expect("buffer");
        for _ in 0..n {
            b.hold_until(end);
        }
        Ok(true)
    }

    /// Arm the write-back timer when a write left the buffer dirty and none is armed.
    #[inline]
    pub(in crate::ftl) fn arm_flush_timer(&mut self, now: SimTime) {
        if let (None, Some(interval)) = (self.flush_timer, self.settings.flush_interval_ns) {
            if self.buffer.as_ref().is_some_and(|b| b.dirty() > 0) {
                self.flush_timer = Some(now + interval);
            }
        }
    }

    /// The write-back timer fired at `now` (`Ftl::on_timer`): every dirty page is written
    /// back, as background work.
    pub(in crate::ftl) fn on_timer(&mut self, now: SimTime, u: &mut Units) -> Result<()> {
        if self.flush_timer.is_none_or(|t| t > now) {
            return Ok(());
        }
        self.flush_timer = None;
        if self.buffer.as_ref().is_some_and(|b| b.dirty() > 0) {
            u.device.set_background(true);
            let pages = self.evict_all(now, u);
            u.device.set_background(false);
            let pages = pages?;
            let b = self.buffer.as_mut().expect("a buffer has dirty pages");
            b.stats.timer_flushes += 1;
            b.stats.timer_flush_pages += pages;
        }
        Ok(())
    }

    /// Program every dirty page in idle time (`cache.flush_on_idle`). Returns when the last
    /// program ends.
    pub(in crate::ftl) fn flush_idle(&mut self, now: SimTime, u: &mut Units) -> Result<SimTime> {
        let pages = self.evict_all(now, u)?;
        let Some(b) = &mut self.buffer else { return Ok(now) };
        b.stats.idle_flushes += 1;
        b.stats.idle_flush_pages += pages;
        Ok(now.max(b.latest_release()))
    }

    /// Flush every dirty page (end of the run): before the final figures and the verify pass.
    pub(in crate::ftl) fn flush_buffer(&mut self, now: SimTime, u: &mut Units) -> Result<SimTime> {
        let pages = self.evict_all(now, u)?;
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
    pub(in crate::ftl) fn evict_all(&mut self, now: SimTime, u: &mut Units) -> Result<u64> {
        let before = self.buffer.as_ref().map_or(0, |b| b.dirty() as u64);
        while self.buffer.as_ref().is_some_and(|b| b.dirty() > 0) {
            self.evict_unit(now, now, u)?;
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
        u: &mut Units,
    ) -> Result<SimTime> {
        let unit = std::mem::take(&mut self.unit);
        let versions = std::mem::take(&mut self.versions);
        let result = (|| {
            let stream = u.store.placer.host_stream(region, unit[0]);
            let (first, gc_end, region, stream) = allocate_unit(&unit, stream, region, (ready, now), u)?;
            let busy_before = u.device.counters().by_source.get(source).busy_ns;
            ready = ready.max(gc_end);
            let block = u.store.blocks.geometry().block_of(first);
            let mode = u.store.blocks.mode(block);
            let mut done = ready;
            for (k, &lpn) in unit.iter().enumerate() {
                let version = versions.get(k).copied();
                done = done.max(commit_page(lpn, Ppn(first.0 + k as u32), version, ready, u)?);
            }
            let bits = match mode {
                BlockMode::Native => u.store.blocks.geometry().cell.bits_per_cell(),
                BlockMode::Slc => 1,
            };
            let n = unit.len() as u32;
            if n > 1 && n == bits {
                debug_assert_eq!(
                    u.store.blocks.geometry().page_in_block(first) % n,
                    0,
                    "a one-shot unit starts on a wordline"
                );
                done = done.max(u.device.program_wordline(first, n, ready, source));
            } else {
                for k in 0..n {
                    done = done.max(u.device.program(Ppn(first.0 + k), mode, ready, source));
                }
            }
            u.store.note_programmed(stream, block, u.device);
            let r = &mut u.store.region_stats[region.0 as usize];
            r.host_pages += n as u64;
            r.host_write_ns += u.device.counters().by_source.get(source).busy_ns - busy_before;
            u.regions.placed(region, &unit);
            Ok(done)
        })();
        self.unit = unit;
        self.versions = versions;
        result
    }
}

/// Map `lpn` to its new page `ppn` (not yet programmed): the mapping update (which may need
/// translation reads and writes, not before `ready`), the old copy's invalidation, the owner
/// entry and, in verify mode, the page's version (`version` kept by the buffer, or a new one
/// for a direct host write). Returns when the mapping update is done.
#[inline]
fn commit_page(lpn: Lpn, ppn: Ppn, version: Option<u32>, ready: SimTime, u: &mut Units) -> Result<SimTime> {
    u.store.commit_host_page(lpn, ppn, version, u.device, ready)
}

/// Warm-up write: no timing, no scheduler, no buffer; GC reclaims inline when free blocks run
/// low. The same steps as `program_unit` for a one-page host unit, without its unit buffers
/// and one-shot branch: the warm-up fill of a large device runs this for every logical page.
pub(in crate::ftl) fn warm_write(lpn: Lpn, u: &mut Units) -> Result<()> {
    reclaim_for_warm_write(u)?;
    let stream = u.store.placer.host_stream(NATIVE, lpn);
    let (ppn, _, _, stream) = allocate_unit(std::slice::from_ref(&lpn), stream, NATIVE, (0, 0), u)?;
    commit_page(lpn, ppn, None, 0, u)?;
    let block = u.store.blocks.geometry().block_of(ppn);
    u.device.program(ppn, u.store.blocks.mode(block), 0, Source::Host);
    u.store.note_programmed(stream, block, u.device);
    Ok(())
}
