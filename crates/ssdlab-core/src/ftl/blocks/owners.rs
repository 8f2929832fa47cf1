//! Layer: ftl. The owner table: the out-of-band area, one `u32` per physical page (`Owner`
//! encoded), and the count of invalidations since the start. What a page write or invalidation
//! does to the block's counts and indexes is the block manager's (`transitions.rs`).

use crate::nand::Geometry;
use crate::units::{BlockId, Ppn};

use super::{Owner, INVALID};

#[derive(Clone)]
pub(super) struct OwnerTable {
    owner: Vec<u32>,
    /// Pages invalidated since the start: with it line-mode background GC knows when no line
    /// can have reached its victim's bar yet (`Ftl::line_gc_wait`).
    invalidations: u64,
}

impl OwnerTable {
    pub(super) fn new(pages: usize) -> OwnerTable {
        OwnerTable { owner: vec![INVALID; pages], invalidations: 0 }
    }

    #[inline]
    pub(super) fn get(&self, ppn: Ppn) -> Option<Owner> {
        Owner::decode(self.owner[ppn.index()])
    }

    /// Bring `ppn`'s entry into cache (a hint).
    pub(super) fn touch(&self, ppn: Ppn) {
        if let Some(o) = self.owner.get(ppn.index()) {
            crate::units::prefetch(o);
        }
    }

    /// `ppn` now holds `owner` (it held nothing).
    #[inline]
    pub(super) fn set(&mut self, ppn: Ppn, owner: Owner) {
        debug_assert_eq!(self.owner[ppn.index()], INVALID, "programming a page that holds data");
        self.owner[ppn.index()] = owner.encode();
    }

    /// `ppn` holds nothing any more (it held something).
    #[inline]
    pub(super) fn clear(&mut self, ppn: Ppn) {
        debug_assert_ne!(self.owner[ppn.index()], INVALID, "invalidating a page twice");
        self.owner[ppn.index()] = INVALID;
        self.invalidations += 1;
    }

    pub(super) fn invalidations(&self) -> u64 {
        self.invalidations
    }

    /// Pages of `b` with an owner (verify mode's cross-check of the block's valid count).
    pub(super) fn count_in(&self, geometry: &Geometry, b: BlockId) -> u32 {
        (0..geometry.pages_per_block).filter(|p| self.owner[geometry.ppn(b, *p).index()] != INVALID).count() as u32
    }
}
