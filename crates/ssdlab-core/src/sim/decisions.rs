//! Layer: sim. Running to the next decision of an outside agent (`crate::decision`): `attach`
//! a decision kind before the run, then `advance` to each decision and `act` on it. Kinds with
//! no agent attached keep their built-in policies. The event loop stops in two places, so the
//! policy takes the action exactly where its own agent's would have been taken:
//! * at the top of an event, when the attached policies leave a decision pending there
//!   (`asks_before`: the SLC step before a write, a buffered page's type before anything can
//!   evict it); after `act` the loop comes back to the same event, which is chosen again from
//!   the same state, and asks again until nothing is pending;
//! * right after the request whose arrival left a decision waiting (RLGC's copies, taken at
//!   its completion), before any other event.

use super::*;
use crate::decision::{ActionError, Decision, DecisionSpace};

impl Simulation {
    /// Drive the decisions of `kind` from outside: from the measured run's start (the warm-up
    /// keeps the built-in agent), each decision waits for `act`. Refused, with the policies
    /// that have one, if the chosen policy of that seam has no decision point, and once the
    /// run has started.
    pub fn attach(&mut self, kind: DecisionKind) -> Result<DecisionSpace> {
        if self.started {
            return Err(Error::config(kind.key(), "an outside agent attaches before the run starts"));
        }
        let space = self.ftl.decision_space(kind)?;
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

    /// Run to the next decision of an attached kind and return it (the same one again if it is
    /// still waiting); None once the workload has finished (the report is then final).
    pub fn advance(&mut self) -> Result<Option<Decision>> {
        if self.attached.is_empty() {
            return Err(Error::config("decision", "no decision kind is attached (attach one before advancing)"));
        }
        loop {
            if let Some(d) = self.waiting_decision() {
                return Ok(Some(d));
            }
            if self.step(1 << 16)? {
                return Ok(None);
            }
        }
    }

    /// Take `action` for the decision waiting; the run goes on at the next `advance`.
    pub fn act(&mut self, action: u32) -> Result<()> {
        for i in 0..self.attached.len() {
            let kind = self.attached[i];
            if let Some(point) = self.ftl.decision_point(kind) {
                if point.pending().is_some() {
                    return Ok(point.act(action)?);
                }
            }
        }
        Err(ActionError::NothingPending.into())
    }

    /// The decision waiting for an outside agent, if any.
    fn waiting_decision(&mut self) -> Option<Decision> {
        for i in 0..self.attached.len() {
            let kind = self.attached[i];
            if let Some(d) = self.ftl.decision_point(kind).and_then(|p| p.pending().cloned()) {
                return Some(d);
            }
        }
        None
    }

    /// Whether a decision waits for an outside agent (false at once when none is attached).
    #[inline]
    pub(super) fn decision_waiting(&mut self) -> bool {
        !self.attached.is_empty() && any_pending(&mut self.ftl, &self.attached)
    }

    /// The top of an event at `at` (`write_arrival`: a host write's arrival): the attached
    /// kinds asked there leave pending what they need decided before it. True if a decision now
    /// waits (the loop stops and comes back to the same event after `act`); false at once when
    /// no such kind is attached (no agent, or only RLGC's).
    #[inline(always)]
    pub(super) fn asks_before(&mut self, write_arrival: bool, at: SimTime) -> bool {
        !self.asked_before_events.is_empty() && self.ask_before(write_arrival, at)
    }

    #[cold]
    #[inline(never)]
    fn ask_before(&mut self, write_arrival: bool, at: SimTime) -> bool {
        self.ftl.before_event(&self.asked_before_events, write_arrival, at);
        any_pending(&mut self.ftl, &self.asked_before_events)
    }

    /// The measured run starts: the attached kinds' policies wait for outside actions from now.
    pub(super) fn attach_agents(&mut self) {
        for i in 0..self.attached.len() {
            let kind = self.attached[i];
            if let Some(point) = self.ftl.decision_point(kind) {
                point.attach();
            }
        }
    }
}

/// Whether a decision of one of `kinds` waits for its action.
fn any_pending(ftl: &mut Ftl, kinds: &[DecisionKind]) -> bool {
    kinds.iter().any(|&k| ftl.decision_point(k).is_some_and(|p| p.pending().is_some()))
}
