//! Layer: device. A channel's bookings: sorted, non-overlapping busy intervals. A new booking
//! takes the first idle gap at or after its earliest start that is long enough.
//!
//! Stored as a Vec of sorted chunks of at most `CHUNK_LEN` intervals, each chunk's slots in one
//! boxed array. A search bisects the chunks by their first start (reading only the chunk
//! headers), then the one chunk by end; an insertion shifts the slots of one chunk, splitting it
//! when full. So every operation costs O(log n + CHUNK_LEN) wherever in the calendar it lands,
//! plus a move of the 32-byte chunk headers behind a chunk split or dropped (one per 32
//! intervals or more). Pruning advances the first chunk's head and drops whole chunks, whose
//! slot arrays wait in `spare` for the next chunk made: splits do not allocate.
//!
//! Three shortcuts keep the common cases cheap: a booking after everything (four in five on
//! randwrite_gc) appends to the last chunk without a search; a search first steps forward from
//! just after the previous insertion (`finger`), where the next one usually lands (a GC
//! reclaim's bookings advance through the calendar in time order); and `prune`, called for
//! every channel at every event, reads one field. Without the finger, these chunks cost 17 %
//! more instructions than the gap buffer in a replay of randwrite_gc's calendar operations (an
//! earlier try, 32-interval chunks, cost randwrite_gc 4 %: docs/performance.md, issue #10).
//!
//! Why not the gap buffer it replaced (the intervals before the last insertion ascending, those
//! after it descending, moved one at a time to the next insertion point): demand-based FTL
//! mappings alternate between the middle of a long calendar (a translation read booked at a
//! plane's free time, far inside the channel's backlog) and its end, so each booking moved the
//! gap by about 270 of the channel's 1,400 intervals: 55 % of randwrite_dftl's run time (the
//! search itself walked 0.08 intervals per call). With chunks, callgrind counts 84 % fewer
//! instructions on randwrite_dftl and 0.7 % fewer on randwrite_gc. A VecDeque of chunks cost
//! 25-33 % more instructions than this Vec in a replay of the benchmarks' calendar operations
//! (indexing and bisecting a deque's two halves); a plain sorted VecDeque pays a memmove of half
//! the calendar per insertion, and a BTreeMap was slower still (docs/performance.md).

use crate::units::{Nanos, SimTime};
use std::fmt;

/// Intervals per chunk: an insertion shifts at most one chunk (1 KiB at 64), and the
/// bisection over chunks has n / 32 or fewer to search (only the first and the last chunk can
/// hold fewer than half). 32 and 128 cost up to 2-3 % more instructions than 64.
const CHUNK_LEN: usize = 64;

/// Intervals `ended_by` steps over from the finger before it bisects instead (2 and 16 measured
/// slower than 8, by under 3 %).
const FINGER_STEPS: usize = 8;

/// A busy interval: start and end.
type Interval = (SimTime, SimTime);

type Slots = Box<[Interval; CHUNK_LEN]>;

#[derive(Clone)]
struct Chunk {
    /// The start of `slots[head]`, kept here so that the bisection over chunks reads only this
    /// array (the first chunk's may be older and earlier: nothing is searched before it).
    start: SimTime,
    /// `slots[head..len]` are this chunk's intervals, ascending; never empty while in `chunks`.
    slots: Slots,
    head: usize,
    len: usize,
}

impl Chunk {
    fn live(&self) -> &[Interval] {
        &self.slots[self.head..self.len]
    }
}

/// Where an interval goes: before `slots[slot]` of chunk `chunk`, or after everything when
/// `chunk` is the number of chunks.
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq)]
struct Place {
    chunk: usize,
    slot: usize,
}

/// A booking `Calendar::fit_by` found: its start and where it goes, valid until the calendar
/// changes.
#[derive(Clone, Copy, Debug)]
pub struct Fit {
    pub start: SimTime,
    duration: Nanos,
    place: Place,
}

pub struct Calendar {
    /// The intervals in time order, chunk after chunk.
    chunks: Vec<Chunk>,
    /// Slot arrays of chunks that were emptied, for the next chunk made (no malloc per split).
    spare: Vec<Slots>,
    /// Just after the last booking that was not an append: the next usually lands at or a few
    /// intervals after it (a GC reclaim's bookings advance through the calendar in time order).
    /// A hint, checked before use: pruning and splitting move intervals under it.
    finger: Place,
    /// No later than the first interval's end (MAX when there is none), so that `prune`, called
    /// for every channel at every event, tells that nothing ended from one field.
    first_end_bound: SimTime,
}

impl Default for Calendar {
    fn default() -> Self {
        Calendar { chunks: Vec::new(), spare: Vec::new(), finger: Place::default(), first_end_bound: SimTime::MAX }
    }
}

impl Clone for Calendar {
    fn clone(&self) -> Self {
        // Spare slots hold nothing: not copied.
        Calendar {
            chunks: self.chunks.clone(),
            spare: Vec::new(),
            finger: self.finger,
            first_end_bound: self.first_end_bound,
        }
    }
}

impl fmt::Debug for Calendar {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.chunks.iter().flat_map(Chunk::live)).finish()
    }
}

impl Calendar {
    pub fn clear(&mut self) {
        self.spare.extend(self.chunks.drain(..).map(|c| c.slots));
        self.first_end_bound = SimTime::MAX;
    }

    /// A chunk holding `interval` alone, its slots recycled when any are spare.
    #[inline]
    fn new_chunk(&mut self, interval: Interval) -> Chunk {
        let mut slots = self.spare.pop().unwrap_or_else(fresh_slots);
        slots[0] = interval;
        Chunk { start: interval.0, slots, head: 0, len: 1 }
    }

    /// Drop intervals that ended at or before `now`.
    #[inline]
    pub fn prune(&mut self, now: SimTime) {
        // Called for every channel at every event; usually nothing has ended since the last.
        if self.first_end_bound <= now {
            self.prune_ended(now);
        }
    }

    /// Whole chunks found by bisection; inside the first left, a step per interval dropped
    /// (between two events, an interval or two end: cheaper than a bisection).
    #[inline(never)]
    fn prune_ended(&mut self, now: SimTime) {
        // Chunks before one starting by now are over, and the one before the first starting
        // after now may be (searched among the chunks' starts, not their slots).
        let mut ended = self.chunks.get(1..).map_or(0, |rest| rest.partition_point(|c| c.start <= now));
        if self.chunks.get(ended).is_some_and(|c| c.slots[c.len - 1].1 <= now) {
            ended += 1;
        }
        if ended > 0 {
            self.spare.extend(self.chunks.drain(..ended).map(|c| c.slots));
        }
        self.first_end_bound = match self.chunks.first_mut() {
            Some(first) => {
                // Its last interval ends after now.
                while first.slots[first.head].1 <= now {
                    first.head += 1;
                }
                first.slots[first.head].1
            }
            None => SimTime::MAX,
        };
    }

    /// The first interval ending after `t` (they are sorted by end too), or the end of the chunk
    /// before it.
    #[inline(always)]
    fn ended_by(&self, t: SimTime) -> Place {
        // A few steps forward from the finger when everything before it ended by `t`.
        let Place { chunk: k, slot: j } = self.finger;
        if let Some(c) = self.chunks.get(k) {
            let before_ended = if j == c.head { k == 0 || c.start <= t } else { j > c.head && c.slots[j - 1].1 <= t };
            if before_ended && j < c.len {
                let stop = c.len.min(j + FINGER_STEPS);
                if let Some(i) = (j..stop).find(|&i| c.slots[i].1 > t) {
                    return Place { chunk: k, slot: i };
                }
            }
        }
        self.ended_by_searched(t)
    }

    fn ended_by_searched(&self, t: SimTime) -> Place {
        // Intervals before a chunk starting at or before `t` ended by `t`; the first of a chunk
        // starting after `t` ends after it.
        let chunk = self.chunks.get(1..).map_or(0, |rest| rest.partition_point(|c| c.start <= t));
        let slot = self.chunks.get(chunk).map_or(0, |c| c.head + c.live().partition_point(|&(_, e)| e <= t));
        Place { chunk, slot }
    }

    /// The start of the first idle gap at or after `earliest` that holds `duration` and the
    /// place of the first interval after it, if that start is not after `latest`. The search
    /// stops at `latest` (a calendar far behind its bookings would be walked to the end
    /// otherwise).
    #[inline(always)]
    fn fit(&self, earliest: SimTime, duration: Nanos, latest: SimTime) -> Option<(SimTime, Place)> {
        let Place { chunk: first, slot: first_slot } = self.ended_by(earliest);
        let mut candidate = earliest;
        for (chunk, c) in self.chunks[first..].iter().enumerate() {
            let slot = if chunk == 0 { first_slot } else { c.head };
            for (i, &(s, e)) in c.slots[slot..c.len].iter().enumerate() {
                if candidate > latest {
                    return None;
                }
                if s >= candidate + duration {
                    let place = Place { chunk: first + chunk, slot: slot + i };
                    return (candidate <= latest).then_some((candidate, place));
                }
                candidate = candidate.max(e);
            }
        }
        let end = Place { chunk: self.chunks.len(), slot: 0 };
        (candidate <= latest).then_some((candidate, end))
    }

    /// Where `book(earliest, duration)` would start, if not after `latest`; without booking.
    pub fn first_fit_by(&self, earliest: SimTime, duration: Nanos, latest: SimTime) -> Option<SimTime> {
        self.fit_by(earliest, duration, latest).map(|f| f.start)
    }

    /// `first_fit_by`, with where the booking would go: `book_fit` books it there without
    /// searching again (a unit's gap booking searched the channel twice: 6 % of randwrite_dftl).
    pub fn fit_by(&self, earliest: SimTime, duration: Nanos, latest: SimTime) -> Option<Fit> {
        if duration == 0 {
            return (earliest <= latest).then_some(Fit { start: earliest, duration, place: Place::default() });
        }
        self.fit(earliest, duration, latest).map(|(start, place)| Fit { start, duration, place })
    }

    /// Book what `fit_by` found, the calendar unchanged since; returns the start, as
    /// `book(fit.start, duration)` would.
    pub fn book_fit(&mut self, fit: Fit) -> SimTime {
        let Fit { start, duration, place } = fit;
        if duration == 0 {
            return start;
        }
        debug_assert!(self.fit(start, duration, start).is_some_and(|(_, p)| p == place), "stale fit");
        self.finger = self.insert(place, (start, start + duration));
        self.first_end_bound = self.first_end_bound.min(start + duration);
        start
    }

    /// Book `duration` starting no earlier than `earliest`; returns the start.
    #[inline]
    pub fn book(&mut self, earliest: SimTime, duration: Nanos) -> SimTime {
        if duration == 0 {
            return earliest;
        }
        // After everything (four bookings in five on randwrite_gc): append, merging when they
        // touch, without a search.
        let Some(c) = self.chunks.last_mut() else {
            return self.book_first(earliest, duration);
        };
        let last = &mut c.slots[c.len - 1];
        if last.1 == earliest {
            last.1 = earliest + duration;
            return earliest;
        }
        if last.1 < earliest && c.len < CHUNK_LEN {
            c.slots[c.len] = (earliest, earliest + duration);
            c.len += 1;
            return earliest;
        }
        self.book_searched(earliest, duration)
    }

    /// `book` on an empty calendar (on randwrite_gc, once per request: everything booked for the
    /// one before had ended). Out of line so that `book` stays small enough to inline.
    #[inline(never)]
    fn book_first(&mut self, earliest: SimTime, duration: Nanos) -> SimTime {
        let c = self.new_chunk((earliest, earliest + duration));
        self.chunks.push(c);
        self.first_end_bound = earliest + duration;
        earliest
    }

    /// `book` where the booking may land before the last interval, or starts a chunk.
    #[inline(never)]
    fn book_searched(&mut self, earliest: SimTime, duration: Nanos) -> SimTime {
        let (start, place) = self.fit(earliest, duration, SimTime::MAX).expect("an unbounded search always fits");
        self.finger = self.insert(place, (start, start + duration));
        // When it went first, the first end is its end; else that end is later than the first's.
        self.first_end_bound = self.first_end_bound.min(start + duration);
        start
    }

    /// Insert `interval` at `place` (it overlaps nothing there); returns the place after it.
    fn insert(&mut self, place: Place, interval: Interval) -> Place {
        let Place { chunk: k, slot: j } = place;
        let at_chunk_start = self.chunks.get(k).is_none_or(|c| j == c.head);
        if at_chunk_start {
            // The interval before is the previous chunk's last: merge with it when they touch
            // (keeps the calendar short), else append to that chunk when it has room, else
            // take a free slot before this chunk's head, else a new chunk.
            if let Some(prev) = k.checked_sub(1).map(|p| &mut self.chunks[p]) {
                let last = &mut prev.slots[prev.len - 1];
                if last.1 == interval.0 {
                    last.1 = interval.1;
                    return place;
                }
                if prev.len < CHUNK_LEN {
                    prev.slots[prev.len] = interval;
                    prev.len += 1;
                    return place;
                }
            }
            if let Some(c) = self.chunks.get_mut(k).filter(|c| c.head > 0) {
                c.head -= 1;
                c.slots[c.head] = interval;
                c.start = interval.0;
                return place;
            }
            if k == self.chunks.len() {
                let c = self.new_chunk(interval);
                self.chunks.push(c);
                return Place { chunk: k, slot: 1 };
            }
        } else {
            let prev = &mut self.chunks[k].slots[j - 1];
            if prev.1 == interval.0 {
                prev.1 = interval.1;
                return place;
            }
        }
        let c = &mut self.chunks[k];
        // Shift whichever side of the insertion point is shorter and has room to move into.
        let after = if c.head > 0 && (c.len == CHUNK_LEN || j - c.head < c.len - j) {
            c.slots.copy_within(c.head..j, c.head - 1);
            c.head -= 1;
            c.slots[j - 1] = interval;
            j
        } else if c.len < CHUNK_LEN {
            c.slots.copy_within(j..c.len, j + 1);
            c.slots[j] = interval;
            c.len += 1;
            j + 1
        } else {
            // Full from slot 0: split in halves, then insert into the half that holds `j`.
            let half = CHUNK_LEN / 2;
            let mut upper = self.new_chunk(self.chunks[k].slots[half]);
            let c = &mut self.chunks[k];
            upper.slots[..half].copy_from_slice(&c.slots[half..]);
            upper.len = half;
            c.len = half;
            self.chunks.insert(k + 1, upper);
            let place = if j < half { Place { chunk: k, slot: j } } else { Place { chunk: k + 1, slot: j - half } };
            return self.insert(place, interval);
        };
        c.start = c.slots[c.head].0;
        Place { chunk: k, slot: after }
    }

    #[cfg(test)]
    fn intervals(&self) -> Vec<(SimTime, SimTime)> {
        self.chunks.iter().flat_map(Chunk::live).copied().collect()
    }

    /// Panics unless the chunks are as the searches assume.
    #[cfg(test)]
    fn check_chunks(&self) {
        let n = self.chunks.len();
        for (k, c) in self.chunks.iter().enumerate() {
            assert!(c.head < c.len && c.len <= CHUNK_LEN, "chunk {k}: head {} len {}", c.head, c.len);
            if k > 0 {
                assert_eq!(c.start, c.slots[c.head].0, "chunk {k}'s start");
                assert_eq!(c.head, 0, "chunk {k}'s head");
            }
            if k > 0 && k + 1 < n {
                // Only the first and the last chunk may hold fewer than half (the bound on the
                // number of chunks).
                assert!(c.len >= CHUNK_LEN / 2, "chunk {k} of {n} holds {}", c.len);
            }
        }
        let all = self.intervals();
        assert!(all.windows(2).all(|w| w[0].0 < w[0].1 && w[0].1 <= w[1].0), "not sorted and disjoint");
        assert!(all.first().is_none_or(|&(_, e)| self.first_end_bound <= e), "first_end_bound after the first end");
    }
}

/// Slots for a chunk when none are spare (out of line: rare once a run is under way).
#[cold]
fn fresh_slots() -> Slots {
    Box::new([(0, 0); CHUNK_LEN])
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn fills_gaps_and_queues_otherwise() {
        let mut c = Calendar::default();
        assert_eq!(c.book(100, 10), 100); // [100,110)
        assert_eq!(c.book(0, 10), 0); // gap before
        assert_eq!(c.book(95, 10), 110); // [95,105) collides -> after 110
        assert_eq!(c.book(10, 85), 10); // exactly fits [10,95)
        assert_eq!(c.book(0, 1), 95); // the gap [95, 100) is the first that fits
        assert_eq!(c.book(0, 6), 120); // no gap of 6 left before 120
                                       // Touching bookings merge: the busy set is [0, 96) and [100, 126).
        assert_eq!(c.intervals(), vec![(0, 96), (100, 126)]);

        c.prune(200);
        assert_eq!(c.book(300, 5), 300);
    }

    /// The obvious implementation: a sorted list scanned from the start.
    fn reference_book(busy: &mut Vec<(u64, u64)>, earliest: u64, duration: u64) -> u64 {
        let mut candidate = earliest;
        for &(s, e) in busy.iter() {
            if e <= candidate {
                continue;
            }
            if s >= candidate + duration {
                break;
            }
            candidate = candidate.max(e);
        }
        busy.push((candidate, candidate + duration));
        busy.sort();
        candidate
    }

    proptest! {
        /// Same answers as the reference, whatever the order of bookings and prunes.
        #[test]
        fn matches_the_reference(ops in proptest::collection::vec((0u64..5000, 1u64..80, 0u8..10), 1..600)) {
            let mut c = Calendar::default();
            let mut reference = Vec::new();
            let mut now = 0;
            for (earliest, duration, action) in ops {
                if action == 0 {
                    now += earliest / 10;
                    c.prune(now);
                    reference.retain(|&(_, e)| e > now);
                    continue;
                }
                let at = now + earliest;
                let latest = at + (action as u64) * 40;
                let fit = c.fit_by(at, duration, latest);
                let peek = fit.map(|f| f.start);
                // Half the fits found are booked where they were found (a unit's gap booking).
                let start = match fit {
                    Some(f) if action % 2 == 1 => c.book_fit(f),
                    _ => c.book(at, duration),
                };
                prop_assert_eq!(start, reference_book(&mut reference, at, duration));
                prop_assert_eq!(peek, (start <= latest).then_some(start));
            }
        }

    }

    proptest! {
        // Each case books thousands of times against a linear reference.
        #![proptest_config(ProptestConfig::with_cases(32))]

        /// Long calendars (thousands of intervals in dozens of chunks): bookings at random depths,
        /// crowded stretches where a booking walks past many short gaps (across chunks),
        /// appends, prunes and clears; the chunk split, recycle and finger paths. Same answers
        /// as the reference, and the same busy time.
        #[test]
        fn long_calendars_match_the_reference(
            ops in proptest::collection::vec((0u16..1000, 0u64..1_000_000, 1u64..100), 1000..4000)
        ) {
            let mut c = Calendar::default();
            let mut reference = Vec::new();
            let mut now = 0;
            for (kind, offset, duration) in ops {
                match kind {
                    0 => {
                        c.clear();
                        reference.clear();
                        continue;
                    }
                    1 => {
                        // A clone answers as the original (it keeps no spare slots).
                        c = c.clone();
                        continue;
                    }
                    2..20 => {
                        now += offset / 50;
                        c.prune(now);
                        reference.retain(|&(_, e)| e > now);
                        c.check_chunks();
                        continue;
                    }
                    _ => {}
                }
                let at = match kind {
                    // Four crowded stretches: short gaps between many bookings.
                    20..120 => now + (offset % 4) * 250_000 + (offset / 4) % 20_000,
                    // Mostly after everything: appends, and new chunks at the end.
                    120..170 => now + 2_000_000 + offset / 8,
                    _ => now + offset,
                };
                let latest = at + (offset % 7) * 50;
                let fit = c.fit_by(at, duration, latest);
                let peek = fit.map(|f| f.start);
                let start = match fit {
                    Some(f) if offset % 2 == 1 => c.book_fit(f),
                    _ => c.book(at, duration),
                };
                prop_assert_eq!(start, reference_book(&mut reference, at, duration));
                prop_assert_eq!(peek, (start <= latest).then_some(start));
            }
            c.check_chunks();
            // Same busy time from now on (the calendar merges touching bookings, the reference
            // does not, so a merged interval may begin before now where the reference's is gone).
            let busy_from_now = |intervals: &[(u64, u64)]| {
                intervals.iter().fold(Vec::<(u64, u64)>::new(), |mut m, &(s, e)| {
                    match m.last_mut() {
                        Some(last) if last.1 == s => last.1 = e,
                        _ => m.push((s.max(now), e)),
                    }
                    m
                })
            };
            prop_assert!(busy_from_now(&c.intervals()) == busy_from_now(&reference), "busy time differs");
        }

        /// Bookings never overlap and never start before their earliest time.
        #[test]
        fn bookings_are_disjoint(ops in proptest::collection::vec((0u64..1000, 1u64..50), 1..60)) {
            let mut c = Calendar::default();
            let mut booked: Vec<(u64, u64)> = Vec::new();
            for (earliest, duration) in ops {
                let start = c.book(earliest, duration);
                prop_assert!(start >= earliest);
                for &(s, e) in &booked {
                    prop_assert!(start + duration <= s || start >= e, "overlap [{start},{}) with [{s},{e})", start + duration);
                }
                booked.push((start, start + duration));
            }
        }
    }
}
