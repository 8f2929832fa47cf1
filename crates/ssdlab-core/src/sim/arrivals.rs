//! Layer: sim. Where the run's requests come from: the host over the workload's source, how
//! it is driven (open loop at arrival times, or closed loop keeping N outstanding, with
//! independent jobs), the closed-loop request held for an outside agent, and the counts of
//! requests issued and completed.

use crate::error::Result;
use crate::units::{Lpn, SimTime};
use crate::workload::host::{Host, HostRequest};
use crate::workload::OpenWorkload;

pub(super) struct Arrivals {
    pub host: Host,
    /// Closed loop: the requests kept outstanding; None: open loop.
    pub closed_depth: Option<u32>,
    /// In closed loop, the source's independent jobs (`RecordSource::jobs`): a completion then
    /// asks its own job for the next request. None: one stream, read ahead for prefetching.
    jobs: Option<u32>,
    /// Whether the source has run out (or `stop_after_ns` passed).
    source_done: bool,
    stop_after_ns: Option<SimTime>,
    pub expected_requests: Option<u64>,
    pub issued: u64,
    pub completed: u64,
    /// The start phase's closed-loop slots: issued so far, and in all (`start`).
    start_slots: (u32, u32),
    /// A closed-loop request fetched but not yet issued: its issue waits for the decisions an
    /// outside agent must take before it (`decisions.rs`).
    pub held: Option<HostRequest>,
    /// The pages of the request being issued (reused: no allocation a request).
    pub lpn_buf: Vec<Lpn>,
}

impl Arrivals {
    pub fn new(w: OpenWorkload) -> Arrivals {
        Arrivals {
            host: w.host,
            closed_depth: w.closed_depth,
            jobs: w.jobs,
            source_done: false,
            stop_after_ns: w.stop_after_ns,
            expected_requests: w.expected_requests,
            issued: 0,
            completed: 0,
            start_slots: (0, 0),
            held: None,
            lpn_buf: Vec::new(),
        }
    }

    /// Whether requests are issued as others complete (closed loop), not at arrival times.
    #[inline(always)]
    pub fn closed(&self) -> bool {
        self.closed_depth.is_some()
    }

    /// The next request: job `job`'s with independent jobs in closed loop (the job whose
    /// request completed, or the job a start-up slot belongs to), else the one stream's.
    /// None once the source has run out or the next request would be issued after
    /// `duration_ns` (a closed loop issues at `now`, an open loop at the arrival).
    #[inline]
    pub fn fetch(&mut self, job: u32, now: SimTime) -> Result<Option<HostRequest>> {
        if self.source_done {
            return Ok(None);
        }
        let next = match self.jobs {
            None => self.host.next_request()?,
            Some(_) => self.host.next_request_of(job)?,
        };
        match next {
            Some(r) if self.stop_after_ns.is_none_or(|stop| r.arrival_ns.max(now) <= stop) => Ok(Some(r)),
            _ => {
                self.source_done = true;
                Ok(None)
            }
        }
    }

    /// The workload starts: in closed loop, its queue depth of start slots to issue
    /// (`next_start_slot`). False in open loop (its first arrival is fetched instead).
    pub fn start(&mut self) -> bool {
        match self.closed_depth {
            Some(depth) => {
                self.start_slots = (0, depth);
                true
            }
            None => false,
        }
    }

    /// The next start slot's request, if any is left: independent jobs take the slots in turn,
    /// `iodepth` each.
    pub fn next_start_slot(&mut self, now: SimTime) -> Result<Option<HostRequest>> {
        let jobs = self.jobs.unwrap_or(1).max(1);
        if self.start_slots.0 >= self.start_slots.1 {
            return Ok(None);
        }
        let slot = self.start_slots.0;
        self.start_slots.0 += 1;
        let r = self.fetch(slot % jobs, now)?;
        if r.is_none() {
            self.start_slots.0 = self.start_slots.1;
        }
        Ok(r)
    }
}
