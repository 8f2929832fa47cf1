//! Layer: ftl. Blocking (foreground) GC, the RLGC paper's "page-level" baseline (Kang et al.
//! 2017, Sec. 6.1): when a write arrives and fewer than `trigger_free_blocks` blocks are free,
//! whole victims are reclaimed before the write is served, until `target_free_blocks` are free.
//! Reads never trigger GC. The victim policy (greedy by default) is configured separately.

use crate::config::GcConfig;
use crate::ftl::gc::{GcAction, GcObservation, GcScheduler};
use crate::workload::IoOp;

pub struct GreedyScheduler {
    trigger_free_blocks: u32,
    target_free_blocks: u32,
}

impl GreedyScheduler {
    pub fn new(cfg: &GcConfig) -> Self {
        GreedyScheduler {
            trigger_free_blocks: cfg.trigger_free_blocks,
            target_free_blocks: cfg.target_free_blocks.unwrap_or(cfg.trigger_free_blocks + 1),
        }
    }
}

impl GcScheduler for GreedyScheduler {
    fn id(&self) -> &'static str {
        "greedy"
    }
    fn before_serve(&mut self, obs: &GcObservation) -> GcAction {
        if obs.op == IoOp::Write && obs.free_blocks < self.trigger_free_blocks {
            GcAction::Reclaim { target_free_blocks: self.target_free_blocks }
        } else {
            GcAction::Nothing
        }
    }
    fn after_serve(&mut self, _obs: &GcObservation, _response_ns: u64) -> GcAction {
        GcAction::Nothing
    }
}
