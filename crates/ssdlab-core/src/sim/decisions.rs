//! Layer: sim. Running to the next decision of an outside agent (`crate::decision`): `attach`
//! a decision kind before the run, then `advance` to each decision and `act` on it. Kinds with
//! no agent attached keep their built-in policies. The event loop stops right after the request
//! whose arrival left a decision waiting, before any other event, so the policy takes the
//! action exactly where its own agent's would have been taken.

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
        if self.attached.is_empty() {
            return false;
        }
        let ftl = &mut self.ftl;
        self.attached.iter().any(|&k| ftl.decision_point(k).is_some_and(|p| p.pending().is_some()))
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
