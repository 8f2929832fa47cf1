//! Layer: ftl. Line collection: GC in a line-mode region (LearnedFTL's groups, Sec. 3.3.3)
//! collects whole lines (one block per plane) of a stream together, not single blocks.

use crate::device::{Device, Source};
use crate::error::Result;
use crate::ftl::blocks::{RegionId, StreamId};
use crate::ftl::gc::{LineCensus, LineVictim, LineVictimView};
use crate::ftl::mapping::Relocation;
use crate::ftl::store::Store;
use crate::units::SimTime;

use super::moves::move_dest;
use super::{reclaim_busy, Move, Reclaimer};

impl Reclaimer {
    /// Line mode: what the victim policy picks among the region's sealed lines, collected; a
    /// single line only if at least `min_invalid` of its pages are invalid (background GC).
    pub(super) fn collect_next_lines(
        &mut self,
        store: &mut Store,
        region: RegionId,
        min_invalid: f64,
        now: SimTime,
        device: &mut Device,
    ) -> Result<Option<SimTime>> {
        let mut census = std::mem::take(&mut self.line_census);
        census.clear();
        let blocks = &store.blocks;
        for s in 0..blocks.streams().len() as u16 {
            let stream = StreamId(s);
            if blocks.stream_region(stream) != region || blocks.sealed_lines(stream).is_empty() {
                continue;
            }
            let room = collect_room(store, gc_destination(store, stream));
            for &index in blocks.sealed_lines(stream) {
                let (valid, capacity) = blocks.line_census(index);
                let collectable = valid < capacity && valid as u64 <= room;
                census.push(LineCensus { index, stream, valid_pages: valid, capacity_pages: capacity, collectable });
            }
        }
        let choice = self.victim.select_lines(&LineVictimView { lines: &census, now });
        let passes = |l: &LineCensus| l.invalid_pages() as f64 >= min_invalid * l.capacity_pages as f64;
        let target = match choice {
            Some(LineVictim::Stream(stream)) => Some((stream, None)),
            Some(LineVictim::Line(index)) => {
                census.iter().find(|l| l.index == index).filter(|l| passes(l)).map(|l| (l.stream, Some(index)))
            }
            None => None,
        };
        if target.is_none() && min_invalid > 0.0 && !census.iter().any(passes) {
            // No sealed line, collectable now or not, has enough invalid pages: each page
            // invalidated adds one to one line, so none can pass before `short` more are (or a
            // line seals). Lines are all the same size.
            let most = census.iter().map(|l| l.invalid_pages()).max().unwrap_or(0) as u64;
            let capacity = census.first().map_or(0, |l| l.capacity_pages) as f64;
            let bar = (min_invalid * capacity).ceil() as u64;
            if census.iter().all(|l| l.capacity_pages as f64 == capacity) && bar > most {
                self.line_gc_wait = Some((blocks.invalidations(), blocks.lines_sealed(), bar - most));
            }
        }
        self.line_census = census;
        match target {
            Some((stream, only)) => self.collect_lines(store, stream, only, now, device),
            None => Ok(None),
        }
    }

    /// Collect sealed lines of `stream` together: line `only`, or (LearnedFTL's group GC, Sec.
    /// 3.3.3) the stream's lines with the most invalid pages first, as many as the room GC has
    /// can take the valid pages of (a line without an invalid page gains nothing and stays).
    /// Every valid page is read, the pages sorted by owner (LPN; translation pages by number)
    /// and written back in that order (row by row on a line stream, so consecutive LPNs of a
    /// group get consecutive virtual PPNs), the lines erased, and the moves handed to the
    /// mapping as one batch (LearnedFTL retrains each translation page it touches once).
    /// Returns when the last operation ends, or None if no line could be taken.
    pub(in crate::ftl) fn collect_lines(
        &mut self,
        store: &mut Store,
        stream: StreamId,
        only: Option<u32>,
        now: SimTime,
        device: &mut Device,
    ) -> Result<Option<SimTime>> {
        let mut lines: Vec<(u32, u32)> = match only {
            Some(index) => vec![(store.blocks.line_census(index).0, index)],
            None => store.blocks.sealed_lines(stream).iter().map(|&i| (store.blocks.line_census(i).0, i)).collect(),
        };
        lines.sort_unstable();
        let mut room = collect_room(store, gc_destination(store, stream));
        let mut taken = Vec::new();
        for (valid, index) in lines {
            let (_, capacity) = store.blocks.line_census(index);
            if valid >= capacity || valid as u64 > room {
                break;
            }
            room -= valid as u64;
            taken.push(index);
        }
        if taken.is_empty() {
            return Ok(None);
        }
        let busy = reclaim_busy(device).0;
        let copied = store.stats.gc_reads;
        let g = store.blocks.geometry().clone();
        let mut pages = std::mem::take(&mut self.collected);
        pages.clear();
        let mut victims = Vec::with_capacity(taken.len() * g.planes() as usize);
        for &index in &taken {
            store.take_victim_line(stream, index);
            for b in store.blocks.line_blocks(index) {
                victims.push(b);
                let mut from = 0;
                while let Some((ppn, owner)) = store.blocks.next_valid_page(b, from) {
                    pages.push((owner, ppn));
                    from = g.page_in_block(ppn) + 1;
                }
            }
        }
        self.stats.victims_chosen += victims.len() as u64;
        self.stats.victim_valid_pages_at_choice += pages.len() as u64;
        self.stats.line_collections += 1;
        self.stats.lines_collected += taken.len() as u64;
        pages.sort_unstable();
        // When each victim block's last page was read: its erase follows.
        let mut read_end = vec![now; victims.len()];
        let mut moves = std::mem::take(&mut self.moves);
        moves.clear();
        let region = store.blocks.stream_region(stream);
        let planes = g.planes() as usize;
        for &(owner, old) in &pages {
            // `victims` holds the taken lines' blocks line by line, in plane order.
            let b = g.block_of(old);
            let line = taken.iter().position(|&i| i == g.block_in_plane(b)).expect("a page of a taken line");
            let k = line * planes + g.plane_of_block(b).index();
            let victim = (g.plane_of_block(b), store.blocks.mode(b));
            let dest = move_dest(store, owner, Move::Gc, region);
            let (new, t) = self.move_page(store, old, owner, victim, dest, Move::Gc, now, device)?;
            moves.push(Relocation { owner, from: old, to: new });
            read_end[k] = read_end[k].max(t);
        }
        // The lines are erased before the mapping writes its translation pages back: a
        // write-back that used the last free line gets it back first.
        let mut end = now;
        for (k, &b) in victims.iter().enumerate() {
            let mode = store.blocks.mode(b);
            end = end.max(device.erase(b, mode, read_end[k], Source::Gc));
            store.erased(b);
            self.stats.victims_reclaimed += 1;
        }
        if !moves.is_empty() {
            store.relocated(&moves, device, now)?;
        }
        self.moves = moves;
        self.collected = pages;
        let r = &mut store.region_stats[region.0 as usize];
        r.gc_ns += reclaim_busy(device).0 - busy;
        r.gc_pages += store.stats.gc_reads - copied;
        Ok(Some(end))
    }
}

/// The stream GC writes the valid pages of `stream`'s lines to (line mode): a placement
/// stream's data back to itself (LearnedFTL's groups), translation pages to the
/// translation stream, any other data to its region's GC stream.
fn gc_destination(store: &Store, stream: StreamId) -> StreamId {
    let streams = &store.placer.streams;
    if stream == streams.map || store.placer.is_own_stream(stream) {
        stream
    } else {
        streams.gc[store.blocks.stream_region(stream).0 as usize]
    }
}

/// Pages GC can write into `stream` now: its open line's room and every free line of its
/// region (GC may take the reserve).
fn collect_room(store: &Store, stream: StreamId) -> u64 {
    let blocks = &store.blocks;
    let region = blocks.stream_region(stream);
    let g = blocks.geometry();
    let line_pages = g.planes() as u64 * g.pages_in_mode(blocks.region_spec(region).mode) as u64;
    blocks.line_room(stream) as u64 + blocks.free_lines(region) as u64 * line_pages
}
