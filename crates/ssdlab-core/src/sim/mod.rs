//! Layer: sim. Wires one run together and drives it: the host issues requests (open loop at
//! their arrival times, or closed loop keeping N outstanding), the FTL serves them on the
//! device, completions come back in time order and feed the stats.
//!
//! `Simulation` is a shell over parts that own their state: where requests come from
//! (`arrivals.rs`: the host over the workload, the closed loop's depth and jobs, the request
//! held for an agent, the counts), the event queue (`queue.rs`: completions, the next arrival,
//! the next idle-time event, as typed events in (time, class, seq) order), the idle clock
//! (`idle.rs`), what the run records (`recorder.rs`: histograms, series, the request log, the
//! workload's figures), the attached outside agents (`decisions.rs`) and the warm-up
//! (`warmup.rs`). The loop over them is `events.rs`; the report is assembled in `report.rs`.
//! `Simulation` owns everything it uses (no globals), so many can run in one process.

mod arrivals;
mod decisions;
mod events;
mod idle;
mod queue;
mod recorder;
mod report;
mod warmup;

use crate::config::ValidatedConfig;
use crate::decision::{Decision, DecisionKind, DecisionSpace};
use crate::device::Device;
use crate::error::{Error, Result};
use crate::ftl::Ftl;
use crate::nand::Timing;
use crate::stats::report::Report;
use crate::stats::RequestLog;
use crate::units::SimTime;
use crate::workload::request::RecordSource;
use crate::workload::{HostSpace, OpenWorkload};

use arrivals::Arrivals;
use decisions::Agents;
use idle::IdleClock;
use queue::EventQueue;
use recorder::Recorder;
use warmup::{SetAside, Untimed, Warmup};

pub use crate::rng::{rng_for, RngStream};
pub use crate::workload::open::DEFAULT_SYNTHETIC_COUNT;
pub use warmup::{WarmDrive, WarmupProgress};

/// The latency histograms a run keeps, by operation (`all` merges them).
pub const LATENCY_HISTOGRAMS: [&str; 4] = ["read", "write", "trim", "all"];

pub struct Simulation {
    cfg: ValidatedConfig,
    device: Device,
    ftl: Ftl,
    arrivals: Arrivals,
    queue: EventQueue,
    idle: IdleClock,
    recorder: Recorder,
    agents: Agents,
    warmup: Warmup,
    now: SimTime,
    /// Whether the measured workload's first requests were issued (`start_phase`).
    started: bool,
    /// Whether the end-of-run event (the write buffer's flush) has run.
    flushed: bool,
    final_scan_passed: bool,
}

impl Simulation {
    /// Build a simulation with a synthetic workload or the trace the config names.
    pub fn new(cfg: ValidatedConfig) -> Result<Simulation> {
        let workload = crate::workload::open(&cfg.workload, cfg.workload_spec(), cfg.seed, host_space(&cfg))?;
        Self::build(cfg, workload)
    }

    /// Build a simulation that draws its requests from `source`.
    pub fn with_source(cfg: ValidatedConfig, source: Box<dyn RecordSource + Send>) -> Result<Simulation> {
        let workload = crate::workload::open_with_source(&cfg.workload, host_space(&cfg), source);
        Self::build(cfg, workload)
    }

    fn build(cfg: ValidatedConfig, workload: OpenWorkload) -> Result<Simulation> {
        let geometry = cfg.geometry();
        let timing = Timing::resolve(&cfg.device.timing, geometry.cell, geometry.page_bytes);
        let trace = workload.trace.clone();
        let arrivals = Arrivals::new(workload);
        let mut device = Device::new(geometry, timing);
        device.set_scheduler(&cfg.transaction_scheduler, &cfg.policy_tables)?;
        let ftl = Ftl::build(&cfg, rng_for(cfg.warmup_seed(), RngStream::Policy))?;
        let log = cfg.report.request_log.as_deref().map(RequestLog::create).transpose()?;
        Ok(Simulation {
            device,
            ftl,
            arrivals,
            queue: EventQueue::default(),
            idle: IdleClock::new(&cfg),
            recorder: Recorder::new(&cfg, trace, log),
            agents: Agents::default(),
            warmup: Warmup::default(),
            now: 0,
            started: false,
            flushed: false,
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
        (self.arrivals.completed, self.arrivals.expected_requests)
    }
    /// The Parquet file the per-request log streams to (`report.request_log`), if any. Complete
    /// (footer written) once `step` has returned true.
    pub fn request_log_path(&self) -> Option<&std::path::Path> {
        self.recorder.log.as_ref().map(RequestLog::path)
    }

    /// Run to the end and return the report.
    pub fn run(&mut self) -> Result<Report> {
        while !self.step(1 << 20)? {}
        Ok(self.report())
    }

    /// The report of what has run so far.
    pub fn report(&self) -> Report {
        report::assemble(self)
    }

    /// Latency histogram (value, count) pairs for plotting exact CDFs: `which` is one of
    /// `LATENCY_HISTOGRAMS`.
    pub fn latency_histogram(&self, which: &str) -> Result<Vec<(u64, u64)>> {
        self.recorder.latency_histogram(which)
    }

    // Outside agents (`decisions.rs`).

    /// Drive the decisions of `kind` from outside: from the measured run's start (the warm-up
    /// keeps the built-in agent), each decision waits for `act`. Refused, with the policies
    /// that have one, if the chosen policy of that seam has no decision point, and once the
    /// run has started.
    pub fn attach(&mut self, kind: DecisionKind) -> Result<DecisionSpace> {
        self.agents.attach(kind, self.started, &mut self.ftl)
    }

    /// The decision kinds attached.
    pub fn attached(&self) -> &[DecisionKind] {
        self.agents.attached()
    }

    /// Run to the next decision of an attached kind and return it (the same one again if it is
    /// still waiting); None once the workload has finished (the report is then final).
    pub fn advance(&mut self) -> Result<Option<Decision>> {
        if self.agents.attached().is_empty() {
            return Err(Error::config("decision", "no decision kind is attached (attach one before advancing)"));
        }
        loop {
            if let Some(d) = self.agents.waiting_decision(&mut self.ftl) {
                return Ok(Some(d));
            }
            if self.step(1 << 16)? {
                return Ok(None);
            }
        }
    }

    /// Take `action` for the decision waiting; the run goes on at the next `advance`.
    pub fn act(&mut self, action: u32) -> Result<()> {
        self.agents.act(&mut self.ftl, action)
    }

    // The warm-up (`warmup.rs`).

    /// The drive after the warm-up (`[warmup]`), warming it up now if it was not: for other
    /// runs to start from (`start_from`) instead of each repeating the warm-up. This run can
    /// go on to its own measured workload afterwards.
    pub fn warm_drive(&mut self) -> Result<WarmDrive> {
        if self.started {
            return Err(Error::config("warmup", "the drive is no longer warm: its measured run has started"));
        }
        if !self.warmup.done {
            self.warm_up()?;
        }
        Ok(WarmDrive {
            setup: WarmDrive::setup_of(&self.cfg)?,
            device: self.device.clone(),
            ftl: self.ftl.clone(),
            warmup: self.warmup.summary.clone(),
            erase_base: self.warmup.erase_base.clone(),
            seq: self.queue.seq(),
        })
    }

    /// Start from `drive` instead of warming up: the run then reports exactly what it would
    /// have after its own warm-up, as the warm-up never reads the measured workload. Refused
    /// unless this run's configuration is the drive's but for `[workload]` (the device, FTL,
    /// policies, seed and warm-up must be the same; with `warmup.seed` set, the warm-up seed
    /// must be, and the run's `seed` may differ), and once the run has begun.
    pub fn start_from(&mut self, drive: &WarmDrive) -> Result<()> {
        if self.warmup.done || self.started || self.warmup.under_way() {
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
        self.warmup.summary = drive.warmup.clone();
        self.warmup.erase_base = drive.erase_base.clone();
        self.queue = EventQueue::starting_at(drive.seq);
        self.warmup.done = true;
        Ok(())
    }

    /// Run the next slice of the warm-up: up to `max_work` pages of the untimed writes, then up
    /// to `max_work` events of the timed ones. True once the warm-up is over (then the next
    /// `step` starts the measured run); the drive ends exactly as one `warm_up` leaves it, in
    /// slices of any size. `step` warms up whole; this is for showing progress between slices
    /// (`warmup_progress`).
    pub fn warm_up_step(&mut self, max_work: u64) -> Result<bool> {
        if self.warmup.done || self.started {
            return Ok(true);
        }
        let result = self.warm_up_slice(max_work);
        if result.is_err() {
            self.warmup.abandon();
        }
        result
    }

    /// How far the warm-up has gone: None once it is over (or the run started from a warm
    /// drive).
    pub fn warmup_progress(&self) -> Option<WarmupProgress> {
        if self.warmup.done || self.started {
            return None;
        }
        Some(self.warmup.progress(&self.cfg, self.now))
    }

    /// Warm up to the end (what is left of it): fill and precondition the drive without timing,
    /// run the timed random writes, then reset every figure.
    fn warm_up(&mut self) -> Result<()> {
        while !self.warm_up_step(u64::MAX)? {}
        Ok(())
    }

    fn warm_up_slice(&mut self, budget: u64) -> Result<bool> {
        let budget = match self.warmup.untimed_slice(&self.cfg, &mut self.ftl, &mut self.device, budget)? {
            Untimed::More => return Ok(false),
            Untimed::JustOver(budget) => {
                if self.cfg.warmup.timed_random_writes_ns > 0 {
                    self.begin_timed_warm_up()?;
                }
                budget
            }
            Untimed::Over(budget) => budget,
        };
        if self.warmup.timing() {
            if budget == 0 {
                return Ok(false);
            }
            let done = self.run_events(budget).and_then(|done| {
                if done {
                    self.device.drain();
                    self.ftl.on_end_of_trace(self.now, &mut self.device)?;
                }
                Ok(done)
            });
            if !matches!(done, Ok(false)) {
                self.end_timed_warm_up();
            }
            if !done? {
                return Ok(false);
            }
        }
        self.ftl.reset_stats();
        self.warmup.finish(self.ftl.blocks().erase_counts());
        Ok(true)
    }

    /// The warm-up's timed random writes begin (`warmup::timed_writes`), served like the
    /// measured run's requests with the same event loop and no request log; the measured
    /// workload's arrivals and log are set aside meanwhile.
    fn begin_timed_warm_up(&mut self) -> Result<()> {
        let timed = warmup::timed_writes(&self.cfg, self.arrivals.expected_requests);
        let arrivals = std::mem::replace(&mut self.arrivals, timed);
        self.warmup.set_aside(SetAside { arrivals, log: self.recorder.log.take() });
        self.start_phase()
    }

    /// The timed random writes are over (or failed): the measured workload's parts come back and
    /// the drive rests: every figure and the device's timing start again from zero for the
    /// measured run, the FTL's state carries over.
    fn end_timed_warm_up(&mut self) {
        let Some(parts) = self.warmup.take_set_aside() else { return };
        let timed = std::mem::replace(&mut self.arrivals, parts.arrivals);
        self.warmup.timed_over(timed.completed, self.recorder.last_completion, self.device.counters());
        self.device.set_timed(true);
        self.queue.clear();
        self.now = 0;
        self.recorder.restart(&self.cfg, parts.log);
        self.idle = IdleClock::new(&self.cfg);
    }
}

/// The logical space the workload is opened on.
fn host_space(cfg: &ValidatedConfig) -> HostSpace {
    HostSpace { page_bytes: cfg.device.page_bytes, used_pages: cfg.used_logical_pages() }
}
