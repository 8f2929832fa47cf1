//! Layer: ftl. Dynamic write acceleration (Micron's DWA; the Intel 660p's dynamic SLC cache),
//! the RL-SLC paper's "DWA" baseline (Yoo & Shin, HotStorage 2020, Sec. 2.1 and 4): the SLC
//! region's size follows the space utilisation through a table found offline (Table 2,
//! "setting 1", from a commercial drive), and host writes of at most theta = 32 KB go to it
//! (`slc.threshold_bytes`).
//!
//! Our readings where the paper is silent:
//! * Table 2's sizes are shares of the device's blocks in SLC mode (56 % on an empty drive:
//!   the 660p's 140 GB SLC cache takes 560 GB of its 1 TB of QLC), looked up in
//!   `[slc.dwa]`; the region never takes the native region below what its data needs
//!   (`RegionView::max_region_blocks`), which at high utilisation is below the table.
//! * The size is looked up again after every SLC block's worth of host writes (not every
//!   write, so a utilisation that hovers at a bound does not convert blocks back and forth).
//! * The region starts at its smallest (`SlcSpace::min_blocks`): the warm-up fill writes to the
//!   native region only, and the first write sizes the region.
//! * Migration as in `static`: below `slc.trigger_free_blocks` free blocks (5), the SLC
//!   victims with the fewest valid pages move to the native region.
//! * With `slc.region = "cap"` or `"shared"` the table's size is a maximum (`SlcSpace::work`): the region
//!   holds only the blocks its data fills and the free blocks migration keeps.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::config::{SlcRegionMode, ValidatedConfig};
use crate::error::{Error, Result};
use crate::ftl::blocks::RegionId;
use crate::ftl::region::series::SlcSeries;
use crate::ftl::region::{
    slc_region, RegionAction, RegionLayout, RegionPolicy, RegionView, SlcSpace, ThresholdRouting, WriteInfo, SLC,
};
use crate::registry::{PolicySettings, Settings};

/// `[slc.dwa]`: SLC size by space utilisation, looked up in a table (Table 2 "setting 1", from
/// a commercial drive: the Intel 660p).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct DwaSettings {
    /// Utilisation bounds, strictly ascending in (0, 1) (Table 2: 20 % to 70 %) ...
    pub utilization_edges: Vec<f64>,
    /// ... and the share of the device's blocks in SLC mode below the first bound, between
    /// each pair and above the last: one more than the bounds (setting 1: 56, 50, 40, 30, 25,
    /// 20, 10 %).
    pub block_fractions: Vec<f64>,
}

impl Default for DwaSettings {
    fn default() -> Self {
        DwaSettings {
            utilization_edges: vec![0.2, 0.3, 0.4, 0.5, 0.6, 0.7],
            block_fractions: vec![0.56, 0.50, 0.40, 0.30, 0.25, 0.20, 0.10],
        }
    }
}

impl PolicySettings for DwaSettings {}

/// Where the settings are written (`[slc.dwa]`); checked where the policy is built.
pub const SETTINGS: Settings = Settings::of::<DwaSettings>("slc.dwa");

#[derive(Clone)]
pub struct Dwa {
    space: SlcSpace,
    utilization_edges: Vec<f64>,
    block_fractions: Vec<f64>,
    device_blocks: u32,
    max_blocks: u32,
    threshold_bytes: u64,
    /// The size the table gave at the last look-up, and the host pages then.
    wanted: u32,
    looked_at_pages: Option<u64>,
    routing: ThresholdRouting,
    series: SlcSeries,
}

impl Dwa {
    pub fn new(cfg: &ValidatedConfig) -> Result<Self> {
        let d: DwaSettings = SETTINGS.decode(&cfg.policy_tables)?;
        let edges_ok = d.utilization_edges.windows(2).all(|w| w[0] < w[1])
            && d.utilization_edges.iter().all(|&e| e > 0.0 && e < 1.0);
        if !edges_ok {
            return Err(Error::config("slc.dwa.utilization_edges", "must be strictly ascending, each in (0, 1)"));
        }
        if d.block_fractions.len() != d.utilization_edges.len() + 1 {
            return Err(Error::config(
                "slc.dwa.block_fractions",
                format!(
                    "needs one more value than slc.dwa.utilization_edges ({}), got {}",
                    d.utilization_edges.len() + 1,
                    d.block_fractions.len()
                ),
            ));
        }
        if let Some(i) = d.block_fractions.iter().position(|f| !(0.0..1.0).contains(f)) {
            return Err(Error::config(format!("slc.dwa.block_fractions[{i}]"), "must be in [0, 1)"));
        }
        let space = SlcSpace::new(cfg);
        Ok(Dwa {
            max_blocks: space.max_blocks(cfg),
            wanted: space.min_blocks,
            space,
            utilization_edges: d.utilization_edges.clone(),
            block_fractions: d.block_fractions.clone(),
            device_blocks: cfg.geometry().blocks(),
            threshold_bytes: cfg.slc.threshold_bytes.0,
            looked_at_pages: None,
            routing: ThresholdRouting::default(),
            series: SlcSeries::new(cfg.device.page_bytes, cfg.slc.sample_every_bytes.0),
        })
    }

    /// Table 2: the SLC blocks for utilisation `u` (a bound belongs to the bin above it).
    pub fn table_blocks(&self, u: f64) -> u32 {
        let bin = self.utilization_edges.iter().take_while(|&&e| u >= e).count();
        ((self.block_fractions[bin] * self.device_blocks as f64).floor() as u32).min(self.max_blocks)
    }
}

impl RegionPolicy for Dwa {
    fn layout(&self) -> Vec<RegionLayout> {
        vec![slc_region(self.space.start_blocks(self.space.min_blocks))]
    }
    fn route(&mut self, write: &WriteInfo) -> RegionId {
        self.routing.route(write, self.threshold_bytes)
    }
    fn before_write(&mut self, view: &RegionView) -> RegionAction {
        let pages = view.host_pages();
        self.series.offer(pages, view.blocks(SLC), self.threshold_bytes);
        // A reserved region migrates before the table is looked up again (a cap looks it up
        // first: it bounds what the region may grow to).
        if self.space.mode == SlcRegionMode::Reserved {
            if let Some(a) = self.space.migration(view) {
                return a;
            }
        }
        if self.looked_at_pages.is_none_or(|at| pages >= at + view.block_pages(SLC) as u64) {
            self.looked_at_pages = Some(pages);
            self.wanted = self.table_blocks(view.utilization());
        }
        self.space.work(view, self.wanted).unwrap_or(RegionAction::Nothing)
    }
    fn report(&self) -> serde_json::Value {
        json!({
            "slc_blocks_wanted": self.wanted,
            "threshold_bytes": self.threshold_bytes,
            "writes_to_slc": self.routing.writes_to_slc,
            "writes_to_native": self.routing.writes_to_native,
            "migrations_started": self.space.migrations_started,
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

    fn config(overrides: &[&str]) -> ValidatedConfig {
        let o: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
        ValidatedConfig::new(load(Some("yoo-hybrid-qlc"), &[], &o).unwrap()).unwrap()
    }

    fn dwa(blocks_per_plane: u32) -> Dwa {
        Dwa::new(&config(&["slc.policy=\"dwa\"", &format!("device.blocks_per_plane={blocks_per_plane}")])).unwrap()
    }

    #[test]
    fn table_2_setting_1_by_utilisation() {
        let d = dwa(1000);
        let blocks = d.device_blocks as f64;
        let share = |u: f64| d.table_blocks(u) as f64 / blocks;
        // Table 2, setting 1: 0-20 % -> 56, 20-30 -> 50, ..., 70-100 -> 10 (% of blocks).
        let expected = [(0.0, 0.56), (0.19, 0.56), (0.2, 0.50), (0.35, 0.40), (0.45, 0.30), (0.5, 0.25)];
        for (u, f) in expected {
            assert!((share(u) - f).abs() < 1.0 / blocks, "u {u}: {} vs {f}", share(u));
        }
        assert!((share(0.65) - 0.20).abs() < 1.0 / blocks);
        assert!((share(0.7) - 0.10).abs() < 1.0 / blocks);
        assert!((share(1.0) - 0.10).abs() < 1.0 / blocks);
    }

    #[test]
    fn a_table_of_the_wrong_length_is_refused() {
        let c = config(&["slc.policy=\"dwa\"", "slc.dwa.block_fractions=[0.5, 0.4]"]);
        let err = Dwa::new(&c).err().expect("refused");
        assert!(err.to_string().contains("slc.dwa.block_fractions"), "{err}");
    }
}
