//! Layer: rl. The temporal-difference update rules, as pure functions on a `QTable`.
//!
//! * `sarsa_update` is RLGC's rule exactly as written in Algorithm 1 line 9 (Kang et al. 2017,
//!   Sec. 5.2) and the FSP paper's Eq. (1) (Li et al. 2024, Sec. III-B):
//!   `Q(S_{t-1}, A_{t-1}) <- (1 - alpha) Q(S_{t-1}, A_{t-1}) + alpha [r + gamma Q(S_t, A_t)]`,
//!   bootstrapping from the action actually chosen at `t` (SARSA form, although both papers call
//!   it Q-learning; implementation notes A4). The `(1 - alpha) Q + alpha target` form is kept
//!   as written rather than `Q + alpha (target - Q)`, which rounds differently.
//! * `q_learning_update` bootstraps from `max_a Q(S_t, a)`: the SLC-cache paper's Eq. (1)
//!   (Yoo & Shin 2020, Sec. 2.3) and the Q-learning slide of the QTC talk.
//!
//! Defaults `alpha = 0.3`, `gamma = 0.8` are RLGC footnote 3 (also FSP Sec. III-B).

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::rl::qtable::QTable;

/// Step size and discount factor.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TdParams {
    /// Step size, in (0, 1]. RLGC footnote 3: 0.3.
    #[serde(default = "default_alpha")]
    pub alpha: f64,
    /// Discount factor, in [0, 1]. RLGC footnote 3: 0.8.
    #[serde(default = "default_gamma")]
    pub gamma: f64,
}

fn default_alpha() -> f64 {
    0.3
}

fn default_gamma() -> f64 {
    0.8
}

impl Default for TdParams {
    fn default() -> Self {
        TdParams { alpha: default_alpha(), gamma: default_gamma() }
    }
}

impl TdParams {
    /// Check the ranges; `prefix` is the dotted config key of this table (e.g. `ftl.gc.rlgc`).
    pub fn validate(&self, prefix: &str) -> Result<()> {
        if !(self.alpha > 0.0 && self.alpha <= 1.0) {
            return Err(Error::config(format!("{prefix}.alpha"), format!("must be in (0, 1], got {}", self.alpha)));
        }
        if !(0.0..=1.0).contains(&self.gamma) {
            return Err(Error::config(format!("{prefix}.gamma"), format!("must be in [0, 1], got {}", self.gamma)));
        }
        Ok(())
    }
}

/// `(1 - alpha) old + alpha target`: the blend both papers write.
#[inline]
pub fn td_blend(old: f64, target: f64, alpha: f64) -> f64 {
    (1.0 - alpha) * old + alpha * target
}

/// SARSA-form update of `Q(s_prev, a_prev)` towards `r + gamma Q(s, a)`; returns the new value.
#[allow(clippy::too_many_arguments)]
#[inline]
pub fn sarsa_update(
    q: &mut QTable,
    s_prev: usize,
    a_prev: usize,
    r: f64,
    s: usize,
    a: usize,
    alpha: f64,
    gamma: f64,
) -> f64 {
    let target = r + gamma * q.get(s, a);
    let new = td_blend(q.get(s_prev, a_prev), target, alpha);
    q.set(s_prev, a_prev, new);
    new
}

/// Q-learning update of `Q(s_prev, a_prev)` towards `r + gamma max_a Q(s, a)`; returns the new value.
#[inline]
pub fn q_learning_update(
    q: &mut QTable,
    s_prev: usize,
    a_prev: usize,
    r: f64,
    s: usize,
    alpha: f64,
    gamma: f64,
) -> f64 {
    let target = r + gamma * q.max(s);
    let new = td_blend(q.get(s_prev, a_prev), target, alpha);
    q.set(s_prev, a_prev, new);
    new
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12
    }

    #[test]
    fn sarsa_by_hand() {
        let mut q = QTable::new(3, 3).unwrap();
        q.set(0, 1, 0.5); // Q(S_{t-1}, A_{t-1})
        q.set(2, 2, 1.0); // Q(S_t, A_t)
        q.set(2, 0, 9.0); // a larger value SARSA must ignore
                          // 0.7 * 0.5 + 0.3 * (1.0 + 0.8 * 1.0) = 0.35 + 0.54 = 0.89
        let new = sarsa_update(&mut q, 0, 1, 1.0, 2, 2, 0.3, 0.8);
        assert!(close(new, 0.89), "{new}");
        assert_eq!(q.get(0, 1), new);
        // Negative reward from a zero table: 0.7 * 0 + 0.3 * (-0.5 + 0) = -0.15
        let new = sarsa_update(&mut q, 1, 0, -0.5, 1, 1, 0.3, 0.8);
        assert!(close(new, -0.15), "{new}");
    }

    #[test]
    fn sarsa_on_the_same_entry_reads_before_writing() {
        let mut q = QTable::new(1, 1).unwrap();
        q.set(0, 0, 1.0);
        // 0.7 * 1 + 0.3 * (0.5 + 0.8 * 1) = 0.7 + 0.39 = 1.09
        let new = sarsa_update(&mut q, 0, 0, 0.5, 0, 0, 0.3, 0.8);
        assert!(close(new, 1.09), "{new}");
    }

    #[test]
    fn q_learning_by_hand() {
        let mut q = QTable::new(2, 3).unwrap();
        q.set(0, 2, -1.0);
        q.set(1, 0, 0.25);
        q.set(1, 1, 2.0);
        q.set(1, 2, -3.0);
        // 0.7 * -1 + 0.3 * (0.5 + 0.8 * 2.0) = -0.7 + 0.63 = -0.07
        let new = q_learning_update(&mut q, 0, 2, 0.5, 1, 0.3, 0.8);
        assert!(close(new, -0.07), "{new}");
        // SLC paper setting with gamma = 0: pure reward tracking. 0.5 * 0.25 + 0.5 * 1 = 0.625
        let new = q_learning_update(&mut q, 1, 0, 1.0, 0, 0.5, 0.0);
        assert!(close(new, 0.625), "{new}");
    }

    #[test]
    fn params_validate() {
        assert!(TdParams::default().validate("x").is_ok());
        assert_eq!(TdParams::default(), TdParams { alpha: 0.3, gamma: 0.8 });
        assert!(TdParams { alpha: 0.0, gamma: 0.8 }.validate("x").is_err());
        assert!(TdParams { alpha: 1.5, gamma: 0.8 }.validate("x").is_err());
        assert!(TdParams { alpha: 0.3, gamma: f64::NAN }.validate("x").is_err());
        let err = TdParams { alpha: 0.3, gamma: 1.1 }.validate("ftl.gc.rlgc").unwrap_err();
        assert!(err.to_string().starts_with("ftl.gc.rlgc.gamma:"), "{err}");
    }
}
