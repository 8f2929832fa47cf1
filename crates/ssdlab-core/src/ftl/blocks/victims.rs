//! Layer: ftl. The victim index per GC domain: sealed blocks by valid count (`ValidBuckets`)
//! and in seal order, the two orders victim policies ask for.

use std::collections::VecDeque;

use crate::units::BlockId;

use super::meta::BlockTable;
use super::{BlockState, DomainId, INVALID};

/// Sealed blocks grouped by valid-page count (intrusive doubly linked lists), per domain.
#[derive(Clone)]
struct ValidBuckets {
    /// `head[domain * (max_valid + 1) + valid]`.
    head: Vec<u32>,
    next: Vec<u32>,
    prev: Vec<u32>,
    stride: usize,
}

impl ValidBuckets {
    fn new(blocks: usize, max_valid: usize, domains: usize) -> Self {
        ValidBuckets {
            head: vec![INVALID; domains * (max_valid + 1)],
            next: vec![INVALID; blocks],
            prev: vec![INVALID; blocks],
            stride: max_valid + 1,
        }
    }
    fn insert(&mut self, domain: usize, b: u32, valid: u32) {
        let slot = domain * self.stride + valid as usize;
        let h = self.head[slot];
        self.next[b as usize] = h;
        self.prev[b as usize] = INVALID;
        if h != INVALID {
            self.prev[h as usize] = b;
        }
        self.head[slot] = b;
    }
    fn remove(&mut self, domain: usize, b: u32, valid: u32) {
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
    fn min(&self, domain: usize) -> Option<(u32, u32)> {
        let heads = &self.head[domain * self.stride..(domain + 1) * self.stride];
        heads.iter().enumerate().find(|(_, &h)| h != INVALID).map(|(v, &h)| (h, v as u32))
    }
}

/// The victim index: per GC domain, sealed blocks by valid count (`ValidBuckets`) and in seal
/// order. Only sealed blocks are in it; a block chosen as a victim leaves it.
#[derive(Clone)]
pub(super) struct VictimIndex {
    buckets: ValidBuckets,
    /// Sealed blocks in seal order, per domain, with the sequence number of that seal (a block
    /// sealed again gets a new one; its stale entry is skipped when met).
    seal_order: Vec<VecDeque<(BlockId, u64)>>,
    seal_seq: Vec<u64>,
    next_seal_seq: u64,
}

impl VictimIndex {
    pub(super) fn new(blocks: usize, max_valid: usize, domains: usize) -> VictimIndex {
        VictimIndex {
            buckets: ValidBuckets::new(blocks, max_valid, domains),
            seal_order: vec![VecDeque::new(); domains],
            seal_seq: vec![0; blocks],
            next_seal_seq: 0,
        }
    }

    /// Sealed block `b` of `domain`, holding `valid` pages, becomes a candidate.
    pub(super) fn sealed(&mut self, domain: usize, b: BlockId, valid: u32) {
        self.seal_seq[b.index()] = self.next_seal_seq;
        self.seal_order[domain].push_back((b, self.next_seal_seq));
        self.next_seal_seq += 1;
        self.buckets.insert(domain, b.0, valid);
    }

    /// Candidate `b`'s valid count changed from `from` to `to`.
    #[inline]
    pub(super) fn revalue(&mut self, domain: usize, b: BlockId, from: u32, to: u32) {
        self.buckets.remove(domain, b.0, from);
        self.buckets.insert(domain, b.0, to);
    }

    /// Candidate `b` (holding `valid` pages) is no longer one: GC chose it. Its seal-order
    /// entry stays until met (`oldest`).
    pub(super) fn remove(&mut self, domain: usize, b: BlockId, valid: u32) {
        self.buckets.remove(domain, b.0, valid);
    }

    /// Candidate of `d` with the fewest valid pages (ties: most recently put into that count).
    pub(super) fn min_valid(&self, d: DomainId) -> Option<BlockId> {
        self.buckets.min(d.0 as usize).map(|(b, _)| BlockId(b))
    }

    /// Oldest candidate of `d`, dropping entries of blocks no longer sealed by that seal.
    pub(super) fn oldest(&mut self, d: DomainId, blocks: &BlockTable) -> Option<BlockId> {
        let order = &mut self.seal_order[d.0 as usize];
        while let Some(&(b, seq)) = order.front() {
            if blocks.get(b).state == BlockState::Sealed && self.seal_seq[b.index()] == seq {
                return Some(b);
            }
            order.pop_front();
        }
        None
    }
}
