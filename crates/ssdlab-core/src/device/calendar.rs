//! Layer: device. A channel's bookings: sorted, non-overlapping busy intervals. A new booking
//! takes the first idle gap at or after its earliest start that is long enough.
//!
//! A VecDeque (binary search for the first interval ending after the earliest start, then a
//! short walk) beat a BTreeMap here: host bookings land near the front, where VecDeque's
//! insert moves the shorter side, and GC bursts append at the back.

use crate::units::{Nanos, SimTime};
use std::collections::VecDeque;

#[derive(Debug, Default, Clone)]
pub struct Calendar {
    /// (start, end) half-open intervals, sorted by start, non-overlapping.
    busy: VecDeque<(SimTime, SimTime)>,
}

impl Calendar {
    pub fn clear(&mut self) {
        self.busy.clear();
    }

    /// Drop intervals that ended at or before `now`.
    pub fn prune(&mut self, now: SimTime) {
        while let Some(&(_, end)) = self.busy.front() {
            if end > now {
                break;
            }
            self.busy.pop_front();
        }
    }

    /// Book `duration` starting no earlier than `earliest`; returns the start.
    pub fn book(&mut self, earliest: SimTime, duration: Nanos) -> SimTime {
        if duration == 0 {
            return earliest;
        }
        // Fast path: after the last booking.
        match self.busy.back() {
            None => {
                self.busy.push_back((earliest, earliest + duration));
                return earliest;
            }
            Some(&(_, end)) if end <= earliest => {
                self.push_merged_back(earliest, duration);
                return earliest;
            }
            _ => {}
        }
        // Intervals are sorted and disjoint, so also sorted by end: skip every interval that
        // ends by `earliest` with a binary search, then walk forward to the first gap that fits.
        let first = self.busy.partition_point(|&(_, e)| e <= earliest);
        let mut candidate = earliest;
        let mut insert_at = self.busy.len();
        for i in first..self.busy.len() {
            let (s, e) = self.busy[i];
            if s >= candidate + duration {
                insert_at = i;
                break;
            }
            candidate = candidate.max(e);
        }
        if insert_at == self.busy.len() {
            self.push_merged_back(candidate, duration);
        } else {
            self.busy.insert(insert_at, (candidate, candidate + duration));
        }
        candidate
    }

    fn push_merged_back(&mut self, start: SimTime, duration: Nanos) {
        if let Some(last) = self.busy.back_mut() {
            if last.1 == start {
                last.1 = start + duration;
                return;
            }
        }
        self.busy.push_back((start, start + duration));
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
        c.prune(200);
        assert_eq!(c.book(300, 5), 300);
    }

    proptest! {
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
