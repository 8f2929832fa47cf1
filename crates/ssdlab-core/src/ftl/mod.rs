//! Layer: ftl. The orchestrator: serves host page requests through the write buffer, the
//! mapping, placement and the block manager, runs GC and migration as their policies ask, and
//! counts what it did. It issues every flash operation to the device (timing), each tagged with
//! its `Source`, and never names a policy: every policy is built from its registry
//! (`registry.rs`) by the id the config gives.
//!
//! Files: `mod.rs` (building, request dispatch, reads, trims), `check.rs` (`check_config`), `write.rs` (host writes, the
//! buffer, program units, allocation), `reclaim.rs` (GC and migration), `blocks/` (block
//! manager), `verify.rs`; the policy seams in `mapping/`, `placement/`, `cache/`, `region/`,
//! `gc/`.

pub mod blocks;
pub mod cache;
mod check;
pub mod gc;
pub(crate) mod lru;
pub mod mapping;
pub mod placement;
mod reclaim;
pub mod region;
pub mod verify;
mod write;

use rand_pcg::Pcg64Mcg;
use serde::Serialize;

use crate::config::{GcScopeKind, UnwrittenReads, ValidatedConfig};
use crate::device::{Device, Source};
use crate::error::{Error, Result};
use crate::nand::cell::page_type;
use crate::nand::BlockMode;
use crate::units::{transfer_ns, BlockId, Lpn, Nanos, Ppn, SimTime};
use crate::workload::IoOp;
use blocks::{BlockManager, GcScope, Owner, RegionId, RegionSpec, StreamId, StreamSpec};
use cache::WriteBuffer;
use gc::{GcObservation, GcScheduler, GcStats, VictimPolicy};
use mapping::{MapCtx, Mapping, Relocation, Translation, TranslationIo};
use placement::Placement;
use region::{RegionPolicy, NATIVE};
use verify::Verifier;

/// The registries' `Entry` (kept here too: the seams name it `ftl::registry`).
pub use crate::registry;
pub use check::check_config;

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
    /// Units for a region emptied by migration (the SLC cache) that found no room there and
    /// went to the native region instead.
    pub region_overflow_units: u64,
    /// Pages left unwritten so that one-shot wordline units start on a wordline (the rest of
    /// a wordline, or of a block, that an earlier shorter unit began).
    pub skipped_pages: u64,
    /// Reads of LPNs that hold no data (trimmed, or never written with
    /// `ftl.unwritten_reads = "free"`), served without a flash read.
    pub unmapped_read_pages: u64,
    /// Reads of pages the workload never wrote (nor trimmed) before: data that predates the
    /// trace. With `map_on_read` each gets a physical page on its first read (`premapped_pages`).
    pub unwritten_read_pages: u64,
    pub premapped_pages: u64,
    /// Partial-page writes of pages holding data elsewhere: the old page is read first
    /// (read-modify-write). Buffered pages merge in DRAM instead.
    pub rmw_reads: u64,
    /// Host page reads served by the flash, per page type (LSB first), native-mode blocks only
    /// (reads of SLC-mode blocks are not in it): the FSP paper's LSB read ratio.
    pub host_reads_by_page_type: Vec<u64>,
    /// Flash pages programmed with host data, directly or from the write buffer.
    pub host_programs: u64,
    pub gc_programs: u64,
    pub gc_reads: u64,
    pub migration_programs: u64,
    pub migration_reads: u64,
    /// Victims of a region migrated into another and erased.
    pub migrated_victims: u64,
    /// Translation pages read and written by the mapping.
    pub translation: TranslationIo,
}

impl FtlStats {
    /// Zero figures for a device of `geometry`'s cell type.
    pub fn for_geometry(geometry: &crate::nand::Geometry) -> Self {
        FtlStats { host_reads_by_page_type: vec![0; geometry.cell.bits_per_cell() as usize], ..FtlStats::default() }
    }
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
    /// The request's size in bytes (region routing by size).
    pub size_bytes: u64,
}

/// Which host request a GC decision concerns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RequestInfo {
    pub seq: u64,
    pub op: IoOp,
    pub pages: u32,
}

/// The streams the FTL writes to (per region where it matters).
#[derive(Clone)]
struct Streams {
    /// Host data, per region.
    host: Vec<StreamId>,
    /// GC relocations, per region.
    gc: Vec<StreamId>,
    /// Data migrated into a region, per region.
    migration: Vec<StreamId>,
    /// Translation pages (native region).
    map: StreamId,
}

/// Free blocks per plane of the native region that host writes leave for GC's relocations.
const GC_RESERVE_BLOCKS: u32 = 1;

#[derive(Clone)]
pub struct Ftl {
    blocks: BlockManager,
    mapping: Box<dyn Mapping>,
    victim: Box<dyn VictimPolicy>,
    scheduler: Box<dyn GcScheduler>,
    placement: Box<dyn Placement>,
    /// `placement.tracks_programs()`, asked once.
    placement_tracks_programs: bool,
    /// The placement's own streams (`PlacementLayout::streams`; empty for most), which it
    /// chooses for data bound for the native region (`Placement::stream_for`).
    placement_streams: std::ops::Range<u16>,
    /// `PlacementLayout::max_lines`: a placement stream holding this many lines is collected
    /// before it opens another.
    max_lines: Option<u32>,
    regions: Box<dyn RegionPolicy>,
    /// `regions.wants_placements()`, asked once.
    regions_want_placements: bool,
    /// Per region: what the FTL counted (`RegionStats`).
    region_stats: Vec<region::RegionStats>,
    /// The logical capacity in pages (space utilisation's denominator).
    logical_capacity_pages: u64,
    /// `device.overprovisioning`: the spare the native region keeps when another grows.
    overprovisioning: f64,
    buffer: Option<WriteBuffer>,
    streams: Streams,
    /// Program-unit pages per region (placement's unit on that region's mode).
    unit_pages: Vec<u32>,
    gc_scope: GcScope,
    /// The native region's GC domain when GC runs region-wide (the scheduler's domain).
    native_domain: blocks::DomainId,
    trigger_free_blocks: u32,
    target_free_blocks: u32,
    unwritten_reads: UnwrittenReads,
    /// One bit per LPN: trimmed at least once (a read of it is not of pre-existing data).
    trimmed: Vec<u64>,
    /// Time for one page to cross the DRAM bus (write buffer).
    dram_page_ns: Nanos,
    insert_reads: bool,
    /// Pages reads put in the buffer are dirty (`cache.write_back_reads`).
    write_back_reads: bool,
    /// Program the buffer's dirty pages in idle time (`cache.flush_on_idle`).
    flush_on_idle: bool,
    /// `cache.flush_interval_ns`, and when the armed write-back timer fires.
    flush_interval_ns: Option<u64>,
    flush_timer: Option<SimTime>,
    /// GC works in idle time (`gc.background = "idle"`).
    gc_when_idle: bool,
    verify: Option<Verifier>,
    stats: FtlStats,
    gc_stats: GcStats,
    /// Victim being emptied by partial steps, and the next page to look at.
    partial: Option<(BlockId, u32)>,
    last_arrival: Option<SimTime>,
    /// The latest completion time of the host requests served so far (0 before the first): a
    /// request arriving before it found the device still busy with an earlier one.
    busy_until: SimTime,
    // Scratch buffers reused across requests.
    /// Line mode: the sealed lines a victim policy chooses among, and a collection's pages.
    line_census: Vec<gc::LineCensus>,
    /// Line-mode background GC found no line with enough invalid pages: (invalidations, lines
    /// sealed, pages short). Until a line seals or that many more pages are invalidated no line
    /// can pass, so the census is not taken again (the same decisions, at a fraction of the
    /// cost: the census sums every sealed line's blocks).
    line_gc_wait: Option<(u64, u64, u64)>,
    collected: Vec<(Owner, Ppn)>,
    translations: Vec<Translation>,
    unit: Vec<Lpn>,
    versions: Vec<u32>,
    moves: Vec<Relocation>,
}

impl Ftl {
    /// `policy_rng` is the run's policy random stream, handed to the GC scheduler.
    pub fn build(cfg: &ValidatedConfig, policy_rng: Pcg64Mcg) -> Result<Ftl> {
        let problems = check_config(cfg);
        if !problems.is_empty() {
            return Err(Error::Config { path: None, problems });
        }
        let geometry = cfg.geometry();
        let logical = cfg.used_logical_pages();
        let physical = geometry.pages();
        let regions = (registry::find(region::registry::REGISTRY, "slc.policy", &cfg.slc.policy)?.build)(cfg)?;
        let scope = match cfg.gc.scope {
            GcScopeKind::Region => GcScope::Region,
            GcScopeKind::Plane => GcScope::Plane,
        };
        let mut placement =
            (registry::find(placement::registry::REGISTRY, "ftl.placement", &cfg.ftl.placement)?.build)(cfg)?;
        let placement_layout = placement.layout();
        let mut specs = vec![RegionSpec {
            name: "native".into(),
            mode: crate::nand::BlockMode::Native,
            gc_scope: scope,
            gc_reserve: GC_RESERVE_BLOCKS,
            lines: placement_layout.lines,
        }];
        let layout = regions.layout();
        specs.extend(layout.iter().map(|l| l.spec.clone()));
        // Streams: host and gc of the native region first (ids 0 and 1, as the single-region
        // FTL had them), then the translation stream, then per-region streams.
        let mut stream_specs = Vec::new();
        let mut add = |name: String, region: RegionId| {
            stream_specs.push(StreamSpec { name, region });
            StreamId(stream_specs.len() as u16 - 1)
        };
        let mut host = vec![add("host".into(), NATIVE)];
        let mut gc_streams = vec![add("gc".into(), NATIVE)];
        let map = add("map".into(), NATIVE);
        let mut migration = vec![add("migration".into(), NATIVE)];
        for (i, spec) in specs.iter().enumerate().skip(1) {
            let r = RegionId(i as u8);
            host.push(add(format!("{}.host", spec.name), r));
            gc_streams.push(add(format!("{}.gc", spec.name), r));
            migration.push(add(format!("{}.migration", spec.name), r));
        }
        // The FTL's own: host, gc, map and migration per region (4 + 3 per extra region).
        let own_streams = 4 + 3 * (specs.len() - 1);
        if own_streams + placement_layout.streams as usize > u16::MAX as usize {
            return Err(Error::config(
                "ftl.placement",
                format!("{} placement streams are too many (at most {})", placement_layout.streams, u16::MAX),
            ));
        }
        let mut placement_streams = 0..0;
        for k in 0..placement_layout.streams {
            let id = add(format!("{}.{k}", placement.id()), NATIVE).0;
            if k == 0 {
                placement_streams.start = id;
            }
            placement_streams.end = id + 1;
        }
        placement.bind_streams(StreamId(placement_streams.start));
        let mut blocks = BlockManager::with_layout(geometry.clone(), specs, stream_specs);
        for (i, l) in layout.iter().enumerate() {
            let r = RegionId(i as u8 + 1);
            // Spread the region's blocks evenly over the planes.
            let planes = geometry.planes();
            for k in 0..l.initial_blocks {
                let plane = crate::units::PlaneId(k % planes);
                blocks.move_free_block(NATIVE, r, plane).ok_or_else(|| {
                    Error::config(
                        "slc.blocks",
                        format!("plane {} has no block left for region {}", plane.0, l.spec.name),
                    )
                })?;
            }
        }
        let native_domain = blocks.domain_of(NATIVE, crate::units::PlaneId(0));
        let unit_pages = (0..blocks.regions())
            .map(|r| {
                let bits = match blocks.region_spec(RegionId(r as u8)).mode {
                    crate::nand::BlockMode::Native => geometry.cell.bits_per_cell(),
                    crate::nand::BlockMode::Slc => 1,
                };
                placement.unit_pages(bits)
            })
            .collect();
        let mapping_ctx = mapping::BuildCtx { cfg, logical_pages: logical };
        let mapping =
            (registry::find(mapping::registry::REGISTRY, "ftl.mapping", &cfg.ftl.mapping)?.build)(&mapping_ctx)?;
        let scheduler_ctx = gc::scheduler::BuildCtx {
            gc: &cfg.gc,
            timing: &cfg.device.timing,
            rng: policy_rng,
            tables: &cfg.policy_tables,
        };
        let scheduler =
            (registry::find(gc::scheduler::REGISTRY, "gc.scheduler", &cfg.gc.scheduler)?.build)(scheduler_ctx)?;
        let victim = (registry::find(gc::victim::REGISTRY, "gc.victim", &cfg.gc.victim)?.build)(cfg)?;
        let buffer = if cfg.cache.capacity.0 > 0 {
            let pages = (cfg.cache.capacity.0 / geometry.page_bytes).min(u32::MAX as u64) as u32;
            let eviction_ctx = cache::BuildCtx {
                cfg,
                logical_pages: logical,
                capacity_pages: pages,
                rng: crate::rng::rng_for(cfg.seed, crate::rng::RngStream::Eviction),
            };
            let eviction = (registry::find(cache::registry::REGISTRY, "cache.eviction", &cfg.cache.eviction)?.build)(
                eviction_ctx,
            )?;
            Some(
                WriteBuffer::new(pages, cfg.cache.high_watermark, cfg.cache.low_watermark, eviction)
                    .with_room_order(cfg.cache.room_order),
            )
        } else {
            None
        };
        Ok(Ftl {
            dram_page_ns: transfer_ns(geometry.page_bytes, cfg.cache.dram_bytes_per_s),
            insert_reads: cfg.cache.insert_reads,
            write_back_reads: cfg.cache.write_back_reads,
            flush_on_idle: cfg.cache.flush_on_idle && cfg.cache.capacity.0 > 0,
            // Validation refuses an interval without a buffer.
            flush_interval_ns: cfg.cache.flush_interval_ns,
            flush_timer: None,
            gc_when_idle: cfg.gc.background == crate::config::GcBackground::Idle,
            blocks,
            mapping,
            victim,
            scheduler,
            placement_tracks_programs: placement.tracks_programs(),
            placement_streams,
            max_lines: placement_layout.max_lines,
            placement,
            regions_want_placements: regions.wants_placements(),
            region_stats: vec![region::RegionStats::default(); layout.len() + 1],
            logical_capacity_pages: cfg.logical_pages() as u64,
            overprovisioning: cfg.device.overprovisioning,
            regions,
            buffer,
            streams: Streams { host, gc: gc_streams, migration, map },
            unit_pages,
            gc_scope: scope,
            native_domain,
            trigger_free_blocks: cfg.gc.trigger_free_blocks,
            target_free_blocks: cfg.gc.target_free_blocks.unwrap_or(cfg.gc.trigger_free_blocks + 1),
            unwritten_reads: cfg.ftl.unwritten_reads,
            trimmed: vec![0; (logical as usize).div_ceil(64)],
            verify: cfg.verify.then(|| Verifier::new(logical, physical)),
            stats: FtlStats::for_geometry(&geometry),
            gc_stats: GcStats::default(),
            partial: None,
            last_arrival: None,
            busy_until: 0,
            line_census: Vec::new(),
            line_gc_wait: None,
            collected: Vec::new(),
            translations: Vec::new(),
            unit: Vec::new(),
            versions: Vec::new(),
            moves: Vec::new(),
        })
    }

    pub fn blocks(&self) -> &BlockManager {
        &self.blocks
    }
    pub fn mapping(&self) -> &dyn Mapping {
        self.mapping.as_ref()
    }
    pub fn stats(&self) -> FtlStats {
        FtlStats { skipped_pages: self.blocks.skipped_pages(), ..self.stats.clone() }
    }
    pub fn gc_stats(&self) -> &GcStats {
        &self.gc_stats
    }
    pub fn scheduler(&self) -> &dyn GcScheduler {
        self.scheduler.as_ref()
    }
    pub fn victim_id(&self) -> &'static str {
        self.victim.id()
    }
    pub fn placement_id(&self) -> &'static str {
        self.placement.id()
    }
    pub fn region_policy(&self) -> &dyn RegionPolicy {
        self.regions.as_ref()
    }
    /// What the FTL counted per region (native first) since the warm-up.
    pub fn region_stats(&self) -> &[region::RegionStats] {
        &self.region_stats
    }
    pub fn buffer(&self) -> Option<&WriteBuffer> {
        self.buffer.as_ref()
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
        self.stats = FtlStats::for_geometry(self.blocks.geometry());
        self.gc_stats = GcStats::default();
        self.region_stats.fill(region::RegionStats::default());
        self.last_arrival = None;
        self.busy_until = 0;
        self.mapping.reset_stats();
        if let Some(b) = &mut self.buffer {
            b.stats = cache::CacheStats { capacity_pages: b.capacity_pages(), ..Default::default() };
        }
    }

    /// The placement's own stream for data of `lpn` bound for `region`, if it chooses one
    /// (native region only): host writes and moved pages alike go there.
    #[inline]
    fn placement_stream(&self, region: RegionId, lpn: Lpn) -> Option<StreamId> {
        if region == NATIVE && !self.placement_streams.is_empty() {
            self.placement.stream_for(lpn)
        } else {
            None
        }
    }

    /// The stream host data of `lpn` bound for `region` goes to: the placement's own, if it
    /// chooses one, else the region's host stream.
    #[inline]
    fn host_stream(&self, region: RegionId, lpn: Lpn) -> StreamId {
        self.placement_stream(region, lpn).unwrap_or(self.streams.host[region.0 as usize])
    }

    /// Whether `stream` is one of the placement's own.
    fn is_placement_stream(&self, stream: StreamId) -> bool {
        self.placement_streams.contains(&stream.0)
    }

    /// The mapping's context for an operation at `now`.
    fn map_ctx<'a>(
        device: &'a mut Device,
        blocks: &'a mut BlockManager,
        io: &'a mut TranslationIo,
        stream: StreamId,
        now: SimTime,
    ) -> MapCtx<'a> {
        MapCtx { now, device, blocks, stream, io }
    }

    fn observation(&self, req: RequestInfo, now: SimTime, interval_ns: u64, idle_before_ns: u64) -> GcObservation {
        let victim_valid_left = self.partial.map(|(b, _)| self.blocks.valid(b)).unwrap_or(0);
        GcObservation {
            now,
            request_seq: req.seq,
            op: req.op,
            request_pages: req.pages,
            free_blocks: self.blocks.region_free_blocks(NATIVE),
            host_free_blocks: self.blocks.region_host_free_blocks(NATIVE),
            total_blocks: self.blocks.region_blocks(NATIVE),
            interval_ns,
            idle_before_ns,
            victim_valid_left,
            pages_per_block: self.blocks.geometry().pages_per_block,
            gc_copies_total: self.gc_stats.pages_copied,
            gc_erases_total: self.gc_stats.victims_reclaimed,
        }
    }

    /// Serve one host request at `now`. Returns its completion time.
    pub fn serve(&mut self, request: &PageRequest, now: SimTime, device: &mut Device) -> Result<SimTime> {
        let PageRequest { seq, op, lpns, .. } = *request;
        let interval = self.last_arrival.map(|t| now - t).unwrap_or(u64::MAX);
        self.last_arrival = Some(now);
        let idle_before = now.saturating_sub(self.busy_until);
        let mut ready = now;
        let req = RequestInfo { seq, op, pages: lpns.len() as u32 };
        if self.gc_scope == GcScope::Region {
            ready = self.before_serve_gc(req, now, interval, idle_before, device)?;
        }
        if op == IoOp::Write {
            ready = ready.max(self.before_write_regions(now, device)?);
        }
        let done = match op {
            IoOp::Read => self.read_request(request, ready, now, device),
            IoOp::Write => {
                let done = self.write_request(request, ready, now, device);
                if self.flush_interval_ns.is_some() {
                    self.arm_flush_timer(now);
                }
                done
            }
            IoOp::Trim => self.trim_request(request, ready, device),
        }?;
        self.busy_until = self.busy_until.max(done);
        Ok(done)
    }

    /// The earliest time a policy asked to be woken at (`Ftl::on_timer`), if any. Today the
    /// write buffer's timed write-back (`cache.flush_interval_ns`) is the one timer.
    #[inline]
    pub fn next_timer(&self) -> Option<SimTime> {
        self.flush_timer
    }

    /// A timer fired at `now` (the engine calls this at `next_timer`, host activity or not):
    /// the write buffer writes back every dirty page, as background work.
    pub fn on_timer(&mut self, now: SimTime, device: &mut Device) -> Result<()> {
        if self.flush_timer.is_none_or(|t| t > now) {
            return Ok(());
        }
        self.flush_timer = None;
        if self.buffer.as_ref().is_some_and(|b| b.dirty() > 0) {
            device.set_background(true);
            let pages = self.evict_all(now, device);
            device.set_background(false);
            let pages = pages?;
            let b = self.buffer.as_mut().expect("a buffer has dirty pages");
            b.stats.timer_flushes += 1;
            b.stats.timer_flush_pages += pages;
        }
        Ok(())
    }

    /// The workload ended and every request completed (the end-of-trace event): data still in
    /// the write buffer goes to flash, so none is lost before the final figures and the verify
    /// scan. Returns when that work ends.
    pub fn on_end_of_trace(&mut self, now: SimTime, device: &mut Device) -> Result<SimTime> {
        self.flush_timer = None;
        let end = self.flush_buffer(now, device)?;
        self.regions.finish()?;
        Ok(end)
    }

    /// Arm the write-back timer when a write left the buffer dirty and none is armed.
    fn arm_flush_timer(&mut self, now: SimTime) {
        if let (None, Some(interval)) = (self.flush_timer, self.flush_interval_ns) {
            if self.buffer.as_ref().is_some_and(|b| b.dirty() > 0) {
                self.flush_timer = Some(now + interval);
            }
        }
    }

    /// After request `req` completed at `now` with `response_ns`: background GC if asked.
    pub fn after_served(
        &mut self,
        req: RequestInfo,
        response_ns: u64,
        now: SimTime,
        device: &mut Device,
    ) -> Result<()> {
        if self.gc_scope != GcScope::Region {
            return Ok(());
        }
        let obs = self.observation(req, now, 0, 0);
        let action = self.scheduler.after_serve(&obs, response_ns);
        // No request waits for GC decided after one was served: background work.
        device.set_background(true);
        let result = self.run_gc_action(action, now, device);
        device.set_background(false);
        result.map(|_| ())
    }

    fn read_request(
        &mut self,
        request: &PageRequest,
        ready: SimTime,
        now: SimTime,
        device: &mut Device,
    ) -> Result<SimTime> {
        let lpns = request.lpns;
        if self.buffer.is_none() {
            return self.read_from_flash(lpns, ready, now, device);
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
                    self.stats.host_read_pages += 1;
                    if let Some(v) = &mut self.verify {
                        v.check_buffer_read(lpn, buffer.version(lpn).unwrap_or(0))?;
                    }
                } else {
                    misses.push(lpn);
                }
            }
            done = done.max(ready + hits * self.dram_page_ns);
        } else {
            misses.extend_from_slice(lpns);
        }
        let result = self.read_from_flash(&misses, ready, now, device).map(|t| t.max(done));
        self.unit = misses;
        if let (Ok(end), Some(b)) = (&result, &mut self.buffer) {
            b.policy.on_read_done(lpns, request.size_bytes, end - now);
        }
        result
    }

    fn read_from_flash(&mut self, lpns: &[Lpn], ready: SimTime, now: SimTime, device: &mut Device) -> Result<SimTime> {
        let mut done = ready;
        if lpns.is_empty() {
            return Ok(done);
        }
        let mut translations = std::mem::take(&mut self.translations);
        translations.clear();
        {
            let mut ctx =
                Self::map_ctx(device, &mut self.blocks, &mut self.stats.translation, self.streams.map, ready.max(now));
            self.mapping.lookup(lpns, &mut translations, &mut ctx)?;
        }
        for (&lpn, t) in lpns.iter().zip(&translations) {
            self.stats.host_read_pages += 1;
            let mut ppn = t.ppn;
            if ppn.is_none() && !self.was_trimmed(lpn) && self.never_written(lpn) {
                self.stats.unwritten_read_pages += 1;
                if self.unwritten_reads == UnwrittenReads::MapOnRead {
                    ppn = Some(self.premap(lpn, now, device)?);
                }
            }
            if let Some(v) = &mut self.verify {
                v.check_read(lpn, ppn, &self.blocks)?;
            }
            match ppn {
                Some(p) => {
                    let mode = self.blocks.mode(self.blocks.geometry().block_of(p));
                    let page_type =
                        page_type(self.blocks.geometry().cell, mode, self.blocks.geometry().page_in_block(p));
                    if mode == BlockMode::Native {
                        self.stats.host_reads_by_page_type[page_type as usize] += 1;
                    }
                    let read_end = device.read(p, mode, t.start, Source::Host);
                    done = done.max(read_end);
                    if self.buffer.is_some() {
                        done = done.max(self.after_flash_read(
                            lpn,
                            page_type,
                            lpns.len() as u32,
                            read_end,
                            now,
                            device,
                        )?);
                    }
                }
                None => {
                    self.stats.unmapped_read_pages += 1;
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
    fn never_written(&self, lpn: Lpn) -> bool {
        self.mapping.peek(lpn).is_none() && self.buffer.as_ref().is_none_or(|b| !b.contains(lpn))
    }

    /// Place data that predates the run for `lpn`: a page on the native host stream, untimed
    /// and not counted as a program.
    fn premap(&mut self, lpn: Lpn, now: SimTime, device: &mut Device) -> Result<Ppn> {
        let stream = self.host_stream(NATIVE, lpn);
        self.unit.clear();
        let ppn = self.allocate_unit_page(&[lpn], stream, NATIVE, now, device)?;
        self.mapping.premap(lpn, ppn);
        self.blocks.set_owner(ppn, Owner::Data(lpn));
        if let Some(v) = &mut self.verify {
            v.on_premap(lpn, ppn);
        }
        self.stats.premapped_pages += 1;
        Ok(ppn)
    }

    fn trim_request(&mut self, request: &PageRequest, ready: SimTime, device: &mut Device) -> Result<SimTime> {
        let last = request.lpns.len().saturating_sub(1);
        for (i, &lpn) in request.lpns.iter().enumerate() {
            self.stats.host_trim_pages += 1;
            // A trim that covers only part of a page keeps the page's data: the rest of the page
            // still holds data and the mapping can only forget whole pages.
            let partial = (i == 0 && request.partial_head) || (i == last && request.partial_tail);
            if partial {
                self.stats.partial_trim_pages_kept += 1;
                continue;
            }
            if let Some(b) = &mut self.buffer {
                b.remove(lpn);
            }
            let old = {
                let mut ctx =
                    Self::map_ctx(device, &mut self.blocks, &mut self.stats.translation, self.streams.map, ready);
                self.mapping.unmap(lpn, &mut ctx)?
            };
            if let Some(old) = old {
                self.blocks.invalidate(old);
            }
            self.trimmed[lpn.index() / 64] |= 1 << (lpn.index() % 64);
            if let Some(v) = &mut self.verify {
                v.on_trim(lpn);
            }
        }
        Ok(ready)
    }

    /// Verify mode's end-of-run scan (no-op when verify is off). Flush the buffer first.
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
mod allocation_tests {
    use super::*;
    use crate::ftl::blocks::test_support::geometry;
    use crate::ftl::gc::victim::GreedyVictim;
    use crate::ftl::gc::GcAction;
    use crate::ftl::mapping::page::PageMapping;
    use crate::nand::{BlockMode, Geometry};

    /// Never asks for GC: only the FTL's own emergency reclaim frees space.
    #[derive(Clone)]
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

    /// Where host pages go in these tests: dynamic placement with region-wide GC, or static
    /// (CWDP) placement, which needs GC within planes.
    #[derive(Debug, Clone, Copy)]
    enum Allocation {
        Dynamic,
        Static,
    }

    /// An FTL over `g` with `logical_pages` of logical space, in verify mode, built directly:
    /// config validation would refuse a device whose logical space leaves GC too little room,
    /// which is what some of these tests need.
    fn ftl(g: Geometry, logical_pages: u32, victim: Box<dyn VictimPolicy>, allocation: Allocation) -> (Ftl, Device) {
        let device = crate::device::test_device(&g, 0);
        let (placement, scope): (Box<dyn Placement>, GcScope) = match allocation {
            Allocation::Dynamic => (Box::new(placement::DynamicPlacement::new(&g)), GcScope::Region),
            Allocation::Static => (Box::new(placement::StaticPlacement::new(&g)), GcScope::Plane),
        };
        let region = RegionSpec {
            name: "native".into(),
            mode: BlockMode::Native,
            gc_scope: scope,
            gc_reserve: GC_RESERVE_BLOCKS,
            lines: false,
        };
        let streams = ["host", "gc", "map", "migration"]
            .iter()
            .map(|n| StreamSpec { name: n.to_string(), region: NATIVE })
            .collect();
        let ftl = Ftl {
            blocks: BlockManager::with_layout(g.clone(), vec![region], streams),
            mapping: Box::new(PageMapping::new(logical_pages)),
            victim,
            scheduler: Box::new(NoGc),
            placement_tracks_programs: placement.tracks_programs(),
            placement_streams: 0..0,
            max_lines: None,
            placement,
            regions: Box::new(region::NoRegions),
            regions_want_placements: false,
            region_stats: vec![region::RegionStats::default()],
            logical_capacity_pages: logical_pages as u64,
            overprovisioning: 0.0,
            buffer: None,
            streams: Streams {
                host: vec![StreamId(0)],
                gc: vec![StreamId(1)],
                map: StreamId(2),
                migration: vec![StreamId(3)],
            },
            unit_pages: vec![1],
            gc_scope: scope,
            native_domain: blocks::DomainId(0),
            trigger_free_blocks: 1,
            target_free_blocks: 2,
            unwritten_reads: UnwrittenReads::Free,
            trimmed: vec![0; (logical_pages as usize).div_ceil(64)],
            dram_page_ns: 0,
            insert_reads: false,
            write_back_reads: false,
            flush_on_idle: false,
            flush_interval_ns: None,
            flush_timer: None,
            gc_when_idle: false,
            verify: Some(Verifier::new(logical_pages, g.pages())),
            stats: FtlStats::for_geometry(&g),
            gc_stats: GcStats::default(),
            partial: None,
            last_arrival: None,
            busy_until: 0,
            line_census: Vec::new(),
            line_gc_wait: None,
            collected: Vec::new(),
            translations: Vec::new(),
            unit: Vec::new(),
            versions: Vec::new(),
            moves: Vec::new(),
        };
        (ftl, device)
    }

    /// Serve a one-page request (a whole page) at 1 ms per request.
    fn serve(ftl: &mut Ftl, device: &mut Device, seq: u64, op: IoOp, lpn: u32) -> Result<SimTime> {
        let request =
            PageRequest { seq, op, lpns: &[Lpn(lpn)], partial_head: false, partial_tail: false, size_bytes: 4096 };
        ftl.serve(&request, seq * 1_000_000, device)
    }

    const VICTIMS: [&str; 3] = ["greedy", "fifo", "cost_benefit"];

    fn victim(id: &str) -> Box<dyn VictimPolicy> {
        let cfg = crate::load_config(Some("tiny"), &[], &[]).unwrap();
        (registry::find(gc::victim::REGISTRY, "gc.victim", id).unwrap().build)(&cfg).unwrap()
    }

    #[test]
    fn emergency_reclaim_takes_victims_until_the_host_has_room() {
        // One plane of 8 blocks x 4 pages; 16 logical pages; block 7 is the plane's GC reserve.
        let (mut ftl, mut dev) = ftl(geometry(1, 8, 4), 16, Box::new(GreedyVictim), Allocation::Dynamic);
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
        let moved: Vec<Option<u32>> =
            (0..4).map(|p| ftl.blocks.data_owner(g.ppn(BlockId(7), p)).map(|l| l.0)).collect();
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
            for allocation in [Allocation::Dynamic, Allocation::Static] {
                without_hanging(move || {
                    let (mut ftl, mut dev) = ftl(geometry(2, 4, 4), 32, victim(kind), allocation);
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
            let (mut ftl, mut dev) = ftl(geometry(2, 4, 4), 32, Box::new(GreedyVictim), Allocation::Dynamic);
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
                    let (mut ftl, mut dev) = ftl(geometry(2, 4, 4), logical, victim(kind), Allocation::Dynamic);
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
