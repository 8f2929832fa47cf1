//! Layer: device. The array units and channels operations are booked on, and what booking
//! keeps: per unit its free time and the idle gaps it left, per block the order of its
//! operations, per channel a calendar, the counters. `Device` owns one; the transaction
//! scheduler (`scheduler/`) decides when each operation is booked and books it here. The rules
//! (work-conserving fits, order per block, the cache register) are the module note of `mod.rs`.

use super::calendar::{Calendar, Fit};
use super::{DeviceCounters, Source};
use crate::nand::cell::page_type;
use crate::nand::{ArrayUnit, BlockMode, Geometry, Timing};
use crate::units::{BlockId, PlaneId, Ppn, SimTime};

/// The device's resources and booking state.
#[derive(Clone)]
pub struct Resources {
    pub(super) geometry: Geometry,
    pub(super) timing: Timing,
    /// When each array unit's last booking ends.
    pub(super) unit_free_at: Vec<SimTime>,
    /// Idle gaps each array unit left before `unit_free_at` (sorted, disjoint, each at least
    /// `min_unit_op_ns` long), for operations issued later that are ready earlier.
    unit_gaps: Vec<Vec<(SimTime, SimTime)>>,
    /// The shortest time any operation holds an array unit (command + the fastest read):
    /// shorter gaps can hold nothing and are not kept.
    min_unit_op_ns: u64,
    /// Per block: (end of the last program or erase booked on it, end of the last operation
    /// of any kind booked on it); see the module note on order.
    block_order: Vec<(SimTime, SimTime)>,
    pub(super) channels: Vec<Calendar>,
    /// Array-busy nanoseconds per unit (utilisation figures).
    pub(super) unit_busy_ns: Vec<u64>,
    /// Per plane: (array unit, channel), precomputed off the hot path.
    plane_resources: Vec<(u32, u32)>,
    /// The time of the last `advance_to` (operations are never ready before it).
    pub(super) now: SimTime,
    pub(super) counters: DeviceCounters,
    /// Every booking as (block, kind 0 read / 1 program / 2 erase, start, array end), for the
    /// schedulers' property tests.
    #[cfg(test)]
    pub(super) booked: Vec<(BlockId, u8, SimTime, SimTime)>,
}

impl Resources {
    pub(super) fn new(geometry: Geometry, timing: Timing) -> Resources {
        let units = match timing.array_unit {
            ArrayUnit::Chip => geometry.chips(),
            ArrayUnit::Die => geometry.dies(),
            ArrayUnit::Plane => geometry.planes(),
        } as usize;
        let bits = geometry.cell.bits_per_cell() as usize;
        let plane_resources = (0..geometry.planes())
            .map(|p| {
                let plane = PlaneId(p);
                let unit = match timing.array_unit {
                    ArrayUnit::Chip => geometry.chip_of_plane(plane),
                    ArrayUnit::Die => geometry.die_of_plane(plane),
                    ArrayUnit::Plane => p,
                };
                (unit, geometry.channel_of_plane(plane))
            })
            .collect();
        Resources {
            plane_resources,
            channels: (0..geometry.channels).map(|_| Calendar::default()).collect(),
            unit_free_at: vec![0; units],
            unit_gaps: vec![Vec::new(); units],
            min_unit_op_ns: timing.command_ns
                + timing.read_ns.iter().copied().chain([timing.slc_read_ns]).min().unwrap_or(0),
            block_order: vec![(0, 0); geometry.blocks() as usize],
            unit_busy_ns: vec![0; units],
            geometry,
            timing,
            now: 0,
            counters: DeviceCounters { reads_by_page_type: vec![0; bits], ..Default::default() },
            #[cfg(test)]
            booked: Vec::new(),
        }
    }

    /// Every resource idle at time 0, the counters cleared.
    pub(super) fn reset(&mut self) {
        self.unit_free_at.fill(0);
        self.unit_gaps.iter_mut().for_each(Vec::clear);
        self.block_order.fill((0, 0));
        self.now = 0;
        self.unit_busy_ns.fill(0);
        self.channels.iter_mut().for_each(Calendar::clear);
        let bits = self.counters.reads_by_page_type.len();
        self.counters = DeviceCounters { reads_by_page_type: vec![0; bits], ..Default::default() };
    }

    /// Time moves to `now`: channel bookings that ended are forgotten.
    pub(super) fn advance_to(&mut self, now: SimTime) {
        for c in &mut self.channels {
            c.prune(now);
        }
        // Units' gaps that ended are dropped when the unit next leaves one (`book_unit`).
        self.now = now;
    }

    /// The number of array units.
    pub(super) fn units(&self) -> usize {
        self.unit_free_at.len()
    }

    /// Book `unit` for `unit_ns` and `channel` for the first `channel_ns` of that time (an
    /// operation's command or data-in crosses the channel while its array unit is held), at the
    /// earliest time at or after `ready` both are idle: in an idle gap the unit left if one holds
    /// the operation, else after the unit's last booking. Returns the start.
    ///
    /// Order on `block` is checked only when the operation could take a gap: after the unit's
    /// last booking it already follows every operation on the block (a block has one unit).
    #[inline(always)]
    fn book_unit(&mut self, block: BlockId, erase: bool, ready: SimTime, unit_ns: u64, channel_ns: u64) -> SimTime {
        let (unit, channel) = self.locate(block);
        let free = self.unit_free_at[unit];
        // Gaps are sorted and disjoint, so the last ends latest: none holds the operation when
        // that one ends too early (most are over by now; checked before the block's order).
        if ready < free && self.unit_gaps[unit].last().is_some_and(|&(_, end)| end >= ready + unit_ns) {
            let ordered = self.ordered(block, ready, erase);
            if ordered < free {
                if let Some(start) = self.book_in_gap(unit, channel, ordered, unit_ns, channel_ns) {
                    return start;
                }
            }
        }
        let start = self.channels[channel].book(ready.max(free), channel_ns);
        // Only the part of the idle time after now can ever hold an operation (none is ready
        // before now): a unit that waited for a host request leaves a gap ending now, kept never.
        let from = free.max(self.now);
        // When the channel search began at `from`, the channel has no hole of `channel_ns` in
        // the gap, and bookings are never removed. If no operation needs less of the channel
        // (a command alone: a read or an erase), nothing can ever use the gap: not kept.
        let useless = ready <= from && channel_ns <= self.timing.command_ns;
        if start >= from + self.min_unit_op_ns && !useless {
            self.keep_gap(unit, from, start);
        }
        self.unit_free_at[unit] = start + unit_ns;
        start
    }

    /// Record that `unit` is idle from `from` to `to` (after every gap it left before).
    #[inline(never)]
    fn keep_gap(&mut self, unit: usize, from: SimTime, to: SimTime) {
        let gaps = &mut self.unit_gaps[unit];
        // Sorted and disjoint, so sorted by end too: drop those over by now.
        if gaps.first().is_some_and(|&(_, end)| end <= self.now) {
            let ended = gaps.partition_point(|&(_, end)| end <= self.now);
            gaps.drain(..ended);
        }
        gaps.push((from, to));
    }

    /// The earliest start in one of `unit`'s idle gaps, from `ready` on, where the operation
    /// fits with its channel idle for `channel_ns` at its start; books it there and splits the
    /// gap. None if no gap holds it.
    #[inline(never)]
    fn book_in_gap(
        &mut self,
        unit: usize,
        channel: usize,
        ready: SimTime,
        unit_ns: u64,
        channel_ns: u64,
    ) -> Option<SimTime> {
        let (i, fit) = self.fit_in_gap(unit, channel, ready, unit_ns, channel_ns)?;
        let s = self.channels[channel].book_fit(fit);
        let (g0, g1) = self.unit_gaps[unit][i];
        let min = self.min_unit_op_ns;
        let parts = [(g0, s), (s + unit_ns, g1)];
        let kept = parts.into_iter().filter(|&(a, b)| b - a >= min);
        self.unit_gaps[unit].splice(i..=i, kept);
        Some(s)
    }

    /// The gap `book_in_gap` would use and the start in it, without booking.
    #[inline(always)]
    fn fit_in_gap(
        &self,
        unit: usize,
        channel: usize,
        ready: SimTime,
        unit_ns: u64,
        channel_ns: u64,
    ) -> Option<(usize, Fit)> {
        let gaps = &self.unit_gaps[unit];
        let first = gaps.partition_point(|&(_, end)| end < ready + unit_ns);
        for (i, &(g0, g1)) in gaps.iter().enumerate().skip(first) {
            let s = ready.max(g0);
            if s + unit_ns > g1 {
                continue;
            }
            // The channel may be busy at `s`: its first fit that still leaves the unit time.
            if let Some(fit) = self.channels[channel].fit_by(s, channel_ns, g1 - unit_ns) {
                return Some((i, fit));
            }
        }
        None
    }

    /// Where `book_unit` would start an operation on `block`, without booking it.
    pub(super) fn fit_unit(
        &self,
        block: BlockId,
        erase: bool,
        ready: SimTime,
        unit_ns: u64,
        channel_ns: u64,
    ) -> SimTime {
        let (unit, channel) = self.locate(block);
        let free = self.unit_free_at[unit];
        let ordered = self.ordered(block, ready, erase);
        if ordered < free {
            if let Some((_, fit)) = self.fit_in_gap(unit, channel, ordered, unit_ns, channel_ns) {
                return fit.start;
            }
        }
        self.channels[channel].first_fit_by(ordered.max(free), channel_ns, SimTime::MAX).expect("unbounded fit")
    }

    /// `ready` moved past what must precede an operation on `block` (module note on order).
    #[inline]
    pub(super) fn ordered(&self, block: BlockId, ready: SimTime, erase: bool) -> SimTime {
        let (written, touched) = self.block_order[block.index()];
        ready.max(if erase { touched } else { written })
    }

    #[inline]
    pub(super) fn note_order(&mut self, block: BlockId, end: SimTime, writes: bool) {
        let o = &mut self.block_order[block.index()];
        if writes {
            o.0 = o.0.max(end);
        }
        o.1 = o.1.max(end);
    }

    /// The array unit a plane's operations occupy.
    pub(super) fn unit_of_plane(&self, plane: PlaneId) -> usize {
        self.plane_resources[plane.index()].0 as usize
    }

    /// When the array unit holding `plane` becomes free (for least-busy allocation).
    pub(super) fn plane_free_at(&self, plane: PlaneId) -> SimTime {
        self.unit_free_at[self.unit_of_plane(plane)]
    }

    /// When each array unit becomes free, by unit index (`unit_of_plane`).
    #[inline]
    pub(super) fn unit_free_times(&self) -> &[SimTime] {
        &self.unit_free_at
    }

    pub(super) fn unit_busy_ns(&self) -> &[u64] {
        &self.unit_busy_ns
    }

    pub(super) fn locate(&self, block: BlockId) -> (usize, usize) {
        let (unit, channel) = self.plane_resources[self.geometry.plane_of_block(block).index()];
        (unit as usize, channel as usize)
    }

    /// Count a read; returns its page type.
    #[inline]
    pub(super) fn count_read(&mut self, ppn: Ppn, mode: BlockMode, source: Source) -> u32 {
        let ptype = page_type(self.geometry.cell, mode, self.geometry.page_in_block(ppn));
        self.counters.reads += 1;
        self.counters.by_source.0[source as usize].reads += 1;
        match mode {
            BlockMode::Slc => self.counters.slc_reads += 1,
            BlockMode::Native => self.counters.reads_by_page_type[ptype as usize] += 1,
        }
        ptype
    }

    /// Book a read at its earliest fit, or at `start` (a suspension already placed its
    /// command); returns when its data has crossed the channel.
    #[inline(always)]
    pub(super) fn book_read(
        &mut self,
        ppn: Ppn,
        mode: BlockMode,
        ptype: u32,
        ready: SimTime,
        source: Source,
        start: Option<SimTime>,
    ) -> SimTime {
        let block = self.geometry.block_of(ppn);
        let (unit, channel) = self.locate(block);
        let t = &self.timing;
        let (cmd, t_r, xfer) = (t.command_ns, t.read(mode, ptype), t.page_transfer_ns);
        let cmd_start = match start {
            Some(s) => s,
            None => self.book_unit(block, false, ready, cmd + t_r, cmd),
        };
        let array_end = cmd_start + cmd + t_r;
        #[cfg(test)]
        self.booked.push((block, 0, cmd_start, array_end));
        self.note_order(block, array_end, false);
        self.note_busy(unit, source, t_r);
        self.counters.by_source.0[source as usize].wait_ns += cmd_start - ready;
        let xfer_start = self.channels[channel].book(array_end, xfer);
        xfer_start + xfer
    }

    #[inline]
    pub(super) fn count_program(&mut self, source: Source) {
        self.counters.programs += 1;
        self.counters.by_source.0[source as usize].programs += 1;
    }

    #[inline]
    pub(super) fn program_ns(&self, ppn: Ppn, mode: BlockMode) -> u64 {
        self.timing.program(mode, page_type(self.geometry.cell, mode, self.geometry.page_in_block(ppn)))
    }

    /// Book a program of `pages` pages of `block`: (data-in start, end).
    #[inline]
    pub(super) fn book_program(
        &mut self,
        block: BlockId,
        pages: u32,
        t_prog: u64,
        ready: SimTime,
        source: Source,
    ) -> (SimTime, SimTime) {
        let unit = self.locate(block).0;
        let data_in = self.timing.command_ns + self.timing.page_transfer_ns * pages as u64;
        let xfer_start = self.book_unit(block, false, ready, data_in + t_prog, data_in);
        let end = xfer_start + data_in + t_prog;
        #[cfg(test)]
        self.booked.push((block, 1, xfer_start, end));
        self.note_order(block, end, true);
        self.note_busy(unit, source, t_prog);
        self.counters.by_source.0[source as usize].wait_ns += xfer_start - ready;
        (xfer_start, end)
    }

    /// Book an erase: (command start, end).
    #[inline]
    pub(super) fn book_erase(
        &mut self,
        block: BlockId,
        mode: BlockMode,
        ready: SimTime,
        source: Source,
    ) -> (SimTime, SimTime) {
        let unit = self.locate(block).0;
        let t_bers = self.timing.erase(mode);
        let cmd = self.timing.command_ns;
        let cmd_start = self.book_unit(block, true, ready, cmd + t_bers, cmd);
        let end = cmd_start + cmd + t_bers;
        #[cfg(test)]
        self.booked.push((block, 2, cmd_start, end));
        self.note_order(block, end, true);
        self.note_busy(unit, source, t_bers);
        self.counters.by_source.0[source as usize].wait_ns += cmd_start - ready;
        (cmd_start, end)
    }

    fn note_busy(&mut self, unit: usize, source: Source, ns: u64) {
        self.unit_busy_ns[unit] += ns;
        self.counters.by_source.0[source as usize].busy_ns += ns;
    }
}
