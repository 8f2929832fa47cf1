//! Layer: ftl. Regions of blocks with their own mode, and the policy that runs them.
//!
//! Region 0 is the native region (every block programmed with all its bits). A region policy
//! declares further regions (an SLC-mode cache on a multi-level device) with the blocks they
//! start with, routes each host write to a region, and says before a write what space work must
//! run first (`RegionAction`, asked again after each until it says `Nothing`):
//! * `Migrate`: move the valid data of a region's victims into another region (a read and a
//!   program per page tagged `Source::Migration`, the victim erased after);
//! * `Resize`: change a region's size at run time by converting free blocks between modes
//!   (`BlockManager::move_free_block`), which changes the device's capacity; growing never
//!   takes the native region below what its data needs (`RegionView::max_region_blocks`), and
//!   shrinking migrates data out where no free block is left to give back;
//! * `Collect`: GC within a region where each valid page either stays (the policy's
//!   `keep_in_region`) or migrates to another region (UST's SLC garbage collection).
//!
//! The FTL keeps per-region figures (`RegionStats`: host pages and their program time, pages
//! and time of GC and migration, overwrites of the region's data) that policies read through
//! `RegionView` and the report prints beside each region.
//!
//! | id | file | what |
//! |---|---|---|
//! | `none` | `none.rs` | one native region (QLC-only: the RL-SLC paper's normalisation baseline) |
//! | `static` | `static_slc.rs` | a fixed SLC region and size threshold (the RL-SLC paper's "static") |
//! | `dwa` | `dwa.rs` | SLC size by space utilisation (Micron/Intel dynamic write acceleration) |
//! | `ust` | `ust.rs` | every write to SLC first, per-logical-block SLC budget, hot data kept in SLC |
//! | `rl` | `rl_slc.rs` | Q-learning of SLC size and threshold (Yoo & Shin 2020, Algorithms 1-2) |
//!
//! `series.rs` holds what every SLC policy samples over the run (SLC blocks and threshold per
//! `slc.sample_every_bytes` of host writes).

pub(crate) mod dwa;
pub(crate) mod none;
pub mod registry;
pub(crate) mod rl_slc;
pub(crate) mod series;
pub(crate) mod static_slc;
pub(crate) mod ust;

use serde_json::Value;

use crate::config::{SlcRegionMode, ValidatedConfig};
use crate::error::Result;
use crate::ftl::blocks::{RegionId, RegionSpec};
use crate::units::{Lpn, SimTime};

/// The native region's id.
pub const NATIVE: RegionId = RegionId(0);

/// A region a policy declares, and the blocks it takes from the native region at start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegionLayout {
    pub spec: RegionSpec,
    pub initial_blocks: u32,
}

/// A host write as a region policy sees it (with a write buffer: the evicted unit, sized by
/// the request that wrote its first page).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WriteInfo {
    pub request_bytes: u64,
    pub request_pages: u32,
    /// The first page's LPN.
    pub lpn: Lpn,
}

/// What the FTL counts per region, since the end of the warm-up. Times are the flash array's
/// busy time for the operations (what the RL-SLC paper's simulator adds up per operation,
/// Sec. 4), not the wait of any request.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct RegionStats {
    /// Host pages programmed into the region (directly or from the write buffer).
    pub host_pages: u64,
    /// Array time of those programs.
    pub host_write_ns: u64,
    /// Host pages written (to any region) whose previous copy was in this region.
    pub overwritten_pages: u64,
    /// Pages GC moved within the region, and the array time of GC's reads, programs and
    /// erases of its victims.
    pub gc_pages: u64,
    pub gc_ns: u64,
    /// Pages migrated out of the region into another, and the array time of the reads,
    /// programs and victims' erases.
    pub migrated_out_pages: u64,
    pub migration_out_ns: u64,
    /// Free blocks converted into and out of the region by resizes.
    pub blocks_converted_in: u64,
    pub blocks_converted_out: u64,
}

/// What a region policy may see: blocks, data and the FTL's figures per region, and the
/// device's space utilisation.
pub struct RegionView<'a> {
    pub now: SimTime,
    pub(crate) blocks: &'a crate::ftl::blocks::BlockManager,
    pub(crate) stats: &'a [RegionStats],
    /// The logical space, in pages.
    pub(crate) logical_pages: u64,
    /// Free blocks the native region keeps when others grow (its GC target and a block).
    pub(crate) native_keep_free_blocks: u32,
    /// Spare the native region keeps beyond its data when others grow, as a fraction of that
    /// data (the device's over-provisioning: GC there stays as efficient as the drive's).
    pub(crate) native_spare_fraction: f64,
}

impl RegionView<'_> {
    pub fn free_blocks(&self, r: RegionId) -> u32 {
        self.blocks.region_free_blocks(r)
    }
    pub fn blocks(&self, r: RegionId) -> u32 {
        self.blocks.region_blocks(r)
    }
    /// Pages a block of region `r` holds.
    pub fn block_pages(&self, r: RegionId) -> u32 {
        self.blocks.region_block_pages(r)
    }
    /// Every block of the device, whatever its region.
    pub fn device_blocks(&self) -> u32 {
        self.blocks.blocks()
    }
    pub fn valid_pages(&self, r: RegionId) -> u64 {
        self.blocks.region_valid_pages(r)
    }
    /// The FTL's figures for region `r` (zero for a region that does not exist).
    pub fn stats(&self, r: RegionId) -> RegionStats {
        self.stats.get(r.0 as usize).copied().unwrap_or_default()
    }
    /// Host pages programmed so far, every region.
    pub fn host_pages(&self) -> u64 {
        self.stats.iter().map(|s| s.host_pages).sum()
    }
    /// Space utilisation: pages holding data over the logical space (the RL-SLC paper, Sec.
    /// 3.2: "the ratio between the size of valid data and the total capacity of the SSD").
    pub fn utilization(&self) -> f64 {
        let valid: u64 = (0..self.blocks.regions()).map(|r| self.blocks.region_valid_pages(RegionId(r as u8))).sum();
        if self.logical_pages == 0 {
            0.0
        } else {
            (valid as f64 / self.logical_pages as f64).min(1.0)
        }
    }
    /// Free native blocks beyond those the native region keeps (its GC target and a block, and
    /// each plane's GC reserve): what another region can take without the native region
    /// collecting first.
    pub fn native_spare_free_blocks(&self) -> u32 {
        let reserve = self.blocks.geometry().planes() * self.blocks.gc_reserve(NATIVE);
        self.blocks.region_free_blocks(NATIVE).saturating_sub(self.native_keep_free_blocks + reserve)
    }
    /// Valid pages of region `r`'s sealed block with the fewest (over its planes with per-plane
    /// GC): what emptying its cheapest victim copies. None: it has no sealed block.
    pub fn cheapest_victim_valid(&self, r: RegionId) -> Option<u32> {
        let b = self.blocks;
        let planes = if b.domain_is_plane(r) { b.geometry().planes() } else { 1 };
        (0..planes)
            .filter_map(|p| b.min_valid_sealed(b.domain_of(r, crate::units::PlaneId(p))))
            .map(|block| b.valid(block))
            .min()
    }
    /// The most blocks region `r` could hold now: every block but those of the other extra
    /// regions and those the native region needs to hold all the device's data (every
    /// region's data ends up there), its spare and the free blocks it keeps. A `Resize` past
    /// it stops there.
    pub fn max_region_blocks(&self, r: RegionId) -> u32 {
        let valid: u64 = (0..self.blocks.regions()).map(|i| self.blocks.region_valid_pages(RegionId(i as u8))).sum();
        let native_pages = self.blocks.region_block_pages(NATIVE).max(1) as f64;
        let needed = (valid as f64 * (1.0 + self.native_spare_fraction) / native_pages).ceil() as u32
            + self.native_keep_free_blocks;
        let others: u32 = (1..self.blocks.regions())
            .map(|i| RegionId(i as u8))
            .filter(|&i| i != r)
            .map(|i| self.blocks.region_blocks(i))
            .sum();
        self.blocks.blocks().saturating_sub(needed + others)
    }
}

/// Space work a region policy asks for before a write is served (the write waits for it).
/// The FTL asks again after each action, up to `MAX_ACTIONS_PER_WRITE` times per write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RegionAction {
    Nothing,
    /// Migrate victims of region `from` into region `to` until `from` has `target_free_blocks`
    /// free blocks.
    Migrate {
        from: RegionId,
        to: RegionId,
        target_free_blocks: u32,
    },
    /// Make region `region` (not the native one) hold `blocks` blocks: growing converts free
    /// native blocks (reclaiming native blocks by GC when none is free beyond what the native
    /// region keeps), never past `RegionView::max_region_blocks`; shrinking gives back free
    /// blocks, migrating victims' data to the native region when none is free.
    Resize {
        region: RegionId,
        blocks: u32,
    },
    /// GC within `region` until it has `target_free_blocks` free blocks: each valid page of a
    /// victim stays in the region where `RegionPolicy::keep_in_region` says so, else
    /// migrates to `to`. (A victim whose pages all stayed gains nothing: the next victim of
    /// the same call migrates all of its pages.)
    Collect {
        region: RegionId,
        to: RegionId,
        target_free_blocks: u32,
    },
}

/// Actions the FTL runs per write before it serves it (a policy that keeps asking is cut off
/// here rather than looping).
pub const MAX_ACTIONS_PER_WRITE: usize = 4;

/// Runs the regions. One file per policy; `REGISTRY` names them.
pub trait RegionPolicy: Send + dyn_clone::DynClone {
    /// Regions beyond the native one, in id order (1, 2, ...).
    fn layout(&self) -> Vec<RegionLayout>;
    /// The region a host write goes to.
    fn route(&mut self, write: &WriteInfo) -> RegionId;
    /// Called first when a host write arrives, before anything else is done for it (GC
    /// included): a policy that decides per step of host writes decides here (and, with an
    /// outside agent attached, leaves the decision pending: the engine calls this at the top of
    /// the write's event and stops there).
    fn before_request(&mut self, _view: &RegionView) {}
    /// Called before a host write is served, then again after each action it asked for.
    fn before_write(&mut self, view: &RegionView) -> RegionAction;
    /// Whether the policy wants `placed` (asked once at build: the write path skips the call
    /// for policies that do not).
    fn wants_placements(&self) -> bool {
        false
    }
    /// Host pages `lpns` were programmed into `region` (after any overflow to the native
    /// region), one program unit per call.
    fn placed(&mut self, _region: RegionId, _lpns: &[Lpn]) {}
    /// `Collect`: whether the valid page of `lpn` stays in the collected region.
    fn keep_in_region(&mut self, _lpn: Lpn) -> bool {
        false
    }
    /// The end of the run (after the buffer's final flush): a policy saves what it learned.
    fn finish(&mut self) -> Result<()> {
        Ok(())
    }
    fn report(&self) -> Value {
        Value::Null
    }
    /// The learning diagnostics of a policy with an agent (`None`: the policy does not learn),
    /// under `id`, the id of the registry entry that built it.
    fn learning(&self, _id: &'static str) -> Option<crate::rl::LearningReport> {
        None
    }
    /// Its decision point, for an outside agent (`crate::decision`; declared in the registry
    /// entry as `RegionCaps::decides`). `None`: the policy has none.
    fn decision_point(&mut self) -> Option<&mut dyn crate::decision::DecisionPoint> {
        None
    }
    /// The measured run's random stream, drawn afresh from the run's seed when the warm-up had
    /// its own (`warmup.seed`); a policy that draws no random numbers ignores it.
    fn reseed(&mut self, _rng: rand_pcg::Pcg64Mcg) {}
}

/// The SLC region every SLC policy declares: region 1, SLC mode, emptied by migration (no GC
/// reserve), blocks opened per plane.
pub(crate) fn slc_region(initial_blocks: u32) -> RegionLayout {
    RegionLayout {
        spec: RegionSpec {
            name: "slc".into(),
            mode: crate::nand::BlockMode::Slc,
            gc_scope: crate::ftl::blocks::GcScope::Region,
            gc_reserve: 0,
            lines: false,
        },
        initial_blocks,
    }
}

/// The SLC region's id.
pub const SLC: RegionId = RegionId(1);

/// Routing by size against the hot/cold threshold theta (Sec. 2.1: writes not larger than
/// theta go to SLC), with the counts every threshold policy reports (`static`, `dwa`, `rl`).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct ThresholdRouting {
    pub writes_to_slc: u64,
    pub writes_to_native: u64,
}

impl ThresholdRouting {
    #[inline]
    pub fn route(&mut self, write: &WriteInfo, threshold_bytes: u64) -> RegionId {
        if write.request_bytes <= threshold_bytes {
            self.writes_to_slc += 1;
            SLC
        } else {
            self.writes_to_native += 1;
            NATIVE
        }
    }
}

/// The SLC region's space, as `static`, `dwa`, `ust` and `rl` keep it: migration when it is short of
/// free blocks, else a resize toward the size the policy wants, clamped to what can be
/// reached; a resize that made no progress is retried only after another SLC block's worth of
/// host writes (the native region may have freed blocks by then).
///
/// With `slc.region = "cap"` (`work`) the size a policy wants is a maximum, not a reservation:
/// the region holds the blocks its data is in (open and sealed) and `target_free_blocks` free
/// ones ahead of them, growing by converting a free native block when an SLC write opens one
/// of its free blocks and giving free blocks back beyond that, up to the cap; at the cap it
/// migrates as a reserved region does. An SLC size that routing leaves unused thus costs the
/// native region only those few free blocks (the dynamic SLC caches of the drives the paper
/// cites, Sec. 2.1 [1-3], write free blocks in SLC mode up to a maximum). With
/// `slc.region = "shared"` the region shares the device's free space with the native region:
/// while its cheapest victim holds fewer valid pages than the native region's, it grows only
/// from free native blocks the native region can spare (never making it collect) and gives a
/// block back whenever the native region has none, so SLC data is folded into QLC where that
/// reclaims space more cheaply than QLC GC (a filling drive's cache shrinks).

#[derive(Debug, Clone)]
pub(crate) struct SlcSpace {
    pub trigger_free_blocks: u32,
    pub target_free_blocks: u32,
    /// The smallest region that can migrate: its free-block target, two open blocks per plane
    /// (host data, and pages a collection keeps) and one block being filled.
    pub min_blocks: u32,
    /// `slc.region`: whether the wanted size is held (`Reserved`) or only allowed (`Cap`).
    pub mode: SlcRegionMode,
    /// (host pages, blocks, wanted) at the last resize asked for.
    last_try: Option<(u64, u32, u32)>,
    pub migrations_started: u64,
    pub resizes: u64,
}

impl SlcSpace {
    pub fn new(cfg: &ValidatedConfig) -> SlcSpace {
        let s = &cfg.slc;
        let target = s.target_free_blocks.unwrap_or(s.trigger_free_blocks + 1);
        SlcSpace {
            trigger_free_blocks: s.trigger_free_blocks,
            target_free_blocks: target,
            min_blocks: target + 2 * cfg.geometry().planes() + 1,
            mode: s.region_mode(),
            last_try: None,
            migrations_started: 0,
            resizes: 0,
        }
    }

    /// The most blocks the policy's share allows: `max_fraction` of the device, at least
    /// `min_blocks`.
    pub fn max_blocks(&self, cfg: &ValidatedConfig) -> u32 {
        ((cfg.geometry().blocks() as f64 * cfg.slc.max_fraction).floor() as u32).max(self.min_blocks)
    }

    /// The blocks the region starts with for a policy that wants `wanted`: all of them when
    /// the size is reserved, only the free blocks migration keeps when it is a cap.
    pub fn start_blocks(&self, wanted: u32) -> u32 {
        match self.mode {
            SlcRegionMode::Reserved => wanted,
            SlcRegionMode::Cap | SlcRegionMode::Shared => self.target_free_blocks.min(wanted),
        }
    }

    /// Migration if the region is short of free blocks.
    pub fn migration(&mut self, view: &RegionView) -> Option<RegionAction> {
        (view.blocks(SLC) > 0 && view.free_blocks(SLC) < self.trigger_free_blocks).then(|| {
            self.migrations_started += 1;
            RegionAction::Migrate { from: SLC, to: NATIVE, target_free_blocks: self.target_free_blocks }
        })
    }

    /// `wanted` clamped to `[min_blocks, what the native region can spare]`.
    pub fn reachable(&self, view: &RegionView, wanted: u32) -> u32 {
        wanted.max(self.min_blocks).min(view.max_region_blocks(SLC).max(self.min_blocks))
    }

    /// The space work before a write for a policy that wants `wanted` SLC blocks (`dwa`, `rl`;
    /// `static` with a cap): reserved, migration when short of free blocks, else a resize to
    /// `wanted`; a cap, a resize to the blocks the data holds plus the free blocks migration
    /// keeps (at most `wanted`; shared, also within the native region's spare free blocks, or
    /// one block fewer), else migration when at the cap and short of free blocks.
    pub fn work(&mut self, view: &RegionView, wanted: u32) -> Option<RegionAction> {
        match self.mode {
            SlcRegionMode::Reserved => self.migration(view).or_else(|| self.resize(view, wanted)),
            SlcRegionMode::Cap | SlcRegionMode::Shared => {
                let cap = self.reachable(view, wanted);
                let blocks = view.blocks(SLC);
                let holding = blocks - view.free_blocks(SLC);
                let mut needed = (holding + self.target_free_blocks).min(cap);
                if self.mode == SlcRegionMode::Shared && slc_is_cheaper_space(view) {
                    // QLC space is the dearer to reclaim: give a block back when the native
                    // region has none to spare, take only what it spares beyond one (so that a
                    // block given back is not taken again at the next write).
                    needed = match view.native_spare_free_blocks() {
                        0 => needed.min(blocks.saturating_sub(1)),
                        spare => needed.min(blocks + spare - 1),
                    };
                }
                self.resize_to(view, needed).or_else(|| self.migration(view))
            }
        }
    }

    /// A resize toward `wanted` (clamped), unless the region is there or the last attempt at
    /// the same size made no progress less than one SLC block of host writes ago.
    pub fn resize(&mut self, view: &RegionView, wanted: u32) -> Option<RegionAction> {
        let wanted = self.reachable(view, wanted);
        self.resize_to(view, wanted)
    }

    /// `resize` to exactly `wanted` blocks (already clamped by the caller).
    fn resize_to(&mut self, view: &RegionView, wanted: u32) -> Option<RegionAction> {
        let blocks = view.blocks(SLC);
        if wanted == blocks {
            return None;
        }
        let pages = view.host_pages();
        if let Some((at, before, w)) = self.last_try {
            if before == blocks && w == wanted && pages < at + view.block_pages(SLC) as u64 {
                return None;
            }
        }
        self.last_try = Some((pages, blocks, wanted));
        self.resizes += 1;
        Some(RegionAction::Resize { region: SLC, blocks: wanted })
    }
}

/// Whether the SLC region's cheapest victim holds fewer valid pages than the native region's:
/// migrating it returns a whole native block for fewer copies than native GC frees one with.
fn slc_is_cheaper_space(view: &RegionView) -> bool {
    match (view.cheapest_victim_valid(SLC), view.cheapest_victim_valid(NATIVE)) {
        (Some(slc), Some(native)) => slc < native,
        _ => false,
    }
}

// A drive snapshot (`sim::WarmDrive`) clones the FTL with its policies.
dyn_clone::clone_trait_object!(RegionPolicy);
