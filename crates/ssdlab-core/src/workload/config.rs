//! Layer: workload. What the host does, in fio's vocabulary for synthetic jobs, plus the trace
//! replay options. One flat table (`[workload]`) so every key can be overridden by name.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::units::ByteSize;
use crate::workload::trace::options::TraceOptions;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WorkloadKind {
    #[default]
    Synthetic,
    Trace,
}

/// fio's `rw`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RwMode {
    Read,
    Write,
    Randread,
    #[default]
    Randwrite,
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AddressDistribution {
    #[default]
    Uniform,
    /// Zipf over block-size slots with exponent `zipf_theta`; ranks are scattered over the space.
    Zipf,
    /// `hot_share` of accesses go uniformly to the first `hot_fraction` of the space.
    Hotcold,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Fold {
    /// Page number modulo the used logical pages.
    #[default]
    Modulo,
    /// Pages get consecutive LPNs in order of first use (the footprint packed at the front);
    /// memory grows with the footprint; wraps modulo if the footprint is larger.
    Compact,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Replay {
    /// Honour trace timestamps (divided by `speedup`).
    #[default]
    Open,
    /// Ignore timestamps: keep `iodepth` requests outstanding.
    Closed,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct WorkloadConfig {
    pub kind: WorkloadKind,
    // --- synthetic (fio names) ---
    pub rw: RwMode,
    pub bs: ByteSize,
    /// Percentage of reads in `randrw`/`rw`.
    pub rwmixread: u32,
    pub iodepth: u32,
    pub numjobs: u32,
    /// Fraction of the used logical space the job touches.
    pub working_set: f64,
    pub random_distribution: AddressDistribution,
    pub zipf_theta: f64,
    pub hot_fraction: f64,
    pub hot_share: f64,
    pub arrival: Arrival,
    pub rate_iops: f64,
    pub on_ns: u64,
    pub off_ns: u64,
    /// Requests to simulate (synthetic: to generate; trace: first N). None = whole trace, or
    /// 100,000 synthetic requests when no duration is set either.
    pub count: Option<u64>,
    /// Stop issuing requests after this much simulated time.
    pub duration_ns: Option<u64>,
    // --- traces ---
    pub path: Option<PathBuf>,
    /// Replay N times faster ("re-rated 64x" = 64): arrival = (t - t0) / speedup.
    pub speedup: f64,
    pub fold: Fold,
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
