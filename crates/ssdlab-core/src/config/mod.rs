//! Layer: config. Typed configuration: what a run simulates, read from TOML layers
//! (preset -> workload file -> `--set key=value` overrides), checked once into a
//! `ValidatedConfig` so no later code re-checks.
//!
//! Every policy is chosen by an id string (`[gc] scheduler = "greedy"`) and may have its own
//! table (`[gc.lazy_rtgc]`). Unknown keys are rejected, all of them in one message: rather than
//! serde's `deny_unknown_fields` (which stops at the first), `load` collects every ignored key
//! with `serde_ignored`; for that reason no config type uses internally tagged enums, whose
//! buffered content would hide unknown keys. Wrong types, missing keys and NaN or infinite
//! numbers are listed with them (`decode.rs`), then the value checks (`validate.rs`).
//!
//! Every config type derives `JsonSchema`: its doc comments and defaults become the JSON Schema
//! (`schema.rs`, `docs/config.schema.json`) and the reference rendered from it
//! (`docs/config.md`), so a doc comment here is user documentation: say the unit, the range and
//! the paper section.

mod decode;
mod load;
pub(crate) mod origin;
pub mod presets;
mod schema;
mod validate;

pub use load::{load, load_validated, load_validated_claiming, load_validated_with, parse_override, to_toml, Layer};
pub use schema::{schema, schema_json, settings_schema};
pub use validate::{Capacity, ValidatedConfig};

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::nand::{CellType, TimingConfig};
use crate::units::ByteSize;
use crate::workload::WorkloadConfig;

/// The whole configuration of one simulation run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Config {
    /// Seed of the run's random streams (workload, policies). Same config + seed = same report.
    #[serde(default)]
    pub seed: u64,
    /// Record (LPN, version) in every page's out-of-band area and check every read.
    /// Costs memory and time; for tests and for checking a new policy.
    #[serde(default)]
    pub verify: bool,
    /// The simulated drive; a device preset (`--preset`) gives every key of it.
    pub device: DeviceConfig,
    /// The flash translation layer: mapping scheme and write allocation.
    #[serde(default)]
    pub ftl: FtlConfig,
    /// Garbage collection: when it runs and how much (`scheduler`), which block it reclaims
    /// (`victim`), and each scheduler's own table.
    #[serde(default)]
    pub gc: GcConfig,
    /// The DRAM write buffer (data cache); capacity 0 = write-through.
    #[serde(default)]
    pub cache: CacheConfig,
    /// An SLC-mode region in front of the native one, and the policy that routes writes to it
    /// and migrates from it (`policy = "none"`: no SLC region).
    #[serde(default)]
    pub slc: SlcConfig,
    /// What the host does: a synthetic job in fio's vocabulary, or a trace replay.
    #[serde(default)]
    pub workload: WorkloadConfig,
    /// Bringing the drive to steady state before measuring.
    #[serde(default)]
    pub warmup: WarmupConfig,
    /// What the report records besides the summary.
    #[serde(default)]
    pub report: ReportConfig,
    /// When the host counts as idle (for idle-time GC and buffer flushes).
    #[serde(default)]
    pub idle: IdleConfig,
    /// The order in which array units serve flash operations: first come first served, or
    /// host work before background work, with optional program/erase suspension for reads.
    #[serde(default)]
    pub scheduler: SchedulerConfig,
    /// The settings tables of policies that declare their own (`registry::Settings`), by dotted
    /// path (`gc.steady`), as written: the config layer does not know them; the policy's
    /// registry entry claims, checks, documents and decodes them. Never read from a config file
    /// under this name (`load_validated_claiming` fills it); written to the report as it is and
    /// by `to_toml` at the tables' own paths.
    #[serde(skip_deserializing, default, skip_serializing_if = "BTreeMap::is_empty")]
    #[schemars(skip)]
    pub policy_tables: BTreeMap<String, toml::Table>,
}

/// `[scheduler]`: the transaction scheduler (issue #10, docs/experiments/scheduling.md).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct SchedulerConfig {
    /// How each array unit orders the flash operations waiting for it: a registered
    /// transaction scheduler (`device/scheduler.rs`).
    pub policy: String,
    /// With `priority`: a read that finds its unit running a background program or erase
    /// suspends it and starts after this many ns (the time to suspend). Unset: no suspension.
    pub suspend_ns: Option<u64>,
    /// Extra array time a suspended operation needs when it resumes, in ns.
    pub resume_ns: u64,
    /// How many times one operation may be suspended; later reads wait for it.
    pub max_suspensions: u32,
    /// With `priority`: starvation protection. Background work that has waited this many ns
    /// past its ready time is booked at once, like host work, behind what its unit already
    /// holds; a host load that never leaves its unit idle delays background work by at most
    /// this much (and the FTL, which counts a queued erase's block as free, never runs ahead of
    /// the flash by more).
    pub max_wait_ns: u64,
}

impl Default for SchedulerConfig {
    fn default() -> Self {
        SchedulerConfig {
            policy: "fcfs".into(),
            suspend_ns: None,
            resume_ns: 0,
            max_suspensions: 1,
            max_wait_ns: 10_000_000,
        }
    }
}

/// `[idle]`: idle detection. The drive is idle once no host request has been outstanding for
/// `gap_ns`; policies that work in idle time (`gc.background = "idle"`,
/// `cache.flush_on_idle`) start then, and the report counts idle periods either way.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct IdleConfig {
    /// Time with nothing outstanding before the drive counts as idle, in ns (at least 1).
    /// 1 ms by default: longer than any single flash operation of the presets (tBERS up to
    /// 3.8 ms is a multi-millisecond operation, but a request waiting on it is outstanding), and
    /// short enough that the inter-arrival gaps of the bundled traces register.
    pub gap_ns: u64,
}

impl Default for IdleConfig {
    fn default() -> Self {
        IdleConfig { gap_ns: 1_000_000 }
    }
}

/// `gc.background`: whether GC also works in idle time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum GcBackground {
    /// GC runs only where the scheduler's request-time decisions put it.
    #[default]
    Off,
    /// Also in idle time (`[idle]`): `greedy` reclaims victims (any with an invalid page) while
    /// free blocks are below `gc.background_free_blocks`; `lazy_rtgc` erases blocks that hold
    /// no valid page, as its paper does in idle time. One page copy or one erase per step (a
    /// request arriving in idle time waits for at most that); the next step starts when this
    /// one ends if the host is still idle.
    Idle,
    /// FEMU's background GC, as the LearnedFTL authors' `dftl.c` and `tpftl.c` run it (their
    /// FTL thread calls `do_gc(ssd, false)` on every pass while free lines are at or below 25 %,
    /// host requests or not): `greedy` on `ftl.placement = "line"` only. After each host request
    /// completes, while free blocks are below `gc.background_free_blocks`, it collects one line,
    /// the greedy one, if at least 1/8 of its pages are invalid (FEMU's `select_victim_line`
    /// refuses a victim below that when not forced). The work is booked on the chips at that
    /// time as background work: no request waits for it directly, later operations on those
    /// chips queue behind it. Blocking GC at `gc.trigger_free_blocks` stays as the foreground.
    BetweenRequests,
}

/// `[device]`: geometry, cells, overprovisioning and timings of the simulated drive. Physical
/// pages = channels x chips_per_channel x dies_per_chip x planes_per_die x blocks_per_plane x
/// pages_per_block (fewer than 2^32).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct DeviceConfig {
    /// Where the numbers come from (paper and table), for the report.
    #[serde(default)]
    pub source: String,
    /// Flash channels: buses whose page transfers are serialised, each shared by its chips.
    pub channels: u32,
    /// Chips (packages) on each channel.
    pub chips_per_channel: u32,
    /// Dies per chip.
    #[serde(default = "one")]
    pub dies_per_chip: u32,
    /// Planes per die.
    #[serde(default = "one")]
    pub planes_per_die: u32,
    /// Erase blocks per plane.
    pub blocks_per_plane: u32,
    /// Pages per block, a multiple of the bits per cell (a wordline holds one page per bit).
    pub pages_per_block: u32,
    /// Data bytes per page (at least 512); also the mapping unit.
    pub page_bytes: u64,
    /// Cell type: bits per cell, hence page types per wordline and the length of the per-type
    /// latency lists in `device.timing`.
    pub cell: CellType,
    /// Fraction of physical pages hidden from the host: logical = physical x (1 - op).
    pub overprovisioning: f64,
    /// Fraction of the logical space the workload uses (warm-up fills it; addresses fold into it).
    #[serde(default = "one_f")]
    pub utilization: f64,
    /// Flash operation latencies and the channel rate.
    pub timing: TimingConfig,
}

impl DeviceConfig {
    /// The device's shape (unvalidated: `ValidatedConfig::geometry` is the checked one).
    pub fn geometry(&self) -> crate::nand::Geometry {
        crate::nand::Geometry {
            channels: self.channels,
            chips_per_channel: self.chips_per_channel,
            dies_per_chip: self.dies_per_chip,
            planes_per_die: self.planes_per_die,
            blocks_per_plane: self.blocks_per_plane,
            pages_per_block: self.pages_per_block,
            page_bytes: self.page_bytes,
            cell: self.cell,
        }
    }
}

fn one() -> u32 {
    1
}
fn one_f() -> f64 {
    1.0
}

/// What a host read of a logical page the workload never wrote (nor trimmed) does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum UnwrittenReads {
    /// The page holds data written before the trace began (a replayed trace was recorded on a
    /// drive in use): on its first read a physical page is assigned to it, untimed and not
    /// counted as a program (MQSim does the same), and the read costs a normal flash read. Its
    /// translation page (`dftl`) is on flash too: a miss on it costs a translation read.
    #[default]
    MapOnRead,
    /// Reading it costs nothing (no flash access): the drive is taken to be empty.
    Free,
}

/// `[ftl]`: the mapping scheme and where written pages go.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct FtlConfig {
    /// Where the logical-to-physical table lives: `page` (all of it in DRAM, the "ideal" FTL),
    /// `dftl` (translation pages on flash with a cached mapping table, `[ftl.dftl]`), `tpftl`
    /// (the same with TPFTL's two-level cache and prefetching, `[ftl.tpftl]`) or `learned`
    /// (LearnedFTL: TPFTL's cache and a learned model per translation page, `[ftl.learned]`).
    pub mapping: String,
    /// Where a program unit goes: `dynamic` (least-busy plane), `static` (MQSim's
    /// channel-way-die-plane order computed from the LPN), `wordline` (a multi-level wordline
    /// programmed one-shot with the next evicted pages of the write buffer) or `group`
    /// (LearnedFTL's group-based allocation on lines, `[ftl.group]`).
    pub placement: String,
    pub unwritten_reads: UnwrittenReads,
    /// Bytes of one entry inside a translation page (demand-based mappings): a translation page
    /// of `page_bytes` holds `page_bytes / translation_entry_bytes` consecutive LPNs
    /// (LearnedFTL Sec. 3.1: 8, so a 4 KiB page holds 512).
    pub translation_entry_bytes: u32,
    /// Give `dftl` and `tpftl` the DRAM LearnedFTL's models would take (translation pages x
    /// `ftl.learned.model_bytes`) on top of their `cmt_bytes`: the equal DRAM budget of the
    /// LearnedFTL paper's comparison (Sec. 4.1).
    pub equal_dram: bool,
    pub tpftl: TpftlConfig,
    pub learned: LearnedConfig,
    pub group: GroupConfig,
}

impl FtlConfig {
    /// Consecutive LPNs one translation page of `page_bytes` holds (`page_bytes /
    /// translation_entry_bytes`, at least 1).
    pub fn entries_per_translation_page(&self, page_bytes: u64) -> u32 {
        (page_bytes / self.translation_entry_bytes.max(1) as u64).clamp(1, u32::MAX as u64) as u32
    }
}

impl Default for FtlConfig {
    fn default() -> Self {
        FtlConfig {
            mapping: "page".into(),
            placement: "dynamic".into(),
            unwritten_reads: UnwrittenReads::default(),
            translation_entry_bytes: 8,
            equal_dram: false,
            tpftl: TpftlConfig::default(),
            learned: LearnedConfig::default(),
            group: GroupConfig::default(),
        }
    }
}

/// `[ftl.tpftl]`: TPFTL (Zhou et al., EuroSys 2015) as the LearnedFTL paper compares against it
/// (Sec. 2.2): a two-level cache of translation-page nodes holding compact entries, clean-first
/// replacement in the coldest node, request-level and selective prefetching.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct TpftlConfig {
    /// DRAM for the two-level cache, in bytes: every cached node costs `node_bytes`, every
    /// cached entry `entry_bytes` (64 KiB as DFTL's default).
    pub cmt_bytes: ByteSize,
    /// DRAM bytes one translation-page node costs (its translation page number and entry count).
    pub node_bytes: u32,
    /// DRAM bytes one entry costs inside a node: the LPN's offset in its translation page
    /// (2 bytes) and the PPN (4), the compression TPFTL gets from its two levels.
    pub entry_bytes: u32,
    /// Request-level prefetch: a miss loads the rest of the request's range in the same
    /// translation page with the same translation read.
    pub request_prefetch: bool,
    /// Selective prefetch: a miss also loads as many following entries as the missed LPN has
    /// cached predecessors, while it is switched on.
    pub selective_prefetch: bool,
    /// Selective prefetch switches off once this many more nodes were created than evicted
    /// (the cache fills with new pages: little spatial locality), and on again once this many
    /// more were evicted than created.
    pub selective_threshold: u32,
}

/// `[ftl.learned]`: LearnedFTL (Wang et al., HPCA 2024): TPFTL's two-level cache (`[ftl.tpftl]`
/// for everything but its size) in front of a model layer in the GTD: per translation page a
/// piecewise linear model over (LPN, virtual PPN) and a bitmap of the LPNs it predicts exactly.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct LearnedConfig {
    /// DRAM for LearnedFTL's cached mapping table, in bytes (its models come on top).
    pub cmt_bytes: ByteSize,
    /// Most linear segments per model (Sec. 3.2: N, 8 by default).
    pub max_segments: u32,
    /// DRAM bytes one model takes; 0 derives it as Sec. 4.1 does: an 8-byte start PPN, 3 bytes
    /// per segment and one bit per entry of the translation page (96 for 8 segments and 512
    /// entries).
    pub model_bytes: u32,
    /// Whether LearnedFTL's translation-page programs take time: `charged` (the default, as for
    /// DFTL and TPFTL) or `none`, the accounting of the authors' FEMU code (`ld-tpftl.c`, whose
    /// `translation_write_page` leaves the program's `ssd_advance_status` call commented out,
    /// while their `dftl.c` and `tpftl.c` charge it). With `none` the page is still placed and
    /// written (translation writes, programs, WAF and wear count it) but books no chip: nothing
    /// waits for it, neither the request that evicted the entry nor any later operation on that
    /// chip. The read of the page's stored copy is still charged. Translation pages moved by GC
    /// are GC copies and keep their time either way.
    pub translation_program_time: TranslationProgramTime,
}

/// `ftl.learned.translation_program_time`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TranslationProgramTime {
    /// A translation-page program books its chip for tPROG, like any program.
    #[default]
    Charged,
    /// Written and counted, but in no time (the LearnedFTL artifact's accounting).
    None,
}

/// `[ftl.group]`: LearnedFTL's group-based allocation (Wang et al., HPCA 2024, Sec. 3.3.1) with
/// `ftl.placement = "group"`: consecutive GTD entries form a group whose data has write points of
/// its own on lines (the same block on every plane), and GC collects a group's lines together
/// (`gc.victim = "group"`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct GroupConfig {
    /// Consecutive GTD entries (translation pages) per group; 0 derives one line's worth of
    /// pages: planes x pages per block / entries per translation page (64 on the paper's FEMU
    /// device, Sec. 4.1), at least 1.
    pub entries: u32,
    /// A group that holds this many lines, its open one included, is collected by GC before it
    /// opens another (Sec. 3.3.1's per-group threshold; 5 in the authors' code); 0: no limit,
    /// only free space triggers GC.
    pub max_lines: u32,
}

impl Default for GroupConfig {
    fn default() -> Self {
        GroupConfig { entries: 0, max_lines: 5 }
    }
}

impl Default for LearnedConfig {
    fn default() -> Self {
        LearnedConfig {
            cmt_bytes: ByteSize(64 * 1024),
            max_segments: 8,
            model_bytes: 0,
            translation_program_time: TranslationProgramTime::Charged,
        }
    }
}

impl Default for TpftlConfig {
    fn default() -> Self {
        TpftlConfig {
            cmt_bytes: ByteSize(64 * 1024),
            node_bytes: 8,
            entry_bytes: 6,
            request_prefetch: true,
            selective_prefetch: true,
            selective_threshold: 3,
        }
    }
}

/// `cache.room_order`: which page a full write buffer gives up first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RoomOrder {
    /// The least recently used clean page, if any; dirty pages leave only when none is clean.
    #[default]
    CleanFirst,
    /// The least recently used page, clean or dirty: one LRU order for read and write data.
    Lru,
}

/// `[cache]`: the DRAM write buffer (data cache) in front of the flash.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct CacheConfig {
    /// Buffer size in bytes; 0 turns the buffer off (every host write is programmed at once).
    pub capacity: ByteSize,
    /// Which buffered pages leave, and in what order: `lru` (write-back LRU; with `wordline`
    /// placement the FSP paper's Baseline), `frequency`, `distance`, `rl_fsp` (the FSP paper's
    /// page-type aware policies, settings in `[cache.fsp]`).
    pub eviction: String,
    /// Dirty pages above this fraction of the capacity start a flush ...
    pub high_watermark: f64,
    /// ... that evicts until dirty pages are at most this fraction.
    pub low_watermark: f64,
    /// DRAM transfer rate in bytes per second: a buffered write completes, and a buffer hit
    /// is served, after its pages cross at this rate (MQSim's default DDR: 800 MT/s x 4 bytes).
    pub dram_bytes_per_s: u64,
    /// Also keep pages read from flash in the buffer (clean), as a read cache (the FSP paper's
    /// Baseline-RW).
    pub insert_reads: bool,
    /// Which page a full buffer gives up to make room: `clean_first` drops the least recently
    /// used clean page before any dirty page leaves; `lru` takes the LRU tail whatever it is (a
    /// clean tail is dropped, a dirty one leaves in a program unit), so read and write data
    /// leave in one order, as in the FSP paper's Baseline-RW (Sec. IV-A, Fig. 13-14). The two
    /// are the same without clean pages (`insert_reads = false`).
    pub room_order: RoomOrder,
    /// With `insert_reads`: a page read from flash enters the buffer dirty, so it is programmed
    /// again when it leaves, as SSDsim's buffer does with everything it evicts (its nodes keep
    /// no clean state). The FSP paper's Baseline-RW, built on SSDsim, "brings about more flush
    /// operations on the flash array and more erase operations" (Sec. IV-B1; 2.2x erases,
    /// Sec. IV-D2). With every buffered page dirty, `room_order` no longer matters.
    pub write_back_reads: bool,
    /// In idle time (`[idle]`), program every dirty page (as units, as evictions do), so that
    /// later writes find room without evicting.
    pub flush_on_idle: bool,
    /// Write every dirty page back at most this many ns after the buffer went from clean to
    /// dirty, with or without host activity (a timer; a drive bounding what a power loss can
    /// cost). Unset: dirty pages leave only by eviction, idle flushes and the end of the run.
    pub flush_interval_ns: Option<u64>,
    /// Settings of the FSP paper's eviction policies (`frequency`, `distance`, `rl_fsp`).
    pub fsp: FspConfig,
}

/// `[cache.fsp]`: the page-type aware eviction policies of Li et al., "Page Type-Aware
/// Full-Sequence Program Scheduling via Reinforcement Learning in High Density SSDs", TCAD 2024.
/// Each is checked where its policy is built.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct FspConfig {
    /// Eviction candidates: this share of the buffer's pages from the LRU tail, at least one
    /// wordline (Sec. IV-A: 5 %, after OSPADA).
    pub candidates_fraction: f64,
    /// `distance`: a unit's pages are at least this share of the buffer's page count apart in
    /// logical address, where the candidates allow (Sec. IV-A: half).
    pub distance_fraction: f64,
    /// `frequency` and `rl_fsp`: the rewrite modules (Sec. III-D, IV-A).
    pub rewrite: bool,
    /// `rl_fsp`: decisions per episode (Sec. III-B: 1000).
    pub episode_length: u64,
    /// `rl_fsp`: step size of Eq. 1, in (0, 1] (Sec. III-B: 0.3).
    pub alpha: f64,
    /// `rl_fsp`: discount factor of Eq. 1, in [0, 1] (Sec. III-B: 0.8).
    pub gamma: f64,
    /// `rl_fsp`: exploration probability for the first `epsilon_switch_after_episodes`
    /// episodes (Algorithm 1 lines 8-11: 0.8) ...
    pub epsilon_initial: f64,
    /// ... and after them (Algorithm 1: 0.01).
    pub epsilon_after: f64,
    /// `rl_fsp`: episodes explored at `epsilon_initial` (Algorithm 1: 4).
    pub epsilon_switch_after_episodes: u64,
    /// `rl_fsp`: the page-type part of the reward, LSB first, when the page is read in the next
    /// episode; negated when it is not (Sec. III-B: 1, 0.5, -0.5, -1). One per page type.
    pub page_type_rewards: Vec<f64>,
    /// `rl_fsp`: the latency part's thresholds, percentiles of the per-KiB response time of
    /// read requests, strictly ascending (Sec. III-B: 70, 90, 99) ...
    pub latency_percentiles: Vec<f64>,
    /// ... and the reward of each band they delimit, fastest first, one more than the
    /// percentiles (Sec. III-B: 1, 0.5, 0, -1).
    pub latency_rewards: Vec<f64>,
    /// `rl_fsp`: the percentiles are taken over the last this many read requests (ours) ...
    pub latency_window: usize,
    /// ... and recomputed after this many.
    pub latency_refresh_every: usize,
    /// `rl_fsp`: which later decision Eq. 1's `Q(S_{p+1}, A_{p+1})` is read from (see
    /// `FspBootstrap`).
    pub bootstrap: FspBootstrap,
    /// `rl_fsp`'s random-action control: every candidate's page type drawn uniformly, with the
    /// same candidates, grouping, rewrite and rewards. Refused for another eviction policy.
    pub random_control: bool,
}

impl Default for FspConfig {
    fn default() -> Self {
        FspConfig {
            candidates_fraction: 0.05,
            distance_fraction: 0.5,
            rewrite: true,
            episode_length: 1000,
            alpha: 0.3,
            gamma: 0.8,
            epsilon_initial: 0.8,
            epsilon_after: 0.01,
            epsilon_switch_after_episodes: 4,
            page_type_rewards: vec![1.0, 0.5, -0.5, -1.0],
            latency_percentiles: vec![70.0, 90.0, 99.0],
            latency_rewards: vec![1.0, 0.5, 0.0, -1.0],
            latency_window: 10_000,
            latency_refresh_every: 1000,
            bootstrap: FspBootstrap::default(),
            random_control: false,
        }
    }
}

/// Which decision RL-FSP's update bootstraps from (Eq. 1's `S_{p+1}, A_{p+1}`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum FspBootstrap {
    /// The mean value of the next unit's four decisions, the same for every page of a unit, so
    /// the learned page type does not depend on the order a unit's pages are recorded (ours, the
    /// default).
    #[default]
    NextUnit,
    /// The decision recorded next, as Eq. 1 literally reads: a unit recorded LSB to MSB makes
    /// each page type bootstrap from the next type's value.
    NextDecision,
}

impl Default for CacheConfig {
    fn default() -> Self {
        CacheConfig {
            capacity: ByteSize(0),
            eviction: "lru".into(),
            high_watermark: 0.9,
            low_watermark: 0.8,
            dram_bytes_per_s: 3_200_000_000,
            insert_reads: false,
            room_order: RoomOrder::CleanFirst,
            write_back_reads: false,
            flush_on_idle: false,
            flush_interval_ns: None,
            fsp: FspConfig::default(),
        }
    }
}

/// `[slc]`: an SLC-mode cache region on a multi-level device (hybrid SLC/QLC drives). The
/// policies are those of Yoo & Shin, "Reinforcement Learning-Based SLC Cache Technique for
/// Enhancing SSD Write Performance", HotStorage 2020, and its baselines.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct SlcConfig {
    /// Who runs the SLC region: `none` (every block native, e.g. QLC-only), `static` (a fixed
    /// region and size threshold: the RL-SLC paper's "static" baseline), `dwa` (size by space
    /// utilisation), `ust` (every write to SLC first) or `rl` (the paper's Q-learning agent).
    pub policy: String,
    /// `static`: blocks in SLC mode for the whole run, spread evenly over the planes; `rl`:
    /// blocks in SLC mode at start (0: the middle of its range). `dwa` and `ust` size the region
    /// themselves.
    pub blocks: u32,
    /// Host writes of at most this many bytes go to the SLC region; larger ones to the native
    /// region (the RL-SLC paper's hot/cold threshold theta; `dwa`: 32 KiB, Sec. 4; `rl`: the
    /// level it starts at, the nearest of `slc.rl.threshold_levels_bytes`).
    pub threshold_bytes: ByteSize,
    /// Migrate SLC data to the native region when the SLC region has fewer free blocks than
    /// this (the RL-SLC paper, Sec. 4: 5) ...
    pub trigger_free_blocks: u32,
    /// ... until it has this many (default: trigger + 1).
    pub target_free_blocks: Option<u32>,
    /// `dwa`, `ust`, `rl`: the largest share of the device's blocks in SLC mode (56 %: Table
    /// 2's largest setting, the Intel 660p's cache on an empty drive). Resizes never take the
    /// native region below what its data needs, whatever this says.
    pub max_fraction: f64,
    /// SLC blocks and threshold are sampled every this many bytes of host writes for the
    /// report's series (the paper's Figs. 5-6: every 128 MB).
    pub sample_every_bytes: ByteSize,
    /// `[slc.dwa]`: dynamic write acceleration's table.
    pub dwa: SlcDwaConfig,
    /// `[slc.ust]`: utilisation-aware self-tuning.
    pub ust: SlcUstConfig,
    /// `[slc.rl]`: the Q-learning agent.
    pub rl: SlcRlConfig,
}

impl Default for SlcConfig {
    fn default() -> Self {
        SlcConfig {
            policy: "none".into(),
            blocks: 0,
            threshold_bytes: ByteSize(32 * 1024),
            trigger_free_blocks: 5,
            target_free_blocks: None,
            max_fraction: 0.56,
            sample_every_bytes: ByteSize(128 << 20),
            dwa: SlcDwaConfig::default(),
            ust: SlcUstConfig::default(),
            rl: SlcRlConfig::default(),
        }
    }
}

/// `[slc.dwa]`: SLC size by space utilisation, looked up in a table (Table 2 "setting 1", from
/// a commercial drive: the Intel 660p).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct SlcDwaConfig {
    /// Utilisation bounds, strictly ascending in (0, 1) (Table 2: 20 % to 70 %) ...
    pub utilization_edges: Vec<f64>,
    /// ... and the share of the device's blocks in SLC mode below the first bound, between
    /// each pair and above the last: one more than the bounds (setting 1: 56, 50, 40, 30, 25,
    /// 20, 10 %).
    pub block_fractions: Vec<f64>,
}

impl Default for SlcDwaConfig {
    fn default() -> Self {
        SlcDwaConfig {
            utilization_edges: vec![0.2, 0.3, 0.4, 0.5, 0.6, 0.7],
            block_fractions: vec![0.56, 0.50, 0.40, 0.30, 0.25, 0.20, 0.10],
        }
    }
}

/// `[slc.ust]`: utilisation-aware self-tuning (Yang et al., TVLSI 2016, as the RL-SLC paper
/// describes it in Sec. 4).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct SlcUstConfig {
    /// MAX_SLC: SLC blocks' worth of host pages a logical block (a native block's worth of
    /// LPNs) may write into the SLC region between two SLC garbage collections (Sec. 4: 6).
    pub max_blocks_per_logical_block: u32,
}

impl Default for SlcUstConfig {
    fn default() -> Self {
        SlcUstConfig { max_blocks_per_logical_block: 6 }
    }
}

/// `[slc.rl]`: the RL-SLC agent (Sec. 3). Its Q-table has the paper's shape, 1,296 states x 9
/// actions; the ranges below say what the bins and actions mean.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct SlcRlConfig {
    /// One decision per this many SLC blocks' worth of host writes (Sec. 3.1: 8).
    pub step_slc_blocks: u32,
    /// SLC blocks an action adds to or takes from the region (ours: 32, 128 MiB of SLC on
    /// the paper's drive; the paper does not say).
    pub size_step_blocks: u32,
    /// The hot/cold threshold levels an action moves between, strictly ascending (ours: 4 KiB
    /// to 512 KiB, doubling; Fig. 6 reaches 512 KB).
    pub threshold_levels_bytes: Vec<ByteSize>,
    /// Utilisation bounds of the state's 4 utilisation bins, strictly ascending (ours).
    pub utilization_edges: Vec<f64>,
    /// The state's SLC write demand is high when at least this share of a step's host pages
    /// went to the SLC region (ours).
    pub demand_high_fraction: f64,
    /// The state's update frequency in SLC is high when a step's host writes overwrote at
    /// least this many SLC pages per page they wrote to the SLC region (ours).
    pub update_high_fraction: f64,
    /// Step size of Eq. 1, in (0, 1] (not given; RLGC's 0.3).
    pub alpha: f64,
    /// Discount factor of Eq. 1, in [0, 1] (not given; RLGC's 0.8).
    pub gamma: f64,
    /// Exploration probability (Sec. 2.3: 0.07).
    pub epsilon: f64,
    /// Algorithm 2's rewards: when the step's weighted write cost is at most its running
    /// average ...
    pub reward_positive: f64,
    /// ... and when it is above.
    pub reward_negative: f64,
    /// What a step's cost is compared with (Algorithm 2: the average of the earlier steps).
    pub reward_baseline: SlcRewardBaseline,
    /// `reward_baseline = "exponential"`: weight of the newest step, in (0, 1] (ours).
    pub reward_baseline_smoothing: f64,
    /// Learn during the run (false: act on the loaded table without updating it).
    pub learn: bool,
    /// Start from this pre-trained Q-table (a file `save_qtable` wrote; Sec. 4.2), not zeros.
    pub load_qtable: Option<String>,
    /// Write the Q-table here at the end of the run.
    pub save_qtable: Option<String>,
    /// The random-action control: each step's size and threshold change drawn uniformly from
    /// the 9 actions, with the same steps, states and rewards. Refused for another `slc.policy`.
    pub random_control: bool,
}

/// The cost a step of the RL SLC cache is rewarded against (Algorithm 2 lines 4-9).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SlcRewardBaseline {
    /// The mean of every earlier step, as the paper words it.
    #[default]
    AllSteps,
    /// An exponential moving average of the earlier steps (`reward_baseline_smoothing`), so the
    /// baseline follows the workload's phases (ours: a variant measured for seed spread).
    Exponential,
}

impl Default for SlcRlConfig {
    fn default() -> Self {
        SlcRlConfig {
            step_slc_blocks: 8,
            size_step_blocks: 32,
            threshold_levels_bytes: (12..20).map(|s| ByteSize(1 << s)).collect(),
            utilization_edges: vec![0.25, 0.5, 0.75],
            demand_high_fraction: 0.5,
            update_high_fraction: 0.5,
            alpha: 0.3,
            gamma: 0.8,
            epsilon: 0.07,
            reward_positive: 1.0,
            reward_negative: -1.0,
            reward_baseline: SlcRewardBaseline::default(),
            reward_baseline_smoothing: 0.1,
            learn: true,
            load_qtable: None,
            save_qtable: None,
            random_control: false,
        }
    }
}

/// `[gc]`: garbage collection. The scheduler decides when GC runs and how many pages it copies
/// per step, the victim policy which block it reclaims; each scheduler reads its own table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct GcConfig {
    /// When and how much GC runs (`greedy`, `lazy_rtgc`, `rlgc`, `rlgc_aggressive`, `rlgc_qtc`,
    /// `predictor`; see docs/policies/gc.md).
    #[serde(default = "default_scheduler")]
    pub scheduler: String,
    /// Which block GC empties: `greedy` (fewest valid pages), `fifo`, `cost_benefit`.
    #[serde(default = "default_victim")]
    pub victim: String,
    /// Victim search and trigger per region (`region`, the papers' simulators) or per plane
    /// (`plane`, MQSim). Only `greedy` supports per-plane GC.
    #[serde(default)]
    pub scope: GcScopeKind,
    /// GC threshold in free blocks of the native region (of each plane with `scope = "plane"`):
    /// greedy and Lazy-RTGC start when free blocks
    /// fall below it; for RLGC and its variants it is T_GC (decisions while free <= it).
    #[serde(default = "default_trigger")]
    pub trigger_free_blocks: u32,
    /// Foreground GC reclaims until free blocks reach this; must exceed `trigger_free_blocks`.
    /// Unset: trigger + 1.
    #[serde(default)]
    pub target_free_blocks: Option<u32>,
    /// GC in idle time too: `off` or `idle` (`greedy` and `lazy_rtgc`, with `scope = "region"`).
    #[serde(default)]
    pub background: GcBackground,
    /// `greedy` with `background = "idle"` reclaims in idle time while free blocks of the native
    /// region are below this. Unset: twice `trigger_free_blocks`.
    #[serde(default)]
    pub background_free_blocks: Option<u32>,
    /// Settings of the `lazy_rtgc` scheduler.
    #[serde(default)]
    pub lazy_rtgc: LazyRtgcConfig,
    /// Settings of the `rlgc` and `rlgc_aggressive` schedulers, and the learning settings of
    /// `rlgc_qtc` and the triggering of `predictor`.
    #[serde(default)]
    pub rlgc: RlgcConfig,
    /// Settings of the `rlgc_qtc` scheduler.
    #[serde(default)]
    pub qtc: QtcGcConfig,
    /// Settings of the `predictor` scheduler.
    #[serde(default)]
    pub predictor: PredictorConfig,
}

fn default_trigger() -> u32 {
    8
}
fn default_scheduler() -> String {
    "greedy".into()
}
fn default_victim() -> String {
    "greedy".into()
}

/// `gc.scope`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum GcScopeKind {
    /// One trigger and one victim search over the whole region.
    #[default]
    Region,
    /// Each plane triggers and reclaims on its own free blocks.
    Plane,
}

impl Default for GcConfig {
    fn default() -> Self {
        GcConfig {
            scheduler: default_scheduler(),
            victim: default_victim(),
            scope: GcScopeKind::default(),
            trigger_free_blocks: default_trigger(),
            target_free_blocks: None,
            background: GcBackground::default(),
            background_free_blocks: None,
            lazy_rtgc: LazyRtgcConfig::default(),
            rlgc: RlgcConfig::default(),
            qtc: QtcGcConfig::default(),
            predictor: PredictorConfig::default(),
        }
    }
}

/// Intensive GC (Lazy-RTGC, adopted by RLGC Sec. 5.2): when the host is down to its last free
/// blocks, a fixed number of copies follows every write, whatever the policy says. Counted in
/// free blocks the host may still open (each plane's GC reserve excluded), see
/// `GcObservation::host_free_blocks`. Built from the `intensive_*` keys of a policy's table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IntensiveConfig {
    /// Copies per step in intensive mode.
    pub copies: u32,
    /// Enter intensive mode when host-usable free blocks are at most this.
    pub enter_free_blocks: u32,
    /// Leave it when host-usable free blocks exceed this.
    pub stop_free_blocks: u32,
}

/// RLGC Sec. 5.2: intensive GC does "5 or 7" copies; ours: 7 (see lazy_rtgc.rs).
fn default_intensive_copies() -> u32 {
    7
}

/// `[gc.lazy_rtgc]`: Lazy-RTGC's partial GC (Zhang et al., TODAES 2015, as RLGC's baseline).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct LazyRtgcConfig {
    /// Valid-page copies per partial task (alpha). Unset: floor(tBERS / (tR + tPROG)) of the
    /// device, the most copies that fit in one block-erase time.
    pub copies_per_step: Option<u32>,
    /// Copies per step in intensive mode (RLGC Sec. 5.2: "5 or 7"; ours 7).
    pub intensive_copies: u32,
    /// Enter intensive mode with this many host-usable free blocks left ("one free block": 1).
    pub intensive_enter_free_blocks: u32,
    /// Leave intensive mode above this many host-usable free blocks (Lazy-RTGC: "greater than
    /// one": 1).
    pub intensive_stop_free_blocks: u32,
}

impl LazyRtgcConfig {
    pub fn intensive(&self) -> IntensiveConfig {
        IntensiveConfig {
            copies: self.intensive_copies,
            enter_free_blocks: self.intensive_enter_free_blocks,
            stop_free_blocks: self.intensive_stop_free_blocks,
        }
    }
}

impl Default for LazyRtgcConfig {
    fn default() -> Self {
        LazyRtgcConfig {
            copies_per_step: None,
            intensive_copies: default_intensive_copies(),
            intensive_enter_free_blocks: 1,
            intensive_stop_free_blocks: 1,
        }
    }
}

/// What Algorithm 1's "interval == 0" (lines 3-5: no decision for "consecutive requests
/// wherein the inter-request interval is zero") means.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ZeroInterval {
    /// The request arrived at the same time as the previous one (the literal reading).
    SameArrival,
    /// The request arrived before every earlier request had completed: the device had no idle
    /// time since the previous one (ours, the default: docs/policies/gc.md has the run).
    #[default]
    NoIdleGap,
}

/// Which response rewards an RLGC decision (Alg. 1 lines 8-9: "we call the reward function
/// with the response time of the current request ... we update the q-table entry of the previous
/// request").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RewardRequest {
    /// The response of the next request that also got a decision: with `no_idle_gap` that is a
    /// request that found the drive idle, almost always fast, so the reward carries little.
    #[default]
    NextDecision,
    /// The response of the request that arrived right after the decided one, decided or not: the
    /// request the step's copies can delay (ours, issue #30). The update still bootstraps from
    /// the next decision.
    NextRequest,
}

/// How the RL agent exploits (RLGC Eq. 2 and footnote 2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RlgcPolicyKind {
    /// The action of the largest Q value (Eq. 2).
    #[default]
    Deterministic,
    /// An action drawn with probability proportional to its (shifted) Q value (footnote 2;
    /// the paper's experiments used it).
    Stochastic,
}

/// `[gc.rlgc]`: RLGC (Kang, Shin, Yoo, ACM TECS 2017). Also the learning settings of
/// `rlgc_qtc`. T_GC is `gc.trigger_free_blocks` (GC decisions while free blocks <= T_GC).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct RlgcConfig {
    /// Largest action: actions are 0..=max_copies page copies (the talk slides: "0 ~ 2 page
    /// copies"; Sec. 5.3 finds a limit of 2 best).
    pub max_copies: u32,
    /// Current inter-request interval bin edges (Table 3: 17 bins from "<100" to ">100000" us).
    pub current_interval_edges_ns: Vec<u64>,
    /// Previous inter-request interval split (Table 3: 100 us).
    pub previous_interval_edge_ns: u64,
    /// Copies per step in intensive GC (Sec. 5.2: "5 or 7", by pages per block: 7 by default,
    /// 5 / 7 on the 384- / 768-page kang-* presets).
    pub intensive_copies: u32,
    /// Enter intensive GC when host-usable free blocks are at most this (Sec. 5.2: 1).
    pub intensive_enter_free_blocks: u32,
    /// Leave intensive GC when host-usable free blocks exceed this (T_IGC, Table 4: 3).
    pub intensive_stop_free_blocks: u32,
    /// T_GC^A of the aggressive variant (Table 4: 100).
    pub aggressive_trigger_free_blocks: u32,
    /// Action cap while T_GC < free blocks <= T_GC^A (Sec. 5.3: 2).
    pub aggressive_max_copies: u32,
    /// Victims chosen while T_GC < free blocks <= T_GC^A need this invalid fraction (0.6).
    pub aggressive_min_invalid_fraction: f64,
    /// Learning rate (step size) of the Q update, in (0, 1] (footnote 3: 0.3).
    pub alpha: f64,
    /// Discount factor of future rewards, in [0, 1] (footnote 3: 0.8).
    pub gamma: f64,
    /// Exploration probability for the first `epsilon_switch_after_decisions` decisions
    /// (Sec. 5.2: 0.8).
    pub epsilon_initial: f64,
    /// Exploration probability after that (Sec. 5.2: 0.01).
    pub epsilon_after: f64,
    /// Decisions made with `epsilon_initial` before switching to `epsilon_after` (Sec. 5.2:
    /// 1000). `rlgc_qtc` counts only decisions in a known state (unseen ones cannot explore).
    pub epsilon_switch_after_decisions: u64,
    /// How the agent exploits: the best action, or a draw weighted by Q value.
    pub policy: RlgcPolicyKind,
    /// Which requests count as a zero interval and get no decision (Alg. 1 lines 3-5).
    pub zero_interval: ZeroInterval,
    /// Which response rewards a decision (Alg. 1 lines 8-9).
    pub reward_request: RewardRequest,
    /// Added to every action's weight in the stochastic policy (w = Q + shift + floor, the
    /// shift making the smallest Q zero), so a zero-valued action can still be drawn; > 0 (ours,
    /// footnote 2 has none).
    pub stochastic_floor: f64,
    /// Reward thresholds: percentiles of response time, strictly ascending, in (0, 100]
    /// (Sec. 5.2: 70, 90, 99).
    pub reward_percentiles: Vec<f64>,
    /// The reward of each band the percentiles delimit, fastest band first: one more value
    /// than `reward_percentiles` (Fig. 6, range -0.5..1).
    pub rewards: Vec<f64>,
    /// The percentiles are taken over the last this many responses of the same operation type.
    pub reward_window: usize,
    /// Responses between two recomputations of the percentile thresholds.
    pub reward_refresh_every: usize,
    /// Decisions between two points of the reported reward series.
    pub reward_sample_every: u64,
    /// The random-action control of `rlgc`, `rlgc_aggressive` and `rlgc_qtc`: the same
    /// triggers, states, cap and intensive GC, with the copies drawn uniformly from the action
    /// set. Refused for a scheduler that does not learn.
    pub random_control: bool,
}

/// Table 3's current-interval edges as we complete them: 100 us, then 15 edges spaced
/// geometrically from 500 us to 100 ms (whole microseconds), 17 bins in all.
pub const RLGC_CURRENT_INTERVAL_EDGES_US: [u64; 16] =
    [100, 500, 730, 1_066, 1_556, 2_272, 3_317, 4_843, 7_071, 10_324, 15_073, 22_007, 32_131, 46_912, 68_492, 100_000];

impl RlgcConfig {
    pub fn intensive(&self) -> IntensiveConfig {
        IntensiveConfig {
            copies: self.intensive_copies,
            enter_free_blocks: self.intensive_enter_free_blocks,
            stop_free_blocks: self.intensive_stop_free_blocks,
        }
    }
}

impl Default for RlgcConfig {
    fn default() -> Self {
        RlgcConfig {
            max_copies: 2,
            current_interval_edges_ns: RLGC_CURRENT_INTERVAL_EDGES_US.iter().map(|us| us * 1000).collect(),
            previous_interval_edge_ns: 100_000,
            intensive_copies: default_intensive_copies(),
            intensive_enter_free_blocks: 1,
            intensive_stop_free_blocks: 3,
            aggressive_trigger_free_blocks: 100,
            aggressive_max_copies: 2,
            aggressive_min_invalid_fraction: 0.6,
            alpha: 0.3,
            gamma: 0.8,
            epsilon_initial: 0.8,
            epsilon_after: 0.01,
            epsilon_switch_after_decisions: 1000,
            policy: RlgcPolicyKind::default(),
            zero_interval: ZeroInterval::default(),
            reward_request: RewardRequest::default(),
            stochastic_floor: 0.01,
            reward_percentiles: vec![70.0, 90.0, 99.0],
            rewards: vec![1.0, 0.5, 0.0, -0.5],
            reward_window: 10_000,
            reward_refresh_every: 1000,
            reward_sample_every: 1000,
            random_control: false,
        }
    }
}

/// `[gc.qtc]`: the Q-table cache variant (Kang & Yoo, DAC'18; Yoo's 2019 slides). Learning,
/// reward and intensive settings come from `[gc.rlgc]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct QtcGcConfig {
    /// Entries per action's LRU cache (the slides: 100).
    pub capacity_per_action: usize,
    /// Largest action (the slides: 0/1/2-page copy, so 2).
    pub max_copies: u32,
    /// Copies in a state no cache holds (the slides: "0-page copy is adopted").
    pub unseen_copies: u32,
    /// Use the aggressive variant's triggering (Sec. 5.3) too.
    pub aggressive: bool,
}

impl Default for QtcGcConfig {
    fn default() -> Self {
        QtcGcConfig { capacity_per_action: 100, max_copies: 2, unseen_copies: 0, aggressive: false }
    }
}

/// How the predictor scheduler predicts the next inter-request interval.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum PredictorKind {
    /// Mean of the last `window` intervals.
    #[default]
    MovingAverage,
    /// s <- smoothing x interval + (1 - smoothing) x s.
    ExponentialSmoothing,
}

/// `[gc.predictor]`: interval-prediction GC (the RLGC paper's Tables 11-12 comparison). Copies
/// after a request = how many copies (tR + tPROG each) fit in the predicted next interval,
/// capped by `max_copies`. Triggering and intensive mode as `[gc.rlgc]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct PredictorConfig {
    /// How the next interval is predicted (Tables 11-12 compare both).
    pub method: PredictorKind,
    /// Moving-average window (Tables 11-12: 10 or 100).
    pub window: usize,
    /// Exponential-smoothing factor (Tables 11-12: 0.1 or 0.3).
    pub smoothing: f64,
    /// Largest step. Unset: as `gc.rlgc.max_copies`.
    pub max_copies: Option<u32>,
    /// Use the aggressive variant's triggering (Tables 11-12 compare against "Aggr").
    pub aggressive: bool,
}

impl Default for PredictorConfig {
    fn default() -> Self {
        PredictorConfig {
            method: PredictorKind::default(),
            window: 10,
            smoothing: 0.3,
            max_copies: None,
            aggressive: true,
        }
    }
}

/// `[warmup]`: bringing the drive to steady state before measuring (excluded from all figures).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct WarmupConfig {
    /// Write the used logical space once, sequentially.
    #[serde(default)]
    pub fill: bool,
    /// Then overwrite this many times the used space with uniform random page writes.
    #[serde(default)]
    pub random_writes: f64,
    /// Then this much simulated time of closed-loop uniform random page writes, timed like the
    /// measured run (GC waits, the write buffer, idle work), after which every figure and the
    /// device's timing are reset as after the untimed steps: the LearnedFTL paper's "10 minutes
    /// of FIO random writes" before its read benchmarks (Sec. 4.2). 0: none.
    #[serde(default)]
    pub timed_random_writes_ns: u64,
    /// Requests kept outstanding during the timed random writes (fio's iodepth x numjobs); 0:
    /// the workload's own (`workload.iodepth` x `workload.numjobs`).
    #[serde(default)]
    pub timed_queue_depth: u32,
}

impl Default for WarmupConfig {
    fn default() -> Self {
        WarmupConfig { fill: false, random_writes: 0.0, timed_random_writes_ns: 0, timed_queue_depth: 0 }
    }
}

/// `[report]`: what the report records besides the summary (latency histograms, counters).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ReportConfig {
    /// Initial sampling interval of time series; the series halves its resolution whenever it
    /// would exceed `max_samples`, so memory stays bounded on long traces.
    #[serde(default = "default_interval")]
    pub sample_interval_ns: u64,
    /// Most points a time series keeps (at least 2); see `sample_interval_ns`.
    #[serde(default = "default_max_samples")]
    pub max_samples: usize,
    /// Stream one row per host request (arrival, latency, op, offset, size) to this Parquet
    /// file, in row groups of 64 Ki rows: memory stays flat however long the run.
    #[serde(default)]
    pub request_log: Option<std::path::PathBuf>,
}

fn default_interval() -> u64 {
    1_000_000
}
fn default_max_samples() -> usize {
    4096
}

impl Default for ReportConfig {
    fn default() -> Self {
        ReportConfig { sample_interval_ns: default_interval(), max_samples: default_max_samples(), request_log: None }
    }
}

/// Config-check helpers for the unit tests of the layers above.
#[cfg(test)]
pub(crate) mod test_support {
    use super::{load, Config};
    use crate::error::ConfigProblem;

    /// `check`'s problems, as `key: reason` lines, for the `tiny` preset with `sets` overrides.
    pub fn problems(check: fn(&Config) -> Vec<ConfigProblem>, sets: &[&str]) -> Vec<String> {
        let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
        check(&load(Some("tiny"), &[], &sets).unwrap())
            .into_iter()
            .map(|p| format!("{}: {}", p.key, p.reason))
            .collect()
    }
}
