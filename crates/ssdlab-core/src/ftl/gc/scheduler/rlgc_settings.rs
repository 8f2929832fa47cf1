//! Layer: ftl. The RLGC family's settings, `[gc.rlgc]` (Kang, Shin, Yoo, ACM TECS 2017): read
//! by every scheduler of the framework (`framework.rs`: `rlgc`, `rlgc_aggressive`, `rlgc_qtc`,
//! `predictor`), so they live beside it, not in one of them. Every number and its source are
//! in `rlgc.rs`'s header (the agent) and `framework.rs`'s (triggering, rewards).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::error::{ConfigProblem, Error};
use crate::ftl::gc::scheduler::partial::{Checks, IntensiveConfig, DEFAULT_INTENSIVE_COPIES};
use crate::registry::{PolicySettings, PolicyTables, Settings};
use crate::rl::{
    ActionSelection, EpsilonSchedule, Exploit, Explore, LearningConfig, PercentileConfig, StepReward, TdParams,
};

/// What Algorithm 1's "interval == 0" (lines 3-5: no decision for "consecutive requests
/// wherein the inter-request interval is zero") means.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ZeroInterval {
    /// The request arrived at the same time as the previous one (the literal reading).
    SameArrival,
    /// The request arrived before every earlier request had completed: the device had no idle
    /// time since the previous one (ours, the default: docs/policies/gc.md has the run).
    #[default]
    NoIdleGap,
}

/// Which response rewards an RLGC decision (Alg. 1 lines 8-9: "we call the reward function
/// with the response time of the current request ... we update the q-table entry of the previous
/// request").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RewardRequest {
    /// The response of the next request that also got a decision: with `no_idle_gap` that is a
    /// request that found the drive idle, almost always fast, so the reward carries little.
    #[default]
    NextDecision,
    /// The response of the request that arrived right after the decided one, decided or not: the
    /// request the step's copies can delay (ours, issue #30). The update still bootstraps from
    /// the next decision.
    NextRequest,
}

/// How the RL agent exploits (RLGC Eq. 2 and footnote 2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RlgcPolicyKind {
    /// The action of the largest Q value (Eq. 2).
    #[default]
    Deterministic,
    /// An action drawn with probability proportional to its (shifted) Q value (footnote 2;
    /// the paper's experiments used it).
    Stochastic,
}

/// `[gc.rlgc]`: RLGC (Kang, Shin, Yoo, ACM TECS 2017). Also the learning settings of
/// `rlgc_qtc`. T_GC is `gc.trigger_free_blocks` (GC decisions while free blocks <= T_GC).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct RlgcSettings {
    /// Largest action: actions are 0..=max_copies page copies (the talk slides: "0 ~ 2 page
    /// copies"; Sec. 5.3 finds a limit of 2 best).
    pub max_copies: u32,
    /// Current inter-request interval bin edges (Table 3: 17 bins from "<100" to ">100000" us).
    pub current_interval_edges_ns: Vec<u64>,
    /// Previous inter-request interval split (Table 3: 100 us).
    pub previous_interval_edge_ns: u64,
    /// Copies per step in intensive GC (Sec. 5.2: "5 or 7", by pages per block: 7 by default,
    /// 5 / 7 on the 384- / 768-page kang-* presets).
    pub intensive_copies: u32,
    /// Enter intensive GC when host-usable free blocks are at most this (Sec. 5.2: 1).
    pub intensive_enter_free_blocks: u32,
    /// Leave intensive GC when host-usable free blocks exceed this (T_IGC, Table 4: 3).
    pub intensive_stop_free_blocks: u32,
    /// T_GC^A of the aggressive variant (Table 4: 100).
    pub aggressive_trigger_free_blocks: u32,
    /// Action cap while T_GC < free blocks <= T_GC^A (Sec. 5.3: 2).
    pub aggressive_max_copies: u32,
    /// Victims chosen while T_GC < free blocks <= T_GC^A need this invalid fraction (0.6).
    pub aggressive_min_invalid_fraction: f64,
    /// Learning rate (step size) of the Q update, in (0, 1] (footnote 3: 0.3).
    pub alpha: f64,
    /// Discount factor of future rewards, in [0, 1] (footnote 3: 0.8).
    pub gamma: f64,
    /// Exploration probability for the first `epsilon_switch_after_decisions` decisions
    /// (Sec. 5.2: 0.8).
    pub epsilon_initial: f64,
    /// Exploration probability after that (Sec. 5.2: 0.01).
    pub epsilon_after: f64,
    /// Decisions made with `epsilon_initial` before switching to `epsilon_after` (Sec. 5.2:
    /// 1000). `rlgc_qtc` counts only decisions in a known state (unseen ones cannot explore).
    pub epsilon_switch_after_decisions: u64,
    /// How the agent exploits: the best action, or a draw weighted by Q value.
    pub policy: RlgcPolicyKind,
    /// Which requests count as a zero interval and get no decision (Alg. 1 lines 3-5).
    pub zero_interval: ZeroInterval,
    /// Which response rewards a decision (Alg. 1 lines 8-9).
    pub reward_request: RewardRequest,
    /// Added to every action's weight in the stochastic policy (w = Q + shift + floor, the
    /// shift making the smallest Q zero), so a zero-valued action can still be drawn; > 0 (ours,
    /// footnote 2 has none).
    pub stochastic_floor: f64,
    /// Reward thresholds: percentiles of response time, strictly ascending, in (0, 100]
    /// (Sec. 5.2: 70, 90, 99).
    pub reward_percentiles: Vec<f64>,
    /// The reward of each band the percentiles delimit, fastest band first: one more value
    /// than `reward_percentiles` (Fig. 6, range -0.5..1).
    pub rewards: Vec<f64>,
    /// The percentiles are taken over the last this many responses of the same operation type.
    pub reward_window: usize,
    /// Responses between two recomputations of the percentile thresholds.
    pub reward_refresh_every: usize,
    /// Decisions between two points of the reported reward series.
    pub reward_sample_every: u64,
    /// The random-action control of `rlgc`, `rlgc_aggressive` and `rlgc_qtc`: the same
    /// triggers, states, cap and intensive GC, with the copies drawn uniformly from the action
    /// set. Refused for a scheduler that does not learn.
    pub random_control: bool,
}

/// Table 3's current-interval edges as we complete them: 100 us, then 15 edges spaced
/// geometrically from 500 us to 100 ms (whole microseconds), 17 bins in all.
pub const RLGC_CURRENT_INTERVAL_EDGES_US: [u64; 16] =
    [100, 500, 730, 1_066, 1_556, 2_272, 3_317, 4_843, 7_071, 10_324, 15_073, 22_007, 32_131, 46_912, 68_492, 100_000];

impl RlgcSettings {
    pub fn intensive(&self) -> IntensiveConfig {
        IntensiveConfig {
            copies: self.intensive_copies,
            enter_free_blocks: self.intensive_enter_free_blocks,
            stop_free_blocks: self.intensive_stop_free_blocks,
        }
    }
}

impl Default for RlgcSettings {
    fn default() -> Self {
        RlgcSettings {
            max_copies: 2,
            current_interval_edges_ns: RLGC_CURRENT_INTERVAL_EDGES_US.iter().map(|us| us * 1000).collect(),
            previous_interval_edge_ns: 100_000,
            intensive_copies: DEFAULT_INTENSIVE_COPIES,
            intensive_enter_free_blocks: 1,
            intensive_stop_free_blocks: 3,
            aggressive_trigger_free_blocks: 100,
            aggressive_max_copies: 2,
            aggressive_min_invalid_fraction: 0.6,
            alpha: 0.3,
            gamma: 0.8,
            epsilon_initial: 0.8,
            epsilon_after: 0.01,
            epsilon_switch_after_decisions: 1000,
            policy: RlgcPolicyKind::default(),
            zero_interval: ZeroInterval::default(),
            reward_request: RewardRequest::default(),
            stochastic_floor: 0.01,
            reward_percentiles: vec![70.0, 90.0, 99.0],
            rewards: vec![1.0, 0.5, 0.0, -0.5],
            reward_window: 10_000,
            reward_refresh_every: 1000,
            reward_sample_every: 1000,
            random_control: false,
        }
    }
}

impl PolicySettings for RlgcSettings {
    fn problems_at(&self, table: &str) -> Vec<ConfigProblem> {
        let mut c = Checks::new(table);
        c.copies("max_copies", Some(self.max_copies));
        c.intensive(&self.intensive());
        c.check(!self.current_interval_edges_ns.is_empty(), "current_interval_edges_ns", || {
            "needs at least one edge".into()
        });
        c.check(self.current_interval_edges_ns.windows(2).all(|w| w[0] < w[1]), "current_interval_edges_ns", || {
            "must be strictly ascending".into()
        });
        c.copies("aggressive_max_copies", Some(self.aggressive_max_copies));
        let fraction = self.aggressive_min_invalid_fraction;
        c.check((0.0..=1.0).contains(&fraction), "aggressive_min_invalid_fraction", || {
            format!("must be in [0, 1], got {fraction}")
        });
        c.absorb(TdParams { alpha: self.alpha, gamma: self.gamma }.validate(table));
        for (key, v) in [("epsilon_initial", self.epsilon_initial), ("epsilon_after", self.epsilon_after)] {
            c.check((0.0..=1.0).contains(&v), key, || format!("must be a probability in [0, 1], got {v}"));
        }
        let floor = self.stochastic_floor;
        c.check(floor > 0.0 && floor.is_finite(), "stochastic_floor", || {
            format!("must be a positive finite number, got {floor}")
        });
        let percentiles = PercentileConfig {
            percentiles: self.reward_percentiles.clone(),
            window: self.reward_window,
            refresh_every: self.reward_refresh_every,
        };
        // The `rl` validators' keys in our names: `reward.window` is our `reward_window`,
        // `reward` (of `StepReward::new`) our `rewards`.
        let (reward, rewards) = (format!("{table}.reward"), format!("{table}.rewards"));
        c.absorb(
            percentiles.validate(&reward).map_err(|e| rename_key(e, &format!("{reward}."), &format!("{reward}_"))),
        );
        c.absorb(
            StepReward::new(self.rewards.clone())
                .and_then(|s| s.validate(&rewards, Some(self.reward_percentiles.len() + 1)))
                .map_err(|e| rename_key(e, "reward", &rewards)),
        );
        c.check(self.reward_sample_every >= 1, "reward_sample_every", || "must be at least 1".into());
        c.problems
    }
}

/// Where the settings are written (`[gc.rlgc]`); `rlgc_qtc` and `predictor` read them too.
pub const SETTINGS: Settings = Settings::of::<RlgcSettings>("gc.rlgc");

/// T_GC^A (`aggressive_trigger_free_blocks`) of the run's `[gc.rlgc]`: what the aggressive
/// triggering of any scheduler uses (`SchedulerCaps::aggressive`).
pub fn aggressive_trigger(tables: &PolicyTables) -> Option<u32> {
    Some(SETTINGS.values::<RlgcSettings>(tables).aggressive_trigger_free_blocks)
}

/// Give the `rl` validators' keys our names: `PercentileConfig::validate("gc.rlgc.reward")`
/// says `gc.rlgc.reward.window` for our `gc.rlgc.reward_window`, `StepReward::new` says `reward`
/// for `gc.rlgc.rewards`.
fn rename_key(e: Error, from: &str, to: &str) -> Error {
    match e {
        Error::Config { path, problems } => Error::Config {
            path,
            problems: problems
                .into_iter()
                .map(|mut c| {
                    if c.key.starts_with(from) && !c.key.starts_with(to) {
                        c.key = c.key.replacen(from, to, 1);
                    }
                    c
                })
                .collect(),
        },
        e => e,
    }
}

/// The learning settings of `[gc.rlgc]` as an `rl::LearningConfig`.
pub fn learning_config(r: &RlgcSettings) -> LearningConfig {
    LearningConfig {
        epsilon: epsilon_schedule(r),
        selection: selection(r),
        alpha: r.alpha,
        gamma: r.gamma,
        reward_sample_every: r.reward_sample_every.max(1),
        random_control: r.random_control,
    }
}

pub fn epsilon_schedule(r: &RlgcSettings) -> EpsilonSchedule {
    EpsilonSchedule::Step {
        initial: r.epsilon_initial,
        after: r.epsilon_after,
        switch_after_decisions: r.epsilon_switch_after_decisions,
    }
}

pub fn selection(r: &RlgcSettings) -> ActionSelection {
    let exploit = match r.policy {
        RlgcPolicyKind::Deterministic => Exploit::Greedy,
        RlgcPolicyKind::Stochastic => Exploit::Proportional { floor: r.stochastic_floor },
    };
    ActionSelection { exploit, explore: Explore::NonGreedy }
}
