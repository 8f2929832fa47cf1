//! Layer: ftl. FIFO victim selection: the block sealed longest ago, whatever its valid count
//! (the log-structured cleaner whose mean-field write amplification is 1/(1-u)).

use crate::ftl::gc::{VictimPolicy, VictimView};
use crate::units::BlockId;

#[derive(Clone)]
pub struct FifoVictim;

impl VictimPolicy for FifoVictim {
    fn select(&mut self, view: &mut VictimView, min_invalid_fraction: f64) -> Option<BlockId> {
        let b = view.oldest_sealed()?;
        (view.invalid_fraction(b) >= min_invalid_fraction).then_some(b)
    }
}
