//! Layer: rl. Generic tabular reinforcement-learning pieces shared by the RL policies.
//!
//! Policy-agnostic: nothing here knows about GC, page types or SLC caches. A policy (RLGC,
//! RLGC + Q-table cache, RL-FSP, RL SLC cache) owns an agent, maps what it observes to a state
//! (`state`), turns outcomes into rewards (`percentile` for latency-based ones) and asks for
//! actions. Everything is deterministic given the random generator the caller passes in (one of
//! the simulation's named PCG streams); there are no globals and no std hash iteration.
//!
//! | module | job | source |
//! |---|---|---|
//! | `qtable` | dense Q-table, argmax, utilisation, JSON save/load | RLGC Sec. 4.2, 6.2 |
//! | `update` | SARSA-form and Q-learning updates | RLGC Alg. 1 l. 9; SLC Eq. 1 |
//! | `epsilon` | exploration-rate schedules | RLGC Sec. 5.2; FSP Alg. 1; SLC Sec. 2.3 |
//! | `policy` | epsilon-greedy, stochastic "proportional to Q" selection | RLGC Eq. 2, fn. 2 |
//! | `percentile` | sliding-window percentile thresholds, step reward | RLGC Sec. 5.2, Fig. 6 |
//! | `state` | binning, mixed-radix state index, 64-bit state key | RLGC Table 3; QTC slide |
//! | `qtc` | Q-table cache: per-action LRU of (state key -> Q) | Kang & Yoo DAC'18 (slides) |
//! | `across_episode` | active/shadow Q-table with delayed rewards | FSP Sec. III-B, Fig. 6 |
//! | `agent` | `TabularAgent`: table + schedule + selection + counters | RLGC Alg. 1 |
//! | `diagnostics` | reward windows, Q spread, the report's `learning` section | ours |

pub mod across_episode;
pub mod agent;
pub mod diagnostics;
pub mod epsilon;
pub mod percentile;
pub mod policy;
pub mod qtable;
pub mod qtc;
pub mod state;
pub mod update;

pub use across_episode::{
    AcrossEpisodeConfig, AcrossEpisodeQTable, AcrossEpisodeStats, Bootstrap, DecisionId, EpisodeSummary, Settlement,
};
pub use agent::{AgentStats, LearningConfig, TabularAgent};
pub use diagnostics::{AgentDiagnostics, LearningReport, QSpread, RewardSample, RewardTracker};
pub use epsilon::{EpsilonProgress, EpsilonSchedule};
pub use percentile::{PercentileConfig, PercentileThresholds, StepReward};
pub use policy::{choose, epsilon_greedy, ActionSelection, Choice, Exploit, Explore};
pub use qtable::{QTable, QTableUtilisation};
pub use qtc::{LruCache, QInitialiser, QTableCache, QtcChoice, QtcConfig, QtcStats};
pub use state::{state_key, Binning, MixedRadix};
pub use update::{q_learning_update, sarsa_update, TdParams};
