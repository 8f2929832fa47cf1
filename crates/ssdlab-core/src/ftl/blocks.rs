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
            // Only happens if a page is written after sealing, which allocation prevents.
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
