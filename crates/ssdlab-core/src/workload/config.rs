//! Layer: workload. What the host does, in fio's vocabulary for synthetic jobs, plus the trace
//! replay options. One flat table (`[workload]`) so every key can be overridden by name.

use std::path::PathBuf;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::units::ByteSize;
use crate::workload::trace::options::TraceOptions;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum WorkloadKind {
    /// Requests from the fio-like generator (the `rw`, `bs`, ... keys).
    #[default]
    Synthetic,
    /// Requests replayed from the trace file at `path`.
    Trace,
    /// Requests drawn from the workload spec `spec` (a file or a built-in spec, docs/workloads.md).
    Spec,
}

/// fio's `rw`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RwMode {
    /// Sequential reads.
    Read,
    /// Sequential writes.
    Write,
    /// Random reads.
    Randread,
    /// Random writes.
    #[default]
    Randwrite,
    /// Random mixed reads and writes (`rwmixread` percent reads).
    Randrw,
    /// Sequential mixed reads and writes (fio's `rw`/`readwrite`).
    #[serde(alias = "readwrite")]
    Rw,
}

impl RwMode {
    pub fn is_random(self) -> bool {
        matches!(self, RwMode::Randread | RwMode::Randwrite | RwMode::Randrw)
    }
}

/// fio's `random_distribution`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum AddressDistribution {
    /// Every block-size slot of the working set equally likely.
    #[default]
    Uniform,
    /// Zipf over block-size slots with exponent `zipf_theta`; ranks are scattered over the space.
    Zipf,
    /// `hot_share` of accesses go uniformly to the first `hot_fraction` of the space.
    Hotcold,
}

/// When requests arrive.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Arrival {
    /// Closed loop: `iodepth x numjobs` requests always outstanding.
    #[default]
    Closed,
    /// Open loop, Poisson arrivals at `rate_iops`.
    Poisson,
    /// Open loop: Poisson at `rate_iops` for `on_ns`, then silence for `off_ns`, repeated.
    Onoff,
}

/// How trace addresses are folded into the used logical space.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Fold {
    /// Page number modulo the used logical pages.
    #[default]
    Modulo,
    /// Pages get consecutive LPNs in order of first use (the footprint packed at the front);
    /// memory grows with the footprint; wraps modulo if the footprint is larger.
    Compact,
}

/// Whether a trace replay honours the trace's timestamps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Replay {
    /// Honour trace timestamps (divided by `speedup`).
    #[default]
    Open,
    /// Ignore timestamps: keep `iodepth` requests outstanding.
    Closed,
}

/// `[workload]`: what the host does. Synthetic jobs use fio's key names; trace replays read
/// `path` with the options of `[workload.trace]` (docs/traces.md).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct WorkloadConfig {
    /// Where requests come from: the generator or a trace file.
    pub kind: WorkloadKind,
    // --- synthetic (fio names) ---
    /// The access pattern (fio's `rw`).
    pub rw: RwMode,
    /// Request size (fio's `bs`), at least 1 byte.
    pub bs: ByteSize,
    /// Percentage of reads in `randrw`/`rw`, 0-100 (fio's `rwmixread`).
    pub rwmixread: u32,
    /// Requests each job keeps outstanding in closed loop (fio's `iodepth`).
    pub iodepth: u32,
    /// Jobs; closed loop keeps `iodepth x numjobs` requests outstanding (fio's `numjobs`). With
    /// `offset_increment` set, each job is "an independent thread", as in fio (see there).
    pub numjobs: u32,
    /// Where I/O starts, in bytes into the working set (fio's `offset`: "start I/O at the
    /// provided offset").
    pub offset: ByteSize,
    /// With it set, "the real offset becomes offset + offset_increment * thread_number" (fio's
    /// `offset_increment`; 0: every job starts at `offset`, fio's default for jobs on one
    /// device), and each job is its own stream: in closed loop it keeps `iodepth` requests
    /// outstanding and issues its next one when one of its own completes, its sequential cursor
    /// advancing only on its own requests (so jobs at one offset re-read and re-write the same
    /// data, out of step); random jobs draw inside their own region. In open loop the jobs take
    /// turns. Unset: the jobs share one stream over one region.
    pub offset_increment: Option<ByteSize>,
    /// "The total size of file I/O for each thread of this job" (fio's `size`): the bytes from
    /// each job's start it reads and writes, at least one block of `bs`; a sequential cursor
    /// wraps to the job's start at its end. Unset: to the end of the working set. A region
    /// beyond the working set is refused.
    pub size: Option<ByteSize>,
    /// Fraction of the used logical space the job touches, in (0, 1].
    pub working_set: f64,
    /// How random offsets are drawn (fio's `random_distribution`).
    pub random_distribution: AddressDistribution,
    /// Zipf exponent, > 0, with `random_distribution = "zipf"` (fio's `zipf:theta`).
    pub zipf_theta: f64,
    /// Fraction of the working set that is hot, in (0, 1), with `random_distribution = "hotcold"`.
    pub hot_fraction: f64,
    /// Fraction of accesses that go to the hot part, in [0, 1], with `hotcold`.
    pub hot_share: f64,
    /// Closed loop, or open-loop arrivals (Poisson, on/off).
    pub arrival: Arrival,
    /// Open-loop arrival rate in requests per second (during on periods with `onoff`).
    pub rate_iops: f64,
    /// Length of each on period of `onoff` arrivals.
    pub on_ns: u64,
    /// Length of each silent period of `onoff` arrivals.
    pub off_ns: u64,
    /// Requests to simulate (synthetic: to generate; trace: the first N). Unset: the whole
    /// trace, or 100,000 synthetic requests when `duration_ns` is unset too.
    pub count: Option<u64>,
    /// Stop issuing requests after this much simulated time.
    pub duration_ns: Option<u64>,
    // --- workload specs ---
    /// The workload spec drawn from with `kind = "spec"`: a TOML file, or the name of a
    /// built-in spec (`ssdlab presets`; a file of that name wins). The spec sets the requests'
    /// sizes, addresses, arrivals and length; `count` replaces its length, and `fold`,
    /// `speedup` and `duration_ns` apply as to a trace.
    pub spec: Option<PathBuf>,
    // --- traces ---
    /// The trace file replayed with `kind = "trace"` (relative to the working directory).
    pub path: Option<PathBuf>,
    /// Replay N times faster ("re-rated 64x" = 64): arrival = (t - t0) / speedup.
    pub speedup: f64,
    /// How trace addresses are folded into the used logical space.
    pub fold: Fold,
    /// Honour trace timestamps (open loop) or keep `iodepth` requests outstanding (closed).
    pub replay: Replay,
    /// Replay the trace this many times back to back (short real traces, long experiments).
    pub repeat: u32,
    /// Reader options: format (auto-detected by default), filters, bad-line policy
    /// (`[workload.trace]`, see docs/traces.md).
    pub trace: TraceOptions,
}

impl Default for WorkloadConfig {
    fn default() -> Self {
        WorkloadConfig {
            kind: WorkloadKind::Synthetic,
            rw: RwMode::Randwrite,
            bs: ByteSize(4096),
            rwmixread: 50,
            iodepth: 1,
            numjobs: 1,
            offset: ByteSize(0),
            offset_increment: None,
            size: None,
            working_set: 1.0,
            random_distribution: AddressDistribution::Uniform,
            zipf_theta: 1.2,
            hot_fraction: 0.2,
            hot_share: 0.8,
            arrival: Arrival::Closed,
            rate_iops: 1000.0,
            on_ns: 100_000_000,
            off_ns: 100_000_000,
            count: None,
            duration_ns: None,
            spec: None,
            path: None,
            speedup: 1.0,
            fold: Fold::Modulo,
            replay: Replay::Open,
            repeat: 1,
            trace: TraceOptions::default(),
        }
    }
}

impl WorkloadConfig {
    /// Requests kept outstanding in closed-loop mode.
    pub fn queue_depth(&self) -> u32 {
        self.iodepth * self.numjobs
    }
}
