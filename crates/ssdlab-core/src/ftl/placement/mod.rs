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

mod dynamic;
mod static_cwdp;
mod wordline;

pub use dynamic::DynamicPlacement;
pub use static_cwdp::{cwdp_plane, StaticPlacement};
pub use wordline::WordlinePlacement;

use crate::config::ValidatedConfig;
use crate::device::Device;
use crate::error::Result;
use crate::ftl::blocks::{BlockManager, StreamId};
use crate::ftl::registry::Entry;
use crate::nand::Geometry;
use crate::units::{Lpn, PlaneId, SimTime};

/// What a placement policy sees when it places a unit.
pub struct PlacementView<'a> {
    device: &'a Device,
    blocks: &'a BlockManager,
    stream: StreamId,
    reserve: u32,
}

impl<'a> PlacementView<'a> {
    /// A view for units of `stream`, which must leave `reserve` free blocks per plane (the GC
    /// reserve of host data).
    #[inline]
    pub(crate) fn new(device: &'a Device, blocks: &'a BlockManager, stream: StreamId, reserve: u32) -> Self {
        PlacementView { device, blocks, stream, reserve }
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
        self.blocks.room_for(self.stream, plane, pages, self.reserve)
    }
    /// When the array unit holding `plane` becomes free.
    #[inline]
    pub fn free_at(&self, plane: PlaneId) -> SimTime {
        self.device.plane_free_at(plane)
    }
}

/// Chooses where program units go. One file per policy; `REGISTRY` names them.
pub trait Placement: Send {
    fn id(&self) -> &'static str;
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
}

/// A placement policy from the run's config (the geometry; its own table, if it has settings:
/// `[ftl.<id>]`).
pub type BuildPlacement = fn(&ValidatedConfig) -> Result<Box<dyn Placement>>;

/// `ftl.placement`: every placement policy, one line each.
pub const REGISTRY: &[Entry<BuildPlacement>] = &[
    Entry { id: "dynamic", summary: "least-busy plane", build: |c| Ok(Box::new(DynamicPlacement::new(&c.geometry()))) },
    Entry {
        id: "static",
        summary: "MQSim's channel-way-die-plane order from the LPN",
        build: |c| Ok(Box::new(StaticPlacement::new(&c.geometry()))),
    },
    Entry {
        id: "wordline",
        summary: "a whole wordline one-shot, least-busy plane",
        build: |c| Ok(Box::new(WordlinePlacement::new(&c.geometry()))),
    },
];
