//! Layer: ftl. A static SLC cache (Yoo & Shin, HotStorage 2020, Sec. 2.1 "static scheme", the
//! paper's static baseline): `slc.blocks` blocks run in SLC mode for the whole run; host writes
//! of at most `slc.threshold_bytes` go to them, larger ones to the native region; when the SLC
//! region has fewer than `slc.trigger_free_blocks` free blocks (the paper, Sec. 4: 5), victims
//! of the SLC region migrate to the native region until it has `slc.target_free_blocks`.
//!
//! Our choices where the paper is silent: the migration victim is chosen by `gc.victim` (greedy
//! by default: the SLC block with the fewest valid pages, the cheapest to migrate); migration is
//! foreground (the write that finds the SLC region short waits, as the paper's write latency
//! includes migration delays, Sec. 3.3); the SLC blocks are spread evenly over the planes and
//! keep no GC reserve (they are emptied by migration, not by GC within the region).
//!
//! With `slc.region = "cap"` or `"shared"` the `slc.blocks` are a maximum, not a reservation (`SlcSpace::work`):
//! the region holds only the blocks its data fills and the free blocks migration keeps, so a
//! threshold that sends little to SLC leaves the rest of the blocks to the native region.

use serde_json::json;

use crate::config::{SlcRegionMode, ValidatedConfig};
use crate::ftl::blocks::RegionId;
use crate::ftl::region::series::SlcSeries;
use crate::ftl::region::{
    slc_region, RegionAction, RegionLayout, RegionPolicy, RegionView, SlcSpace, ThresholdRouting, WriteInfo, SLC,
};

#[derive(Clone)]
pub struct StaticSlc {
    blocks: u32,
    threshold_bytes: u64,
    space: SlcSpace,
    routing: ThresholdRouting,
    series: SlcSeries,
}

impl StaticSlc {
    pub fn new(cfg: &ValidatedConfig) -> Self {
        let s = &cfg.slc;
        StaticSlc {
            blocks: s.blocks,
            threshold_bytes: s.threshold_bytes.0,
            space: SlcSpace::new(cfg),
            routing: ThresholdRouting::default(),
            series: SlcSeries::new(cfg.device.page_bytes, s.sample_every_bytes.0),
        }
    }
}

impl RegionPolicy for StaticSlc {
    fn layout(&self) -> Vec<RegionLayout> {
        vec![slc_region(self.space.start_blocks(self.blocks))]
    }
    fn route(&mut self, write: &WriteInfo) -> RegionId {
        self.routing.route(write, self.threshold_bytes)
    }
    fn before_write(&mut self, view: &RegionView) -> RegionAction {
        self.series.offer(view.host_pages(), view.blocks(SLC), self.threshold_bytes);
        let action = match self.space.mode {
            SlcRegionMode::Reserved => self.space.migration(view),
            SlcRegionMode::Cap | SlcRegionMode::Shared => self.space.work(view, self.blocks),
        };
        action.unwrap_or(RegionAction::Nothing)
    }
    fn report(&self) -> serde_json::Value {
        json!({
            "slc_blocks": self.blocks,
            "threshold_bytes": self.threshold_bytes,
            "trigger_free_blocks": self.space.trigger_free_blocks,
            "target_free_blocks": self.space.target_free_blocks,
            "writes_to_slc": self.routing.writes_to_slc,
            "writes_to_native": self.routing.writes_to_native,
            "migrations_started": self.space.migrations_started,
            "series": self.series.to_json(),
        })
    }
}
