//! Layer: ftl. Regions of blocks with their own mode, and the policy that runs them.
//!
//! Region 0 is the native region (every block programmed with all its bits). A region policy
//! declares further regions (an SLC-mode cache on a multi-level device) with the blocks they
//! start with, routes each host write to a region, and says before a write what space work must
//! run first: migrating the valid data of a region's victim into another region (`Migrate`, a
//! read and a program per page tagged `Source::Migration`, the victim erased after). A policy
//! that resizes a region at run time moves free blocks between regions
//! (`BlockManager::move_free_block`), which changes their mode and the device's capacity.
//!
//! | id | file | what |
//! |---|---|---|
//! | `none` | `none.rs` | one native region (QLC-only: the RL-SLC paper's normalisation baseline) |
//! | `static` | `static_slc.rs` | a fixed SLC region and size threshold (the RL-SLC paper's "static") |

mod none;
mod static_slc;

pub use none::NoRegions;
pub use static_slc::StaticSlc;

use serde_json::Value;

use crate::config::ValidatedConfig;
use crate::error::Result;
use crate::ftl::blocks::{RegionId, RegionSpec};
use crate::ftl::registry::Entry;
use crate::units::SimTime;

/// The native region's id.
pub const NATIVE: RegionId = RegionId(0);

/// A region a policy declares, and the blocks it takes from the native region at start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegionLayout {
    pub spec: RegionSpec,
    pub initial_blocks: u32,
}

/// A host write as a region policy sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WriteInfo {
    pub request_bytes: u64,
    pub request_pages: u32,
}

/// What a region policy may see: free and total blocks per region.
pub struct RegionView<'a> {
    pub now: SimTime,
    pub(crate) blocks: &'a crate::ftl::blocks::BlockManager,
}

impl RegionView<'_> {
    pub fn free_blocks(&self, r: RegionId) -> u32 {
        self.blocks.region_free_blocks(r)
    }
    pub fn blocks(&self, r: RegionId) -> u32 {
        self.blocks.region_blocks(r)
    }
}

/// Space work a region policy asks for before a write is served (the write waits for it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RegionAction {
    Nothing,
    /// Migrate victims of region `from` into region `to` until `from` has `target_free_blocks`
    /// free blocks.
    Migrate {
        from: RegionId,
        to: RegionId,
        target_free_blocks: u32,
    },
}

/// Runs the regions. One file per policy; `REGISTRY` names them.
pub trait RegionPolicy: Send {
    fn id(&self) -> &'static str;
    /// Regions beyond the native one, in id order (1, 2, ...).
    fn layout(&self) -> Vec<RegionLayout>;
    /// The region a host write goes to.
    fn route(&mut self, write: &WriteInfo) -> RegionId;
    /// Called before a host write is served.
    fn before_write(&mut self, view: &RegionView) -> RegionAction;
    fn report(&self) -> Value {
        Value::Null
    }
}

pub type BuildRegions = fn(&ValidatedConfig) -> Result<Box<dyn RegionPolicy>>;

/// `slc.policy`: every region policy, one line each.
pub const REGISTRY: &[Entry<BuildRegions>] = &[
    Entry { id: "none", summary: "one native region (e.g. QLC-only)", build: |_| Ok(Box::new(NoRegions)) },
    Entry {
        id: "static",
        summary: "a fixed SLC region; writes up to the threshold go there",
        build: |c| Ok(Box::new(StaticSlc::new(c))),
    },
];
