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
//! Parts, each a struct of its own with its own methods, over the shared per-block state
//! (`meta.rs`: `BlockTable`): the owner table (`owners.rs`), the free pools with the region
//! table and free lines (`pools.rs`, `lines.rs`), the stream table with open blocks and lines
//! (`streams.rs`, `lines.rs`) and the victim index (`victims.rs`). `BlockManager` is the facade
//! the FTL uses: this file holds the types, construction and the queries; `transitions.rs` the
//! operations that change several parts at once (a page written, an owner set or cleared, a
//! seal, an erase, a move between regions, a victim taken), so the parts stay consistent.

use crate::nand::{BlockMode, Geometry};
use crate::units::{BlockId, Lpn, PlaneId, Ppn, SimTime};

mod lines;
mod meta;
mod owners;
mod pools;
mod streams;
mod transitions;
mod victims;

use meta::{BlockMeta, BlockTable};
use owners::OwnerTable;
use pools::FreePools;
use streams::StreamTable;
use victims::VictimIndex;

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

/// The facade over the parts: every FTL unit asks it, and it keeps the parts consistent with
/// each other (`transitions.rs`).
#[derive(Clone)]
pub struct BlockManager {
    geometry: Geometry,
    planes: u32,
    blocks: BlockTable,
    owners: OwnerTable,
    pools: FreePools,
    streams: StreamTable,
    victims: VictimIndex,
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
        let any_lines = region_specs.iter().any(|r| r.lines);
        let (pools, domains) = FreePools::new(&geometry, region_specs);
        // Region 0 holds every block at start: its domain, or its plane's.
        let native = RegionId(0);
        let meta = (0..blocks as u32)
            .map(|b| BlockMeta {
                written: 0,
                valid: 0,
                domain: pools.domain_of(native, geometry.plane_of_block(BlockId(b))).0,
                state: BlockState::Free,
                mode: pools.spec(native).mode,
                region: native,
            })
            .collect();
        BlockManager {
            planes: geometry.planes(),
            blocks: BlockTable::new(meta),
            owners: OwnerTable::new(geometry.pages() as usize),
            streams: StreamTable::new(streams, &geometry, any_lines),
            victims: VictimIndex::new(blocks, geometry.pages_per_block as usize, domains as usize),
            pools,
            geometry,
        }
    }

    pub fn geometry(&self) -> &Geometry {
        &self.geometry
    }
    pub fn state(&self, b: BlockId) -> BlockState {
        self.blocks.get(b).state
    }
    pub fn mode(&self, b: BlockId) -> BlockMode {
        self.blocks.get(b).mode
    }
    pub fn region(&self, b: BlockId) -> RegionId {
        self.blocks.get(b).region
    }
    pub fn valid(&self, b: BlockId) -> u32 {
        self.blocks.get(b).valid
    }
    pub fn written(&self, b: BlockId) -> u32 {
        self.blocks.get(b).written
    }
    pub fn capacity(&self, b: BlockId) -> u32 {
        self.geometry.pages_in_mode(self.blocks.get(b).mode)
    }
    pub fn erase_count(&self, b: BlockId) -> u32 {
        self.blocks.erase_count(b)
    }
    pub fn erase_counts(&self) -> &[u32] {
        self.blocks.erase_counts()
    }
    pub fn sealed_at(&self, b: BlockId) -> SimTime {
        self.blocks.sealed_at(b)
    }

    pub fn blocks(&self) -> u32 {
        self.blocks.len() as u32
    }

    /// Pages the device can hold right now: each block's capacity in its mode.
    pub fn capacity_pages(&self) -> u64 {
        (0..self.blocks.len()).map(|i| self.capacity(BlockId(i as u32)) as u64).sum()
    }

    // The owner table.

    pub fn owner(&self, ppn: Ppn) -> Option<Owner> {
        self.owners.get(ppn)
    }

    /// The LPN a page holds, if it holds host data.
    pub fn data_owner(&self, ppn: Ppn) -> Option<Lpn> {
        self.owner(ppn).and_then(Owner::lpn)
    }

    /// Bring `ppn`'s owner entry into cache (a hint).
    pub fn touch_owner(&self, ppn: Ppn) {
        self.owners.touch(ppn);
    }

    /// Valid pages of a block from page `from` on: (page, owner).
    pub fn next_valid_page(&self, b: BlockId, from: u32) -> Option<(Ppn, Owner)> {
        let cap = self.blocks.get(b).written;
        (from..cap).map(|p| self.geometry.ppn(b, p)).find_map(|ppn| self.owner(ppn).map(|o| (ppn, o)))
    }

    /// Pages counted by state: (free, valid, invalid), over the whole device. Pages a block
    /// cannot hold in its mode (the unused part of an SLC-mode block) count as free.
    pub fn page_census(&self) -> (u64, u64, u64) {
        let (mut free, mut valid, mut invalid) = (0u64, 0u64, 0u64);
        for m in self.blocks.all() {
            let w = m.written as u64;
            let v = m.valid as u64;
            free += self.geometry.pages_per_block as u64 - w;
            valid += v;
            invalid += w - v;
        }
        (free, valid, invalid)
    }

    /// Count owners per block from the page table (verify mode's cross-check of `valid`).
    pub fn recount_valid(&self, b: BlockId) -> u32 {
        self.owners.count_in(&self.geometry, b)
    }

    /// Pages invalidated since the start (never reset).
    pub fn invalidations(&self) -> u64 {
        self.owners.invalidations()
    }

    // The free pools.

    pub fn free_blocks(&self) -> u32 {
        self.pools.free_total()
    }

    /// The GC reserve per plane of region `r`.
    pub fn gc_reserve(&self, r: RegionId) -> u32 {
        self.pools.gc_reserve(r)
    }

    /// Free blocks the host may still open in region 0: beyond each plane's GC reserve.
    pub fn host_free_blocks(&self) -> u32 {
        self.pools.region_host_free(RegionId(0))
    }

    pub fn regions(&self) -> usize {
        self.pools.regions()
    }

    pub fn region_spec(&self, r: RegionId) -> &RegionSpec {
        self.pools.spec(r)
    }

    pub fn region_free_blocks(&self, r: RegionId) -> u32 {
        self.pools.region_free(r)
    }

    /// Free blocks of a region beyond each plane's GC reserve.
    pub fn region_host_free_blocks(&self, r: RegionId) -> u32 {
        self.pools.region_host_free(r)
    }

    /// Pages of region `r` holding data (host data and translation pages).
    pub fn region_valid_pages(&self, r: RegionId) -> u64 {
        self.pools.valid_pages(r)
    }

    /// Pages a block of region `r` holds (its mode's).
    pub fn region_block_pages(&self, r: RegionId) -> u32 {
        self.pools.block_pages(r)
    }

    /// Blocks of a region, in any state.
    pub fn region_blocks(&self, r: RegionId) -> u32 {
        self.pools.region_blocks(r)
    }

    #[cfg(test)]
    pub fn free_blocks_in(&self, plane: PlaneId) -> u32 {
        (0..self.pools.regions()).map(|r| self.pools.free_in(RegionId(r as u8), plane)).sum()
    }

    pub fn region_free_blocks_in(&self, r: RegionId, plane: PlaneId) -> u32 {
        self.pools.free_in(r, plane)
    }

    /// Free blocks of a region counted from its pools (verify mode's cross-check).
    pub fn recount_region_free(&self, r: RegionId) -> (u32, u32) {
        self.pools.recount_region_free(r)
    }

    /// Whether region `r` opens blocks a line at a time.
    pub fn is_line_region(&self, r: RegionId) -> bool {
        self.pools.is_line_region(r)
    }

    /// Lines of region `r` free on every plane (0 outside line mode).
    pub fn free_lines(&self, r: RegionId) -> u32 {
        self.pools.free_lines(r)
    }

    // GC domains and the victim index.

    /// Whether each plane of region `r` is a GC domain of its own.
    pub fn domain_is_plane(&self, r: RegionId) -> bool {
        self.pools.domain_is_plane(r)
    }

    /// The GC domain of a block of region `r` in `plane`.
    pub fn domain_of(&self, r: RegionId, plane: PlaneId) -> DomainId {
        self.pools.domain_of(r, plane)
    }

    #[inline]
    fn block_domain(&self, b: BlockId) -> usize {
        self.blocks.get(b).domain as usize
    }

    /// Free blocks of a domain (its region's, or its plane's in a per-plane region).
    pub fn domain_free_blocks(&self, r: RegionId, d: DomainId) -> u32 {
        self.pools.domain_free_blocks(r, d)
    }

    /// Sealed block of `d` with the fewest valid pages (ties: most recently sealed into that
    /// count).
    pub fn min_valid_sealed(&self, d: DomainId) -> Option<BlockId> {
        self.victims.min_valid(d)
    }

    /// Oldest block of `d` still sealed (not yet chosen as a victim).
    pub fn oldest_sealed(&mut self, d: DomainId) -> Option<BlockId> {
        self.victims.oldest(d, &self.blocks)
    }

    /// Every sealed block of `d`, in block order.
    pub fn sealed_blocks(&self, d: DomainId) -> impl Iterator<Item = BlockId> + '_ {
        self.blocks
            .all()
            .iter()
            .enumerate()
            .filter(move |(_, m)| m.state == BlockState::Sealed && m.domain == d.0)
            .map(|(i, _)| BlockId(i as u32))
    }

    // The stream table.

    pub fn streams(&self) -> &[StreamSpec] {
        self.streams.specs()
    }

    #[inline]
    pub fn stream_region(&self, s: StreamId) -> RegionId {
        self.streams.region(s)
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
        if self.streams.any_lines() && self.is_line_stream(stream) {
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
        let open = self.streams.open_block(stream, plane);
        if open != INVALID && self.pools.block_pages(region) - self.blocks.get(BlockId(open)).written >= pages.max(1) {
            return true;
        }
        self.pools.free_in(region, plane) > reserve
    }

    /// `room_for` of a stream in line mode: its open line's block on `plane`, or a new line
    /// once the open one is used up on every plane (`reserve` counts lines).
    pub(crate) fn room_for_line(&self, stream: StreamId, plane: PlaneId, pages: u32, reserve: u32) -> bool {
        let region = self.stream_region(stream);
        let open = self.streams.open_block(stream, plane);
        if open != INVALID && self.pools.block_pages(region) - self.blocks.get(BlockId(open)).written >= pages.max(1) {
            return true;
        }
        self.streams.open_line_blocks(stream) == 0 && self.pools.free_lines(region) > reserve
    }

    /// Pages `allocate_run` skipped to start units on a wordline.
    pub fn skipped_pages(&self) -> u64 {
        self.streams.skipped_pages()
    }

    /// Whether `stream` writes to a line-mode region.
    #[inline]
    pub fn is_line_stream(&self, stream: StreamId) -> bool {
        self.streams.any_lines() && self.is_line_region(self.stream_region(stream))
    }

    /// The blocks of line `index` (block `index` of every plane), in plane order.
    pub fn line_blocks(&self, index: u32) -> impl Iterator<Item = BlockId> + '_ {
        (0..self.planes).map(move |p| BlockId(self.geometry.first_block_of(PlaneId(p)).0 + index))
    }

    /// Pages allocated in `stream`'s open line (0 when it has none), for a stream written row
    /// by row (page k of the line on the plane at position k mod planes in channel-first
    /// order): its blocks then hold w pages up to some position and w - 1 after it.
    pub fn line_cursor(&self, stream: StreamId) -> u32 {
        self.streams.line_cursor(stream, &self.geometry, &self.blocks)
    }

    /// Whether `stream` has an open line (its next page does not open one).
    #[inline]
    pub fn has_open_line(&self, stream: StreamId) -> bool {
        self.streams.has_open_line(stream)
    }

    /// Pages `stream`'s open line can still take (0 when it has none).
    pub fn line_room(&self, stream: StreamId) -> u32 {
        let index = self.streams.open_line(stream);
        if index == INVALID {
            return 0;
        }
        self.line_blocks(index)
            .map(|b| {
                let m = self.blocks.get(b);
                self.pools.block_pages(m.region) - m.written
            })
            .sum()
    }

    /// Lines sealed since the start (never reset).
    pub fn lines_sealed(&self) -> u64 {
        self.streams.lines_sealed()
    }

    /// Block indices of `stream`'s sealed lines, in seal order.
    pub fn sealed_lines(&self, stream: StreamId) -> &[u32] {
        self.streams.sealed_lines(stream)
    }

    /// Valid pages and capacity of line `index`.
    pub fn line_census(&self, index: u32) -> (u32, u32) {
        self.line_blocks(index).fold((0, 0), |(v, c), b| (v + self.valid(b), c + self.capacity(b)))
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
mod tests;
