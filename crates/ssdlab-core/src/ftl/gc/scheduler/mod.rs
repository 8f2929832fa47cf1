//! Layer: ftl. GC schedulers, one file each; `build` is the only place that names them.

mod greedy;

pub use greedy::GreedyScheduler;

use crate::config::{GcConfig, GcSchedulerKind};
use crate::ftl::gc::GcScheduler;

pub fn build(cfg: &GcConfig) -> Box<dyn GcScheduler> {
    match cfg.scheduler {
        GcSchedulerKind::Greedy => Box::new(GreedyScheduler::new(cfg)),
    }
}
