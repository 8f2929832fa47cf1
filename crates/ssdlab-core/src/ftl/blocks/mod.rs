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
//!
//! One file per job, each an `impl BlockManager` over the state defined here: `owners.rs`,
//! `pools.rs` (regions, free pools, modes), `streams.rs`, `victims.rs`, `lines.rs`. This file
//! holds the types, the per-block state, construction and the per-block getters.

use std::collections::VecDeque;

use crate::nand::{BlockMode, Geometry};
use crate::units::{BlockId, Lpn, PlaneId, Ppn, SimTime};

mod lines;
mod owners;
mod pools;
mod streams;
mod victims;

use lines::{FreeLines, StreamLine};
use victims::ValidBuckets;

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
