//! Layer: ftl. The per-block state the block manager's parts share: counts, state, mode, region
//! and GC domain of every block (`BlockMeta`), with its erase count and seal time. Every part
//! reads it; the part that owns a transition (a page written, an invalidation, a seal, an erase,
//! a move) changes it.

use crate::nand::BlockMode;
use crate::units::{BlockId, SimTime};

use super::{BlockState, RegionId};

/// The per-block state every page write and invalidation touches, kept together: one cache
/// line fetch per block instead of one per field. A write stream has an open block on every
/// plane, and blocks of different planes lie `blocks_per_plane` entries apart, so with one
/// array per field the open blocks' entries alias in the same cache sets: a fill of a
/// 128-plane device missed L1 about five times per page, two with this layout.
#[derive(Debug, Clone, Copy)]
pub(super) struct BlockMeta {
    pub(super) written: u32,
    pub(super) valid: u32,
    /// GC domain (fixed by its region and plane; cached: read on every invalidation of a
    /// sealed block).
    pub(super) domain: u32,
    pub(super) state: BlockState,
    pub(super) mode: BlockMode,
    pub(super) region: RegionId,
}

/// Every block's `BlockMeta`, erase count and seal time.
#[derive(Clone)]
pub(super) struct BlockTable {
    meta: Vec<BlockMeta>,
    erase_count: Vec<u32>,
    sealed_at: Vec<SimTime>,
}

impl BlockTable {
    pub(super) fn new(meta: Vec<BlockMeta>) -> BlockTable {
        let blocks = meta.len();
        BlockTable { meta, erase_count: vec![0; blocks], sealed_at: vec![0; blocks] }
    }

    #[inline]
    pub(super) fn get(&self, b: BlockId) -> &BlockMeta {
        &self.meta[b.index()]
    }

    #[inline]
    pub(super) fn get_mut(&mut self, b: BlockId) -> &mut BlockMeta {
        &mut self.meta[b.index()]
    }

    #[inline]
    pub(super) fn all(&self) -> &[BlockMeta] {
        &self.meta
    }

    #[inline]
    pub(super) fn erase_count(&self, b: BlockId) -> u32 {
        self.erase_count[b.index()]
    }

    pub(super) fn erase_counts(&self) -> &[u32] {
        &self.erase_count
    }

    #[inline]
    pub(super) fn sealed_at(&self, b: BlockId) -> SimTime {
        self.sealed_at[b.index()]
    }

    /// `b` is full: no longer written, a GC candidate from `now` on.
    #[inline]
    pub(super) fn seal(&mut self, b: BlockId, now: SimTime) {
        self.meta[b.index()].state = BlockState::Sealed;
        self.sealed_at[b.index()] = now;
    }

    /// `b` was erased: free, nothing written, one more erase.
    pub(super) fn erased(&mut self, b: BlockId) {
        debug_assert_eq!(self.meta[b.index()].valid, 0, "erasing a block with valid data");
        debug_assert_eq!(self.meta[b.index()].state, BlockState::Victim);
        self.meta[b.index()].state = BlockState::Free;
        self.meta[b.index()].written = 0;
        self.erase_count[b.index()] += 1;
    }

    /// `b` leaves the free pool as an open block programmed in `mode`.
    #[inline]
    pub(super) fn opened(&mut self, b: BlockId, mode: BlockMode) {
        let m = &mut self.meta[b.index()];
        m.state = BlockState::Open;
        m.mode = mode;
    }

    pub(super) fn len(&self) -> usize {
        self.meta.len()
    }
}
