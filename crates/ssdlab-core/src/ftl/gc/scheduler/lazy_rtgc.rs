//! Layer: ftl. Lazy-RTGC (Zhang, Li, Wang, Zhang, Wang, Shao, "Lazy-RTGC: A real-time lazy
//! garbage collection mechanism ...", ACM TODAES 20(3), 2015), as the RLGC paper uses it for its
//! baseline "Lazy" (Kang et al., ACM TECS 2017, Sec. 2, 5.2 "Intensive Garbage Collection" and
//! 6.1; implementation notes A4).
//!
//! * GC is postponed until device-wide free blocks fall under `gc.trigger_free_blocks`.
//! * Then the victim (chosen by the configured victim policy, greedy by default: most invalid
//!   pages) is emptied in partial tasks of at most alpha valid-page copies, the erase being the
//!   last task; one task runs after each write request is served, none after reads.
//!   `alpha = [gc.lazy_rtgc] copies_per_step`, by default floor(tBERS / (tR + tPROG)) of the
//!   device (see `partial::copies_per_erase`: 6 on kang-3d-128gb, 4 on kang-3d-512gb, 5 on tiny).
//! * Intensive mode: when the host is left with one free block, every write is followed by
//!   `[gc.lazy_rtgc.intensive] copies` (7) copies instead, until more than one block is free.
//!
//! Deviations from the paper:
//! * A victim whose partial tasks have started is finished even if free blocks climb back to the
//!   threshold meanwhile (a write is followed by a task while the victim still holds valid
//!   pages); the paper's task list has the same effect. A victim whose copies are done but whose
//!   erase is pending waits for the next trigger (the observation cannot tell it from "no
//!   victim"); its pages are all invalid, so nothing is lost.
//! * The original reclaims blocks holding no valid page during idle time. Here that needs
//!   `gc.background = "idle"` (off by default, as in the RLGC paper's runs of this baseline):
//!   each idle step erases one block without valid pages, or does one copy of the victim
//!   partial tasks left (then its erase: idle time is free).
//! * Intensive-mode thresholds count blocks the host may still open (each plane keeps one free
//!   block for GC relocations), see `partial.rs`. Intensive copies "5 or 7" in the RLGC paper:
//!   we take 7 (victims of the 7 % over-provisioned presets hold up to ~85 % valid pages, so a
//!   write needs ~u/(1-u) = 5.7 copies to break even).
//! * The FTL's emergency reclaim (a blocking whole-victim GC when a write finds no room) is the
//!   safety net if all this is not enough; it is counted in `gc.emergency_reclaims`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::config::GcBackground;
use crate::config::GcConfig;
use crate::error::ConfigProblem;
use crate::ftl::gc::scheduler::partial::{Checks, IntensiveConfig, IntensiveMode, DEFAULT_INTENSIVE_COPIES};
use crate::ftl::gc::{GcAction, GcObservation, GcScheduler, IdleObservation};
use crate::registry::{PolicySettings, Settings};
use crate::workload::IoOp;

/// `[gc.lazy_rtgc]`: Lazy-RTGC's partial GC (Zhang et al., TODAES 2015, as RLGC's baseline).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct LazyRtgcSettings {
    /// Valid-page copies per partial task (alpha). Unset: floor(tBERS / (tR + tPROG)) of the
    /// device, the most copies that fit in one block-erase time.
    pub copies_per_step: Option<u32>,
    /// Copies per step in intensive mode (RLGC Sec. 5.2: "5 or 7"; ours 7).
    pub intensive_copies: u32,
    /// Enter intensive mode with this many host-usable free blocks left ("one free block": 1).
    pub intensive_enter_free_blocks: u32,
    /// Leave intensive mode above this many host-usable free blocks (Lazy-RTGC: "greater than
    /// one": 1).
    pub intensive_stop_free_blocks: u32,
}

impl LazyRtgcSettings {
    pub fn intensive(&self) -> IntensiveConfig {
        IntensiveConfig {
            copies: self.intensive_copies,
            enter_free_blocks: self.intensive_enter_free_blocks,
            stop_free_blocks: self.intensive_stop_free_blocks,
        }
    }
}

impl Default for LazyRtgcSettings {
    fn default() -> Self {
        LazyRtgcSettings {
            copies_per_step: None,
            intensive_copies: DEFAULT_INTENSIVE_COPIES,
            intensive_enter_free_blocks: 1,
            intensive_stop_free_blocks: 1,
        }
    }
}

impl PolicySettings for LazyRtgcSettings {
    fn problems_at(&self, table: &str) -> Vec<ConfigProblem> {
        let mut c = Checks::new(table);
        c.copies("copies_per_step", self.copies_per_step);
        c.intensive(&self.intensive());
        c.problems
    }
}

/// Where the settings are written (`[gc.lazy_rtgc]`).
pub const SETTINGS: Settings = Settings::of::<LazyRtgcSettings>("gc.lazy_rtgc");

#[derive(Clone)]
pub struct LazyRtgcScheduler {
    trigger_free_blocks: u32,
    copies_per_step: u32,
    intensive: IntensiveMode,
    writes: u64,
    steps: u64,
    idle_reclaim: bool,
}

impl LazyRtgcScheduler {
    /// `alpha` is the device's `copies_per_erase`, used unless the config sets the step.
    pub fn new(cfg: &GcConfig, settings: &LazyRtgcSettings, alpha: u32) -> Self {
        LazyRtgcScheduler {
            trigger_free_blocks: cfg.trigger_free_blocks,
            copies_per_step: settings.copies_per_step.unwrap_or(alpha),
            intensive: IntensiveMode::new(&settings.intensive()),
            writes: 0,
            steps: 0,
            idle_reclaim: cfg.background == GcBackground::Idle,
        }
    }

    pub fn copies_per_step(&self) -> u32 {
        self.copies_per_step
    }
}

impl GcScheduler for LazyRtgcScheduler {
    fn before_serve(&mut self, obs: &GcObservation) -> GcAction {
        self.intensive.update(obs.host_free_blocks);
        GcAction::Nothing
    }

    fn after_serve(&mut self, obs: &GcObservation, _response_ns: u64) -> GcAction {
        self.intensive.update(obs.host_free_blocks);
        if obs.op != IoOp::Write {
            return GcAction::Nothing;
        }
        self.writes += 1;
        let copies = if self.intensive.is_active() {
            self.intensive.step()
        } else if obs.free_blocks < self.trigger_free_blocks || obs.victim_valid_left > 0 {
            self.steps += 1;
            self.copies_per_step
        } else {
            return GcAction::Nothing;
        };
        GcAction::Partial { copies, min_invalid_fraction: 0.0 }
    }

    fn on_idle(&mut self, _obs: &IdleObservation) -> GcAction {
        if self.idle_reclaim {
            // Only blocks that hold no valid page (unless a started victim is pending: then
            // its remaining copies, one per step, and its erase).
            GcAction::Partial { copies: 1, min_invalid_fraction: 1.0 }
        } else {
            GcAction::Nothing
        }
    }

    fn report(&self) -> serde_json::Value {
        json!({
            "copies_per_step": self.copies_per_step,
            "trigger_free_blocks": self.trigger_free_blocks,
            "writes": self.writes,
            "steps": self.steps,
            "intensive": self.intensive.stats(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ftl::gc::scheduler::test_support::obs;

    fn scheduler() -> LazyRtgcScheduler {
        let cfg = GcConfig { trigger_free_blocks: 10, ..GcConfig::default() };
        LazyRtgcScheduler::new(&cfg, &LazyRtgcSettings::default(), 6)
    }

    fn partial(copies: u32) -> GcAction {
        GcAction::Partial { copies, min_invalid_fraction: 0.0 }
    }

    #[test]
    fn lazy_then_alpha_copies_after_writes_only() {
        let mut s = scheduler();
        let w = obs(1, IoOp::Write, 10, 8);
        assert_eq!(s.before_serve(&w), GcAction::Nothing, "never blocks a request");
        assert_eq!(s.after_serve(&w, 100), GcAction::Nothing, "10 free blocks: not under the threshold");
        let w = obs(2, IoOp::Write, 9, 7);
        assert_eq!(s.after_serve(&w, 100), partial(6));
        let r = obs(3, IoOp::Read, 9, 7);
        assert_eq!(s.after_serve(&r, 100), GcAction::Nothing, "no task after reads");
        // A started victim is finished above the threshold.
        let mut w = obs(4, IoOp::Write, 12, 10);
        w.victim_valid_left = 3;
        assert_eq!(s.after_serve(&w, 100), partial(6));
    }

    #[test]
    fn intensive_mode_enters_at_one_free_block_and_leaves_above_one() {
        let mut s = scheduler();
        assert_eq!(s.after_serve(&obs(1, IoOp::Write, 4, 2), 1), partial(6));
        assert_eq!(s.after_serve(&obs(2, IoOp::Write, 3, 1), 1), partial(7), "one host block left");
        assert_eq!(s.after_serve(&obs(3, IoOp::Read, 3, 1), 1), GcAction::Nothing, "still none after reads");
        assert_eq!(s.after_serve(&obs(4, IoOp::Write, 2, 0), 1), partial(7));
        assert_eq!(s.after_serve(&obs(5, IoOp::Write, 3, 1), 1), partial(7));
        assert_eq!(s.after_serve(&obs(6, IoOp::Write, 4, 2), 1), partial(6), "left above one");
        let r = s.report();
        assert_eq!(r["intensive"]["entries"], 1);
        assert_eq!(r["intensive"]["steps"], 3);
    }
}
