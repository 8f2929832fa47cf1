//! Layer: device. A channel's bookings: sorted, non-overlapping busy intervals. A new booking
//! takes the first idle gap at or after its earliest start that is long enough.
//!
//! Stored as a gap buffer: the intervals before the insertion point in `front` (ascending) and
//! those after it in `back` (descending, so the first one after the gap is `back.last()`).
//! Inserting moves the gap to the insertion point, which costs the distance from the previous
//! insertion: near zero in the common patterns (appends after everything; a GC reclaim on one
//! plane interleaving its bookings, in time order, with hundreds already booked on another plane
//! of the channel). A plain sorted VecDeque paid a memmove of half the calendar there, and a
//! BTreeMap was slower still (measured, docs/performance.md). A booking among the first few
//! intervals (an array unit filling an idle gap it left, near now) is inserted in place instead,
//! moving only the intervals before it, so the gap stays with the appends.

use crate::units::{Nanos, SimTime};
use std::collections::VecDeque;

/// Insertions at most this far from the start are made in place (see `book`).
const IN_PLACE_MAX: usize = 32;

#[derive(Debug, Default, Clone)]
pub struct Calendar {
    /// Intervals before the gap, ascending by start.
    front: VecDeque<(SimTime, SimTime)>,
    /// Intervals after the gap, descending by start.
    back: Vec<(SimTime, SimTime)>,
}

impl Calendar {
    pub fn clear(&mut self) {
        self.front.clear();
        self.back.clear();
    }

    fn len(&self) -> usize {
        self.front.len() + self.back.len()
    }

    /// The i-th interval in time order.
    fn get(&self, i: usize) -> (SimTime, SimTime) {
        if i < self.front.len() {
            self.front[i]
        } else {
            self.back[self.back.len() - 1 - (i - self.front.len())]
        }
    }

    /// Move the gap so that exactly `i` intervals precede it.
    fn move_gap(&mut self, i: usize) {
        while self.front.len() > i {
            let x = self.front.pop_back().expect("front longer than i");
            self.back.push(x);
        }
        while self.front.len() < i {
            let x = self.back.pop().expect("enough intervals after the gap");
            self.front.push_back(x);
        }
    }

    /// Drop intervals that ended at or before `now`.
    #[inline]
    pub fn prune(&mut self, now: SimTime) {
        // Called for every channel at every event; usually nothing has ended since the last.
        let first = self.front.front().or(self.back.last());
        if first.is_some_and(|&(_, e)| e <= now) {
            self.prune_ended(now);
        }
    }

    #[inline(never)]
    fn prune_ended(&mut self, now: SimTime) {
        loop {
            let first = match self.front.front() {
                Some(&x) => x,
                None => match self.back.last() {
                    Some(&x) => x,
                    None => return,
                },
            };
            if first.1 > now {
                return;
            }
            if self.front.pop_front().is_none() {
                self.back.pop();
            }
        }
    }

    /// Number of intervals ending at or before `t` (they are sorted by end too). Searched by
    /// galloping outwards from the gap, since bookings cluster near the last insertion, then
    /// by bisection inside the bracket the gallop found: logarithmic in the distance from the
    /// gap (array units' gap searches query a channel far from its last insertion).
    fn ended_by(&self, t: SimTime) -> usize {
        let f = self.front.len();
        if self.front.back().is_some_and(|&(_, e)| e > t) {
            // The boundary lies in `front`: gallop backwards from its end when it is near it
            // (in time), else bisect the whole of `front` (its two slices bisect cheaply).
            let first_end = self.front[0].1;
            let last_end = self.front[f - 1].1;
            if t < first_end {
                return 0;
            }
            if t - first_end < last_end - t {
                return self.front.partition_point(|&(_, e)| e <= t);
            }
            let mut step = 1;
            let mut hi = f - 1; // front[hi] ends after t
            loop {
                let lo = hi.saturating_sub(step);
                if lo == 0 || self.front[lo].1 <= t {
                    // The first index in lo..=hi ending after t.
                    let (mut a, mut b) = (lo, hi);
                    while a < b {
                        let m = (a + b) / 2;
                        if self.front[m].1 <= t {
                            a = m + 1;
                        } else {
                            b = m;
                        }
                    }
                    return a;
                }
                hi = lo;
                step *= 2;
            }
        }
        // Every interval of `front` ended by t; the boundary lies in `back` (descending, its
        // last element is the first after the gap): gallop from its end.
        let b = self.back.len();
        let mut ended = 0;
        let mut step = 1;
        while ended < b {
            let probe = (ended + step).min(b);
            if self.back[b - probe].1 <= t {
                ended = probe;
                step *= 2;
            } else {
                // back[b - 1 - k] ends by t for k < ended, not for k = probe - 1: bisect.
                let (mut a, mut c) = (ended, probe - 1);
                while a < c {
                    let m = (a + c) / 2;
                    if self.back[b - 1 - m].1 <= t {
                        a = m + 1;
                    } else {
                        c = m;
                    }
                }
                ended = a;
                break;
            }
        }
        f + ended
    }

    /// The start of the first idle gap at or after `earliest` that holds `duration` and the
    /// index of the first interval after it, if that start is not after `latest`. The search
    /// stops at `latest` (a calendar far behind its bookings would be walked to the end
    /// otherwise).
    #[inline(always)]
    fn fit(&self, earliest: SimTime, duration: Nanos, latest: SimTime) -> Option<(SimTime, usize)> {
        let n = self.len();
        let mut candidate = earliest;
        for i in self.ended_by(earliest)..n {
            if candidate > latest {
                return None;
            }
            let (s, e) = self.get(i);
            if s >= candidate + duration {
                return (candidate <= latest).then_some((candidate, i));
            }
            candidate = candidate.max(e);
        }
        (candidate <= latest).then_some((candidate, n))
    }

    /// Where `book(earliest, duration)` would start, if not after `latest`; without booking.
    pub fn first_fit_by(&self, earliest: SimTime, duration: Nanos, latest: SimTime) -> Option<SimTime> {
        if duration == 0 {
            return (earliest <= latest).then_some(earliest);
        }
        self.fit(earliest, duration, latest).map(|(start, _)| start)
    }

    /// Book `duration` starting no earlier than `earliest`; returns the start.
    #[inline]
    pub fn book(&mut self, earliest: SimTime, duration: Nanos) -> SimTime {
        if duration == 0 {
            return earliest;
        }
        if self.back.is_empty() {
            // The gap is at the end and the booking comes after everything (four bookings in
            // five on randwrite_gc): append, merging when they touch, without a search.
            match self.front.back_mut() {
                Some(last) if last.1 == earliest => {
                    last.1 = earliest + duration;
                    return earliest;
                }
                Some(&mut (_, end)) if end > earliest => return self.book_searched(earliest, duration),
                _ => {
                    self.front.push_back((earliest, earliest + duration));
                    return earliest;
                }
            }
        }
        self.book_searched(earliest, duration)
    }

    /// `book` where the booking may land before the last interval or the gap is not at the end.
    #[inline(never)]
    fn book_searched(&mut self, earliest: SimTime, duration: Nanos) -> SimTime {
        let (candidate, insert_at) =
            self.fit(earliest, duration, SimTime::MAX).expect("an unbounded search always fits");
        let f = self.front.len();
        if insert_at < f.min(IN_PLACE_MAX) {
            // Among the first few intervals (an array unit filling an idle gap it left, near
            // now, while appends go on at the end): insert in place, moving only the intervals
            // before it, and leave the gap where the appends need it. Further in, moving the
            // gap is cheaper over a run of insertions (a GC reclaim's bookings advancing
            // through the calendar).
            match insert_at.checked_sub(1).map(|i| &mut self.front[i]) {
                Some(prev) if prev.1 == candidate => prev.1 = candidate + duration,
                _ => self.front.insert(insert_at, (candidate, candidate + duration)),
            }
            return candidate;
        }
        self.move_gap(insert_at);
        // Merge with the interval just before when they touch (keeps the calendar short).
        if let Some(last) = self.front.back_mut() {
            if last.1 == candidate {
                last.1 = candidate + duration;
                return candidate;
            }
        }
        self.front.push_back((candidate, candidate + duration));
        candidate
    }

    #[cfg(test)]
    fn intervals(&self) -> Vec<(SimTime, SimTime)> {
        (0..self.len()).map(|i| self.get(i)).collect()
    }
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
                let peek = c.first_fit_by(at, duration, latest);
                let start = c.book(at, duration);
                prop_assert_eq!(start, reference_book(&mut reference, at, duration));
                prop_assert_eq!(peek, (start <= latest).then_some(start));
            }
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
