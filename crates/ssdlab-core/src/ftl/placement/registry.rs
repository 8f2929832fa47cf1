//! Layer: ftl. The placement policy registry: `REGISTRY` names every policy of `ftl.placement`, one line
//! each, with its constructor and capabilities (`ftl/registry.rs`). The policy files import the
//! seam's trait from `mod.rs`, never this file.

use super::dynamic::DynamicPlacement;
use super::group::GroupPlacement;
use super::line::LinePlacement;
use super::static_cwdp::StaticPlacement;
use super::wordline::WordlinePlacement;
use super::Placement;
use crate::config::ValidatedConfig;
use crate::error::Result;
use crate::registry::Entry;

/// A placement policy from the run's config (the geometry; its own table, if it has settings:
/// `[ftl.<id>]`).
pub type BuildPlacement = fn(&ValidatedConfig) -> Result<Box<dyn Placement>>;

/// How a placement allocates the native region's blocks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Allocates {
    /// Block by block, per plane.
    Blocks,
    /// A line at a time: the same block on every plane (FEMU's write pointer); GC collects lines.
    Lines,
    /// Lines per group, each group's data on lines of its own (LearnedFTL Sec. 3.3.1); GC
    /// collects a group's lines together.
    Groups,
}

/// What the engine asks of a placement policy without naming it (`Entry::caps`).
#[derive(Debug, Clone, Copy)]
pub struct PlacementCaps {
    pub allocates: Allocates,
    /// Writes each LPN to a plane fixed by its address, so GC must reclaim within planes.
    pub plane_bound: bool,
    /// Programs whole wordlines one-shot from the write buffer: needs a multi-level cell and a
    /// buffer of at least a wordline.
    pub fills_wordlines: bool,
}

const BLOCKS: PlacementCaps =
    PlacementCaps { allocates: Allocates::Blocks, plane_bound: false, fills_wordlines: false };

/// `ftl.placement`: every placement policy, one line each.
pub const REGISTRY: &[Entry<BuildPlacement, PlacementCaps>] = &[
    Entry {
        id: "dynamic",
        summary: "least-busy plane",
        build: |c| Ok(Box::new(DynamicPlacement::new(&c.geometry()))),
        caps: BLOCKS,
        settings: None,
    },
    Entry {
        id: "static",
        summary: "MQSim's channel-way-die-plane order from the LPN",
        build: |c| Ok(Box::new(StaticPlacement::new(&c.geometry()))),
        caps: PlacementCaps { plane_bound: true, ..BLOCKS },
        settings: None,
    },
    Entry {
        id: "wordline",
        summary: "a whole wordline one-shot, least-busy plane",
        build: |c| Ok(Box::new(WordlinePlacement::new(&c.geometry()))),
        caps: PlacementCaps { fills_wordlines: true, ..BLOCKS },
        settings: None,
    },
    Entry {
        id: "line",
        summary: "FEMU's write pointer: striped row by row over every plane, a line at a time",
        build: |c| Ok(Box::new(LinePlacement::new(&c.geometry()))),
        caps: PlacementCaps { allocates: Allocates::Lines, ..BLOCKS },
        settings: None,
    },
    Entry {
        id: "group",
        summary: "LearnedFTL's group-based allocation: per-group write points on lines",
        build: |c| Ok(Box::new(GroupPlacement::from_config(c))),
        caps: PlacementCaps { allocates: Allocates::Groups, ..BLOCKS },
        settings: None,
    },
];
