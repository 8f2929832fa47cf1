//! Layer: sim. The outside agents attached to a run (`crate::decision`): `Simulation::attach`
//! a decision kind before the run, then `advance` to each decision and `act` on it. Kinds with
//! no agent attached keep their built-in policies. The event loop stops in two places, so the
//! policy takes the action exactly where its own agent's would have been taken:
//! * at the top of an event, when the attached policies leave a decision pending there
//!   (`asks_before`: the SLC step before a write, a buffered page's type before anything can
//!   evict it); after `act` the loop comes back to the same event, which is chosen again from
//!   the same state, and asks again until nothing is pending;
//! * right after the request whose arrival left a decision waiting (RLGC's copies, taken at
//!   its completion), before any other event.

use crate::decision::{ActionError, Decision, DecisionKind, DecisionSpace};
use crate::error::{Error, Result};
use crate::ftl::Ftl;
use crate::units::SimTime;

#[derive(Default)]
pub(super) struct Agents {
    /// Decision kinds an outside agent drives; empty for a run on its own.
    attached: Vec<DecisionKind>,
    /// Those of them asked at the top of events (`DecisionKind::asked_before_events`).
    asked_before_events: Vec<DecisionKind>,
}

impl Agents {
    /// An agent drives `kind` from the measured run's start (`started`: too late). Refused, with
    /// the policies that have one, if the chosen policy of that seam has no decision point.
    pub fn attach(&mut self, kind: DecisionKind, started: bool, ftl: &mut Ftl) -> Result<DecisionSpace> {
        if started {
            return Err(Error::config(kind.key(), "an outside agent attaches before the run starts"));
        }
        let space = ftl.decision_space(kind)?;
        if !self.attached.contains(&kind) {
            self.attached.push(kind);
            if kind.asked_before_events() {
                self.asked_before_events.push(kind);
            }
        }
        Ok(space)
    }

    /// The decision kinds attached.
    pub fn attached(&self) -> &[DecisionKind] {
        &self.attached
    }

    /// Take `action` for the decision waiting.
    pub fn act(&self, ftl: &mut Ftl, action: u32) -> Result<()> {
        for &kind in &self.attached {
            if let Some(point) = ftl.decision_point(kind) {
                if point.pending().is_some() {
                    return Ok(point.act(action)?);
                }
            }
        }
        Err(ActionError::NothingPending.into())
    }

    /// The decision waiting for an outside agent, if any.
    pub fn waiting_decision(&self, ftl: &mut Ftl) -> Option<Decision> {
        for &kind in &self.attached {
            if let Some(d) = ftl.decision_point(kind).and_then(|p| p.pending().cloned()) {
                return Some(d);
            }
        }
        None
    }

    /// Whether a decision waits for an outside agent (false at once when none is attached).
    #[inline]
    pub fn decision_waiting(&self, ftl: &mut Ftl) -> bool {
        !self.attached.is_empty() && any_pending(ftl, &self.attached)
    }

    /// The top of an event at `at` (`write_arrival`: whether it is a host write's arrival,
    /// asked only when needed): the attached kinds asked there leave pending what they need
    /// decided before it. True if a decision now waits (the loop stops and comes back to the
    /// same event after `act`); false at once when no such kind is attached (no agent, or only
    /// RLGC's).
    #[inline(always)]
    pub fn asks_before(&self, ftl: &mut Ftl, at: SimTime, write_arrival: impl FnOnce() -> bool) -> bool {
        !self.asked_before_events.is_empty() && self.ask_before(ftl, write_arrival(), at)
    }

    #[cold]
    #[inline(never)]
    fn ask_before(&self, ftl: &mut Ftl, write_arrival: bool, at: SimTime) -> bool {
        ftl.before_event(&self.asked_before_events, write_arrival, at);
        any_pending(ftl, &self.asked_before_events)
    }

    /// The measured run starts: the attached kinds' policies wait for outside actions from now.
    pub fn start(&self, ftl: &mut Ftl) {
        for &kind in &self.attached {
            if let Some(point) = ftl.decision_point(kind) {
                point.attach();
            }
        }
    }
}

/// Whether a decision of one of `kinds` waits for its action.
fn any_pending(ftl: &mut Ftl, kinds: &[DecisionKind]) -> bool {
    kinds.iter().any(|&k| ftl.decision_point(k).is_some_and(|p| p.pending().is_some()))
}
