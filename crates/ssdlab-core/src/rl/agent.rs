//! Layer: rl. `TabularAgent`: a dense `QTable` plus an epsilon schedule, a selection rule,
//! the TD parameters and the counters a report needs. The policy that owns it (RLGC, the SLC
//! cache, ...) maps its observations to a state index and its outcomes to a reward; the agent
//! knows nothing about SSDs.
//!
//! A step of RLGC's Algorithm 1 (Sec. 5.2) reads, in these terms:
//! `a_t = agent.act(s_t, rng)` (line 2), serve the request and run the action (lines 6-7),
//! `r = reward(response time)` (line 8), `agent.learn_sarsa(s_{t-1}, a_{t-1}, r, s_t, a_t)`
//! (line 9). The SLC-cache paper's Algorithm 1 uses `learn_q` instead. Defaults of
//! `LearningConfig::rlgc()`: alpha 0.3, gamma 0.8 (RLGC footnote 3), epsilon 0.8 for the first
//! 1000 decisions then 0.01 (Sec. 5.2), stochastic selection (footnote 2).
//!
//! The reward series holds one sample every `reward_sample_every` decisions
//! (`rl::diagnostics::RewardTracker`): the mean and spread of the rewards received since the
//! previous sample and the running mean since the start (`null` when there were none), enough to
//! draw a learning curve like the FSP paper's Fig. 12.
//!
//! `random_control`: every action is drawn uniformly (`rl::policy::choose`) and counted as an
//! exploration; the table still learns, so the report shows what the values would have said.

use rand::Rng;
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::rl::diagnostics::{AgentDiagnostics, RewardSample, RewardTracker};
use crate::rl::epsilon::EpsilonSchedule;
use crate::rl::policy::{choose, ActionSelection, Choice};
use crate::rl::qtable::{QTable, QTableUtilisation};
use crate::rl::update::{q_learning_update, sarsa_update, TdParams};

/// How a `TabularAgent` explores and learns.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LearningConfig {
    pub epsilon: EpsilonSchedule,
    pub selection: ActionSelection,
    pub alpha: f64,
    pub gamma: f64,
    /// Decisions between two points of the reward series.
    #[serde(default = "default_reward_sample_every")]
    pub reward_sample_every: u64,
    /// The random-action control: actions drawn uniformly, whatever the table says.
    #[serde(default)]
    pub random_control: bool,
}

fn default_reward_sample_every() -> u64 {
    1000
}

impl LearningConfig {
    /// RLGC (Kang et al. 2017): see the module header.
    pub fn rlgc() -> Self {
        let td = TdParams::default();
        LearningConfig {
            epsilon: EpsilonSchedule::rlgc(),
            selection: ActionSelection::rlgc(),
            alpha: td.alpha,
            gamma: td.gamma,
            reward_sample_every: default_reward_sample_every(),
            random_control: false,
        }
    }

    /// SLC cache (Yoo & Shin 2020, Sec. 2.3): constant epsilon 0.07, greedy, exploration away
    /// from the argmax. The paper gives no alpha or gamma; we keep RLGC's 0.3 and 0.8.
    pub fn slc_cache() -> Self {
        LearningConfig {
            epsilon: EpsilonSchedule::slc_cache(),
            selection: ActionSelection::slc_cache(),
            ..Self::rlgc()
        }
    }

    pub fn td(&self) -> TdParams {
        TdParams { alpha: self.alpha, gamma: self.gamma }
    }

    pub fn validate(&self, prefix: &str) -> Result<()> {
        self.epsilon.validate(&format!("{prefix}.epsilon"))?;
        self.selection.validate(&format!("{prefix}.selection"))?;
        self.td().validate(prefix)?;
        if self.reward_sample_every == 0 {
            return Err(Error::config(format!("{prefix}.reward_sample_every"), "must be at least 1"));
        }
        Ok(())
    }
}

/// Counters for a report.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AgentStats {
    pub decisions: u64,
    pub explorations: u64,
    pub updates: u64,
    pub episodes: u64,
    /// Epsilon the next decision will use.
    pub epsilon: f64,
    /// Decisions per action.
    pub action_histogram: Vec<u64>,
    pub rewards: u64,
    pub mean_reward: Option<f64>,
    pub reward_series: Vec<RewardSample>,
    pub utilisation: QTableUtilisation,
}

/// A tabular agent over `n_states x n_actions`.
#[derive(Debug, Clone)]
pub struct TabularAgent {
    q: QTable,
    config: LearningConfig,
    decisions: u64,
    explorations: u64,
    updates: u64,
    episodes: u64,
    action_histogram: Vec<u64>,
    rewards: RewardTracker,
}

impl TabularAgent {
    /// An agent with an all-zero table.
    pub fn new(n_states: usize, n_actions: usize, config: LearningConfig) -> Result<Self> {
        Self::with_table(QTable::new(n_states, n_actions)?, config)
    }

    /// An agent starting from a given (e.g. pre-trained, loaded) table.
    pub fn with_table(q: QTable, config: LearningConfig) -> Result<Self> {
        config.validate("learning")?;
        Ok(TabularAgent {
            action_histogram: vec![0; q.n_actions()],
            rewards: RewardTracker::new(config.reward_sample_every),
            q,
            config,
            decisions: 0,
            explorations: 0,
            updates: 0,
            episodes: 0,
        })
    }

    /// Choose an action in `state` (epsilon from the schedule, then the selection rule).
    #[inline]
    pub fn act<R: Rng + ?Sized>(&mut self, state: usize, rng: &mut R) -> usize {
        self.act_choice(state, rng).action
    }

    /// As `act`, also saying whether the action was exploratory.
    pub fn act_choice<R: Rng + ?Sized>(&mut self, state: usize, rng: &mut R) -> Choice {
        let epsilon = self.config.epsilon.value(self.decisions, self.episodes);
        let choice = choose(self.q.row(state), epsilon, &self.config.selection, self.config.random_control, rng);
        self.q.mark_visited(state);
        self.decisions += 1;
        self.explorations += u64::from(choice.explored);
        self.action_histogram[choice.action] += 1;
        self.rewards.decision(self.decisions);
        choice
    }

    /// The action taken was `taken`, not the `proposed` one `act` counted (an outside agent's,
    /// `crate::decision`): the action histogram counts the one taken.
    pub fn retake(&mut self, proposed: usize, taken: usize) {
        self.action_histogram[proposed] -= 1;
        self.action_histogram[taken] += 1;
    }

    /// SARSA-form update of `Q(s_prev, a_prev)` (RLGC Algorithm 1 line 9); returns the new value.
    pub fn learn_sarsa(&mut self, s_prev: usize, a_prev: usize, r: f64, s: usize, a: usize) -> f64 {
        self.note_reward(r);
        sarsa_update(&mut self.q, s_prev, a_prev, r, s, a, self.config.alpha, self.config.gamma)
    }

    /// Q-learning update of `Q(s_prev, a_prev)`; returns the new value.
    pub fn learn_q(&mut self, s_prev: usize, a_prev: usize, r: f64, s: usize) -> f64 {
        self.note_reward(r);
        q_learning_update(&mut self.q, s_prev, a_prev, r, s, self.config.alpha, self.config.gamma)
    }

    /// Count an episode (for `EpsilonSchedule::Episodes`).
    pub fn end_episode(&mut self) {
        self.episodes += 1;
    }

    fn note_reward(&mut self, r: f64) {
        self.updates += 1;
        self.rewards.reward(r);
    }

    /// A reward received without an update (a policy that acts on a frozen table).
    pub fn observe_reward(&mut self, r: f64) {
        self.rewards.reward(r);
    }

    /// The agent's part of the learning diagnostics: the visited states' rows.
    pub fn diagnostics(&self) -> AgentDiagnostics {
        let q = &self.q;
        let rows = (0..q.n_states()).filter(|&s| q.is_visited(s)).map(|s| q.row(s));
        let epsilon = self.config.epsilon.progress(self.decisions, self.episodes);
        AgentDiagnostics::from_rows(q.n_states() as u64, q.n_actions(), self.explorations, epsilon, rows)
    }

    pub fn rewards(&self) -> &RewardTracker {
        &self.rewards
    }

    pub fn action_histogram(&self) -> &[u64] {
        &self.action_histogram
    }

    pub fn q_table(&self) -> &QTable {
        &self.q
    }

    pub fn config(&self) -> &LearningConfig {
        &self.config
    }

    pub fn decisions(&self) -> u64 {
        self.decisions
    }

    pub fn episodes(&self) -> u64 {
        self.episodes
    }

    pub fn stats(&self) -> AgentStats {
        AgentStats {
            decisions: self.decisions,
            explorations: self.explorations,
            updates: self.updates,
            episodes: self.episodes,
            epsilon: self.config.epsilon.value(self.decisions, self.episodes),
            action_histogram: self.action_histogram.clone(),
            rewards: self.rewards.rewards(),
            mean_reward: self.rewards.mean(),
            reward_series: self.rewards.series().to_vec(),
            utilisation: self.q.utilisation(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_pcg::Pcg64Mcg;

    fn greedy_config() -> LearningConfig {
        LearningConfig {
            epsilon: EpsilonSchedule::Constant { epsilon: 0.0 },
            selection: ActionSelection::default(),
            reward_sample_every: 2,
            ..LearningConfig::rlgc()
        }
    }

    /// One state, three actions; action 2 pays 1, the others -0.5. Returns the agent after 5000 steps.
    fn bandit(config: LearningConfig) -> TabularAgent {
        let mut agent = TabularAgent::new(1, 3, config).unwrap();
        let mut rng = Pcg64Mcg::seed_from_u64(11);
        let mut prev = agent.act(0, &mut rng);
        for _ in 0..5000 {
            let a = agent.act(0, &mut rng);
            let r = if prev == 2 { 1.0 } else { -0.5 };
            agent.learn_sarsa(0, prev, r, 0, a);
            prev = a;
        }
        agent
    }

    #[test]
    fn learns_to_prefer_the_rewarded_action() {
        // RLGC's settings: the stochastic policy is a soft preference (see rl::policy).
        let agent = bandit(LearningConfig::rlgc());
        assert_eq!(agent.q_table().argmax(0), 2, "{:?}", agent.q_table().row(0));
        let s = agent.stats();
        assert_eq!((s.decisions, s.updates), (5001, 5000));
        // 80 % of the first 1000 decisions explore away from the argmax; after that, action 2
        // wins about two thirds of the time (Q ~ [0.65, 0.58, 2.53]).
        let h = &s.action_histogram;
        assert!(h[2] > h[0] + h[1], "{h:?}");
        assert_eq!(s.epsilon, 0.01);
        assert_eq!(s.reward_series.len(), 5);
        // Greedy exploitation, same schedule: the best action dominates after exploration.
        let config = LearningConfig { selection: ActionSelection::slc_cache(), ..LearningConfig::rlgc() };
        let s = bandit(config).stats();
        assert!(s.action_histogram[2] > 3900, "{:?}", s.action_histogram);
    }

    #[test]
    fn same_seed_same_run() {
        let run = |seed| {
            let mut agent = TabularAgent::new(4, 3, LearningConfig::rlgc()).unwrap();
            let mut rng = Pcg64Mcg::seed_from_u64(seed);
            let (mut s_prev, mut a_prev) = (0, agent.act(0, &mut rng));
            for t in 0..3000usize {
                let s = t % 4;
                let a = agent.act(s, &mut rng);
                agent.learn_sarsa(s_prev, a_prev, (a as f64) - 1.0, s, a);
                (s_prev, a_prev) = (s, a);
            }
            agent.q_table().values().to_vec()
        };
        assert_eq!(run(3), run(3));
        assert_ne!(run(3), run(4));
    }

    #[test]
    fn counters_and_reward_series() {
        let mut agent = TabularAgent::new(2, 2, greedy_config()).unwrap();
        let mut rng = Pcg64Mcg::seed_from_u64(0);
        agent.act(0, &mut rng);
        agent.learn_q(0, 0, 1.0, 1);
        agent.act(1, &mut rng); // 2nd decision: sample {window 1.0, total 1.0}
        agent.act(1, &mut rng);
        agent.act(1, &mut rng); // 4th decision: sample {window none, total 1.0}
        agent.learn_sarsa(1, 0, -1.0, 0, 0);
        agent.end_episode();
        let s = agent.stats();
        assert_eq!((s.decisions, s.explorations, s.updates, s.episodes, s.rewards), (4, 0, 2, 1, 2));
        assert_eq!(s.action_histogram.iter().sum::<u64>(), 4);
        assert_eq!(s.mean_reward, Some(0.0));
        let series: Vec<(u64, Option<f64>, Option<f64>)> =
            s.reward_series.iter().map(|r| (r.decisions, r.window_mean_reward, r.mean_reward)).collect();
        assert_eq!(series, vec![(2, Some(1.0), Some(1.0)), (4, None, Some(1.0))]);
        assert_eq!((s.utilisation.states_visited, s.utilisation.entries_written), (2, 2));
        // Reports serialise.
        let json = serde_json::to_string(&s).unwrap();
        assert!(json.contains("\"action_histogram\""));
    }

    #[test]
    fn episode_schedule_uses_the_episode_counter() {
        let config = LearningConfig { epsilon: EpsilonSchedule::fsp(), ..LearningConfig::rlgc() };
        let mut agent = TabularAgent::new(1, 2, config).unwrap();
        for _ in 0..4 {
            assert_eq!(agent.stats().epsilon, 0.8);
            agent.end_episode();
        }
        assert_eq!(agent.stats().epsilon, 0.01);
    }

    #[test]
    fn config_validation_and_serde() {
        assert!(LearningConfig::rlgc().validate("x").is_ok());
        assert!(LearningConfig::slc_cache().validate("x").is_ok());
        let bad = LearningConfig { reward_sample_every: 0, ..LearningConfig::rlgc() };
        assert!(TabularAgent::new(1, 1, bad).is_err());
        let bad = LearningConfig { epsilon: EpsilonSchedule::Constant { epsilon: 2.0 }, ..LearningConfig::rlgc() };
        assert!(bad.validate("x").unwrap_err().to_string().starts_with("x.epsilon.epsilon:"));
        let json = serde_json::to_string(&LearningConfig::rlgc()).unwrap();
        let back: LearningConfig = serde_json::from_str(&json).unwrap();
        assert_eq!(back, LearningConfig::rlgc());
    }
}
