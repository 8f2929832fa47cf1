//! Layer: ftl. Greedy victim selection: the sealed block with the fewest valid pages, found in
//! O(pages per block) from the block manager's valid-count buckets.

use crate::ftl::gc::{VictimPolicy, VictimView};
use crate::units::BlockId;

pub struct GreedyVictim;

impl VictimPolicy for GreedyVictim {
    fn id(&self) -> &'static str {
        "greedy"
    }
    fn select(&mut self, view: &mut VictimView, min_invalid_fraction: f64) -> Option<BlockId> {
        let b = view.min_valid_sealed()?;
        (view.invalid_fraction(b) >= min_invalid_fraction).then_some(b)
    }
}
