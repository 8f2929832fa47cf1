//! Layer: ftl. The FSP paper's RL scheduler (Li et al., "Page Type-Aware Full-Sequence Program
//! Scheduling via Reinforcement Learning in High Density SSDs", TCAD 2024, Sec. III, Fig. 4-8,
//! Algorithm 1): an agent classifies each eviction candidate into a page type, the group module
//! builds one full-sequence-program unit of four types, and the rewrite module brings hot data
//! read from slow pages back for regrouping. Eviction id `rl_fsp`, settings in `[cache.page_type_eviction]`.
//!
//! * Candidates: `candidates_fraction` (5 %) of the buffer's pages from the LRU tail (Sec.
//!   III-A, IV-A); each gets an action from the active Q-table, epsilon-greedy (Algorithm 1
//!   lines 2-11: 0.8 for the first 4 episodes, then 0.01). The group module (`group.rs`) takes
//!   for each type the nearest-tail candidate of that class, substituting a neighbouring class.
//! * State (Sec. III-B, 4 x 2 x 2 x 2 x 4 = 128): long-term read count in 4 bins (0-1, 2-3,
//!   4-5, >5), short-term read bit, request size (small: one page), data size (small: the page
//!   was written in part), previous page type of the LPN (LSB for new data).
//! * Decision and reward: a step is one evicted page; it is recorded in the across-episode
//!   Q-table (`rl::across_episode`: active and shadow values, shadow copied to active at each
//!   episode end, episodes of 1000 steps) with the type it was programmed to. Its reward is
//!   given one episode later, just before the update at the same offset of the next episode
//!   (Fig. 6): page-type part +-1 / +-0.5 / -+0.5 / -+1 for LSB / CLSB / CMSB / MSB by whether
//!   the page was read since, plus, if read, the latency part 1 / 0.5 / 0 / -1 by the band of
//!   its last read request's response time per KiB against the 70th / 90th / 99th percentiles
//!   of all read requests (Sec. III-B). Q-learning in SARSA form (Eq. 1), alpha 0.3, gamma 0.8.
//! * Rewrite (Sec. III-D): a read that misses the buffer and reads a CMSB or MSB page of data
//!   with long-term bin 3 and the short-term bit set loads it at the LRU tail as dirty data, if
//!   the buffer has a free slot (`Rewrite::Regroup`); the next unit regroups it.
//!
//! Deviations and readings where the paper is silent:
//! * "Recent episode" for the short-term bit: a read within the last `episode_length` decisions
//!   (a sliding episode), so the bit does not drop to 0 for every page at each boundary. The
//!   rewrite check sees the history before the read that triggers it (else the bit would
//!   always be set).
//! * Time is counted in decisions, as episodes are: a read "in the next episode" of decision d
//!   is a read while decisions d + 1 .. d + 1000 were taken.
//! * The action recorded is the type the page was programmed to: when the group module
//!   substituted, that is not the class the agent chose (the reward is about the page it got).
//! * A candidate's class is kept while it stays buffered and unread within an episode (Fig. 5's
//!   "temporally records the determined actions"); a write or a read of it, or a new episode,
//!   asks the agent again. Decisions are recorded only for whole units of one page per type;
//!   shorter units (page-at-a-time regions, the last pages of the end-of-run flush) are the LRU
//!   tail and teach nothing.
//! * Every host read counts in the history, buffer hits included.
//! * Bootstrap (`cache.page_type_eviction.bootstrap`, issue #30): Eq. 1's `Q(S_{p+1}, A_{p+1})` is the mean
//!   value of the next unit's four decisions (`rl::Bootstrap::NextUnit`), not the decision
//!   recorded next. A unit is recorded in slot order, so with the literal reading each page type
//!   bootstraps from the next type's value and the greedy type of a never-read page becomes
//!   CMSB, not MSB (gamma 0.8: Q = (-0.96, 0.05, 0.68, 0.23)); the paper's rewards (Sec. III-B:
//!   an unread page on MSB earns +1) say MSB. `next_decision` keeps the literal reading.
//! * `cache.page_type_eviction.random_control`: every class drawn uniformly (the random-action control).
//! * An outside agent (`crate::decision`, kind `cache.eviction`) classifies instead of the
//!   Q-table. A class is needed in the middle of an eviction, where the run cannot stop, so it
//!   is asked earlier: at the top of each event (`before_event`), every dirty buffered page
//!   written or read since the last event (every dirty page at the first) is shown to the agent
//!   with its state then, one decision per page, and keeps its class until it is written or
//!   read again (episode ends do not renew it). A page touched and evicted within one event
//!   keeps its previous class (`classes_stale`); one dirtied and evicted within one event (a
//!   rewrite regrouped at the tail, then a unit at once) has none, and the Q-table classifies
//!   it (`classes_fallback`). The table still records and learns from the types programmed.

use std::collections::VecDeque;

use hashbrown::HashMap;
use rand_pcg::Pcg64Mcg;
use rustc_hash::FxBuildHasher;
use serde_json::{json, Value};

use crate::decision::{ActionError, Decision, DecisionKind, DecisionPoint, DecisionSlot, DecisionSpace, Feature};
use crate::error::{Error, Result};
use crate::ftl::cache::group::check_fsp;
use crate::ftl::cache::group::{typed_unit, MAX_TYPES};
use crate::ftl::cache::history::{ReadHistory, LONG_TERM_BINS};
use crate::ftl::cache::page_type_eviction::FspBootstrap;
use crate::ftl::cache::{BufferView, BufferedPage, BuildCtx, EvictionPolicy, Rewrite};
use crate::rl::{
    choose, AcrossEpisodeConfig, AcrossEpisodeQTable, ActionSelection, AgentDiagnostics, Bootstrap, EpsilonSchedule,
    LearningReport, MixedRadix, PercentileConfig, PercentileThresholds, RewardTracker, Settlement, StepReward,
};
use crate::units::Lpn;

/// One data page's state (Sec. III-B).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FspState {
    /// Long-term read count bin: 0-1, 2-3, 4-5, >5 reads.
    pub long_term: usize,
    /// Read within the recent episode.
    pub short_term: bool,
    /// The request that wrote it spans more than one page.
    pub large_request: bool,
    /// The write covered the whole page.
    pub large_data: bool,
    /// The page type the LPN was last given (0 = LSB, also for new data).
    pub previous_type: usize,
}

impl FspState {
    /// The state's number: mixed radix over (long-term 4, short-term 2, request 2, data 2,
    /// previous type `types`), long-term most significant.
    pub fn index(&self, encoding: &MixedRadix) -> usize {
        encoding.encode(&[
            self.long_term,
            self.short_term as usize,
            self.large_request as usize,
            self.large_data as usize,
            self.previous_type,
        ])
    }
}

/// The state encoding for `types` page types (128 states on QLC).
pub fn fsp_encoding(types: u32) -> Result<MixedRadix> {
    MixedRadix::new(vec![LONG_TERM_BINS, 2, 2, 2, types as usize])
}

/// The reward of a page given type `page_type`, in two parts (their sum is the reward): the
/// page-type part by whether it was read in the next episode, and, if read, the latency part of
/// its last read's band (0 when not read).
pub fn fsp_reward_parts(type_rewards: &[f64], latency: &StepReward, page_type: usize, read: Option<usize>) -> [f64; 2] {
    match read {
        Some(band) => [type_rewards[page_type], latency.reward(band)],
        None => [-type_rewards[page_type], 0.0],
    }
}

/// What an outside agent observes of a page: Sec. III-B's state, one feature per part.
const FEATURES: [Feature; 5] = [
    Feature { name: "long_term_reads", low: 0.0, high: 3.0, doc: "long-term read count bin: 0-1, 2-3, 4-5, >5 reads" },
    Feature { name: "short_term_read", low: 0.0, high: 1.0, doc: "1 if read within the last episode_length decisions" },
    Feature {
        name: "large_request",
        low: 0.0,
        high: 1.0,
        doc: "1 if the request that wrote it spans more than one page",
    },
    Feature { name: "large_data", low: 0.0, high: 1.0, doc: "1 if that write covered the whole page" },
    Feature {
        name: "previous_type",
        low: 0.0,
        high: 3.0,
        doc: "the page type the LPN was last programmed to (0 = LSB, also for new data)",
    },
];

/// An outside agent's classes (`DecisionPoint`).
#[derive(Clone)]
struct Outside {
    /// The class and state each buffered page was given; stale once the page was written or
    /// read since (it is asked again before the next event).
    given: HashMap<Lpn, Given, FxBuildHasher>,
    /// Pages written or read since the last event's decisions.
    touched: VecDeque<Lpn>,
    /// Look at every dirty page at the first event (the buffer may hold pages already).
    scan_all: bool,
    /// The page waiting for its class, with its state, and the decision it was shown.
    slot: DecisionSlot<(Lpn, u16)>,
    /// Rewards settled since the last decision: the sum and its two parts.
    reward_parts: [f64; 2],
    asked: u64,
    stale: u64,
    fallback: u64,
}

#[derive(Clone, Copy)]
struct Given {
    class: u8,
    state: u16,
    stale: bool,
}

#[derive(Clone)]
pub struct RlFspEviction {
    types: u32,
    candidates_fraction: f64,
    rewrite: bool,
    episode_length: u64,
    history: ReadHistory,
    /// Latency band of each LPN's last read request.
    last_band: Vec<u8>,
    /// The page type each LPN was last programmed to.
    previous_type: Vec<u8>,
    encoding: MixedRadix,
    table: AcrossEpisodeQTable,
    epsilon: EpsilonSchedule,
    rng: Pcg64Mcg,
    latency: PercentileThresholds,
    latency_rewards: StepReward,
    type_rewards: Vec<f64>,
    /// (LPN, type) of every recorded decision not yet settled, oldest first (the table's own
    /// pending list, which has no LPNs).
    pending: VecDeque<(Lpn, u8)>,
    /// Class, state and episode of candidates classified this episode.
    classes: HashMap<Lpn, (u8, u16, u64), FxBuildHasher>,
    candidates: Vec<(Lpn, u8)>,
    episode_rewards: Vec<Option<f64>>,
    units: u64,
    substitutions: u64,
    rewrites: u64,
    random_control: bool,
    /// Classifications asked of the agent, and how many explored (the learning report's
    /// exploration counts are these; its decisions are the recorded ones).
    classified: u64,
    explorations: u64,
    /// Recorded decisions per page type (the type programmed, after substitution).
    action_histogram: Vec<u64>,
    rewards: RewardTracker,
    outside: Option<Outside>,
}

impl RlFspEviction {
    pub fn new(ctx: BuildCtx) -> Result<Self> {
        let c = &check_fsp(&ctx)?;
        let types = ctx.page_types();
        if c.page_type_rewards.len() != types as usize {
            return Err(Error::config(
                "cache.page_type_eviction.page_type_rewards",
                format!("needs one reward per page type: {types}, got {}", c.page_type_rewards.len()),
            ));
        }
        if let Some(i) = c.page_type_rewards.iter().position(|r| !r.is_finite()) {
            return Err(Error::config(format!("cache.page_type_eviction.page_type_rewards[{i}]"), "must be finite"));
        }
        let percentiles = PercentileConfig {
            percentiles: c.latency_percentiles.clone(),
            window: c.latency_window,
            refresh_every: c.latency_refresh_every,
        };
        percentiles.validate("cache.page_type_eviction.latency")?;
        let latency_rewards = StepReward::new(c.latency_rewards.clone())?;
        latency_rewards.validate("cache.page_type_eviction.latency_rewards", Some(c.latency_percentiles.len() + 1))?;
        let epsilon = EpsilonSchedule::Episodes {
            initial: c.epsilon_initial,
            after: c.epsilon_after,
            switch_after_episodes: c.epsilon_switch_after_episodes,
        };
        epsilon.validate("cache.page_type_eviction")?;
        let learning = AcrossEpisodeConfig {
            episode_length: c.episode_length,
            reward_delay_episodes: 1,
            settlement: Settlement::Rolling,
            alpha: c.alpha,
            gamma: c.gamma,
            bootstrap: match c.bootstrap {
                FspBootstrap::NextUnit => Bootstrap::NextUnit,
                FspBootstrap::NextDecision => Bootstrap::NextDecision,
            },
        };
        learning.validate("cache.page_type_eviction")?;
        let encoding = fsp_encoding(types)?;
        let table = AcrossEpisodeQTable::new(encoding.n_states() as usize, types as usize, &learning)?;
        Ok(RlFspEviction {
            types,
            candidates_fraction: c.candidates_fraction,
            rewrite: c.rewrite,
            episode_length: c.episode_length,
            history: ReadHistory::new(ctx.logical_pages),
            last_band: vec![0; ctx.logical_pages as usize],
            previous_type: vec![0; ctx.logical_pages as usize],
            encoding,
            table,
            epsilon,
            rng: ctx.rng,
            latency: PercentileThresholds::new(&percentiles)?,
            latency_rewards,
            type_rewards: c.page_type_rewards.clone(),
            pending: VecDeque::new(),
            classes: HashMap::default(),
            candidates: Vec::new(),
            episode_rewards: Vec::new(),
            units: 0,
            substitutions: 0,
            rewrites: 0,
            random_control: c.random_control,
            classified: 0,
            explorations: 0,
            action_histogram: vec![0; types as usize],
            rewards: RewardTracker::new(c.episode_length),
            outside: None,
        })
    }

    /// The clock of the history: decisions recorded so far.
    fn clock(&self) -> u64 {
        self.table.decisions()
    }

    /// Read within the last episode's worth of decisions.
    fn short_term(&self, lpn: Lpn) -> bool {
        self.history.read_since(lpn.0, self.clock().saturating_sub(self.episode_length))
    }

    pub fn state(&self, page: &BufferedPage) -> FspState {
        FspState {
            long_term: self.history.long_term_bin(page.lpn.0),
            short_term: self.short_term(page.lpn),
            large_request: page.request_pages > 1,
            large_data: !page.partial,
            previous_type: self.previous_type.get(page.lpn.index()).copied().unwrap_or(0) as usize,
        }
    }

    /// The agent's class for a candidate (kept for the episode while the page is untouched),
    /// or the outside agent's.
    fn classify(&mut self, page: &BufferedPage) -> u8 {
        if let Some(o) = &mut self.outside {
            if let Some(g) = o.given.get(&page.lpn) {
                o.stale += u64::from(g.stale);
                return g.class;
            }
            o.fallback += 1;
        }
        let episode = self.table.episode();
        if let Some(&(class, _, e)) = self.classes.get(&page.lpn) {
            if e == episode {
                return class;
            }
        }
        let state = self.state(page).index(&self.encoding);
        let class = self.propose(state);
        self.classes.insert(page.lpn, (class, state as u16, episode));
        class
    }

    /// The Q-table's class for a page in `state`, epsilon-greedy.
    fn propose(&mut self, state: usize) -> u8 {
        let epsilon = self.epsilon.value(self.table.decisions(), self.table.episode());
        let row = self.table.active().row(state);
        let choice = choose(row, epsilon, &ActionSelection::fsp(), self.random_control, &mut self.rng);
        self.classified += 1;
        self.explorations += u64::from(choice.explored);
        choice.action as u8
    }

    /// The state a candidate was classified in (the outside agent's decision's, else the
    /// Q-table's).
    fn classified_state(&self, lpn: &Lpn) -> u16 {
        let given = self.outside.as_ref().and_then(|o| o.given.get(lpn)).map(|g| g.state);
        given.or_else(|| self.classes.get(lpn).map(|c| c.1)).unwrap_or(0)
    }

    /// A page was written or read: an outside agent's class for it is stale.
    fn touched(&mut self, lpn: Lpn) {
        if let Some(o) = &mut self.outside {
            if let Some(g) = o.given.get_mut(&lpn) {
                g.stale = true;
            }
            o.touched.push_back(lpn);
        }
    }

    /// Record that `lpn`, in `state`, was programmed to `page_type`; first reward the decisions
    /// the record settles; end the episode when it is complete.
    fn record(&mut self, lpn: Lpn, state: usize, page_type: u8) {
        for id in self.table.due() {
            let (l, t) = self.pending.pop_front().expect("a due decision is pending");
            let read = self.history.read_since(l.0, id.0 + 1).then(|| self.last_band[l.index()] as usize);
            let parts = fsp_reward_parts(&self.type_rewards, &self.latency_rewards, t as usize, read);
            let r = parts[0] + parts[1];
            self.table.reward(id, r).expect("the due decision is unsettled and r is finite");
            self.rewards.reward(r);
            if let Some(o) = &mut self.outside {
                o.reward_parts[0] += parts[0];
                o.reward_parts[1] += parts[1];
            }
        }
        self.table.record(state, page_type as usize);
        self.action_histogram[page_type as usize] += 1;
        self.rewards.decision(self.table.decisions());
        self.pending.push_back((lpn, page_type));
        if let Some(p) = self.previous_type.get_mut(lpn.index()) {
            *p = page_type;
        }
        self.classes.remove(&lpn);
        if self.table.episode_complete() {
            let summary = self.table.end_episode();
            self.episode_rewards.push(summary.mean_reward);
            // Classes of the ended episode are stale: the active table changed.
            self.classes.clear();
        }
    }
}

impl EvictionPolicy for RlFspEviction {
    fn reseed(&mut self, rng: Pcg64Mcg) {
        self.rng = rng;
    }
    fn on_write(&mut self, lpn: Lpn, _write: crate::ftl::cache::PageWrite) {
        self.classes.remove(&lpn);
        self.touched(lpn);
    }
    fn on_read(&mut self, lpn: Lpn, _hit: bool) {
        self.history.note_read(lpn.0, self.clock());
        self.classes.remove(&lpn);
        self.touched(lpn);
    }
    fn on_flash_read(&mut self, lpn: Lpn, page_type: u32) -> Rewrite {
        let slow = page_type >= self.types.div_ceil(2);
        if self.rewrite
            && self.types > 1
            && slow
            && self.history.long_term_bin(lpn.0) == LONG_TERM_BINS - 1
            && self.short_term(lpn)
        {
            self.rewrites += 1;
            return Rewrite::Regroup;
        }
        Rewrite::No
    }
    fn on_read_done(&mut self, lpns: &[Lpn], request_bytes: u64, response_ns: u64) {
        let per_kib = response_ns.saturating_mul(1024) / request_bytes.max(1);
        let band = self.latency.band(per_kib) as u8;
        self.latency.observe(per_kib);
        for lpn in lpns {
            if let Some(b) = self.last_band.get_mut(lpn.index()) {
                *b = band;
            }
        }
    }
    fn next_unit(&mut self, view: &BufferView, unit_pages: u32, out: &mut Vec<Lpn>) {
        if unit_pages < self.types {
            view.oldest_dirty(unit_pages, out);
            if let Some(o) = &mut self.outside {
                for lpn in out.iter() {
                    o.given.remove(lpn);
                }
            }
            return;
        }
        let mut candidates = std::mem::take(&mut self.candidates);
        let (types, fraction) = (self.types, self.candidates_fraction);
        self.substitutions += typed_unit(view, types, fraction, &mut candidates, out, |p| self.classify(p)) as u64;
        self.candidates = candidates;
        self.units += 1;
        if out.len() == self.types as usize {
            // States first: recording may end the episode, which forgets the classes.
            let mut states = [0u16; MAX_TYPES];
            for (k, lpn) in out.iter().enumerate() {
                states[k] = self.classified_state(lpn);
            }
            for (k, &lpn) in out.iter().enumerate() {
                self.record(lpn, states[k] as usize, k as u8);
            }
            self.table.end_unit();
        }
        if let Some(o) = &mut self.outside {
            for lpn in out.iter() {
                o.given.remove(lpn);
            }
        }
    }
    fn decision_point(&mut self) -> Option<&mut dyn DecisionPoint> {
        Some(self)
    }
    fn before_event(&mut self, view: &BufferView) {
        let Some(mut o) = self.outside.take() else { return };
        if !o.slot.is_waiting() {
            if std::mem::take(&mut o.scan_all) {
                o.touched.extend(view.from_tail().filter(|p| p.dirty).map(|p| p.lpn));
            }
            while let Some(lpn) = o.touched.pop_front() {
                let Some(page) = view.page(lpn).filter(|p| p.dirty) else { continue };
                if o.given.get(&lpn).is_some_and(|g| !g.stale) {
                    continue;
                }
                let fsp = self.state(&page);
                let state = fsp.index(&self.encoding);
                let d = &mut o.slot.decision;
                d.observation.clear();
                d.observation.extend([
                    fsp.long_term as f64,
                    f64::from(u8::from(fsp.short_term)),
                    f64::from(u8::from(fsp.large_request)),
                    f64::from(u8::from(fsp.large_data)),
                    fsp.previous_type as f64,
                ]);
                let parts = std::mem::take(&mut o.reward_parts);
                d.reward = parts[0] + parts[1];
                d.reward_parts.clear();
                d.reward_parts.extend(parts);
                d.builtin_action = u32::from(self.propose(state));
                o.slot.wait((lpn, state as u16));
                o.asked += 1;
                break;
            }
        }
        self.outside = Some(o);
    }
    fn report(&self) -> Value {
        let stats = self.table.stats();
        json!({
            "decisions": stats.decisions,
            "episodes": stats.episodes,
            "settled": stats.settled,
            "unrewarded": stats.unrewarded,
            "units": self.units,
            "substitutions": self.substitutions,
            "rewrites_requested": self.rewrites,
            "states_visited": stats.utilisation.states_visited,
            "latency_thresholds_ns_per_kib": self.latency.thresholds(),
            "episode_mean_rewards": self.episode_rewards,
            // argmax_a Q(s, a) of the active table per state (ties to LSB): the learned policy.
            "greedy_actions": (0..self.table.active().n_states()).map(|s| self.table.active().argmax(s)).collect::<Vec<_>>(),
            "outside_agent": self.outside.as_ref().map(|o| json!({
                "classes_asked": o.asked,
                "classes_stale": o.stale,
                "classes_fallback": o.fallback,
            })),
        })
    }
    fn learning(&self, id: &'static str) -> Option<LearningReport> {
        // The values decisions use: the active table (the shadow one is a step ahead).
        let q = self.table.active();
        let visited = self.table.shadow();
        let rows = (0..q.n_states()).filter(|&s| visited.is_visited(s)).map(|s| q.row(s));
        let epsilon = self.epsilon.progress(self.table.decisions(), self.table.episode());
        let agent = AgentDiagnostics::from_rows(q.n_states() as u64, q.n_actions(), self.explorations, epsilon, rows);
        let decisions = self.table.decisions();
        // Classifications asked of the agent (a unit's recorded types may be substitutes).
        let mut report = LearningReport::new(
            id,
            self.random_control,
            decisions,
            self.action_histogram.clone(),
            &self.rewards,
            agent,
        );
        report.exploitations = self.classified.saturating_sub(self.explorations);
        Some(report)
    }
}

/// RL-FSP's classification (Sec. III-A) for an outside agent: a page's type, asked before the
/// event that may evict it (see the deviations at the top).
impl DecisionPoint for RlFspEviction {
    fn space(&self) -> DecisionSpace {
        let mut features = FEATURES.to_vec();
        features[4].high = (self.types - 1) as f64;
        DecisionSpace {
            kind: DecisionKind::CacheEviction,
            actions: self.types,
            features,
            reward_parts: vec![
                (
                    "page_type",
                    "per programmed page, one episode later (Sec. III-B): +-1 / +-0.5 / -+0.5 / -+1 for LSB / CLSB / \
                     CMSB / MSB by whether it was read since, summed over the pages settled since the last decision",
                ),
                (
                    "latency",
                    "per page read since: 1 / 0.5 / 0 / -1 by the band of its last read's response time per KiB \
                     against the 70th / 90th / 99th percentiles",
                ),
            ],
        }
    }

    fn attach(&mut self) {
        let types = self.types as usize;
        self.outside.get_or_insert_with(|| Outside {
            given: HashMap::default(),
            touched: VecDeque::new(),
            scan_all: true,
            slot: DecisionSlot::new(DecisionKind::CacheEviction, vec![true; types], 0),
            reward_parts: [0.0; 2],
            asked: 0,
            stale: 0,
            fallback: 0,
        });
    }

    fn pending(&self) -> Option<&Decision> {
        self.outside.as_ref().and_then(|o| o.slot.pending())
    }

    fn act(&mut self, action: u32) -> std::result::Result<(), ActionError> {
        let o = self.outside.as_mut().ok_or(ActionError::NothingPending)?;
        let (lpn, state) = o.slot.take(action)?;
        o.given.insert(lpn, Given { class: action as u8, state, stale: false });
        Ok(())
    }
}

#[cfg(test)]
impl RlFspEviction {
    fn tables(&self) -> (&crate::rl::QTable, &crate::rl::QTable) {
        (self.table.active(), self.table.shadow())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ftl::cache::frequency_count::tests::ctx_config;
    use crate::ftl::cache::lru::LruEviction;
    use crate::ftl::cache::{PageWrite, WriteBuffer};

    fn policy(fsp: &str) -> RlFspEviction {
        let cfg = ctx_config(&format!(
            "[device]\ncell = \"qlc\"\n[device.timing]\nread_ns = [50_000]\n[cache]\ncapacity = \"64KiB\"\n[cache.page_type_eviction]\n{fsp}"
        ));
        let ctx = BuildCtx { cfg: &cfg, logical_pages: 64, capacity_pages: 16, rng: rand_pcg::Pcg64Mcg::new(7) };
        RlFspEviction::new(ctx).unwrap()
    }

    /// Evict one unit of `lpns` (tail first) through `p`; returns the unit.
    fn evict(p: &mut RlFspEviction, lpns: &[u32]) -> Vec<u32> {
        let mut b = WriteBuffer::new(16, 1.0, 1.0, Box::new(LruEviction));
        for &l in lpns {
            b.insert(Lpn(l), true, PageWrite { request_pages: 1, partial: false }, 1);
        }
        let mut out = Vec::new();
        p.next_unit(&b.view(), 4, &mut out);
        out.iter().map(|l| l.0).collect()
    }

    #[test]
    fn the_state_encoding_has_128_states_one_per_combination() {
        let e = fsp_encoding(4).unwrap();
        assert_eq!(e.n_states(), 128);
        let mut seen = std::collections::BTreeSet::new();
        for long_term in 0..4 {
            for previous_type in 0..4 {
                for bits in 0..8 {
                    let s = FspState {
                        long_term,
                        short_term: bits & 1 == 1,
                        large_request: bits & 2 == 2,
                        large_data: bits & 4 == 4,
                        previous_type,
                    };
                    assert!(seen.insert(s.index(&e)));
                }
            }
        }
        assert_eq!((seen.first(), seen.last()), (Some(&0), Some(&127)));
        let s = FspState { long_term: 1, short_term: false, large_request: false, large_data: true, previous_type: 2 };
        assert_eq!(s.index(&e), 32 + 4 + 2, "long-term most significant, previous type least");
    }

    fn fsp_reward(type_rewards: &[f64], latency: &StepReward, page_type: usize, read: Option<usize>) -> f64 {
        let [type_part, latency_part] = fsp_reward_parts(type_rewards, latency, page_type, read);
        type_part + latency_part
    }

    #[test]
    fn the_reward_of_each_page_type_and_latency_band() {
        let types = [1.0, 0.5, -0.5, -1.0];
        let latency = StepReward::fsp_latency();
        // Read in the next episode: the type part plus the band's 1 / 0.5 / 0 / -1.
        assert_eq!(fsp_reward(&types, &latency, 0, Some(0)), 2.0);
        assert_eq!(fsp_reward(&types, &latency, 1, Some(1)), 1.0);
        assert_eq!(fsp_reward(&types, &latency, 2, Some(2)), -0.5);
        assert_eq!(fsp_reward(&types, &latency, 3, Some(3)), -2.0);
        // Not read: the type part negated, no latency part.
        let unread: Vec<f64> = (0..4).map(|t| fsp_reward(&types, &latency, t, None)).collect();
        assert_eq!(unread, [-1.0, -0.5, 0.5, 1.0]);
    }

    /// One unit per episode, no exploration (an all-zero row picks LSB for every page and the
    /// group module places the rest by substitution): unit 0 of pages 10..=13, then page 10
    /// (LSB) read with the first response (band 0). Returns the policy and page 10's state.
    fn first_unit_then_a_read(extra: &str) -> (RlFspEviction, usize) {
        let mut p = policy(&format!(
            "episode_length = 4\nepsilon_initial = 0.0\nepsilon_after = 0.0\ncandidates_fraction = 0.25\n{extra}"
        ));
        assert_eq!(evict(&mut p, &[10, 11, 12, 13]), [10, 11, 12, 13]);
        p.on_read(Lpn(10), false);
        p.on_read_done(&[Lpn(10)], 8192, 100_000);
        let s10 =
            FspState { long_term: 0, short_term: false, large_request: false, large_data: true, previous_type: 0 }
                .index(&p.encoding);
        (p, s10)
    }

    #[test]
    fn next_decision_bootstrap_rewards_reach_the_shadow_table_and_renew_the_active_one() {
        let (mut p, s10) = first_unit_then_a_read("bootstrap = \"next_decision\"\n");
        evict(&mut p, &[20, 21, 22, 23]);
        let (active, shadow) = p.tables();
        // Decision 0 (page 10, LSB, read, band 0): Q = 0.3 x (1 + 1 + 0.8 x 0) = 0.6.
        assert!((shadow.get(s10, 0) - 0.6).abs() < 1e-12);
        // Decision 1 (page 11, CLSB, unread): 0.3 x -0.5; 2 (CMSB): 0.3 x 0.5. Decision 3 (MSB,
        // unread: +1) bootstraps from decision 4 (page 20, the same state, LSB), already 0.6:
        // 0.3 x (1 + 0.8 x 0.6) = 0.444.
        assert!((shadow.get(s10, 1) + 0.15).abs() < 1e-12);
        assert!((shadow.get(s10, 2) - 0.15).abs() < 1e-12);
        assert!((shadow.get(s10, 3) - 0.444).abs() < 1e-12);
        // The episode of unit 2 ended with its 4th decision: active was renewed from shadow.
        assert_eq!(active.values(), shadow.values());
        assert_eq!(p.episode_rewards, [None, Some((2.0 - 0.5 + 0.5 + 1.0) / 4.0)]);
        assert_eq!(p.table.episode(), 2);
    }

    #[test]
    fn next_unit_bootstrap_settles_a_unit_together_from_the_next_units_mean() {
        // As above, with the default bootstrap: unit 0 settles once unit 1 is closed and its last
        // decision is due, i.e. at the first record of unit 2.
        let (mut p, s10) = first_unit_then_a_read("");
        evict(&mut p, &[20, 21, 22, 23]);
        assert_eq!(p.tables().1.get(s10, 0), 0.0, "unit 0 waits for unit 1 to close");
        evict(&mut p, &[30, 31, 32, 33]);
        let (_, shadow) = p.tables();
        // Every page of unit 0 bootstraps from unit 1's mean shadow value, still 0:
        // LSB read: 0.3 x (1 + 1) = 0.6; CLSB unread: 0.3 x -0.5; CMSB: 0.3 x 0.5; MSB: 0.3 x 1.
        let q: Vec<f64> = (0..4).map(|a| shadow.get(s10, a)).collect();
        for (got, want) in q.iter().zip([0.6, -0.15, 0.15, 0.3]) {
            assert!((got - want).abs() < 1e-12, "{q:?}");
        }
        let l = p.learning("rl_fsp").unwrap();
        assert_eq!((l.decisions, l.rewards, l.action_histogram.clone()), (12, 4, vec![3, 3, 3, 3]));
        assert_eq!(l.agent.states_visited, 1);
    }

    #[test]
    fn rewrite_needs_a_slow_page_and_long_and_short_term_heat() {
        let mut p = policy("episode_length = 4\n");
        for _ in 0..6 {
            p.on_read(Lpn(5), false);
        }
        for _ in 0..5 {
            p.on_read(Lpn(6), false);
        }
        assert_eq!(p.on_flash_read(Lpn(5), 2), Rewrite::Regroup, "CMSB, 6 reads, read recently");
        assert_eq!(p.on_flash_read(Lpn(5), 3), Rewrite::Regroup, "MSB");
        assert_eq!(p.on_flash_read(Lpn(5), 1), Rewrite::No, "CLSB is fast");
        assert_eq!(p.on_flash_read(Lpn(6), 3), Rewrite::No, "5 reads: long-term bin 2");
        // Two episodes of decisions without a read of page 5: the short-term bit clears.
        evict(&mut p, &[30, 31, 32, 33]);
        assert_eq!(p.on_flash_read(Lpn(5), 3), Rewrite::Regroup, "read within the last 4 decisions");
        evict(&mut p, &[40, 41, 42, 43]);
        assert_eq!(p.on_flash_read(Lpn(5), 3), Rewrite::No, "not read in the last episode");
        let mut off = policy("rewrite = false\n");
        for _ in 0..6 {
            off.on_read(Lpn(5), false);
        }
        assert_eq!(off.on_flash_read(Lpn(5), 3), Rewrite::No);
    }

    #[test]
    fn settings_that_cannot_work_are_refused() {
        let cfg = ctx_config(
            "[device]\ncell = \"qlc\"\n[device.timing]\nread_ns = [50_000]\n[cache]\ncapacity = \"64KiB\"\n[cache.page_type_eviction]\npage_type_rewards = [1.0, -1.0]\n",
        );
        let ctx = BuildCtx { cfg: &cfg, logical_pages: 64, capacity_pages: 16, rng: rand_pcg::Pcg64Mcg::new(7) };
        let e = RlFspEviction::new(ctx).err().unwrap().to_string();
        assert!(e.contains("page_type_rewards") && e.contains("one reward per page type"), "{e}");
    }
}
