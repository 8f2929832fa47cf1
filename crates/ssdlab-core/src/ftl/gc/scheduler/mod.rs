//! Layer: ftl. GC schedulers, one file each; `REGISTRY` is the only place that names them.
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
mod rlgc_settings;

pub use framework::{Decider, Decision, Driver, History};
pub use greedy::GreedyScheduler;
pub use lazy_rtgc::LazyRtgcScheduler;
pub use lazy_rtgc::LazyRtgcSettings;
pub use partial::{copies_per_erase, copy_ns, IntensiveConfig};
pub use predictor::{PredictorKind, PredictorScheduler, PredictorSettings};
pub use rlgc::RlgcScheduler;
pub use rlgc_qtc::{QtcSettings, RlgcQtcScheduler};
pub use rlgc_settings::{RewardRequest, RlgcPolicyKind, RlgcSettings, ZeroInterval};

use rand_pcg::Pcg64Mcg;

use std::collections::BTreeMap;

use crate::config::GcConfig;
use crate::error::Result;
use crate::ftl::gc::GcScheduler;
use crate::nand::TimingConfig;
use crate::registry::{Entry, PolicyTables};

/// The settings tables of the RLGC family and Lazy-RTGC (`[gc.rlgc]` is read by `rlgc`,
/// `rlgc_aggressive`, `rlgc_qtc` and `predictor`).
pub mod settings {
    pub use super::lazy_rtgc::SETTINGS as LAZY_RTGC;
    pub use super::predictor::SETTINGS as PREDICTOR;
    pub use super::rlgc_qtc::SETTINGS as RLGC_QTC;
    pub use super::rlgc_settings::SETTINGS as RLGC;
}

/// What a scheduler is built from: the GC settings, the device timing (Lazy-RTGC's alpha, the
/// predictor's copy time), the run's policy random stream (the RL schedulers) and the policies'
/// own settings tables (`Config::policy_tables`, decoded by `Entry::settings`).
pub struct BuildCtx<'a> {
    pub gc: &'a GcConfig,
    pub timing: &'a TimingConfig,
    pub rng: Pcg64Mcg,
    pub tables: &'a BTreeMap<String, toml::Table>,
}

pub type BuildScheduler = fn(BuildCtx) -> Result<Box<dyn GcScheduler>>;

/// What the engine asks of a GC scheduler without naming it (`Entry::caps`).
#[derive(Debug, Clone, Copy)]
pub struct SchedulerCaps {
    /// Reclaims whole victims before the write that needs room, never in partial steps: the
    /// only kind per-plane GC (`gc.scope = "plane"`) and line collection support.
    pub blocking: bool,
    /// T_GC^A if the run's settings (its policies' tables) use RLGC's aggressive triggering
    /// (Sec. 5.3): it must then exceed T_GC and stay below the free blocks the drive can reach.
    pub aggressive: Aggressive,
    /// Has idle-time work (`GcScheduler::on_idle`): `gc.background = "idle"` is refused
    /// otherwise, rather than idle GC silently doing nothing.
    pub idle_work: bool,
    /// Chooses with a learning agent, so a random-action control (the `random_control` key of
    /// a table of this registry, `gc.rlgc.random_control`) can stand in for its choices.
    pub learns: bool,
    /// Has a decision point an outside agent can drive (`GcScheduler::decision_point`,
    /// `crate::decision`): `Simulation::attach` refuses the others with the ids that have one.
    pub decides: bool,
}

/// `SchedulerCaps::aggressive`: the run's T_GC^A, if its settings trigger aggressively.
pub type Aggressive = fn(&PolicyTables) -> Option<u32>;

const NEVER: Aggressive = |_| None;

/// `gc.scheduler`: every GC scheduler, one line each.
pub const REGISTRY: &[Entry<BuildScheduler, SchedulerCaps>] = &[
    Entry {
        id: "greedy",
        summary: "blocking GC of whole victims before a write (RLGC's page-level baseline)",
        build: |c| Ok(Box::new(GreedyScheduler::new(c.gc))),
        caps: SchedulerCaps { blocking: true, aggressive: NEVER, idle_work: true, learns: false, decides: false },
        settings: None,
    },
    Entry {
        id: "lazy_rtgc",
        summary: "Lazy-RTGC: partial tasks of alpha copies after writes, intensive mode",
        build: |c| {
            let settings = lazy_rtgc::SETTINGS.decode(c.tables)?;
            Ok(Box::new(LazyRtgcScheduler::new(c.gc, &settings, copies_per_erase(c.timing))))
        },
        caps: SchedulerCaps { blocking: false, aggressive: NEVER, idle_work: true, learns: false, decides: false },
        settings: Some(lazy_rtgc::SETTINGS),
    },
    Entry {
        id: "rlgc",
        summary: "RLGC: a Q-table picks the copies after each write (Kang et al. 2017)",
        build: |c| Ok(Box::new(rlgc::build(c.gc, &rlgc_settings::SETTINGS.decode(c.tables)?, false, c.rng)?)),
        caps: SchedulerCaps { blocking: false, aggressive: NEVER, idle_work: false, learns: true, decides: true },
        settings: Some(rlgc_settings::SETTINGS),
    },
    Entry {
        id: "rlgc_aggressive",
        summary: "RLGC with early and read-initiated triggering (Sec. 5.3)",
        build: |c| Ok(Box::new(rlgc::build(c.gc, &rlgc_settings::SETTINGS.decode(c.tables)?, true, c.rng)?)),
        caps: SchedulerCaps {
            blocking: false,
            aggressive: rlgc_settings::aggressive_trigger,
            idle_work: false,
            learns: true,
            decides: true,
        },
        settings: Some(rlgc_settings::SETTINGS),
    },
    Entry {
        id: "rlgc_qtc",
        summary: "RLGC over 17 features with a Q-table cache (Kang & Yoo 2018)",
        build: |c| {
            let (r, q) = (rlgc_settings::SETTINGS.decode(c.tables)?, rlgc_qtc::SETTINGS.decode(c.tables)?);
            Ok(Box::new(rlgc_qtc::build(c.gc, &r, &q, c.rng)?))
        },
        caps: SchedulerCaps {
            blocking: false,
            aggressive: rlgc_qtc::aggressive_trigger,
            idle_work: false,
            learns: true,
            decides: true,
        },
        settings: Some(rlgc_qtc::SETTINGS),
    },
    Entry {
        id: "predictor",
        summary: "RLGC's framework with an interval predictor (Tables 11-12)",
        build: |c| {
            let (r, p) = (rlgc_settings::SETTINGS.decode(c.tables)?, predictor::SETTINGS.decode(c.tables)?);
            Ok(Box::new(predictor::build(c.gc, &r, &p, copy_ns(c.timing), c.rng)?))
        },
        caps: SchedulerCaps {
            blocking: false,
            aggressive: predictor::aggressive_trigger,
            idle_work: false,
            learns: false,
            decides: true,
        },
        settings: Some(predictor::SETTINGS),
    },
];

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
            idle_before_ns: 1_000_000,
            victim_valid_left: 0,
            pages_per_block: 384,
            gc_copies_total: 0,
            gc_erases_total: 0,
        }
    }
}
