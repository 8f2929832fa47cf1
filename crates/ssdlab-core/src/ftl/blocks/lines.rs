//! Layer: ftl. The block manager's line mode (LearnedFTL's group allocation, FEMU's lines): free lines, each stream's
//! open and sealed lines, line allocation and census.

use super::*;

/// The free lines of a region in line mode.
#[derive(Clone)]
pub(super) struct FreeLines {
    /// Per block index: the planes where that block is a free block of the region.
    pub(super) planes_free: Vec<u32>,
    /// Indices that became free on every plane, in that order (least recently freed first;
    /// an entry no longer free is skipped when met).
    pub(super) queue: VecDeque<u32>,
    /// Indices free on every plane.
    pub(super) count: u32,
}

/// A stream's line in a line-mode region.
#[derive(Debug, Clone, Default)]
pub(super) struct StreamLine {
    /// Block index of the open line (`INVALID`: none).
    pub(super) index: u32,
    /// Blocks of the open line not yet full.
    pub(super) open_blocks: u32,
    /// Block indices of the stream's sealed lines, in seal order.
    pub(super) sealed: Vec<u32>,
}

impl BlockManager {
    /// One block of `stream`'s open line is full: once all are, the line seals (every block of
    /// it at `now`) and joins the stream's sealed lines.
    #[cold]
    pub(super) fn line_block_full(&mut self, stream: StreamId, now: SimTime) {
        let line = &mut self.stream_lines[stream.0 as usize];
        line.open_blocks -= 1;
        if line.open_blocks > 0 {
            return;
        }
        let index = line.index;
        line.index = INVALID;
        line.sealed.push(index);
        self.lines_sealed += 1;
        for b in self.line_blocks(index).collect::<Vec<_>>() {
            self.seal(b, now);
        }
    }

    /// The blocks of line `index` (block `index` of every plane), in plane order.
    pub fn line_blocks(&self, index: u32) -> impl Iterator<Item = BlockId> + '_ {
        (0..self.planes).map(move |p| BlockId(self.geometry.first_block_of(PlaneId(p)).0 + index))
    }

    /// Whether region `r` opens blocks a line at a time.
    pub fn is_line_region(&self, r: RegionId) -> bool {
        self.regions[r.0 as usize].lines.is_some()
    }

    /// Whether `stream` writes to a line-mode region.
    #[inline]
    pub fn is_line_stream(&self, stream: StreamId) -> bool {
        self.any_lines && self.is_line_region(self.stream_region(stream))
    }

    /// Lines of region `r` free on every plane (0 outside line mode).
    pub fn free_lines(&self, r: RegionId) -> u32 {
        self.regions[r.0 as usize].lines.as_ref().map_or(0, |l| l.count)
    }

    /// Pages allocated in `stream`'s open line (0 when it has none), for a stream written row
    /// by row (page k of the line on the plane at position k mod planes in channel-first
    /// order): its blocks then hold w pages up to some position and w - 1 after it.
    pub fn line_cursor(&self, stream: StreamId) -> u32 {
        let index = self.stream_lines[stream.0 as usize].index;
        if index == INVALID {
            return 0;
        }
        let written =
            |rank: usize| self.meta[(self.geometry.first_block_of(self.rank_order[rank]).0 + index) as usize].written;
        let w = written(0);
        if w == 0 {
            return 0;
        }
        // The first position holding fewer than w pages (binary search: w, ..., w, w - 1, ...).
        let (mut lo, mut hi) = (1, self.rank_order.len());
        while lo < hi {
            let mid = (lo + hi) / 2;
            if written(mid) == w {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        (w - 1) * self.rank_order.len() as u32 + lo as u32
    }

    /// Whether `stream` has an open line (its next page does not open one).
    #[inline]
    pub fn has_open_line(&self, stream: StreamId) -> bool {
        self.stream_lines[stream.0 as usize].index != INVALID
    }

    /// Pages `stream`'s open line can still take (0 when it has none).
    pub fn line_room(&self, stream: StreamId) -> u32 {
        let line = &self.stream_lines[stream.0 as usize];
        if line.index == INVALID {
            return 0;
        }
        self.line_blocks(line.index)
            .map(|b| self.regions[self.meta[b.index()].region.0 as usize].block_pages - self.meta[b.index()].written)
            .sum()
    }

    /// Pages invalidated since the start (never reset).
    pub fn invalidations(&self) -> u64 {
        self.invalidations
    }

    /// Lines sealed since the start (never reset).
    pub fn lines_sealed(&self) -> u64 {
        self.lines_sealed
    }

    /// Block indices of `stream`'s sealed lines, in seal order.
    pub fn sealed_lines(&self, stream: StreamId) -> &[u32] {
        &self.stream_lines[stream.0 as usize].sealed
    }

    /// Valid pages and capacity of line `index`.
    pub fn line_census(&self, index: u32) -> (u32, u32) {
        self.line_blocks(index).fold((0, 0), |(v, c), b| (v + self.valid(b), c + self.capacity(b)))
    }

    /// Take sealed line `index` of `stream` for GC: its blocks become victims (no longer
    /// candidates of the block indexes) and it leaves the stream's sealed lines.
    pub fn take_sealed_line(&mut self, stream: StreamId, index: u32) {
        let sealed = &mut self.stream_lines[stream.0 as usize].sealed;
        let at = sealed.iter().position(|&i| i == index).expect("a sealed line of the stream");
        sealed.remove(at);
        for b in self.line_blocks(index).collect::<Vec<_>>() {
            self.mark_victim(b);
        }
    }

    /// Open a whole line of free blocks for `stream` in its line-mode region: the least
    /// recently freed index free on every plane. None while its open line is not used up on
    /// every plane, or if no line is free.
    #[cold]
    pub(super) fn open_line(&mut self, stream: StreamId) -> Option<()> {
        let r = self.stream_region(stream);
        if self.stream_lines[stream.0 as usize].open_blocks > 0 {
            return None;
        }
        let planes = self.planes;
        let index = {
            let lines = self.regions[r.0 as usize].lines.as_mut().expect("a line-mode region");
            loop {
                let i = lines.queue.pop_front()?;
                if lines.planes_free[i as usize] == planes {
                    lines.planes_free[i as usize] = 0;
                    lines.count -= 1;
                    break i;
                }
            }
        };
        for p in 0..planes {
            let plane = PlaneId(p);
            let b = BlockId(self.geometry.first_block_of(plane).0 + index);
            let pool = self.pool(r, plane);
            let at = self.free[pool].iter().position(|&f| f == b).expect("a free line's block is in its pool");
            self.free[pool].remove(at);
            self.took_free_block(r, pool);
            self.meta[b.index()].state = BlockState::Open;
            self.meta[b.index()].mode = self.regions[r.0 as usize].spec.mode;
            let slot = self.open_slot(stream, plane);
            self.open[slot] = b.0;
        }
        let line = &mut self.stream_lines[stream.0 as usize];
        (line.index, line.open_blocks) = (index, planes);
        Some(())
    }

    /// Line mode: block `b` of region `r` became free (`true`) or stopped being free.
    pub(super) fn line_free_changed(&mut self, r: RegionId, b: BlockId, free: bool) {
        let planes = self.planes;
        let index = self.geometry.block_in_plane(b);
        if let Some(lines) = &mut self.regions[r.0 as usize].lines {
            let n = &mut lines.planes_free[index as usize];
            if free {
                *n += 1;
                if *n == planes {
                    lines.queue.push_back(index);
                    lines.count += 1;
                }
            } else {
                if *n == planes {
                    lines.count -= 1;
                }
                *n -= 1;
            }
        }
    }
}
