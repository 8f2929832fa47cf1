//! Layer: ftl. Utilisation-aware self-tuning (Yang, Chang, Tsao, Liu, TVLSI 2016), the RL-SLC
//! paper's "UST" baseline as its Sec. 4 describes it: every write goes to the SLC region first,
//! so that data locality can be observed; a logical block may take at most MAX_SLC = 6 SLC
//! blocks; when the SLC region runs short of space its garbage collection keeps hot data in SLC
//! (SLC-to-SLC) and moves cold data to the native region (SLC-to-QLC); the number of SLC blocks
//! follows the workload: it grows with the hot logical blocks.
//!
//! UST manages logical blocks with SLC log blocks (a hybrid mapping); ssdlab maps pages, so we
//! read it in page terms (our choices, the paper gives no more):
//! * A logical block is a native block's worth of consecutive LPNs. Every host write goes to
//!   SLC (the native region takes a write only when the SLC region has no room, as for every
//!   SLC policy). MAX_SLC bounds the SLC blocks a logical block adds to the region's size: the
//!   SLC blocks its host pages written since the last collection would fill (log blocks hold
//!   every version, so overwrites count), at most MAX_SLC.
//! * Hot: a logical block written into SLC both since the last collection and in the round
//!   before it (data updated across rounds); its valid pages stay in SLC when collected, the
//!   rest migrate. (A collection whose victim kept every page migrates the next victim whole:
//!   `RegionAction::Collect`.)
//! * Size: at each collection the region is sized to the SLC blocks the logical blocks written
//!   since the last one would take (each at most MAX_SLC), plus the free blocks migration
//!   keeps, within `slc.max_fraction` of the device and what the native region can spare. It
//!   grows (converting free native blocks) before it collects; it shrinks after.
//! * Victims: `gc.victim` (greedy: the fewest valid pages), as migration's.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::config::ValidatedConfig;
use crate::error::{Error, Result};
use crate::ftl::blocks::RegionId;
use crate::ftl::region::series::SlcSeries;
use crate::ftl::region::{
    slc_region, RegionAction, RegionLayout, RegionPolicy, RegionView, SlcSpace, WriteInfo, NATIVE, SLC,
};
use crate::registry::{PolicySettings, Settings};
use crate::units::Lpn;

/// `[slc.ust]`: utilisation-aware self-tuning (Yang et al., TVLSI 2016, as the RL-SLC paper
/// describes it in Sec. 4).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct UstSettings {
    /// MAX_SLC: SLC blocks' worth of host pages a logical block (a native block's worth of
    /// LPNs) may write into the SLC region between two SLC garbage collections (Sec. 4: 6).
    pub max_blocks_per_logical_block: u32,
}

impl Default for UstSettings {
    fn default() -> Self {
        UstSettings { max_blocks_per_logical_block: 6 }
    }
}

impl PolicySettings for UstSettings {}

/// Where the settings are written (`[slc.ust]`); checked where the policy is built.
pub const SETTINGS: Settings = Settings::of::<UstSettings>("slc.ust");

#[derive(Clone)]
pub struct Ust {
    space: SlcSpace,
    max_blocks: u32,
    /// LPNs per logical block, and SLC pages per SLC block.
    logical_block_pages: u64,
    slc_block_pages: u64,
    /// Host pages of each logical block written into SLC since the last collection, and in
    /// the round before.
    written: Vec<u32>,
    written_before: Vec<u32>,
    /// Hot logical blocks of the collection under way.
    hot: Vec<bool>,
    /// Host pages placed in SLC since the last collection started.
    placed_in_round: u64,
    /// MAX_SLC blocks' worth of pages.
    budget_pages: u32,
    /// The size wanted after the collection under way.
    shrink_to: Option<u32>,
    writes_to_slc: u64,
    collections: u64,
    pages_kept: u64,
    pages_demoted: u64,
    series: SlcSeries,
}

impl Ust {
    pub fn new(cfg: &ValidatedConfig) -> Result<Self> {
        let max_slc = SETTINGS.decode::<UstSettings>(&cfg.policy_tables)?.max_blocks_per_logical_block;
        if max_slc == 0 {
            return Err(Error::config("slc.ust.max_blocks_per_logical_block", "must be at least 1"));
        }
        let g = cfg.geometry();
        let logical_block_pages = g.pages_per_block as u64;
        let slc_block_pages = g.pages_in_mode(crate::nand::BlockMode::Slc).max(1) as u64;
        let logical_blocks = (cfg.used_logical_pages() as u64).div_ceil(logical_block_pages).max(1) as usize;
        let space = SlcSpace::new(cfg);
        Ok(Ust {
            max_blocks: space.max_blocks(cfg),
            space,
            logical_block_pages,
            slc_block_pages,
            written: vec![0; logical_blocks],
            written_before: vec![0; logical_blocks],
            hot: vec![false; logical_blocks],
            placed_in_round: 0,
            budget_pages: (max_slc as u64 * slc_block_pages).min(u32::MAX as u64) as u32,
            shrink_to: None,
            writes_to_slc: 0,
            collections: 0,
            pages_kept: 0,
            pages_demoted: 0,
            series: SlcSeries::new(cfg.device.page_bytes, cfg.slc.sample_every_bytes.0),
        })
    }

    #[inline]
    fn logical_block(&self, lpn: Lpn) -> usize {
        ((lpn.0 as u64 / self.logical_block_pages) as usize).min(self.written.len() - 1)
    }

    /// SLC blocks the logical blocks written this round would take, each at most MAX_SLC,
    /// plus the free blocks migration keeps.
    pub fn wanted_blocks(&self) -> u32 {
        let max_each = self.budget_pages as u64 / self.slc_block_pages;
        let data: u64 = self.written.iter().map(|&w| (w as u64).div_ceil(self.slc_block_pages).min(max_each)).sum();
        (data.min(u32::MAX as u64) as u32).saturating_add(self.space.min_blocks).min(self.max_blocks)
    }

    /// Start a collection: this round's hot logical blocks, and a new round.
    fn start_round(&mut self) {
        for i in 0..self.written.len() {
            self.hot[i] = self.written[i] > 0 && self.written_before[i] > 0;
        }
        std::mem::swap(&mut self.written, &mut self.written_before);
        self.written.fill(0);
        self.placed_in_round = 0;
        self.collections += 1;
    }
}

impl RegionPolicy for Ust {
    fn layout(&self) -> Vec<RegionLayout> {
        vec![slc_region(self.space.min_blocks)]
    }
    fn route(&mut self, _write: &WriteInfo) -> RegionId {
        self.writes_to_slc += 1;
        SLC
    }
    fn wants_placements(&self) -> bool {
        true
    }
    fn placed(&mut self, region: RegionId, lpns: &[Lpn]) {
        if region == SLC {
            self.placed_in_round += lpns.len() as u64;
            for &lpn in lpns {
                let lb = self.logical_block(lpn);
                self.written[lb] = self.written[lb].saturating_add(1);
            }
        }
    }
    fn before_write(&mut self, view: &RegionView) -> RegionAction {
        self.series.offer(view.host_pages(), view.blocks(SLC), u64::MAX);
        if let Some(to) = self.shrink_to.take() {
            if let Some(a) = self.space.resize(view, to) {
                return a;
            }
        }
        if view.free_blocks(SLC) >= self.space.trigger_free_blocks {
            return RegionAction::Nothing;
        }
        let wanted = self.wanted_blocks();
        if wanted > view.blocks(SLC) {
            if let Some(a) = self.space.resize(view, wanted) {
                return a;
            }
        }
        if view.free_blocks(SLC) >= self.space.trigger_free_blocks {
            return RegionAction::Nothing;
        }
        if self.placed_in_round == 0 {
            // A collection just ran and fell short (everything it kept filled the room it
            // made): no new round without new writes; migrate as the other policies do.
            return self.space.migration(view).unwrap_or(RegionAction::Nothing);
        }
        self.start_round();
        if wanted < view.blocks(SLC) {
            self.shrink_to = Some(wanted);
        }
        RegionAction::Collect { region: SLC, to: NATIVE, target_free_blocks: self.space.target_free_blocks }
    }
    fn keep_in_region(&mut self, lpn: Lpn) -> bool {
        let keep = self.hot[self.logical_block(lpn)];
        if keep {
            self.pages_kept += 1;
        } else {
            self.pages_demoted += 1;
        }
        keep
    }
    fn report(&self) -> serde_json::Value {
        json!({
            "max_blocks_per_logical_block": self.budget_pages as u64 / self.slc_block_pages,
            "writes_to_slc": self.writes_to_slc,
            "collections": self.collections,
            "pages_kept_in_slc": self.pages_kept,
            "pages_demoted": self.pages_demoted,
            "resizes": self.space.resizes,
            "mean_slc_blocks": self.series.mean_slc_blocks(),
            "series": self.series.to_json(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::load;
    use crate::config::ValidatedConfig;

    fn ust() -> Ust {
        let o = ["slc.policy=\"ust\"".to_string(), "device.pages_per_block=64".to_string()];
        Ust::new(&ValidatedConfig::new(load(Some("yoo-hybrid-qlc"), &[], &o).unwrap()).unwrap()).unwrap()
    }

    fn write(u: &mut Ust, lpn: u32) -> RegionId {
        let r = u.route(&WriteInfo { request_bytes: 4096, request_pages: 1, lpn: Lpn(lpn) });
        u.placed(r, &[Lpn(lpn)]);
        r
    }

    #[test]
    fn every_write_goes_to_slc_first() {
        let mut u = ust();
        // 64 pages per QLC block: 16 per SLC-mode block; MAX_SLC = 6 -> 96 pages.
        assert_eq!((u.logical_block_pages, u.slc_block_pages, u.budget_pages), (64, 16, 96));
        for k in 0..200 {
            assert_eq!(write(&mut u, k % 64), SLC, "write {k}");
        }
        assert_eq!(u.written[0], 200);
    }

    #[test]
    fn hot_means_written_in_this_round_and_the_one_before() {
        let mut u = ust();
        write(&mut u, 0); // logical block 0: rounds 1 and 2
        write(&mut u, 70); // logical block 1: round 1 only
        u.start_round();
        assert!(!u.keep_in_region(Lpn(0)) && !u.keep_in_region(Lpn(70)), "one round is not enough");
        write(&mut u, 1);
        write(&mut u, 140); // logical block 2: round 2 only
        u.start_round();
        assert!(u.keep_in_region(Lpn(5)), "block 0 was written in both rounds");
        assert!(!u.keep_in_region(Lpn(70)) && !u.keep_in_region(Lpn(140)));
        assert_eq!((u.pages_kept, u.pages_demoted), (1, 4));
    }

    #[test]
    fn the_wanted_size_counts_each_logical_block_up_to_max_slc() {
        let mut u = ust();
        let base = u.space.min_blocks;
        assert_eq!(u.wanted_blocks(), base);
        write(&mut u, 0); // 1 page: one SLC block
        assert_eq!(u.wanted_blocks(), base + 1);
        for _ in 0..95 {
            write(&mut u, 64); // logical block 1: 95 pages -> 6 blocks
        }
        assert_eq!(u.wanted_blocks(), base + 1 + 6);
        for _ in 0..500 {
            write(&mut u, 65); // 595 pages would fill 38 blocks: MAX_SLC = 6 bounds it
        }
        assert_eq!(u.wanted_blocks(), base + 1 + 6);
        u.start_round();
        assert_eq!(u.wanted_blocks(), base, "a new round starts from nothing written");
    }
}
