//! Layer: ftl. The orchestrator: serves host page requests through the mapping and the block
//! manager, runs GC as the scheduler asks, and counts what it did. It issues every flash
//! operation to the device (timing) and never names a policy: mapping, victim choice and GC
//! scheduling are trait objects built from the config in `build`.

pub mod blocks;
pub mod gc;
pub mod mapping;
pub mod verify;

use rand_pcg::Pcg64Mcg;
use serde::Serialize;

use crate::config::{AllocationKind, ValidatedConfig};
use crate::device::Device;
use crate::error::{Error, Result};
use crate::units::{BlockId, Lpn, PlaneId, Ppn, SimTime};
use crate::workload::IoOp;
use blocks::{BlockManager, Stream};
use gc::{GcAction, GcObservation, GcScheduler, GcStats, VictimPolicy, VictimView};
use mapping::{MapCtx, Mapping};
use verify::Verifier;

/// Host-side FTL figures (pages, not requests).
#[derive(Debug, Clone, Default, Serialize)]
pub struct FtlStats {
    pub host_read_pages: u64,
    pub host_write_pages: u64,
    /// Pages a trim touched, whole or in part.
    pub host_trim_pages: u64,
    /// Pages a trim covered only in part, and so left alone: any data they hold stays mapped
    /// (the untrimmed bytes still hold data, and the mapping forgets whole pages only).
    /// Counted in `host_trim_pages` too.
    pub partial_trim_pages_kept: u64,
    /// Reads of LPNs that hold no data (served without a flash read).
    pub unmapped_read_pages: u64,
    /// Partial-page writes of mapped pages: the old page is read first (read-modify-write).
    pub rmw_reads: u64,
    pub host_programs: u64,
    pub gc_programs: u64,
    pub gc_reads: u64,
}

/// One host request as the FTL sees it: pages already folded into the logical space.
#[derive(Debug, Clone, Copy)]
pub struct PageRequest<'a> {
    pub seq: u64,
    pub op: IoOp,
    pub lpns: &'a [Lpn],
    /// The first / last page is only partly covered: a write then reads the old page first
    /// (read-modify-write, if it holds data); a trim keeps the page.
    pub partial_head: bool,
    pub partial_tail: bool,
}

/// Which host request a GC decision concerns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RequestInfo {
    pub seq: u64,
    pub op: IoOp,
    pub pages: u32,
}

pub struct Ftl {
    blocks: BlockManager,
    mapping: Box<dyn Mapping>,
    victim: Box<dyn VictimPolicy>,
    scheduler: Box<dyn GcScheduler>,
    allocation: AllocationKind,
    plane_order: Vec<PlaneId>,
    cursor: usize,
    trigger_free_blocks: u32,
    verify: Option<Verifier>,
    stats: FtlStats,
    gc_stats: GcStats,
    /// Victim being emptied by partial steps, and the next page to look at.
    partial: Option<(BlockId, u32)>,
    last_arrival: Option<SimTime>,
}

/// Free blocks per plane that host writes leave for GC's relocations.
const GC_RESERVE_BLOCKS: u32 = 1;

impl Ftl {
    /// `policy_rng` is the run's policy random stream, handed to the GC scheduler.
    pub fn build(cfg: &ValidatedConfig, policy_rng: Pcg64Mcg) -> Result<Ftl> {
        let geometry = cfg.geometry();
        let logical = cfg.used_logical_pages();
        let physical = geometry.pages();
        Ok(Ftl {
            plane_order: geometry.channel_first_order(),
            blocks: BlockManager::new(geometry, GC_RESERVE_BLOCKS),
            mapping: Box::new(mapping::page::PageMapping::new(logical)),
            victim: gc::victim::build(cfg.gc.victim),
            scheduler: gc::scheduler::build(cfg, policy_rng)?,
            allocation: cfg.ftl.allocation,
            cursor: 0,
            trigger_free_blocks: cfg.gc.trigger_free_blocks,
            verify: cfg.verify.then(|| Verifier::new(logical, physical)),
            stats: FtlStats::default(),
            gc_stats: GcStats::default(),
            partial: None,
            last_arrival: None,
        })
    }

    pub fn blocks(&self) -> &BlockManager {
        &self.blocks
    }
    pub fn mapping(&self) -> &dyn Mapping {
        self.mapping.as_ref()
    }
    pub fn stats(&self) -> &FtlStats {
        &self.stats
    }
    pub fn gc_stats(&self) -> &GcStats {
        &self.gc_stats
    }
    pub fn scheduler(&self) -> &dyn GcScheduler {
        self.scheduler.as_ref()
    }
    /// The victim policy's id (as `gc.victim` takes it).
    pub fn victim_id(&self) -> &'static str {
        self.victim.id()
    }
    /// The allocation policy's id (as `ftl.allocation` takes it).
    pub fn allocation_id(&self) -> &'static str {
        match self.allocation {
            AllocationKind::Dynamic => "dynamic",
            AllocationKind::Static => "static",
        }
    }
    pub fn verify_reads_checked(&self) -> Option<u64> {
        self.verify.as_ref().map(|v| v.reads_checked)
    }
    /// Verify mode's shadow of what the host wrote (None when verify is off), so tests can hold
    /// it against a model of their own.
    pub fn verifier(&self) -> Option<&Verifier> {
        self.verify.as_ref()
    }

    /// Forget the figures gathered so far (end of warm-up); the drive's contents stay.
    pub fn reset_stats(&mut self) {
        self.stats = FtlStats::default();
        self.gc_stats = GcStats::default();
        self.last_arrival = None;
    }

    fn observation(&self, req: RequestInfo, now: SimTime, interval_ns: u64) -> GcObservation {
        let victim_valid_left = self.partial.map(|(b, _)| self.blocks.valid(b)).unwrap_or(0);
        GcObservation {
            now,
            request_seq: req.seq,
            op: req.op,
            request_pages: req.pages,
            free_blocks: self.blocks.free_blocks(),
            host_free_blocks: self.blocks.host_free_blocks(),
            total_blocks: self.blocks.blocks(),
            interval_ns,
            victim_valid_left,
            pages_per_block: self.blocks.geometry().pages_per_block,
            gc_copies_total: self.gc_stats.pages_copied,
            gc_erases_total: self.gc_stats.victims_reclaimed,
        }
    }

    /// Serve one host request at `now`. Returns its completion time.
    pub fn serve(&mut self, request: &PageRequest, now: SimTime, device: &mut Device) -> Result<SimTime> {
        let PageRequest { seq, op, lpns, partial_head, partial_tail } = *request;
        let interval = self.last_arrival.map(|t| now - t).unwrap_or(u64::MAX);
        self.last_arrival = Some(now);
        let mut ready = now;
        let req = RequestInfo { seq, op, pages: lpns.len() as u32 };
        let action = self.scheduler.before_serve(&self.observation(req, now, interval));
        match action {
            GcAction::Nothing => {}
            GcAction::Reclaim { target_free_blocks } => {
                self.gc_stats.foreground_invocations += 1;
                let end = self.reclaim_until(target_free_blocks, now, device)?;
                self.gc_stats.foreground_wait_ns += end - now;
                ready = end;
            }
            GcAction::Partial { copies, min_invalid_fraction } => {
                ready = ready.max(self.partial_step(copies, min_invalid_fraction, now, device)?);
            }
        }
        let mut done = ready;
        match op {
            IoOp::Read => {
                for &lpn in lpns {
                    done = done.max(self.read_page(lpn, ready, now, device)?);
                }
            }
            IoOp::Write => {
                let last = lpns.len().saturating_sub(1);
                for (i, &lpn) in lpns.iter().enumerate() {
                    let partial = (i == 0 && partial_head) || (i == last && partial_tail);
                    done = done.max(self.write_page(lpn, partial, ready, now, device)?);
                }
            }
            IoOp::Trim => {
                let last = lpns.len().saturating_sub(1);
                for (i, &lpn) in lpns.iter().enumerate() {
                    let partial = (i == 0 && partial_head) || (i == last && partial_tail);
                    self.trim_page(lpn, partial);
                }
            }
        }
        Ok(done)
    }

    /// After request `req` completed at `now` with `response_ns`: background GC if asked.
    pub fn after_served(
        &mut self,
        req: RequestInfo,
        response_ns: u64,
        now: SimTime,
        device: &mut Device,
    ) -> Result<()> {
        let obs = self.observation(req, now, 0);
        match self.scheduler.after_serve(&obs, response_ns) {
            GcAction::Nothing => {}
            GcAction::Reclaim { target_free_blocks } => {
                self.reclaim_until(target_free_blocks, now, device)?;
            }
            GcAction::Partial { copies, min_invalid_fraction } => {
                self.partial_step(copies, min_invalid_fraction, now, device)?;
            }
        }
        Ok(())
    }

    fn read_page(&mut self, lpn: Lpn, ready: SimTime, now: SimTime, device: &mut Device) -> Result<SimTime> {
        self.stats.host_read_pages += 1;
        let (ppn, start) = self.mapping.lookup(lpn, &mut MapCtx { device, now: ready.max(now) });
        if let Some(v) = &mut self.verify {
            v.check_read(lpn, ppn, &self.blocks)?;
        }
        match ppn {
            Some(p) => {
                let mode = self.blocks.mode(self.blocks.geometry().block_of(p));
                Ok(device.read(p, mode, start))
            }
            None => {
                self.stats.unmapped_read_pages += 1;
                Ok(start)
            }
        }
    }

    fn write_page(
        &mut self,
        lpn: Lpn,
        partial: bool,
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
                ready = device.read(old, mode, ready);
            }
        }
        let ppn = self.allocate_host(ready, now, device)?;
        let (old, start) = self.mapping.update(lpn, ppn, &mut MapCtx { device, now: ready });
        self.commit_write(lpn, ppn, old);
        self.stats.host_programs += 1;
        let mode = self.blocks.mode(self.blocks.geometry().block_of(ppn));
        Ok(device.program(ppn, mode, start))
    }

    fn commit_write(&mut self, lpn: Lpn, ppn: Ppn, old: Option<Ppn>) {
        if let Some(o) = old {
            self.blocks.invalidate(o);
        }
        self.blocks.set_owner(ppn, lpn);
        if let Some(v) = &mut self.verify {
            v.on_write(lpn, ppn);
        }
    }

    /// Forget `lpn`'s data, unless the trim covers the page only in part (`partial`): the rest
    /// of the page still holds data and the mapping can only forget whole pages, so the page
    /// stays mapped, as an FTL must keep it (discarding it would lose the untrimmed bytes).
    fn trim_page(&mut self, lpn: Lpn, partial: bool) {
        self.stats.host_trim_pages += 1;
        if partial {
            self.stats.partial_trim_pages_kept += 1;
            return;
        }
        if let Some(old) = self.mapping.unmap(lpn) {
            self.blocks.invalidate(old);
        }
        if let Some(v) = &mut self.verify {
            v.on_trim(lpn);
        }
    }

    /// Pick the plane for a host page (dynamic: least busy; static: fixed rotation) and take
    /// a page there. If no plane has room, GC must reclaim first (an emergency: the scheduler
    /// did not keep up), one victim at a time until a plane has room: a reclaimed block may
    /// land on a plane that holds only its GC reserve. Once more blocks are free than there are
    /// planes, some plane has one beyond its reserve, so this ends after at most that many.
    fn allocate_host(&mut self, ready: SimTime, now: SimTime, device: &mut Device) -> Result<Ppn> {
        let planes = self.plane_order.len() as u32;
        let mut reclaimed = false;
        loop {
            if let Some(plane) = self.pick_plane(device) {
                let ppn = self.blocks.allocate(Stream::Host, plane, now);
                return ppn.ok_or_else(|| Error::invariant("plane with room gave no page"));
            }
            if reclaimed && self.blocks.free_blocks() > planes * GC_RESERVE_BLOCKS {
                return Err(Error::DeviceFull { reason: "no plane has a free page after GC reclaimed blocks".into() });
            }
            if !reclaimed {
                self.gc_stats.emergency_reclaims += 1;
                reclaimed = true;
            }
            let target = self.blocks.free_blocks() + 1;
            self.reclaim_until(target, ready, device)?;
        }
    }

    fn pick_plane(&mut self, device: &Device) -> Option<PlaneId> {
        let n = self.plane_order.len();
        let mut best: Option<(SimTime, usize)> = None;
        for k in 0..n {
            let idx = (self.cursor + k) % n;
            let plane = self.plane_order[idx];
            if !self.blocks.has_room(Stream::Host, plane, GC_RESERVE_BLOCKS) {
                continue;
            }
            match self.allocation {
                AllocationKind::Static => {
                    best = Some((0, idx));
                    break;
                }
                AllocationKind::Dynamic => {
                    let free_at = device.plane_free_at(plane);
                    if best.is_none_or(|(t, _)| free_at < t) {
                        best = Some((free_at, idx));
                    }
                }
            }
        }
        let (_, idx) = best?;
        self.cursor = (idx + 1) % n;
        Some(self.plane_order[idx])
    }

    /// Reclaim whole victims until `target` blocks are free. Returns when the last GC
    /// operation ends.
    fn reclaim_until(&mut self, target: u32, now: SimTime, device: &mut Device) -> Result<SimTime> {
        let mut end = now;
        while self.blocks.free_blocks() < target {
            let victim = match self.partial.take() {
                Some((b, _)) => b,
                None => self
                    .choose_victim(0.0, now)?
                    .ok_or_else(|| Error::DeviceFull { reason: "GC found no sealed block to reclaim".into() })?,
            };
            end = end.max(self.empty_victim(victim, u32::MAX, now, device)?.1);
        }
        Ok(end)
    }

    fn choose_victim(&mut self, min_invalid_fraction: f64, now: SimTime) -> Result<Option<BlockId>> {
        let mut view = VictimView { blocks: &mut self.blocks, now };
        let Some(b) = self.victim.select(&mut view, min_invalid_fraction) else {
            return Ok(None);
        };
        if self.blocks.state(b) != blocks::BlockState::Sealed {
            return Err(Error::invariant(format!("victim policy '{}' chose unsealed block {}", self.victim.id(), b.0)));
        }
        // A full victim is legitimate for some policies (FIFO rotates cold data), but if even
        // the emptiest sealed block is full, reclaiming cannot gain space: the device is full.
        if self.blocks.valid(b) >= self.blocks.capacity(b) {
            if let Some(least) = self.blocks.min_valid_sealed() {
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

    /// One partial GC step: up to `copies` page copies from the current victim, or its erase
    /// once it holds no valid page. Returns when the step's operations end.
    fn partial_step(&mut self, copies: u32, min_invalid: f64, now: SimTime, device: &mut Device) -> Result<SimTime> {
        if copies == 0 {
            return Ok(now);
        }
        let (victim, from) = match self.partial {
            Some(p) => p,
            None => match self.choose_victim(min_invalid, now)? {
                Some(b) => (b, 0),
                None => return Ok(now),
            },
        };
        self.gc_stats.partial_steps += 1;
        let (next, end) = self.empty_victim_from(victim, from, copies, now, device)?;
        self.partial = next.map(|page| (victim, page));
        Ok(end)
    }

    fn empty_victim(
        &mut self,
        b: BlockId,
        copies: u32,
        now: SimTime,
        device: &mut Device,
    ) -> Result<(Option<u32>, SimTime)> {
        self.empty_victim_from(b, 0, copies, now, device)
    }

    /// Copy up to `copies` valid pages of victim `b` from page `from`; if it then holds no
    /// valid page (and no copy was asked of this step, or `copies` is unlimited), erase it.
    /// Returns the page to resume from (None once erased) and the end time.
    fn empty_victim_from(
        &mut self,
        b: BlockId,
        mut from: u32,
        copies: u32,
        now: SimTime,
        device: &mut Device,
    ) -> Result<(Option<u32>, SimTime)> {
        let g = self.blocks.geometry().clone();
        let victim_plane = g.plane_of_block(b);
        let victim_mode = self.blocks.mode(b);
        let mut end = now;
        // Bring the mapping entries of the pages this step will move into cache first: the
        // relocations below store to them at random, and stores that miss stall the store
        // buffer (and every later load behind it).
        let mut ahead = 0u32;
        let mut page = from;
        while ahead < copies {
            let Some((ppn, lpn)) = self.blocks.next_valid_page(b, page) else { break };
            self.mapping.touch(lpn);
            page = g.page_in_block(ppn) + 1;
            ahead += 1;
        }
        let mut done = 0u32;
        while done < copies {
            let Some((old, lpn)) = self.blocks.next_valid_page(b, from) else { break };
            let new = match self.blocks.allocate(Stream::Gc, victim_plane, now) {
                Some(p) => p,
                None => self.allocate_gc_elsewhere(now)?,
            };
            let read_done = device.read(old, victim_mode, now);
            let mode = self.blocks.mode(g.block_of(new));
            end = end.max(device.program(new, mode, read_done));
            self.mapping.relocate(lpn, old, new);
            self.blocks.invalidate(old);
            self.blocks.set_owner(new, lpn);
            if let Some(v) = &mut self.verify {
                v.on_copy(old, new);
            }
            self.stats.gc_reads += 1;
            self.stats.gc_programs += 1;
            self.gc_stats.pages_copied += 1;
            from = g.page_in_block(old) + 1;
            done += 1;
        }
        let copies_left = copies == u32::MAX || done == 0;
        if self.blocks.valid(b) == 0 && copies_left {
            end = end.max(device.erase(b, victim_mode, end));
            self.blocks.erase(b);
            self.gc_stats.victims_reclaimed += 1;
            return Ok((None, end));
        }
        Ok((Some(from), end))
    }

    fn allocate_gc_elsewhere(&mut self, now: SimTime) -> Result<Ppn> {
        for k in 0..self.plane_order.len() {
            let plane = self.plane_order[k];
            if self.blocks.has_room(Stream::Gc, plane, 0) {
                if let Some(p) = self.blocks.allocate(Stream::Gc, plane, now) {
                    return Ok(p);
                }
            }
        }
        Err(Error::DeviceFull { reason: "GC found no free page for relocation".into() })
    }

    /// Warm-up write: no timing, no scheduler; GC reclaims inline when free blocks run low.
    pub fn warm_write(&mut self, lpn: Lpn, device: &mut Device) -> Result<()> {
        if self.blocks.free_blocks() < self.trigger_free_blocks {
            self.reclaim_until(self.trigger_free_blocks + 1, 0, device)?;
        }
        let ppn = self.allocate_host(0, 0, device)?;
        let (old, _) = self.mapping.update(lpn, ppn, &mut MapCtx { device, now: 0 });
        self.commit_write(lpn, ppn, old);
        let mode = self.blocks.mode(self.blocks.geometry().block_of(ppn));
        device.program(ppn, mode, 0);
        Ok(())
    }

    /// Verify mode's end-of-run scan (no-op when verify is off).
    pub fn final_verify(&mut self) -> Result<()> {
        match &mut self.verify {
            Some(v) => v.final_scan(self.mapping.as_ref(), &self.blocks),
            None => Ok(()),
        }
    }

    /// Hint that `lpn` is about to be accessed (see `Mapping::touch`).
    pub fn touch(&self, lpn: Lpn) {
        self.mapping.touch(lpn);
    }

    /// Hint that the page now holding `lpn` is about to be read or invalidated.
    pub fn touch_owner_of(&self, lpn: Lpn) {
        if let Some(ppn) = self.mapping.peek(lpn) {
            self.blocks.touch_owner(ppn);
        }
    }

    #[doc(hidden)]
    pub fn corrupt_mapping(&mut self, lpn: Lpn, ppn: Ppn) {
        self.mapping.corrupt(lpn, ppn);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::VictimKind;
    use crate::ftl::blocks::test_support::geometry;
    use crate::ftl::gc::victim::GreedyVictim;
    use crate::ftl::mapping::page::PageMapping;
    use crate::nand::{ArrayUnit, Geometry, Timing, TimingConfig};

    /// Never asks for GC: only the FTL's own emergency reclaim frees space.
    struct NoGc;

    impl GcScheduler for NoGc {
        fn id(&self) -> &'static str {
            "none"
        }
        fn before_serve(&mut self, _obs: &GcObservation) -> GcAction {
            GcAction::Nothing
        }
        fn after_serve(&mut self, _obs: &GcObservation, _response_ns: u64) -> GcAction {
            GcAction::Nothing
        }
    }

    /// An FTL over `g` with `logical_pages` of logical space, in verify mode, built directly:
    /// config validation would refuse a device whose logical space leaves GC too little room,
    /// which is what some of these tests need.
    fn ftl(
        g: Geometry,
        logical_pages: u32,
        victim: Box<dyn VictimPolicy>,
        allocation: AllocationKind,
    ) -> (Ftl, Device) {
        let timing = TimingConfig {
            read_ns: vec![50_000],
            program_ns: vec![500_000],
            program_wordline_ns: None,
            erase_ns: 3_000_000,
            slc_read_ns: None,
            slc_program_ns: None,
            slc_erase_ns: None,
            channel_bytes_per_s: 400_000_000,
            command_ns: 0,
            array_unit: ArrayUnit::Plane,
        };
        let device = Device::new(g.clone(), Timing::resolve(&timing, g.cell, g.page_bytes));
        let ftl = Ftl {
            plane_order: g.channel_first_order(),
            blocks: BlockManager::new(g.clone(), GC_RESERVE_BLOCKS),
            mapping: Box::new(PageMapping::new(logical_pages)),
            victim,
            scheduler: Box::new(NoGc),
            allocation,
            cursor: 0,
            trigger_free_blocks: 1,
            verify: Some(Verifier::new(logical_pages, g.pages())),
            stats: FtlStats::default(),
            gc_stats: GcStats::default(),
            partial: None,
            last_arrival: None,
        };
        (ftl, device)
    }

    /// Serve a one-page request (a whole page) at 1 ms per request.
    fn serve(ftl: &mut Ftl, device: &mut Device, seq: u64, op: IoOp, lpn: u32) -> Result<SimTime> {
        let request = PageRequest { seq, op, lpns: &[Lpn(lpn)], partial_head: false, partial_tail: false };
        ftl.serve(&request, seq * 1_000_000, device)
    }

    const VICTIMS: [VictimKind; 3] = [VictimKind::Greedy, VictimKind::Fifo, VictimKind::CostBenefit];

    #[test]
    fn emergency_reclaim_takes_victims_until_the_host_has_room() {
        // One plane of 8 blocks x 4 pages; 16 logical pages; block 7 is the plane's GC reserve.
        let (mut ftl, mut dev) = ftl(geometry(1, 8, 4), 16, Box::new(GreedyVictim), AllocationKind::Dynamic);
        // Fill (blocks 0-3), then overwrite so that blocks 0-5 hold 2 valid pages each and
        // block 6 holds 4: the host has used all 7 blocks it may use.
        let writes = (0..16).chain([0, 1, 4, 5, 8, 9, 12, 13, 0, 4, 8, 12]);
        for (seq, lpn) in writes.enumerate() {
            serve(&mut ftl, &mut dev, seq as u64 + 1, IoOp::Write, lpn).unwrap();
        }
        let valid: Vec<u32> = (0..8).map(|b| ftl.blocks.valid(BlockId(b))).collect();
        assert_eq!(valid, [2, 2, 2, 2, 2, 2, 4, 0]);
        assert_eq!((ftl.blocks.free_blocks(), ftl.blocks.host_free_blocks()), (1, 0));
        assert_eq!(ftl.gc_stats.emergency_reclaims, 0);

        // The next write finds no room. Greedy's first victim is block 5 (the last block to
        // reach 2 valid pages): GC opens the reserve (block 7) for its 2 pages and erases it,
        // which only refills the reserve; the second victim, block 4, fills block 7 and its
        // erase gives the host a block. The write lands in block 5, erased first.
        serve(&mut ftl, &mut dev, 29, IoOp::Write, 2).unwrap();
        let g = ftl.blocks.geometry().clone();
        let gc = &ftl.gc_stats;
        assert_eq!((gc.emergency_reclaims, gc.victims_reclaimed, gc.pages_copied), (1, 2, 4));
        let moved: Vec<Option<u32>> = (0..4).map(|p| ftl.blocks.owner(g.ppn(BlockId(7), p)).map(|l| l.0)).collect();
        assert_eq!(moved, [Some(9), Some(13), Some(1), Some(5)]);
        assert_eq!(ftl.mapping.peek(Lpn(2)), Some(g.ppn(BlockId(5), 0)));
        assert_eq!(ftl.blocks.state(BlockId(4)), blocks::BlockState::Free);
        assert_eq!((ftl.blocks.erase_count(BlockId(4)), ftl.blocks.erase_count(BlockId(5))), (1, 1));
        assert_eq!((ftl.stats.gc_reads, ftl.stats.gc_programs, dev.counters().erases), (4, 4, 2));
        ftl.final_verify().unwrap();
    }

    /// Run `f` on its own thread and give it 10 s (it needs milliseconds): a reclaim loop that
    /// never ends fails the test instead of hanging the suite.
    fn without_hanging<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || tx.send(f()));
        match rx.recv_timeout(std::time::Duration::from_secs(10)) {
            Ok(v) => v,
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => panic!("still running after 10 s: a hang"),
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => panic!("panicked (see above)"),
        }
    }

    #[test]
    fn a_device_without_spare_ends_full_not_hung() {
        // 2 planes x 4 blocks x 4 pages = 32 pages, all of them logical: the host may use 3
        // blocks per plane (24 pages); the 25th distinct page cannot be written. Reclaiming a
        // full block gains nothing, so without the DeviceFull check GC would loop forever.
        for kind in VICTIMS {
            for allocation in [AllocationKind::Dynamic, AllocationKind::Static] {
                without_hanging(move || {
                    let (mut ftl, mut dev) = ftl(geometry(2, 4, 4), 32, gc::victim::build(kind), allocation);
                    let id = ftl.victim.id();
                    for lpn in 0..24 {
                        serve(&mut ftl, &mut dev, lpn as u64 + 1, IoOp::Write, lpn).unwrap();
                    }
                    let err = serve(&mut ftl, &mut dev, 25, IoOp::Write, 24).unwrap_err();
                    assert!(matches!(err, Error::DeviceFull { .. }), "{id}: {err}");
                    assert!(err.to_string().contains("every sealed block holds only valid pages"), "{id}: {err}");
                    assert_eq!(ftl.gc_stats.emergency_reclaims, 1, "{id}");
                    // Nothing was lost on the way: every written page still reads back.
                    ftl.final_verify().unwrap();
                    for lpn in 0..24 {
                        serve(&mut ftl, &mut dev, 100 + lpn as u64, IoOp::Read, lpn).unwrap();
                    }
                    assert_eq!((ftl.verify_reads_checked(), ftl.stats.unmapped_read_pages), (Some(24), 0), "{id}");
                });
            }
        }
    }

    #[test]
    fn warm_up_fill_of_a_device_without_spare_ends_full() {
        // The warm-up's fill is where an oversized logical space would overflow first.
        let err = without_hanging(|| {
            let (mut ftl, mut dev) = ftl(geometry(2, 4, 4), 32, Box::new(GreedyVictim), AllocationKind::Dynamic);
            for lpn in 0..24 {
                ftl.warm_write(Lpn(lpn), &mut dev).unwrap();
            }
            let err = ftl.warm_write(Lpn(24), &mut dev).unwrap_err();
            ftl.final_verify().unwrap();
            err
        });
        assert!(matches!(err, Error::DeviceFull { .. }), "{err}");
    }

    #[test]
    fn random_overwrites_at_every_fill_level_keep_up_or_end_full_with_data_intact() {
        use rand::{Rng, SeedableRng};
        // 2 planes x 4 blocks x 4 pages, logical space from 1 page to all the host may write
        // (24 pages): one fill, then random overwrites, 3000 writes in all. Whatever the
        // outcome, nothing may panic, hang or break an invariant, and every page written must
        // read back. Up to 8 logical pages GC must keep up: that is what config validation's
        // budget of 3 working blocks per plane (GC reserve, host and GC write points) leaves on
        // 4-block planes. (All three policies in fact keep up to 16 pages here.)
        for kind in VICTIMS {
            for logical in 1..=24u32 {
                without_hanging(move || {
                    let (mut ftl, mut dev) =
                        ftl(geometry(2, 4, 4), logical, gc::victim::build(kind), AllocationKind::Dynamic);
                    let id = ftl.victim.id();
                    let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(logical as u64);
                    let mut written = 0u32;
                    for seq in 1..=3000u64 {
                        let lpn = if seq <= logical as u64 { seq as u32 - 1 } else { rng.gen_range(0..logical) };
                        match serve(&mut ftl, &mut dev, seq, IoOp::Write, lpn) {
                            Ok(_) => written = written.max(lpn + 1),
                            Err(Error::DeviceFull { .. }) if logical > 8 => break,
                            Err(e) => panic!("{id}, {logical} logical pages, write {seq}: {e}"),
                        }
                    }
                    ftl.final_verify().unwrap();
                    for lpn in 0..written {
                        serve(&mut ftl, &mut dev, 10_000 + lpn as u64, IoOp::Read, lpn).unwrap();
                    }
                    assert_eq!(ftl.stats.unmapped_read_pages, 0, "{id}, {logical} logical pages");
                });
            }
        }
    }
}
