//! Layer: ftl. Victim selection policies, one file each; `REGISTRY` is the only place that
//! names them (`gc.victim`).

mod cost_benefit;
mod fifo;
mod greedy;

pub use cost_benefit::CostBenefitVictim;
pub use fifo::FifoVictim;
pub use greedy::GreedyVictim;

use crate::ftl::gc::VictimPolicy;
use crate::ftl::registry::Entry;

pub type BuildVictim = fn() -> Box<dyn VictimPolicy>;

pub const REGISTRY: &[Entry<BuildVictim>] = &[
    Entry { id: "greedy", summary: "fewest valid pages", build: || Box::new(GreedyVictim) },
    Entry { id: "fifo", summary: "oldest sealed block", build: || Box::new(FifoVictim) },
    Entry {
        id: "cost_benefit",
        summary: "max (1 - u) x age / 2u (Kawaguchi et al.)",
        build: || Box::new(CostBenefitVictim),
    },
];
