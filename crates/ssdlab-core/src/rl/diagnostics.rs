//! Layer: rl. Learning diagnostics: what a report needs to tell whether an agent learned.
//!
//! Every learned policy (RLGC, QTC, RL-FSP, the RL SLC cache) reports the same figures under
//! the same names, in the report's `learning` section (one `LearningReport` per decision point):
//! * the reward: mean and standard deviation over the run and per window of decisions
//!   (`reward_series`, the learning curve: `RewardTracker`);
//! * the executed-action histogram, and how many decisions explored, exploited, or met an
//!   unseen state (the Q-table cache);
//! * states visited, and the Q-value spread per visited state (`max_a Q - min_a Q`): an agent
//!   whose rows stay flat has learned no preference, whatever its reward;
//! * the greedy action of each visited state, counted (`greedy_action_histogram`): the learned
//!   policy in one line;
//! * for the Q-table cache, evictions;
//! * the decisions per point of the reward series (`reward_window_decisions`) and where the run
//!   left the epsilon schedule (`epsilon_schedule`, `rl::EpsilonProgress`): a run shorter than
//!   one window has no learning curve, and one that ends before its schedule's switch was still
//!   exploring at the initial epsilon, which a reader of its figures must be told.
//!
//! `control: true` marks the random-action control: the same policy with every action drawn
//! uniformly (`rl::policy::choose`); its diagnostics are those of a policy that cannot learn,
//! the baseline every learned figure is read against.
//!
//! Cost: one add and one multiply-add per reward and a counter per decision; everything else is
//! computed when the report is asked for.

use serde::Serialize;

use crate::rl::epsilon::EpsilonProgress;

/// One point of the reward time series (the learning curve).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RewardSample {
    /// Decisions taken when the sample was taken.
    pub decisions: u64,
    /// Rewards received since the previous sample.
    pub window_rewards: u64,
    /// Their mean and standard deviation (`null` when there were none).
    pub window_mean_reward: Option<f64>,
    pub window_sd_reward: Option<f64>,
    /// Mean reward since the start.
    pub mean_reward: Option<f64>,
}

/// Running reward figures and a sample every `sample_every` decisions.
#[derive(Debug, Clone)]
pub struct RewardTracker {
    sample_every: u64,
    until_sample: u64,
    total: Moments,
    window: Moments,
    series: Vec<RewardSample>,
}

#[derive(Debug, Clone, Copy, Default)]
struct Moments {
    count: u64,
    sum: f64,
    sum_sq: f64,
}

impl Moments {
    fn add(&mut self, r: f64) {
        self.count += 1;
        self.sum += r;
        self.sum_sq += r * r;
    }
    fn mean(&self) -> Option<f64> {
        (self.count > 0).then(|| self.sum / self.count as f64)
    }
    /// Population standard deviation (0 for one sample).
    fn sd(&self) -> Option<f64> {
        let mean = self.mean()?;
        Some((self.sum_sq / self.count as f64 - mean * mean).max(0.0).sqrt())
    }
}

impl RewardTracker {
    /// `sample_every` >= 1 (callers validate it as a config key).
    pub fn new(sample_every: u64) -> Self {
        let sample_every = sample_every.max(1);
        RewardTracker {
            sample_every,
            until_sample: sample_every,
            total: Moments::default(),
            window: Moments::default(),
            series: Vec::new(),
        }
    }

    /// A reward was received.
    #[inline]
    pub fn reward(&mut self, r: f64) {
        debug_assert!(r.is_finite(), "non-finite reward {r}");
        self.total.add(r);
        self.window.add(r);
    }

    /// A decision was taken (`decisions` counts it); samples when one is due.
    #[inline]
    pub fn decision(&mut self, decisions: u64) {
        self.until_sample -= 1;
        if self.until_sample == 0 {
            self.until_sample = self.sample_every;
            self.series.push(RewardSample {
                decisions,
                window_rewards: self.window.count,
                window_mean_reward: self.window.mean(),
                window_sd_reward: self.window.sd(),
                mean_reward: self.total.mean(),
            });
            self.window = Moments::default();
        }
    }

    pub fn rewards(&self) -> u64 {
        self.total.count
    }
    pub fn mean(&self) -> Option<f64> {
        self.total.mean()
    }
    pub fn sd(&self) -> Option<f64> {
        self.total.sd()
    }
    pub fn series(&self) -> &[RewardSample] {
        &self.series
    }
    /// Decisions per point of the series.
    pub fn sample_every(&self) -> u64 {
        self.sample_every
    }
}

/// How far apart the Q values of each visited state are (`max_a Q - min_a Q`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct QSpread {
    pub states: u64,
    pub mean: f64,
    pub p50: f64,
    pub p90: f64,
    pub max: f64,
}

/// What the agent itself knows: its table, its choices.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AgentDiagnostics {
    /// States the table can hold (the QTC's is the product of its feature bins).
    pub n_states: u64,
    pub n_actions: usize,
    pub explorations: u64,
    /// Decisions in a state the Q-table cache did not hold (they take the default action).
    pub unseen_state_decisions: Option<u64>,
    /// Entries the Q-table cache evicted.
    pub evictions: Option<u64>,
    pub states_visited: u64,
    /// `null` when no state was visited.
    pub q_spread: Option<QSpread>,
    /// `argmax_a Q(s, a)` (ties to the lowest action) counted over the visited states.
    pub greedy_action_histogram: Vec<u64>,
    /// The epsilon schedule and where the run left it.
    pub epsilon_schedule: EpsilonProgress,
}

impl AgentDiagnostics {
    /// From the rows of the visited states.
    pub fn from_rows<'a>(
        n_states: u64,
        n_actions: usize,
        explorations: u64,
        epsilon_schedule: EpsilonProgress,
        rows: impl Iterator<Item = &'a [f64]>,
    ) -> Self {
        let mut spreads = Vec::new();
        let mut greedy = vec![0u64; n_actions];
        for row in rows {
            let (min, max) = row.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &q| (lo.min(q), hi.max(q)));
            spreads.push(max - min);
            if let Some(g) = greedy.get_mut(crate::rl::qtable::argmax(row)) {
                *g += 1;
            }
        }
        AgentDiagnostics {
            n_states,
            n_actions,
            explorations,
            unseen_state_decisions: None,
            evictions: None,
            states_visited: spreads.len() as u64,
            q_spread: spread(&mut spreads),
            greedy_action_histogram: greedy,
            epsilon_schedule,
        }
    }
}

fn spread(values: &mut [f64]) -> Option<QSpread> {
    if values.is_empty() {
        return None;
    }
    values.sort_by(f64::total_cmp);
    let at = |q: f64| values[((values.len() - 1) as f64 * q).round() as usize];
    Some(QSpread {
        states: values.len() as u64,
        mean: values.iter().sum::<f64>() / values.len() as f64,
        p50: at(0.5),
        p90: at(0.9),
        max: values[values.len() - 1],
    })
}

/// A learned decision point's diagnostics, as the report's `learning` section holds them.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LearningReport {
    /// The policy id (`rlgc`, `rl_fsp`, ...).
    pub policy: &'static str,
    /// The random-action control: actions drawn uniformly, nothing learned is used.
    pub control: bool,
    pub decisions: u64,
    /// Decisions that followed the learned values (not explored, not in an unseen state).
    pub exploitations: u64,
    /// Executed actions (after any cap), index = action.
    pub action_histogram: Vec<u64>,
    pub rewards: u64,
    pub mean_reward: Option<f64>,
    pub sd_reward: Option<f64>,
    /// Decisions per point of `reward_series` (a run with fewer has no point yet).
    pub reward_window_decisions: u64,
    pub reward_series: Vec<RewardSample>,
    #[serde(flatten)]
    pub agent: AgentDiagnostics,
}

impl LearningReport {
    pub fn new(
        policy: &'static str,
        control: bool,
        decisions: u64,
        action_histogram: Vec<u64>,
        rewards: &RewardTracker,
        agent: AgentDiagnostics,
    ) -> Self {
        let not_exploited = agent.explorations + agent.unseen_state_decisions.unwrap_or(0);
        LearningReport {
            policy,
            control,
            decisions,
            exploitations: decisions.saturating_sub(not_exploited),
            action_histogram,
            rewards: rewards.rewards(),
            mean_reward: rewards.mean(),
            sd_reward: rewards.sd(),
            reward_window_decisions: rewards.sample_every(),
            reward_series: rewards.series().to_vec(),
            agent,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rl::EpsilonSchedule;

    #[test]
    fn tracker_windows_and_totals_by_hand() {
        let mut t = RewardTracker::new(2);
        t.reward(1.0);
        t.decision(1);
        t.reward(-1.0);
        t.decision(2); // window {1, -1}: mean 0, sd 1
        t.decision(3);
        t.decision(4); // empty window
        t.reward(0.5);
        assert_eq!(t.rewards(), 3);
        assert!((t.mean().unwrap() - 0.5 / 3.0).abs() < 1e-12);
        let s = t.series();
        assert_eq!(s.len(), 2);
        assert_eq!((s[0].decisions, s[0].window_rewards, s[0].window_mean_reward), (2, 2, Some(0.0)));
        assert_eq!(s[0].window_sd_reward, Some(1.0));
        assert_eq!((s[1].window_rewards, s[1].window_mean_reward, s[1].mean_reward), (0, None, Some(0.0)));
        assert_eq!(RewardTracker::new(1).sd(), None);
    }

    #[test]
    fn spread_and_greedy_actions_of_visited_rows() {
        let rows: Vec<Vec<f64>> = vec![vec![0.0, 1.0, 0.5], vec![2.0, 2.0, 2.0], vec![-1.0, 0.0, 3.0]];
        let progress = EpsilonSchedule::rlgc().progress(10, 0);
        let d = AgentDiagnostics::from_rows(10, 3, 4, progress, rows.iter().map(Vec::as_slice));
        assert_eq!(d.states_visited, 3);
        assert_eq!(d.greedy_action_histogram, vec![1, 1, 1], "ties go to the lowest action");
        let q = d.q_spread.unwrap();
        assert_eq!((q.states, q.p50, q.max), (3, 1.0, 4.0));
        assert!((q.mean - 5.0 / 3.0).abs() < 1e-12);
        let empty = AgentDiagnostics::from_rows(10, 3, 0, progress, std::iter::empty());
        assert_eq!((empty.states_visited, empty.q_spread), (0, None));
        let r = LearningReport::new("x", false, 10, vec![5, 5, 0], &RewardTracker::new(5), d);
        assert_eq!(r.exploitations, 6);
        let json = serde_json::to_value(&r).unwrap();
        assert_eq!(json["states_visited"], 3, "agent figures are flattened into the report");
        assert_eq!(json["reward_window_decisions"], 5);
        assert_eq!(json["epsilon_schedule"]["switch_after_decisions"], 1000);
        assert_eq!(json["epsilon_schedule"]["initial_phase_over"], false);
    }
}
