//! Layer: sim. The event loop: the host issues requests (open loop at their arrival times, or
//! closed loop keeping N outstanding), the FTL serves them, completions, timers and idle-time
//! events come back in time order and feed the stats.

use super::*;

impl Simulation {
    /// The next request: job `job`'s with independent jobs in closed loop (the job whose
    /// request completed, or the job a start-up slot belongs to), else the one stream's.
    pub(super) fn fetch(&mut self, job: u32) -> Result<Option<HostRequest>> {
        if self.source_done {
            return Ok(None);
        }
        let next = match self.jobs {
            None => self.host.next_request()?,
            Some(_) => self.host.next_request_of(job)?,
        };
        // A closed loop issues at the completion that frees a slot (`now`), an open loop at
        // the arrival: either way, nothing is issued after `duration_ns`.
        match next {
            Some(r) if self.stop_after_ns.is_none_or(|stop| r.arrival_ns.max(self.now) <= stop) => Ok(Some(r)),
            _ => {
                self.source_done = true;
                Ok(None)
            }
        }
    }

    pub(super) fn issue(&mut self, req: HostRequest, now: SimTime) -> Result<()> {
        debug_assert!(now >= self.now, "arrival at {now} before now {}", self.now);
        self.now = now;
        self.roll_rates(now);
        self.device.advance_to(now);
        self.first_arrival.get_or_insert(now);
        if let Some(since) = self.idle_since.take() {
            if self.idle_counted {
                self.idle.total_ns += now - since;
            }
        }
        (self.idle_counted, self.idle_wake) = (false, None);
        self.free_blocks.offer(now, self.ftl.blocks().free_blocks() as f64);
        if let (Some((occupied, dirty)), Some(b)) = (&mut self.buffer_series, self.ftl.buffer()) {
            occupied.offer(now, b.occupied() as f64);
            dirty.offer(now, b.dirty() as f64);
        }
        // Two-stage prefetch: the mapping entry of the request after next, and (that entry being
        // cached by now) the out-of-band owner entry of the next request's current page.
        if let Some(later) = self.host.peek_lpn(1) {
            self.ftl.touch(later);
        }
        if let Some(next) = self.host.peek_lpn(0) {
            self.ftl.touch_owner_of(next);
        }
        let mut lpns = std::mem::take(&mut self.lpn_buf);
        self.host.lpns(&req, &mut lpns);
        self.seq += 1;
        let page_request = PageRequest {
            seq: self.seq,
            op: req.op,
            lpns: &lpns,
            partial_head: req.partial_head,
            partial_tail: req.partial_tail,
            size_bytes: req.size_bytes,
        };
        let done = self.ftl.serve(&page_request, now, &mut self.device);
        self.lpn_buf = lpns;
        let done = done?;
        self.issued += 1;
        self.queue.push(Reverse(Completion {
            time: done,
            seq: self.seq,
            arrival: now,
            pages: req.pages,
            op: req.op,
            offset_bytes: req.offset_bytes,
            size_bytes: req.size_bytes,
            job: req.job,
        }));
        Ok(())
    }

    pub(super) fn complete(&mut self, c: Completion) -> Result<()> {
        // Events are processed in (time, seq) order: time never runs backwards.
        debug_assert!(c.time >= self.now, "completion at {} before now {}", c.time, self.now);
        self.now = c.time;
        self.roll_rates(c.time);
        self.completed += 1;
        self.last_completion = self.last_completion.max(c.time);
        let latency = c.time - c.arrival;
        self.rates.record(c.op, latency, c.size_bytes);
        let s = &mut self.summary;
        s.requests += 1;
        match c.op {
            IoOp::Read => {
                self.lat_read.record(latency);
                s.reads += 1;
                s.read_bytes += c.size_bytes;
            }
            IoOp::Write => {
                self.lat_write.record(latency);
                s.writes += 1;
                s.write_bytes += c.size_bytes;
            }
            IoOp::Trim => {
                self.lat_trim.record(latency);
                s.trims += 1;
            }
        }
        if let Some(log) = &mut self.log {
            log.push(RequestRecord {
                arrival_ns: c.arrival,
                latency_ns: latency,
                op: c.op,
                offset_bytes: c.offset_bytes,
                size_bytes: c.size_bytes,
            })?;
        }
        let req = RequestInfo { seq: c.seq, op: c.op, pages: c.pages };
        self.ftl.after_served(req, latency, c.time, &mut self.device)
    }

    /// Process up to `max_events` events (arrivals and completions). Returns true when the
    /// workload is finished (then `report()` is final).
    pub fn step(&mut self, max_events: u64) -> Result<bool> {
        if !self.started {
            if !self.warmed {
                self.warm_up()?;
            }
            if self.cfg.warmup.seed.is_some() {
                // The warm-up had its own seed: the run's policies draw from the run's.
                self.ftl.reseed_policies(self.cfg.seed);
            }
            self.start_phase()?;
            self.rates.start_from(self.flash_totals());
            self.started = true;
            self.attach_agents();
        }
        if self.run_events(max_events)? {
            // The end-of-trace flush is an event too: decisions it needs come first.
            if !self.flushed && self.asks_before(false, self.now) {
                return Ok(false);
            }
            self.finish()?;
            return Ok(true);
        }
        Ok(false)
    }

    /// The first requests of the workload: the closed loop's queue depth issued at once, or
    /// the open loop's first arrival. Independent jobs take the slots in turn, `iodepth` each.
    /// The closed loop's slots are issued by `issue_start_slots`, first thing in the event loop.
    pub(super) fn start_phase(&mut self) -> Result<()> {
        match self.closed_depth {
            Some(depth) => self.start_slots = (0, depth),
            None => self.pending = self.fetch(0)?,
        }
        Ok(())
    }

    /// Issue the start phase's closed-loop slots not yet issued, at `now`. Returns true if it
    /// stopped at a decision waiting for an outside agent (the rest follow after `act`).
    fn issue_start_slots(&mut self) -> Result<bool> {
        let jobs = self.jobs.unwrap_or(1).max(1);
        while self.start_slots.0 < self.start_slots.1 {
            let slot = self.start_slots.0;
            self.start_slots.0 += 1;
            let Some(r) = self.fetch(slot % jobs)? else {
                self.start_slots.0 = self.start_slots.1;
                break;
            };
            if self.issue_now(r)? {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// Issue closed-loop request `r` at `now`, once the decisions asked before it are taken
    /// (until then it is held, and issued first when the loop comes back). Returns true if it
    /// stopped at a decision waiting for an outside agent.
    #[inline(always)]
    fn issue_now(&mut self, r: HostRequest) -> Result<bool> {
        if self.asks_before(r.op == IoOp::Write, self.now) {
            self.held = Some(r);
            return Ok(true);
        }
        self.issue(r, self.now)?;
        Ok(self.decision_waiting())
    }

    /// Process up to `max_events` events. Returns true once no arrival is pending and no
    /// request outstanding (the workload has run out).
    /// With an outside agent attached it stops early (false) after the request whose arrival
    /// left a decision waiting (`decisions.rs`).
    pub(super) fn run_events(&mut self, max_events: u64) -> Result<bool> {
        // A closed-loop request held at the last stop is issued first (at the completion that
        // freed its slot, or in its start slot).
        if let Some(r) = self.held.take() {
            if self.issue_now(r)? {
                return Ok(false);
            }
        }
        if self.issue_start_slots()? {
            return Ok(false);
        }
        for _ in 0..max_events {
            let next_completion = self.queue.peek().map(|Reverse(c)| c.time);
            let arrival_first = match (self.pending, next_completion) {
                (None, None) => return Ok(true),
                (Some(req), Some(t)) => req.arrival_ns < t,
                (Some(_), None) => true,
                (None, Some(_)) => false,
            };
            // A policy's timer fires at its time, host activity or not, while the workload
            // lasts; at equal times after completions, before idle events and arrivals.
            let timer_first = self.ftl.next_timer().is_some_and(|t| {
                next_completion.is_none_or(|c| t < c)
                    && self.pending.is_none_or(|req| t <= req.arrival_ns.max(self.now))
                    && self.idle_wake.is_none_or(|w| t <= w)
            });
            // Idle time: only between requests (nothing outstanding, another arrival pending),
            // strictly before that arrival; at equal times completions go first, then idle
            // events, then arrivals.
            let idle_first = arrival_first
                && self.idle_wake.zip(self.pending).is_some_and(|(w, req)| w < req.arrival_ns.max(self.now));
            if timer_first {
                let at = self.ftl.next_timer().expect("timer_first implies a timer").max(self.now);
                if self.asks_before(false, at) {
                    return Ok(false);
                }
                self.timer_event(at)?;
            } else if idle_first {
                let at = self.idle_wake.expect("idle_first implies a wake-up");
                if self.asks_before(false, at) {
                    return Ok(false);
                }
                self.idle_event(at)?;
            } else if arrival_first {
                let req = self.pending.expect("arrival_first implies a pending request");
                let at = req.arrival_ns.max(self.now);
                if self.asks_before(req.op == IoOp::Write, at) {
                    return Ok(false);
                }
                self.pending = None;
                self.issue(req, at)?;
                self.pending = self.fetch(0)?;
                if self.decision_waiting() {
                    return Ok(false);
                }
            } else {
                let at = next_completion.expect("a completion is next");
                if self.asks_before(false, at) {
                    return Ok(false);
                }
                let Some(Reverse(c)) = self.queue.pop() else { unreachable!("peeked a completion") };
                self.complete(c)?;
                if self.queue.is_empty() && self.closed_depth.is_none() {
                    // Nothing outstanding: idle once the gap passes with no arrival.
                    self.idle_since = Some(c.time);
                    self.idle_wake = Some(c.time + self.cfg.idle.gap_ns);
                }
                if self.closed_depth.is_some() {
                    // The freed slot is the completed request's job's (one stream: job 0),
                    // issued at once (held while the decisions before it are taken).
                    if let Some(r) = self.fetch(c.job)? {
                        if self.issue_now(r)? {
                            return Ok(false);
                        }
                    }
                }
            }
        }
        Ok(false)
    }

    /// The idle gap closed at `at`, or the idle work done last ended there with the host still
    /// idle: count the period once and let the FTL work (again), waking at the end of its work.
    pub(super) fn idle_event(&mut self, at: SimTime) -> Result<()> {
        self.now = at;
        self.roll_rates(at);
        self.device.advance_to(at);
        if !self.idle_counted {
            self.idle.periods += 1;
            self.idle_counted = true;
        }
        self.idle_wake = None;
        if self.ftl.works_when_idle() {
            if let Some(end) = self.ftl.on_idle(at, &mut self.device)? {
                self.idle.work_steps += 1;
                self.idle_wake = (end > at).then_some(end);
            }
        }
        Ok(())
    }

    /// A policy's timer fired at `at`. It does not end an idle period (no host activity).
    pub(super) fn timer_event(&mut self, at: SimTime) -> Result<()> {
        self.now = at;
        self.roll_rates(at);
        self.device.advance_to(at);
        self.ftl.on_timer(at, &mut self.device)
    }

    /// Move the per-interval figures on to the interval of an event at `now` (one comparison
    /// while it stays in the interval under way).
    #[inline(always)]
    fn roll_rates(&mut self, now: SimTime) {
        if self.rates.due(now) {
            self.rates.roll(now, self.flash_totals());
        }
    }

    /// The running totals the per-interval figures follow.
    pub(super) fn flash_totals(&self) -> FlashTotals {
        FlashTotals {
            programs: self.device.counters().programs,
            host_pages_written: self.ftl.host_write_pages(),
            gc_pages_copied: self.ftl.gc_stats().pages_copied,
        }
    }

    pub(super) fn finish(&mut self) -> Result<()> {
        if self.issued != self.completed {
            return Err(Error::invariant(format!("{} requests issued but {} completed", self.issued, self.completed)));
        }
        // Background work still queued (priority scheduler) runs before the final figures.
        self.device.drain();
        if !self.flushed {
            // The end-of-trace event: policies finish their work before the final figures and
            // the verify pass (timers still armed are dropped: this event covers them).
            self.flush_end = self.ftl.on_end_of_trace(self.now, &mut self.device)?;
            self.flushed = true;
        }
        if !self.final_scan_passed {
            self.ftl.final_verify()?;
            self.final_scan_passed = self.cfg.verify;
        }
        if let Some(log) = &mut self.log {
            log.close()?;
        }
        Ok(())
    }
}
