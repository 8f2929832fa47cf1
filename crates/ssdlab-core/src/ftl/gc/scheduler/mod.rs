//! Layer: ftl. GC schedulers, one file each; `build` is the only place that names them.
//!
//! | id | file | paper |
//! |---|---|---|
//! | `greedy` | `greedy.rs` | blocking GC, RLGC's "page-level" baseline |
//! | `lazy_rtgc` | `lazy_rtgc.rs` | Zhang et al. 2015, as RLGC's baseline "Lazy" |
//! | `rlgc`, `rlgc_aggressive` | `rlgc.rs` (+ `framework.rs`) | Kang, Shin, Yoo 2017, Sec. 5.2, 5.3 |
//! | `rlgc_qtc` | `rlgc_qtc.rs` (+ `framework.rs`) | Kang & Yoo 2018 (Q-table cache) |
//! | `predictor` | `predictor.rs` (+ `framework.rs`) | Kang et al. 2017, Tables 11-12 |
//!
//! `partial.rs` holds what the partial-GC schedulers share (alpha, intensive GC).

mod framework;
mod greedy;
mod lazy_rtgc;
mod partial;
mod predictor;
mod rlgc;
mod rlgc_qtc;

pub use framework::{Decider, Decision, Driver, History};
pub use greedy::GreedyScheduler;
pub use lazy_rtgc::LazyRtgcScheduler;
pub use partial::{copies_per_erase, copy_ns};
pub use predictor::PredictorScheduler;
pub use rlgc::RlgcScheduler;
pub use rlgc_qtc::RlgcQtcScheduler;

use rand_pcg::Pcg64Mcg;

use crate::config::{GcSchedulerKind, ValidatedConfig};
use crate::error::Result;
use crate::ftl::gc::GcScheduler;

/// The configured scheduler. `rng` is the run's policy stream (used by the RL schedulers).
pub fn build(cfg: &ValidatedConfig, rng: Pcg64Mcg) -> Result<Box<dyn GcScheduler>> {
    let gc = &cfg.gc;
    let timing = &cfg.device.timing;
    let alpha = copies_per_erase(timing);
    Ok(match gc.scheduler {
        GcSchedulerKind::Greedy => Box::new(GreedyScheduler::new(gc)),
        GcSchedulerKind::LazyRtgc => Box::new(LazyRtgcScheduler::new(gc, alpha)),
        GcSchedulerKind::Rlgc => Box::new(rlgc::build(gc, false, rng)?),
        GcSchedulerKind::RlgcAggressive => Box::new(rlgc::build(gc, true, rng)?),
        GcSchedulerKind::RlgcQtc => Box::new(rlgc_qtc::build(gc, rng)?),
        GcSchedulerKind::Predictor => Box::new(predictor::build(gc, copy_ns(timing), rng)?),
    })
}

#[cfg(test)]
pub(crate) mod test_support {
    use crate::ftl::gc::GcObservation;
    use crate::workload::IoOp;

    /// A 1-page request arriving 1 ms after the previous one, no GC done yet.
    pub fn obs(seq: u64, op: IoOp, free_blocks: u32, host_free_blocks: u32) -> GcObservation {
        GcObservation {
            now: seq * 1_000_000,
            request_seq: seq,
            op,
            request_pages: 1,
            free_blocks,
            host_free_blocks,
            total_blocks: 1000,
            interval_ns: 1_000_000,
            victim_valid_left: 0,
            pages_per_block: 384,
            gc_copies_total: 0,
            gc_erases_total: 0,
        }
    }
}
