//! Layer: ftl. The region (SLC cache) policy registry: `REGISTRY` names every policy of `slc.policy`, one line
//! each, with its constructor and capabilities (`ftl/registry.rs`). The policy files import the
//! seam's trait from `mod.rs`, never this file.

use super::dwa::Dwa;
use super::none::NoRegions;
use super::rl_slc::RlSlc;
use super::static_slc::StaticSlc;
use super::ust::Ust;
use super::RegionPolicy;
use crate::config::ValidatedConfig;
use crate::error::Result;
use crate::registry::Entry;

pub type BuildRegions = fn(&ValidatedConfig) -> Result<Box<dyn RegionPolicy>>;

/// The SLC region a policy keeps (`Entry::caps`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SlcRegion {
    /// None: one native region.
    None,
    /// `slc.blocks` blocks in SLC mode for the whole run (their lost capacity counts against
    /// the spare blocks).
    Fixed,
    /// Sized by the policy as it runs (`SlcSpace`), from a small start.
    Sized,
}

/// What the engine asks of a region policy without naming it (`Entry::caps`).
#[derive(Debug, Clone, Copy)]
pub struct RegionCaps {
    pub region: SlcRegion,
    /// Chooses with a learning agent, so `slc.rl.random_control` can stand in for its choices.
    pub learns: bool,
    /// Has a decision point an outside agent can drive (`RegionPolicy::decision_point`).
    pub decides: bool,
    /// Reads its size as a maximum under `slc.region = "cap"` or `"shared"` (`SlcSpace::work`); a policy
    /// without it refuses the key.
    pub caps_size: bool,
}

/// `slc.policy`: every region policy, one line each.
pub const REGISTRY: &[Entry<BuildRegions, RegionCaps>] = &[
    Entry {
        id: "none",
        summary: "one native region (e.g. QLC-only)",
        build: |_| Ok(Box::new(NoRegions)),
        caps: RegionCaps { region: SlcRegion::None, learns: false, decides: false, caps_size: false },
        settings: None,
    },
    Entry {
        id: "static",
        summary: "a fixed SLC region; writes up to the threshold go there",
        build: |c| Ok(Box::new(StaticSlc::new(c))),
        caps: RegionCaps { region: SlcRegion::Fixed, learns: false, decides: false, caps_size: true },
        settings: None,
    },
    Entry {
        id: "dwa",
        summary: "SLC size by space utilisation (Table 2 setting 1), fixed threshold",
        build: |c| Ok(Box::new(Dwa::new(c)?)),
        caps: RegionCaps { region: SlcRegion::Sized, learns: false, decides: false, caps_size: true },
        settings: Some(super::dwa::SETTINGS),
    },
    Entry {
        id: "ust",
        summary: "every write to SLC first; per-logical-block SLC budget; hot data kept in SLC",
        build: |c| Ok(Box::new(Ust::new(c)?)),
        // UST sizes its region by the data written to it already (its per-logical-block budget).
        caps: RegionCaps { region: SlcRegion::Sized, learns: false, decides: false, caps_size: false },
        settings: Some(super::ust::SETTINGS),
    },
    Entry {
        id: "rl",
        summary: "Q-learning of SLC size and threshold (Yoo & Shin 2020)",
        build: |c| Ok(Box::new(RlSlc::new(c)?)),
        caps: RegionCaps { region: SlcRegion::Sized, learns: true, decides: true, caps_size: true },
        settings: Some(super::rl_slc::SETTINGS),
    },
];
