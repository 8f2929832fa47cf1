//! Layer: sim. Wires one run together and drives it: the host issues requests (open loop at
//! their arrival times, or closed loop keeping N outstanding), the FTL serves them on the
//! device, completions come back in time order and feed the stats.
//!
//! The event core is a (time, seq) min-heap of completions plus the one pending open-loop
//! arrival and, between requests, the next idle-time event (the idle gap closing, then the end
//! of each idle step); ties go to completions first, then idle events, then arrivals, and FIFO
//! by seq among completions. `Simulation` owns everything it
//! uses (no globals), so many can run in one process.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::config::ValidatedConfig;
use crate::device::{Device, Source};
use crate::error::{Error, Result};
use crate::ftl::{Ftl, PageRequest, RequestInfo};
use crate::nand::Timing;
use crate::stats::report::*;
use crate::stats::{LatencyHistogram, RequestLog, RequestRecord, TimeSeries};
use crate::units::ByteSize;
use crate::units::{Lpn, SimTime, NS_PER_S};
use crate::workload::config::{Arrival, Fold, Replay, RwMode, WorkloadConfig, WorkloadKind};
use crate::workload::host::{Host, HostRequest};
use crate::workload::request::RecordSource;
use crate::workload::spec::{SpecSource, WorkloadSpec};
use crate::workload::synthetic::SyntheticSource;
use crate::workload::IoOp;

pub use crate::rng::{rng_for, RngStream};

/// The latency histograms a run keeps, by operation (`all` merges them).
pub const LATENCY_HISTOGRAMS: [&str; 4] = ["read", "write", "trim", "all"];

/// Synthetic requests when neither `workload.count` nor `workload.duration_ns` is set.
pub const DEFAULT_SYNTHETIC_COUNT: u64 = 100_000;

/// A drive after its warm-up: the device and the FTL with every policy's state (the agents'
/// tables and random streams included), as `Simulation::warm_drive` left them. Several runs
/// that differ only in their measured workload can start from one (`Simulation::start_from`):
/// a paper's "warm up, then run each benchmark" without repeating the warm-up for each.
#[derive(Clone)]
pub struct WarmDrive {
    /// What the warm-up depends on: the configuration but its `[workload]`, and the queue depth
    /// the timed warm-up takes from the workload when `warmup.timed_queue_depth` is 0.
    setup: serde_json::Value,
    device: Device,
    ftl: Ftl,
    warmup: WarmupSummary,
    erase_base: Vec<u32>,
    /// The completion sequence number the warm-up's requests reached (ties are broken by it).
    seq: u64,
}

impl WarmDrive {
    fn setup_of(cfg: &ValidatedConfig) -> Result<serde_json::Value> {
        let mut value = serde_json::to_value(cfg.config())
            .map_err(|e| Error::config("warmup", format!("the configuration does not serialise: {e}")))?;
        if let Some(table) = value.as_object_mut() {
            table.remove("workload");
            if cfg.warmup.timed_random_writes_ns > 0 && cfg.warmup.timed_queue_depth == 0 {
                table.insert("warmup_queue_depth_from_workload".into(), cfg.workload.queue_depth().into());
            }
        }
        Ok(value)
    }

    /// The top-level keys (tables) in which two setups differ.
    fn differences(a: &serde_json::Value, b: &serde_json::Value) -> Vec<String> {
        let empty = serde_json::Map::new();
        let (a, b) = (a.as_object().unwrap_or(&empty), b.as_object().unwrap_or(&empty));
        let mut keys: Vec<String> = a.keys().chain(b.keys()).filter(|k| a.get(*k) != b.get(*k)).cloned().collect();
        keys.sort();
        keys.dedup();
        keys
    }

    /// The warm-up's own figures (pages written, timed requests, erases).
    pub fn warmup(&self) -> &WarmupSummary {
        &self.warmup
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Completion {
    time: SimTime,
    seq: u64,
    arrival: SimTime,
    pages: u32,
    op: IoOp,
    offset_bytes: u64,
    size_bytes: u64,
    /// The job that issued it (`HostRequest::job`): with independent jobs, the one that issues
    /// the next request when this one completes.
    job: u32,
}

pub struct Simulation {
    cfg: ValidatedConfig,
    device: Device,
    ftl: Ftl,
    host: Host,
    queue: BinaryHeap<Reverse<Completion>>,
    seq: u64,
    pending: Option<HostRequest>,
    closed_depth: Option<u32>,
    /// In closed loop, the source's independent jobs (`RecordSource::jobs`): a completion then
    /// asks its own job for the next request. None: one stream, read ahead for prefetching.
    jobs: Option<u32>,
    source_done: bool,
    stop_after_ns: Option<SimTime>,
    expected_requests: Option<u64>,
    issued: u64,
    completed: u64,
    now: SimTime,
    first_arrival: Option<SimTime>,
    last_completion: SimTime,
    lat_read: LatencyHistogram,
    lat_write: LatencyHistogram,
    lat_trim: LatencyHistogram,
    summary: WorkloadSummary,
    free_blocks: TimeSeries,
    /// Write buffer occupancy (buffered plus in-flight pages) and its dirty pages, sampled
    /// as `free_blocks` is; None without a buffer.
    buffer_series: Option<(TimeSeries, TimeSeries)>,
    log: Option<RequestLog>,
    lpn_buf: Vec<Lpn>,
    warmup: WarmupSummary,
    /// Idle detection: since when no request has been outstanding (None while one is, and
    /// before the first completes), the next idle-time event (the gap closing, then the end of
    /// each idle step while there is work), and whether this period was counted yet.
    idle_since: Option<SimTime>,
    idle_wake: Option<SimTime>,
    idle_counted: bool,
    idle: IdleSummary,
    warmed: bool,
    /// Whether the measured workload's first requests were issued (`start_phase`).
    started: bool,
    erase_base: Vec<u32>,
    flushed: bool,
    /// When the end-of-run buffer flush finished.
    flush_end: SimTime,
    final_scan_passed: bool,
}

/// An empty series sampled as `[report]` says (free blocks, buffer occupancy).
fn sampled_series(cfg: &ValidatedConfig) -> TimeSeries {
    TimeSeries::new(cfg.report.sample_interval_ns, cfg.report.max_samples)
}

/// The write buffer's occupancy and dirty-page series, empty; None without a buffer.
fn buffer_series(cfg: &ValidatedConfig) -> Option<(TimeSeries, TimeSeries)> {
    (cfg.cache.capacity.0 > 0).then(|| (sampled_series(cfg), sampled_series(cfg)))
}

/// The idle-time figures of a run that has not started.
fn idle_summary(cfg: &ValidatedConfig) -> IdleSummary {
    IdleSummary { gap_ns: cfg.idle.gap_ns, ..IdleSummary::default() }
}

impl Simulation {
    /// Build a simulation with a synthetic workload or the trace the config names.
    pub fn new(cfg: ValidatedConfig) -> Result<Simulation> {
        let source: Box<dyn RecordSource + Send> = match cfg.workload.kind {
            WorkloadKind::Synthetic => {
                let count = match (cfg.workload.count, cfg.workload.duration_ns) {
                    (Some(c), _) => Some(c),
                    (None, Some(_)) => None,
                    (None, None) => Some(DEFAULT_SYNTHETIC_COUNT),
                };
                let space = cfg.used_logical_pages() as u64 * cfg.device.page_bytes;
                Box::new(SyntheticSource::new(&cfg.workload, space, count, rng_for(cfg.seed, RngStream::Workload)))
            }
            WorkloadKind::Trace => crate::workload::trace::open_source(&cfg.workload)?,
            WorkloadKind::Spec => {
                let name = cfg.workload.spec.as_ref().ok_or_else(|| {
                    Error::config("workload.spec", "a spec workload needs a spec (a file or a built-in name)")
                })?;
                let spec = WorkloadSpec::load(name)?;
                let rng = rng_for(cfg.seed, RngStream::Workload);
                Box::new(SpecSource::new(&spec, cfg.workload.count, rng))
            }
        };
        Self::with_source(cfg, source)
    }

    /// Build a simulation that draws its requests from `source`.
    pub fn with_source(cfg: ValidatedConfig, source: Box<dyn RecordSource + Send>) -> Result<Simulation> {
        let geometry = cfg.geometry();
        let timing = Timing::resolve(&cfg.device.timing, geometry.cell, geometry.page_bytes);
        let w = &cfg.workload;
        let closed = match w.kind {
            WorkloadKind::Synthetic => w.arrival == Arrival::Closed,
            WorkloadKind::Trace => w.replay == Replay::Closed,
            WorkloadKind::Spec => source.arrival_model().is_some_and(|depth| depth.is_some()),
        };
        // A spec sets its own queue depth; the others take the config's.
        let closed_depth = match source.arrival_model() {
            Some(depth) if w.kind == WorkloadKind::Spec => depth,
            _ => closed.then(|| w.queue_depth()),
        };
        let rebase = w.kind == WorkloadKind::Trace;
        let summary = WorkloadSummary { trace: source.trace_info(), ..WorkloadSummary::default() };
        let source_expects = source.expected_records();
        let host = Host::new(source, geometry.page_bytes, cfg.used_logical_pages(), w.fold, w.speedup, rebase);
        // Open loop issues at arrival times, not completions: its jobs take turns (`next_record`).
        let jobs = host.jobs().filter(|_| closed);
        let expected_requests = match w.kind {
            WorkloadKind::Synthetic if w.duration_ns.is_none() => Some(w.count.unwrap_or(DEFAULT_SYNTHETIC_COUNT)),
            WorkloadKind::Spec => w.count.or(source_expects),
            _ => w.count,
        };
        let mut device = Device::new(geometry, timing);
        device.set_scheduler(&cfg.transaction_scheduler)?;
        Ok(Simulation {
            device,
            ftl: Ftl::build(&cfg, rng_for(cfg.seed, RngStream::Policy))?,
            host,
            queue: BinaryHeap::new(),
            seq: 0,
            pending: None,
            closed_depth,
            jobs,
            source_done: false,
            stop_after_ns: w.duration_ns,
            expected_requests,
            issued: 0,
            completed: 0,
            now: 0,
            first_arrival: None,
            last_completion: 0,
            lat_read: LatencyHistogram::default(),
            lat_write: LatencyHistogram::default(),
            lat_trim: LatencyHistogram::default(),
            summary,
            free_blocks: sampled_series(&cfg),
            buffer_series: buffer_series(&cfg),
            log: cfg.report.request_log.as_deref().map(RequestLog::create).transpose()?,
            lpn_buf: Vec::new(),
            warmup: WarmupSummary::default(),
            idle_since: None,
            idle_wake: None,
            idle_counted: false,
            idle: idle_summary(&cfg),
            warmed: false,
            started: false,
            erase_base: Vec::new(),
            flushed: false,
            flush_end: 0,
            final_scan_passed: false,
            cfg,
        })
    }

    pub fn config(&self) -> &ValidatedConfig {
        &self.cfg
    }
    pub fn ftl(&self) -> &Ftl {
        &self.ftl
    }
    pub fn ftl_mut(&mut self) -> &mut Ftl {
        &mut self.ftl
    }
    pub fn device(&self) -> &Device {
        &self.device
    }
    pub fn now(&self) -> SimTime {
        self.now
    }
    /// (requests completed, requests expected if known).
    pub fn progress(&self) -> (u64, Option<u64>) {
        (self.completed, self.expected_requests)
    }
    /// The Parquet file the per-request log streams to (`report.request_log`), if any. Complete
    /// (footer written) once `step` has returned true.
    pub fn request_log_path(&self) -> Option<&std::path::Path> {
        self.log.as_ref().map(RequestLog::path)
    }

    /// The drive after the warm-up (`[warmup]`), warming it up now if it was not: for other
    /// runs to start from (`start_from`) instead of each repeating the warm-up. This run can
    /// go on to its own measured workload afterwards.
    pub fn warm_drive(&mut self) -> Result<WarmDrive> {
        if self.started {
            return Err(Error::config("warmup", "the drive is no longer warm: its measured run has started"));
        }
        if !self.warmed {
            self.warm_up()?;
        }
        Ok(WarmDrive {
            setup: WarmDrive::setup_of(&self.cfg)?,
            device: self.device.clone(),
            ftl: self.ftl.clone(),
            warmup: self.warmup.clone(),
            erase_base: self.erase_base.clone(),
            seq: self.seq,
        })
    }

    /// Start from `drive` instead of warming up: the run then reports exactly what it would
    /// have after its own warm-up, as the warm-up never reads the measured workload. Refused
    /// unless this run's configuration is the drive's but for `[workload]` (the device, FTL,
    /// policies, seed and warm-up must be the same), and once the run has begun.
    pub fn start_from(&mut self, drive: &WarmDrive) -> Result<()> {
        if self.warmed || self.started {
            return Err(Error::config("warmup", "a run starts from a warm drive before it warms up or runs"));
        }
        let setup = WarmDrive::setup_of(&self.cfg)?;
        if setup != drive.setup {
            let keys = WarmDrive::differences(&drive.setup, &setup);
            return Err(Error::config(
                "warmup",
                format!("the warm drive was made with another configuration (differs in: {})", keys.join(", ")),
            ));
        }
        self.device = drive.device.clone();
        self.ftl = drive.ftl.clone();
        self.warmup = drive.warmup.clone();
        self.erase_base = drive.erase_base.clone();
        self.seq = drive.seq;
        self.warmed = true;
        Ok(())
    }

    /// Fill and precondition the drive without timing, then reset every figure.
    fn warm_up(&mut self) -> Result<()> {
        self.warmed = true;
        let wu = self.cfg.warmup.clone();
        let used = self.cfg.used_logical_pages();
        self.device.set_timed(false);
        if wu.fill {
            for lpn in 0..used {
                self.ftl.warm_write(Lpn(lpn), &mut self.device)?;
            }
            self.warmup.pages_written += used as u64;
        }
        let random = (wu.random_writes * used as f64) as u64;
        if random > 0 {
            let mut rng = rng_for(self.cfg.seed, RngStream::Warmup);
            for _ in 0..random {
                let lpn = rand::Rng::gen_range(&mut rng, 0..used);
                self.ftl.warm_write(Lpn(lpn), &mut self.device)?;
            }
            self.warmup.pages_written += random;
        }
        self.warmup.erases = self.device.counters().erases;
        self.device.set_timed(true);
        if wu.timed_random_writes_ns > 0 {
            self.timed_warm_up(wu.timed_random_writes_ns, wu.timed_queue_depth)?;
        }
        self.ftl.reset_stats();
        self.erase_base = self.ftl.blocks().erase_counts().to_vec();
        Ok(())
    }

    /// The warm-up's timed random writes: closed-loop uniform random page writes for
    /// `duration_ns` of simulated time, served like the measured run's requests (with the same
    /// event loop; no request log), then the end-of-trace work (queued background work, the
    /// write buffer's write-back). The drive then rests: every figure and the device's timing
    /// start again from zero for the measured run, the FTL's state carries over.
    fn timed_warm_up(&mut self, duration_ns: u64, depth: u32) -> Result<()> {
        let page_bytes = self.cfg.device.page_bytes;
        let used = self.cfg.used_logical_pages();
        let depth = if depth > 0 { depth } else { self.cfg.workload.queue_depth() };
        let writes = WorkloadConfig {
            rw: RwMode::Randwrite,
            bs: ByteSize(page_bytes),
            iodepth: depth,
            numjobs: 1,
            arrival: Arrival::Closed,
            ..WorkloadConfig::default()
        };
        let rng = rng_for(self.cfg.seed, RngStream::TimedWarmup);
        let source = SyntheticSource::new(&writes, used as u64 * page_bytes, None, rng);
        let host = Host::new(Box::new(source), page_bytes, used, Fold::Modulo, 1.0, false);
        let measured_host = std::mem::replace(&mut self.host, host);
        let closed_depth = self.closed_depth.replace(depth);
        let jobs = self.jobs.take();
        let stop_after_ns = self.stop_after_ns.replace(duration_ns);
        let log = self.log.take();
        let result = self.start_phase().and_then(|_| {
            while !self.advance(1 << 20)? {}
            self.device.drain();
            self.ftl.on_end_of_trace(self.now, &mut self.device)
        });
        self.host = measured_host;
        self.closed_depth = closed_depth;
        self.jobs = jobs;
        self.stop_after_ns = stop_after_ns;
        self.log = log;
        result?;
        let w = &mut self.warmup;
        w.timed_requests = self.completed;
        w.timed_span_ns = self.last_completion;
        w.timed_programs = self.device.counters().programs;
        w.erases += self.device.counters().erases;
        self.device.set_timed(true);
        self.queue.clear();
        self.pending = None;
        self.source_done = false;
        (self.issued, self.completed, self.now, self.first_arrival, self.last_completion) = (0, 0, 0, None, 0);
        self.lat_read = LatencyHistogram::default();
        self.lat_write = LatencyHistogram::default();
        self.lat_trim = LatencyHistogram::default();
        self.summary = WorkloadSummary { trace: self.summary.trace.take(), ..WorkloadSummary::default() };
        self.free_blocks = sampled_series(&self.cfg);
        self.buffer_series = buffer_series(&self.cfg);
        (self.idle_since, self.idle_wake, self.idle_counted) = (None, None, false);
        self.idle = idle_summary(&self.cfg);
        Ok(())
    }

    /// The next request: job `job`'s with independent jobs in closed loop (the job whose
    /// request completed, or the job a start-up slot belongs to), else the one stream's.
    fn fetch(&mut self, job: u32) -> Result<Option<HostRequest>> {
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

    fn issue(&mut self, req: HostRequest, now: SimTime) -> Result<()> {
        debug_assert!(now >= self.now, "arrival at {now} before now {}", self.now);
        self.now = now;
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

    fn complete(&mut self, c: Completion) -> Result<()> {
        // Events are processed in (time, seq) order: time never runs backwards.
        debug_assert!(c.time >= self.now, "completion at {} before now {}", c.time, self.now);
        self.now = c.time;
        self.completed += 1;
        self.last_completion = self.last_completion.max(c.time);
        let latency = c.time - c.arrival;
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
            self.start_phase()?;
            self.started = true;
        }
        if self.advance(max_events)? {
            self.finish()?;
            return Ok(true);
        }
        Ok(false)
    }

    /// The first requests of the workload: the closed loop's queue depth issued at once, or
    /// the open loop's first arrival. Independent jobs take the slots in turn, `iodepth` each.
    fn start_phase(&mut self) -> Result<()> {
        if let Some(depth) = self.closed_depth {
            let jobs = self.jobs.unwrap_or(1).max(1);
            for slot in 0..depth {
                match self.fetch(slot % jobs)? {
                    Some(r) => self.issue(r, self.now)?,
                    None => break,
                }
            }
        } else {
            self.pending = self.fetch(0)?;
        }
        Ok(())
    }

    /// Process up to `max_events` events. Returns true once no arrival is pending and no
    /// request outstanding (the workload has run out).
    fn advance(&mut self, max_events: u64) -> Result<bool> {
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
                self.timer_event(at)?;
            } else if idle_first {
                let at = self.idle_wake.expect("idle_first implies a wake-up");
                self.idle_event(at)?;
            } else if arrival_first {
                let req = self.pending.take().expect("arrival_first implies a pending request");
                let at = req.arrival_ns.max(self.now);
                self.issue(req, at)?;
                self.pending = self.fetch(0)?;
            } else {
                let Some(Reverse(c)) = self.queue.pop() else { unreachable!("peeked a completion") };
                self.complete(c)?;
                if self.queue.is_empty() && self.closed_depth.is_none() {
                    // Nothing outstanding: idle once the gap passes with no arrival.
                    self.idle_since = Some(c.time);
                    self.idle_wake = Some(c.time + self.cfg.idle.gap_ns);
                }
                if self.closed_depth.is_some() {
                    // The freed slot is the completed request's job's (one stream: job 0).
                    if let Some(r) = self.fetch(c.job)? {
                        self.issue(r, c.time)?;
                    }
                }
            }
        }
        Ok(false)
    }

    /// The idle gap closed at `at`, or the idle work done last ended there with the host still
    /// idle: count the period once and let the FTL work (again), waking at the end of its work.
    fn idle_event(&mut self, at: SimTime) -> Result<()> {
        self.now = at;
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
    fn timer_event(&mut self, at: SimTime) -> Result<()> {
        self.now = at;
        self.device.advance_to(at);
        self.ftl.on_timer(at, &mut self.device)
    }

    fn finish(&mut self) -> Result<()> {
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

    /// Run to the end and return the report.
    pub fn run(&mut self) -> Result<Report> {
        while !self.step(1 << 20)? {}
        Ok(self.report())
    }

    /// The report of what has run so far.
    pub fn report(&self) -> Report {
        let span = self.last_completion.saturating_sub(self.first_arrival.unwrap_or(0));
        let secs = span as f64 / NS_PER_S as f64;
        let per_s = |x: f64| if secs > 0.0 { x / secs } else { 0.0 };
        let s = &self.summary;
        let f = self.ftl.stats();
        let counters = self.device.counters();
        // Flash pages programmed (every source) per host page written.
        let per_host_page = |programs: u64| {
            if f.host_write_pages == 0 {
                0.0
            } else {
                programs as f64 / f.host_write_pages as f64
            }
        };
        let waf = per_host_page(counters.programs);
        let waf_by_source: std::collections::BTreeMap<&'static str, f64> =
            Source::ALL.iter().map(|&src| (src.id(), per_host_page(counters.by_source.get(src).programs))).collect();
        let counts = self.ftl.blocks().erase_counts();
        let measured: Vec<u32> = if self.erase_base.len() == counts.len() {
            counts.iter().zip(&self.erase_base).map(|(a, b)| a - b).collect()
        } else {
            counts.to_vec()
        };
        let n = measured.len().max(1) as f64;
        let mean = measured.iter().map(|&e| e as f64).sum::<f64>() / n;
        let var = measured.iter().map(|&e| (e as f64 - mean).powi(2)).sum::<f64>() / n;
        let busy: u64 = self.device.unit_busy_ns().iter().sum();
        let units = self.device.unit_busy_ns().len().max(1) as f64;
        let gc_report = self.ftl.scheduler().report();
        Report {
            schema: REPORT_SCHEMA,
            ssdlab_version: env!("CARGO_PKG_VERSION"),
            git_revision: env!("SSDLAB_GIT_REVISION"),
            seed: self.cfg.seed,
            config: crate::config::to_json(self.cfg.config()),
            workload: WorkloadSummary {
                span_ns: span,
                skipped_records: self.host.skipped_records(),
                host: self.host.stats.clone(),
                ..s.clone()
            },
            latency: LatencyReport {
                read: self.lat_read.summary(),
                write: self.lat_write.summary(),
                trim: self.lat_trim.summary(),
                all: self.all_latencies().summary(),
            },
            throughput: Throughput {
                iops: per_s(s.requests as f64),
                read_mb_per_s: per_s(s.read_bytes as f64 / 1e6),
                write_mb_per_s: per_s(s.write_bytes as f64 / 1e6),
                mb_per_s: per_s((s.read_bytes + s.write_bytes) as f64 / 1e6),
            },
            waf,
            waf_by_source,
            ftl: f.clone(),
            gc: self.ftl.gc_stats().clone(),
            wear: WearSummary {
                erases: self.device.counters().erases,
                max_erases_per_block: measured.iter().copied().max().unwrap_or(0),
                mean_erases_per_block: mean,
                std_erases_per_block: var.sqrt(),
                lifetime_max_erases_per_block: counts.iter().copied().max().unwrap_or(0),
            },
            device: DeviceSummary {
                counters: self.device.counters().clone(),
                mean_unit_utilization: if span > 0 { busy as f64 / units / span as f64 } else { 0.0 },
                free_blocks_at_end: self.ftl.blocks().free_blocks(),
            },
            policies: Policies {
                mapping: self.ftl.mapping().id().to_string(),
                placement: self.ftl.placement_id().to_string(),
                region_policy: self.ftl.region_policy().id().to_string(),
                eviction: self.ftl.buffer().map(|b| b.policy.id().to_string()),
                gc_scheduler: self.ftl.scheduler().id().to_string(),
                gc_victim: self.ftl.victim_id().to_string(),
                gc_scheduler_report: gc_report,
                mapping_report: self.ftl.mapping().report(),
                region_report: self.ftl.region_policy().report(),
                eviction_report: self.ftl.buffer().map(|b| b.policy.report()).unwrap_or(serde_json::Value::Null),
            },
            mapping: MappingSummary {
                dram_bytes: self.ftl.mapping().dram_bytes(),
                translation_reads: f.translation.reads,
                translation_writes: f.translation.writes,
            },
            cache: self.ftl.buffer().map(|b| b.stats()),
            regions: self.region_summaries(),
            warmup: self.warmup.clone(),
            idle: self.idle.clone(),
            verify: VerifySummary {
                enabled: self.cfg.verify,
                reads_checked: self.ftl.verify_reads_checked().unwrap_or(0),
                final_scan_passed: self.final_scan_passed,
            },
            time_series: TimeSeriesReport {
                free_blocks: self.free_blocks.clone(),
                buffer_occupied_pages: self.buffer_series.as_ref().map(|(o, _)| o.clone()),
                buffer_dirty_pages: self.buffer_series.as_ref().map(|(_, d)| d.clone()),
            },
            learning: [
                ("gc", self.ftl.scheduler().learning()),
                ("eviction", self.ftl.buffer().and_then(|b| b.policy.learning())),
                ("region", self.ftl.region_policy().learning()),
            ]
            .into_iter()
            .filter_map(|(point, report)| report.map(|r| (point, r)))
            .collect(),
        }
    }

    fn region_summaries(&self) -> Vec<RegionSummary> {
        let b = self.ftl.blocks();
        (0..b.regions())
            .map(|r| {
                let id = crate::ftl::blocks::RegionId(r as u8);
                let spec = b.region_spec(id);
                RegionSummary {
                    name: spec.name.clone(),
                    mode: spec.mode,
                    blocks: b.region_blocks(id),
                    free_blocks: b.region_free_blocks(id),
                    stats: self.ftl.region_stats().get(r).copied().unwrap_or_default(),
                }
            })
            .collect()
    }

    fn all_latencies(&self) -> LatencyHistogram {
        let mut all = self.lat_read.clone();
        all.merge(&self.lat_write);
        all.merge(&self.lat_trim);
        all
    }

    /// Latency histogram (value, count) pairs for plotting exact CDFs: `which` is one of
    /// `LATENCY_HISTOGRAMS`.
    pub fn latency_histogram(&self, which: &str) -> Result<Vec<(u64, u64)>> {
        Ok(match which {
            "read" => self.lat_read.sorted(),
            "write" => self.lat_write.sorted(),
            "trim" => self.lat_trim.sorted(),
            "all" => self.all_latencies().sorted(),
            other => {
                return Err(Error::config(
                    "latency_histogram",
                    format!("unknown histogram {other:?}; expected one of {}", LATENCY_HISTOGRAMS.join(", ")),
                ))
            }
        })
    }
}
