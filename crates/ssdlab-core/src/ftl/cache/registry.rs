//! Layer: ftl. The write-buffer eviction policy registry: `REGISTRY` names every policy of `cache.eviction`, one line
//! each, with its constructor and capabilities (`ftl/registry.rs`). The policy files import the
//! seam's trait from `mod.rs`, never this file.

use super::distance::DistanceEviction;
use super::frequency::FrequencyEviction;
use super::frequency_count::FrequencyCountEviction;
use super::lru::LruEviction;
use super::page_type_eviction::SETTINGS as PAGE_TYPE_EVICTION;
use super::rl_fsp::RlFspEviction;
use super::{BuildCtx, EvictionPolicy};
use crate::error::Result;
use crate::registry::Entry;

/// An eviction policy from the run's config (its own table, if it has settings: `[cache.<id>]`).
pub type BuildEviction = fn(BuildCtx) -> Result<Box<dyn EvictionPolicy>>;

/// What the engine asks of an eviction policy without naming it (`Entry::caps`).
#[derive(Debug, Clone, Copy)]
pub struct EvictionCaps {
    /// Chooses with a learning agent, so `cache.page_type_eviction.random_control` can stand in for
    /// its choices.
    pub learns: bool,
    /// Has a decision point an outside agent can drive (`EvictionPolicy::decision_point`).
    pub decides: bool,
}

/// `cache.eviction`: every eviction policy, one line each.
pub const REGISTRY: &[Entry<BuildEviction, EvictionCaps>] = &[
    Entry {
        id: "lru",
        summary: "write-back LRU: the least recently used dirty pages, in LRU order",
        build: |_| Ok(Box::new(LruEviction)),
        caps: EvictionCaps { learns: false, decides: false },
        settings: None,
    },
    Entry {
        id: "frequency",
        summary:
            "FSP paper's Frequency (Lv et al.): 1 bit of recent reads per page picks LSB or MSB, immediate rewrite",
        build: |ctx| Ok(Box::new(FrequencyEviction::new(&ctx)?)),
        caps: EvictionCaps { learns: false, decides: false },
        settings: Some(PAGE_TYPE_EVICTION),
    },
    Entry {
        id: "frequency_count",
        summary: "Frequency by RL-FSP's 4-bin long-term read count (stronger than the paper's 1 bit)",
        build: |ctx| Ok(Box::new(FrequencyCountEviction::new(&ctx)?)),
        caps: EvictionCaps { learns: false, decides: false },
        settings: Some(PAGE_TYPE_EVICTION),
    },
    Entry {
        id: "distance",
        summary: "FSP paper's Distance (OSPADA): a unit's pages far apart in logical address",
        build: |ctx| Ok(Box::new(DistanceEviction::new(&ctx)?)),
        caps: EvictionCaps { learns: false, decides: false },
        settings: Some(PAGE_TYPE_EVICTION),
    },
    Entry {
        id: "rl_fsp",
        summary: "FSP paper's RL: page type by an across-episode Q-table, group and rewrite modules",
        build: |ctx| Ok(Box::new(RlFspEviction::new(ctx)?)),
        caps: EvictionCaps { learns: true, decides: true },
        settings: Some(PAGE_TYPE_EVICTION),
    },
];
