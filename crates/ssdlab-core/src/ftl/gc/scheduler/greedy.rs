//! Layer: ftl. Blocking (foreground) GC, the RLGC paper's "page-level" baseline (Kang et al.
//! 2017, Sec. 6.1): when a write arrives and fewer than `trigger_free_blocks` blocks are free,
//! whole victims are reclaimed before the write is served, until `target_free_blocks` are free.
//! Reads never trigger GC. The victim policy (greedy by default) is configured separately.
//!
//! With `gc.background = "idle"` it also reclaims in idle time: while free blocks are below
//! `gc.background_free_blocks` (default twice the trigger), victims with at least one invalid
//! page, one page copy (or the victim's erase) per step, so that a request arriving in idle
//! time waits for at most one copy or erase (an ssdlab extension: the RLGC paper's baseline has no
//! idle GC; it is the usual background GC of drives, for comparison with idle-aware schedulers).

use crate::config::GcBackground;
use crate::config::GcConfig;
use crate::ftl::gc::{GcAction, GcObservation, GcScheduler, IdleObservation};
use crate::workload::IoOp;

#[derive(Clone)]
pub struct GreedyScheduler {
    trigger_free_blocks: u32,
    target_free_blocks: u32,
    /// Idle-time GC reclaims while free blocks are below this (None: no idle GC).
    background_free_blocks: Option<u32>,
    /// `gc.background = "between_requests"`: after each request, one line collection while free
    /// blocks are below this (None: off).
    between_requests_below: Option<u32>,
}

/// FEMU's `select_victim_line(ssd, force = false)`: a background victim needs at least 1/8 of
/// its pages invalid (`victim->ipc < pgs_per_line / 8` is refused).
pub const FEMU_BACKGROUND_MIN_INVALID: f64 = 0.125;

impl GreedyScheduler {
    pub fn new(cfg: &GcConfig) -> Self {
        GreedyScheduler {
            trigger_free_blocks: cfg.trigger_free_blocks,
            target_free_blocks: cfg.target_free_blocks.unwrap_or(cfg.trigger_free_blocks + 1),
            background_free_blocks: (cfg.background == GcBackground::Idle)
                .then(|| cfg.background_free_blocks.unwrap_or(2 * cfg.trigger_free_blocks)),
            between_requests_below: (cfg.background == GcBackground::BetweenRequests)
                .then(|| cfg.background_free_blocks.unwrap_or(2 * cfg.trigger_free_blocks)),
        }
    }
}

impl GcScheduler for GreedyScheduler {
    fn before_serve(&mut self, obs: &GcObservation) -> GcAction {
        if obs.op == IoOp::Write && obs.free_blocks < self.trigger_free_blocks {
            GcAction::Reclaim { target_free_blocks: self.target_free_blocks }
        } else {
            GcAction::Nothing
        }
    }
    fn after_serve(&mut self, obs: &GcObservation, _response_ns: u64) -> GcAction {
        match self.between_requests_below {
            // One whole line (the FTL collects a line per step in line mode).
            Some(below) if obs.free_blocks < below => {
                GcAction::Partial { copies: u32::MAX, min_invalid_fraction: FEMU_BACKGROUND_MIN_INVALID }
            }
            _ => GcAction::Nothing,
        }
    }
    fn on_idle(&mut self, obs: &IdleObservation) -> GcAction {
        match self.background_free_blocks {
            // One copy (or the erase) of a victim with an invalid page (a fully valid one would
            // free nothing).
            Some(below) if obs.free_blocks < below || obs.victim_valid_left > 0 => {
                GcAction::Partial { copies: 1, min_invalid_fraction: f64::MIN_POSITIVE }
            }
            _ => GcAction::Nothing,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn idle(free_blocks: u32, victim_valid_left: u32) -> IdleObservation {
        IdleObservation { now: 0, free_blocks, total_blocks: 100, victim_valid_left }
    }

    #[test]
    fn idle_gc_only_when_asked_and_below_its_own_threshold() {
        let copy = GcAction::Partial { copies: 1, min_invalid_fraction: f64::MIN_POSITIVE };
        let mut off = GreedyScheduler::new(&GcConfig { trigger_free_blocks: 5, ..GcConfig::default() });
        assert_eq!(off.on_idle(&idle(0, 0)), GcAction::Nothing, "background off");
        let cfg = GcConfig { trigger_free_blocks: 5, background: GcBackground::Idle, ..GcConfig::default() };
        let mut s = GreedyScheduler::new(&cfg);
        assert_eq!(s.on_idle(&idle(9, 0)), copy, "default threshold: twice the trigger (10)");
        assert_eq!(s.on_idle(&idle(10, 0)), GcAction::Nothing);
        assert_eq!(s.on_idle(&idle(10, 3)), copy, "a started victim is finished");
        let mut s = GreedyScheduler::new(&GcConfig { background_free_blocks: Some(20), ..cfg });
        assert_eq!(s.on_idle(&idle(19, 0)), copy);
    }

    #[test]
    fn between_requests_collects_after_each_request_below_its_threshold() {
        use crate::ftl::gc::scheduler::test_support::obs;
        let line = GcAction::Partial { copies: u32::MAX, min_invalid_fraction: FEMU_BACKGROUND_MIN_INVALID };
        let mut off = GreedyScheduler::new(&GcConfig { trigger_free_blocks: 5, ..GcConfig::default() });
        assert_eq!(off.after_serve(&obs(1, IoOp::Write, 0, 0), 10), GcAction::Nothing, "background off");
        let cfg = GcConfig {
            trigger_free_blocks: 5,
            background: GcBackground::BetweenRequests,
            background_free_blocks: Some(20),
            ..GcConfig::default()
        };
        let mut s = GreedyScheduler::new(&cfg);
        assert_eq!(s.after_serve(&obs(1, IoOp::Read, 19, 19), 10), line, "after reads too");
        assert_eq!(s.after_serve(&obs(2, IoOp::Write, 20, 20), 10), GcAction::Nothing);
        assert_eq!(s.on_idle(&idle(0, 0)), GcAction::Nothing, "no idle-time work");
        // The foreground is unchanged.
        assert_eq!(s.before_serve(&obs(3, IoOp::Write, 4, 4)), GcAction::Reclaim { target_free_blocks: 6 });
    }
}
