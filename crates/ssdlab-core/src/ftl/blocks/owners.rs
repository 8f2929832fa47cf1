//! Layer: ftl. The block manager's the page owners: the out-of-band table, one `u32` per physical page (`Owner`), and what
//! writing, invalidating and reading it does to the block's counts and indexes.

use super::*;

impl BlockManager {
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
    pub(super) fn rebucket(&mut self, b: BlockId, from: u32, to: u32) {
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

    /// Valid pages of a block from page `from` on: (page, owner).
    pub fn next_valid_page(&self, b: BlockId, from: u32) -> Option<(Ppn, Owner)> {
        let cap = self.meta[b.index()].written;
        (from..cap).map(|p| self.geometry.ppn(b, p)).find_map(|ppn| self.owner(ppn).map(|o| (ppn, o)))
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

    /// Count owners per block from the page table (verify mode's cross-check of `valid`).
    pub fn recount_valid(&self, b: BlockId) -> u32 {
        (0..self.geometry.pages_per_block).filter(|p| self.owner[self.geometry.ppn(b, *p).index()] != INVALID).count()
            as u32
    }
}
