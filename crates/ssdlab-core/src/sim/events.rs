//! Layer: sim. The event loop: the host issues requests (open loop at their arrival times, or
//! closed loop keeping N outstanding), the FTL serves them, completions, timers and idle-time
//! events come back in the event queue's order (`queue.rs`) and feed the stats.

use super::queue::{Class, Completion};
use super::Simulation;
use crate::error::{Error, Result};
use crate::ftl::{PageRequest, RequestInfo};
use crate::stats::FlashTotals;
use crate::units::SimTime;
use crate::workload::host::HostRequest;
use crate::workload::IoOp;

impl Simulation {
    /// Process up to `max_events` events (arrivals and completions). Returns true when the
    /// workload is finished (then `report()` is final).
    pub fn step(&mut self, max_events: u64) -> Result<bool> {
        if !self.started {
            if !self.warmup.done {
                self.warm_up()?;
            }
            if self.cfg.warmup.seed.is_some() {
                // The warm-up had its own seed: the run's policies draw from the run's.
                self.ftl.reseed_policies(self.cfg.seed);
            }
            self.start_phase()?;
            self.recorder.rates.start_from(self.flash_totals());
            self.started = true;
            self.agents.start(&mut self.ftl);
        }
        if self.run_events(max_events)? {
            // The end-of-trace flush is an event too: decisions it needs come first.
            if !self.flushed && self.agents.asks_before(&mut self.ftl, self.now, || false) {
                return Ok(false);
            }
            self.finish()?;
            return Ok(true);
        }
        Ok(false)
    }

    /// The first requests of the workload: the closed loop's queue depth issued at once (by
    /// `issue_start_slots`, first thing in the event loop), or the open loop's first arrival.
    pub(super) fn start_phase(&mut self) -> Result<()> {
        if !self.arrivals.start() {
            let first = self.arrivals.fetch(0, self.now)?;
            self.queue.set_arrival(first);
        }
        Ok(())
    }

    /// Issue the start phase's closed-loop slots not yet issued, at `now`. Returns true if it
    /// stopped at a decision waiting for an outside agent (the rest follow after `act`).
    fn issue_start_slots(&mut self) -> Result<bool> {
        while let Some(r) = self.arrivals.next_start_slot(self.now)? {
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
        if self.agents.asks_before(&mut self.ftl, self.now, || r.op == IoOp::Write) {
            self.arrivals.held = Some(r);
            return Ok(true);
        }
        self.issue(r, self.now)?;
        Ok(self.agents.decision_waiting(&mut self.ftl))
    }

    /// Process up to `max_events` events. Returns true once no arrival is pending and no
    /// request outstanding (the workload has run out).
    /// With an outside agent attached it stops early (false) after the request whose arrival
    /// left a decision waiting (`decisions.rs`), or before an event the attached policies
    /// need a decision for.
    pub(super) fn run_events(&mut self, max_events: u64) -> Result<bool> {
        // A closed-loop request held at the last stop is issued first (at the completion that
        // freed its slot, or in its start slot).
        if let Some(r) = self.arrivals.held.take() {
            if self.issue_now(r)? {
                return Ok(false);
            }
        }
        if self.issue_start_slots()? {
            return Ok(false);
        }
        for _ in 0..max_events {
            let Some(event) = self.queue.next(self.now, self.ftl.next_timer()) else { return Ok(true) };
            let queue = &self.queue;
            let write_arrival = || event.class == Class::Arrival && queue.arrival_is_write();
            if self.agents.asks_before(&mut self.ftl, event.at, write_arrival) {
                return Ok(false);
            }
            match event.class {
                Class::Timer => self.timer_event(event.at)?,
                Class::Idle => self.idle_event(event.at)?,
                Class::Arrival => {
                    let req = self.queue.take_arrival();
                    self.issue(req, event.at)?;
                    let next = self.arrivals.fetch(0, self.now)?;
                    self.queue.set_arrival(next);
                    if self.agents.decision_waiting(&mut self.ftl) {
                        return Ok(false);
                    }
                }
                Class::Completion => {
                    let c = self.queue.pop_completion();
                    self.complete(c)?;
                    if !self.arrivals.closed() {
                        if !self.queue.outstanding() {
                            // Nothing outstanding: idle once the gap passes with no arrival.
                            let wake = self.idle.host_quiet(c.time);
                            self.queue.set_idle_wake(Some(wake));
                        }
                    } else if let Some(r) = self.arrivals.fetch(c.job, self.now)? {
                        // The freed slot is the completed request's job's (one stream: job 0),
                        // issued at once (held while the decisions before it are taken).
                        if self.issue_now(r)? {
                            return Ok(false);
                        }
                    }
                }
            }
        }
        Ok(false)
    }

    /// Serve request `req`, issued at `now`.
    pub(super) fn issue(&mut self, req: HostRequest, now: SimTime) -> Result<()> {
        debug_assert!(now >= self.now, "arrival at {now} before now {}", self.now);
        self.now = now;
        self.recorder.roll(now, || flash_totals(&self.device, &self.ftl));
        self.device.advance_to(now);
        self.idle.host_active(now);
        self.queue.set_idle_wake(None);
        self.recorder.issued(now, self.ftl.blocks().free_blocks(), self.ftl.buffer());
        let host = &mut self.arrivals.host;
        // Two-stage prefetch: the mapping entry of the request after next, and (that entry being
        // cached by now) the out-of-band owner entry of the next request's current page.
        if let Some(later) = host.peek_lpn(1) {
            self.ftl.touch(later);
        }
        if let Some(next) = host.peek_lpn(0) {
            self.ftl.touch_owner_of(next);
        }
        let mut lpns = std::mem::take(&mut self.arrivals.lpn_buf);
        self.arrivals.host.lpns(&req, &mut lpns);
        let seq = self.queue.next_seq();
        let page_request = PageRequest {
            seq,
            op: req.op,
            lpns: &lpns,
            partial_head: req.partial_head,
            partial_tail: req.partial_tail,
            size_bytes: req.size_bytes,
        };
        let done = self.ftl.serve(&page_request, now, &mut self.device);
        self.arrivals.lpn_buf = lpns;
        let done = done?;
        self.arrivals.issued += 1;
        self.queue.push_completion(Completion {
            time: done,
            seq,
            arrival: now,
            pages: req.pages,
            op: req.op,
            offset_bytes: req.offset_bytes,
            size_bytes: req.size_bytes,
            job: req.job,
        });
        Ok(())
    }

    /// Request `c` completes (the queue's earliest).
    pub(super) fn complete(&mut self, c: Completion) -> Result<()> {
        // Events are processed in (time, seq) order: time never runs backwards.
        debug_assert!(c.time >= self.now, "completion at {} before now {}", c.time, self.now);
        self.now = c.time;
        self.recorder.roll(c.time, || flash_totals(&self.device, &self.ftl));
        self.arrivals.completed += 1;
        let latency = c.time - c.arrival;
        self.recorder.completed(&c, latency)?;
        let req = RequestInfo { seq: c.seq, op: c.op, pages: c.pages };
        self.ftl.after_served(req, latency, c.time, &mut self.device)
    }

    /// The idle gap closed at `at`, or the idle work done last ended there with the host still
    /// idle: count the period once and let the FTL work (again), waking at the end of its work.
    pub(super) fn idle_event(&mut self, at: SimTime) -> Result<()> {
        self.now = at;
        self.recorder.roll(at, || flash_totals(&self.device, &self.ftl));
        self.device.advance_to(at);
        self.idle.woke();
        self.queue.set_idle_wake(None);
        if self.ftl.works_when_idle() {
            if let Some(end) = self.ftl.on_idle(at, &mut self.device)? {
                self.idle.worked();
                self.queue.set_idle_wake((end > at).then_some(end));
            }
        }
        Ok(())
    }

    /// A policy's timer fired at `at`. It does not end an idle period (no host activity).
    pub(super) fn timer_event(&mut self, at: SimTime) -> Result<()> {
        self.now = at;
        self.recorder.roll(at, || flash_totals(&self.device, &self.ftl));
        self.device.advance_to(at);
        self.ftl.on_timer(at, &mut self.device)
    }

    /// The running totals the per-interval figures follow.
    pub(super) fn flash_totals(&self) -> FlashTotals {
        flash_totals(&self.device, &self.ftl)
    }

    pub(super) fn finish(&mut self) -> Result<()> {
        let (issued, completed) = (self.arrivals.issued, self.arrivals.completed);
        if issued != completed {
            return Err(Error::invariant(format!("{issued} requests issued but {completed} completed")));
        }
        // Background work still queued (priority scheduler) runs before the final figures.
        self.device.drain();
        if !self.flushed {
            // The end-of-trace event: policies finish their work before the final figures and
            // the verify pass (timers still armed are dropped: this event covers them).
            self.ftl.on_end_of_trace(self.now, &mut self.device)?;
            self.flushed = true;
        }
        if !self.final_scan_passed {
            self.ftl.final_verify()?;
            self.final_scan_passed = self.cfg.verify;
        }
        if let Some(log) = &mut self.recorder.log {
            log.close()?;
        }
        Ok(())
    }
}

/// The running totals the per-interval figures follow: flash programs, host pages written,
/// GC copies.
#[inline]
fn flash_totals(device: &crate::device::Device, ftl: &crate::ftl::Ftl) -> FlashTotals {
    FlashTotals {
        programs: device.counters().programs,
        host_pages_written: ftl.host_write_pages(),
        gc_pages_copied: ftl.gc_stats().pages_copied,
    }
}
