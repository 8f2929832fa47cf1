//! Layer: ftl. The block manager's regions, their free pools per plane and their modes: free-block counts, erasing a
//! block back into its pool, moving a free block to another region (the SLC cache's resizing).

use super::*;

impl BlockManager {
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

    #[cfg(test)]
    pub fn free_blocks_in(&self, plane: PlaneId) -> u32 {
        (0..self.regions.len()).map(|r| self.free[self.pool(RegionId(r as u8), plane)].len() as u32).sum()
    }

    pub fn region_free_blocks_in(&self, r: RegionId, plane: PlaneId) -> u32 {
        self.free[self.pool(r, plane)].len() as u32
    }

    #[inline]
    pub(super) fn pool(&self, r: RegionId, plane: PlaneId) -> usize {
        r.0 as usize * self.planes as usize + plane.index()
    }

    /// Counters after a block left region `r`'s free pool `pool` (which now holds the rest).
    pub(super) fn took_free_block(&mut self, r: RegionId, pool: usize) {
        self.free_total -= 1;
        let region = &mut self.regions[r.0 as usize];
        region.free_total -= 1;
        if self.free[pool].len() as u32 >= region.spec.gc_reserve {
            region.host_free_total -= 1;
        }
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

    /// Pages the device can hold right now: each block's capacity in its mode.
    pub fn capacity_pages(&self) -> u64 {
        (0..self.meta.len()).map(|i| self.capacity(BlockId(i as u32)) as u64).sum()
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
}
