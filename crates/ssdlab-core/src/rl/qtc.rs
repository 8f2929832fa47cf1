//! Layer: rl. The Q-table cache (QTC): Kang & Yoo, DAC'18, as presented in Yoo's 2019 talk
//! (slide "Proposed Idea: Q-table Cache (QTC)"; implementation notes A5).
//!
//! Instead of a dense table over a huge state space (the slide's 17 features, ~10^10 states),
//! keep per action a small LRU cache of (state key -> Q value): "100 entries per action (3
//! tables for 3 actions, i.e., 0/1/2-page copy), LRU policy in replacement". State keys come
//! from `rl::state` (`MixedRadix::encode_u64` or `state_key`).
//!
//! Semantics (the slide is one bullet list; where it is silent the choice is ours):
//! * A state absent from every action's cache is *unseen*: `select` takes the configured
//!   `default_action` (the slide: "Q-value is initialized to 0 and 0-page copy is adopted"),
//!   without exploring and without drawing random numbers.
//! * A state present in some caches is *known*: each action's value is its cached Q or, if
//!   absent, the initialiser's value (0 by default), and the usual epsilon-greedy rule of
//!   `rl::policy` picks among all actions. Reading does not insert.
//! * Entries enter the cache when written (`set`, or an update, which writes `Q(S_{t-1},
//!   A_{t-1})` starting from the initialiser's value when absent) and are evicted LRU. Reads
//!   through `lookup`, `value`, `select` and the updates refresh recency; `peek` does not.
//! * The initialiser hook `Fn(key, action) -> f64` is for the TCAD'20 follow-up's Q-value
//!   prediction ("QP Net", implementation notes A5); the default is the slide's 0.
//!
//! Each cache is a hashbrown map with a fixed hasher (`FxBuildHasher`) into a slab of nodes
//! linked in recency order: O(1) per operation, no allocation after construction, and nothing
//! ever iterates the map, so results do not depend on hash order.

use std::sync::Arc;

use hashbrown::HashMap;
use rand::Rng;
use rustc_hash::FxBuildHasher;
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::rl::policy::{epsilon_greedy, ActionSelection};
use crate::rl::update::td_blend;

const NIL: u32 = u32::MAX;

#[derive(Debug, Clone)]
struct Node {
    key: u64,
    value: f64,
    prev: u32,
    next: u32,
}

/// A fixed-capacity LRU map from `u64` keys to `f64` values.
#[derive(Debug, Clone)]
pub struct LruCache {
    map: HashMap<u64, u32, FxBuildHasher>,
    nodes: Vec<Node>,
    /// Most recently used.
    head: u32,
    /// Least recently used: the next eviction.
    tail: u32,
    capacity: usize,
}

impl LruCache {
    /// `capacity` between 1 and 2^31.
    pub fn new(capacity: usize) -> Result<Self> {
        if capacity == 0 || capacity > (1 << 31) {
            return Err(Error::config("capacity", format!("must be between 1 and 2^31, got {capacity}")));
        }
        Ok(LruCache {
            map: HashMap::with_capacity_and_hasher(capacity, FxBuildHasher),
            nodes: Vec::with_capacity(capacity),
            head: NIL,
            tail: NIL,
            capacity,
        })
    }

    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    pub fn capacity(&self) -> usize {
        self.capacity
    }

    pub fn contains(&self, key: u64) -> bool {
        self.map.contains_key(&key)
    }

    /// The value without touching recency.
    pub fn peek(&self, key: u64) -> Option<f64> {
        self.map.get(&key).map(|&i| self.nodes[i as usize].value)
    }

    /// The value, making the entry the most recently used.
    #[inline]
    pub fn get(&mut self, key: u64) -> Option<f64> {
        let i = *self.map.get(&key)?;
        self.move_to_front(i);
        Some(self.nodes[i as usize].value)
    }

    /// Insert or overwrite `key`, making it the most recently used. Returns the evicted entry
    /// when a new key arrives at a full cache.
    #[inline]
    pub fn insert(&mut self, key: u64, value: f64) -> Option<(u64, f64)> {
        if let Some(&i) = self.map.get(&key) {
            self.nodes[i as usize].value = value;
            self.move_to_front(i);
            return None;
        }
        if self.nodes.len() < self.capacity {
            let i = self.nodes.len() as u32;
            self.nodes.push(Node { key, value, prev: NIL, next: NIL });
            self.push_front(i);
            self.map.insert(key, i);
            return None;
        }
        // Full: reuse the least recently used node.
        let i = self.tail;
        let old = &self.nodes[i as usize];
        let evicted = (old.key, old.value);
        self.map.remove(&evicted.0);
        self.unlink(i);
        let node = &mut self.nodes[i as usize];
        node.key = key;
        node.value = value;
        self.push_front(i);
        self.map.insert(key, i);
        Some(evicted)
    }

    /// Entries from most to least recently used.
    pub fn iter(&self) -> impl Iterator<Item = (u64, f64)> + '_ {
        let mut i = self.head;
        std::iter::from_fn(move || {
            if i == NIL {
                return None;
            }
            let node = &self.nodes[i as usize];
            i = node.next;
            Some((node.key, node.value))
        })
    }

    fn unlink(&mut self, i: u32) {
        let Node { prev, next, .. } = self.nodes[i as usize];
        if prev == NIL {
            self.head = next;
        } else {
            self.nodes[prev as usize].next = next;
        }
        if next == NIL {
            self.tail = prev;
        } else {
            self.nodes[next as usize].prev = prev;
        }
    }

    fn push_front(&mut self, i: u32) {
        let old_head = self.head;
        let node = &mut self.nodes[i as usize];
        node.prev = NIL;
        node.next = old_head;
        if old_head == NIL {
            self.tail = i;
        } else {
            self.nodes[old_head as usize].prev = i;
        }
        self.head = i;
    }

    #[inline]
    fn move_to_front(&mut self, i: u32) {
        if self.head != i {
            self.unlink(i);
            self.push_front(i);
        }
    }
}

/// QTC sizing and the unseen-state action.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QtcConfig {
    /// Entries per action's cache. The slide: 100.
    #[serde(default = "default_capacity")]
    pub capacity_per_action: usize,
    /// Action taken in a state no cache holds. The slide: 0-page copy (action 0).
    #[serde(default)]
    pub default_action: usize,
}

fn default_capacity() -> usize {
    100
}

impl Default for QtcConfig {
    fn default() -> Self {
        QtcConfig { capacity_per_action: default_capacity(), default_action: 0 }
    }
}

impl QtcConfig {
    pub fn validate(&self, prefix: &str, n_actions: usize) -> Result<()> {
        if self.capacity_per_action == 0 || self.capacity_per_action > (1 << 31) {
            return Err(Error::config(
                format!("{prefix}.capacity_per_action"),
                format!("must be between 1 and 2^31, got {}", self.capacity_per_action),
            ));
        }
        if self.default_action >= n_actions {
            return Err(Error::config(
                format!("{prefix}.default_action"),
                format!("must be below the number of actions ({n_actions}), got {}", self.default_action),
            ));
        }
        Ok(())
    }
}

/// Initial Q value of an absent (state key, action) entry.
pub type QInitialiser = Arc<dyn Fn(u64, usize) -> f64 + Send + Sync>;

/// Counters for a report.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct QtcStats {
    pub n_actions: usize,
    pub capacity_per_action: usize,
    /// Entries held, per action.
    pub occupancy: Vec<usize>,
    /// Entry lookups that found / did not find the (state, action) entry.
    pub hits: u64,
    pub misses: u64,
    /// New entries written, and entries evicted to make room.
    pub insertions: u64,
    pub evictions: u64,
    /// Calls to `select`, and how many of them met an unseen state.
    pub selections: u64,
    pub unseen_selections: u64,
}

/// The chosen action; `known` is false when the state was unseen and the default was taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QtcChoice {
    pub action: usize,
    pub explored: bool,
    pub known: bool,
}

/// One LRU cache of Q values per action.
#[derive(Clone)]
pub struct QTableCache {
    caches: Vec<LruCache>,
    default_action: usize,
    initialiser: Option<QInitialiser>,
    row: Vec<f64>,
    hits: u64,
    misses: u64,
    insertions: u64,
    evictions: u64,
    selections: u64,
    unseen_selections: u64,
}

impl std::fmt::Debug for QTableCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("QTableCache")
            .field("stats", &self.stats())
            .field("default_action", &self.default_action)
            .field("initialiser", &self.initialiser.as_ref().map(|_| "custom"))
            .finish()
    }
}

impl QTableCache {
    pub fn new(n_actions: usize, config: &QtcConfig) -> Result<Self> {
        if n_actions == 0 {
            return Err(Error::config("qtc.n_actions", "needs at least one action"));
        }
        config.validate("qtc", n_actions)?;
        let caches = (0..n_actions).map(|_| LruCache::new(config.capacity_per_action)).collect::<Result<_>>()?;
        Ok(QTableCache {
            caches,
            default_action: config.default_action,
            initialiser: None,
            row: vec![0.0; n_actions],
            hits: 0,
            misses: 0,
            insertions: 0,
            evictions: 0,
            selections: 0,
            unseen_selections: 0,
        })
    }

    /// Replace the default initial value 0 by a predictor.
    pub fn with_initialiser(mut self, initialiser: QInitialiser) -> Self {
        self.initialiser = Some(initialiser);
        self
    }

    pub fn n_actions(&self) -> usize {
        self.caches.len()
    }

    #[inline]
    fn initial(&self, key: u64, action: usize) -> f64 {
        self.initialiser.as_ref().map_or(0.0, |f| f(key, action))
    }

    /// The cached value without touching recency or counters.
    pub fn peek(&self, key: u64, action: usize) -> Option<f64> {
        self.caches[action].peek(key)
    }

    /// Whether any action's cache holds `key`.
    pub fn is_known(&self, key: u64) -> bool {
        self.caches.iter().any(|c| c.contains(key))
    }

    /// The cached value, refreshing recency and counting a hit or a miss.
    #[inline]
    pub fn lookup(&mut self, key: u64, action: usize) -> Option<f64> {
        let found = self.caches[action].get(key);
        if found.is_some() {
            self.hits += 1;
        } else {
            self.misses += 1;
        }
        found
    }

    /// The cached value, or the initial value if absent (not inserted).
    #[inline]
    pub fn value(&mut self, key: u64, action: usize) -> f64 {
        match self.lookup(key, action) {
            Some(q) => q,
            None => self.initial(key, action),
        }
    }

    /// Write `Q(key, action)`, inserting it if absent; returns the entry evicted to make room.
    #[inline]
    pub fn set(&mut self, key: u64, action: usize, value: f64) -> Option<(u64, f64)> {
        debug_assert!(value.is_finite());
        let cache = &mut self.caches[action];
        if !cache.contains(key) {
            self.insertions += 1;
        }
        let evicted = cache.insert(key, value);
        if evicted.is_some() {
            self.evictions += 1;
        }
        evicted
    }

    fn fill_row(&mut self, key: u64) {
        for a in 0..self.caches.len() {
            self.row[a] = self.value(key, a);
        }
    }

    /// Choose an action for state `key` (see the module header for unseen states).
    pub fn select<R: Rng + ?Sized>(
        &mut self,
        key: u64,
        epsilon: f64,
        selection: &ActionSelection,
        rng: &mut R,
    ) -> QtcChoice {
        self.selections += 1;
        if !self.is_known(key) {
            self.unseen_selections += 1;
            return QtcChoice { action: self.default_action, explored: false, known: false };
        }
        self.fill_row(key);
        let choice = epsilon_greedy(&self.row, epsilon, selection, rng);
        QtcChoice { action: choice.action, explored: choice.explored, known: true }
    }

    /// SARSA-form update (`rl::update::sarsa_update`) on cached values; returns the new value.
    #[allow(clippy::too_many_arguments)]
    pub fn sarsa_update(
        &mut self,
        prev_key: u64,
        prev_action: usize,
        r: f64,
        key: u64,
        action: usize,
        alpha: f64,
        gamma: f64,
    ) -> f64 {
        let target = r + gamma * self.value(key, action);
        let new = td_blend(self.value(prev_key, prev_action), target, alpha);
        self.set(prev_key, prev_action, new);
        new
    }

    /// Q-learning update, the max taken over cached-or-initial values; returns the new value.
    pub fn q_learning_update(
        &mut self,
        prev_key: u64,
        prev_action: usize,
        r: f64,
        key: u64,
        alpha: f64,
        gamma: f64,
    ) -> f64 {
        self.fill_row(key);
        let max = self.row.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let new = td_blend(self.value(prev_key, prev_action), r + gamma * max, alpha);
        self.set(prev_key, prev_action, new);
        new
    }

    /// One action's entries, most recently used first.
    pub fn entries(&self, action: usize) -> impl Iterator<Item = (u64, f64)> + '_ {
        self.caches[action].iter()
    }

    pub fn stats(&self) -> QtcStats {
        QtcStats {
            n_actions: self.caches.len(),
            capacity_per_action: self.caches[0].capacity(),
            occupancy: self.caches.iter().map(LruCache::len).collect(),
            hits: self.hits,
            misses: self.misses,
            insertions: self.insertions,
            evictions: self.evictions,
            selections: self.selections,
            unseen_selections: self.unseen_selections,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use rand::SeedableRng;
    use rand_pcg::Pcg64Mcg;

    fn keys(c: &LruCache) -> Vec<u64> {
        c.iter().map(|(k, _)| k).collect()
    }

    #[test]
    fn lru_evicts_the_least_recently_used() {
        let mut c = LruCache::new(3).unwrap();
        assert_eq!(c.insert(1, 1.0), None);
        assert_eq!(c.insert(2, 2.0), None);
        assert_eq!(c.insert(3, 3.0), None);
        assert_eq!(keys(&c), [3, 2, 1]);
        // Touch 1, so 2 is now the oldest.
        assert_eq!(c.get(1), Some(1.0));
        assert_eq!(keys(&c), [1, 3, 2]);
        assert_eq!(c.insert(4, 4.0), Some((2, 2.0)));
        assert_eq!(keys(&c), [4, 1, 3]);
        // peek does not refresh: 3 goes next.
        assert_eq!(c.peek(3), Some(3.0));
        assert_eq!(c.insert(5, 5.0), Some((3, 3.0)));
        assert_eq!(keys(&c), [5, 4, 1]);
        // Overwriting refreshes and does not evict.
        assert_eq!(c.insert(1, 10.0), None);
        assert_eq!(keys(&c), [1, 5, 4]);
        assert_eq!(c.get(1), Some(10.0));
        assert_eq!(c.get(2), None);
        assert_eq!(c.len(), 3);
        assert!(LruCache::new(0).is_err());
    }

    #[test]
    fn capacity_one() {
        let mut c = LruCache::new(1).unwrap();
        c.insert(7, 1.0);
        assert_eq!(c.insert(8, 2.0), Some((7, 1.0)));
        assert_eq!(keys(&c), [8]);
        assert_eq!(c.get(8), Some(2.0));
    }

    #[test]
    fn unseen_state_takes_the_default_action_without_randomness() {
        let config = QtcConfig { capacity_per_action: 4, default_action: 0 };
        let mut q = QTableCache::new(3, &config).unwrap();
        let mut rng = Pcg64Mcg::seed_from_u64(1);
        let before = rng.clone();
        let c = q.select(42, 1.0, &ActionSelection::default(), &mut rng);
        assert_eq!(c, QtcChoice { action: 0, explored: false, known: false });
        assert_eq!(rng, before, "no draw for an unseen state");
        assert_eq!(q.stats().unseen_selections, 1);

        let config = QtcConfig { capacity_per_action: 4, default_action: 2 };
        let mut q = QTableCache::new(3, &config).unwrap();
        assert_eq!(q.select(42, 0.0, &ActionSelection::default(), &mut rng).action, 2);
        assert!(QTableCache::new(2, &config).is_err(), "default action out of range");
    }

    #[test]
    fn known_state_uses_cached_or_initial_values() {
        let mut q = QTableCache::new(3, &QtcConfig::default()).unwrap();
        let mut rng = Pcg64Mcg::seed_from_u64(2);
        q.set(9, 2, -0.4);
        // Actions 0 and 1 are absent (0 by default), action 2 is -0.4: greedy takes action 0.
        let c = q.select(9, 0.0, &ActionSelection::default(), &mut rng);
        assert_eq!(c, QtcChoice { action: 0, explored: false, known: true });
        q.set(9, 1, 0.3);
        assert_eq!(q.select(9, 0.0, &ActionSelection::default(), &mut rng).action, 1);
        assert!(q.peek(9, 0).is_none(), "reading does not insert");
    }

    #[test]
    fn updating_a_cached_entry() {
        let mut q = QTableCache::new(2, &QtcConfig::default()).unwrap();
        q.set(1, 0, 0.5);
        q.set(2, 1, 1.0);
        // 0.7 * 0.5 + 0.3 * (1.0 + 0.8 * 1.0) = 0.89
        let new = q.sarsa_update(1, 0, 1.0, 2, 1, 0.3, 0.8);
        assert!((new - 0.89).abs() < 1e-12);
        assert_eq!(q.peek(1, 0), Some(new));
        let s = q.stats();
        assert_eq!((s.insertions, s.evictions, s.occupancy.clone()), (2, 0, vec![1, 1]));
        // An absent previous entry starts from 0: 0.3 * (-0.5 + 0.8 * 0) = -0.15, and is inserted.
        let new = q.sarsa_update(3, 1, -0.5, 4, 0, 0.3, 0.8);
        assert!((new + 0.15).abs() < 1e-12);
        assert_eq!(q.peek(3, 1), Some(new));
        // Q-learning takes the max over cached-or-initial values of state 2: max(0, 1.0) = 1.0.
        let new = q.q_learning_update(1, 0, 0.0, 2, 0.5, 1.0);
        assert!((new - (0.5 * 0.89 + 0.5 * 1.0)).abs() < 1e-12);
    }

    #[test]
    fn initialiser_hook_seeds_absent_entries() {
        let init: QInitialiser = Arc::new(|key, action| (key as f64) * 0.1 + action as f64);
        let mut q = QTableCache::new(2, &QtcConfig::default()).unwrap().with_initialiser(init);
        assert_eq!(q.value(5, 1), 1.5);
        assert!(q.peek(5, 1).is_none());
        // Update from the initial 1.5: 0.7 * 1.5 + 0.3 * (0 + 0.8 * init(6, 0) = 0.48) = 1.194
        let new = q.sarsa_update(5, 1, 0.0, 6, 0, 0.3, 0.8);
        assert!((new - 1.194).abs() < 1e-12, "{new}");
    }

    #[test]
    fn stats_count_hits_misses_evictions() {
        let mut q = QTableCache::new(1, &QtcConfig { capacity_per_action: 2, default_action: 0 }).unwrap();
        q.set(1, 0, 1.0);
        q.set(2, 0, 1.0);
        q.set(3, 0, 1.0); // evicts 1
        assert_eq!(q.lookup(1, 0), None);
        assert_eq!(q.lookup(3, 0), Some(1.0));
        let s = q.stats();
        assert_eq!((s.hits, s.misses, s.insertions, s.evictions), (1, 1, 3, 1));
        assert_eq!(s.occupancy, vec![2]);
        assert_eq!(q.entries(0).map(|(k, _)| k).collect::<Vec<_>>(), [3, 2]);
    }

    proptest! {
        /// Against a plain vector model: same contents, same order, never over capacity.
        #[test]
        fn lru_matches_a_reference_model(
            capacity in 1usize..8,
            ops in proptest::collection::vec((0u8..3, 0u64..12), 0..300),
        ) {
            let mut c = LruCache::new(capacity).unwrap();
            let mut model: Vec<(u64, f64)> = Vec::new(); // most recent first
            for (step, (op, key)) in ops.into_iter().enumerate() {
                let value = step as f64;
                match op {
                    0 => {
                        let expected_evicted = if model.iter().any(|e| e.0 == key) {
                            model.retain(|e| e.0 != key);
                            None
                        } else if model.len() == capacity {
                            model.pop()
                        } else {
                            None
                        };
                        model.insert(0, (key, value));
                        prop_assert_eq!(c.insert(key, value), expected_evicted);
                    }
                    1 => {
                        let expected = model.iter().position(|e| e.0 == key).map(|i| {
                            let e = model.remove(i);
                            model.insert(0, e);
                            e.1
                        });
                        prop_assert_eq!(c.get(key), expected);
                    }
                    _ => prop_assert_eq!(c.peek(key), model.iter().find(|e| e.0 == key).map(|e| e.1)),
                }
                prop_assert!(c.len() <= capacity);
                prop_assert_eq!(c.iter().collect::<Vec<_>>(), model.clone());
            }
        }
    }
}
