//! Layer: ftl. Placement: which plane a program unit goes to, and how it is programmed.
//!
//! A program unit is what the write path hands to the flash at once: one host page without a
//! write buffer, or the pages an eviction policy chose from the buffer. The placement policy
//! says how many pages a unit holds (`unit_pages`: 1, or a whole wordline of a multi-level cell
//! programmed one-shot) and picks the plane among those whose write point for the unit's stream
//! has room. The page-type order inside a one-shot wordline is the unit's order (slot i of the
//! unit takes page type i, LSB first), which an eviction policy controls.
//!
//! | id | file | what |
//! |---|---|---|
//! | `dynamic` | `dynamic.rs` | the plane whose array unit frees earliest (ties: cyclic order after the last used) |
//! | `static` | `static_cwdp.rs` | MQSim's channel-way-die-plane order computed from the LPN |
//! | `wordline` | `wordline.rs` | `dynamic`, with units of one whole wordline programmed one-shot |
//! | `line` | `line.rs` | FEMU's write pointer: pages striped row by row over every plane, a line at a time |
//! | `group` | `group.rs` | LearnedFTL's group-based allocation: a write stream per group of GTD entries, on lines |
//!
//! A placement may also declare write streams of its own and line-mode allocation of the native
//! region (`layout`), and then chooses the stream of every page of data bound there
//! (`stream_for`): host writes, GC's relocations and migrations into the native region alike.

pub(crate) mod dynamic;
pub(crate) mod group;
pub(crate) mod line;
pub mod registry;
pub(crate) mod static_cwdp;
pub(crate) mod wordline;

use crate::device::Device;
use crate::ftl::blocks::{BlockManager, StreamId};
use crate::nand::Geometry;
use crate::units::{Lpn, PlaneId, SimTime};

/// What a placement policy sees when it places a unit.
pub struct PlacementView<'a> {
    device: &'a Device,
    blocks: &'a BlockManager,
    stream: StreamId,
    reserve: u32,
    /// The stream is in a line-mode region (asked once per unit, not per plane).
    line: bool,
}

impl<'a> PlacementView<'a> {
    /// A view for units of `stream`, which must leave `reserve` free blocks per plane (the GC
    /// reserve of host data).
    #[inline]
    pub(crate) fn new(device: &'a Device, blocks: &'a BlockManager, stream: StreamId, reserve: u32) -> Self {
        PlacementView { device, blocks, stream, reserve, line: blocks.is_line_stream(stream) }
    }
    /// The write stream the unit is for.
    pub fn stream(&self) -> StreamId {
        self.stream
    }
    pub fn geometry(&self) -> &Geometry {
        self.blocks.geometry()
    }
    /// Whether `plane`'s write point for the unit's stream can take `pages` more pages in its
    /// open block, or can open a free block.
    #[inline]
    pub fn has_room(&self, plane: PlaneId, pages: u32) -> bool {
        if self.line {
            self.blocks.room_for_line(self.stream, plane, pages, self.reserve)
        } else {
            self.blocks.room_for_blocks(self.stream, plane, pages, self.reserve)
        }
    }
    /// When the array unit holding `plane` becomes free.
    #[inline]
    pub fn free_at(&self, plane: PlaneId) -> SimTime {
        self.device.plane_free_at(plane)
    }
    /// Line mode: pages allocated in the stream's open line (0 without one); the next page
    /// written row by row goes to the plane at this position modulo the planes, in
    /// channel-first order.
    #[inline]
    pub fn line_cursor(&self) -> u32 {
        self.blocks.line_cursor(self.stream)
    }
    /// Whether the unit's stream writes to a line-mode region.
    #[inline]
    pub fn is_line_stream(&self) -> bool {
        self.line
    }
}

/// What a placement declares when it is built.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PlacementLayout {
    /// Write streams of its own in the native region (LearnedFTL's groups), registered after
    /// the FTL's; `Placement::bind_streams` gets the first one's id.
    pub streams: u32,
    /// The native region opens blocks a line at a time (the same block on every plane,
    /// `ftl/blocks/lines.rs`), and its GC collects lines (`VictimPolicy::select_lines`).
    pub lines: bool,
    /// One of the placement's streams holding this many lines, its open one included, is
    /// collected before it opens another (LearnedFTL's per-group GC threshold); None: no limit.
    pub max_lines: Option<u32>,
}

/// Chooses where program units go. One file per policy; `REGISTRY` names them.
pub trait Placement: Send + dyn_clone::DynClone {
    /// Pages per program unit on a device whose cells hold `bits_per_cell` bits: 1 (page at a
    /// time), or `bits_per_cell` for one-shot wordline programs.
    fn unit_pages(&self, _bits_per_cell: u32) -> u32 {
        1
    }
    /// The plane for a unit of `lpns` (with room for all of them), or None if no plane can take
    /// it now (the FTL then reclaims space and asks again).
    fn plane(&mut self, lpns: &[Lpn], view: &PlacementView) -> Option<PlaneId>;
    /// The plane a unit must go to, for policies that fix it (static): the FTL reclaims there
    /// when it has no room.
    fn wanted_plane(&self, _lpns: &[Lpn], _geometry: &Geometry) -> Option<PlaneId> {
        None
    }
    /// A plane regained room (a block was erased there): index-keeping policies refresh it.
    fn on_room(&mut self, _plane: PlaneId) {}
    /// Whether the policy wants `on_programmed` (an index of free times to keep exact).
    fn tracks_programs(&self) -> bool {
        false
    }
    /// A unit of `stream` was just programmed on `plane`, whose array unit is now busy until
    /// `free_at` and which has room (`has_room`) for another page of the stream or not:
    /// index-keeping policies refresh it at once instead of finding it stale on the next query.
    /// Only timed programs are reported: warm-up programs take no time (and placements treat
    /// every plane as idle while the device is untimed).
    fn on_programmed(&mut self, _stream: StreamId, _plane: PlaneId, _free_at: SimTime, _has_room: bool) {}
    /// Its streams and the native region's allocation (see `PlacementLayout`).
    fn layout(&self) -> PlacementLayout {
        PlacementLayout::default()
    }
    /// The id of the first of the `layout().streams` streams the FTL registered for it (the
    /// others follow in order).
    fn bind_streams(&mut self, _first: StreamId) {}
    /// The stream a page of `lpn`'s data bound for the native region goes to, if one of its own
    /// (None: the FTL's stream for the purpose: host, GC or migration).
    fn stream_for(&self, _lpn: Lpn) -> Option<StreamId> {
        None
    }
}

// A drive snapshot (`sim::WarmDrive`) clones the FTL with its policies.
dyn_clone::clone_trait_object!(Placement);
