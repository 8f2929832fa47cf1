//! Layer: ftl. The free pools: the region table (spec, mode's block size, GC domains, counters)
//! and each region's free blocks per plane, least recently erased first, with line mode's free
//! lines. Taking a block out, putting an erased one back, moving a free block to another region
//! (the SLC cache's resizing) and the free-block counts those keep.

use std::collections::VecDeque;

use crate::nand::Geometry;
use crate::units::{BlockId, PlaneId};

use super::lines::FreeLines;
use super::{DomainId, GcScope, RegionId, RegionSpec};

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

#[derive(Clone)]
pub(super) struct FreePools {
    regions: Vec<Region>,
    /// Free pools, `free[region * planes + plane]`, least recently erased first.
    free: Vec<VecDeque<BlockId>>,
    free_total: u32,
    planes: u32,
}

impl FreePools {
    /// The regions as declared, the first holding every block of `geometry` (free); and the
    /// number of GC domains they make.
    pub(super) fn new(geometry: &Geometry, region_specs: Vec<RegionSpec>) -> (FreePools, u32) {
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
            let lines = spec.lines.then(|| FreeLines::new(geometry.blocks_per_plane));
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
        let blocks = geometry.blocks();
        regions[0].free_total = blocks;
        regions[0].blocks = blocks;
        regions[0].host_free_total = planes * geometry.blocks_per_plane.saturating_sub(regions[0].spec.gc_reserve);
        if let Some(lines) = &mut regions[0].lines {
            lines.fill(planes, geometry.blocks_per_plane);
        }
        (FreePools { regions, free, free_total: blocks, planes }, domains)
    }

    #[inline]
    fn pool(&self, r: RegionId, plane: PlaneId) -> usize {
        r.0 as usize * self.planes as usize + plane.index()
    }

    #[inline]
    fn region(&self, r: RegionId) -> &Region {
        &self.regions[r.0 as usize]
    }

    pub(super) fn regions(&self) -> usize {
        self.regions.len()
    }

    pub(super) fn spec(&self, r: RegionId) -> &RegionSpec {
        &self.region(r).spec
    }

    pub(super) fn free_total(&self) -> u32 {
        self.free_total
    }

    pub(super) fn gc_reserve(&self, r: RegionId) -> u32 {
        self.region(r).spec.gc_reserve
    }

    pub(super) fn region_free(&self, r: RegionId) -> u32 {
        self.region(r).free_total
    }

    pub(super) fn region_host_free(&self, r: RegionId) -> u32 {
        self.region(r).host_free_total
    }

    pub(super) fn region_blocks(&self, r: RegionId) -> u32 {
        self.region(r).blocks
    }

    pub(super) fn valid_pages(&self, r: RegionId) -> u64 {
        self.region(r).valid_pages
    }

    /// A page of region `r` now holds data.
    #[inline]
    pub(super) fn page_validated(&mut self, r: RegionId) {
        self.regions[r.0 as usize].valid_pages += 1;
    }

    /// A page of region `r` no longer holds data.
    #[inline]
    pub(super) fn page_invalidated(&mut self, r: RegionId) {
        self.regions[r.0 as usize].valid_pages -= 1;
    }

    /// Pages a block of region `r` holds (its mode's).
    #[inline]
    pub(super) fn block_pages(&self, r: RegionId) -> u32 {
        self.region(r).block_pages
    }

    /// Free blocks of region `r` in `plane`.
    #[inline]
    pub(super) fn free_in(&self, r: RegionId, plane: PlaneId) -> u32 {
        self.free[self.pool(r, plane)].len() as u32
    }

    pub(super) fn is_line_region(&self, r: RegionId) -> bool {
        self.region(r).lines.is_some()
    }

    /// Lines of region `r` free on every plane (0 outside line mode).
    #[inline]
    pub(super) fn free_lines(&self, r: RegionId) -> u32 {
        self.region(r).lines.as_ref().map_or(0, |l| l.count())
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

    /// Take the least recently erased free block of region `r` in `plane` (outside line mode).
    pub(super) fn take_front(&mut self, r: RegionId, plane: PlaneId) -> Option<BlockId> {
        let pool = self.pool(r, plane);
        let b = self.free[pool].pop_front()?;
        self.took_free_block(r, pool);
        Some(b)
    }

    /// Take the least recently freed line of line-mode region `r` (its block index), without
    /// its blocks: `take_line_block` takes each.
    pub(super) fn take_free_line(&mut self, r: RegionId) -> Option<u32> {
        let planes = self.planes;
        self.regions[r.0 as usize].lines.as_mut().expect("a line-mode region").take(planes)
    }

    /// Take free block `b` of a line of region `r` out of its pool in `plane`.
    pub(super) fn take_line_block(&mut self, r: RegionId, plane: PlaneId, b: BlockId) {
        let pool = self.pool(r, plane);
        let at = self.free[pool].iter().position(|&f| f == b).expect("a free line's block is in its pool");
        self.free[pool].remove(at);
        self.took_free_block(r, pool);
    }

    /// Erased block `b` of region `r` returns to its pool in its plane.
    pub(super) fn put_back(&mut self, geometry: &Geometry, r: RegionId, b: BlockId) {
        let pool = self.pool(r, geometry.plane_of_block(b));
        self.free[pool].push_back(b);
        self.free_total += 1;
        let region = &mut self.regions[r.0 as usize];
        region.free_total += 1;
        if self.free[pool].len() as u32 > region.spec.gc_reserve {
            region.host_free_total += 1;
        }
        self.line_free_changed(geometry, r, b, true);
    }

    /// Move the most recently erased free block of `plane` from region `from` to `to`; None if
    /// `from` has none there.
    pub(super) fn move_block(
        &mut self,
        geometry: &Geometry,
        from: RegionId,
        to: RegionId,
        plane: PlaneId,
    ) -> Option<BlockId> {
        let src = self.pool(from, plane);
        let before = self.free[src].len() as u32;
        let b = self.free[src].pop_back()?;
        self.line_free_changed(geometry, from, b, false);
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
        self.line_free_changed(geometry, to, b, true);
        Some(b)
    }

    /// Line mode: block `b` of region `r` became free (`true`) or stopped being free.
    fn line_free_changed(&mut self, geometry: &Geometry, r: RegionId, b: BlockId, free: bool) {
        let planes = self.planes;
        if let Some(lines) = &mut self.regions[r.0 as usize].lines {
            lines.block_changed(geometry.block_in_plane(b), planes, free);
        }
    }

    /// Free blocks of a region counted from its pools (verify mode's cross-check).
    pub(super) fn recount_region_free(&self, r: RegionId) -> (u32, u32) {
        let mut free = 0;
        let mut host_free = 0;
        for p in 0..self.planes {
            let n = self.free_in(r, PlaneId(p));
            free += n;
            host_free += n.saturating_sub(self.gc_reserve(r));
        }
        (free, host_free)
    }

    /// Whether each plane of region `r` is a GC domain of its own.
    pub(super) fn domain_is_plane(&self, r: RegionId) -> bool {
        self.region(r).spec.gc_scope == GcScope::Plane
    }

    /// The GC domain of a block of region `r` in `plane`.
    pub(super) fn domain_of(&self, r: RegionId, plane: PlaneId) -> DomainId {
        let region = self.region(r);
        match region.spec.gc_scope {
            GcScope::Region => DomainId(region.first_domain),
            GcScope::Plane => DomainId(region.first_domain + plane.0),
        }
    }

    /// Free blocks of a domain (its region's, or its plane's in a per-plane region).
    pub(super) fn domain_free_blocks(&self, r: RegionId, d: DomainId) -> u32 {
        let region = self.region(r);
        match region.spec.gc_scope {
            GcScope::Region => region.free_total,
            GcScope::Plane => self.free_in(r, PlaneId(d.0 - region.first_domain)),
        }
    }
}
