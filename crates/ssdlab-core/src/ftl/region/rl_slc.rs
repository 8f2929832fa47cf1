//! Layer: ftl. The RL-based SLC cache of Yoo & Shin, "Reinforcement Learning-Based SLC Cache
//! Technique for Enhancing SSD Write Performance", HotStorage 2020 (policy id `rl`).
//!
//! Every `slc.rl.step_slc_blocks` SLC blocks' worth of host writes (Sec. 3.1: 8) the agent
//! takes one step of Algorithm 1: it observes the state S_t (Table 3: SLC cache size 9 bins x
//! space utilisation 4 x previous action 9 x demand for SLC writes 2 x update write frequency
//! in SLC 2 = 1,296 states), chooses A_t epsilon-greedily (Eq. 2, epsilon 0.07), performs it
//! (9 actions: the SLC size `slc.rl.size_step_blocks` down, kept or up, times the threshold
//! theta one level down, kept or up), computes the reward R_t of the step just ended with Algorithm 2, and
//! updates Q(S_{t-1}, A_{t-1}) with Q-learning (Eq. 1). Host writes of at most theta go to SLC;
//! below `slc.trigger_free_blocks` free SLC blocks (Sec. 4: 5) the SLC victims with the fewest
//! valid pages migrate to the native region, as in `static`.
//!
//! Algorithm 2: reclaim cost = T_SLC-to-QLC + T_QLC-to-QLC, host write cost = T_SLCwrite +
//! T_QLCwrite (array time of the step's operations, `RegionStats`), total = (1 - U) host + U
//! reclaim; the reward is `reward_negative` when the total is above the average total of the
//! steps before, else `reward_positive`; then the average takes the step in.
//!
//! An outside agent (`crate::decision`, kind `slc.policy`) can take the step's action: it
//! observes the step's features raw (`FEATURES`), gets Algorithm 2's reward of the step just
//! ended, and its action replaces the agent's (which still proposes one, and learns on the
//! action taken). The step is taken when the write that crosses the step boundary arrives,
//! before anything else is done for it (GC included), in both modes.
//!
//! Pre-trained agents (Sec. 4.2): `slc.rl.save_qtable` writes the table at the end of the run
//! as an `ssdlab-qtable` file (rl/qtable.rs) whose metadata names this policy, the state and
//! action layouts (`STATE_LAYOUT`, `ACTION_LAYOUT`, `LAYOUT_VERSION`) and the threshold
//! levels; `slc.rl.load_qtable` starts from such a file and refuses one of another shape,
//! layout or threshold levels.
//!
//! Our readings where the paper is silent (each a config key):
//! * SLC size: from the smallest region that can migrate (`SlcSpace::min_blocks`) to
//!   `slc.max_fraction` of the device (56 %: the largest size Table 2 uses), in steps of
//!   `slc.rl.size_step_blocks` (32); the state's size bin is the region's actual size in 9
//!   equal bins of `[0, max]` (a resize can fall short when the native region cannot spare the
//!   blocks).
//! * Threshold levels: 4 KiB to 512 KiB, doubling (Fig. 6 reaches 512 KB).
//! * Utilisation bins: quarters. Demand for SLC writes is high when at least half of the
//!   step's host pages went to SLC; update frequency in SLC is high when the step's writes
//!   overwrote at least half as many SLC pages as they wrote there.
//! * The average of Algorithm 2 ("if total write cost > average total cost", line 4; "Update
//!   average total write cost", line 9) is the mean over every earlier step; the first step
//!   has none and earns no reward (nor is there a previous action to credit).
//!   `reward_baseline = "exponential"` (ours) compares with an exponential moving average
//!   instead, so a step is judged against recent steps rather than the whole run;
//!   `"per_state"` (ours) with the mean of the earlier steps taken from the same state, so an
//!   action is judged against the others from where it stood (`SlcRewardBaseline`).
//! * The SLC size the agent chooses is held in SLC mode (`slc.region = "reserved"`); with
//!   `"cap"` it is a maximum the region grows to as its data needs (`SlcSpace::work`), and the
//!   state's size bin is the region's blocks now either way.
//! * Alpha and gamma are not given: RLGC's 0.3 and 0.8 (the same authors' earlier agent).
//! * The region starts at its smallest (the warm-up fill writes to the native region only) and
//!   the first write resizes it to the starting size (`slc.blocks`; 0: the middle of the
//!   range).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use rand_pcg::Pcg64Mcg;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::config::ValidatedConfig;
use crate::decision::{ActionError, Decision, DecisionKind, DecisionPoint, DecisionSlot, DecisionSpace, Feature};
use crate::error::{ConfigProblem, Error, Result};
use crate::ftl::blocks::RegionId;
use crate::ftl::region::series::SlcSeries;
use crate::ftl::region::{
    slc_region, RegionAction, RegionLayout, RegionPolicy, RegionStats, RegionView, SlcSpace, ThresholdRouting,
    WriteInfo, NATIVE, SLC,
};
use crate::registry::{PolicySettings, Settings};
use crate::rl::{ActionSelection, EpsilonSchedule, LearningConfig, LearningReport, MixedRadix, QTable, TabularAgent};
use crate::units::ByteSize;

/// `[slc.rl]`: the RL-SLC agent (Sec. 3). Its Q-table has the paper's shape, 1,296 states x 9
/// actions; the ranges below say what the bins and actions mean.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct RlSlcSettings {
    /// One decision per this many SLC blocks' worth of host writes (Sec. 3.1: 8).
    pub step_slc_blocks: u32,
    /// SLC blocks an action adds to or takes from the region (ours: 32, 128 MiB of SLC on
    /// the paper's drive; the paper does not say).
    pub size_step_blocks: u32,
    /// The hot/cold threshold levels an action moves between, strictly ascending (ours: 4 KiB
    /// to 512 KiB, doubling; Fig. 6 reaches 512 KB).
    pub threshold_levels_bytes: Vec<ByteSize>,
    /// Utilisation bounds of the state's 4 utilisation bins, strictly ascending (ours).
    pub utilization_edges: Vec<f64>,
    /// The state's SLC write demand is high when at least this share of a step's host pages
    /// went to the SLC region (ours).
    pub demand_high_fraction: f64,
    /// The state's update frequency in SLC is high when a step's host writes overwrote at
    /// least this many SLC pages per page they wrote to the SLC region (ours).
    pub update_high_fraction: f64,
    /// Step size of Eq. 1, in (0, 1] (not given; RLGC's 0.3).
    pub alpha: f64,
    /// Discount factor of Eq. 1, in [0, 1] (not given; RLGC's 0.8).
    pub gamma: f64,
    /// Exploration probability (Sec. 2.3: 0.07).
    pub epsilon: f64,
    /// Algorithm 2's rewards: when the step's weighted write cost is at most its running
    /// average ...
    pub reward_positive: f64,
    /// ... and when it is above.
    pub reward_negative: f64,
    /// What a step's cost is compared with (Algorithm 2: the average of the earlier steps; an
    /// exponential mean unless set, `all_steps` the paper's literal reading).
    pub reward_baseline: SlcRewardBaseline,
    /// `reward_baseline = "exponential"`: weight of the newest step, in (0, 1] (ours).
    pub reward_baseline_smoothing: f64,
    /// Learn during the run (false: act on the loaded table without updating it).
    pub learn: bool,
    /// Start from this pre-trained Q-table (a file `save_qtable` wrote; Sec. 4.2), not zeros.
    pub load_qtable: Option<String>,
    /// Write the Q-table here at the end of the run.
    pub save_qtable: Option<String>,
    /// The random-action control: each step's size and threshold change drawn uniformly from
    /// the 9 actions, with the same steps, states and rewards. Refused for another `slc.policy`.
    pub random_control: bool,
}

/// The cost a step of the RL SLC cache is rewarded against: Algorithm 2 line 4 compares the
/// step's total write cost with "average total cost", and line 9 "Update average total write
/// cost" without saying over what it averages. Three readings (issue #46).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SlcRewardBaseline {
    /// The mean of every earlier step, the paper's literal reading.
    AllSteps,
    /// An exponential moving average of the earlier steps (`reward_baseline_smoothing`), so the
    /// baseline follows the workload's phases: line 9's "Update average total write cost" read
    /// as an exponential mean (ours; the default: with `slc.region = "shared"` it met both of
    /// the paper's statements with the highest per-seed minimum on YCSB-A, issue #46).
    #[default]
    Exponential,
    /// The mean of the earlier steps whose action was taken in the same state as the rewarded
    /// one (S_{t-1}; the mean of every earlier step while that state has none): an action is
    /// judged against what the agent's other choices cost from where it stood, so a run whose
    /// every step is costly still tells its actions apart (ours).
    PerState,
}

impl Default for RlSlcSettings {
    fn default() -> Self {
        RlSlcSettings {
            step_slc_blocks: 8,
            size_step_blocks: 32,
            threshold_levels_bytes: (12..20).map(|s| ByteSize(1 << s)).collect(),
            utilization_edges: vec![0.25, 0.5, 0.75],
            demand_high_fraction: 0.5,
            update_high_fraction: 0.5,
            alpha: 0.3,
            gamma: 0.8,
            epsilon: 0.07,
            reward_positive: 1.0,
            reward_negative: -1.0,
            reward_baseline: SlcRewardBaseline::default(),
            reward_baseline_smoothing: 0.1,
            learn: true,
            load_qtable: None,
            save_qtable: None,
            random_control: false,
        }
    }
}

impl PolicySettings for RlSlcSettings {}

/// Where the settings are written (`[slc.rl]`); checked where the policy is built.
pub const SETTINGS: Settings = Settings::of::<RlSlcSettings>("slc.rl");

/// Table 3's bins.
pub const SIZE_BINS: usize = 9;
pub const UTILIZATION_BINS: usize = 4;
pub const ACTIONS: usize = 9;
/// The action that keeps both knobs (the "previous action" before the first step).
pub const KEEP: usize = 4;
/// What the saved table's rows and columns mean; a loaded table must say the same.
pub const STATE_LAYOUT: &str = "slc_size(9) x utilization(4) x previous_action(9) x slc_write_demand(2) x \
                                slc_update_frequency(2), first most significant";
pub const ACTION_LAYOUT: &str = "size_change(-1,0,+1 step) x threshold_change(-1,0,+1 level), size most significant";
pub const LAYOUT_VERSION: &str = "1";
const POLICY_TAG: &str = "slc.rl";

/// What one step observed, before binning.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StepObservation {
    pub slc_blocks: u32,
    pub utilization: f64,
    pub previous_action: usize,
    /// Share of the step's host pages written to SLC.
    pub slc_write_demand: f64,
    /// SLC pages the step's host writes overwrote, per host page written to SLC.
    pub slc_update_frequency: f64,
}

/// The array time of one step's writes (Algorithm 2's inputs).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct StepCosts {
    pub slc_write_ns: u64,
    pub qlc_write_ns: u64,
    pub slc_to_qlc_ns: u64,
    pub qlc_to_qlc_ns: u64,
}

impl StepCosts {
    /// Algorithm 2 lines 1-3.
    pub fn total(&self, utilization: f64) -> f64 {
        let reclaim = (self.slc_to_qlc_ns + self.qlc_to_qlc_ns) as f64;
        let host = (self.slc_write_ns + self.qlc_write_ns) as f64;
        (1.0 - utilization) * host + utilization * reclaim
    }
}

/// Algorithm 2 lines 4-9: the reward against the running average, which then takes the step.
/// With a `smoothing` the average is exponential (`slc.rl.reward_baseline = "exponential"`);
/// `per_state` keeps one mean per state as well (`"per_state"`).
#[derive(Debug, Clone, PartialEq)]
pub struct CostAverage {
    sum: f64,
    steps: u64,
    positive: f64,
    negative: f64,
    smoothing: Option<f64>,
    ema: f64,
    /// Per state: the summed cost and the steps of the actions taken there (empty: not kept).
    by_state: Vec<(f64, u64)>,
}

impl CostAverage {
    pub fn new(positive: f64, negative: f64) -> Self {
        CostAverage { sum: 0.0, steps: 0, positive, negative, smoothing: None, ema: 0.0, by_state: Vec::new() }
    }
    /// An exponential moving average with weight `smoothing` for the newest step.
    pub fn exponential(positive: f64, negative: f64, smoothing: f64) -> Self {
        CostAverage { smoothing: Some(smoothing), ..Self::new(positive, negative) }
    }
    /// A mean per state of `n_states`, the mean of every step where a state has none yet.
    pub fn per_state(positive: f64, negative: f64, n_states: usize) -> Self {
        CostAverage { by_state: vec![(0.0, 0); n_states], ..Self::new(positive, negative) }
    }
    /// The baseline the next step, whose action was taken in `state`, is compared with.
    fn baseline(&self, state: Option<usize>) -> Option<f64> {
        if let Some(&(sum, n)) = state.and_then(|s| self.by_state.get(s)) {
            if n > 0 {
                return Some(sum / n as f64);
            }
        }
        (self.steps > 0).then(|| if self.smoothing.is_some() { self.ema } else { self.sum / self.steps as f64 })
    }
    /// The reward of a step whose total cost is `total` (None for the first step), the action
    /// rewarded having been taken in `state` (None: no action yet), after which the averages
    /// include it.
    pub fn reward(&mut self, total: f64, state: Option<usize>) -> Option<f64> {
        let reward = self.baseline(state).map(|b| if total > b { self.negative } else { self.positive });
        self.ema = match (self.smoothing, self.steps) {
            (Some(_), 0) => total,
            (Some(w), _) => w * total + (1.0 - w) * self.ema,
            (None, _) => 0.0,
        };
        if let Some(entry) = state.and_then(|s| self.by_state.get_mut(s)) {
            entry.0 += total;
            entry.1 += 1;
        }
        self.sum += total;
        self.steps += 1;
        reward
    }
    /// The mean cost of every step so far.
    pub fn mean(&self) -> Option<f64> {
        (self.steps > 0).then(|| self.sum / self.steps as f64)
    }
}

/// The binning of Table 3's features.
#[derive(Debug, Clone)]
pub struct StateEncoder {
    radix: MixedRadix,
    max_blocks: u32,
    utilization_edges: Vec<f64>,
    demand_high: f64,
    update_high: f64,
}

impl StateEncoder {
    pub fn new(max_blocks: u32, utilization_edges: Vec<f64>, demand_high: f64, update_high: f64) -> Result<Self> {
        if utilization_edges.len() != UTILIZATION_BINS - 1
            || !utilization_edges.windows(2).all(|w| w[0] < w[1])
            || !utilization_edges.iter().all(|&e| e > 0.0 && e < 1.0)
        {
            return Err(Error::config(
                "slc.rl.utilization_edges",
                format!("needs {} strictly ascending values in (0, 1)", UTILIZATION_BINS - 1),
            ));
        }
        Ok(StateEncoder {
            radix: MixedRadix::new(vec![SIZE_BINS, UTILIZATION_BINS, ACTIONS, 2, 2])?,
            max_blocks: max_blocks.max(1),
            utilization_edges,
            demand_high,
            update_high,
        })
    }

    pub fn n_states(&self) -> usize {
        self.radix.n_states() as usize
    }

    /// The bins of `o`: size, utilisation, previous action, demand, update frequency.
    pub fn bins(&self, o: &StepObservation) -> [usize; 5] {
        let size = ((o.slc_blocks as u64 * SIZE_BINS as u64) / (self.max_blocks as u64 + 1)) as usize;
        let util = self.utilization_edges.iter().take_while(|&&e| o.utilization >= e).count();
        [
            size.min(SIZE_BINS - 1),
            util,
            o.previous_action.min(ACTIONS - 1),
            usize::from(o.slc_write_demand >= self.demand_high),
            usize::from(o.slc_update_frequency >= self.update_high),
        ]
    }

    pub fn state(&self, o: &StepObservation) -> usize {
        self.radix.encode(&self.bins(o))
    }
}

/// An action's changes: (size levels, threshold levels), each -1, 0 or +1.
pub fn decode_action(action: usize) -> (i32, i32) {
    ((action / 3) as i32 - 1, (action % 3) as i32 - 1)
}

#[derive(Clone)]
pub struct RlSlc {
    space: SlcSpace,
    min_blocks: u32,
    max_blocks: u32,
    size_step_blocks: u32,
    /// The size the agent wants.
    wanted_blocks: u32,
    threshold_levels: Vec<u64>,
    threshold_level: usize,
    step_pages: u64,
    next_step_pages: u64,
    encoder: StateEncoder,
    agent: TabularAgent,
    rng: Pcg64Mcg,
    learn: bool,
    /// (S_{t-1}, A_{t-1}).
    previous: Option<(usize, usize)>,
    previous_action: usize,
    /// The regions' figures at the last step.
    at_last_step: [RegionStats; 2],
    average: CostAverage,
    save_to: Option<PathBuf>,
    loaded_from: Option<String>,
    routing: ThresholdRouting,
    page_bytes: u64,
    /// Per step: host bytes written by then, reward (NaN: none), total cost.
    step_bytes: Vec<u64>,
    step_rewards: Vec<f64>,
    step_costs: Vec<f64>,
    series: SlcSeries,
    /// An outside agent's decisions (`DecisionPoint`): None while the agent decides.
    outside: Option<Outside>,
}

/// A step waiting for an outside agent's action, and the decision it was shown.
type Outside = DecisionSlot<Step>;

/// What a step observed before its action: the state, Algorithm 2's reward of the step just
/// ended (None at the first), its total cost and the host bytes written by then.
#[derive(Clone, Copy)]
struct Step {
    state: usize,
    reward: Option<f64>,
    total: f64,
    host_bytes: u64,
    proposed: usize,
}

/// The update frequency an outside agent sees is capped here (it can pass 1 when writes routed to
/// the native region overwrite SLC data; the state's bin only asks whether it is >= 0.5).
const MAX_UPDATE_FREQUENCY: f64 = 8.0;

/// What an outside agent observes at a step: Table 3's features, raw.
const FEATURES: [Feature; 5] = [
    Feature { name: "slc_blocks", low: 0.0, high: f64::INFINITY, doc: "blocks in the SLC region now" },
    Feature {
        name: "utilization",
        low: 0.0,
        high: 1.0,
        doc: "space utilisation: valid pages over the logical space (Sec. 3.2)",
    },
    Feature { name: "previous_action", low: 0.0, high: 8.0, doc: "the previous step's action (4: keep both)" },
    Feature {
        name: "slc_write_demand",
        low: 0.0,
        high: 1.0,
        doc: "share of the step's host pages written to the SLC region",
    },
    Feature {
        name: "slc_update_frequency",
        low: 0.0,
        high: MAX_UPDATE_FREQUENCY,
        doc: "SLC pages the step's host writes overwrote, per host page written to SLC (capped at 8)",
    },
];

/// Every problem of the settings, each under its own key (all of them, not the first), the
/// directory of `save_qtable` included: it must exist before the run, which writes the table
/// only at its end.
fn settings_problems(r: &RlSlcSettings) -> Vec<ConfigProblem> {
    let mut problems = Vec::new();
    let mut check = |ok: bool, key: &str, reason: String| {
        if !ok {
            problems.push(ConfigProblem { key: key.into(), reason });
        }
    };
    check(r.step_slc_blocks > 0, "slc.rl.step_slc_blocks", "must be at least 1".into());
    check(r.size_step_blocks > 0, "slc.rl.size_step_blocks", "must be at least 1".into());
    let levels = &r.threshold_levels_bytes;
    check(
        !levels.is_empty() && levels.windows(2).all(|w| w[0].0 < w[1].0),
        "slc.rl.threshold_levels_bytes",
        "needs strictly ascending sizes".into(),
    );
    for (key, v) in [("slc.rl.reward_positive", r.reward_positive), ("slc.rl.reward_negative", r.reward_negative)] {
        check(v.is_finite(), key, format!("must be finite, got {v}"));
    }
    let w = r.reward_baseline_smoothing;
    check(w > 0.0 && w <= 1.0, "slc.rl.reward_baseline_smoothing", format!("must be in (0, 1], got {w}"));
    check((0.0..=1.0).contains(&r.epsilon), "slc.rl.epsilon", format!("must be in [0, 1], got {}", r.epsilon));
    check(r.alpha > 0.0 && r.alpha <= 1.0, "slc.rl.alpha", format!("must be in (0, 1], got {}", r.alpha));
    check((0.0..=1.0).contains(&r.gamma), "slc.rl.gamma", format!("must be in [0, 1], got {}", r.gamma));
    if let Some(path) = &r.save_qtable {
        if let Err(reason) = crate::output::check_output_path(Path::new(path)) {
            check(false, "slc.rl.save_qtable", reason);
        }
    }
    problems
}

impl RlSlc {
    pub fn new(cfg: &ValidatedConfig) -> Result<Self> {
        let r: RlSlcSettings = SETTINGS.decode(&cfg.policy_tables)?;
        let r = &r;
        let problems = settings_problems(r);
        if !problems.is_empty() {
            return Err(Error::Config { path: None, problems });
        }
        let levels: Vec<u64> = r.threshold_levels_bytes.iter().map(|b| b.0).collect();
        let space = SlcSpace::new(cfg);
        let (min_blocks, max_blocks) = (space.min_blocks, space.max_blocks(cfg));
        let encoder =
            StateEncoder::new(max_blocks, r.utilization_edges.clone(), r.demand_high_fraction, r.update_high_fraction)?;
        let learning = LearningConfig {
            epsilon: EpsilonSchedule::Constant { epsilon: r.epsilon },
            selection: ActionSelection::slc_cache(),
            alpha: r.alpha,
            gamma: r.gamma,
            reward_sample_every: 100,
            random_control: r.random_control,
        };
        learning.validate("slc.rl")?;
        let q = match &r.load_qtable {
            Some(path) => load_table(path, &levels, encoder.n_states())?,
            None => QTable::new(encoder.n_states(), ACTIONS)?,
        };
        let agent = TabularAgent::with_table(q, learning)?;
        let n_states = encoder.n_states();
        let wanted_blocks = if cfg.slc.blocks == 0 {
            min_blocks + (max_blocks - min_blocks) / 2
        } else {
            cfg.slc.blocks.clamp(min_blocks, max_blocks)
        };
        let theta = cfg.slc.threshold_bytes.0;
        let threshold_level = (0..levels.len()).min_by_key(|&i| levels[i].abs_diff(theta)).unwrap_or(0);
        let slc_block_pages = cfg.geometry().pages_in_mode(crate::nand::BlockMode::Slc) as u64;
        let step_pages = r.step_slc_blocks as u64 * slc_block_pages;
        Ok(RlSlc {
            space,
            min_blocks,
            max_blocks,
            size_step_blocks: r.size_step_blocks,
            wanted_blocks,
            threshold_levels: levels,
            threshold_level,
            step_pages,
            next_step_pages: step_pages,
            encoder,
            agent,
            rng: crate::rng::rng_for(cfg.warmup_seed(), crate::rng::RngStream::Regions),
            learn: r.learn,
            previous: None,
            previous_action: KEEP,
            at_last_step: [RegionStats::default(); 2],
            average: match r.reward_baseline {
                SlcRewardBaseline::AllSteps => CostAverage::new(r.reward_positive, r.reward_negative),
                SlcRewardBaseline::Exponential => {
                    CostAverage::exponential(r.reward_positive, r.reward_negative, r.reward_baseline_smoothing)
                }
                SlcRewardBaseline::PerState => CostAverage::per_state(r.reward_positive, r.reward_negative, n_states),
            },
            save_to: r.save_qtable.as_ref().map(PathBuf::from),
            loaded_from: r.load_qtable.clone(),
            routing: ThresholdRouting::default(),
            page_bytes: cfg.device.page_bytes,
            step_bytes: Vec::new(),
            step_rewards: Vec::new(),
            step_costs: Vec::new(),
            series: SlcSeries::new(cfg.device.page_bytes, cfg.slc.sample_every_bytes.0),
            outside: None,
        })
    }

    pub fn threshold_bytes(&self) -> u64 {
        self.threshold_levels[self.threshold_level]
    }

    /// One step of Algorithm 1 at the end of a step's host writes: observe, choose (or leave
    /// the step waiting for an outside agent), act, learn.
    fn step(&mut self, view: &RegionView) {
        let (state, observation, total) = self.observe(view);
        // Algorithm 1: A_t = GetAction(S_t); perform A_t; R_t = GetReward(); update Q(S_t-1, A_t-1).
        // The reward does not depend on A_t: it is computed with the observation.
        let proposed = self.agent.act(state, &mut self.rng);
        let reward = self.average.reward(total, self.previous.map(|(s, _)| s));
        let step = Step { state, reward, total, host_bytes: view.host_pages() * self.page_bytes, proposed };
        if let Some(o) = &mut self.outside {
            let raw = [
                observation.slc_blocks as f64,
                observation.utilization,
                observation.previous_action as f64,
                observation.slc_write_demand,
                observation.slc_update_frequency.min(MAX_UPDATE_FREQUENCY),
            ];
            o.decision.observation.clear();
            o.decision.observation.extend(raw);
            o.decision.reward = reward.unwrap_or(0.0);
            o.decision.reward_parts.clear();
            o.decision.reward_parts.push(o.decision.reward);
            o.decision.builtin_action = proposed as u32;
            o.wait(step);
            return;
        }
        self.apply(step, proposed);
    }

    /// The step's state: the figures of the regions since the last step, binned.
    fn observe(&mut self, view: &RegionView) -> (usize, StepObservation, f64) {
        let now = [view.stats(NATIVE), view.stats(SLC)];
        let [n0, s0] = self.at_last_step;
        let [n1, s1] = now;
        self.at_last_step = now;
        let costs = StepCosts {
            slc_write_ns: s1.host_write_ns - s0.host_write_ns,
            qlc_write_ns: n1.host_write_ns - n0.host_write_ns,
            slc_to_qlc_ns: s1.migration_out_ns - s0.migration_out_ns,
            qlc_to_qlc_ns: n1.gc_ns - n0.gc_ns,
        };
        let slc_pages = s1.host_pages - s0.host_pages;
        let all_pages = slc_pages + (n1.host_pages - n0.host_pages);
        let utilization = view.utilization();
        let observation = StepObservation {
            slc_blocks: view.blocks(SLC),
            utilization,
            previous_action: self.previous_action,
            slc_write_demand: if all_pages == 0 { 0.0 } else { slc_pages as f64 / all_pages as f64 },
            slc_update_frequency: if slc_pages == 0 {
                0.0
            } else {
                (s1.overwritten_pages - s0.overwritten_pages) as f64 / slc_pages as f64
            },
        };
        (self.encoder.state(&observation), observation, costs.total(utilization))
    }

    /// Perform `action` for `step` (the agent's proposal or an outside agent's), and learn.
    fn apply(&mut self, step: Step, action: usize) {
        if action != step.proposed {
            self.agent.retake(step.proposed, action);
        }
        let (size, theta) = decode_action(action);
        let change = size as i64 * self.size_step_blocks as i64;
        self.wanted_blocks =
            (self.wanted_blocks as i64 + change).clamp(self.min_blocks as i64, self.max_blocks as i64) as u32;
        self.threshold_level =
            (self.threshold_level as i32 + theta).clamp(0, self.threshold_levels.len() as i32 - 1) as usize;
        if let (Some(r), Some((s_prev, a_prev))) = (step.reward, self.previous) {
            if self.learn {
                self.agent.learn_q(s_prev, a_prev, r, step.state);
            } else {
                self.agent.observe_reward(r);
            }
        }
        self.previous = Some((step.state, action));
        self.previous_action = action;
        self.step_bytes.push(step.host_bytes);
        self.step_rewards.push(step.reward.unwrap_or(f64::NAN));
        self.step_costs.push(step.total);
    }
}

/// A pre-trained table from `path`, refused unless it has this agent's shape, layouts and
/// threshold levels.
fn load_table(path: &str, levels: &[u64], n_states: usize) -> Result<QTable> {
    let (q, meta) = QTable::load(std::path::Path::new(path))?;
    let refuse = |reason: String| Error::Config {
        path: Some(PathBuf::from(path)),
        problems: vec![ConfigProblem { key: "slc.rl.load_qtable".into(), reason }],
    };
    if q.n_states() != n_states || q.n_actions() != ACTIONS {
        return Err(refuse(format!(
            "the table has {} states x {} actions; the RL-SLC agent needs {n_states} x {ACTIONS} ({STATE_LAYOUT})",
            q.n_states(),
            q.n_actions()
        )));
    }
    let expect = metadata(levels);
    for key in ["policy", "state_layout", "action_layout", "layout_version", "threshold_levels_bytes"] {
        let (want, got) = (expect.get(key), meta.get(key));
        if want != got {
            return Err(refuse(format!(
                "metadata \"{key}\" is {}, this agent's is {}: the table was trained for other states or actions",
                got.map(|s| format!("\"{s}\"")).unwrap_or_else(|| "missing".into()),
                want.map(|s| format!("\"{s}\"")).unwrap_or_default()
            )));
        }
    }
    Ok(q)
}

/// The metadata a saved table carries (and a loaded one must match).
fn metadata(levels: &[u64]) -> BTreeMap<String, String> {
    let levels: Vec<String> = levels.iter().map(u64::to_string).collect();
    BTreeMap::from([
        ("policy".to_string(), POLICY_TAG.to_string()),
        ("state_layout".to_string(), STATE_LAYOUT.to_string()),
        ("action_layout".to_string(), ACTION_LAYOUT.to_string()),
        ("layout_version".to_string(), LAYOUT_VERSION.to_string()),
        ("threshold_levels_bytes".to_string(), levels.join(",")),
    ])
}

impl RegionPolicy for RlSlc {
    fn reseed(&mut self, rng: Pcg64Mcg) {
        self.rng = rng;
    }
    fn layout(&self) -> Vec<RegionLayout> {
        vec![slc_region(self.space.start_blocks(self.min_blocks))]
    }
    fn route(&mut self, write: &WriteInfo) -> RegionId {
        self.routing.route(write, self.threshold_bytes())
    }
    fn before_request(&mut self, view: &RegionView) {
        let pages = view.host_pages();
        // The boundary moves before the step: a step left waiting for an outside agent is not
        // taken again when the engine comes back to the same write.
        if pages >= self.next_step_pages {
            self.next_step_pages = (pages / self.step_pages + 1) * self.step_pages;
            self.step(view);
        }
    }
    fn before_write(&mut self, view: &RegionView) -> RegionAction {
        let pages = view.host_pages();
        self.series.offer(pages, view.blocks(SLC), self.threshold_bytes());
        self.space.work(view, self.wanted_blocks).unwrap_or(RegionAction::Nothing)
    }
    fn finish(&mut self) -> Result<()> {
        if let Some(path) = &self.save_to {
            let mut meta = metadata(&self.threshold_levels);
            meta.insert("steps".into(), self.agent.decisions().to_string());
            if let Some(from) = &self.loaded_from {
                meta.insert("trained_from".into(), from.clone());
            }
            self.agent.q_table().save(path, &meta)?;
        }
        Ok(())
    }
    fn report(&self) -> serde_json::Value {
        let stats = self.agent.stats();
        let rewarded: Vec<f64> = self.step_rewards.iter().copied().filter(|r| r.is_finite()).collect();
        json!({
            "slc_blocks_wanted": self.wanted_blocks,
            "slc_blocks_range": [self.min_blocks, self.max_blocks],
            "threshold_bytes": self.threshold_bytes(),
            "writes_to_slc": self.routing.writes_to_slc,
            "writes_to_native": self.routing.writes_to_native,
            "migrations_started": self.space.migrations_started,
            "resizes": self.space.resizes,
            "steps": self.agent.decisions(),
            "mean_reward": if rewarded.is_empty() { None } else { Some(rewarded.iter().sum::<f64>() / rewarded.len() as f64) },
            "mean_total_cost": self.average.mean(),
            "loaded_qtable": self.loaded_from,
            "learn": self.learn,
            "agent": {
                "explorations": stats.explorations,
                "updates": stats.updates,
                "action_histogram": stats.action_histogram,
                "states_visited": stats.utilisation.states_visited,
            },
            "rewards": {
                "host_write_bytes": self.step_bytes,
                "reward": self.step_rewards.iter().map(|r| r.is_finite().then_some(*r)).collect::<Vec<_>>(),
                "total_cost": self.step_costs,
            },
            "mean_slc_blocks": self.series.mean_slc_blocks(),
            "series": self.series.to_json(),
        })
    }
    fn decision_point(&mut self) -> Option<&mut dyn DecisionPoint> {
        Some(self)
    }
    fn learning(&self, id: &'static str) -> Option<LearningReport> {
        let a = &self.agent;
        let control = a.config().random_control;
        Some(LearningReport::new(
            id,
            control,
            a.decisions(),
            a.action_histogram().to_vec(),
            a.rewards(),
            a.diagnostics(),
        ))
    }
}

/// RL-SLC's step (Algorithm 1) for an outside agent: the step waits at the arrival of the write
/// that crosses the step boundary, before anything is done for it, and `act` performs the
/// action there, so an agent replaying the proposals reproduces the agent's run.
impl DecisionPoint for RlSlc {
    fn space(&self) -> DecisionSpace {
        let mut features = FEATURES.to_vec();
        features[0].high = self.max_blocks as f64;
        DecisionSpace {
            kind: DecisionKind::SlcPolicy,
            actions: ACTIONS as u32,
            features,
            reward_parts: vec![(
                "algorithm_2",
                "the step just ended: its weighted write cost ((1 - U) host + U reclaim array time) against the \
                 average of the steps before (slc.rl.reward_baseline: all of them, an exponential or a per-state \
                 mean), reward_positive (1) if not above it, else reward_negative (-1); 0 at the first step",
            )],
        }
    }

    fn attach(&mut self) {
        self.outside
            .get_or_insert_with(|| DecisionSlot::new(DecisionKind::SlcPolicy, vec![true; ACTIONS], KEEP as u32));
    }

    fn pending(&self) -> Option<&Decision> {
        self.outside.as_ref().and_then(DecisionSlot::pending)
    }

    fn act(&mut self, action: u32) -> std::result::Result<(), ActionError> {
        let step = self.outside.as_mut().ok_or(ActionError::NothingPending)?.take(action)?;
        self.apply(step, action as usize);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nine_actions_decode_to_size_and_threshold_changes() {
        let all: Vec<(i32, i32)> = (0..ACTIONS).map(decode_action).collect();
        assert_eq!(all, [(-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 0), (0, 1), (1, -1), (1, 0), (1, 1)]);
        assert_eq!(decode_action(KEEP), (0, 0));
    }

    #[test]
    fn table_3_state_space_and_binning() {
        let e = StateEncoder::new(899, vec![0.25, 0.5, 0.75], 0.5, 0.5).unwrap();
        assert_eq!(e.n_states(), 1296);
        let o = |blocks, u, demand, update| StepObservation {
            slc_blocks: blocks,
            utilization: u,
            previous_action: 7,
            slc_write_demand: demand,
            slc_update_frequency: update,
        };
        // 900 blocks of range: 100 per size bin.
        assert_eq!(e.bins(&o(0, 0.0, 0.0, 0.0)), [0, 0, 7, 0, 0]);
        assert_eq!(e.bins(&o(99, 0.2499, 0.49, 0.49)), [0, 0, 7, 0, 0]);
        assert_eq!(e.bins(&o(100, 0.25, 0.5, 0.5)), [1, 1, 7, 1, 1]);
        assert_eq!(e.bins(&o(899, 0.75, 1.0, 3.0)), [8, 3, 7, 1, 1]);
        assert_eq!(e.bins(&o(5000, 1.0, 1.0, 1.0))[0], 8, "past the range: the top bin");
        // First feature most significant: size 8, util 3, action 8, 1, 1 is the last state.
        let last = StepObservation { previous_action: 8, ..o(899, 0.9, 1.0, 1.0) };
        assert_eq!(e.state(&last), 1295);
        assert_eq!(e.state(&o(0, 0.0, 0.0, 0.0)), 7 * 4);
        assert!(StateEncoder::new(10, vec![0.5, 0.25, 0.75], 0.5, 0.5).is_err());
    }

    #[test]
    fn algorithm_2_reward_on_hand_computed_costs() {
        // Step 1: host 100 + 300 = 400 us, reclaim 1000 + 0 us, U = 0.25:
        // total = 0.75 * 400 + 0.25 * 1000 = 550 us. No average yet: no reward.
        let c1 = StepCosts { slc_write_ns: 100_000, qlc_write_ns: 300_000, slc_to_qlc_ns: 1_000_000, qlc_to_qlc_ns: 0 };
        assert_eq!(c1.total(0.25), 550_000.0);
        let mut avg = CostAverage::new(1.0, -1.0);
        assert_eq!(avg.reward(c1.total(0.25), None), None);
        // Step 2 at U = 0.5: 0.5 * 400 + 0.5 * (200 + 600) = 600 us > 550: negative.
        let c2 = StepCosts { slc_write_ns: 400_000, qlc_write_ns: 0, slc_to_qlc_ns: 200_000, qlc_to_qlc_ns: 600_000 };
        assert_eq!(c2.total(0.5), 600_000.0);
        assert_eq!(avg.reward(c2.total(0.5), None), Some(-1.0));
        assert_eq!(avg.mean(), Some(575_000.0));
        // Step 3: 575 us, equal to the average: not above it, positive.
        assert_eq!(avg.reward(575_000.0, None), Some(1.0));
        // Step 4: 574 us < 575: positive; 576 us after that: the average is now 575 - 0.25.
        assert_eq!(avg.reward(574_000.0, None), Some(1.0));
        assert_eq!(avg.reward(576_000.0, None), Some(-1.0));
        // Utilisation weights: all host cost at U = 0, all reclaim cost at U = 1.
        assert_eq!(c2.total(0.0), 400_000.0);
        assert_eq!(c2.total(1.0), 800_000.0);
    }

    #[test]
    fn exponential_baseline_by_hand() {
        // Weight 0.5: baselines 100, then 0.5 * 300 + 0.5 * 100 = 200, then 0.5 * 150 + 100 = 175.
        let mut avg = CostAverage::exponential(1.0, -1.0, 0.5);
        assert_eq!(avg.reward(100.0, None), None);
        assert_eq!(avg.reward(300.0, None), Some(-1.0), "300 > 100");
        assert_eq!(avg.reward(150.0, None), Some(1.0), "150 <= 200");
        assert_eq!(avg.reward(180.0, None), Some(-1.0), "180 > 175 (the all-steps mean, 183.3, would reward it)");
        assert_eq!(avg.mean(), Some(182.5), "the reported mean stays the mean of every step");
    }

    #[test]
    fn per_state_baseline_by_hand() {
        // Two states. A state without steps of its own falls back to the mean of every step.
        let mut avg = CostAverage::per_state(1.0, -1.0, 2);
        assert_eq!(avg.reward(100.0, None), None, "the first step: nothing to compare with");
        assert_eq!(avg.reward(300.0, Some(0)), Some(-1.0), "state 0 has none yet: 300 > 100, the mean of all");
        assert_eq!(avg.reward(250.0, Some(0)), Some(1.0), "250 <= 300, state 0's mean");
        // State 1 has none: all steps' mean is 650 / 3 = 216.7; 250 is above it.
        assert_eq!(avg.reward(250.0, Some(1)), Some(-1.0));
        // State 0's mean is 275: 280 is above it although every step's mean (225) is lower, and
        // 270 below it: a uniformly costly state still tells its actions apart.
        assert_eq!(avg.reward(280.0, Some(0)), Some(-1.0));
        assert_eq!(avg.reward(270.0, Some(0)), Some(1.0), "state 0's mean is now 276.7");
        assert_eq!(avg.reward(240.0, Some(1)), Some(1.0), "state 1's mean is 250");
        assert_eq!(avg.mean(), Some(1690.0 / 7.0), "the reported mean is every step's");
    }
}
