//! Layer: rl. Exploration-rate schedules for epsilon-greedy selection.
//!
//! * `Step`: RLGC Sec. 5.2, "Exploitation and Exploration Balance": epsilon = 0.8 for the first
//!   1000 GC operations, then 0.01 (`EpsilonSchedule::rlgc()`).
//! * `Episodes`: FSP paper Algorithm 1 lines 8-11 (Li et al. 2024, Sec. III-B): 0.8 while
//!   `episode < 4`, i.e. the first 4 x 1000 actions, then 0.01 (`EpsilonSchedule::fsp()`).
//! * `Constant`: SLC-cache paper Sec. 2.3, epsilon = 0.07 (`EpsilonSchedule::slc_cache()`).
//!
//! Counting convention (the papers say "the first N"): `decisions` is the number of decisions
//! already taken before the current one, so the current decision is number `decisions` counting
//! from 0. "The first 1000" are decisions 0..=999: decision 999 still uses `initial`, decision
//! 1000 uses `after`. Likewise `episodes` counts completed episodes, so episodes 0..=3 use
//! `initial` when `switch_after_episodes = 4`. What counts as a decision is the caller's choice:
//! the tabular agent counts every decision, RLGC's Q-table cache only those in a known state
//! (an unseen state takes its default action and cannot explore).

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// How epsilon changes over a run.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum EpsilonSchedule {
    /// The same epsilon throughout.
    Constant { epsilon: f64 },
    /// `initial` for decisions `0..switch_after_decisions`, then `after`.
    Step { initial: f64, after: f64, switch_after_decisions: u64 },
    /// `initial` for episodes `0..switch_after_episodes`, then `after`.
    Episodes { initial: f64, after: f64, switch_after_episodes: u64 },
}

impl EpsilonSchedule {
    /// RLGC Sec. 5.2: 0.8 for the first 1000 decisions, then 0.01.
    pub const fn rlgc() -> Self {
        EpsilonSchedule::Step { initial: 0.8, after: 0.01, switch_after_decisions: 1000 }
    }

    /// FSP Algorithm 1 lines 8-11: 0.8 for the first 4 episodes, then 0.01.
    pub const fn fsp() -> Self {
        EpsilonSchedule::Episodes { initial: 0.8, after: 0.01, switch_after_episodes: 4 }
    }

    /// SLC-cache paper Sec. 2.3: a constant 0.07.
    pub const fn slc_cache() -> Self {
        EpsilonSchedule::Constant { epsilon: 0.07 }
    }

    /// Epsilon for the decision numbered `decisions` (0-based) taken in episode `episodes` (0-based).
    #[inline]
    pub fn value(&self, decisions: u64, episodes: u64) -> f64 {
        match *self {
            EpsilonSchedule::Constant { epsilon } => epsilon,
            EpsilonSchedule::Step { initial, after, switch_after_decisions } => {
                if decisions < switch_after_decisions {
                    initial
                } else {
                    after
                }
            }
            EpsilonSchedule::Episodes { initial, after, switch_after_episodes } => {
                if episodes < switch_after_episodes {
                    initial
                } else {
                    after
                }
            }
        }
    }

    /// Every epsilon must be a probability; `prefix` is this schedule's dotted config key.
    pub fn validate(&self, prefix: &str) -> Result<()> {
        let check = |name: &str, v: f64| {
            if (0.0..=1.0).contains(&v) {
                Ok(())
            } else {
                Err(Error::config(format!("{prefix}.{name}"), format!("must be a probability in [0, 1], got {v}")))
            }
        };
        match *self {
            EpsilonSchedule::Constant { epsilon } => check("epsilon", epsilon),
            EpsilonSchedule::Step { initial, after, .. } | EpsilonSchedule::Episodes { initial, after, .. } => {
                check("initial", initial)?;
                check("after", after)
            }
        }
    }
}

/// Where a run left an agent's epsilon schedule (the report's `learning.<point>.epsilon_schedule`):
/// the schedule as configured, the decisions and episodes it counted, and whether the initial
/// (exploring) phase was over. A report reader needs this to tell an agent that stopped while
/// still exploring at its initial epsilon (RLGC: 0.8 for the first 1000 decisions) from one
/// that reached its final rate; the share of explored decisions alone cannot say which.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct EpsilonProgress {
    #[serde(flatten)]
    pub schedule: EpsilonSchedule,
    /// Decisions the schedule counted (RLGC's Q-table cache: those in a known state only).
    pub decisions: u64,
    /// Episodes it counted (0 for an agent without episodes).
    pub episodes: u64,
    /// Whether the initial epsilon's phase was over when the run ended: always for a constant
    /// epsilon, else once `switch_after_decisions` (`switch_after_episodes`) were completed.
    pub initial_phase_over: bool,
}

impl EpsilonSchedule {
    /// Where `decisions` decisions in `episodes` episodes left this schedule.
    pub fn progress(&self, decisions: u64, episodes: u64) -> EpsilonProgress {
        let initial_phase_over = match *self {
            EpsilonSchedule::Constant { .. } => true,
            EpsilonSchedule::Step { switch_after_decisions, .. } => decisions >= switch_after_decisions,
            EpsilonSchedule::Episodes { switch_after_episodes, .. } => episodes >= switch_after_episodes,
        };
        EpsilonProgress { schedule: *self, decisions, episodes, initial_phase_over }
    }
}

impl Default for EpsilonSchedule {
    fn default() -> Self {
        EpsilonSchedule::rlgc()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn step_switches_exactly_after_the_first_1000_decisions() {
        let s = EpsilonSchedule::rlgc();
        assert_eq!(s.value(0, 0), 0.8);
        assert_eq!(s.value(999, 0), 0.8);
        assert_eq!(s.value(1000, 0), 0.01);
        assert_eq!(s.value(u64::MAX, 0), 0.01);
        assert_eq!(s.value(999, 1_000_000), 0.8, "episodes do not matter");
    }

    #[test]
    fn episodes_switch_after_the_fourth_episode() {
        let s = EpsilonSchedule::fsp();
        assert_eq!(s.value(0, 0), 0.8);
        assert_eq!(s.value(3999, 3), 0.8);
        assert_eq!(s.value(4000, 4), 0.01);
        assert_eq!(s.value(1_000_000, 3), 0.8, "decisions do not matter");
    }

    #[test]
    fn constant() {
        let s = EpsilonSchedule::slc_cache();
        assert_eq!(s.value(0, 0), 0.07);
        assert_eq!(s.value(10_000_000, 50), 0.07);
    }

    #[test]
    fn serde_is_internally_tagged_and_strict() {
        let s: EpsilonSchedule =
            serde_json::from_str(r#"{"kind":"step","initial":0.8,"after":0.01,"switch_after_decisions":1000}"#)
                .unwrap();
        assert_eq!(s, EpsilonSchedule::rlgc());
        let back: EpsilonSchedule =
            serde_json::from_str(&serde_json::to_string(&EpsilonSchedule::fsp()).unwrap()).unwrap();
        assert_eq!(back, EpsilonSchedule::fsp());
        assert!(serde_json::from_str::<EpsilonSchedule>(r#"{"kind":"constant","epsilon":0.1,"typo":1}"#).is_err());
        assert!(serde_json::from_str::<EpsilonSchedule>(r#"{"kind":"linear","epsilon":0.1}"#).is_err());
    }

    #[test]
    fn progress_says_whether_the_initial_phase_is_over() {
        let step = EpsilonSchedule::rlgc();
        assert!(!step.progress(999, 0).initial_phase_over, "decision 999 still explores at 0.8");
        assert!(step.progress(1000, 0).initial_phase_over);
        let episodes = EpsilonSchedule::fsp();
        assert!(!episodes.progress(1_000_000, 3).initial_phase_over, "decisions do not matter");
        assert!(episodes.progress(0, 4).initial_phase_over);
        assert!(EpsilonSchedule::slc_cache().progress(0, 0).initial_phase_over, "nothing to wait for");
        let json = serde_json::to_value(step.progress(599, 0)).unwrap();
        assert_eq!(
            json,
            serde_json::json!({"kind": "step", "initial": 0.8, "after": 0.01, "switch_after_decisions": 1000,
                               "decisions": 599, "episodes": 0, "initial_phase_over": false}),
            "the schedule flattened beside its progress"
        );
    }

    #[test]
    fn validate_rejects_non_probabilities() {
        assert!(EpsilonSchedule::rlgc().validate("e").is_ok());
        assert!(EpsilonSchedule::Constant { epsilon: 1.5 }.validate("e").is_err());
        assert!(EpsilonSchedule::Constant { epsilon: f64::NAN }.validate("e").is_err());
        let err = EpsilonSchedule::Episodes { initial: 0.8, after: -0.1, switch_after_episodes: 4 }
            .validate("ftl.fsp.epsilon")
            .unwrap_err();
        assert!(err.to_string().starts_with("ftl.fsp.epsilon.after:"), "{err}");
    }
}
