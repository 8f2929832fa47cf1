//! Layer: ftl. Garbage collection: which block to reclaim (`VictimPolicy`) and when and how
//! much to reclaim (`GcScheduler`). The FTL executes what the scheduler asks: whole-victim
//! reclaim before a request is served (foreground, the request waits), or partial steps of a
//! few page copies after it is served (background, on the same flash resources).

pub mod scheduler;
pub mod victim;

use serde::Serialize;

use crate::ftl::blocks::{BlockManager, DomainId, StreamId};
use crate::units::{BlockId, SimTime};
use crate::workload::IoOp;

/// What a victim policy may see: one GC domain's candidate indexes, read-only.
pub struct VictimView<'a> {
    pub(crate) blocks: &'a mut BlockManager,
    pub(crate) domain: DomainId,
    pub now: SimTime,
}

impl VictimView<'_> {
    /// Sealed block with the fewest valid pages.
    pub fn min_valid_sealed(&self) -> Option<BlockId> {
        self.blocks.min_valid_sealed(self.domain)
    }
    /// Oldest sealed block.
    pub fn oldest_sealed(&mut self) -> Option<BlockId> {
        self.blocks.oldest_sealed(self.domain)
    }
    pub fn sealed_blocks(&self) -> impl Iterator<Item = BlockId> + '_ {
        self.blocks.sealed_blocks(self.domain)
    }
    pub fn valid(&self, b: BlockId) -> u32 {
        self.blocks.valid(b)
    }
    pub fn capacity(&self, b: BlockId) -> u32 {
        self.blocks.capacity(b)
    }
    pub fn sealed_at(&self, b: BlockId) -> SimTime {
        self.blocks.sealed_at(b)
    }
    /// Fraction of a block's pages that are invalid.
    pub fn invalid_fraction(&self, b: BlockId) -> f64 {
        1.0 - self.valid(b) as f64 / self.capacity(b) as f64
    }
}

/// One sealed line of a line-mode region, as a line victim policy sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LineCensus {
    /// Its block index (the same on every plane).
    pub index: u32,
    /// The stream that wrote it.
    pub stream: StreamId,
    pub valid_pages: u32,
    pub capacity_pages: u32,
    /// GC can write its valid pages back now: they fit the open line of the stream they go to
    /// and the region's free lines.
    pub collectable: bool,
}

impl LineCensus {
    pub fn invalid_pages(&self) -> u32 {
        self.capacity_pages - self.valid_pages
    }
}

/// What a line victim policy sees: every sealed line of one line-mode region, grouped by
/// stream in stream order, each stream's in seal order.
pub struct LineVictimView<'a> {
    pub(crate) lines: &'a [LineCensus],
    pub now: SimTime,
}

impl LineVictimView<'_> {
    pub fn lines(&self) -> &[LineCensus] {
        self.lines
    }
    /// The sealed lines of each stream that has any: (stream, its lines).
    pub fn streams(&self) -> impl Iterator<Item = (StreamId, &[LineCensus])> + '_ {
        self.lines.chunk_by(|a, b| a.stream == b.stream).map(|c| (c[0].stream, c))
    }
}

/// What GC collects next in a line-mode region.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineVictim {
    /// One sealed line (FEMU's greedy line GC).
    Line(u32),
    /// A stream's sealed lines together, the most invalid first, as many as their write-back
    /// fits (LearnedFTL's group GC).
    Stream(StreamId),
}

/// Chooses the block GC empties next. Only sealed blocks are candidates (never an open one).
pub trait VictimPolicy: Send + dyn_clone::DynClone {
    /// A victim with at least `min_invalid_fraction` invalid pages, or None.
    fn select(&mut self, view: &mut VictimView, min_invalid_fraction: f64) -> Option<BlockId>;
    /// In a line-mode region (a placement that allocates lines): the line, or the stream's
    /// lines, GC collects next, or None. Policies that pick only blocks leave it None and are
    /// registered so (`victim::Collects::Blocks`: a line-mode region refuses them).
    fn select_lines(&mut self, _view: &LineVictimView) -> Option<LineVictim> {
        None
    }
}

/// What a GC scheduler observes at a decision point.
#[derive(Debug, Clone, Copy)]
pub struct GcObservation {
    pub now: SimTime,
    /// Sequence number of the host request (1, 2, ...), the same in `before_serve` and
    /// `after_serve` of one request; requests may overlap, so schedulers match on it.
    pub request_seq: u64,
    pub op: IoOp,
    /// Pages the request touches.
    pub request_pages: u32,
    pub free_blocks: u32,
    /// Free blocks host writes may still open: per plane, the free blocks beyond the reserve
    /// kept for GC relocations, summed. When it reaches 0 the host is out of room.
    pub host_free_blocks: u32,
    pub total_blocks: u32,
    /// Arrival time of this request minus that of the previous one.
    pub interval_ns: u64,
    /// Arrival time of this request minus the latest completion of the earlier ones (0 when
    /// one was still outstanding; the arrival time for the first request). Arrival
    /// observations only; 0 after serving.
    pub idle_before_ns: u64,
    /// Valid pages left in the victim being emptied by partial steps (0 if none).
    pub victim_valid_left: u32,
    /// Pages per block (native mode), for schedulers that reason in blocks.
    pub pages_per_block: u32,
    /// GC page copies and victim erases since the start of measurement (diff them to see what
    /// a step did).
    pub gc_copies_total: u64,
    pub gc_erases_total: u64,
}

/// What a GC scheduler observes in idle time (no host request outstanding for `idle.gap_ns`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IdleObservation {
    pub now: SimTime,
    /// Free blocks of the native region.
    pub free_blocks: u32,
    pub total_blocks: u32,
    /// Valid pages left in the victim being emptied by partial steps (0 if none).
    pub victim_valid_left: u32,
}

/// What the scheduler asks the FTL to do.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum GcAction {
    Nothing,
    /// Foreground: reclaim whole victims until this many blocks are free; the request waits.
    Reclaim {
        target_free_blocks: u32,
    },
    /// Background: copy up to `copies` valid pages of the current victim (choosing one with at
    /// least `min_invalid_fraction` invalid pages if none is in progress), or erase the victim
    /// if it holds no valid page (an erase replaces the copies).
    Partial {
        copies: u32,
        min_invalid_fraction: f64,
    },
}

/// Decides when GC runs and how much. One file per policy under `scheduler/`.
pub trait GcScheduler: Send + dyn_clone::DynClone {
    /// Called when a request arrives, before it is served.
    fn before_serve(&mut self, obs: &GcObservation) -> GcAction;
    /// Called once the request is served, with its response time.
    fn after_serve(&mut self, obs: &GcObservation, response_ns: u64) -> GcAction;
    /// Idle time (only with `gc.background = "idle"`, for a scheduler registered with idle
    /// work, `SchedulerCaps::idle_work`): the host has had nothing outstanding
    /// for `idle.gap_ns`, or the step asked for last time has ended and it still has none. A
    /// `Partial` step runs at once, no request waiting; `Nothing` ends the idle work until the
    /// next idle period. `Reclaim` is not an idle action (use a `Partial` of unlimited copies).
    fn on_idle(&mut self, _obs: &IdleObservation) -> GcAction {
        GcAction::Nothing
    }
    /// Policy-specific figures for the report.
    fn report(&self) -> serde_json::Value {
        serde_json::Value::Null
    }
    /// The learning diagnostics of a policy with an agent (`None`: the policy does not learn),
    /// under `id`, the id of the registry entry that built it.
    fn learning(&self, _id: &'static str) -> Option<crate::rl::LearningReport> {
        None
    }
    /// Its decision point, for an outside agent (`crate::decision`; declared in the registry
    /// entry as `SchedulerCaps::decides`). `None`: the scheduler has none.
    fn decision_point(&mut self) -> Option<&mut dyn crate::decision::DecisionPoint> {
        None
    }
    /// The measured run's random stream, drawn afresh from the run's seed when the warm-up had
    /// its own (`warmup.seed`); a policy that draws no random numbers ignores it.
    fn reseed(&mut self, _rng: rand_pcg::Pcg64Mcg) {}
}

/// GC figures common to every scheduler.
#[derive(Debug, Clone, Serialize)]
pub struct GcStats {
    /// Victims fully reclaimed (erased).
    pub victims_reclaimed: u64,
    pub pages_copied: u64,
    /// Foreground reclaim episodes (a request waited).
    pub foreground_invocations: u64,
    /// Partial steps executed.
    pub partial_steps: u64,
    /// Reclaims forced because a write found no room (the scheduler had not kept up).
    pub emergency_reclaims: u64,
    /// Simulated time requests spent waiting for foreground GC, summed.
    pub foreground_wait_ns: u64,
    /// Victims chosen, and their valid pages summed at the moment of choice.
    pub victims_chosen: u64,
    pub victim_valid_pages_at_choice: u64,
    /// Line-mode regions: collections (one line, or a LearnedFTL group's lines together), the
    /// lines they took, and the collections the per-group line threshold forced.
    pub line_collections: u64,
    pub lines_collected: u64,
    pub threshold_collections: u64,
    /// Victims chosen by partial steps that asked for a minimum invalid fraction (> 0), e.g.
    /// RLGC's aggressive early GC, and the smallest invalid fraction among them at choice
    /// (1.0 when there were none).
    pub filtered_victims_chosen: u64,
    pub filtered_victims_min_invalid_fraction: f64,
    /// Work done in idle time (`gc.background = "idle"`): steps that did any (also counted in
    /// `partial_steps`), and the pages they copied and victims they erased (also in the totals).
    pub idle_steps: u64,
    pub idle_pages_copied: u64,
    pub idle_victims_reclaimed: u64,
}

impl Default for GcStats {
    fn default() -> Self {
        GcStats {
            victims_reclaimed: 0,
            pages_copied: 0,
            foreground_invocations: 0,
            partial_steps: 0,
            emergency_reclaims: 0,
            foreground_wait_ns: 0,
            victims_chosen: 0,
            victim_valid_pages_at_choice: 0,
            line_collections: 0,
            lines_collected: 0,
            threshold_collections: 0,
            filtered_victims_chosen: 0,
            filtered_victims_min_invalid_fraction: 1.0,
            idle_steps: 0,
            idle_pages_copied: 0,
            idle_victims_reclaimed: 0,
        }
    }
}

impl GcStats {
    /// Mean valid fraction of victims when chosen (u in the WAF = 1/(1-u) model).
    pub fn mean_victim_valid_fraction(&self, pages_per_block: u32) -> f64 {
        if self.victims_chosen == 0 {
            return 0.0;
        }
        self.victim_valid_pages_at_choice as f64 / (self.victims_chosen as f64 * pages_per_block as f64)
    }
}

// A drive snapshot (`sim::WarmDrive`) clones the FTL with its policies.
dyn_clone::clone_trait_object!(VictimPolicy);

// A drive snapshot (`sim::WarmDrive`) clones the FTL with its policies.
dyn_clone::clone_trait_object!(GcScheduler);
