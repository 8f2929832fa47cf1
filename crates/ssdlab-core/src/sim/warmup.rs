//! Layer: sim. The warm-up (`[warmup]`: an untimed fill and preconditioning, or a timed one)
//! and warm drives: a drive after its warm-up that several runs differing only in their
//! measured workload can start from.

use super::*;

/// A drive after its warm-up: the device and the FTL with every policy's state (the agents'
/// tables and random streams included), as `Simulation::warm_drive` left them. Several runs
/// that differ only in their measured workload can start from one (`Simulation::start_from`):
/// a paper's "warm up, then run each benchmark" without repeating the warm-up for each.
#[derive(Clone)]
pub struct WarmDrive {
    /// What the warm-up depends on: the configuration but its `[workload]` (and but the run's
    /// `seed` when `warmup.seed` is set), and the queue depth the timed warm-up takes from the
    /// workload when `warmup.timed_queue_depth` is 0.
    setup: serde_json::Value,
    device: Device,
    ftl: Ftl,
    warmup: WarmupSummary,
    erase_base: Vec<u32>,
    /// The completion sequence number the warm-up's requests reached (ties are broken by it).
    seq: u64,
}

impl WarmDrive {
    pub(super) fn setup_of(cfg: &ValidatedConfig) -> Result<serde_json::Value> {
        let mut value = serde_json::to_value(cfg.config())
            .map_err(|e| Error::config("warmup", format!("the configuration does not serialise: {e}")))?;
        if let Some(table) = value.as_object_mut() {
            table.remove("workload");
            if cfg.warmup.seed.is_some() {
                // The warm-up draws nothing from the run's seed (`ValidatedConfig::warmup_seed`).
                table.remove("seed");
            }
            if cfg.warmup.timed_random_writes_ns > 0 && cfg.warmup.timed_queue_depth == 0 {
                table.insert("warmup_queue_depth_from_workload".into(), cfg.workload.queue_depth().into());
            }
        }
        Ok(value)
    }

    /// The top-level keys (tables) in which two setups differ.
    pub(super) fn differences(a: &serde_json::Value, b: &serde_json::Value) -> Vec<String> {
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

impl Simulation {
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
    /// policies, seed and warm-up must be the same; with `warmup.seed` set, the warm-up seed
    /// must be, and the run's `seed` may differ), and once the run has begun.
    pub fn start_from(&mut self, drive: &WarmDrive) -> Result<()> {
        if self.warmed || self.started || self.warming.is_some() {
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

    /// Warm up to the end (what is left of it): fill and precondition the drive without timing,
    /// run the timed random writes, then reset every figure.
    pub(super) fn warm_up(&mut self) -> Result<()> {
        while !self.warm_up_step(u64::MAX)? {}
        Ok(())
    }

    /// Run the next slice of the warm-up: up to `max_work` pages of the untimed writes, then up
    /// to `max_work` events of the timed ones. True once the warm-up is over (then the next
    /// `step` starts the measured run); the drive ends exactly as one `warm_up` leaves it, in
    /// slices of any size. `step` warms up whole; this is for showing progress between slices
    /// (`warmup_progress`).
    pub fn warm_up_step(&mut self, max_work: u64) -> Result<bool> {
        if self.warmed || self.started {
            return Ok(true);
        }
        let result = self.warm_up_slice(max_work);
        if result.is_err() {
            // As a warm-up that failed is not tried again: the error stands.
            self.warmed = true;
            self.warming = None;
        }
        result
    }

    fn warm_up_slice(&mut self, mut budget: u64) -> Result<bool> {
        let wu = self.cfg.warmup.clone();
        let used = self.cfg.used_logical_pages();
        if self.warming.is_none() {
            self.device.set_timed(false);
            self.warming = Some(Box::new(WarmupCursor::new(self.cfg.warmup_seed())));
        }
        let cursor = self.warming.as_mut().expect("the warm-up is under way");
        if !cursor.untimed_done {
            if wu.fill {
                let pages = (used as u64 - cursor.filled).min(budget);
                for lpn in cursor.filled..cursor.filled + pages {
                    self.ftl.warm_write(Lpn(lpn as u32), &mut self.device)?;
                }
                cursor.filled += pages;
                self.warmup.pages_written += pages;
                budget -= pages;
            }
            let random = (wu.random_writes * used as f64) as u64;
            let pages = (random - cursor.overwritten).min(budget);
            for _ in 0..pages {
                let lpn = rand::Rng::gen_range(&mut cursor.rng, 0..used);
                self.ftl.warm_write(Lpn(lpn), &mut self.device)?;
            }
            cursor.overwritten += pages;
            self.warmup.pages_written += pages;
            budget -= pages;
            if budget == 0 && (cursor.filled < used as u64 && wu.fill || cursor.overwritten < random) {
                return Ok(false);
            }
            cursor.untimed_done = true;
            self.warmup.erases = self.device.counters().erases;
            self.device.set_timed(true);
            if wu.timed_random_writes_ns > 0 {
                self.begin_timed_warm_up(wu.timed_random_writes_ns, wu.timed_queue_depth)?;
            }
        }
        if self.warming.as_ref().is_some_and(|c| c.set_aside.is_some()) {
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
        self.erase_base = self.ftl.blocks().erase_counts().to_vec();
        self.warming = None;
        self.warmed = true;
        Ok(true)
    }

    /// How far the warm-up has gone: None once it is over (or the run started from a warm
    /// drive).
    pub fn warmup_progress(&self) -> Option<WarmupProgress> {
        if self.warmed || self.started {
            return None;
        }
        let wu = &self.cfg.warmup;
        let used = self.cfg.used_logical_pages() as u64;
        let timing = self.warming.as_ref().is_some_and(|c| c.set_aside.is_some());
        Some(WarmupProgress {
            pages_written: self.warmup.pages_written,
            pages_to_write: if wu.fill { used } else { 0 } + (wu.random_writes * used as f64) as u64,
            timed_ns: if timing { self.now.min(wu.timed_random_writes_ns) } else { 0 },
            timed_total_ns: wu.timed_random_writes_ns,
        })
    }

    /// The warm-up's timed random writes begin: closed-loop uniform random page writes for
    /// `duration_ns` of simulated time, served like the measured run's requests (with the same
    /// event loop; no request log), then the end-of-trace work (queued background work, the
    /// write buffer's write-back). The measured workload's host, loop and log are set aside
    /// meanwhile (`end_timed_warm_up` puts them back).
    fn begin_timed_warm_up(&mut self, duration_ns: u64, depth: u32) -> Result<()> {
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
        let rng = rng_for(self.cfg.warmup_seed(), RngStream::TimedWarmup);
        let source = SyntheticSource::new(&writes, used as u64 * page_bytes, None, rng);
        let host = Host::new(Box::new(source), page_bytes, used, Fold::Modulo, 1.0, false);
        let set_aside = SetAside {
            host: std::mem::replace(&mut self.host, host),
            closed_depth: self.closed_depth.replace(depth),
            jobs: self.jobs.take(),
            stop_after_ns: self.stop_after_ns.replace(duration_ns),
            log: self.log.take(),
        };
        if let Some(cursor) = &mut self.warming {
            cursor.set_aside = Some(set_aside);
        }
        self.start_phase()
    }

    /// The timed random writes are over (or failed): the measured workload's parts come back and
    /// the drive rests: every figure and the device's timing start again from zero for the
    /// measured run, the FTL's state carries over.
    fn end_timed_warm_up(&mut self) {
        let Some(parts) = self.warming.as_mut().and_then(|c| c.set_aside.take()) else { return };
        self.host = parts.host;
        self.closed_depth = parts.closed_depth;
        self.jobs = parts.jobs;
        self.stop_after_ns = parts.stop_after_ns;
        self.log = parts.log;
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
        self.rates = rate_series(&self.cfg);
        (self.idle_since, self.idle_wake, self.idle_counted) = (None, None, false);
        self.idle = idle_summary(&self.cfg);
    }
}

/// How far the warm-up has gone (`Simulation::warmup_progress`): pages of the untimed fill and
/// random overwrites written of those to write, and simulated time of the timed random writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct WarmupProgress {
    pub pages_written: u64,
    pub pages_to_write: u64,
    pub timed_ns: u64,
    pub timed_total_ns: u64,
}

/// Where a warm-up run in slices (`warm_up_step`) stands between them.
pub(super) struct WarmupCursor {
    /// Pages of the fill written, and random overwrites.
    filled: u64,
    overwritten: u64,
    /// Whether the untimed writes are over.
    untimed_done: bool,
    rng: rand_pcg::Pcg64Mcg,
    /// The measured workload's parts while the timed random writes run.
    set_aside: Option<SetAside>,
}

impl WarmupCursor {
    fn new(seed: u64) -> WarmupCursor {
        WarmupCursor {
            filled: 0,
            overwritten: 0,
            untimed_done: false,
            rng: rng_for(seed, RngStream::Warmup),
            set_aside: None,
        }
    }
}

/// The measured workload's host, loop settings and request log, set aside while the warm-up's
/// timed random writes use the event loop.
struct SetAside {
    host: Host,
    closed_depth: Option<u32>,
    jobs: Option<u32>,
    stop_after_ns: Option<SimTime>,
    log: Option<RequestLog>,
}
