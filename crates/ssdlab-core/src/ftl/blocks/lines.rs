//! Layer: ftl. Line mode's two records (LearnedFTL's group allocation, FEMU's lines): a line
//! region's free lines (kept by the free pools) and a stream's open and sealed lines (kept by
//! the stream table).

use std::collections::VecDeque;

use super::INVALID;

/// The free lines of a region in line mode.
#[derive(Clone)]
pub(super) struct FreeLines {
    /// Per block index: the planes where that block is a free block of the region.
    planes_free: Vec<u32>,
    /// Indices that became free on every plane, in that order (least recently freed first;
    /// an entry no longer free is skipped when met).
    queue: VecDeque<u32>,
    /// Indices free on every plane.
    count: u32,
}

impl FreeLines {
    /// No free line (no block of the region free yet).
    pub(super) fn new(blocks_per_plane: u32) -> FreeLines {
        FreeLines { planes_free: vec![0; blocks_per_plane as usize], queue: VecDeque::new(), count: 0 }
    }

    /// Every line free, in index order (the region holding every block at start).
    pub(super) fn fill(&mut self, planes: u32, blocks_per_plane: u32) {
        self.planes_free.fill(planes);
        self.queue = (0..blocks_per_plane).collect();
        self.count = blocks_per_plane;
    }

    #[inline]
    pub(super) fn count(&self) -> u32 {
        self.count
    }

    /// Take the least recently freed line free on all `planes`.
    pub(super) fn take(&mut self, planes: u32) -> Option<u32> {
        loop {
            let i = self.queue.pop_front()?;
            if self.planes_free[i as usize] == planes {
                self.planes_free[i as usize] = 0;
                self.count -= 1;
                return Some(i);
            }
        }
    }

    /// Block `index` of one plane became free (`true`) or stopped being free.
    pub(super) fn block_changed(&mut self, index: u32, planes: u32, free: bool) {
        let n = &mut self.planes_free[index as usize];
        if free {
            *n += 1;
            if *n == planes {
                self.queue.push_back(index);
                self.count += 1;
            }
        } else {
            if *n == planes {
                self.count -= 1;
            }
            *n -= 1;
        }
    }
}

/// A stream's line in a line-mode region.
#[derive(Debug, Clone)]
pub(super) struct StreamLine {
    /// Block index of the open line (`INVALID`: none).
    pub(super) index: u32,
    /// Blocks of the open line not yet full.
    pub(super) open_blocks: u32,
    /// Block indices of the stream's sealed lines, in seal order.
    pub(super) sealed: Vec<u32>,
}

impl StreamLine {
    pub(super) const NONE: StreamLine = StreamLine { index: INVALID, open_blocks: 0, sealed: Vec::new() };

    /// Line `index` opens with a block on each of `planes`.
    pub(super) fn open(&mut self, index: u32, planes: u32) {
        (self.index, self.open_blocks) = (index, planes);
    }

    /// One block of the open line is full; once all are, the line seals: its index.
    pub(super) fn block_full(&mut self) -> Option<u32> {
        self.open_blocks -= 1;
        if self.open_blocks > 0 {
            return None;
        }
        let index = self.index;
        self.index = INVALID;
        self.sealed.push(index);
        Some(index)
    }

    /// Sealed line `index` leaves for GC.
    pub(super) fn take_sealed(&mut self, index: u32) {
        let at = self.sealed.iter().position(|&i| i == index).expect("a sealed line of the stream");
        self.sealed.remove(at);
    }
}
