//! Layer: ftl. Victim selection policies, one file each.

mod cost_benefit;
mod fifo;
mod greedy;

pub use cost_benefit::CostBenefitVictim;
pub use fifo::FifoVictim;
pub use greedy::GreedyVictim;

use crate::config::VictimKind;
use crate::ftl::gc::VictimPolicy;

pub fn build(kind: VictimKind) -> Box<dyn VictimPolicy> {
    match kind {
        VictimKind::Greedy => Box::new(GreedyVictim),
        VictimKind::Fifo => Box::new(FifoVictim),
        VictimKind::CostBenefit => Box::new(CostBenefitVictim),
    }
}
