//! Layer: ftl. The block manager's victim indexes per GC domain: sealed blocks by valid count (`ValidBuckets`)
//! and in seal order, and marking a victim.

use super::*;

/// Sealed blocks grouped by valid-page count (intrusive doubly linked lists), per domain.
#[derive(Clone)]
pub(super) struct ValidBuckets {
    /// `head[domain * (max_valid + 1) + valid]`.
    pub(super) head: Vec<u32>,
    pub(super) next: Vec<u32>,
    pub(super) prev: Vec<u32>,
    pub(super) stride: usize,
}

impl ValidBuckets {
    pub(super) fn new(blocks: usize, max_valid: usize, domains: usize) -> Self {
        ValidBuckets {
            head: vec![INVALID; domains * (max_valid + 1)],
            next: vec![INVALID; blocks],
            prev: vec![INVALID; blocks],
            stride: max_valid + 1,
        }
    }
    pub(super) fn insert(&mut self, domain: usize, b: u32, valid: u32) {
        let slot = domain * self.stride + valid as usize;
        let h = self.head[slot];
        self.next[b as usize] = h;
        self.prev[b as usize] = INVALID;
        if h != INVALID {
            self.prev[h as usize] = b;
        }
        self.head[slot] = b;
    }
    pub(super) fn remove(&mut self, domain: usize, b: u32, valid: u32) {
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
    pub(super) fn min(&self, domain: usize) -> Option<(u32, u32)> {
        let heads = &self.head[domain * self.stride..(domain + 1) * self.stride];
        heads.iter().enumerate().find(|(_, &h)| h != INVALID).map(|(v, &h)| (h, v as u32))
    }
}

impl BlockManager {
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
    pub(super) fn block_domain(&self, b: BlockId) -> usize {
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
}
