//! Layer: stats. The versioned run report: everything a run measured, plus the resolved
//! configuration, seed, ssdlab version and git revision, so a result can be traced to what
//! produced it. Serialised as JSON; the same config and seed give byte-identical JSON (no wall
//! clock time is stored here).

use serde::Serialize;

use crate::device::DeviceCounters;
use crate::ftl::cache::CacheStats;
use crate::ftl::gc::GcStats;
use crate::ftl::FtlStats;
use crate::nand::BlockMode;
use crate::stats::{LatencySummary, RateSeries, TimeSeries};
use crate::workload::host::HostStats;
use crate::workload::trace::TraceInfo;

pub const REPORT_SCHEMA: &str = "ssdlab-report/1";

#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub schema: &'static str,
    pub ssdlab_version: &'static str,
    pub git_revision: &'static str,
    pub seed: u64,
    /// The fully resolved configuration.
    pub config: serde_json::Value,
    /// The simulated drive: its preset and capacities.
    pub drive: DriveSummary,
    pub workload: WorkloadSummary,
    pub latency: LatencyReport,
    pub throughput: Throughput,
    /// Flash page programs (every source: host data, GC, translation pages, migration) per
    /// host page written.
    pub waf: f64,
    /// The same by source (`host`, `gc`, `mapping`, `migration`, `buffer_flush`); they sum to
    /// `waf`.
    pub waf_by_source: std::collections::BTreeMap<&'static str, f64>,
    pub ftl: FtlStats,
    pub gc: GcStats,
    pub wear: WearSummary,
    pub device: DeviceSummary,
    pub policies: Policies,
    pub mapping: MappingSummary,
    /// The write buffer's figures (absent without a buffer).
    pub cache: Option<CacheStats>,
    /// Every region: native first, then those the region policy declared.
    pub regions: Vec<RegionSummary>,
    pub warmup: WarmupSummary,
    pub idle: IdleSummary,
    pub verify: VerifySummary,
    pub time_series: TimeSeriesReport,
    /// Learning diagnostics of every decision point run by an agent (`gc`, `eviction`,
    /// `region`), absent for policies that do not learn (`rl::diagnostics`).
    pub learning: std::collections::BTreeMap<&'static str, crate::rl::LearningReport>,
}

/// The drive a run simulated, as a summary states it (the geometry is in the config echo).
#[derive(Debug, Clone, Default, Serialize)]
pub struct DriveSummary {
    /// The device preset the configuration was loaded over; `null` when its layers gave the
    /// device.
    pub preset: Option<String>,
    /// Every page of every block.
    pub raw_bytes: u64,
    /// Raw x (1 - `device.overprovisioning`), in whole pages.
    pub logical_bytes: u64,
    /// Logical x `device.utilization`: the space the workload addresses (a trace is folded into
    /// it).
    pub used_logical_bytes: u64,
    pub utilization: f64,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct WorkloadSummary {
    pub requests: u64,
    pub reads: u64,
    pub writes: u64,
    pub trims: u64,
    pub read_bytes: u64,
    pub write_bytes: u64,
    /// Simulated time from the first arrival to the last completion.
    pub span_ns: u64,
    pub skipped_records: u64,
    pub host: HostStats,
    /// What the trace reader did: format, blkparse events, device count and layout (`null` for
    /// synthetic workloads).
    pub trace: Option<TraceInfo>,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct LatencyReport {
    pub read: LatencySummary,
    pub write: LatencySummary,
    /// Trims (discards): served by the mapping alone, so their latency is the queueing and GC
    /// they wait for.
    pub trim: LatencySummary,
    pub all: LatencySummary,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct Throughput {
    pub iops: f64,
    pub read_mb_per_s: f64,
    pub write_mb_per_s: f64,
    pub mb_per_s: f64,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct WearSummary {
    /// Erases during the measured run.
    pub erases: u64,
    /// Per-block erases during the measured run.
    pub max_erases_per_block: u32,
    pub mean_erases_per_block: f64,
    pub std_erases_per_block: f64,
    /// Per-block erase counts over the device's whole life (warm-up included).
    pub lifetime_max_erases_per_block: u32,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct DeviceSummary {
    pub counters: DeviceCounters,
    /// Mean fraction of the measured span the array units were busy.
    pub mean_unit_utilization: f64,
    pub free_blocks_at_end: u32,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct Policies {
    /// Every id here is accepted by its config key (`ftl.mapping`, `ftl.placement`,
    /// `slc.policy`, `cache.eviction`, `gc.scheduler`, `gc.victim`).
    pub mapping: String,
    pub placement: String,
    pub region_policy: String,
    /// The write buffer's eviction policy (absent without a buffer).
    pub eviction: Option<String>,
    pub gc_scheduler: String,
    pub gc_victim: String,
    pub gc_scheduler_report: serde_json::Value,
    pub mapping_report: serde_json::Value,
    pub region_report: serde_json::Value,
    pub eviction_report: serde_json::Value,
}

/// The mapping's cost: controller DRAM its tables take (as the modelled device would hold
/// them) and translation-page traffic.
#[derive(Debug, Clone, Default, Serialize)]
pub struct MappingSummary {
    pub dram_bytes: u64,
    pub translation_reads: u64,
    pub translation_writes: u64,
}

#[derive(Debug, Clone, Serialize)]
pub struct RegionSummary {
    pub name: String,
    pub mode: BlockMode,
    pub blocks: u32,
    pub free_blocks: u32,
    /// What the FTL counted for the region during the measured run: host pages and their
    /// program time, GC and migration out of it, overwrites of its data, blocks converted.
    #[serde(flatten)]
    pub stats: crate::ftl::region::RegionStats,
}

/// Idle time between host requests (`[idle]`): periods with nothing outstanding that lasted at
/// least `gap_ns` (each ends at the next arrival; none is counted after the last request), their
/// total length, and the idle-time calls that did work (`gc.idle_*`, `cache.idle_*` say what).
#[derive(Debug, Clone, Default, Serialize)]
pub struct IdleSummary {
    pub gap_ns: u64,
    pub periods: u64,
    pub total_ns: u64,
    pub work_steps: u64,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct WarmupSummary {
    /// Pages the untimed fill and random writes wrote, and the erases of all the warm-up.
    pub pages_written: u64,
    pub erases: u64,
    /// The timed random writes (`warmup.timed_random_writes_ns`): requests completed, the
    /// simulated time they took until the last completed, and the flash programs they caused.
    pub timed_requests: u64,
    pub timed_span_ns: u64,
    pub timed_programs: u64,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct VerifySummary {
    pub enabled: bool,
    pub reads_checked: u64,
    pub final_scan_passed: bool,
}

/// Every series is `{interval_ns, time_ns, values}`. `free_blocks` and the buffer's are sampled
/// values (the value at the first event of each interval, every other sample dropped when the
/// interval doubles); the rest are figures per interval of simulated time
/// (`stats::interval_series`): `time_ns` is an interval's start, the value covers
/// `(time_ns, time_ns + interval_ns]` (the last interval up to the end of the run), and when the
/// interval doubles neighbours merge (counts summed, latency histograms merged), so no request is
/// dropped. Units are in the names.
#[derive(Debug, Clone, Serialize)]
pub struct TimeSeriesReport {
    pub free_blocks: TimeSeries,
    /// Write buffer pages in use (buffered plus being programmed), with a buffer.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub buffer_occupied_pages: Option<TimeSeries>,
    /// Dirty pages in the write buffer, with a buffer.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub buffer_dirty_pages: Option<TimeSeries>,
    /// Throughput, latency percentiles (null in an interval without such requests), WAF (null
    /// without host writes) and GC pages copied, per interval.
    #[serde(flatten)]
    pub rates: RateSeries,
}

impl Report {
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("report types serialise")
    }
}
