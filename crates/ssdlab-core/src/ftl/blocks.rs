//! Layer: ftl. The block manager: per-block state, per-page owners (the out-of-band area),
//! regions of blocks with their own mode and free pools, write streams with their own open
//! blocks, and the indexes victim policies query (blocks by valid count, blocks in seal order)
//! per GC domain.
//!
//! * **Owners.** One `u32` per physical page: the owning LPN, or a translation page index with
//!   the top bit set (`Owner::Map`), or `INVALID`. A page is valid iff it has an owner. With the
//!   page mapping's forward table that is 8 bytes per page.
//! * **Regions.** Every block belongs to one region (`RegionId`), which fixes the mode its blocks
//!   are programmed in (native, or SLC on a multi-level device) and keeps its own free pool per
//!   plane. A free (erased) block can move to another region at run time (`move_free_block`),
//!   which is how an SLC cache grows and shrinks; capacity follows the mode exactly (an SLC-mode
//!   block holds `pages_per_block / bits` pages).
//! * **Streams.** A write stream (`StreamId`) keeps one open block per plane in its region, so
//!   data of different lifetimes or owners does not share blocks (host, GC, translation pages,
//!   per-region, per-group...). Streams are registered at build time, any number of them.
//! * **GC domains.** Victim indexes are kept per domain: a region as a whole (device-wide GC, the
//!   papers' simulators) or each plane of a region (MQSim's per-plane GC). Only sealed blocks are
//!   candidates, never an open one.
//! * **Lines.** A region in line mode (`RegionSpec::lines`, LearnedFTL's group-based allocation,
//!   Wang et al. HPCA 2024 Sec. 3.3.1) opens blocks a *line* at a time: the same block index on
//!   every plane, taken together for one stream when its previous line is used up. The blocks of
//!   a line seal together when the last of them is full, and a stream's sealed lines are what a
//!   line region's GC collects (`sealed_lines`), so lines stay whole: a line is free again once
//!   every block of it is erased. Pages of a line allocated row by row in channel-first plane
//!   order (`line_cursor`) get consecutive virtual PPNs (`nand::vppn`).

use std::collections::VecDeque;

use crate::nand::{BlockMode, Geometry};
use crate::units::{BlockId, Lpn, PlaneId, Ppn, SimTime};

/// Marks "no owner" in the per-page owner table and "none" in index links.
pub const INVALID: u32 = u32::MAX;

/// The owner tag bit: set for translation pages.
const MAP_TAG: u32 = 1 << 31;

/// The largest LPN or translation page index an owner entry can hold.
pub const MAX_OWNER_INDEX: u32 = MAP_TAG - 2;

/// What a valid physical page holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Owner {
    /// Host data of a logical page.
    Data(Lpn),
    /// A translation page of a demand-based mapping (its index in the mapping's directory).
    Map(u32),
}

impl Owner {
    fn encode(self) -> u32 {
        match self {
            Owner::Data(lpn) => lpn.0,
            Owner::Map(tpage) => tpage | MAP_TAG,
        }
    }
    fn decode(raw: u32) -> Option<Owner> {
        match raw {
            INVALID => None,
            r if r & MAP_TAG != 0 => Some(Owner::Map(r & !MAP_TAG)),
            r => Some(Owner::Data(Lpn(r))),
        }
    }
    pub fn lpn(self) -> Option<Lpn> {
        match self {
            Owner::Data(lpn) => Some(lpn),
            Owner::Map(_) => None,
        }
    }
}

/// A region of blocks (index into the block manager's region table).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct RegionId(pub u8);

/// A write stream (index into the block manager's stream table).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct StreamId(pub u16);

/// The host and GC streams of the default layout (`BlockManager::new`), and the first two
/// streams of every FTL.
pub const HOST: StreamId = StreamId(0);
pub const GC: StreamId = StreamId(1);

/// A GC domain: the blocks one victim search looks at (a region, or one plane of a region).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct DomainId(pub u32);

/// How far a region's GC looks for victims.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum GcScope {
    /// One domain for the whole region (the RLGC and LearnedFTL papers' simulators).
    #[default]
    Region,
    /// One domain per plane (MQSim: GC is triggered and runs within a plane).
    Plane,
}

/// A region as the FTL declares it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegionSpec {
    pub name: String,
    pub mode: BlockMode,
    pub gc_scope: GcScope,
    /// Free blocks per plane that host writes leave for GC relocations within the region (0
    /// for a region emptied by migration into another). In line mode: free lines.
    pub gc_reserve: u32,
    /// Line mode: every stream of the region opens a whole line at once (see the module
    /// header).
    pub lines: bool,
}

/// A write stream as the FTL declares it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StreamSpec {
    pub name: String,
    pub region: RegionId,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BlockState {
    Free,
    Open,
    /// Fully written; may be chosen as a GC victim.
    Sealed,
    /// Chosen as a GC victim and being emptied.
    Victim,
}

/// Sealed blocks grouped by valid-page count (intrusive doubly linked lists), per domain.
#[derive(Clone)]
struct ValidBuckets {
    /// `head[domain * (max_valid + 1) + valid]`.
    head: Vec<u32>,
    next: Vec<u32>,
    prev: Vec<u32>,
    stride: usize,
}

impl ValidBuckets {
    fn new(blocks: usize, max_valid: usize, domains: usize) -> Self {
        ValidBuckets {
            head: vec![INVALID; domains * (max_valid + 1)],
            next: vec![INVALID; blocks],
            prev: vec![INVALID; blocks],
            stride: max_valid + 1,
        }
    }
    fn insert(&mut self, domain: usize, b: u32, valid: u32) {
        let slot = domain * self.stride + valid as usize;
        let h = self.head[slot];
        self.next[b as usize] = h;
        self.prev[b as usize] = INVALID;
        if h != INVALID {
            self.prev[h as usize] = b;
        }
        self.head[slot] = b;
    }
    fn remove(&mut self, domain: usize, b: u32, valid: u32) {
        let (p, n) = (self.prev[b as usize], self.next[b as usize]);
        if p != INVALID {
            self.next[p as usize] = n;
        } else {
            self.head[domain * self.stride + valid as usize] = n;
        }
        if n != INVALID {
            self.prev[n as usize] = p;
        }
    }
    /// The most recently inserted block of the lowest non-empty count in `domain`.
    fn min(&self, domain: usize) -> Option<(u32, u32)> {
        let heads = &self.head[domain * self.stride..(domain + 1) * self.stride];
        heads.iter().enumerate().find(|(_, &h)| h != INVALID).map(|(v, &h)| (h, v as u32))
    }
}

/// The free lines of a region in line mode.
#[derive(Clone)]
struct FreeLines {
    /// Per block index: the planes where that block is a free block of the region.
    planes_free: Vec<u32>,
    /// Indices that became free on every plane, in that order (least recently freed first;
    /// an entry no longer free is skipped when met).
    queue: VecDeque<u32>,
    /// Indices free on every plane.
    count: u32,
}

/// A stream's line in a line-mode region.
#[derive(Debug, Clone, Default)]
struct StreamLine {
    /// Block index of the open line (`INVALID`: none).
    index: u32,
    /// Blocks of the open line not yet full.
    open_blocks: u32,
    /// Block indices of the stream's sealed lines, in seal order.
    sealed: Vec<u32>,
}

#[derive(Clone)]
struct Region {
    spec: RegionSpec,
    /// Line mode's free lines (None: the region opens blocks per plane).
    lines: Option<FreeLines>,
    /// Pages a block of this region holds (its mode's).
    block_pages: u32,
    /// First domain of this region (one, or one per plane).
    first_domain: u32,
    free_total: u32,
    /// Sum over planes of free blocks beyond the GC reserve, kept incrementally.
    host_free_total: u32,
    /// Blocks of this region in any state.
    blocks: u32,
    /// Pages of this region holding data (kept incrementally: utilisation and region policies
    /// read it at every write).
    valid_pages: u64,
}

/// The per-block state every page write and invalidation touches, kept together: one cache
/// line fetch per block instead of one per field. A write stream has an open block on every
/// plane, and blocks of different planes lie `blocks_per_plane` entries apart, so with one
/// array per field the open blocks' entries alias in the same cache sets: a fill of a
/// 128-plane device missed L1 about five times per page, two with this layout.
#[derive(Debug, Clone, Copy)]
struct BlockMeta {
    written: u32,
    valid: u32,
    /// GC domain (fixed by its region and plane; cached: read on every invalidation of a
    /// sealed block).
    domain: u32,
    state: BlockState,
    mode: BlockMode,
    region: RegionId,
}

#[derive(Clone)]
pub struct BlockManager {
    geometry: Geometry,
    meta: Vec<BlockMeta>,
    erase_count: Vec<u32>,
    sealed_at: Vec<SimTime>,
    seal_seq: Vec<u64>,
    next_seal_seq: u64,
    owner: Vec<u32>,
    regions: Vec<Region>,
    /// Free pools, `free[region * planes + plane]`, least recently erased first.
    free: Vec<VecDeque<BlockId>>,
    free_total: u32,
    streams: Vec<StreamSpec>,
    /// Open block per stream and plane, `open[stream * planes + plane]` (one table: the write
    /// path reads it for every page).
    open: Vec<u32>,
    buckets: ValidBuckets,
    skipped_pages: u64,
    /// Sealed blocks in seal order, per domain.
    seal_order: Vec<VecDeque<(BlockId, u64)>>,
    planes: u32,
    /// Per stream: its line (line-mode regions only; default elsewhere).
    stream_lines: Vec<StreamLine>,
    /// Some region is in line mode.
    any_lines: bool,
    /// Planes in channel-first order (line mode's row order).
    rank_order: Vec<PlaneId>,
    /// Pages invalidated and lines sealed since the start: with them line-mode background GC
    /// knows when no line can have reached its victim's bar yet (`Ftl::line_gc_wait`).
    invalidations: u64,
    lines_sealed: u64,
}

impl BlockManager {
    /// One native region holding every block, device-wide GC, and the `host` and `gc` streams
    /// (ids 0 and 1): today's single-region FTL.
    pub fn new(geometry: Geometry, gc_reserve: u32) -> BlockManager {
        let region = RegionSpec {
            name: "native".into(),
            mode: BlockMode::Native,
            gc_scope: GcScope::Region,
            gc_reserve,
            lines: false,
        };
        let streams = vec![
            StreamSpec { name: "host".into(), region: RegionId(0) },
            StreamSpec { name: "gc".into(), region: RegionId(0) },
        ];
        Self::with_layout(geometry, vec![region], streams)
    }

    /// Regions (the first holds every block at start; move blocks with `move_free_block`) and
    /// streams as declared.
    pub fn with_layout(geometry: Geometry, region_specs: Vec<RegionSpec>, streams: Vec<StreamSpec>) -> BlockManager {
        assert!(!region_specs.is_empty() && region_specs.len() <= u8::MAX as usize, "1..=255 regions");
        assert!(streams.len() <= u16::MAX as usize, "too many streams");
        let blocks = geometry.blocks() as usize;
        let planes = geometry.planes();
        let mut regions = Vec::with_capacity(region_specs.len());
        let mut domains = 0u32;
        for spec in region_specs {
            let first_domain = domains;
            domains += match spec.gc_scope {
                GcScope::Region => 1,
                GcScope::Plane => planes,
            };
            let block_pages = geometry.pages_in_mode(spec.mode);
            let lines = spec.lines.then(|| FreeLines {
                planes_free: vec![0; geometry.blocks_per_plane as usize],
                queue: VecDeque::new(),
                count: 0,
            });
            regions.push(Region {
                spec,
                lines,
                block_pages,
                first_domain,
                free_total: 0,
                host_free_total: 0,
                blocks: 0,
                valid_pages: 0,
            });
        }
        let mut free = vec![VecDeque::new(); regions.len() * planes as usize];
        for p in 0..planes {
            let first = geometry.first_block_of(PlaneId(p)).0;
            free[p as usize] = (first..first + geometry.blocks_per_plane).map(BlockId).collect();
        }
        // Region 0 holds every block at start: its domain, or its plane's.
        let meta = (0..blocks as u32)
            .map(|b| BlockMeta {
                written: 0,
                valid: 0,
                domain: match regions[0].spec.gc_scope {
                    GcScope::Region => regions[0].first_domain,
                    GcScope::Plane => regions[0].first_domain + geometry.plane_of_block(BlockId(b)).0,
                },
                state: BlockState::Free,
                mode: regions[0].spec.mode,
                region: RegionId(0),
            })
            .collect();
        regions[0].free_total = blocks as u32;
        regions[0].blocks = blocks as u32;
        regions[0].host_free_total = planes * geometry.blocks_per_plane.saturating_sub(regions[0].spec.gc_reserve);
        if let Some(lines) = &mut regions[0].lines {
            lines.planes_free.fill(planes);
            lines.queue = (0..geometry.blocks_per_plane).collect();
            lines.count = geometry.blocks_per_plane;
        }
        let any_lines = regions.iter().any(|r| r.lines.is_some());
        BlockManager {
            meta,
            erase_count: vec![0; blocks],
            sealed_at: vec![0; blocks],
            seal_seq: vec![0; blocks],
            next_seal_seq: 0,
            owner: vec![INVALID; geometry.pages() as usize],
            free,
            free_total: blocks as u32,
            open: vec![INVALID; planes as usize * streams.len()],
            stream_lines: vec![StreamLine { index: INVALID, ..StreamLine::default() }; streams.len()],
            any_lines,
            rank_order: geometry.channel_first_order(),
            invalidations: 0,
            lines_sealed: 0,
            streams,
            buckets: ValidBuckets::new(blocks, geometry.pages_per_block as usize, domains as usize),
            skipped_pages: 0,
            seal_order: vec![VecDeque::new(); domains as usize],
            regions,
            planes,
            geometry,
        }
    }

    pub fn geometry(&self) -> &Geometry {
        &self.geometry
    }
    pub fn free_blocks(&self) -> u32 {
        self.free_total
    }
    /// The GC reserve per plane of region `r`.
    pub fn gc_reserve(&self, r: RegionId) -> u32 {
        self.regions[r.0 as usize].spec.gc_reserve
    }
    /// Free blocks the host may still open in region 0: beyond each plane's GC reserve.
    pub fn host_free_blocks(&self) -> u32 {
        self.regions[0].host_free_total
    }
    pub fn regions(&self) -> usize {
        self.regions.len()
    }
    pub fn region_spec(&self, r: RegionId) -> &RegionSpec {
        &self.regions[r.0 as usize].spec
    }
    pub fn region_free_blocks(&self, r: RegionId) -> u32 {
        self.regions[r.0 as usize].free_total
    }
    /// Free blocks of a region beyond each plane's GC reserve.
    pub fn region_host_free_blocks(&self, r: RegionId) -> u32 {
        self.regions[r.0 as usize].host_free_total
    }
    /// Blocks of a region, in any state.
    /// Pages of region `r` holding data (host data and translation pages).
    pub fn region_valid_pages(&self, r: RegionId) -> u64 {
        self.regions[r.0 as usize].valid_pages
    }
    /// Pages a block of region `r` holds (its mode's).
    pub fn region_block_pages(&self, r: RegionId) -> u32 {
        self.regions[r.0 as usize].block_pages
    }
    pub fn region_blocks(&self, r: RegionId) -> u32 {
        self.regions[r.0 as usize].blocks
    }
    pub fn free_blocks_in(&self, plane: PlaneId) -> u32 {
        (0..self.regions.len()).map(|r| self.free[self.pool(RegionId(r as u8), plane)].len() as u32).sum()
    }
    pub fn region_free_blocks_in(&self, r: RegionId, plane: PlaneId) -> u32 {
        self.free[self.pool(r, plane)].len() as u32
    }
    pub fn streams(&self) -> &[StreamSpec] {
        &self.streams
    }
    #[inline]
    pub fn stream_region(&self, s: StreamId) -> RegionId {
        self.streams[s.0 as usize].region
    }
    pub fn state(&self, b: BlockId) -> BlockState {
        self.meta[b.index()].state
    }
    pub fn mode(&self, b: BlockId) -> BlockMode {
        self.meta[b.index()].mode
    }
    pub fn region(&self, b: BlockId) -> RegionId {
        self.meta[b.index()].region
    }
    pub fn valid(&self, b: BlockId) -> u32 {
        self.meta[b.index()].valid
    }
    pub fn written(&self, b: BlockId) -> u32 {
        self.meta[b.index()].written
    }
    pub fn capacity(&self, b: BlockId) -> u32 {
        self.geometry.pages_in_mode(self.meta[b.index()].mode)
    }
    pub fn erase_count(&self, b: BlockId) -> u32 {
        self.erase_count[b.index()]
    }
    pub fn erase_counts(&self) -> &[u32] {
        &self.erase_count
    }
    pub fn sealed_at(&self, b: BlockId) -> SimTime {
        self.sealed_at[b.index()]
    }
    pub fn owner(&self, ppn: Ppn) -> Option<Owner> {
        Owner::decode(self.owner[ppn.index()])
    }
    /// The LPN a page holds, if it holds host data.
    pub fn data_owner(&self, ppn: Ppn) -> Option<Lpn> {
        self.owner(ppn).and_then(Owner::lpn)
    }

    /// Bring `ppn`'s owner entry into cache (a hint).
    pub fn touch_owner(&self, ppn: Ppn) {
        if let Some(o) = self.owner.get(ppn.index()) {
            crate::units::prefetch(o);
        }
    }

    #[inline]
    fn open_slot(&self, stream: StreamId, plane: PlaneId) -> usize {
        stream.0 as usize * self.planes as usize + plane.index()
    }

    #[inline]
    fn pool(&self, r: RegionId, plane: PlaneId) -> usize {
        r.0 as usize * self.planes as usize + plane.index()
    }

    /// The GC domain of a block of region `r` in `plane`.
    /// Whether each plane of region `r` is a GC domain of its own.
    pub fn domain_is_plane(&self, r: RegionId) -> bool {
        self.regions[r.0 as usize].spec.gc_scope == GcScope::Plane
    }

    pub fn domain_of(&self, r: RegionId, plane: PlaneId) -> DomainId {
        let region = &self.regions[r.0 as usize];
        match region.spec.gc_scope {
            GcScope::Region => DomainId(region.first_domain),
            GcScope::Plane => DomainId(region.first_domain + plane.0),
        }
    }

    #[inline]
    fn block_domain(&self, b: BlockId) -> usize {
        self.meta[b.index()].domain as usize
    }

    /// Free blocks of a domain (its region's, or its plane's in a per-plane region).
    pub fn domain_free_blocks(&self, r: RegionId, d: DomainId) -> u32 {
        let region = &self.regions[r.0 as usize];
        match region.spec.gc_scope {
            GcScope::Region => region.free_total,
            GcScope::Plane => self.free[self.pool(r, PlaneId(d.0 - region.first_domain))].len() as u32,
        }
    }

    /// Whether `stream` can take one more page in `plane` without touching the plane's last
    /// `reserve` free blocks of the stream's region.
    #[inline]
    pub fn has_room(&self, stream: StreamId, plane: PlaneId, reserve: u32) -> bool {
        self.room_for(stream, plane, 1, reserve)
    }

    /// Whether `stream` can take a unit of `pages` in `plane`: in its open block, or (none
    /// open, or too few pages left there, which `allocate_run` then skips) in a free block of
    /// the stream's region beyond `reserve`. A stream's open blocks all have its region's mode,
    /// so the region's block size is theirs. On every unit's path: a few loads, no setup.
    #[inline]
    pub fn room_for(&self, stream: StreamId, plane: PlaneId, pages: u32, reserve: u32) -> bool {
        if self.any_lines && self.is_line_stream(stream) {
            self.room_for_line(stream, plane, pages, reserve)
        } else {
            self.room_for_blocks(stream, plane, pages, reserve)
        }
    }

    /// `room_for` of a stream outside line mode (the caller knows: the placement's hot path
    /// asks once per unit, not once per plane).
    #[inline]
    pub(crate) fn room_for_blocks(&self, stream: StreamId, plane: PlaneId, pages: u32, reserve: u32) -> bool {
        let region = self.stream_region(stream);
        let open = self.open[self.open_slot(stream, plane)];
        if open != INVALID
            && self.regions[region.0 as usize].block_pages - self.meta[open as usize].written >= pages.max(1)
        {
            return true;
        }
        self.free[self.pool(region, plane)].len() as u32 > reserve
    }

    /// `room_for` of a stream in line mode: its open line's block on `plane`, or a new line
    /// once the open one is used up on every plane (`reserve` counts lines).
    pub(crate) fn room_for_line(&self, stream: StreamId, plane: PlaneId, pages: u32, reserve: u32) -> bool {
        let region = &self.regions[self.stream_region(stream).0 as usize];
        let open = self.open[self.open_slot(stream, plane)];
        if open != INVALID && region.block_pages - self.meta[open as usize].written >= pages.max(1) {
            return true;
        }
        let lines = region.lines.as_ref().map_or(0, |l| l.count);
        self.stream_lines[stream.0 as usize].open_blocks == 0 && lines > reserve
    }

    /// Next page of `stream`'s open block in `plane`, opening a free block of the stream's
    /// region (least recently erased first) when needed. `None` when the plane has neither.
    #[inline]
    pub fn allocate(&mut self, stream: StreamId, plane: PlaneId, now: SimTime) -> Option<Ppn> {
        let mut slot = self.open[self.open_slot(stream, plane)];
        if slot == INVALID {
            slot = self.open_block(stream, plane)?;
        }
        let b = BlockId(slot);
        let page = self.meta[b.index()].written;
        self.meta[b.index()].written = page + 1;
        if page + 1 == self.geometry.pages_in_mode(self.meta[b.index()].mode) {
            let slot = self.open_slot(stream, plane);
            self.open[slot] = INVALID;
            if self.any_lines && self.stream_lines[stream.0 as usize].index != INVALID {
                self.line_block_full(stream, now);
            } else {
                self.seal(b, now);
            }
        }
        Some(self.geometry.ppn(b, page))
    }

    /// One block of `stream`'s open line is full: once all are, the line seals (every block of
    /// it at `now`) and joins the stream's sealed lines.
    #[cold]
    fn line_block_full(&mut self, stream: StreamId, now: SimTime) {
        let line = &mut self.stream_lines[stream.0 as usize];
        line.open_blocks -= 1;
        if line.open_blocks > 0 {
            return;
        }
        let index = line.index;
        line.index = INVALID;
        line.sealed.push(index);
        self.lines_sealed += 1;
        for b in self.line_blocks(index).collect::<Vec<_>>() {
            self.seal(b, now);
        }
    }

    /// The blocks of line `index` (block `index` of every plane), in plane order.
    pub fn line_blocks(&self, index: u32) -> impl Iterator<Item = BlockId> + '_ {
        (0..self.planes).map(move |p| BlockId(self.geometry.first_block_of(PlaneId(p)).0 + index))
    }

    /// Whether region `r` opens blocks a line at a time.
    pub fn is_line_region(&self, r: RegionId) -> bool {
        self.regions[r.0 as usize].lines.is_some()
    }

    /// Whether `stream` writes to a line-mode region.
    #[inline]
    pub fn is_line_stream(&self, stream: StreamId) -> bool {
        self.any_lines && self.is_line_region(self.stream_region(stream))
    }

    /// Lines of region `r` free on every plane (0 outside line mode).
    pub fn free_lines(&self, r: RegionId) -> u32 {
        self.regions[r.0 as usize].lines.as_ref().map_or(0, |l| l.count)
    }

    /// Pages allocated in `stream`'s open line (0 when it has none), for a stream written row
    /// by row (page k of the line on the plane at position k mod planes in channel-first
    /// order): its blocks then hold w pages up to some position and w - 1 after it.
    pub fn line_cursor(&self, stream: StreamId) -> u32 {
        let index = self.stream_lines[stream.0 as usize].index;
        if index == INVALID {
            return 0;
        }
        let written =
            |rank: usize| self.meta[(self.geometry.first_block_of(self.rank_order[rank]).0 + index) as usize].written;
        let w = written(0);
        if w == 0 {
            return 0;
        }
        // The first position holding fewer than w pages (binary search: w, ..., w, w - 1, ...).
        let (mut lo, mut hi) = (1, self.rank_order.len());
        while lo < hi {
            let mid = (lo + hi) / 2;
            if written(mid) == w {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        (w - 1) * self.rank_order.len() as u32 + lo as u32
    }

    /// Whether `stream` has an open line (its next page does not open one).
    #[inline]
    pub fn has_open_line(&self, stream: StreamId) -> bool {
        self.stream_lines[stream.0 as usize].index != INVALID
    }

    /// Pages `stream`'s open line can still take (0 when it has none).
    pub fn line_room(&self, stream: StreamId) -> u32 {
        let line = &self.stream_lines[stream.0 as usize];
        if line.index == INVALID {
            return 0;
        }
        self.line_blocks(line.index)
            .map(|b| self.regions[self.meta[b.index()].region.0 as usize].block_pages - self.meta[b.index()].written)
            .sum()
    }

    /// Pages invalidated since the start (never reset).
    pub fn invalidations(&self) -> u64 {
        self.invalidations
    }

    /// Lines sealed since the start (never reset).
    pub fn lines_sealed(&self) -> u64 {
        self.lines_sealed
    }

    /// Block indices of `stream`'s sealed lines, in seal order.
    pub fn sealed_lines(&self, stream: StreamId) -> &[u32] {
        &self.stream_lines[stream.0 as usize].sealed
    }

    /// Valid pages and capacity of line `index`.
    pub fn line_census(&self, index: u32) -> (u32, u32) {
        self.line_blocks(index).fold((0, 0), |(v, c), b| (v + self.valid(b), c + self.capacity(b)))
    }

    /// Take sealed line `index` of `stream` for GC: its blocks become victims (no longer
    /// candidates of the block indexes) and it leaves the stream's sealed lines.
    pub fn take_sealed_line(&mut self, stream: StreamId, index: u32) {
        let sealed = &mut self.stream_lines[stream.0 as usize].sealed;
        let at = sealed.iter().position(|&i| i == index).expect("a sealed line of the stream");
        sealed.remove(at);
        for b in self.line_blocks(index).collect::<Vec<_>>() {
            self.mark_victim(b);
        }
    }

    /// Open a whole line of free blocks for `stream` in its line-mode region: the least
    /// recently freed index free on every plane. None while its open line is not used up on
    /// every plane, or if no line is free.
    #[cold]
    fn open_line(&mut self, stream: StreamId) -> Option<()> {
        let r = self.stream_region(stream);
        if self.stream_lines[stream.0 as usize].open_blocks > 0 {
            return None;
        }
        let planes = self.planes;
        let index = {
            let lines = self.regions[r.0 as usize].lines.as_mut().expect("a line-mode region");
            loop {
                let i = lines.queue.pop_front()?;
                if lines.planes_free[i as usize] == planes {
                    lines.planes_free[i as usize] = 0;
                    lines.count -= 1;
                    break i;
                }
            }
        };
        for p in 0..planes {
            let plane = PlaneId(p);
            let b = BlockId(self.geometry.first_block_of(plane).0 + index);
            let pool = self.pool(r, plane);
            let at = self.free[pool].iter().position(|&f| f == b).expect("a free line's block is in its pool");
            self.free[pool].remove(at);
            self.took_free_block(r, pool);
            self.meta[b.index()].state = BlockState::Open;
            self.meta[b.index()].mode = self.regions[r.0 as usize].spec.mode;
            let slot = self.open_slot(stream, plane);
            self.open[slot] = b.0;
        }
        let line = &mut self.stream_lines[stream.0 as usize];
        (line.index, line.open_blocks) = (index, planes);
        Some(())
    }

    /// Counters after a block left region `r`'s free pool `pool` (which now holds the rest).
    fn took_free_block(&mut self, r: RegionId, pool: usize) {
        self.free_total -= 1;
        let region = &mut self.regions[r.0 as usize];
        region.free_total -= 1;
        if self.free[pool].len() as u32 >= region.spec.gc_reserve {
            region.host_free_total -= 1;
        }
    }

    /// Line mode: block `b` of region `r` became free (`true`) or stopped being free.
    fn line_free_changed(&mut self, r: RegionId, b: BlockId, free: bool) {
        let planes = self.planes;
        let index = self.geometry.block_in_plane(b);
        if let Some(lines) = &mut self.regions[r.0 as usize].lines {
            let n = &mut lines.planes_free[index as usize];
            if free {
                *n += 1;
                if *n == planes {
                    lines.queue.push_back(index);
                    lines.count += 1;
                }
            } else {
                if *n == planes {
                    lines.count -= 1;
                }
                *n -= 1;
            }
        }
    }

    /// Open a free block of `stream`'s region in `plane` (least recently erased first) as the
    /// stream's open block there; None when the pool is empty. Once per block: kept out of
    /// `allocate`'s inlined path.
    #[cold]
    fn open_block(&mut self, stream: StreamId, plane: PlaneId) -> Option<u32> {
        let r = self.stream_region(stream);
        if self.regions[r.0 as usize].lines.is_some() {
            self.open_line(stream)?;
            return Some(self.open[self.open_slot(stream, plane)]);
        }
        let pool = self.pool(r, plane);
        let b = self.free[pool].pop_front()?;
        self.took_free_block(r, pool);
        let region = &self.regions[r.0 as usize];
        self.meta[b.index()].state = BlockState::Open;
        self.meta[b.index()].mode = region.spec.mode;
        let slot = self.open_slot(stream, plane);
        self.open[slot] = b.0;
        Some(b.0)
    }

    /// `pages` consecutive pages of one block for `stream` in `plane` (a program unit): the
    /// first page, or None without a free block. A one-shot unit (`pages == wordline_pages`,
    /// more than one) starts on a multiple of its size, so it covers exactly one wordline: where an
    /// earlier shorter unit (a short last unit of a flush, a 1-page unit routed from another
    /// region, a warm-up or premapped page) left the write point inside a wordline, the rest of
    /// that wordline, or of the block if no whole unit fits, is skipped: left unwritten until
    /// the block's erase (a real drive pads it with dummy data, which we do not program or
    /// count as a program; `skipped_pages` counts it).
    #[inline]
    pub fn allocate_run(
        &mut self,
        stream: StreamId,
        plane: PlaneId,
        pages: u32,
        wordline_pages: u32,
        now: SimTime,
    ) -> Option<Ppn> {
        if pages <= 1 {
            self.allocate(stream, plane, now)
        } else {
            self.allocate_multi(stream, plane, pages, wordline_pages, now)
        }
    }

    fn allocate_multi(
        &mut self,
        stream: StreamId,
        plane: PlaneId,
        pages: u32,
        wordline_pages: u32,
        now: SimTime,
    ) -> Option<Ppn> {
        let slot = self.open[self.open_slot(stream, plane)];
        if slot != INVALID {
            let b = BlockId(slot);
            let written = self.meta[b.index()].written;
            let left = self.capacity(b) - written;
            // Block capacities are whole wordlines, so `left >= pages` leaves a whole aligned
            // unit after the skip.
            let skip = if left < pages {
                left
            } else if pages == wordline_pages {
                (pages - written % pages) % pages
            } else {
                0
            };
            if skip > 0 {
                if left < pages && self.free[self.pool(self.stream_region(stream), plane)].is_empty() {
                    return None;
                }
                self.skipped_pages += skip as u64;
                for _ in 0..skip {
                    self.allocate(stream, plane, now)?;
                }
            }
        }
        let first = self.allocate(stream, plane, now)?;
        for _ in 1..pages {
            self.allocate(stream, plane, now)?;
        }
        Some(first)
    }

    /// Pages `allocate_run` skipped to start units on a wordline.
    pub fn skipped_pages(&self) -> u64 {
        self.skipped_pages
    }

    #[cold]
    fn seal(&mut self, b: BlockId, now: SimTime) {
        self.meta[b.index()].state = BlockState::Sealed;
        self.sealed_at[b.index()] = now;
        self.seal_seq[b.index()] = self.next_seal_seq;
        let domain = self.block_domain(b);
        self.seal_order[domain].push_back((b, self.next_seal_seq));
        self.next_seal_seq += 1;
        self.buckets.insert(domain, b.0, self.meta[b.index()].valid);
    }

    /// Record that `ppn` now holds `owner`.
    #[inline]
    pub fn set_owner(&mut self, ppn: Ppn, owner: Owner) {
        debug_assert_eq!(self.owner[ppn.index()], INVALID, "programming a page that holds data");
        self.owner[ppn.index()] = owner.encode();
        let b = self.geometry.block_of(ppn);
        let v = self.meta[b.index()].valid;
        if self.meta[b.index()].state == BlockState::Sealed {
            // The last page of a block: `allocate` sealed the block (indexed with the count
            // before this page) before its owner was set.
            self.rebucket(b, v, v + 1);
        }
        self.meta[b.index()].valid = v + 1;
        self.regions[self.meta[b.index()].region.0 as usize].valid_pages += 1;
    }

    /// Move a sealed block from the `from` to the `to` valid-count bucket of its domain.
    #[cold]
    fn rebucket(&mut self, b: BlockId, from: u32, to: u32) {
        let domain = self.block_domain(b);
        self.buckets.remove(domain, b.0, from);
        self.buckets.insert(domain, b.0, to);
    }

    /// The data in `ppn` is stale (overwritten, trimmed or relocated). Returns the region
    /// that held it.
    pub fn invalidate(&mut self, ppn: Ppn) -> RegionId {
        debug_assert_ne!(self.owner[ppn.index()], INVALID, "invalidating a page twice");
        self.owner[ppn.index()] = INVALID;
        self.invalidations += 1;
        let b = self.geometry.block_of(ppn);
        let v = self.meta[b.index()].valid;
        if self.meta[b.index()].state == BlockState::Sealed {
            let domain = self.block_domain(b);
            self.buckets.remove(domain, b.0, v);
            self.buckets.insert(domain, b.0, v - 1);
        }
        self.meta[b.index()].valid = v - 1;
        let r = self.meta[b.index()].region;
        self.regions[r.0 as usize].valid_pages -= 1;
        r
    }

    /// Sealed block of `d` with the fewest valid pages (ties: most recently sealed into that
    /// count).
    pub fn min_valid_sealed(&self, d: DomainId) -> Option<BlockId> {
        self.buckets.min(d.0 as usize).map(|(b, _)| BlockId(b))
    }

    /// Oldest block of `d` still sealed (not yet chosen as a victim).
    pub fn oldest_sealed(&mut self, d: DomainId) -> Option<BlockId> {
        let order = &mut self.seal_order[d.0 as usize];
        while let Some(&(b, seq)) = order.front() {
            if self.meta[b.index()].state == BlockState::Sealed && self.seal_seq[b.index()] == seq {
                return Some(b);
            }
            order.pop_front();
        }
        None
    }

    /// Every sealed block of `d`, in block order.
    pub fn sealed_blocks(&self, d: DomainId) -> impl Iterator<Item = BlockId> + '_ {
        self.meta
            .iter()
            .enumerate()
            .filter(move |(_, m)| m.state == BlockState::Sealed && m.domain == d.0)
            .map(|(i, _)| BlockId(i as u32))
    }

    /// Take a sealed block out of the candidate indexes: GC is emptying it.
    pub fn mark_victim(&mut self, b: BlockId) {
        debug_assert_eq!(self.meta[b.index()].state, BlockState::Sealed, "victim must be sealed, never open");
        let domain = self.block_domain(b);
        self.buckets.remove(domain, b.0, self.meta[b.index()].valid);
        self.meta[b.index()].state = BlockState::Victim;
    }

    /// Valid pages of a block from page `from` on: (page, owner).
    pub fn next_valid_page(&self, b: BlockId, from: u32) -> Option<(Ppn, Owner)> {
        let cap = self.meta[b.index()].written;
        (from..cap).map(|p| self.geometry.ppn(b, p)).find_map(|ppn| self.owner(ppn).map(|o| (ppn, o)))
    }

    /// Erase an emptied victim and return it to its region's free pool in its plane.
    pub fn erase(&mut self, b: BlockId) {
        debug_assert_eq!(self.meta[b.index()].valid, 0, "erasing a block with valid data");
        debug_assert_eq!(self.meta[b.index()].state, BlockState::Victim);
        self.meta[b.index()].state = BlockState::Free;
        self.meta[b.index()].written = 0;
        self.erase_count[b.index()] += 1;
        let r = self.meta[b.index()].region;
        let pool = self.pool(r, self.geometry.plane_of_block(b));
        self.free[pool].push_back(b);
        self.free_total += 1;
        let region = &mut self.regions[r.0 as usize];
        region.free_total += 1;
        if self.free[pool].len() as u32 > region.spec.gc_reserve {
            region.host_free_total += 1;
        }
        self.line_free_changed(r, b, true);
    }

    /// Move one free block of `plane` from region `from` to region `to` (taking it from the
    /// back of the pool: the most recently erased). It will be programmed in `to`'s mode.
    /// Returns the block, or None if `from` has no free block in that plane.
    pub fn move_free_block(&mut self, from: RegionId, to: RegionId, plane: PlaneId) -> Option<BlockId> {
        let src = self.pool(from, plane);
        let before = self.free[src].len() as u32;
        let b = self.free[src].pop_back()?;
        self.line_free_changed(from, b, false);
        if before > self.gc_reserve(from) {
            self.regions[from.0 as usize].host_free_total -= 1;
        }
        let f = &mut self.regions[from.0 as usize];
        f.free_total -= 1;
        f.blocks -= 1;
        let dst = self.pool(to, plane);
        self.free[dst].push_back(b);
        if self.free[dst].len() as u32 > self.gc_reserve(to) {
            self.regions[to.0 as usize].host_free_total += 1;
        }
        let t = &mut self.regions[to.0 as usize];
        t.free_total += 1;
        t.blocks += 1;
        self.meta[b.index()].region = to;
        self.meta[b.index()].mode = t.spec.mode;
        self.meta[b.index()].domain = self.domain_of(to, plane).0;
        self.line_free_changed(to, b, true);
        Some(b)
    }

    /// Pages counted by state: (free, valid, invalid), over the whole device. Pages a block
    /// cannot hold in its mode (the unused part of an SLC-mode block) count as free.
    pub fn page_census(&self) -> (u64, u64, u64) {
        let (mut free, mut valid, mut invalid) = (0u64, 0u64, 0u64);
        for i in 0..self.meta.len() {
            let w = self.meta[i].written as u64;
            let v = self.meta[i].valid as u64;
            free += self.geometry.pages_per_block as u64 - w;
            valid += v;
            invalid += w - v;
        }
        (free, valid, invalid)
    }

    /// Pages the device can hold right now: each block's capacity in its mode.
    pub fn capacity_pages(&self) -> u64 {
        (0..self.meta.len()).map(|i| self.capacity(BlockId(i as u32)) as u64).sum()
    }

    /// Count owners per block from the page table (verify mode's cross-check of `valid`).
    pub fn recount_valid(&self, b: BlockId) -> u32 {
        (0..self.geometry.pages_per_block).filter(|p| self.owner[self.geometry.ppn(b, *p).index()] != INVALID).count()
            as u32
    }

    /// Free blocks of a region counted from its pools (verify mode's cross-check).
    pub fn recount_region_free(&self, r: RegionId) -> (u32, u32) {
        let mut free = 0;
        let mut host_free = 0;
        for p in 0..self.planes {
            let n = self.free[self.pool(r, PlaneId(p))].len() as u32;
            free += n;
            host_free += n.saturating_sub(self.gc_reserve(r));
        }
        (free, host_free)
    }

    pub fn blocks(&self) -> u32 {
        self.meta.len() as u32
    }
}

/// Hand-built block states for the FTL's unit tests (block manager, victim policies, FTL).
#[cfg(test)]
pub(crate) mod test_support {
    use super::{BlockManager, Owner, StreamId, HOST};
    use crate::nand::{CellType, Geometry};
    use crate::units::{BlockId, Lpn, PlaneId, SimTime};

    /// One channel, chip and die; `planes` planes of `blocks_per_plane` blocks of
    /// `pages_per_block` 4 KiB SLC pages (one page type, so no page-type arithmetic).
    pub fn geometry(planes: u32, blocks_per_plane: u32, pages_per_block: u32) -> Geometry {
        Geometry {
            channels: 1,
            chips_per_channel: 1,
            dies_per_chip: 1,
            planes_per_die: planes,
            blocks_per_plane,
            pages_per_block,
            page_bytes: 4096,
            cell: CellType::Slc,
        }
    }

    /// Write `lpns` as `stream` into `plane`, page by page (owners set, as the FTL does), the
    /// last page at `now` (a block filled by it is sealed then). Returns the blocks written.
    pub fn write(
        bm: &mut BlockManager,
        stream: StreamId,
        plane: PlaneId,
        lpns: impl IntoIterator<Item = u32>,
        now: SimTime,
    ) -> Vec<BlockId> {
        let mut written = Vec::new();
        for lpn in lpns {
            let ppn = bm.allocate(stream, plane, now).expect("the plane has room");
            bm.set_owner(ppn, Owner::Data(Lpn(lpn)));
            let b = bm.geometry().block_of(ppn);
            if written.last() != Some(&b) {
                written.push(b);
            }
        }
        written
    }

    /// Fill one host block of `plane` (sealed at `now`), then invalidate all but its first
    /// `valid` pages. Each page's LPN is its own page number (distinct, and all the block
    /// manager needs). The plane's host write point must be at a block boundary.
    pub fn sealed_block(bm: &mut BlockManager, plane: PlaneId, valid: u32, now: SimTime) -> BlockId {
        let ppb = bm.geometry().pages_per_block;
        let mut block = None;
        for _ in 0..ppb {
            let ppn = bm.allocate(HOST, plane, now).expect("the plane has room");
            bm.set_owner(ppn, Owner::Data(Lpn(ppn.0)));
            let b = bm.geometry().block_of(ppn);
            assert!(block.is_none_or(|first| first == b), "the write point was inside a block");
            block = Some(b);
        }
        let b = block.expect("blocks have pages");
        for page in valid..ppb {
            let ppn = bm.geometry().ppn(b, page);
            bm.invalidate(ppn);
        }
        b
    }

    /// Invalidate every valid page of a sealed block, take it as a victim and erase it.
    pub fn empty_and_erase(bm: &mut BlockManager, b: BlockId) {
        for page in 0..bm.written(b) {
            let ppn = bm.geometry().ppn(b, page);
            if bm.owner(ppn).is_some() {
                bm.invalidate(ppn);
            }
        }
        bm.mark_victim(b);
        bm.erase(b);
    }
}

#[cfg(test)]
mod tests {
    use super::test_support::{empty_and_erase, geometry, sealed_block, write};
    use super::*;

    const P0: PlaneId = PlaneId(0);
    const P1: PlaneId = PlaneId(1);

    #[test]
    fn write_points_are_per_stream_and_plane() {
        // 2 planes x 4 blocks x 3 pages: plane 0 holds blocks 0-3, plane 1 blocks 4-7.
        let mut bm = BlockManager::new(geometry(2, 4, 3), 1);
        let g = bm.geometry().clone();
        let at = |b: u32, p: u32| Some(g.ppn(BlockId(b), p));
        assert_eq!(bm.allocate(HOST, P0, 0), at(0, 0));
        assert_eq!(bm.allocate(HOST, P0, 0), at(0, 1));
        // GC opens its own block on the same plane: relocated data does not mix with host data.
        assert_eq!(bm.allocate(GC, P0, 0), at(1, 0));
        assert_eq!(bm.allocate(HOST, P1, 0), at(4, 0));
        assert_eq!(bm.allocate(HOST, P0, 0), at(0, 2));
        assert_eq!(bm.state(BlockId(0)), BlockState::Sealed, "its last page written");
        assert_eq!(bm.allocate(HOST, P0, 0), at(2, 0), "next free block of plane 0");
        assert_eq!(bm.allocate(GC, P0, 0), at(1, 1), "GC continues in its own block");
        for (b, state) in [(1, BlockState::Open), (2, BlockState::Open), (3, BlockState::Free), (4, BlockState::Open)] {
            assert_eq!(bm.state(BlockId(b)), state, "block {b}");
        }
        assert_eq!(bm.written(BlockId(1)), 2);
        assert_eq!(bm.free_blocks(), 4, "blocks 3, 5, 6, 7");
    }

    #[test]
    fn host_writes_leave_each_plane_its_gc_reserve() {
        let mut bm = BlockManager::new(geometry(2, 4, 3), 1);
        assert_eq!((bm.free_blocks(), bm.host_free_blocks()), (8, 6), "one block per plane is GC's");
        // The host fills blocks 0, 1, 2 of plane 0: plane 0 is down to its reserve.
        write(&mut bm, HOST, P0, 0..6, 0);
        assert_eq!((bm.free_blocks(), bm.host_free_blocks()), (6, 4));
        assert!(bm.has_room(HOST, P0, 1), "block 2 is still open");
        write(&mut bm, HOST, P0, 6..9, 0);
        assert_eq!((bm.free_blocks_in(P0), bm.free_blocks(), bm.host_free_blocks()), (1, 5, 3));
        assert!(!bm.has_room(HOST, P0, 1), "only the reserve is left on plane 0");
        assert!(bm.has_room(HOST, P1, 1));
        // GC may take the reserve; that does not change what the host may open.
        assert!(bm.has_room(GC, P0, 0));
        write(&mut bm, GC, P0, 9..10, 0);
        assert_eq!((bm.free_blocks_in(P0), bm.free_blocks(), bm.host_free_blocks()), (0, 4, 3));
        assert_eq!((bm.state(BlockId(3)), bm.written(BlockId(3))), (BlockState::Open, 1));
        assert!(bm.has_room(GC, P0, 0), "GC's open block 3 has pages left");
        assert!(!bm.has_room(HOST, P0, 1), "but the host does not share it");
        // Erasing refills the reserve first; only a block beyond it is the host's again.
        empty_and_erase(&mut bm, BlockId(0));
        assert_eq!((bm.free_blocks(), bm.host_free_blocks()), (5, 3));
        empty_and_erase(&mut bm, BlockId(1));
        assert_eq!((bm.free_blocks(), bm.host_free_blocks()), (6, 4));
        assert!(bm.has_room(HOST, P0, 1));
    }

    #[test]
    fn free_pool_hands_out_the_least_recently_erased_block_first() {
        // One plane of 5 blocks x 2 pages; blocks 0-2 used, then erased in the order 2, 0, 1.
        let mut bm = BlockManager::new(geometry(1, 5, 2), 1);
        write(&mut bm, HOST, P0, 0..6, 0);
        for b in [2, 0, 1] {
            empty_and_erase(&mut bm, BlockId(b));
        }
        // Blocks 3 and 4 (never used) were in the pool before any of them.
        let opened: Vec<u32> = (0..5).map(|i| write(&mut bm, HOST, P0, [10 + 2 * i, 11 + 2 * i], 0)[0].0).collect();
        assert_eq!(opened, [3, 4, 2, 0, 1]);
        assert_eq!(bm.erase_count(BlockId(0)), 1);
        assert_eq!(bm.erase_count(BlockId(3)), 0);
    }

    #[test]
    fn sealed_blocks_queue_in_seal_order_and_a_resealed_block_goes_last() {
        // 2 planes x 4 blocks x 2 pages.
        let mut bm = BlockManager::new(geometry(2, 4, 2), 1);
        let b0 = sealed_block(&mut bm, P0, 2, 10);
        let b4 = sealed_block(&mut bm, P1, 2, 20);
        let b1 = sealed_block(&mut bm, P0, 2, 30);
        assert_eq!((b0.0, b4.0, b1.0), (0, 4, 1));
        assert_eq!((bm.sealed_at(b0), bm.sealed_at(b4), bm.sealed_at(b1)), (10, 20, 30));
        assert_eq!(bm.sealed_blocks(DomainId(0)).map(|b| b.0).collect::<Vec<_>>(), [0, 1, 4], "block order");
        // Block 0 is emptied, erased and (after blocks 2 and 3, earlier in the pool) sealed
        // again, while its first entry is still at the head of the seal queue.
        empty_and_erase(&mut bm, b0);
        let b2 = sealed_block(&mut bm, P0, 2, 40);
        let b3 = sealed_block(&mut bm, P0, 2, 50);
        let again = sealed_block(&mut bm, P0, 2, 60);
        assert_eq!((b2.0, b3.0, again.0), (2, 3, 0));
        let mut order = Vec::new();
        while let Some(b) = bm.oldest_sealed(DomainId(0)) {
            order.push(b.0);
            bm.mark_victim(b);
        }
        assert_eq!(order, [4, 1, 2, 3, 0], "block 0's stale first entry is skipped");
        assert_eq!(bm.sealed_blocks(DomainId(0)).count(), 0, "victims are no longer candidates");
    }

    #[test]
    fn page_census_counts_free_valid_and_invalid_pages() {
        // 2 planes x 4 blocks x 3 pages = 24 pages.
        let mut bm = BlockManager::new(geometry(2, 4, 3), 1);
        assert_eq!(bm.page_census(), (24, 0, 0));
        let blocks = write(&mut bm, HOST, P0, 0..5, 0);
        write(&mut bm, GC, P1, 5..6, 0);
        assert_eq!(blocks, [BlockId(0), BlockId(1)]);
        let g = bm.geometry().clone();
        bm.invalidate(g.ppn(BlockId(0), 1));
        bm.invalidate(g.ppn(BlockId(1), 0));
        // Written 6 (4 valid, 2 invalid); the rest of blocks 1 and 4 and the untouched blocks free.
        assert_eq!(bm.page_census(), (18, 4, 2));
        assert_eq!((bm.valid(BlockId(0)), bm.recount_valid(BlockId(0))), (2, 2));
        assert_eq!((bm.valid(BlockId(1)), bm.recount_valid(BlockId(1))), (1, 1));
        empty_and_erase(&mut bm, BlockId(0));
        assert_eq!(bm.page_census(), (21, 2, 1));
        assert_eq!(bm.next_valid_page(BlockId(1), 0), Some((g.ppn(BlockId(1), 1), Owner::Data(Lpn(4)))));
        assert_eq!(bm.next_valid_page(BlockId(1), 2), None);
    }

    /// 2 planes x 4 blocks x 2 pages in line mode (GC reserve: one line); streams host and gc.
    fn line_manager() -> BlockManager {
        let region = RegionSpec {
            name: "native".into(),
            mode: BlockMode::Native,
            gc_scope: GcScope::Region,
            gc_reserve: 1,
            lines: true,
        };
        let streams = ["host", "gc"].map(|n| StreamSpec { name: n.into(), region: RegionId(0) }).to_vec();
        BlockManager::with_layout(geometry(2, 4, 2), vec![region], streams)
    }

    #[test]
    fn a_line_region_opens_the_same_block_on_every_plane_and_seals_it_whole() {
        let mut bm = line_manager();
        let g = bm.geometry().clone();
        assert_eq!((bm.free_lines(RegionId(0)), bm.line_cursor(HOST)), (4, 0));
        // Row by row: page 0 on plane 0 then plane 1, then page 1. The first allocation takes
        // line 0 (blocks 0 and 4) as a whole.
        assert_eq!(bm.allocate(HOST, P0, 0), Some(g.ppn(BlockId(0), 0)));
        assert_eq!((bm.state(BlockId(4)), bm.free_lines(RegionId(0)), bm.free_blocks()), (BlockState::Open, 3, 6));
        assert_eq!(bm.allocate(HOST, P1, 0), Some(g.ppn(BlockId(4), 0)));
        assert_eq!(bm.allocate(HOST, P0, 0), Some(g.ppn(BlockId(0), 1)));
        assert_eq!(bm.line_cursor(HOST), 3);
        // Block 0 is full but line 0 is not: plane 0 has no room for the stream until the line
        // is used up, and block 0 is not yet a GC candidate.
        assert!(!bm.has_room(HOST, P0, 1));
        assert!(bm.has_room(HOST, P1, 1));
        assert_eq!((bm.state(BlockId(0)), bm.min_valid_sealed(DomainId(0))), (BlockState::Open, None));
        // GC's stream takes its own line (1, the next free one).
        assert_eq!(bm.allocate(GC, P0, 5), Some(g.ppn(BlockId(1), 0)));
        assert_eq!(bm.free_lines(RegionId(0)), 2);
        assert_eq!(bm.allocate(HOST, P1, 7), Some(g.ppn(BlockId(4), 1)));
        for b in [0, 4] {
            assert_eq!((bm.state(BlockId(b)), bm.sealed_at(BlockId(b))), (BlockState::Sealed, 7), "block {b}");
        }
        assert_eq!((bm.sealed_lines(HOST), bm.line_cursor(HOST), bm.line_room(HOST)), (&[0u32][..], 0, 0));
        assert_eq!((bm.line_room(GC), bm.line_cursor(GC)), (3, 1));
        // Free lines 2 and 3: one beyond the host's reserve of one line.
        assert!(bm.has_room(HOST, P0, 1));
        assert_eq!(bm.allocate(HOST, P0, 8), Some(g.ppn(BlockId(2), 0)));
        assert_eq!(bm.free_lines(RegionId(0)), 1);
        assert_eq!(bm.host_free_blocks(), 0, "each plane is down to its reserved block");
    }

    #[test]
    fn a_collected_line_is_free_again_once_every_block_of_it_is_erased() {
        let mut bm = line_manager();
        // Fill line 0 (lpns 0-3), then take it whole as a victim.
        for (k, plane) in [P0, P1, P0, P1].into_iter().enumerate() {
            let ppn = bm.allocate(HOST, plane, 0).unwrap();
            bm.set_owner(ppn, Owner::Data(Lpn(k as u32)));
        }
        assert_eq!(bm.line_census(0), (4, 4));
        bm.invalidate(bm.geometry().ppn(BlockId(4), 0));
        assert_eq!(bm.line_census(0), (3, 4));
        bm.take_sealed_line(HOST, 0);
        assert!(bm.sealed_lines(HOST).is_empty());
        assert_eq!(bm.state(BlockId(0)), BlockState::Victim);
        for b in [BlockId(0), BlockId(4)] {
            for page in 0..2 {
                let ppn = bm.geometry().ppn(b, page);
                if bm.owner(ppn).is_some() {
                    bm.invalidate(ppn);
                }
            }
        }
        bm.erase(BlockId(0));
        assert_eq!(bm.free_lines(RegionId(0)), 3, "half a line is not a free line");
        bm.erase(BlockId(4));
        assert_eq!(bm.free_lines(RegionId(0)), 4);
        // Lines are handed out least recently freed first: 1, 2, 3, then 0.
        let opened: Vec<u32> = (0..4)
            .map(|_| {
                let ppn = bm.allocate(GC, P0, 0).unwrap();
                let b = bm.geometry().block_of(ppn);
                for plane in [P0, P1] {
                    while bm.has_room(GC, plane, 0) && bm.line_cursor(GC) > 0 {
                        bm.allocate(GC, plane, 0).unwrap();
                    }
                }
                b.0
            })
            .collect();
        assert_eq!(opened, [1, 2, 3, 0]);
    }

    #[test]
    fn moving_a_free_block_out_of_a_line_region_breaks_its_line() {
        let slc = RegionSpec {
            name: "slc".into(),
            mode: BlockMode::Slc,
            gc_scope: GcScope::Region,
            gc_reserve: 0,
            lines: false,
        };
        let mut bm = line_manager();
        let streams = vec![StreamSpec { name: "host".into(), region: RegionId(0) }];
        let mut regions = vec![bm.regions[0].spec.clone(), slc];
        regions[0].gc_reserve = 0;
        bm = BlockManager::with_layout(bm.geometry().clone(), regions, streams);
        assert_eq!(bm.free_lines(RegionId(0)), 4);
        // The most recently erased block of plane 1 (its last, block 7 = line 3) leaves.
        assert_eq!(bm.move_free_block(RegionId(0), RegionId(1), P1), Some(BlockId(7)));
        assert_eq!(bm.free_lines(RegionId(0)), 3);
        assert_eq!(bm.move_free_block(RegionId(1), RegionId(0), P1), Some(BlockId(7)));
        assert_eq!(bm.free_lines(RegionId(0)), 4, "whole again");
    }

    #[test]
    fn greedy_index_follows_invalidations_and_ties_go_to_the_latest_arrival() {
        let mut bm = BlockManager::new(geometry(1, 6, 4), 1);
        let b0 = sealed_block(&mut bm, P0, 3, 0);
        let b1 = sealed_block(&mut bm, P0, 2, 0);
        let b2 = sealed_block(&mut bm, P0, 4, 0);
        assert_eq!(bm.min_valid_sealed(DomainId(0)), Some(b1));
        // Block 0 reaches 2 valid pages after block 1 did: among equals the latest arrival wins.
        bm.invalidate(bm.geometry().ppn(b0, 0));
        assert_eq!(bm.min_valid_sealed(DomainId(0)), Some(b0));
        // Open blocks are never candidates, however empty.
        write(&mut bm, HOST, P0, [100], 0);
        bm.invalidate(bm.geometry().ppn(BlockId(3), 0));
        assert_eq!(bm.min_valid_sealed(DomainId(0)), Some(b0));
        bm.mark_victim(b0);
        assert_eq!(bm.min_valid_sealed(DomainId(0)), Some(b1));
        bm.mark_victim(b1);
        assert_eq!(bm.min_valid_sealed(DomainId(0)), Some(b2));
    }
}
