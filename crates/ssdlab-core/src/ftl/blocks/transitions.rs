//! Layer: ftl. The block manager's transitions: what a page write, an owner set or cleared, a
//! seal, an erase, a move between regions and a victim taken do across the parts (per-block
//! state, owner table, free pools, stream table, victim index), so that they agree.

use super::*;

impl BlockManager {
    /// Record that `ppn` now holds `owner`.
    #[inline]
    pub fn set_owner(&mut self, ppn: Ppn, owner: Owner) {
        self.owners.set(ppn, owner);
        let b = self.geometry.block_of(ppn);
        let m = *self.blocks.get(b);
        if m.state == BlockState::Sealed {
            // The last page of a block: `allocate` sealed the block (indexed with the count
            // before this page) before its owner was set.
            self.rebucket(b, m.valid, m.valid + 1);
        }
        self.blocks.get_mut(b).valid = m.valid + 1;
        self.pools.page_validated(m.region);
    }

    /// Move a sealed block from the `from` to the `to` valid-count bucket of its domain.
    #[cold]
    fn rebucket(&mut self, b: BlockId, from: u32, to: u32) {
        let domain = self.block_domain(b);
        self.victims.revalue(domain, b, from, to);
    }

    /// The data in `ppn` is stale (overwritten, trimmed or relocated). Returns the region
    /// that held it.
    pub fn invalidate(&mut self, ppn: Ppn) -> RegionId {
        self.owners.clear(ppn);
        let b = self.geometry.block_of(ppn);
        let m = *self.blocks.get(b);
        if m.state == BlockState::Sealed {
            self.victims.revalue(m.domain as usize, b, m.valid, m.valid - 1);
        }
        self.blocks.get_mut(b).valid = m.valid - 1;
        self.pools.page_invalidated(m.region);
        m.region
    }

    /// Next page of `stream`'s open block in `plane`, opening a free block of the stream's
    /// region (least recently erased first) when needed. `None` when the plane has neither.
    #[inline]
    pub fn allocate(&mut self, stream: StreamId, plane: PlaneId, now: SimTime) -> Option<Ppn> {
        let mut slot = self.streams.open_block(stream, plane);
        if slot == INVALID {
            slot = self.open_block(stream, plane)?;
        }
        let b = BlockId(slot);
        let m = self.blocks.get_mut(b);
        let page = m.written;
        m.written = page + 1;
        if page + 1 == self.geometry.pages_in_mode(m.mode) {
            self.streams.set_open_block(stream, plane, INVALID);
            if self.streams.any_lines() && self.streams.has_open_line(stream) {
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
    fn open_block(&mut self, stream: StreamId, plane: PlaneId) -> Option<u32> {
        let r = self.stream_region(stream);
        if self.pools.is_line_region(r) {
            self.open_line(stream)?;
            return Some(self.streams.open_block(stream, plane));
        }
        let b = self.pools.take_front(r, plane)?;
        self.blocks.opened(b, self.pools.spec(r).mode);
        self.streams.set_open_block(stream, plane, b.0);
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

    fn allocate_multi(
        &mut self,
        stream: StreamId,
        plane: PlaneId,
        pages: u32,
        wordline_pages: u32,
        now: SimTime,
    ) -> Option<Ppn> {
        let slot = self.streams.open_block(stream, plane);
        if slot != INVALID {
            let b = BlockId(slot);
            let written = self.blocks.get(b).written;
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
                if left < pages && self.pools.free_in(self.stream_region(stream), plane) == 0 {
                    return None;
                }
                self.streams.skipped(skip);
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

    /// Block `b` is full: sealed at `now`, a candidate of its domain's victim index.
    #[cold]
    fn seal(&mut self, b: BlockId, now: SimTime) {
        self.blocks.seal(b, now);
        let m = self.blocks.get(b);
        self.victims.sealed(m.domain as usize, b, m.valid);
    }

    /// One block of `stream`'s open line is full: once all are, the line seals (every block of
    /// it at `now`) and joins the stream's sealed lines.
    #[cold]
    fn line_block_full(&mut self, stream: StreamId, now: SimTime) {
        if let Some(index) = self.streams.line_block_full(stream) {
            for b in self.line_blocks(index).collect::<Vec<_>>() {
                self.seal(b, now);
            }
        }
    }

    /// Open a whole line of free blocks for `stream` in its line-mode region: the least
    /// recently freed index free on every plane. None while its open line is not used up on
    /// every plane, or if no line is free.
    #[cold]
    fn open_line(&mut self, stream: StreamId) -> Option<()> {
        let r = self.stream_region(stream);
        if self.streams.open_line_blocks(stream) > 0 {
            return None;
        }
        let index = self.pools.take_free_line(r)?;
        for p in 0..self.planes {
            let plane = PlaneId(p);
            let b = BlockId(self.geometry.first_block_of(plane).0 + index);
            self.pools.take_line_block(r, plane, b);
            self.blocks.opened(b, self.pools.spec(r).mode);
            self.streams.set_open_block(stream, plane, b.0);
        }
        self.streams.line_opened(stream, index);
        Some(())
    }

    /// Take a sealed block out of the candidate indexes: GC is emptying it.
    pub fn mark_victim(&mut self, b: BlockId) {
        let m = self.blocks.get_mut(b);
        debug_assert_eq!(m.state, BlockState::Sealed, "victim must be sealed, never open");
        m.state = BlockState::Victim;
        let (domain, valid) = (m.domain as usize, m.valid);
        self.victims.remove(domain, b, valid);
    }

    /// Take sealed line `index` of `stream` for GC: its blocks become victims (no longer
    /// candidates of the block indexes) and it leaves the stream's sealed lines.
    pub fn take_sealed_line(&mut self, stream: StreamId, index: u32) {
        self.streams.take_sealed_line(stream, index);
        for b in self.line_blocks(index).collect::<Vec<_>>() {
            self.mark_victim(b);
        }
    }

    /// Erase an emptied victim and return it to its region's free pool in its plane.
    pub fn erase(&mut self, b: BlockId) {
        self.blocks.erased(b);
        let r = self.blocks.get(b).region;
        self.pools.put_back(&self.geometry, r, b);
    }

    /// Move one free block of `plane` from region `from` to region `to` (taking it from the
    /// back of the pool: the most recently erased). It will be programmed in `to`'s mode.
    /// Returns the block, or None if `from` has no free block in that plane.
    pub fn move_free_block(&mut self, from: RegionId, to: RegionId, plane: PlaneId) -> Option<BlockId> {
        let b = self.pools.move_block(&self.geometry, from, to, plane)?;
        let domain = self.pools.domain_of(to, plane).0;
        let mode = self.pools.spec(to).mode;
        let m = self.blocks.get_mut(b);
        m.region = to;
        m.mode = mode;
        m.domain = domain;
        Some(b)
    }
}
