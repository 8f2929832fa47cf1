//! Layer: sim. The event queue: what can happen next in a run, as typed events, and which of
//! them comes first.
//!
//! It holds the request completions (a (time, seq) min-heap: FIFO by `seq` at equal times), the
//! open loop's next arrival and the next idle-time event; the FTL's timer is the FTL's, offered
//! to `next`. Events come in (time, class, seq) order, the classes being, at equal times:
//! completions, then the timer, then the arrival, then the idle event. An event's time is when
//! it happens: a timer or an arrival already due (before `now`) happens at `now`. One exception
//! is kept from the engine this queue was drawn from: an arrival already late against a
//! completion due at `now` goes first (compared on its own arrival time, not on `now`).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::units::SimTime;
use crate::workload::host::HostRequest;
use crate::workload::IoOp;

/// A request served, waiting for its completion time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct Completion {
    pub time: SimTime,
    pub seq: u64,
    pub arrival: SimTime,
    pub pages: u32,
    pub op: IoOp,
    pub offset_bytes: u64,
    pub size_bytes: u64,
    /// The job that issued it (`HostRequest::job`): with independent jobs, the one that issues
    /// the next request when this one completes.
    pub job: u32,
}

/// The kinds of event, in their order at equal times.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Class {
    /// The earliest completion (still in the queue: `pop_completion` takes it).
    Completion,
    /// The FTL's timer fires.
    Timer,
    /// The open loop's next request arrives (still in the queue: `take_arrival` takes it).
    Arrival,
    /// The idle gap closes, or the idle work done last ends, with the host still idle.
    Idle,
}

/// The next event: its class and when it happens (a timer or an arrival already due: `now`).
/// Small on purpose (two registers): the loop asks for one per event.
#[derive(Debug, Clone, Copy)]
pub(super) struct Event {
    pub at: SimTime,
    pub class: Class,
}

#[derive(Default)]
pub(super) struct EventQueue {
    completions: BinaryHeap<Reverse<Completion>>,
    /// The last sequence number given (requests are numbered from 1; the warm-up's count too,
    /// and a warm drive carries it on).
    seq: u64,
    /// The open loop's next request, fetched ahead (None in closed loop).
    arrival: Option<HostRequest>,
    /// The next idle-time event: only while no request is outstanding (and not in closed loop).
    idle_wake: Option<SimTime>,
}

impl EventQueue {
    /// A queue that numbers requests on from `seq`.
    pub fn starting_at(seq: u64) -> EventQueue {
        EventQueue { seq, ..EventQueue::default() }
    }

    pub fn seq(&self) -> u64 {
        self.seq
    }

    /// The next request's sequence number, taken.
    #[inline(always)]
    pub fn next_seq(&mut self) -> u64 {
        self.seq += 1;
        self.seq
    }

    /// The next event at `now`, given the FTL's next timer; None once no arrival is pending and
    /// no request outstanding (the workload has run out: a timer or idle time alone is no
    /// reason to go on).
    #[inline(always)]
    pub fn next(&self, now: SimTime, timer: Option<SimTime>) -> Option<Event> {
        let next_completion = self.completions.peek().map(|Reverse(c)| c.time);
        let arrival_first = match (&self.arrival, next_completion) {
            (None, None) => return None,
            (Some(req), Some(t)) => req.arrival_ns < t,
            (Some(_), None) => true,
            (None, Some(_)) => false,
        };
        // A policy's timer fires at its time, host activity or not, while the workload lasts;
        // at equal times after completions, before idle events and arrivals.
        if let Some(t) = timer {
            if next_completion.is_none_or(|c| t < c)
                && self.arrival.is_none_or(|req| t <= req.arrival_ns.max(now))
                && self.idle_wake.is_none_or(|w| t <= w)
            {
                return Some(Event { at: t.max(now), class: Class::Timer });
            }
        }
        if arrival_first {
            let at = self.arrival.as_ref().expect("arrival_first implies a pending request").arrival_ns.max(now);
            // Idle time: only between requests (nothing outstanding, another arrival pending),
            // strictly before that arrival.
            return Some(match self.idle_wake {
                Some(w) if w < at => Event { at: w, class: Class::Idle },
                _ => Event { at, class: Class::Arrival },
            });
        }
        Some(Event { at: next_completion.expect("a completion is next"), class: Class::Completion })
    }

    /// A request served at `now` completes at `c.time`.
    #[inline(always)]
    pub fn push_completion(&mut self, c: Completion) {
        self.completions.push(Reverse(c));
    }

    /// The earliest completion, taken (`Event::Completion` said there is one).
    #[inline(always)]
    pub fn pop_completion(&mut self) -> Completion {
        let Some(Reverse(c)) = self.completions.pop() else { unreachable!("peeked a completion") };
        c
    }

    /// Whether any request is outstanding.
    #[inline(always)]
    pub fn outstanding(&self) -> bool {
        !self.completions.is_empty()
    }

    /// The open loop's next arrival (None: no more, or closed loop).
    #[inline(always)]
    pub fn set_arrival(&mut self, req: Option<HostRequest>) {
        self.arrival = req;
    }

    /// Whether the pending arrival is a host write (outside agents decide before those).
    pub fn arrival_is_write(&self) -> bool {
        self.arrival.is_some_and(|req| req.op == IoOp::Write)
    }

    /// The arrival `next` said comes next, taken out to be issued.
    #[inline(always)]
    pub fn take_arrival(&mut self) -> HostRequest {
        self.arrival.take().expect("an arrival is next")
    }

    /// The next idle-time event (None: none until the host goes idle again).
    #[inline(always)]
    pub fn set_idle_wake(&mut self, at: Option<SimTime>) {
        self.idle_wake = at;
    }

    /// Every event dropped (the timed warm-up is over); the sequence numbers go on.
    pub fn clear(&mut self) {
        self.completions.clear();
        self.arrival = None;
        self.idle_wake = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn arrival(at: SimTime, op: IoOp) -> HostRequest {
        HostRequest {
            arrival_ns: at,
            op,
            offset_bytes: 0,
            size_bytes: 4096,
            first_page: 0,
            pages: 1,
            partial_head: false,
            partial_tail: false,
            job: 0,
        }
    }

    fn completion(time: SimTime, seq: u64) -> Completion {
        Completion { time, seq, arrival: 0, pages: 1, op: IoOp::Read, offset_bytes: 0, size_bytes: 4096, job: 0 }
    }

    fn next(q: &EventQueue, now: SimTime, timer: Option<SimTime>) -> Option<(SimTime, Class)> {
        q.next(now, timer).map(|e| (e.at, e.class))
    }

    #[test]
    fn completions_come_in_time_then_seq_order() {
        let mut q = EventQueue::default();
        q.push_completion(completion(20, 1));
        q.push_completion(completion(10, 3));
        q.push_completion(completion(10, 2));
        let order: Vec<(SimTime, u64)> = (0..3).map(|_| q.pop_completion()).map(|c| (c.time, c.seq)).collect();
        assert_eq!(order, [(10, 2), (10, 3), (20, 1)]);
        assert!(!q.outstanding());
    }

    #[test]
    fn at_equal_times_completion_then_timer_then_arrival_then_idle() {
        let mut q = EventQueue::default();
        q.push_completion(completion(100, 1));
        q.set_arrival(Some(arrival(100, IoOp::Write)));
        assert_eq!(next(&q, 50, Some(100)), Some((100, Class::Completion)));
        q.pop_completion();
        assert_eq!(next(&q, 100, Some(100)), Some((100, Class::Timer)));
        assert_eq!(next(&q, 100, None), Some((100, Class::Arrival)));
        assert!(q.arrival_is_write());
        // The idle event goes only strictly before the arrival.
        q.set_idle_wake(Some(100));
        assert_eq!(next(&q, 100, None), Some((100, Class::Arrival)));
        q.set_idle_wake(Some(99));
        assert_eq!(next(&q, 90, Some(99)), Some((99, Class::Timer)));
        assert_eq!(next(&q, 90, Some(100)), Some((99, Class::Idle)));
        assert_eq!(q.take_arrival().arrival_ns, 100);
    }

    #[test]
    fn a_timer_or_an_arrival_already_due_happens_now() {
        let mut q = EventQueue::default();
        q.set_arrival(Some(arrival(10, IoOp::Read)));
        assert_eq!(next(&q, 50, None), Some((50, Class::Arrival)));
        assert_eq!(next(&q, 50, Some(40)), Some((50, Class::Timer)));
        assert!(!q.arrival_is_write());
    }

    #[test]
    fn a_late_arrival_goes_before_a_completion_due_now() {
        // Kept from the engine's first loop: the arrival is compared on its own time.
        let mut q = EventQueue::default();
        q.push_completion(completion(50, 1));
        q.set_arrival(Some(arrival(10, IoOp::Read)));
        assert_eq!(next(&q, 50, None), Some((50, Class::Arrival)));
        q.set_arrival(Some(arrival(50, IoOp::Read)));
        assert_eq!(next(&q, 50, None), Some((50, Class::Completion)));
    }

    #[test]
    fn nothing_next_once_no_arrival_and_no_request_is_left() {
        let mut q = EventQueue::starting_at(7);
        q.set_idle_wake(Some(5));
        assert_eq!(next(&q, 0, Some(3)), None);
        assert_eq!(q.next_seq(), 8);
        q.push_completion(completion(9, 8));
        q.clear();
        assert_eq!(next(&q, 0, None), None);
        assert_eq!(q.seq(), 8);
    }
}
