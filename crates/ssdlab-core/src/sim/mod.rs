//! Layer: sim. Wires one run together and drives it: the host issues requests (open loop at
//! their arrival times, or closed loop keeping N outstanding), the FTL serves them on the
//! device, completions come back in time order and feed the stats.
//!
//! The event core is a (time, seq) min-heap of completions plus the one pending open-loop
//! arrival and, between requests, the next idle-time event (the idle gap closing, then the end
//! of each idle step); ties go to completions first, then idle events, then arrivals, and FIFO
//! by seq among completions. `Simulation` owns everything it
//! uses (no globals), so many can run in one process.

mod decisions;
mod events;
mod report;
mod warmup;

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::config::ValidatedConfig;
use crate::decision::DecisionKind;
use crate::device::{Device, Source};
use crate::error::{Error, Result};
use crate::ftl::{Ftl, PageRequest, RequestInfo};
use crate::nand::Timing;
use crate::stats::report::*;
use crate::stats::{FlashTotals, IntervalSeries, LatencyHistogram, RequestLog, RequestRecord, TimeSeries};
use crate::units::ByteSize;
use crate::units::{Lpn, SimTime, NS_PER_S};
use crate::workload::config::{Arrival, Fold, Replay, RwMode, WorkloadConfig, WorkloadKind};
use crate::workload::host::{Host, HostRequest};
use crate::workload::request::RecordSource;
use crate::workload::spec::{SpecSource, WorkloadSpec};
use crate::workload::synthetic::SyntheticSource;
use crate::workload::IoOp;

pub use crate::rng::{rng_for, RngStream};
pub use warmup::{WarmDrive, WarmupProgress};

/// The latency histograms a run keeps, by operation (`all` merges them).
pub const LATENCY_HISTOGRAMS: [&str; 4] = ["read", "write", "trim", "all"];

/// Synthetic requests when neither `workload.count` nor `workload.duration_ns` is set.
pub const DEFAULT_SYNTHETIC_COUNT: u64 = 100_000;

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
    /// Throughput, latency percentiles, WAF and GC activity per interval of simulated time,
    /// rolled at the top of every event (`roll_rates`).
    rates: IntervalSeries,
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
    /// The warm-up under way in slices (`warm_up_step`); None before it and once it is over.
    warming: Option<Box<warmup::WarmupCursor>>,
    /// Whether the measured workload's first requests were issued (`start_phase`).
    started: bool,
    erase_base: Vec<u32>,
    flushed: bool,
    /// When the end-of-run buffer flush finished.
    flush_end: SimTime,
    final_scan_passed: bool,
    /// The start phase's closed-loop slots: issued so far, and in all (`start_phase`).
    start_slots: (u32, u32),
    /// A closed-loop request fetched but not yet issued: its issue waits for the decisions an
    /// outside agent must take before it (`decisions.rs`).
    held: Option<HostRequest>,
    /// Decision kinds an outside agent drives (`attach`); empty for a run on its own.
    attached: Vec<DecisionKind>,
    /// Those of them asked at the top of events (`DecisionKind::asked_before_events`).
    asked_before_events: Vec<DecisionKind>,
}

/// An empty series sampled as `[report]` says (free blocks, buffer occupancy).
fn sampled_series(cfg: &ValidatedConfig) -> TimeSeries {
    TimeSeries::new(cfg.report.sample_interval_ns, cfg.report.max_samples)
}

/// The per-interval figures of a run that has not started, at `[report]`'s interval and bound.
fn rate_series(cfg: &ValidatedConfig) -> IntervalSeries {
    IntervalSeries::new(cfg.report.sample_interval_ns, cfg.report.max_samples)
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
        // A trace or spec may address more than the drive holds: its footprint says what fits.
        let host = if w.kind == WorkloadKind::Synthetic { host } else { host.count_footprint() };
        // Open loop issues at arrival times, not completions: its jobs take turns (`next_record`).
        let jobs = host.jobs().filter(|_| closed);
        let expected_requests = match w.kind {
            WorkloadKind::Synthetic if w.duration_ns.is_none() => Some(w.count.unwrap_or(DEFAULT_SYNTHETIC_COUNT)),
            WorkloadKind::Spec => w.count.or(source_expects),
            _ => w.count,
        };
        let mut device = Device::new(geometry, timing);
        device.set_scheduler(&cfg.transaction_scheduler, &cfg.policy_tables)?;
        Ok(Simulation {
            device,
            ftl: Ftl::build(&cfg, rng_for(cfg.warmup_seed(), RngStream::Policy))?,
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
            rates: rate_series(&cfg),
            log: cfg.report.request_log.as_deref().map(RequestLog::create).transpose()?,
            lpn_buf: Vec::new(),
            warmup: WarmupSummary::default(),
            idle_since: None,
            idle_wake: None,
            idle_counted: false,
            idle: idle_summary(&cfg),
            warmed: false,
            warming: None,
            started: false,
            erase_base: Vec::new(),
            flushed: false,
            flush_end: 0,
            final_scan_passed: false,
            start_slots: (0, 0),
            held: None,
            attached: Vec::new(),
            asked_before_events: Vec::new(),
            cfg,
        })
    }

    pub fn config(&self) -> &ValidatedConfig {
        &self.cfg
    }
    pub fn ftl(&self) -> &Ftl {
        &self.ftl
    }
    /// Test hook: the verify tests corrupt the mapping through it (`Ftl::corrupt_mapping`) to
    /// show that verify mode catches a lost page.
    #[doc(hidden)]
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

    /// Run to the end and return the report.
    pub fn run(&mut self) -> Result<Report> {
        while !self.step(1 << 20)? {}
        Ok(self.report())
    }
}
