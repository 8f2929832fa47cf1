//! Layer: rl. Action selection over one row of Q values: epsilon-greedy with a choice of what
//! "exploit" and "explore" mean.
//!
//! Exploit (`Exploit`):
//! * `Greedy`: `argmax_a Q(s, a)`, ties to the lowest action (RLGC Eq. 2).
//! * `Proportional { floor }`: RLGC footnote 2's stochastic policy, "the probability of choosing
//!   action a is proportional to Q(s, a)" (the one RLGC's experiments used). Q values can be
//!   negative (rewards go down to -0.5), so we use weights
//!   `w_a = Q(s, a) + shift + floor`, with `shift = max(0, -min_a Q(s, a))` and `floor > 0`.
//!   When every Q is >= 0 nothing is shifted and `w_a = Q + floor`, which is the paper's rule
//!   plus a small floor so a zero-valued action is still possible; when some Q is negative the
//!   row is shifted so its minimum weighs `floor`. An all-equal row (e.g. a fresh all-zero row)
//!   is uniform. Default floor 0.01 (ours; Q values under RLGC's rewards are O(0.1..5)).
//!   This is a soft preference, as the paper's rule implies: when the values share a positive
//!   offset (with gamma = 0.8 they are ~ r + 0.8 V) the best action is far from certain; in a
//!   3-action test with Q = [0.65, 0.58, 2.53] it is taken 67 % of the time. Use `Greedy` for
//!   sharp exploitation.
//!
//! Explore (`Explore`), taken with probability epsilon:
//! * `NonGreedy`: a uniformly random action other than `argmax_a Q(s, a)`. RLGC Sec. 4.2 ("a
//!   random action, which is different from the one selected by the policy") and the SLC-cache
//!   paper's Eq. (2) (`a != a*` with probability epsilon) both say this. Under `Proportional`
//!   the excluded action is the argmax, not the stochastic draw. With one action it returns 0.
//! * `Uniform`: any action uniformly, as the FSP paper's Algorithm 1 line 5 ("return random
//!   action"). Note the FSP text (Sec. III-B) inverts the comparison with `zeta < epsilon`; we
//!   take the algorithm's and every other paper's reading: explore with probability epsilon.
//!
//! Random draws, in order, so runs are reproducible: one `f64` coin for explore-vs-exploit
//! (always drawn, even when epsilon is 0 or 1), then one `f64` for `Proportional` or one
//! `gen_range` for exploration. Nothing else touches the generator.

use rand::Rng;
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::rl::qtable::argmax;

/// What the agent does when it exploits.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Exploit {
    /// The best action; ties go to the lowest index (repeatable without drawing).
    Greedy,
    /// The best action; ties broken uniformly at random (a fresh all-zero row does not always
    /// pick action 0).
    GreedyRandomTies,
    Proportional {
        #[serde(default = "default_floor")]
        floor: f64,
    },
}

fn default_floor() -> f64 {
    0.01
}

/// What the agent does when it explores.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Explore {
    Uniform,
    NonGreedy,
}

/// The pair of rules; see the module header.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ActionSelection {
    pub exploit: Exploit,
    pub explore: Explore,
}

impl Default for ActionSelection {
    /// Textbook epsilon-greedy: greedy exploitation, uniform exploration.
    fn default() -> Self {
        ActionSelection { exploit: Exploit::Greedy, explore: Explore::Uniform }
    }
}

impl ActionSelection {
    /// RLGC: stochastic policy (footnote 2), exploration away from the policy's action (Sec. 4.2).
    pub const fn rlgc() -> Self {
        ActionSelection { exploit: Exploit::Proportional { floor: 0.01 }, explore: Explore::NonGreedy }
    }

    /// FSP Algorithm 1 lines 2-7: argmax, or any random action.
    pub const fn fsp() -> Self {
        ActionSelection { exploit: Exploit::Greedy, explore: Explore::Uniform }
    }

    /// SLC-cache paper Eq. (2): argmax, or a random action other than the argmax. Ties are
    /// broken at random (ours: with the lowest index, every unvisited state of the 1,296 would
    /// first take action 0, which shrinks the cache).
    pub const fn slc_cache() -> Self {
        ActionSelection { exploit: Exploit::GreedyRandomTies, explore: Explore::NonGreedy }
    }

    pub fn validate(&self, prefix: &str) -> Result<()> {
        if let Exploit::Proportional { floor } = self.exploit {
            if !(floor > 0.0 && floor.is_finite()) {
                return Err(Error::config(
                    format!("{prefix}.exploit.floor"),
                    format!("must be a positive finite number, got {floor}"),
                ));
            }
        }
        Ok(())
    }
}

/// The chosen action and whether it came from exploration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Choice {
    pub action: usize,
    pub explored: bool,
}

/// `epsilon_greedy`, or for the random-action control (`random_control`) a uniformly drawn
/// action counted as explored (one `gen_range` draw). The control keeps every trigger, mask and
/// state of the policy; only the choice ignores the values.
#[inline]
pub fn choose<R: Rng + ?Sized>(
    row: &[f64],
    epsilon: f64,
    selection: &ActionSelection,
    random_control: bool,
    rng: &mut R,
) -> Choice {
    if random_control {
        return Choice { action: rng.gen_range(0..row.len()), explored: true };
    }
    epsilon_greedy(row, epsilon, selection, rng)
}

/// Epsilon-greedy selection over `row` (one Q value per action; must be non-empty).
#[inline]
pub fn epsilon_greedy<R: Rng + ?Sized>(row: &[f64], epsilon: f64, selection: &ActionSelection, rng: &mut R) -> Choice {
    debug_assert!(!row.is_empty());
    let coin: f64 = rng.gen();
    if coin < epsilon {
        Choice { action: explore(row, selection.explore, rng), explored: true }
    } else {
        Choice { action: exploit(row, selection.exploit, rng), explored: false }
    }
}

/// The exploitation rule alone.
#[inline]
pub fn exploit<R: Rng + ?Sized>(row: &[f64], rule: Exploit, rng: &mut R) -> usize {
    match rule {
        Exploit::Greedy => argmax(row),
        Exploit::GreedyRandomTies => {
            let best = row[argmax(row)];
            let ties = row.iter().filter(|&&v| v == best).count();
            if ties == 1 {
                return argmax(row);
            }
            let k = rng.gen_range(0..ties);
            row.iter().enumerate().filter(|(_, &v)| v == best).nth(k).map(|(i, _)| i).unwrap_or(0)
        }
        Exploit::Proportional { floor } => sample_proportional(row, floor, rng),
    }
}

/// The exploration rule alone.
#[inline]
pub fn explore<R: Rng + ?Sized>(row: &[f64], rule: Explore, rng: &mut R) -> usize {
    let n = row.len();
    match rule {
        Explore::Uniform => rng.gen_range(0..n),
        Explore::NonGreedy => {
            if n == 1 {
                return 0;
            }
            let greedy = argmax(row);
            let k = rng.gen_range(0..n - 1);
            if k >= greedy {
                k + 1
            } else {
                k
            }
        }
    }
}

#[inline]
fn proportional_shift(row: &[f64], floor: f64) -> f64 {
    let min = row.iter().copied().fold(f64::INFINITY, f64::min);
    (-min).max(0.0) + floor
}

/// The probabilities `Proportional { floor }` gives each action, written into `out`.
pub fn proportional_probabilities(row: &[f64], floor: f64, out: &mut [f64]) {
    debug_assert_eq!(row.len(), out.len());
    let shift = proportional_shift(row, floor);
    let total: f64 = row.iter().map(|q| q + shift).sum();
    for (p, q) in out.iter_mut().zip(row) {
        *p = (q + shift) / total;
    }
}

/// Draw an action with probability proportional to its shifted Q value (one `f64` draw).
#[inline]
pub fn sample_proportional<R: Rng + ?Sized>(row: &[f64], floor: f64, rng: &mut R) -> usize {
    let shift = proportional_shift(row, floor);
    let total: f64 = row.iter().map(|q| q + shift).sum();
    let u = rng.gen::<f64>() * total;
    let mut acc = 0.0;
    for (a, q) in row.iter().enumerate() {
        acc += q + shift;
        if u < acc {
            return a;
        }
    }
    row.len() - 1 // only reachable through rounding in `acc`
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_pcg::Pcg64Mcg;

    fn probs(row: &[f64], floor: f64) -> Vec<f64> {
        let mut out = vec![0.0; row.len()];
        proportional_probabilities(row, floor, &mut out);
        out
    }

    fn well_formed(p: &[f64]) {
        assert!(p.iter().all(|&x| x > 0.0 && x <= 1.0), "{p:?}");
        assert!((p.iter().sum::<f64>() - 1.0).abs() < 1e-12, "{p:?}");
    }

    #[test]
    fn proportional_probabilities_are_well_formed() {
        for row in [
            vec![0.0, 0.0, 0.0],
            vec![1.0, 2.0, 3.0],
            vec![-0.5, 0.2, 1.0],
            vec![-3.0, -2.0, -1.0],
            vec![0.0],
            vec![1e6, -1e6],
        ] {
            well_formed(&probs(&row, 0.01));
        }
    }

    #[test]
    fn proportional_equal_rows_are_uniform() {
        for v in [0.0, 2.5, -0.7] {
            let p = probs(&[v; 4], 0.01);
            assert!(p.iter().all(|&x| (x - 0.25).abs() < 1e-15), "{p:?}");
        }
    }

    #[test]
    fn proportional_by_hand() {
        // Non-negative row: no shift, weights Q + floor = [0.01, 1.01, 3.01], total 4.03.
        let p = probs(&[0.0, 1.0, 3.0], 0.01);
        assert!((p[1] - 1.01 / 4.03).abs() < 1e-15);
        // Negative minimum: shift by 0.5, weights [0.01, 0.51, 1.51], total 2.03.
        let p = probs(&[-0.5, 0.0, 1.0], 0.01);
        assert!((p[0] - 0.01 / 2.03).abs() < 1e-15);
        assert!((p[2] - 1.51 / 2.03).abs() < 1e-15);
    }

    #[test]
    fn proportional_sampling_matches_probabilities() {
        let row = [-0.5, 0.0, 1.0];
        let mut rng = Pcg64Mcg::seed_from_u64(1);
        let mut counts = [0u32; 3];
        let n = 200_000;
        for _ in 0..n {
            counts[sample_proportional(&row, 0.01, &mut rng)] += 1;
        }
        let p = probs(&row, 0.01);
        for a in 0..3 {
            let f = counts[a] as f64 / n as f64;
            assert!((f - p[a]).abs() < 0.005, "action {a}: {f} vs {}", p[a]);
        }
    }

    #[test]
    fn greedy_without_exploration_and_tie_break() {
        let mut rng = Pcg64Mcg::seed_from_u64(2);
        let sel = ActionSelection::default();
        for _ in 0..100 {
            let c = epsilon_greedy(&[0.1, 0.9, 0.9], 0.0, &sel, &mut rng);
            assert_eq!(c, Choice { action: 1, explored: false });
        }
    }

    #[test]
    fn non_greedy_exploration_never_returns_the_argmax() {
        let mut rng = Pcg64Mcg::seed_from_u64(3);
        let sel = ActionSelection::slc_cache();
        let mut seen = [0u32; 3];
        for _ in 0..3000 {
            let c = epsilon_greedy(&[0.1, 0.9, 0.2], 1.0, &sel, &mut rng);
            assert!(c.explored);
            assert_ne!(c.action, 1);
            seen[c.action] += 1;
        }
        assert!(seen[0] > 1300 && seen[2] > 1300, "{seen:?}");
        assert_eq!(explore(&[5.0], Explore::NonGreedy, &mut rng), 0);
    }

    #[test]
    fn random_ties_spread_over_the_best_actions_only() {
        let mut rng = Pcg64Mcg::seed_from_u64(5);
        let mut seen = [0u32; 4];
        for _ in 0..3000 {
            seen[exploit(&[0.0, 2.0, -1.0, 2.0], Exploit::GreedyRandomTies, &mut rng)] += 1;
        }
        assert_eq!((seen[0], seen[2]), (0, 0), "{seen:?}");
        assert!(seen[1] > 1300 && seen[3] > 1300, "{seen:?}");
        assert_eq!(exploit(&[0.0, 3.0, 2.0], Exploit::GreedyRandomTies, &mut rng), 1);
    }

    #[test]
    fn uniform_exploration_covers_every_action() {
        let mut rng = Pcg64Mcg::seed_from_u64(4);
        let mut seen = [0u32; 4];
        for _ in 0..4000 {
            seen[explore(&[0.0, 9.0, 0.0, 0.0], Explore::Uniform, &mut rng)] += 1;
        }
        assert!(seen.iter().all(|&c| c > 850), "{seen:?}");
    }

    #[test]
    fn exploration_rate_follows_epsilon_and_is_reproducible() {
        let run = |seed| {
            let mut rng = Pcg64Mcg::seed_from_u64(seed);
            (0..10_000)
                .map(|_| epsilon_greedy(&[0.3, 0.1, -0.2], 0.2, &ActionSelection::rlgc(), &mut rng))
                .collect::<Vec<_>>()
        };
        let a = run(5);
        assert_eq!(a, run(5));
        let explored = a.iter().filter(|c| c.explored).count();
        assert!((1800..2200).contains(&explored), "{explored}");
    }

    #[test]
    fn random_control_is_uniform_whatever_the_values() {
        let mut rng = Pcg64Mcg::seed_from_u64(8);
        let mut seen = [0u32; 3];
        for _ in 0..6000 {
            let c = choose(&[9.0, 0.0, -9.0], 0.0, &ActionSelection::default(), true, &mut rng);
            assert!(c.explored);
            seen[c.action] += 1;
        }
        assert!(seen.iter().all(|&n| (1800..2200).contains(&n)), "{seen:?}");
        let c = choose(&[9.0, 0.0, -9.0], 0.0, &ActionSelection::default(), false, &mut rng);
        assert_eq!(c, Choice { action: 0, explored: false });
    }

    #[test]
    fn selection_serde_and_validation() {
        let s: ActionSelection =
            serde_json::from_str(r#"{"exploit":{"kind":"proportional"},"explore":"non_greedy"}"#).unwrap();
        assert_eq!(s, ActionSelection::rlgc());
        assert!(s.validate("x").is_ok());
        let bad = ActionSelection { exploit: Exploit::Proportional { floor: 0.0 }, explore: Explore::Uniform };
        assert!(bad.validate("x").is_err());
    }
}
