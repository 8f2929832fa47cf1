//! Layer: ftl. GC schedulers, one file each; `build` is the only place that names them.

mod greedy;

pub use greedy::GreedyScheduler;

use rand_pcg::Pcg64Mcg;

use crate::config::{GcSchedulerKind, ValidatedConfig};
use crate::error::Result;
use crate::ftl::gc::GcScheduler;

/// The configured scheduler. `rng` is the run's policy stream (for schedulers that draw).
pub fn build(cfg: &ValidatedConfig, _rng: Pcg64Mcg) -> Result<Box<dyn GcScheduler>> {
    let gc = &cfg.gc;
    Ok(match gc.scheduler {
        GcSchedulerKind::Greedy => Box::new(GreedyScheduler::new(gc)),
    })
}
