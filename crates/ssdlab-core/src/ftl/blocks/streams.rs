//! Layer: ftl. The stream table: the write streams as declared, each stream's open block per
//! plane, and in line mode its open and sealed lines; what the page allocator reads first.

use crate::nand::Geometry;
use crate::units::{BlockId, PlaneId};

use super::lines::StreamLine;
use super::meta::BlockTable;
use super::{RegionId, StreamId, StreamSpec, INVALID};

#[derive(Clone)]
pub(super) struct StreamTable {
    specs: Vec<StreamSpec>,
    /// Open block per stream and plane, `open[stream * planes + plane]` (one table: the write
    /// path reads it for every page).
    open: Vec<u32>,
    /// Per stream: its line (line-mode regions only; `StreamLine::NONE` elsewhere).
    lines: Vec<StreamLine>,
    /// Some region is in line mode.
    any_lines: bool,
    /// Planes in channel-first order (line mode's row order).
    rank_order: Vec<PlaneId>,
    planes: u32,
    /// Lines sealed since the start: with it line-mode background GC knows when no line can
    /// have reached its victim's bar yet (`Ftl::line_gc_wait`).
    lines_sealed: u64,
    /// Pages `allocate_run` skipped to start units on a wordline.
    skipped_pages: u64,
}

impl StreamTable {
    pub(super) fn new(specs: Vec<StreamSpec>, geometry: &Geometry, any_lines: bool) -> StreamTable {
        let planes = geometry.planes();
        StreamTable {
            open: vec![INVALID; planes as usize * specs.len()],
            lines: vec![StreamLine::NONE; specs.len()],
            specs,
            any_lines,
            rank_order: geometry.channel_first_order(),
            planes,
            lines_sealed: 0,
            skipped_pages: 0,
        }
    }

    pub(super) fn specs(&self) -> &[StreamSpec] {
        &self.specs
    }

    #[inline]
    pub(super) fn region(&self, s: StreamId) -> RegionId {
        self.specs[s.0 as usize].region
    }

    #[inline]
    fn slot(&self, stream: StreamId, plane: PlaneId) -> usize {
        stream.0 as usize * self.planes as usize + plane.index()
    }

    /// `stream`'s open block in `plane` (`INVALID`: none).
    #[inline]
    pub(super) fn open_block(&self, stream: StreamId, plane: PlaneId) -> u32 {
        self.open[self.slot(stream, plane)]
    }

    /// `stream`'s open block in `plane` is now `b` (`INVALID`: none).
    #[inline]
    pub(super) fn set_open_block(&mut self, stream: StreamId, plane: PlaneId, b: u32) {
        let slot = self.slot(stream, plane);
        self.open[slot] = b;
    }

    /// Some stream writes to a line-mode region.
    #[inline]
    pub(super) fn any_lines(&self) -> bool {
        self.any_lines
    }

    #[inline]
    pub(super) fn has_open_line(&self, stream: StreamId) -> bool {
        self.lines[stream.0 as usize].index != INVALID
    }

    /// Blocks of `stream`'s open line not yet full.
    #[inline]
    pub(super) fn open_line_blocks(&self, stream: StreamId) -> u32 {
        self.lines[stream.0 as usize].open_blocks
    }

    /// Block index of `stream`'s open line (`INVALID`: none).
    pub(super) fn open_line(&self, stream: StreamId) -> u32 {
        self.lines[stream.0 as usize].index
    }

    /// Line `index` opens for `stream`, a block on every plane.
    pub(super) fn line_opened(&mut self, stream: StreamId, index: u32) {
        let planes = self.planes;
        self.lines[stream.0 as usize].open(index, planes);
    }

    /// One block of `stream`'s open line is full: the line's index if that sealed the line.
    pub(super) fn line_block_full(&mut self, stream: StreamId) -> Option<u32> {
        let sealed = self.lines[stream.0 as usize].block_full();
        if sealed.is_some() {
            self.lines_sealed += 1;
        }
        sealed
    }

    pub(super) fn sealed_lines(&self, stream: StreamId) -> &[u32] {
        &self.lines[stream.0 as usize].sealed
    }

    pub(super) fn take_sealed_line(&mut self, stream: StreamId, index: u32) {
        self.lines[stream.0 as usize].take_sealed(index);
    }

    pub(super) fn lines_sealed(&self) -> u64 {
        self.lines_sealed
    }

    pub(super) fn skipped(&mut self, pages: u32) {
        self.skipped_pages += pages as u64;
    }

    pub(super) fn skipped_pages(&self) -> u64 {
        self.skipped_pages
    }

    /// Pages allocated in `stream`'s open line (0 when it has none), for a stream written row
    /// by row (page k of the line on the plane at position k mod planes in channel-first
    /// order): its blocks then hold w pages up to some position and w - 1 after it.
    pub(super) fn line_cursor(&self, stream: StreamId, geometry: &Geometry, blocks: &BlockTable) -> u32 {
        let index = self.open_line(stream);
        if index == INVALID {
            return 0;
        }
        let written =
            |rank: usize| blocks.get(BlockId(geometry.first_block_of(self.rank_order[rank]).0 + index)).written;
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
}
