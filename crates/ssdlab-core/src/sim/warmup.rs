//! Layer: sim. The warm-up (`[warmup]`: an untimed fill and preconditioning, or a timed one)
//! and warm drives: a drive after its warm-up that several runs differing only in their
//! measured workload can start from.

use crate::config::ValidatedConfig;
use crate::device::Device;
use crate::error::{Error, Result};
use crate::ftl::Ftl;
use crate::rng::{rng_for, RngStream};
use crate::stats::report::WarmupSummary;
use crate::stats::RequestLog;
use crate::units::{ByteSize, Lpn, SimTime};
use crate::workload::config::{Arrival, Fold, RwMode, WorkloadConfig};
use crate::workload::host::Host;
use crate::workload::synthetic::SyntheticSource;
use crate::workload::OpenWorkload;

use super::arrivals::Arrivals;

/// A drive after its warm-up: the device and the FTL with every policy's state (the agents'
/// tables and random streams included), as `Simulation::warm_drive` left them. Several runs
/// that differ only in their measured workload can start from one (`Simulation::start_from`):
/// a paper's "warm up, then run each benchmark" without repeating the warm-up for each.
#[derive(Clone)]
pub struct WarmDrive {
    /// What the warm-up depends on: the configuration but its `[workload]` (and but the run's
    /// `seed` when `warmup.seed` is set), and the queue depth the timed warm-up takes from the
    /// workload when `warmup.timed_queue_depth` is 0.
    pub(super) setup: serde_json::Value,
    pub(super) device: Device,
    pub(super) ftl: Ftl,
    pub(super) warmup: WarmupSummary,
    pub(super) erase_base: Vec<u32>,
    /// The completion sequence number the warm-up's requests reached (ties are broken by it).
    pub(super) seq: u64,
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

/// The warm-up of a run: its figures, where a warm-up in slices stands, and the erase counts
/// it left (the report counts the measured run's erases from them).
#[derive(Default)]
pub(super) struct Warmup {
    pub summary: WarmupSummary,
    /// Whether it is over (or the run started from a warm drive, or it failed).
    pub done: bool,
    /// The warm-up under way in slices (`Simulation::warm_up_step`); None before it and once it
    /// is over.
    cursor: Option<Box<WarmupCursor>>,
    pub erase_base: Vec<u32>,
}

/// Where the untimed writes stand after a slice of them.
pub(super) enum Untimed {
    /// Pages are left to write: the slice's budget is spent.
    More,
    /// They ended in this slice (the timed random writes, if any, begin now), with this much of
    /// the budget left.
    JustOver(u64),
    /// They were over before this slice.
    Over(u64),
}

impl Warmup {
    /// Whether a warm-up in slices has begun and is not over.
    pub fn under_way(&self) -> bool {
        self.cursor.is_some()
    }

    /// Whether the timed random writes are running (the measured workload set aside).
    pub fn timing(&self) -> bool {
        self.cursor.as_ref().is_some_and(|c| c.set_aside.is_some())
    }

    /// The next slice of the untimed writes (up to `budget` pages): the fill, then the random
    /// overwrites, without timing the device.
    pub fn untimed_slice(
        &mut self,
        cfg: &ValidatedConfig,
        ftl: &mut Ftl,
        device: &mut Device,
        mut budget: u64,
    ) -> Result<Untimed> {
        let wu = &cfg.warmup;
        let used = cfg.used_logical_pages();
        let cursor = self.cursor.get_or_insert_with(|| {
            device.set_timed(false);
            Box::new(WarmupCursor::new(cfg.warmup_seed()))
        });
        if cursor.untimed_done {
            return Ok(Untimed::Over(budget));
        }
        if wu.fill {
            let pages = (used as u64 - cursor.filled).min(budget);
            for lpn in cursor.filled..cursor.filled + pages {
                ftl.warm_write(Lpn(lpn as u32), device)?;
            }
            cursor.filled += pages;
            self.summary.pages_written += pages;
            budget -= pages;
        }
        let random = (wu.random_writes * used as f64) as u64;
        let pages = (random - cursor.overwritten).min(budget);
        for _ in 0..pages {
            let lpn = rand::Rng::gen_range(&mut cursor.rng, 0..used);
            ftl.warm_write(Lpn(lpn), device)?;
        }
        cursor.overwritten += pages;
        self.summary.pages_written += pages;
        budget -= pages;
        if budget == 0 && (cursor.filled < used as u64 && wu.fill || cursor.overwritten < random) {
            return Ok(Untimed::More);
        }
        cursor.untimed_done = true;
        self.summary.erases = device.counters().erases;
        device.set_timed(true);
        Ok(Untimed::JustOver(budget))
    }

    /// The timed random writes begin: the measured workload's parts wait in `parts`.
    pub fn set_aside(&mut self, parts: SetAside) {
        if let Some(cursor) = &mut self.cursor {
            cursor.set_aside = Some(parts);
        }
    }

    /// The timed random writes are over: the measured workload's parts, to put back.
    pub fn take_set_aside(&mut self) -> Option<SetAside> {
        self.cursor.as_mut().and_then(|c| c.set_aside.take())
    }

    /// The timed random writes ended after `requests` requests, the last completing at
    /// `span_ns`, with the device's counters at `counters`.
    pub fn timed_over(&mut self, requests: u64, span_ns: SimTime, counters: &crate::device::DeviceCounters) {
        let w = &mut self.summary;
        w.timed_requests = requests;
        w.timed_span_ns = span_ns;
        w.timed_programs = counters.programs;
        w.erases += counters.erases;
    }

    /// The warm-up is over, the blocks erased `erase_counts` times each.
    pub fn finish(&mut self, erase_counts: &[u32]) {
        self.erase_base = erase_counts.to_vec();
        self.cursor = None;
        self.done = true;
    }

    /// The warm-up failed: as it is not tried again, the error stands.
    pub fn abandon(&mut self) {
        self.done = true;
        self.cursor = None;
    }

    /// How far it has gone, at simulated time `now`.
    pub fn progress(&self, cfg: &ValidatedConfig, now: SimTime) -> WarmupProgress {
        let wu = &cfg.warmup;
        let used = cfg.used_logical_pages() as u64;
        WarmupProgress {
            pages_written: self.summary.pages_written,
            pages_to_write: if wu.fill { used } else { 0 } + (wu.random_writes * used as f64) as u64,
            timed_ns: if self.timing() { now.min(wu.timed_random_writes_ns) } else { 0 },
            timed_total_ns: wu.timed_random_writes_ns,
        }
    }
}

/// The warm-up's timed random writes (`warmup.timed_random_writes_ns`): closed-loop uniform
/// random page writes for that much simulated time, `warmup.timed_queue_depth` outstanding (0:
/// the workload's queue depth), served like the measured run's requests; `expected_requests`
/// is the measured run's (what `Simulation::progress` says meanwhile).
pub(super) fn timed_writes(cfg: &ValidatedConfig, expected_requests: Option<u64>) -> Arrivals {
    let wu = &cfg.warmup;
    let page_bytes = cfg.device.page_bytes;
    let used = cfg.used_logical_pages();
    let depth = if wu.timed_queue_depth > 0 { wu.timed_queue_depth } else { cfg.workload.queue_depth() };
    let writes = WorkloadConfig {
        rw: RwMode::Randwrite,
        bs: ByteSize(page_bytes),
        iodepth: depth,
        numjobs: 1,
        arrival: Arrival::Closed,
        ..WorkloadConfig::default()
    };
    let rng = rng_for(cfg.warmup_seed(), RngStream::TimedWarmup);
    let source = SyntheticSource::new(&writes, used as u64 * page_bytes, None, rng);
    Arrivals::new(OpenWorkload {
        host: Host::new(Box::new(source), page_bytes, used, Fold::Modulo, 1.0, false),
        closed_depth: Some(depth),
        jobs: None,
        expected_requests,
        stop_after_ns: Some(wu.timed_random_writes_ns),
        trace: None,
    })
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

/// The measured workload's arrivals and request log, set aside while the warm-up's timed
/// random writes use the event loop.
pub(super) struct SetAside {
    pub arrivals: Arrivals,
    pub log: Option<RequestLog>,
}
