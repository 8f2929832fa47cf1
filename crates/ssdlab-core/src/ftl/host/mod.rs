//! Layer: ftl. The host path: serves the host's reads, writes and trims. It owns the write
//! buffer and its settings, the record of trimmed pages and its scratch buffers; it borrows the
//! other units (`Units`: the store, the reclaimer, the region manager and the device) for each
//! request.
//!
//! Files: `mod.rs` (reads, trims, data that predates the run), `write.rs` (host writes, the
//! buffer, program units), `allocate.rs` (pages for a unit: the placement's plane, GC before
//! it when a plane or the device runs short).

mod allocate;
mod write;

pub(super) use write::warm_write;

use crate::config::UnwrittenReads;
use crate::device::{Device, Source};
use crate::error::Result;
use crate::ftl::cache::WriteBuffer;
use crate::ftl::mapping::Translation;
use crate::ftl::reclaim::Reclaimer;
use crate::ftl::region::NATIVE;
use crate::ftl::regions::RegionManager;
use crate::ftl::request::PageRequest;
use crate::ftl::store::Store;
use crate::nand::cell::page_type;
use crate::nand::BlockMode;
use crate::units::{Lpn, Nanos, Ppn, SimTime};

/// The units a host request drives besides the host path, borrowed for the request.
pub(super) struct Units<'a> {
    pub(super) store: &'a mut Store,
    pub(super) reclaimer: &'a mut Reclaimer,
    pub(super) regions: &'a mut RegionManager,
    pub(super) device: &'a mut Device,
}

/// How the write buffer serves the host (`[cache]`): the buffer itself is `HostPath::buffer`.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct BufferSettings {
    /// Time for one page to cross the DRAM bus.
    pub(super) dram_page_ns: Nanos,
    /// Pages read from flash are kept in the buffer (`cache.insert_reads`).
    pub(super) insert_reads: bool,
    /// Pages reads put in the buffer are dirty (`cache.write_back_reads`).
    pub(super) write_back_reads: bool,
    /// Program the buffer's dirty pages in idle time (`cache.flush_on_idle`).
    pub(super) flush_on_idle: bool,
    /// `cache.flush_interval_ns`: the timed write-back's period.
    pub(super) flush_interval_ns: Option<u64>,
}

#[derive(Clone)]
pub(super) struct HostPath {
    pub(super) buffer: Option<WriteBuffer>,
    pub(super) settings: BufferSettings,
    /// When the armed write-back timer fires.
    pub(super) flush_timer: Option<SimTime>,
    unwritten_reads: UnwrittenReads,
    /// One bit per LPN: trimmed at least once (a read of it is not of pre-existing data).
    trimmed: Vec<u64>,
    // Scratch buffers reused across requests.
    translations: Vec<Translation>,
    /// A program unit's LPNs (and, for a read, the buffer's misses).
    unit: Vec<Lpn>,
    /// Verify mode: the versions the buffer kept for `unit`'s pages.
    versions: Vec<u32>,
}

impl HostPath {
    pub(super) fn new(
        buffer: Option<WriteBuffer>,
        settings: BufferSettings,
        unwritten_reads: UnwrittenReads,
        logical_pages: u32,
    ) -> HostPath {
        HostPath {
            buffer,
            settings,
            flush_timer: None,
            unwritten_reads,
            trimmed: vec![0; (logical_pages as usize).div_ceil(64)],
            translations: Vec::new(),
            unit: Vec::new(),
            versions: Vec::new(),
        }
    }

    /// Whether the buffer flushes in idle time and has something to flush.
    pub(super) fn has_idle_flush(&self) -> bool {
        self.settings.flush_on_idle && self.buffer.as_ref().is_some_and(|b| b.dirty() > 0)
    }

    pub(in crate::ftl) fn read_request(
        &mut self,
        request: &PageRequest,
        ready: SimTime,
        now: SimTime,
        u: &mut Units,
    ) -> Result<SimTime> {
        let lpns = request.lpns;
        if self.buffer.is_none() {
            return self.read_from_flash(lpns, ready, now, u);
        }
        let mut done = ready;
        let mut misses = std::mem::take(&mut self.unit);
        misses.clear();
        if let Some(buffer) = &mut self.buffer {
            let mut hits = 0u64;
            for &lpn in lpns {
                buffer.stats.read_lookups += 1;
                let hit = buffer.touch(lpn);
                if hit {
                    // Misses tell the policy after their flash read (`after_flash_read`).
                    buffer.policy.on_read(lpn, true);
                    buffer.stats.read_hits += 1;
                    hits += 1;
                    u.store.stats.host_read_pages += 1;
                    if let Some(v) = &mut u.store.verify {
                        v.check_buffer_read(lpn, buffer.version(lpn).unwrap_or(0))?;
                    }
                } else {
                    misses.push(lpn);
                }
            }
            done = done.max(ready + hits * self.settings.dram_page_ns);
        } else {
            misses.extend_from_slice(lpns);
        }
        let result = self.read_from_flash(&misses, ready, now, u).map(|t| t.max(done));
        self.unit = misses;
        if let (Ok(end), Some(b)) = (&result, &mut self.buffer) {
            b.policy.on_read_done(lpns, request.size_bytes, end - now);
        }
        result
    }

    fn read_from_flash(&mut self, lpns: &[Lpn], ready: SimTime, now: SimTime, u: &mut Units) -> Result<SimTime> {
        let mut done = ready;
        if lpns.is_empty() {
            return Ok(done);
        }
        let mut translations = std::mem::take(&mut self.translations);
        translations.clear();
        u.store.lookup(lpns, &mut translations, u.device, ready.max(now))?;
        for (&lpn, t) in lpns.iter().zip(&translations) {
            u.store.stats.host_read_pages += 1;
            let mut ppn = t.ppn;
            if ppn.is_none() && !self.was_trimmed(lpn) && self.never_written(u.store, lpn) {
                u.store.stats.unwritten_read_pages += 1;
                if self.unwritten_reads == UnwrittenReads::MapOnRead {
                    ppn = Some(self.premap(lpn, now, u)?);
                }
            }
            let store = &mut *u.store;
            if let Some(v) = &mut store.verify {
                v.check_read(lpn, ppn, &store.blocks)?;
            }
            match ppn {
                Some(p) => {
                    let g = store.blocks.geometry();
                    let mode = store.blocks.mode(g.block_of(p));
                    let page_type = page_type(g.cell, mode, g.page_in_block(p));
                    if mode == BlockMode::Native {
                        store.stats.host_reads_by_page_type[page_type as usize] += 1;
                    }
                    let read_end = u.device.read(p, mode, t.start, Source::Host);
                    done = done.max(read_end);
                    if self.buffer.is_some() {
                        let request_pages = lpns.len() as u32;
                        done = done.max(self.after_flash_read(lpn, page_type, request_pages, read_end, now, u)?);
                    }
                }
                None => {
                    store.stats.unmapped_read_pages += 1;
                    done = done.max(t.start);
                    if let Some(b) = &mut self.buffer {
                        b.policy.on_read(lpn, false);
                    }
                }
            }
        }
        self.translations = translations;
        Ok(done)
    }

    fn was_trimmed(&self, lpn: Lpn) -> bool {
        self.trimmed[lpn.index() / 64] >> (lpn.index() % 64) & 1 == 1
    }

    /// Whether `lpn` holds no data and never did in this run (pre-existing data, if any).
    fn never_written(&self, store: &Store, lpn: Lpn) -> bool {
        store.mapping.peek(lpn).is_none() && self.buffer.as_ref().is_none_or(|b| !b.contains(lpn))
    }

    /// Place data that predates the run for `lpn`: a page on the native host stream, untimed
    /// and not counted as a program.
    fn premap(&mut self, lpn: Lpn, now: SimTime, u: &mut Units) -> Result<Ppn> {
        let stream = u.store.placer.host_stream(NATIVE, lpn);
        self.unit.clear();
        let (ppn, ..) = allocate::allocate_unit(&[lpn], stream, NATIVE, (now, now), u)?;
        u.store.premap(lpn, ppn);
        Ok(ppn)
    }

    pub(in crate::ftl) fn trim_request(
        &mut self,
        request: &PageRequest,
        ready: SimTime,
        u: &mut Units,
    ) -> Result<SimTime> {
        let last = request.lpns.len().saturating_sub(1);
        for (i, &lpn) in request.lpns.iter().enumerate() {
            u.store.stats.host_trim_pages += 1;
            // A trim that covers only part of a page keeps the page's data: the rest of the page
            // still holds data and the mapping can only forget whole pages.
            let partial = (i == 0 && request.partial_head) || (i == last && request.partial_tail);
            if partial {
                u.store.stats.partial_trim_pages_kept += 1;
                continue;
            }
            if let Some(b) = &mut self.buffer {
                b.remove(lpn);
            }
            u.store.trim(lpn, u.device, ready)?;
            self.trimmed[lpn.index() / 64] |= 1 << (lpn.index() % 64);
        }
        Ok(ready)
    }
}
