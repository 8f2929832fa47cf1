//! Layer: ftl. The block manager's write streams: each stream's open block per plane, room checks and page
//! allocation (one page, a run, a wordline), sealing a full block.

use super::*;

impl BlockManager {
    pub fn streams(&self) -> &[StreamSpec] {
        &self.streams
    }

    #[inline]
    pub fn stream_region(&self, s: StreamId) -> RegionId {
        self.streams[s.0 as usize].region
    }

    #[inline]
    pub(super) fn open_slot(&self, stream: StreamId, plane: PlaneId) -> usize {
        stream.0 as usize * self.planes as usize + plane.index()
    }

    /// Whether `stream` can take one more page in `plane` without touching the plane's last
    /// `reserve` free blocks of the stream's region.
    #[inline]
    pub fn has_room(&self, stream: StreamId, plane: PlaneId, reserve: u32) -> bool {
        self.room_for(stream, plane, 1, reserve)
    }

    /// Whether `stream` can take a unit of `pages` in `plane`: in its open block, or (none
    /// open, or too few pages left there, which `allocate_run` then skips) in a free block of
    /// the stream's region beyond `reserve`. A stream's open blocks all have its region's mode,
    /// so the region's block size is theirs. On every unit's path: a few loads, no setup.
    #[inline]
    pub fn room_for(&self, stream: StreamId, plane: PlaneId, pages: u32, reserve: u32) -> bool {
        if self.any_lines && self.is_line_stream(stream) {
            self.room_for_line(stream, plane, pages, reserve)
        } else {
            self.room_for_blocks(stream, plane, pages, reserve)
        }
    }

    /// `room_for` of a stream outside line mode (the caller knows: the placement's hot path
    /// asks once per unit, not once per plane).
    #[inline]
    pub(crate) fn room_for_blocks(&self, stream: StreamId, plane: PlaneId, pages: u32, reserve: u32) -> bool {
        let region = self.stream_region(stream);
        let open = self.open[self.open_slot(stream, plane)];
        if open != INVALID
            && self.regions[region.0 as usize].block_pages - self.meta[open as usize].written >= pages.max(1)
        {
            return true;
        }
        self.free[self.pool(region, plane)].len() as u32 > reserve
    }

    /// `room_for` of a stream in line mode: its open line's block on `plane`, or a new line
    /// once the open one is used up on every plane (`reserve` counts lines).
    pub(crate) fn room_for_line(&self, stream: StreamId, plane: PlaneId, pages: u32, reserve: u32) -> bool {
        let region = &self.regions[self.stream_region(stream).0 as usize];
        let open = self.open[self.open_slot(stream, plane)];
        if open != INVALID && region.block_pages - self.meta[open as usize].written >= pages.max(1) {
            return true;
        }
        let lines = region.lines.as_ref().map_or(0, |l| l.count);
        self.stream_lines[stream.0 as usize].open_blocks == 0 && lines > reserve
    }

    /// Next page of `stream`'s open block in `plane`, opening a free block of the stream's
    /// region (least recently erased first) when needed. `None` when the plane has neither.
    #[inline]
    pub fn allocate(&mut self, stream: StreamId, plane: PlaneId, now: SimTime) -> Option<Ppn> {
        let mut slot = self.open[self.open_slot(stream, plane)];
        if slot == INVALID {
            slot = self.open_block(stream, plane)?;
        }
        let b = BlockId(slot);
        let page = self.meta[b.index()].written;
        self.meta[b.index()].written = page + 1;
        if page + 1 == self.geometry.pages_in_mode(self.meta[b.index()].mode) {
            let slot = self.open_slot(stream, plane);
            self.open[slot] = INVALID;
            if self.any_lines && self.stream_lines[stream.0 as usize].index != INVALID {
                self.line_block_full(stream, now);
            } else {
                self.seal(b, now);
            }
        }
        Some(self.geometry.ppn(b, page))
    }

    /// Open a free block of `stream`'s region in `plane` (least recently erased first) as the
    /// stream's open block there; None when the pool is empty. Once per block: kept out of
    /// `allocate`'s inlined path.
    #[cold]
    pub(super) fn open_block(&mut self, stream: StreamId, plane: PlaneId) -> Option<u32> {
        let r = self.stream_region(stream);
        if self.regions[r.0 as usize].lines.is_some() {
            self.open_line(stream)?;
            return Some(self.open[self.open_slot(stream, plane)]);
        }
        let pool = self.pool(r, plane);
        let b = self.free[pool].pop_front()?;
        self.took_free_block(r, pool);
        let region = &self.regions[r.0 as usize];
        self.meta[b.index()].state = BlockState::Open;
        self.meta[b.index()].mode = region.spec.mode;
        let slot = self.open_slot(stream, plane);
        self.open[slot] = b.0;
        Some(b.0)
    }

    /// `pages` consecutive pages of one block for `stream` in `plane` (a program unit): the
    /// first page, or None without a free block. A one-shot unit (`pages == wordline_pages`,
    /// more than one) starts on a multiple of its size, so it covers exactly one wordline: where an
    /// earlier shorter unit (a short last unit of a flush, a 1-page unit routed from another
    /// region, a warm-up or premapped page) left the write point inside a wordline, the rest of
    /// that wordline, or of the block if no whole unit fits, is skipped: left unwritten until
    /// the block's erase (a real drive pads it with dummy data, which we do not program or
    /// count as a program; `skipped_pages` counts it).
    #[inline]
    pub fn allocate_run(
        &mut self,
        stream: StreamId,
        plane: PlaneId,
        pages: u32,
        wordline_pages: u32,
        now: SimTime,
    ) -> Option<Ppn> {
        if pages <= 1 {
            self.allocate(stream, plane, now)
        } else {
            self.allocate_multi(stream, plane, pages, wordline_pages, now)
        }
    }

    pub(super) fn allocate_multi(
        &mut self,
        stream: StreamId,
        plane: PlaneId,
        pages: u32,
        wordline_pages: u32,
        now: SimTime,
    ) -> Option<Ppn> {
        let slot = self.open[self.open_slot(stream, plane)];
        if slot != INVALID {
            let b = BlockId(slot);
            let written = self.meta[b.index()].written;
            let left = self.capacity(b) - written;
            // Block capacities are whole wordlines, so `left >= pages` leaves a whole aligned
            // unit after the skip.
            let skip = if left < pages {
                left
            } else if pages == wordline_pages {
                (pages - written % pages) % pages
            } else {
                0
            };
            if skip > 0 {
                if left < pages && self.free[self.pool(self.stream_region(stream), plane)].is_empty() {
                    return None;
                }
                self.skipped_pages += skip as u64;
                for _ in 0..skip {
                    self.allocate(stream, plane, now)?;
                }
            }
        }
        let first = self.allocate(stream, plane, now)?;
        for _ in 1..pages {
            self.allocate(stream, plane, now)?;
        }
        Some(first)
    }

    /// Pages `allocate_run` skipped to start units on a wordline.
    pub fn skipped_pages(&self) -> u64 {
        self.skipped_pages
    }

    #[cold]
    pub(super) fn seal(&mut self, b: BlockId, now: SimTime) {
        self.meta[b.index()].state = BlockState::Sealed;
        self.sealed_at[b.index()] = now;
        self.seal_seq[b.index()] = self.next_seal_seq;
        let domain = self.block_domain(b);
        self.seal_order[domain].push_back((b, self.next_seal_seq));
        self.next_seal_seq += 1;
        self.buckets.insert(domain, b.0, self.meta[b.index()].valid);
    }
}
