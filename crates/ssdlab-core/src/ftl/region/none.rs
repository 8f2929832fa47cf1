//! Layer: ftl. No extra region: every block native, every write to it (a QLC-only drive, the
//! RL-SLC paper's normalisation baseline, is the QLC preset with this policy).

use crate::ftl::blocks::RegionId;
use crate::ftl::region::{RegionAction, RegionLayout, RegionPolicy, RegionView, WriteInfo, NATIVE};

#[derive(Clone)]
pub struct NoRegions;

impl RegionPolicy for NoRegions {
    fn layout(&self) -> Vec<RegionLayout> {
        Vec::new()
    }
    fn route(&mut self, _write: &WriteInfo) -> RegionId {
        NATIVE
    }
    fn before_write(&mut self, _view: &RegionView) -> RegionAction {
        RegionAction::Nothing
    }
}
