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

mod annotate;
mod decode;
mod load;
pub(crate) mod origin;
mod overridden;
pub mod presets;
mod renamed;
mod schema;
mod spec_layer;
pub mod suggest;
mod validate;

pub use annotate::to_toml_with_origins;
pub use decode::UNKNOWN_KEY;
pub use load::{
    known_keys, load, load_claiming, load_validated, load_validated_claiming, load_validated_with, parse_override,
    to_json, to_toml, Claim, Claims, Layer,
};
pub use overridden::{ConfigOverride, OverrideStep};
pub use renamed::{ConfigWarning, Renamed, RENAMED};
pub use schema::{schema, schema_json, settings_schema};
pub use spec_layer::{is_spec_toml, spec_only_keys};
pub use validate::{geometry_problems, Capacity, ValidatedConfig, GEOMETRY_KEYS, PAGE_BYTES_RANGE};

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
    pub transaction_scheduler: SchedulerConfig,
    /// The settings tables of policies that declare their own (`registry::Settings`), by dotted
    /// path (`gc.steady`), as written: the config layer does not know them; the policy's
    /// registry entry claims, checks, documents and decodes them. Never read from a config file
    /// under this name (`load_validated_claiming` fills it); written to the report as it is and
    /// by `to_toml` at the tables' own paths.
    #[serde(skip_deserializing, default, skip_serializing_if = "BTreeMap::is_empty")]
    #[schemars(skip)]
    pub policy_tables: BTreeMap<String, toml::Table>,
}

/// `[transaction_scheduler]`: the transaction scheduler (issue #10, docs/experiments/scheduling.md).
/// Formerly `[scheduler]`, a name that read like `gc.scheduler`; the old name still loads, with a
/// warning.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct SchedulerConfig {
    /// How each array unit orders the flash operations waiting for it: a registered
    /// transaction scheduler (`device/scheduler/registry.rs`).
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
    /// Data bytes per page, also the mapping unit: a multiple of 512 from 512 to 65536 (the
    /// largest page NAND has shipped is 16 KiB, RLGC Table 2).
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
            group: GroupConfig::default(),
        }
    }
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
    /// page-type aware policies, settings in `[cache.page_type_eviction]`).
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
    /// What the size a policy chooses (`static`, `dwa`, `rl`) means: `reserved` converts that
    /// many blocks to SLC mode whether or not writes go there; `cap` makes it a maximum, the
    /// region holding only the blocks its data fills and the free blocks migration keeps;
    /// `shared` a maximum that also yields blocks to the native region when SLC data is the
    /// cheaper space to reclaim (docs/policies/regions.md). Unset: `shared`, the drive's
    /// dynamic SLC cache, for every policy with a sized region (`static`, `dwa`, `rl`; issue
    /// #46's evidence); `none` and `ust` have no size to bound and refuse the key.
    /// `reserved` with `slc.rl.reward_baseline = "all_steps"` is the paper's literal reading.
    pub region: Option<SlcRegionMode>,
}

impl SlcConfig {
    /// `slc.region` as the policies read it: the set value, else `shared`.
    pub fn region_mode(&self) -> SlcRegionMode {
        self.region.unwrap_or_default()
    }
}

/// `slc.region`: whether an SLC policy's size is held in SLC mode or only allowed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SlcRegionMode {
    /// The region holds the chosen size in SLC mode: a resize converts free blocks at once
    /// (the RL-SLC paper's Sec. 1: "the total capacity of SSD is reduced as more flash blocks
    /// are allocated to the SLC region"): the paper's literal reading.
    Reserved,
    /// The chosen size is a maximum: free blocks are converted to SLC mode as SLC writes need
    /// them (the region keeps `slc.target_free_blocks` free ahead of its data, and gives back
    /// the free blocks beyond those), as the dynamic caches of the drives the paper cites run
    /// (Sec. 2.1).
    Cap,
    /// A cap on a region that shares the device's free space with the native region: as `cap`,
    /// but while the SLC region's cheapest victim holds fewer valid pages than the native
    /// region's (SLC data is the cheaper space to reclaim), it grows only from free blocks the
    /// native region can spare and gives a block back (migrating a victim) whenever the native
    /// region has none: the cache folds to make room for QLC, as a filling drive's does (ours;
    /// the default: issue #46 measured it, with `reward_baseline = "exponential"`, meeting both
    /// of the paper's statements, RL near QLC-only on YCSB-A and ahead elsewhere).
    #[default]
    Shared,
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
            region: None,
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
    /// The warm-up's own seed: its random writes and the policies' random streams while it
    /// runs are drawn from it, and the measured run draws the policies' streams afresh from
    /// `seed`, so a warm drive (`Simulation::warm_drive`) serves runs of any `seed`: episodes
    /// that share one warm-up. Unset: `seed` draws both, the policies' streams running on from
    /// the warm-up into the run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
}

impl Default for WarmupConfig {
    fn default() -> Self {
        WarmupConfig { fill: false, random_writes: 0.0, timed_random_writes_ns: 0, timed_queue_depth: 0, seed: None }
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
    use super::Config;
    use crate::catalog::load;
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
