//! Layer: ftl. Cost-benefit victim selection (Kawaguchi et al., USENIX Winter 1995; Rosenblum &
//! Ousterhout's LFS cleaner): maximise (1 - u) * age / (2u), u = valid fraction, age = time since
//! the block was sealed. A block with u = 0 wins outright.
//!
//! Deviation: age is measured from when the block was sealed, not from the youngest data's
//! last modification (the block manager does not track per-page times). Scans every sealed block
//! (O(blocks) per victim); greedy is the fast path.

use crate::ftl::gc::{VictimPolicy, VictimView};
use crate::units::BlockId;

#[derive(Clone)]
pub struct CostBenefitVictim;

impl VictimPolicy for CostBenefitVictim {
    fn select(&mut self, view: &mut VictimView, min_invalid_fraction: f64) -> Option<BlockId> {
        let now = view.now;
        let mut best: Option<(f64, BlockId)> = None;
        for b in view.sealed_blocks() {
            let invalid = view.invalid_fraction(b);
            if invalid < min_invalid_fraction {
                continue;
            }
            let u = 1.0 - invalid;
            let age = (now.saturating_sub(view.sealed_at(b)) + 1) as f64;
            let score = if u == 0.0 { f64::INFINITY } else { (1.0 - u) * age / (2.0 * u) };
            if best.is_none_or(|(s, _)| score > s) {
                best = Some((score, b));
            }
        }
        best.map(|(_, b)| b)
    }
}
