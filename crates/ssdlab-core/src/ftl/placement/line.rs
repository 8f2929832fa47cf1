//! Layer: ftl. Line placement, FEMU's allocation (the black-box FTL the LearnedFTL paper ran
//! DFTL and TPFTL on, Wang et al. HPCA 2024 Sec. 4.1: "FEMU's default greedy dynamic
//! allocation"): the native region runs in line mode (`ftl/blocks/lines.rs`), and each write stream
//! has one write pointer that stripes its pages over every plane, page row by page row, each row
//! in channel-first order (channel, then chip, die, plane), a line (the same block on every
//! plane) at a time. GC collects lines (`gc.victim = "greedy"`: the line with the fewest valid
//! pages, FEMU's victim), its valid pages rewritten through the GC stream's own pointer. Units
//! of a stream outside line mode (an SLC region's) go to the least-busy plane.
//!
//! Deviations: FEMU keeps one write pointer for host data and GC alike; ssdlab's GC stream has
//! its own line, so relocated and fresh data do not share lines. FEMU gives translation pages a
//! line pointer too; here they take the least-busy plane with room in their stream's line.

use crate::ftl::blocks::StreamId;
use crate::ftl::placement::dynamic::LeastBusy;
use crate::ftl::placement::{Placement, PlacementLayout, PlacementView};
use crate::nand::Geometry;
use crate::units::{Lpn, PlaneId, SimTime};

#[derive(Clone)]
pub struct LinePlacement {
    /// Planes in channel-first order: row by row, page k of a line goes to `order[k % planes]`.
    order: Vec<PlaneId>,
    least_busy: LeastBusy,
}

impl LinePlacement {
    pub fn new(geometry: &Geometry) -> Self {
        LinePlacement { order: geometry.channel_first_order(), least_busy: LeastBusy::new(geometry) }
    }
}

impl Placement for LinePlacement {
    fn plane(&mut self, lpns: &[Lpn], view: &PlacementView) -> Option<PlaneId> {
        let pages = lpns.len() as u32;
        if view.is_line_stream() {
            let plane = self.order[(view.line_cursor() as usize) % self.order.len()];
            return view.has_room(plane, pages).then_some(plane);
        }
        self.least_busy.pick(pages, view)
    }
    fn on_room(&mut self, plane: PlaneId) {
        self.least_busy.refresh(plane);
    }
    fn tracks_programs(&self) -> bool {
        self.least_busy.uses_tree()
    }
    fn on_programmed(&mut self, stream: StreamId, plane: PlaneId, free_at: SimTime, has_room: bool) {
        self.least_busy.update(stream, plane, free_at, has_room);
    }
    fn layout(&self) -> PlacementLayout {
        PlacementLayout { streams: 0, lines: true, max_lines: None }
    }
}
