//! Layer: ftl. The settings the page-type aware eviction policies of the FSP paper share
//! (`frequency`, `frequency_count`, `distance`, `rl_fsp`; Li et al., TCAD 2024): one table,
//! `[cache.page_type_eviction]`, which each of their registry lines declares. It was `[cache.fsp]`,
//! a name that said which paper rather than what it holds (and read as if it belonged to
//! `rl_fsp` alone); the old name still loads, with a warning.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::error::Result;
use crate::ftl::cache::BuildCtx;
use crate::registry::{PolicySettings, Settings};

/// `[cache.page_type_eviction]` (formerly `[cache.fsp]`): the settings of the page-type aware
/// eviction policies (`frequency`, `frequency_count`, `distance`, `rl_fsp`) of Li et al., "Page
/// Type-Aware Full-Sequence Program Scheduling via Reinforcement Learning in High Density SSDs",
/// TCAD 2024: one table for the four, since they share the candidates, the rewrite module and
/// the episodes. What depends on the device (one page-type reward per page type) is checked
/// where the policy is built.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct PageTypeEvictionSettings {
    /// Eviction candidates: this share of the buffer's pages from the LRU tail, at least one
    /// wordline (Sec. IV-A: 5 %, after OSPADA).
    pub candidates_fraction: f64,
    /// `distance`: a unit's pages are at least this share of the buffer's page count apart in
    /// logical address, where the candidates allow (Sec. IV-A: half).
    pub distance_fraction: f64,
    /// `frequency` and `rl_fsp`: the rewrite modules (Sec. III-D, IV-A).
    pub rewrite: bool,
    /// `rl_fsp`: decisions per episode (Sec. III-B: 1000).
    pub episode_length: u64,
    /// `rl_fsp`: step size of Eq. 1, in (0, 1] (Sec. III-B: 0.3).
    pub alpha: f64,
    /// `rl_fsp`: discount factor of Eq. 1, in [0, 1] (Sec. III-B: 0.8).
    pub gamma: f64,
    /// `rl_fsp`: exploration probability for the first `epsilon_switch_after_episodes`
    /// episodes (Algorithm 1 lines 8-11: 0.8) ...
    pub epsilon_initial: f64,
    /// ... and after them (Algorithm 1: 0.01).
    pub epsilon_after: f64,
    /// `rl_fsp`: episodes explored at `epsilon_initial` (Algorithm 1: 4).
    pub epsilon_switch_after_episodes: u64,
    /// `rl_fsp`: the page-type part of the reward, LSB first, when the page is read in the next
    /// episode; negated when it is not (Sec. III-B: 1, 0.5, -0.5, -1). One per page type.
    pub page_type_rewards: Vec<f64>,
    /// `rl_fsp`: the latency part's thresholds, percentiles of the per-KiB response time of
    /// read requests, strictly ascending (Sec. III-B: 70, 90, 99) ...
    pub latency_percentiles: Vec<f64>,
    /// ... and the reward of each band they delimit, fastest first, one more than the
    /// percentiles (Sec. III-B: 1, 0.5, 0, -1).
    pub latency_rewards: Vec<f64>,
    /// `rl_fsp`: the percentiles are taken over the last this many read requests (ours) ...
    pub latency_window: usize,
    /// ... and recomputed after this many.
    pub latency_refresh_every: usize,
    /// `rl_fsp`: which later decision Eq. 1's `Q(S_{p+1}, A_{p+1})` is read from (see
    /// `FspBootstrap`).
    pub bootstrap: FspBootstrap,
    /// `rl_fsp`'s random-action control: every candidate's page type drawn uniformly, with the
    /// same candidates, grouping, rewrite and rewards. Refused for another eviction policy.
    pub random_control: bool,
}

impl Default for PageTypeEvictionSettings {
    fn default() -> Self {
        PageTypeEvictionSettings {
            candidates_fraction: 0.05,
            distance_fraction: 0.5,
            rewrite: true,
            episode_length: 1000,
            alpha: 0.3,
            gamma: 0.8,
            epsilon_initial: 0.8,
            epsilon_after: 0.01,
            epsilon_switch_after_episodes: 4,
            page_type_rewards: vec![1.0, 0.5, -0.5, -1.0],
            latency_percentiles: vec![70.0, 90.0, 99.0],
            latency_rewards: vec![1.0, 0.5, 0.0, -1.0],
            latency_window: 10_000,
            latency_refresh_every: 1000,
            bootstrap: FspBootstrap::default(),
            random_control: false,
        }
    }
}

/// Which decision RL-FSP's update bootstraps from (Eq. 1's `S_{p+1}, A_{p+1}`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum FspBootstrap {
    /// The mean value of the next unit's four decisions, the same for every page of a unit, so
    /// the learned page type does not depend on the order a unit's pages are recorded (ours, the
    /// default).
    #[default]
    NextUnit,
    /// The decision recorded next, as Eq. 1 literally reads: a unit recorded LSB to MSB makes
    /// each page type bootstrap from the next type's value.
    NextDecision,
}

impl PolicySettings for PageTypeEvictionSettings {
    fn problems(&self) -> Vec<(&'static str, String)> {
        let mut problems = Vec::new();
        let (c, d) = (self.candidates_fraction, self.distance_fraction);
        if !(c > 0.0 && c <= 1.0) {
            problems.push(("candidates_fraction", format!("must be in (0, 1], got {c}")));
        }
        if !(0.0..=1.0).contains(&d) {
            problems.push(("distance_fraction", format!("must be in [0, 1], got {d}")));
        }
        if self.episode_length < 1 {
            problems.push(("episode_length", "must be at least 1".into()));
        }
        problems
    }
}

/// Where the settings are written (`[cache.page_type_eviction]`, formerly `[cache.fsp]`).
pub const SETTINGS: Settings =
    Settings::of::<PageTypeEvictionSettings>("cache.page_type_eviction").formerly("cache.fsp");

/// The run's settings, for a policy's constructor.
pub fn settings(ctx: &BuildCtx) -> Result<PageTypeEvictionSettings> {
    SETTINGS.decode(&ctx.cfg.policy_tables)
}
