//! Layer: below ftl (beside `registry`). Decision points an outside agent can drive: a learned
//! policy exposes its decision (what it observes, which actions are allowed, the reward its
//! paper defines) through `DecisionPoint`, and the simulation stops there and waits for an
//! action (`Simulation::advance`, `Simulation::act`) instead of asking the policy's own agent.
//!
//! A decision kind names the seam whose policy decides (its config key), never a policy: the
//! engine asks the chosen policy whether it has a decision point (`GcScheduler::decision_point`)
//! and the registry entry declares it (`SchedulerCaps::decides`). A kind with no agent attached
//! keeps the built-in agent, so one device can have an outside agent on one decision while its
//! other policies run as configured.
//!
//! The built-in agent still runs beside an outside one: it proposes the action it would have
//! taken (`Decision::builtin_action`, so that an outside agent can be compared with, or replay,
//! the built-in one) and it learns from the action taken, as it learns from a capped action.

use serde::Serialize;

/// The seams that have decision points, by their config key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum DecisionKind {
    /// `gc.scheduler`: the GC scheduler's copies after a request (RLGC's decision).
    GcScheduler,
    /// `cache.eviction`: the page type of a buffered page in the next program unit (RL-FSP's
    /// per-candidate classification).
    CacheEviction,
    /// `slc.policy`: the SLC region's size and the hot/cold threshold per step (RL-SLC's).
    SlcPolicy,
}

impl DecisionKind {
    pub const ALL: [DecisionKind; 3] =
        [DecisionKind::GcScheduler, DecisionKind::CacheEviction, DecisionKind::SlcPolicy];

    /// The config key of the seam whose policy decides.
    pub fn key(self) -> &'static str {
        match self {
            DecisionKind::GcScheduler => "gc.scheduler",
            DecisionKind::CacheEviction => "cache.eviction",
            DecisionKind::SlcPolicy => "slc.policy",
        }
    }

    /// Whether its decisions are asked at the top of events (`Ftl::before_event`); RLGC's is
    /// left waiting during a request's arrival instead.
    pub fn asked_before_events(self) -> bool {
        match self {
            DecisionKind::GcScheduler => false,
            DecisionKind::CacheEviction | DecisionKind::SlcPolicy => true,
        }
    }

    /// The kind of a config key (`gc.scheduler`), if it has decision points.
    pub fn parse(key: &str) -> Option<DecisionKind> {
        DecisionKind::ALL.into_iter().find(|k| k.key() == key)
    }
}

/// One observed feature: its name, range and meaning.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Feature {
    pub name: &'static str,
    pub low: f64,
    pub high: f64,
    pub doc: &'static str,
}

/// What an outside agent is told once, when it attaches: the observation's features and the
/// number of (discrete) actions, `0..actions`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DecisionSpace {
    pub kind: DecisionKind,
    pub actions: u32,
    pub features: Vec<Feature>,
    /// The reward's components, in `Decision::reward_parts` order, and what they are.
    pub reward_parts: Vec<(&'static str, &'static str)>,
}

/// One decision waiting for its action.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Decision {
    pub kind: DecisionKind,
    /// One value per `DecisionSpace::features`, within their ranges.
    pub observation: Vec<f64>,
    /// Which actions are allowed now (`true` at index a: action a is).
    pub mask: Vec<bool>,
    /// The reward earned since the previous decision, as the policy's paper defines it (0 at
    /// the first decision).
    pub reward: f64,
    /// The reward's components (`DecisionSpace::reward_parts`), summed since the previous
    /// decision.
    pub reward_parts: Vec<f64>,
    /// The action the policy's own agent would take now.
    pub builtin_action: u32,
}

/// Why an action was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ActionError {
    #[error("no decision is waiting for an action (advance first)")]
    NothingPending,
    #[error("action {action} is out of range: {kind} takes 0..{actions}")]
    OutOfRange { kind: &'static str, action: u32, actions: u32 },
    #[error("action {action} is masked now: {kind} allows {allowed}")]
    Masked { kind: &'static str, action: u32, allowed: String },
}

impl Decision {
    /// Check `action` against the range and the mask.
    pub fn check(&self, action: u32) -> Result<(), ActionError> {
        check_action(self.kind, action, self.mask.len() as u32, |a| self.mask[a as usize])
    }
}

/// Check `action` of a decision of `kind` against its range `0..actions` and a mask read
/// through `allowed` (the vector environment's masks live in caller-owned arrays, not in a
/// `Decision`).
pub fn check_action(
    kind: DecisionKind,
    action: u32,
    actions: u32,
    allowed: impl Fn(u32) -> bool,
) -> Result<(), ActionError> {
    if action >= actions {
        return Err(ActionError::OutOfRange { kind: kind.key(), action, actions });
    }
    if !allowed(action) {
        let allowed: Vec<String> = (0..actions).filter(|&a| allowed(a)).map(|a| a.to_string()).collect();
        return Err(ActionError::Masked { kind: kind.key(), action, allowed: allowed.join(", ") });
    }
    Ok(())
}

/// The plumbing every decision point shares: one decision at a time, shown to the outside agent
/// (`decision`, which the policy fills before `wait`), and what the policy keeps to finish its
/// step once the action comes (`W`). `pending` and the checks of `act` live here; the policy
/// only fills the decision and performs the action `take` hands back with its step.
#[derive(Debug, Clone)]
pub struct DecisionSlot<W> {
    waiting: Option<W>,
    pub decision: Decision,
}

impl<W> DecisionSlot<W> {
    /// Nothing waiting yet: a decision of `kind` with the actions `mask` allows (empty where the
    /// policy sets it at each decision) and the policy's own agent's action.
    pub fn new(kind: DecisionKind, mask: Vec<bool>, builtin_action: u32) -> Self {
        let decision =
            Decision { kind, observation: Vec::new(), mask, reward: 0.0, reward_parts: Vec::new(), builtin_action };
        DecisionSlot { waiting: None, decision }
    }

    /// Whether a decision waits for its action.
    pub fn is_waiting(&self) -> bool {
        self.waiting.is_some()
    }

    /// Leave `decision` (as filled) pending, keeping `waiting` for the action.
    pub fn wait(&mut self, waiting: W) {
        self.waiting = Some(waiting);
    }

    /// The decision waiting for its action (`DecisionPoint::pending`).
    pub fn pending(&self) -> Option<&Decision> {
        self.waiting.as_ref().map(|_| &self.decision)
    }

    /// What the step kept, once `action` passes the decision's range and mask (nothing is
    /// taken if it does not, so the agent may act again).
    pub fn take(&mut self, action: u32) -> Result<W, ActionError> {
        if self.waiting.is_none() {
            return Err(ActionError::NothingPending);
        }
        self.decision.check(action)?;
        self.waiting.take().ok_or(ActionError::NothingPending)
    }
}

/// A policy's decision point. The policy keeps deciding with its own agent until `attach`; then
/// at each decision it leaves the decision pending (`pending`) and the simulation stops until
/// `act` gives the action.
///
/// A decision is left pending where the event loop can stop: during a request's arrival for a
/// decision whose action is needed only later (RLGC's copies, taken at the request's
/// completion), or between events for one needed at once (the SLC step before a write, a
/// page's type before its unit is formed): the engine calls the seam's `before_event` hook
/// (`Ftl::before_event`) at the top of each event while an agent is attached, stops if a
/// decision is pending, and comes back to the same event after `act`.
pub trait DecisionPoint {
    fn space(&self) -> DecisionSpace;
    /// From now on, decisions wait for `act`.
    fn attach(&mut self);
    /// The decision waiting for its action, if any.
    fn pending(&self) -> Option<&Decision>;
    /// Take `action` for the pending decision.
    fn act(&mut self, action: u32) -> Result<(), ActionError>;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_slot_hands_its_step_back_only_for_an_allowed_action() {
        let mut slot: DecisionSlot<&str> = DecisionSlot::new(DecisionKind::SlcPolicy, vec![true, false], 0);
        assert!(slot.pending().is_none());
        assert_eq!(slot.take(0), Err(ActionError::NothingPending));
        slot.wait("step");
        assert_eq!(slot.pending().map(|d| d.kind), Some(DecisionKind::SlcPolicy));
        assert!(matches!(slot.take(1), Err(ActionError::Masked { .. })));
        assert!(matches!(slot.take(2), Err(ActionError::OutOfRange { .. })));
        assert!(slot.is_waiting(), "a refused action leaves the decision pending");
        assert_eq!(slot.take(0), Ok("step"));
        assert!(!slot.is_waiting());
    }

    fn decision(mask: &[bool]) -> Decision {
        Decision {
            kind: DecisionKind::GcScheduler,
            observation: vec![],
            mask: mask.to_vec(),
            reward: 0.0,
            reward_parts: vec![],
            builtin_action: 0,
        }
    }

    #[test]
    fn actions_are_checked_against_range_and_mask() {
        let d = decision(&[true, true, false]);
        assert_eq!(d.check(1), Ok(()));
        assert_eq!(d.check(2).unwrap_err().to_string(), "action 2 is masked now: gc.scheduler allows 0, 1");
        assert_eq!(d.check(3).unwrap_err().to_string(), "action 3 is out of range: gc.scheduler takes 0..3");
    }

    #[test]
    fn kinds_are_their_seams_keys() {
        for k in DecisionKind::ALL {
            assert_eq!(DecisionKind::parse(k.key()), Some(k));
        }
        assert_eq!(DecisionKind::parse("gc.victim"), None);
    }
}
