//! Layer: ftl. Greedy victim selection: the sealed block with the fewest valid pages, found in
//! O(pages per block) from the block manager's valid-count buckets. In a line-mode region
//! (`ftl.placement = "line"`, FEMU's allocation) the sealed line with the fewest valid pages,
//! among those GC can write back now (ties: the line sealed first).

use crate::ftl::gc::{LineVictim, LineVictimView, VictimPolicy, VictimView};
use crate::units::BlockId;

#[derive(Clone)]
pub struct GreedyVictim;

impl VictimPolicy for GreedyVictim {
    fn select(&mut self, view: &mut VictimView, min_invalid_fraction: f64) -> Option<BlockId> {
        let b = view.min_valid_sealed()?;
        (view.invalid_fraction(b) >= min_invalid_fraction).then_some(b)
    }
    fn select_lines(&mut self, view: &LineVictimView) -> Option<LineVictim> {
        let line =
            view.lines().iter().filter(|l| l.collectable && l.invalid_pages() > 0).min_by_key(|l| l.valid_pages)?;
        Some(LineVictim::Line(line.index))
    }
}
