//! Layer: ftl. Wordline placement: every unit is one whole wordline of a multi-level cell (4
//! pages on QLC), programmed one-shot (full-sequence program, one tPROG for all its pages), on
//! the least-busy plane. The write buffer's eviction order fills the wordline: slot i of the unit
//! takes page type i (LSB first). With the plain LRU eviction this is the baseline the FSP paper
//! (Li et al., TCAD 2024, Sec. IV) calls "Baseline": the four LRU-tail pages in order.
//! It needs a write buffer of at least one wordline (`ftl::check_config`).

use crate::ftl::blocks::StreamId;
use crate::ftl::placement::dynamic::LeastBusy;
use crate::ftl::placement::{Placement, PlacementView};
use crate::nand::Geometry;
use crate::units::{Lpn, PlaneId};

#[derive(Clone)]
pub struct WordlinePlacement {
    least_busy: LeastBusy,
}

impl WordlinePlacement {
    pub fn new(geometry: &Geometry) -> Self {
        WordlinePlacement { least_busy: LeastBusy::new(geometry) }
    }
}

impl Placement for WordlinePlacement {
    fn unit_pages(&self, bits_per_cell: u32) -> u32 {
        bits_per_cell
    }
    fn plane(&mut self, lpns: &[Lpn], view: &PlacementView) -> Option<PlaneId> {
        self.least_busy.pick(lpns.len() as u32, view)
    }
    fn on_room(&mut self, plane: PlaneId) {
        self.least_busy.refresh(plane);
    }
    fn tracks_programs(&self) -> bool {
        self.least_busy.uses_tree()
    }
    fn on_programmed(&mut self, stream: StreamId, plane: PlaneId, free_at: crate::units::SimTime, has_room: bool) {
        self.least_busy.update(stream, plane, free_at, has_room);
    }
}
