//! Layer: ftl. The block manager: per-block state, per-page owners (the out-of-band LPN),
//! free pools per plane, open blocks per write stream and plane, and the indexes victim
//! policies query (blocks by valid count, blocks in seal order).
//!
//! Per physical page it keeps one u32 (the owning LPN, or `INVALID`): with the page mapping's
//! forward table that is 8 bytes per page. A page is valid iff it has an owner.

use std::collections::VecDeque;

use crate::nand::{BlockMode, Geometry};
use crate::units::{BlockId, Lpn, PlaneId, Ppn, SimTime};

/// Marks "no owner" in the per-page owner table and "none" in index links.
pub const INVALID: u32 = u32::MAX;

/// Write streams that keep separate open blocks (so GC-relocated cold data does not mix with
/// fresh host data).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stream {
    Host = 0,
    Gc = 1,
}
const STREAMS: usize = 2;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BlockState {
    Free,
    Open,
    /// Fully written; may be chosen as a GC victim.
    Sealed,
    /// Chosen as a GC victim and being emptied.
    Victim,
}

/// Blocks grouped by valid-page count (intrusive doubly linked lists), sealed blocks only.
struct ValidBuckets {
    head: Vec<u32>,
    next: Vec<u32>,
    prev: Vec<u32>,
}

impl ValidBuckets {
    fn new(blocks: usize, max_valid: usize) -> Self {
        ValidBuckets { head: vec![INVALID; max_valid + 1], next: vec![INVALID; blocks], prev: vec![INVALID; blocks] }
    }
    fn insert(&mut self, b: u32, valid: u32) {
        let h = self.head[valid as usize];
        self.next[b as usize] = h;
        self.prev[b as usize] = INVALID;
        if h != INVALID {
            self.prev[h as usize] = b;
        }
        self.head[valid as usize] = b;
    }
    fn remove(&mut self, b: u32, valid: u32) {
        let (p, n) = (self.prev[b as usize], self.next[b as usize]);
        if p != INVALID {
            self.next[p as usize] = n;
        } else {
            self.head[valid as usize] = n;
        }
        if n != INVALID {
            self.prev[n as usize] = p;
        }
    }
    fn min(&self) -> Option<(u32, u32)> {
        self.head.iter().enumerate().find(|(_, &h)| h != INVALID).map(|(v, &h)| (h, v as u32))
    }
}

pub struct BlockManager {
    geometry: Geometry,
    state: Vec<BlockState>,
    mode: Vec<BlockMode>,
    valid: Vec<u32>,
    written: Vec<u32>,
    erase_count: Vec<u32>,
    sealed_at: Vec<SimTime>,
    seal_seq: Vec<u64>,
    next_seal_seq: u64,
    owner: Vec<u32>,
    free: Vec<VecDeque<BlockId>>,
    free_total: u32,
    /// Free blocks per plane that only GC may open (host writes leave them).
    gc_reserve: u32,
    /// Sum over planes of free blocks beyond `gc_reserve`, kept incrementally (read on every
    /// GC decision).
    host_free_total: u32,
    open: [Vec<u32>; STREAMS],
    buckets: ValidBuckets,
    seal_order: VecDeque<(BlockId, u64)>,
}

impl BlockManager {
    /// `gc_reserve`: free blocks per plane kept for GC relocations.
    pub fn new(geometry: Geometry, gc_reserve: u32) -> BlockManager {
        let blocks = geometry.blocks() as usize;
        let planes = geometry.planes() as usize;
        let free = (0..planes as u32)
            .map(|p| {
                let first = geometry.first_block_of(PlaneId(p)).0;
                (first..first + geometry.blocks_per_plane).map(BlockId).collect()
            })
            .collect();
        BlockManager {
            state: vec![BlockState::Free; blocks],
            mode: vec![BlockMode::Native; blocks],
            valid: vec![0; blocks],
            written: vec![0; blocks],
            erase_count: vec![0; blocks],
            sealed_at: vec![0; blocks],
            seal_seq: vec![0; blocks],
            next_seal_seq: 0,
            owner: vec![INVALID; geometry.pages() as usize],
            free,
            free_total: blocks as u32,
            gc_reserve,
            host_free_total: geometry.planes() * geometry.blocks_per_plane.saturating_sub(gc_reserve),
            open: std::array::from_fn(|_| vec![INVALID; planes]),
            buckets: ValidBuckets::new(blocks, geometry.pages_per_block as usize),
            seal_order: VecDeque::new(),
            geometry,
        }
    }

    pub fn geometry(&self) -> &Geometry {
        &self.geometry
    }
    pub fn free_blocks(&self) -> u32 {
        self.free_total
    }
    pub fn gc_reserve(&self) -> u32 {
        self.gc_reserve
    }
    /// Free blocks the host may still open: beyond each plane's GC reserve.
    pub fn host_free_blocks(&self) -> u32 {
        self.host_free_total
    }
    pub fn free_blocks_in(&self, plane: PlaneId) -> u32 {
        self.free[plane.index()].len() as u32
    }
    pub fn state(&self, b: BlockId) -> BlockState {
        self.state[b.index()]
    }
    pub fn mode(&self, b: BlockId) -> BlockMode {
        self.mode[b.index()]
    }
    pub fn valid(&self, b: BlockId) -> u32 {
        self.valid[b.index()]
    }
    pub fn written(&self, b: BlockId) -> u32 {
        self.written[b.index()]
    }
    pub fn capacity(&self, b: BlockId) -> u32 {
        self.geometry.pages_in_mode(self.mode[b.index()])
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
    pub fn owner(&self, ppn: Ppn) -> Option<Lpn> {
        let o = self.owner[ppn.index()];
        (o != INVALID).then_some(Lpn(o))
    }

    /// Bring `ppn`'s owner entry into cache (a hint).
    pub fn touch_owner(&self, ppn: Ppn) {
        if let Some(o) = self.owner.get(ppn.index()) {
            crate::units::prefetch(o);
        }
    }

    /// Whether `stream` can take one more page in `plane` without touching the plane's last
    /// `reserve` free blocks.
    pub fn has_room(&self, stream: Stream, plane: PlaneId, reserve: u32) -> bool {
        let open = self.open[stream as usize][plane.index()];
        (open != INVALID && self.written[open as usize] < self.capacity(BlockId(open)))
            || self.free[plane.index()].len() as u32 > reserve
    }

    /// Next page of `stream`'s open block in `plane`, opening a free block (least recently
    /// erased first) when needed. `None` when the plane has neither.
    pub fn allocate(&mut self, stream: Stream, plane: PlaneId, now: SimTime) -> Option<Ppn> {
        let slot = &mut self.open[stream as usize][plane.index()];
        if *slot == INVALID {
            let b = self.free[plane.index()].pop_front()?;
            self.free_total -= 1;
            if self.free[plane.index()].len() as u32 >= self.gc_reserve {
                self.host_free_total -= 1;
            }
            self.state[b.index()] = BlockState::Open;
            self.mode[b.index()] = BlockMode::Native;
            *slot = b.0;
        }
        let b = BlockId(*slot);
        let page = self.written[b.index()];
        self.written[b.index()] += 1;
        if self.written[b.index()] == self.geometry.pages_in_mode(self.mode[b.index()]) {
            *slot = INVALID;
            self.seal(b, now);
        }
        Some(self.geometry.ppn(b, page))
    }

    fn seal(&mut self, b: BlockId, now: SimTime) {
        self.state[b.index()] = BlockState::Sealed;
        self.sealed_at[b.index()] = now;
        self.seal_seq[b.index()] = self.next_seal_seq;
        self.seal_order.push_back((b, self.next_seal_seq));
        self.next_seal_seq += 1;
        self.buckets.insert(b.0, self.valid[b.index()]);
    }

    /// Record that `ppn` now holds `lpn`.
    pub fn set_owner(&mut self, ppn: Ppn, lpn: Lpn) {
        debug_assert_eq!(self.owner[ppn.index()], INVALID, "programming a page that holds data");
        self.owner[ppn.index()] = lpn.0;
        let b = self.geometry.block_of(ppn);
        let v = self.valid[b.index()];
        if self.state[b.index()] == BlockState::Sealed {
            // The block's last page: `allocate` seals the block before its owner is recorded.
            self.buckets.remove(b.0, v);
            self.buckets.insert(b.0, v + 1);
        }
        self.valid[b.index()] = v + 1;
    }

    /// The data in `ppn` is stale (overwritten, trimmed or relocated).
    pub fn invalidate(&mut self, ppn: Ppn) {
        debug_assert_ne!(self.owner[ppn.index()], INVALID, "invalidating a page twice");
        self.owner[ppn.index()] = INVALID;
        let b = self.geometry.block_of(ppn);
        let v = self.valid[b.index()];
        if self.state[b.index()] == BlockState::Sealed {
            self.buckets.remove(b.0, v);
            self.buckets.insert(b.0, v - 1);
        }
        self.valid[b.index()] = v - 1;
    }

    /// Sealed block with the fewest valid pages (ties: most recently sealed into that count).
    pub fn min_valid_sealed(&self) -> Option<BlockId> {
        self.buckets.min().map(|(b, _)| BlockId(b))
    }

    /// Oldest block still sealed (not yet chosen as a victim).
    pub fn oldest_sealed(&mut self) -> Option<BlockId> {
        while let Some(&(b, seq)) = self.seal_order.front() {
            if self.state[b.index()] == BlockState::Sealed && self.seal_seq[b.index()] == seq {
                return Some(b);
            }
            self.seal_order.pop_front();
        }
        None
    }

    /// Every sealed block, in block order.
    pub fn sealed_blocks(&self) -> impl Iterator<Item = BlockId> + '_ {
        self.state.iter().enumerate().filter(|(_, s)| **s == BlockState::Sealed).map(|(i, _)| BlockId(i as u32))
    }

    /// Take a sealed block out of the candidate indexes: GC is emptying it.
    pub fn mark_victim(&mut self, b: BlockId) {
        debug_assert_eq!(self.state[b.index()], BlockState::Sealed, "victim must be sealed, never open");
        self.buckets.remove(b.0, self.valid[b.index()]);
        self.state[b.index()] = BlockState::Victim;
    }

    /// Valid pages of a block from page `from` on: (page index, owner).
    pub fn next_valid_page(&self, b: BlockId, from: u32) -> Option<(Ppn, Lpn)> {
        let cap = self.written[b.index()];
        (from..cap).map(|p| self.geometry.ppn(b, p)).find_map(|ppn| self.owner(ppn).map(|l| (ppn, l)))
    }

    /// Erase an emptied victim and return it to its plane's free pool.
    pub fn erase(&mut self, b: BlockId) {
        debug_assert_eq!(self.valid[b.index()], 0, "erasing a block with valid data");
        debug_assert_eq!(self.state[b.index()], BlockState::Victim);
        self.state[b.index()] = BlockState::Free;
        self.written[b.index()] = 0;
        self.erase_count[b.index()] += 1;
        let plane = self.geometry.plane_of_block(b);
        self.free[plane.index()].push_back(b);
        self.free_total += 1;
        if self.free[plane.index()].len() as u32 > self.gc_reserve {
            self.host_free_total += 1;
        }
    }

    /// Pages counted by state: (free, valid, invalid), over the whole device.
    pub fn page_census(&self) -> (u64, u64, u64) {
        let (mut free, mut valid, mut invalid) = (0u64, 0u64, 0u64);
        for i in 0..self.state.len() {
            let b = BlockId(i as u32);
            let w = self.written[i] as u64;
            let v = self.valid[i] as u64;
            // Pages beyond the mode's capacity (SLC mode) count as free.
            free += self.geometry.pages_per_block as u64 - w;
            valid += v;
            invalid += w - v;
            debug_assert!(self.written(b) <= self.geometry.pages_per_block);
        }
        (free, valid, invalid)
    }

    /// Count owners per block from the page table (verify mode's cross-check of `valid`).
    pub fn recount_valid(&self, b: BlockId) -> u32 {
        (0..self.geometry.pages_per_block).filter(|p| self.owner[self.geometry.ppn(b, *p).index()] != INVALID).count()
            as u32
    }

    pub fn blocks(&self) -> u32 {
        self.state.len() as u32
    }
}

/// Hand-built block states for the FTL's unit tests (block manager, victim policies, FTL).
#[cfg(test)]
pub(crate) mod test_support {
    use super::{BlockManager, Stream};
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
        stream: Stream,
        plane: PlaneId,
        lpns: impl IntoIterator<Item = u32>,
        now: SimTime,
    ) -> Vec<BlockId> {
        let mut written = Vec::new();
        for lpn in lpns {
            let ppn = bm.allocate(stream, plane, now).expect("the plane has room");
            bm.set_owner(ppn, Lpn(lpn));
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
            let ppn = bm.allocate(Stream::Host, plane, now).expect("the plane has room");
            bm.set_owner(ppn, Lpn(ppn.0));
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
        assert_eq!(bm.allocate(Stream::Host, P0, 0), at(0, 0));
        assert_eq!(bm.allocate(Stream::Host, P0, 0), at(0, 1));
        // GC opens its own block on the same plane: relocated data does not mix with host data.
        assert_eq!(bm.allocate(Stream::Gc, P0, 0), at(1, 0));
        assert_eq!(bm.allocate(Stream::Host, P1, 0), at(4, 0));
        assert_eq!(bm.allocate(Stream::Host, P0, 0), at(0, 2));
        assert_eq!(bm.state(BlockId(0)), BlockState::Sealed, "its last page written");
        assert_eq!(bm.allocate(Stream::Host, P0, 0), at(2, 0), "next free block of plane 0");
        assert_eq!(bm.allocate(Stream::Gc, P0, 0), at(1, 1), "GC continues in its own block");
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
        write(&mut bm, Stream::Host, P0, 0..6, 0);
        assert_eq!((bm.free_blocks(), bm.host_free_blocks()), (6, 4));
        assert!(bm.has_room(Stream::Host, P0, 1), "block 2 is still open");
        write(&mut bm, Stream::Host, P0, 6..9, 0);
        assert_eq!((bm.free_blocks_in(P0), bm.free_blocks(), bm.host_free_blocks()), (1, 5, 3));
        assert!(!bm.has_room(Stream::Host, P0, 1), "only the reserve is left on plane 0");
        assert!(bm.has_room(Stream::Host, P1, 1));
        // GC may take the reserve; that does not change what the host may open.
        assert!(bm.has_room(Stream::Gc, P0, 0));
        write(&mut bm, Stream::Gc, P0, 9..10, 0);
        assert_eq!((bm.free_blocks_in(P0), bm.free_blocks(), bm.host_free_blocks()), (0, 4, 3));
        assert_eq!((bm.state(BlockId(3)), bm.written(BlockId(3))), (BlockState::Open, 1));
        assert!(bm.has_room(Stream::Gc, P0, 0), "GC's open block 3 has pages left");
        assert!(!bm.has_room(Stream::Host, P0, 1), "but the host does not share it");
        // Erasing refills the reserve first; only a block beyond it is the host's again.
        empty_and_erase(&mut bm, BlockId(0));
        assert_eq!((bm.free_blocks(), bm.host_free_blocks()), (5, 3));
        empty_and_erase(&mut bm, BlockId(1));
        assert_eq!((bm.free_blocks(), bm.host_free_blocks()), (6, 4));
        assert!(bm.has_room(Stream::Host, P0, 1));
    }

    #[test]
    fn free_pool_hands_out_the_least_recently_erased_block_first() {
        // One plane of 5 blocks x 2 pages; blocks 0-2 used, then erased in the order 2, 0, 1.
        let mut bm = BlockManager::new(geometry(1, 5, 2), 1);
        write(&mut bm, Stream::Host, P0, 0..6, 0);
        for b in [2, 0, 1] {
            empty_and_erase(&mut bm, BlockId(b));
        }
        // Blocks 3 and 4 (never used) were in the pool before any of them.
        let opened: Vec<u32> =
            (0..5).map(|i| write(&mut bm, Stream::Host, P0, [10 + 2 * i, 11 + 2 * i], 0)[0].0).collect();
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
        assert_eq!(bm.sealed_blocks().map(|b| b.0).collect::<Vec<_>>(), [0, 1, 4], "block order");
        // Block 0 is emptied, erased and (after blocks 2 and 3, earlier in the pool) sealed
        // again, while its first entry is still at the head of the seal queue.
        empty_and_erase(&mut bm, b0);
        let b2 = sealed_block(&mut bm, P0, 2, 40);
        let b3 = sealed_block(&mut bm, P0, 2, 50);
        let again = sealed_block(&mut bm, P0, 2, 60);
        assert_eq!((b2.0, b3.0, again.0), (2, 3, 0));
        let mut order = Vec::new();
        while let Some(b) = bm.oldest_sealed() {
            order.push(b.0);
            bm.mark_victim(b);
        }
        assert_eq!(order, [4, 1, 2, 3, 0], "block 0's stale first entry is skipped");
        assert_eq!(bm.sealed_blocks().count(), 0, "victims are no longer candidates");
    }

    #[test]
    fn page_census_counts_free_valid_and_invalid_pages() {
        // 2 planes x 4 blocks x 3 pages = 24 pages.
        let mut bm = BlockManager::new(geometry(2, 4, 3), 1);
        assert_eq!(bm.page_census(), (24, 0, 0));
        let blocks = write(&mut bm, Stream::Host, P0, 0..5, 0);
        write(&mut bm, Stream::Gc, P1, 5..6, 0);
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
        assert_eq!(bm.next_valid_page(BlockId(1), 0), Some((g.ppn(BlockId(1), 1), Lpn(4))));
        assert_eq!(bm.next_valid_page(BlockId(1), 2), None);
    }

    #[test]
    fn greedy_index_follows_invalidations_and_ties_go_to_the_latest_arrival() {
        let mut bm = BlockManager::new(geometry(1, 6, 4), 1);
        let b0 = sealed_block(&mut bm, P0, 3, 0);
        let b1 = sealed_block(&mut bm, P0, 2, 0);
        let b2 = sealed_block(&mut bm, P0, 4, 0);
        assert_eq!(bm.min_valid_sealed(), Some(b1));
        // Block 0 reaches 2 valid pages after block 1 did: among equals the latest arrival wins.
        bm.invalidate(bm.geometry().ppn(b0, 0));
        assert_eq!(bm.min_valid_sealed(), Some(b0));
        // Open blocks are never candidates, however empty.
        write(&mut bm, Stream::Host, P0, [100], 0);
        bm.invalidate(bm.geometry().ppn(BlockId(3), 0));
        assert_eq!(bm.min_valid_sealed(), Some(b0));
        bm.mark_victim(b0);
        assert_eq!(bm.min_valid_sealed(), Some(b1));
        bm.mark_victim(b1);
        assert_eq!(bm.min_valid_sealed(), Some(b2));
    }
}
