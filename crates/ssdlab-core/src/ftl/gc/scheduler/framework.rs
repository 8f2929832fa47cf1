//! Layer: ftl. RLGC's scheduling framework (Kang, Shin, Yoo, ACM TECS 2017, Algorithm 1,
//! Sec. 5.2-5.3), shared by `rlgc`, `rlgc_aggressive`, `rlgc_qtc` and `predictor`: when GC is
//! triggered, how the decision is matched to its request, when the reward arrives, intensive GC.
//! What differs between them, how many copies to do, is a `Decider` (tabular Q-learning, a
//! Q-table cache, an interval predictor).
//!
//! Per request, in the FTL's two calls:
//! * `before_serve` (arrival; never blocks the request): update the history (intervals, sizes,
//!   operations, what GC did since the previous arrival), then
//!   - a request that may not trigger GC (a read, unless read-initiated triggering is on; a trim)
//!     is left alone;
//!   - in intensive mode nothing is decided (the step is fixed);
//!   - if free blocks are above T_GC (or above T_GC^A with the aggressive triggering) GC is not
//!     triggered (Alg. 1 line 1) and the learning chain is cut: the next decision starts fresh;
//!   - if the inter-request interval is 0 no decision is taken (lines 3-5), the chain is kept;
//!     "0" is `gc.rlgc.zero_interval`: no idle time since the earlier requests completed
//!     (default) or the same arrival time as the previous request (the literal reading);
//!   - otherwise the decider picks A_t in state S_t (line 2); with the aggressive triggering and
//!     T_GC < free <= T_GC^A the action is capped (Sec. 5.3: 2 copies). The decision is kept
//!     under the request's sequence number (requests overlap; completions come in any order).
//! * `after_serve` (completion, with the response time): the response is ranked against the
//!   percentile thresholds of its own operation type (reads and writes apart) to give r (line 8);
//!   if the request carried a decision, `Q(S_{t-1}, A_{t-1})` of the previous decision is updated
//!   with r and `Q(S_t, A_t)` (line 9) — the k-th response rewards the (k-1)-th decision, "one
//!   request late" — and then A_t copies are issued as a partial step (line 7; we issue them
//!   after the update, which changes nothing since the step's effect shows in later responses).
//!   In aggressive mode with free > T_GC the step may only choose a victim with at least 60 %
//!   invalid pages. In intensive mode an eligible request gets the fixed intensive step instead,
//!   any pending decision is dropped and the chain is cut (its response would not reflect the
//!   policy's action).
//!
//! Deviations from the paper and our readings:
//! * "Interval zero" (Alg. 1 line 3) is read as no idle gap by default (`zero_interval`):
//!   the literal reading, equal arrival times, let steps land inside bursts
//!   (docs/policies/gc.md has the run).
//! * Base RLGC triggers on writes only (conventional GC; Sec. 5.3 presents read-initiated
//!   triggering as the aggressive variant's addition). T_GC is `gc.trigger_free_blocks` and the
//!   trigger is `free <= T_GC` (Alg. 1 line 1; the text says `<`).
//! * The action is the number of copies; the FTL erases the victim instead when it holds no
//!   valid page ("an erase replaces the action"), and action 0 does nothing.
//! * With the cap the decider learns on the executed (capped) action, not the chosen one.
//! * "Previous action" in the states is the copies asked after the previous request (0 if none,
//!   the intensive step in intensive mode): what made the SSD busy (Sec. 5.2).
//! * Thresholds per operation type (ours): one window for reads, one for writes, so a read is
//!   not rewarded merely for being a read. Window 10,000 responses, refreshed every 1000.
//! * Intervals are measured at arrival; the first request's interval is unknown and binned as
//!   the longest.

use std::collections::BTreeMap;

use rand_pcg::Pcg64Mcg;
use serde::Serialize;
use serde_json::json;

use crate::config::GcConfig;
use crate::decision::{self, ActionError, DecisionKind, DecisionPoint, DecisionSlot, DecisionSpace, Feature};
use crate::error::{ConfigProblem, Error, Result};
use crate::ftl::gc::scheduler::partial::IntensiveMode;
use crate::ftl::gc::scheduler::rlgc_settings::{RewardRequest, RlgcSettings, ZeroInterval};
use crate::ftl::gc::{GcAction, GcObservation, GcScheduler};
use crate::rl::{AgentDiagnostics, LearningReport, PercentileConfig, PercentileThresholds, RewardTracker, StepReward};
use crate::workload::IoOp;

/// Requests remembered in the history (the QTC state looks 5 actions back).
pub const ACTION_HISTORY: usize = 5;

/// `reward_request = "next_request"`: a decision whose next request has not completed this many
/// requests later is given up (that request completed first, before the step ran).
const AWAIT_HORIZON_REQUESTS: u64 = 1024;

/// What the deciders may base their state on, as of the arrival of request t.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct History {
    /// Interval before request t (u64::MAX when unknown).
    pub interval_ns: u64,
    /// Interval before request t-1.
    pub prev_interval_ns: u64,
    /// Copies asked after requests t-1, t-2, ... (0 when none).
    pub actions: [u32; ACTION_HISTORY],
    /// Pages of requests t-1 and t-2.
    pub sizes: [u32; 2],
    /// Operations of requests t, t-1, t-2.
    pub ops: [IoOp; 3],
    /// Whether GC copied pages / erased a block between arrivals t-1 and t (index 0) and
    /// between t-2 and t-1 (index 1).
    pub copied: [bool; 2],
    pub erased: [bool; 2],
    pub free_blocks: u32,
}

impl Default for History {
    fn default() -> Self {
        History {
            interval_ns: u64::MAX,
            prev_interval_ns: u64::MAX,
            actions: [0; ACTION_HISTORY],
            sizes: [0; 2],
            ops: [IoOp::Write; 3],
            copied: [false; 2],
            erased: [false; 2],
            free_blocks: 0,
        }
    }
}

/// One decision: the decider's state id (a table index or a cache key) and the copies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Decision {
    pub state: u64,
    pub copies: u32,
}

/// Chooses how many copies follow a request, and learns from rewards.
pub trait Decider: Send + Clone {
    /// Every arrival, before any decision (predictors follow every interval).
    fn on_arrival(&mut self, _history: &History) {}
    /// State and action (0..=max copies) for the current request.
    fn decide(&mut self, history: &History, rng: &mut Pcg64Mcg) -> Decision;
    /// Reward `r` for `prev`, bootstrapping on `cur` (RLGC Alg. 1 line 9).
    fn learn(&mut self, prev: Decision, r: f64, cur: Decision);
    /// Largest action.
    fn max_copies(&self) -> u32;
    fn report(&self) -> serde_json::Value;
    /// The agent's diagnostics (`None`: the decider does not learn, e.g. a predictor).
    fn diagnostics(&self) -> Option<AgentDiagnostics> {
        None
    }
    /// Whether actions are drawn uniformly (the random-action control).
    fn random_control(&self) -> bool {
        false
    }
}

/// The aggressive variant's triggering (Sec. 5.3).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Aggressive {
    /// T_GC^A.
    pub trigger_free_blocks: u32,
    pub max_copies: u32,
    pub min_invalid_fraction: f64,
}

/// When GC is triggered.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Trigger {
    /// T_GC: decisions while free blocks <= this.
    pub trigger_free_blocks: u32,
    pub aggressive: Option<Aggressive>,
    /// Reads may trigger GC too (Sec. 5.3).
    pub read_initiated: bool,
    /// Which arrivals get no decision (Alg. 1 lines 3-5).
    pub zero_interval: ZeroInterval,
}

impl Trigger {
    /// Base RLGC, or the aggressive variant (early triggering and read-initiated triggering).
    pub fn new(gc: &GcConfig, r: &RlgcSettings, aggressive: bool) -> Trigger {
        Trigger {
            trigger_free_blocks: gc.trigger_free_blocks,
            aggressive: aggressive.then_some(Aggressive {
                trigger_free_blocks: r.aggressive_trigger_free_blocks,
                max_copies: r.aggressive_max_copies,
                min_invalid_fraction: r.aggressive_min_invalid_fraction,
            }),
            read_initiated: aggressive,
            zero_interval: r.zero_interval,
        }
    }

    /// Alg. 1 lines 3-5: no decision for a request with a zero inter-request interval.
    fn is_zero_interval(&self, obs: &GcObservation) -> bool {
        match self.zero_interval {
            ZeroInterval::SameArrival => obs.interval_ns == 0,
            ZeroInterval::NoIdleGap => obs.idle_before_ns == 0,
        }
    }

    fn eligible(&self, op: IoOp) -> bool {
        op == IoOp::Write || (op == IoOp::Read && self.read_initiated)
    }

    /// None: not triggered; Some(cap): triggered, actions capped at `cap`.
    fn regime(&self, free_blocks: u32) -> Option<u32> {
        if free_blocks <= self.trigger_free_blocks {
            return Some(u32::MAX);
        }
        match self.aggressive {
            Some(a) if free_blocks <= a.trigger_free_blocks => Some(a.max_copies),
            _ => None,
        }
    }

    /// Minimum invalid fraction of a victim chosen now.
    fn victim_filter(&self, free_blocks: u32) -> f64 {
        match self.aggressive {
            Some(a) if free_blocks > self.trigger_free_blocks => a.min_invalid_fraction,
            _ => 0.0,
        }
    }
}

/// Response time -> reward, with percentile thresholds per operation type.
#[derive(Debug, Clone)]
pub struct RewardSignal {
    reads: PercentileThresholds,
    writes: PercentileThresholds,
    steps: StepReward,
}

impl RewardSignal {
    pub fn new(r: &RlgcSettings) -> Result<Self> {
        let pc = PercentileConfig {
            percentiles: r.reward_percentiles.clone(),
            window: r.reward_window,
            refresh_every: r.reward_refresh_every,
        };
        Ok(RewardSignal {
            reads: PercentileThresholds::new(&pc)?,
            writes: PercentileThresholds::new(&pc)?,
            steps: StepReward::new(r.rewards.clone())?,
        })
    }

    /// The reward of a response (ranked against the history), then add it to the history.
    /// Trims give no reward.
    pub fn score(&mut self, op: IoOp, response_ns: u64) -> Option<f64> {
        let t = match op {
            IoOp::Read => &mut self.reads,
            IoOp::Write => &mut self.writes,
            IoOp::Trim => return None,
        };
        let r = self.steps.reward(t.band(response_ns));
        t.observe(response_ns);
        Some(r)
    }

    fn thresholds(&self) -> serde_json::Value {
        json!({ "read_ns": self.reads.thresholds(), "write_ns": self.writes.thresholds() })
    }
}

/// Counters common to every decider.
#[derive(Debug, Clone, Default, Serialize)]
struct Counters {
    /// Decisions taken (line 2).
    decisions: u64,
    /// Executed copies per decision, index = copies.
    action_histogram: Vec<u64>,
    /// Decisions whose action the aggressive cap lowered.
    capped: u64,
    /// Eligible requests not triggered (free blocks above the threshold).
    untriggered: u64,
    /// Triggered requests skipped because their interval was 0.
    skipped_zero_interval: u64,
    /// Decisions dropped because intensive mode took over at completion.
    overridden_by_intensive: u64,
    /// Decisions whose next request completed before them (`reward_request = "next_request"`):
    /// its response could not show the step, so the decision teaches nothing.
    unrewarded_decisions: u64,
    /// Partial steps that asked for the aggressive victim filter.
    filtered_steps: u64,
    learning_updates: u64,
}

/// RLGC's framework around a decider; see the module header.
#[derive(Clone)]
pub struct Driver<D: Decider> {
    decider: D,
    rng: Pcg64Mcg,
    trigger: Trigger,
    intensive: IntensiveMode,
    reward: RewardSignal,
    history: History,
    last_copies_total: u64,
    last_erases_total: u64,
    last_pages: u32,
    pending: BTreeMap<u64, Decision>,
    /// The last decision executed, awaiting its reward.
    last: Option<Decision>,
    reward_request: RewardRequest,
    /// `next_request`: decisions executed after request `seq - 1`, keyed by `seq`, awaiting the
    /// response of request `seq` (requests overlap: several may wait) ...
    awaiting: BTreeMap<u64, Decision>,
    /// ... and once it came, each with its reward, awaiting the next decision to bootstrap from.
    rewarded: Vec<(Decision, f64)>,
    counters: Counters,
    rewards: RewardTracker,
    /// An outside agent's decisions (`DecisionPoint`): None while the decider decides.
    external: Option<External>,
}

/// The features an outside agent observes: RLGC's state (Table 3: the previous and current
/// inter-request intervals, the previous action) as raw values, and the free blocks (ours: the
/// trigger's input, which the paper's state leaves out).
const FEATURES: [Feature; 4] = [
    Feature {
        name: "interval_us",
        low: 0.0,
        high: MAX_INTERVAL_US,
        doc: "interval before this request, us (capped; the first request's, unknown, at the cap)",
    },
    Feature {
        name: "previous_interval_us",
        low: 0.0,
        high: MAX_INTERVAL_US,
        doc: "interval before the previous request, us (capped likewise)",
    },
    Feature {
        name: "previous_action",
        low: 0.0,
        high: u32::MAX as f64,
        doc: "copies asked after the previous request",
    },
    Feature { name: "free_blocks", low: 0.0, high: u32::MAX as f64, doc: "free blocks of the native region" },
];

/// Intervals beyond 1 s are observed as 1 s (Table 3's last edge is 100 ms).
const MAX_INTERVAL_US: f64 = 1e6;

/// An outside agent's side of the driver.
#[derive(Clone)]
struct External {
    /// The decision waiting for `act`: the request it follows, the decider's own decision (its
    /// state, which the decider learns on) and the cap.
    slot: DecisionSlot<(u64, Decision, u32)>,
    /// Rewards since the previous decision.
    reward: f64,
}

impl<D: Decider> Driver<D> {
    pub fn new(decider: D, r: &RlgcSettings, trigger: Trigger, rng: Pcg64Mcg) -> Result<Self> {
        if r.reward_sample_every == 0 {
            return Err(Error::Config {
                path: None,
                problems: vec![ConfigProblem {
                    key: "gc.rlgc.reward_sample_every".into(),
                    reason: "must be at least 1".into(),
                }],
            });
        }
        let n_actions = decider.max_copies() as usize + 1;
        Ok(Driver {
            decider,
            rng,
            trigger,
            intensive: IntensiveMode::new(&r.intensive()),
            reward: RewardSignal::new(r)?,
            history: History::default(),
            last_copies_total: 0,
            last_erases_total: 0,
            last_pages: 0,
            pending: BTreeMap::new(),
            last: None,
            reward_request: r.reward_request,
            awaiting: BTreeMap::new(),
            rewarded: Vec::new(),
            counters: Counters { action_histogram: vec![0; n_actions], ..Counters::default() },
            rewards: RewardTracker::new(r.reward_sample_every),
            external: None,
        })
    }

    pub fn decider(&self) -> &D {
        &self.decider
    }

    pub fn history(&self) -> &History {
        &self.history
    }

    pub fn decisions(&self) -> u64 {
        self.counters.decisions
    }

    fn update_history(&mut self, obs: &GcObservation) {
        let h = &mut self.history;
        h.prev_interval_ns = h.interval_ns;
        h.interval_ns = obs.interval_ns;
        h.ops = [obs.op, h.ops[0], h.ops[1]];
        h.sizes = [self.last_pages, h.sizes[0]];
        self.last_pages = obs.request_pages;
        let copied = obs.gc_copies_total.saturating_sub(self.last_copies_total) > 0;
        let erased = obs.gc_erases_total.saturating_sub(self.last_erases_total) > 0;
        self.last_copies_total = obs.gc_copies_total;
        self.last_erases_total = obs.gc_erases_total;
        h.copied = [copied, h.copied[0]];
        h.erased = [erased, h.erased[0]];
        h.free_blocks = obs.free_blocks;
    }

    /// Forget the decisions awaiting a reward or a successor: the next decision starts fresh.
    fn cut_chain(&mut self) {
        self.last = None;
        self.awaiting.clear();
        self.rewarded.clear();
    }

    /// The reward for `prev`, bootstrapping on `cur`, by `reward_request`; `r` is this
    /// request's reward (the one carrying `cur`).
    fn reward_previous(&mut self, r: Option<f64>, cur: Decision) {
        match self.reward_request {
            RewardRequest::NextDecision => {
                if let Some((prev, r)) = self.last.zip(r) {
                    self.decider.learn(prev, r, cur);
                    self.note_reward(r);
                }
            }
            RewardRequest::NextRequest => {
                for (prev, r) in std::mem::take(&mut self.rewarded) {
                    self.decider.learn(prev, r, cur);
                    self.note_reward(r);
                }
            }
        }
    }

    fn push_action(&mut self, copies: u32) {
        let a = &mut self.history.actions;
        a.copy_within(0..ACTION_HISTORY - 1, 1);
        a[0] = copies;
    }

    fn note_reward(&mut self, r: f64) {
        self.counters.learning_updates += 1;
        self.rewards.reward(r);
        if let Some(e) = &mut self.external {
            e.reward += r;
        }
    }

    /// The decision `d` (the decider's, capped at `cap`) for request `seq`, taken: counted,
    /// kept for the request's completion, and in the history.
    fn take_decision(&mut self, seq: u64, mut d: Decision, cap: u32) {
        if d.copies > cap {
            d.copies = cap;
            self.counters.capped += 1;
        }
        self.note_decision(d.copies);
        self.pending.insert(seq, d);
        self.push_action(d.copies);
    }

    /// Leave the decider's decision `d` for request `seq` (capped at `cap`) waiting for an
    /// outside agent's action (`DecisionPoint::act`), with what the agent observes.
    fn leave_waiting(&mut self, seq: u64, d: Decision, cap: u32) {
        let (observation, max) = (self.observation(), self.decider.max_copies());
        if let Some(e) = &mut self.external {
            let shown = &mut e.slot.decision;
            shown.observation = observation;
            shown.mask = (0..=max).map(|a| a <= cap).collect();
            shown.reward = std::mem::take(&mut e.reward);
            shown.reward_parts = vec![shown.reward];
            shown.builtin_action = d.copies.min(cap);
            e.slot.wait((seq, d, cap));
        }
    }

    /// What an outside agent observes now (`FEATURES`).
    fn observation(&self) -> Vec<f64> {
        let us = |ns: u64| (ns as f64 / 1e3).min(MAX_INTERVAL_US);
        let h = &self.history;
        vec![us(h.interval_ns), us(h.prev_interval_ns), h.actions[0] as f64, h.free_blocks as f64]
    }

    fn note_decision(&mut self, copies: u32) {
        let c = &mut self.counters;
        c.decisions += 1;
        c.action_histogram[copies as usize] += 1;
        self.rewards.decision(c.decisions);
    }
}

impl<D: Decider> GcScheduler for Driver<D> {
    fn decision_point(&mut self) -> Option<&mut dyn DecisionPoint> {
        Some(self)
    }

    fn reseed(&mut self, rng: Pcg64Mcg) {
        self.rng = rng;
    }

    fn before_serve(&mut self, obs: &GcObservation) -> GcAction {
        self.update_history(obs);
        self.intensive.update(obs.host_free_blocks);
        self.decider.on_arrival(&self.history);
        if !self.trigger.eligible(obs.op) {
            self.push_action(0);
            return GcAction::Nothing;
        }
        if self.intensive.is_active() {
            self.cut_chain();
            self.push_action(self.intensive.copies());
            return GcAction::Nothing;
        }
        let Some(cap) = self.trigger.regime(obs.free_blocks) else {
            self.counters.untriggered += 1;
            self.cut_chain();
            self.push_action(0);
            return GcAction::Nothing;
        };
        if self.trigger.is_zero_interval(obs) {
            self.counters.skipped_zero_interval += 1;
            self.push_action(0);
            return GcAction::Nothing;
        }
        let d = self.decider.decide(&self.history, &mut self.rng);
        debug_assert!(d.copies <= self.decider.max_copies());
        if self.external.is_some() {
            // An outside agent decides: the decision waits for `act` (the simulation stops
            // before the next event), with the decider's own as the built-in proposal.
            self.leave_waiting(obs.request_seq, d, cap);
            return GcAction::Nothing;
        }
        self.take_decision(obs.request_seq, d, cap);
        GcAction::Nothing
    }

    fn after_serve(&mut self, obs: &GcObservation, response_ns: u64) -> GcAction {
        self.intensive.update(obs.host_free_blocks);
        let r = self.reward.score(obs.op, response_ns);
        let decision = self.pending.remove(&obs.request_seq);
        // `next_request`: the response of the request after a decided one.
        if let Some(prev) = self.awaiting.remove(&obs.request_seq) {
            match r {
                Some(r) => self.rewarded.push((prev, r)),
                None => self.counters.unrewarded_decisions += 1,
            }
        }
        if self.trigger.eligible(obs.op) && self.intensive.is_active() {
            if decision.is_some() {
                self.counters.overridden_by_intensive += 1;
            }
            self.cut_chain();
            return GcAction::Partial { copies: self.intensive.step(), min_invalid_fraction: 0.0 };
        }
        let Some(cur) = decision else { return GcAction::Nothing };
        self.reward_previous(r, cur);
        self.last = Some(cur);
        if self.reward_request == RewardRequest::NextRequest {
            self.awaiting.insert(obs.request_seq + 1, cur);
            // A next request that completed before its decided one never comes: such entries
            // are dropped once far behind, unrewarded (the map stays small).
            let horizon = (obs.request_seq + 1).saturating_sub(AWAIT_HORIZON_REQUESTS);
            while let Some(entry) = self.awaiting.first_entry() {
                if *entry.key() >= horizon {
                    break;
                }
                entry.remove();
                self.counters.unrewarded_decisions += 1;
            }
        }
        let min_invalid_fraction = self.trigger.victim_filter(obs.free_blocks);
        if min_invalid_fraction > 0.0 && cur.copies > 0 {
            self.counters.filtered_steps += 1;
        }
        GcAction::Partial { copies: cur.copies, min_invalid_fraction }
    }

    fn report(&self) -> serde_json::Value {
        let c = &self.counters;
        let updates = c.learning_updates;
        json!({
            "trigger_free_blocks": self.trigger.trigger_free_blocks,
            "aggressive": self.trigger.aggressive.map(|a| json!({
                "trigger_free_blocks": a.trigger_free_blocks,
                "max_copies": a.max_copies,
                "min_invalid_fraction": a.min_invalid_fraction,
            })),
            "read_initiated": self.trigger.read_initiated,
            "zero_interval": self.trigger.zero_interval,
            "max_copies": self.decider.max_copies(),
            "decisions": c.decisions,
            "action_histogram": c.action_histogram,
            "capped_decisions": c.capped,
            "untriggered_requests": c.untriggered,
            "skipped_zero_interval": c.skipped_zero_interval,
            "overridden_by_intensive": c.overridden_by_intensive,
            "reward_request": self.reward_request,
            "unrewarded_decisions": c.unrewarded_decisions,
            "filtered_steps": c.filtered_steps,
            "learning_updates": updates,
            "mean_reward": self.rewards.mean(),
            "reward_series": self.rewards.series(),
            "reward_thresholds": self.reward.thresholds(),
            "intensive": self.intensive.stats(),
            "agent": self.decider.report(),
        })
    }

    fn learning(&self, id: &'static str) -> Option<LearningReport> {
        let agent = self.decider.diagnostics()?;
        let c = &self.counters;
        let control = self.decider.random_control();
        Some(LearningReport::new(id, control, c.decisions, c.action_histogram.clone(), &self.rewards, agent))
    }
}

/// RLGC's decision (Alg. 1 line 2: the copies after a request) for an outside agent. The
/// history is updated at the request's arrival before the decision waits, as for the decider,
/// and `act` takes it exactly where the decider's would have been taken (the previous action in
/// the next state, the step at completion), so an agent that replays the decider's proposals
/// reproduces its run.
impl<D: Decider> DecisionPoint for Driver<D> {
    fn space(&self) -> DecisionSpace {
        let mut features = FEATURES.to_vec();
        // The previous action may be the intensive step (Sec. 5.2), larger than any action.
        features[2].high = self.decider.max_copies().max(self.intensive.copies()) as f64;
        DecisionSpace {
            kind: DecisionKind::GcScheduler,
            actions: self.decider.max_copies() + 1,
            features,
            reward_parts: vec![(
                "response",
                "each response ranked against the percentile thresholds of its operation type (Fig. 6: 1, 0.5, 0, \
                 -0.5), credited to the decision before it (Alg. 1 line 9)",
            )],
        }
    }

    fn attach(&mut self) {
        if self.external.is_none() {
            self.external =
                Some(External { slot: DecisionSlot::new(DecisionKind::GcScheduler, Vec::new(), 0), reward: 0.0 });
        }
    }

    fn pending(&self) -> Option<&decision::Decision> {
        self.external.as_ref().and_then(|e| e.slot.pending())
    }

    fn act(&mut self, action: u32) -> std::result::Result<(), ActionError> {
        let e = self.external.as_mut().ok_or(ActionError::NothingPending)?;
        let (seq, mut d, cap) = e.slot.take(action)?;
        // The decider's own choice counts for the cap; the action taken is the agent's (the
        // decider learns on it, as it learns on a capped one).
        let capped = d.copies > cap;
        d.copies = action;
        if capped {
            self.counters.capped += 1;
        }
        self.take_decision(seq, d, cap);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ftl::gc::scheduler::test_support::obs;
    use rand::SeedableRng;

    /// Always asks for `copies`; records what it learned.
    #[derive(Clone)]
    struct Fixed {
        copies: u32,
        next_state: u64,
        learned: Vec<(Decision, f64, Decision)>,
    }

    impl Decider for Fixed {
        fn decide(&mut self, _h: &History, _rng: &mut Pcg64Mcg) -> Decision {
            self.next_state += 1;
            Decision { state: self.next_state, copies: self.copies }
        }
        fn learn(&mut self, prev: Decision, r: f64, cur: Decision) {
            self.learned.push((prev, r, cur));
        }
        fn max_copies(&self) -> u32 {
            6
        }
        fn report(&self) -> serde_json::Value {
            serde_json::Value::Null
        }
    }

    fn driver(copies: u32, aggressive: bool) -> Driver<Fixed> {
        driver_reading(copies, aggressive, ZeroInterval::default())
    }

    fn driver_reading(copies: u32, aggressive: bool, zero_interval: ZeroInterval) -> Driver<Fixed> {
        let gc = GcConfig { trigger_free_blocks: 10, ..GcConfig::default() };
        let r = RlgcSettings { zero_interval, ..Default::default() };
        let fixed = Fixed { copies, next_state: 0, learned: Vec::new() };
        Driver::new(fixed, &r, Trigger::new(&gc, &r, aggressive), Pcg64Mcg::seed_from_u64(1)).unwrap()
    }

    fn partial(copies: u32, min_invalid_fraction: f64) -> GcAction {
        GcAction::Partial { copies, min_invalid_fraction }
    }

    #[test]
    fn base_triggers_on_writes_at_or_below_t_gc_only() {
        let mut d = driver(3, false);
        let w = obs(1, IoOp::Write, 11, 9);
        assert_eq!(d.before_serve(&w), GcAction::Nothing);
        assert_eq!(d.after_serve(&w, 10), GcAction::Nothing, "11 > T_GC");
        let w = obs(2, IoOp::Write, 10, 8);
        assert_eq!(d.before_serve(&w), GcAction::Nothing, "decisions never block the request");
        assert_eq!(d.after_serve(&w, 10), partial(3, 0.0));
        let r = obs(3, IoOp::Read, 5, 3);
        d.before_serve(&r);
        assert_eq!(d.after_serve(&r, 10), GcAction::Nothing, "base RLGC: reads do not trigger");
        let mut w = obs(4, IoOp::Write, 5, 3);
        w.idle_before_ns = 0;
        d.before_serve(&w);
        assert_eq!(d.after_serve(&w, 10), GcAction::Nothing, "no idle gap (zero interval): skipped");
        assert_eq!(d.counters.skipped_zero_interval, 1);
        assert_eq!(d.decisions(), 1);
    }

    #[test]
    fn zero_interval_reads_as_same_arrival_or_as_no_idle_gap() {
        // Arrived 1 ms after the previous request, which was still being served.
        let mut busy = obs(1, IoOp::Write, 5, 3);
        busy.idle_before_ns = 0;
        // Arrived together with the previous request, after an idle gap (the device was idle).
        let mut together = obs(2, IoOp::Write, 5, 3);
        together.interval_ns = 0;
        let mut d = driver_reading(3, false, ZeroInterval::SameArrival);
        d.before_serve(&busy);
        assert_eq!(d.after_serve(&busy, 10), partial(3, 0.0), "same_arrival: a busy device is no zero");
        d.before_serve(&together);
        assert_eq!(d.after_serve(&together, 10), GcAction::Nothing);

        let mut d = driver(3, false);
        assert_eq!(d.trigger.zero_interval, ZeroInterval::NoIdleGap, "the default");
        d.before_serve(&busy);
        assert_eq!(d.after_serve(&busy, 10), GcAction::Nothing, "no_idle_gap: skipped while busy");
        d.before_serve(&together);
        assert_eq!(d.after_serve(&together, 10), partial(3, 0.0), "no_idle_gap: the device was idle");
        assert_eq!((d.counters.skipped_zero_interval, d.decisions()), (1, 1));
    }

    #[test]
    fn next_request_rewards_a_decision_with_the_response_of_the_request_after_it() {
        let make = |reward_request| {
            let gc = GcConfig { trigger_free_blocks: 10, ..GcConfig::default() };
            let r = RlgcSettings { reward_request, ..Default::default() };
            let fixed = Fixed { copies: 2, next_state: 0, learned: Vec::new() };
            Driver::new(fixed, &r, Trigger::new(&gc, &r, false), Pcg64Mcg::seed_from_u64(1)).unwrap()
        };
        // Write 1 (decided), read 2 (base RLGC: no decision), write 3 (decided); the reward of
        // decision 1 is write 3's response (`next_decision`) or read 2's (`next_request`).
        for (mode, learned_pairs) in [(RewardRequest::NextDecision, 1), (RewardRequest::NextRequest, 1)] {
            let mut d = make(mode);
            let (w1, r2, w3) = (obs(1, IoOp::Write, 5, 3), obs(2, IoOp::Read, 5, 3), obs(3, IoOp::Write, 5, 3));
            d.before_serve(&w1);
            assert_eq!(d.after_serve(&w1, 100), partial(2, 0.0));
            d.before_serve(&r2);
            assert_eq!(d.after_serve(&r2, 900), GcAction::Nothing);
            d.before_serve(&w3);
            d.after_serve(&w3, 5000);
            assert_eq!(d.decider.learned.len(), learned_pairs, "{mode:?}");
            let (prev, r, cur) = d.decider.learned[0];
            assert_eq!((prev.state, cur.state), (1, 2), "{mode:?}: decision 1 bootstraps from decision 3");
            match mode {
                // Write 3's 5000 ns against the write window {100}: above every threshold.
                RewardRequest::NextDecision => assert_eq!(r, -0.5),
                // Read 2's 900 ns, the first read: within every read threshold.
                RewardRequest::NextRequest => assert_eq!(r, 1.0),
            }
        }
        // Overlapping requests: write 2 completes before write 1, so decision 1's next request
        // ran before its step and decision 1 is never rewarded; decision 2 is, by write 3.
        let mut d = make(RewardRequest::NextRequest);
        let (w1, w2, w3) = (obs(1, IoOp::Write, 5, 3), obs(2, IoOp::Write, 5, 3), obs(3, IoOp::Write, 5, 3));
        d.before_serve(&w1);
        d.before_serve(&w2);
        d.after_serve(&w2, 100);
        d.after_serve(&w1, 100);
        d.before_serve(&w3);
        d.after_serve(&w3, 100);
        let pairs: Vec<(u64, u64)> = d.decider.learned.iter().map(|(p, _, c)| (p.state, c.state)).collect();
        assert_eq!(pairs, [(2, 3)]);
        // ... and given up once far behind.
        for seq in 4..1100 {
            let o = obs(seq, IoOp::Write, 5, 3);
            d.before_serve(&o);
            d.after_serve(&o, 100);
        }
        assert_eq!(d.counters.unrewarded_decisions, 1);
        assert!(d.awaiting.len() <= 1);
    }

    #[test]
    fn reward_of_the_kth_response_goes_to_the_k_minus_1th_decision() {
        let mut d = driver(1, false);
        // Requests overlap: 1 and 2 arrive, then complete in the order 2, 1.
        let (o1, o2, o3) = (obs(1, IoOp::Write, 5, 3), obs(2, IoOp::Write, 5, 3), obs(3, IoOp::Write, 5, 3));
        d.before_serve(&o1);
        d.before_serve(&o2);
        d.after_serve(&o2, 100);
        assert!(d.decider.learned.is_empty(), "first executed decision: nothing to reward yet");
        d.after_serve(&o1, 100);
        d.before_serve(&o3);
        d.after_serve(&o3, 100);
        let learned: Vec<(u64, u64)> = d.decider.learned.iter().map(|(p, _, c)| (p.state, c.state)).collect();
        // Decision states follow arrival order (1 -> state 1, 2 -> state 2); rewards follow completions.
        assert_eq!(learned, [(2, 1), (1, 3)]);
        // Leaving the triggered region cuts the chain.
        let o4 = obs(4, IoOp::Write, 50, 48);
        d.before_serve(&o4);
        d.after_serve(&o4, 100);
        let o5 = obs(5, IoOp::Write, 5, 3);
        d.before_serve(&o5);
        d.after_serve(&o5, 100);
        assert_eq!(d.decider.learned.len(), 2, "no update across an untriggered request");
    }

    #[test]
    fn aggressive_caps_and_filters_between_t_gc_and_t_gc_a() {
        let mut d = driver(5, true);
        let o = obs(1, IoOp::Write, 100, 98);
        d.before_serve(&o);
        assert_eq!(d.after_serve(&o, 10), partial(2, 0.6), "capped at 2, victims >= 60 % invalid");
        let o = obs(2, IoOp::Read, 11, 9);
        d.before_serve(&o);
        assert_eq!(d.after_serve(&o, 10), partial(2, 0.6), "read-initiated triggering");
        let o = obs(3, IoOp::Write, 10, 8);
        d.before_serve(&o);
        assert_eq!(d.after_serve(&o, 10), partial(5, 0.0), "no cap or filter at or below T_GC");
        let o = obs(4, IoOp::Write, 101, 99);
        d.before_serve(&o);
        assert_eq!(d.after_serve(&o, 10), GcAction::Nothing, "above T_GC^A");
        assert_eq!(d.counters.capped, 2);
        assert_eq!(d.counters.action_histogram[2], 2);
        assert_eq!(d.counters.action_histogram[5], 1);
    }

    #[test]
    fn intensive_gc_enters_at_one_block_and_stops_above_t_igc() {
        let mut d = driver(1, false);
        let step = |d: &mut Driver<Fixed>, seq, host_free| {
            let o = obs(seq, IoOp::Write, host_free + 2, host_free);
            d.before_serve(&o);
            d.after_serve(&o, 10)
        };
        assert_eq!(step(&mut d, 1, 2), partial(1, 0.0));
        assert_eq!(step(&mut d, 2, 1), partial(7, 0.0), "one host block left: intensive");
        assert_eq!(step(&mut d, 3, 2), partial(7, 0.0));
        assert_eq!(step(&mut d, 4, 3), partial(7, 0.0), "stays at T_IGC = 3");
        assert_eq!(step(&mut d, 5, 4), partial(1, 0.0), "stops above T_IGC");
        let r = d.report();
        assert_eq!(r["intensive"]["entries"], 1);
        assert_eq!(r["intensive"]["steps"], 3);
        // A decision taken at arrival is overridden if intensive mode starts before completion.
        let o = obs(6, IoOp::Write, 5, 3);
        d.before_serve(&o);
        let o = obs(6, IoOp::Write, 3, 1);
        assert_eq!(d.after_serve(&o, 10), partial(7, 0.0));
        assert_eq!(d.counters.overridden_by_intensive, 1);
    }

    #[test]
    fn history_tracks_the_features() {
        let mut d = driver(2, false);
        let mut o = obs(1, IoOp::Write, 5, 3);
        o.interval_ns = 700;
        o.request_pages = 4;
        d.before_serve(&o);
        d.after_serve(&o, 1);
        let mut o = obs(2, IoOp::Read, 5, 3);
        o.interval_ns = 300;
        o.request_pages = 1;
        o.gc_copies_total = 2;
        d.before_serve(&o);
        let h = *d.history();
        assert_eq!((h.interval_ns, h.prev_interval_ns), (300, 700));
        assert_eq!(h.actions[..2], [0, 2], "a read asks nothing; the write before asked 2");
        assert_eq!(h.sizes, [4, 0]);
        assert_eq!(h.ops, [IoOp::Read, IoOp::Write, IoOp::Write]);
        assert_eq!((h.copied, h.erased), ([true, false], [false, false]));
    }
}
