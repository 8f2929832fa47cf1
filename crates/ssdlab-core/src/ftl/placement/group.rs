//! Layer: ftl. Group-based allocation (LearnedFTL: Wang, Lin, Wu, Jiang, Zhang, Mao; HPCA 2024,
//! Sec. 3.3.1-3.3.2): consecutive GTD entries (translation pages) form a *group*, and the data
//! of a group has write points of its own, so that GC can collect one group's data, sort it by
//! LPN and write it back where a linear model of each entry can learn it.
//!
//! * **Groups.** `ftl.group.entries` consecutive translation pages per group (0 derives one
//!   line's worth of pages, see below); a group's stream is `group.<g>`, and every page of its
//!   LPNs bound for the native region goes there: host writes, data that predates the run, GC's
//!   write-back and migrations.
//! * **Lines.** The native region runs in line mode (`ftl/blocks/lines.rs`): a stream opens the same
//!   block index on every plane at once (a superblock, the paper's "contiguous flash blocks"
//!   allocated to a group, one per parallel unit), and a group's pages are written row by row:
//!   page k of the line goes to plane k mod planes in channel-first order, page k / planes of its
//!   block. In virtual PPNs (`nand/vppn.rs`, allocation order channel, chip, die, plane, page,
//!   block) consecutive pages of a line are consecutive numbers, so data GC writes back sorted
//!   by LPN is a straight line a model learns exactly.
//! * **Threshold.** A group that would open a line while holding `ftl.group.max_lines` - 1
//!   sealed ones is collected first (the FTL runs the collection, the write waits).
//! * Every line stream is written row by row (`line.rs`); units of a stream outside line mode
//!   (an SLC region's host stream) go to the least-busy plane.
//!
//! Deviations and choices:
//! * Group size for any geometry. The paper groups 64 entries because 64 x 512 entries fill the
//!   64 parallel units' blocks of 512 pages exactly (Sec. 4.1); we derive the same: entries =
//!   planes x pages per block / entries per translation page, at least 1.
//! * The paper allocates "an exact number of contiguous flash blocks" per group; a line is one
//!   block on every plane whatever the group size, so a group larger than a line fills several.
//! * GC writes a group's sorted data back through the group's own write point (its open line,
//!   then new lines), as the authors' code does; the paper allocates fresh blocks for it.
//! * Pages are placed row by row even while some planes are busier than others (the paper's
//!   allocation order); the least-busy choice of `dynamic` would break the VPPN order.

use crate::config::ValidatedConfig;
use crate::ftl::blocks::StreamId;
use crate::ftl::placement::line::LinePlacement;
use crate::ftl::placement::{Placement, PlacementLayout, PlacementView};
use crate::nand::Geometry;
use crate::units::{Lpn, PlaneId, SimTime};

#[derive(Clone)]
pub struct GroupPlacement {
    /// Consecutive LPNs per group.
    lpns_per_group: u32,
    groups: u32,
    /// The first group's stream (the others follow).
    first: StreamId,
    /// Where pages go: row by row over each group's line, as line placement writes its lines.
    rows: LinePlacement,
    max_lines: Option<u32>,
}

/// GTD entries per group: `entries`, or 0 for one line's worth of pages.
pub fn group_entries(configured: u32, geometry: &Geometry, entries_per_page: u32) -> u32 {
    if configured > 0 {
        configured
    } else {
        (geometry.planes() as u64 * geometry.pages_per_block as u64 / entries_per_page.max(1) as u64).max(1) as u32
    }
}

impl GroupPlacement {
    pub fn from_config(cfg: &ValidatedConfig) -> Self {
        let geometry = cfg.geometry();
        let entries_per_page = cfg.ftl.entries_per_translation_page(cfg.device.page_bytes);
        let entries = group_entries(cfg.ftl.group.entries, &geometry, entries_per_page);
        let max_lines = (cfg.ftl.group.max_lines > 0).then_some(cfg.ftl.group.max_lines);
        Self::new(&geometry, cfg.used_logical_pages(), entries.saturating_mul(entries_per_page), max_lines)
    }

    pub fn new(geometry: &Geometry, logical_pages: u32, lpns_per_group: u32, max_lines: Option<u32>) -> Self {
        let lpns_per_group = lpns_per_group.max(1);
        GroupPlacement {
            lpns_per_group,
            groups: logical_pages.div_ceil(lpns_per_group).max(1),
            first: StreamId(0),
            rows: LinePlacement::new(geometry),
            max_lines,
        }
    }

    fn is_group_stream(&self, stream: StreamId) -> bool {
        stream.0 >= self.first.0 && ((stream.0 - self.first.0) as u32) < self.groups
    }
}

impl Placement for GroupPlacement {
    fn plane(&mut self, lpns: &[Lpn], view: &PlacementView) -> Option<PlaneId> {
        self.rows.plane(lpns, view)
    }
    fn on_room(&mut self, plane: PlaneId) {
        self.rows.on_room(plane);
    }
    fn tracks_programs(&self) -> bool {
        self.rows.tracks_programs()
    }
    fn on_programmed(&mut self, stream: StreamId, plane: PlaneId, free_at: SimTime, has_room: bool) {
        // A group's pages never take the least-busy plane: only the other streams are tracked.
        if !self.is_group_stream(stream) {
            self.rows.on_programmed(stream, plane, free_at, has_room);
        }
    }
    fn layout(&self) -> PlacementLayout {
        PlacementLayout { streams: self.groups, lines: true, max_lines: self.max_lines }
    }
    fn bind_streams(&mut self, first: StreamId) {
        self.first = first;
    }
    fn stream_for(&self, lpn: Lpn) -> Option<StreamId> {
        Some(StreamId(self.first.0 + (lpn.0 / self.lpns_per_group) as u16))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nand::CellType;

    fn geometry(channels: u32, chips: u32, blocks: u32, pages: u32) -> Geometry {
        Geometry {
            channels,
            chips_per_channel: chips,
            dies_per_chip: 1,
            planes_per_die: 1,
            blocks_per_plane: blocks,
            pages_per_block: pages,
            page_bytes: 4096,
            cell: CellType::Slc,
        }
    }

    #[test]
    fn group_size_is_derived_from_the_geometry() {
        // The paper's device: 64 planes x 512 pages per block / 512 entries = 64 entries.
        assert_eq!(group_entries(0, &geometry(8, 8, 256, 512), 512), 64);
        // A smaller line than a translation page: one entry per group.
        assert_eq!(group_entries(0, &geometry(2, 1, 64, 96), 512), 1);
        assert_eq!(group_entries(3, &geometry(8, 8, 256, 512), 512), 3);
    }

    #[test]
    fn every_lpn_of_a_group_goes_to_the_group_stream() {
        let mut p = GroupPlacement::new(&geometry(2, 2, 16, 8), 100, 32, Some(5));
        assert_eq!(p.layout(), PlacementLayout { streams: 4, lines: true, max_lines: Some(5) });
        p.bind_streams(StreamId(7));
        let s = |l: u32| p.stream_for(Lpn(l)).unwrap().0;
        assert_eq!([s(0), s(31), s(32), s(99)], [7, 7, 8, 10]);
        assert!(p.is_group_stream(StreamId(10)) && !p.is_group_stream(StreamId(11)) && !p.is_group_stream(StreamId(6)));
    }
}
