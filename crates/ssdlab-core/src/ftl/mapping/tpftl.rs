//! Layer: ftl. TPFTL (Zhou, Wu, Huang, Li, Wang, Zhang; EuroSys 2015) as the LearnedFTL paper
//! compares against it (Wang et al., HPCA 2024, Sec. 2.2): the table lives in translation pages
//! on flash behind a GTD (`directory.rs`), like DFTL, but the cached mapping table is two-level.
//!
//! * **Two levels.** A node per cached translation page, holding that page's cached entries in
//!   LRU order. An entry stores only the LPN's offset in its page and the PPN, so it costs
//!   `entry_bytes` (6) instead of DFTL's 8, and each node costs `node_bytes`; the capacity is
//!   counted in bytes (`cmt_bytes`), which is where TPFTL's compression shows.
//! * **Node hotness** (TPFTL Sec. 3.2): the mean of the last-access times of the node's entries;
//!   the coldest node is the replacement victim.
//! * **Clean-first replacement**: in the coldest node, the least recently used clean entry leaves,
//!   else the least recently used dirty one; a dirty one is written back by a read-modify-write
//!   of its translation page and every dirty entry of that node becomes clean with it (batch
//!   update). A node left empty is dropped.
//! * **Request-level prefetch**: a read request is split at translation-page boundaries; the
//!   first page of a sub-range that misses loads every uncached entry from it to the end of the
//!   sub-range with one translation read.
//! * **Selective prefetch**: while switched on, a miss also loads as many entries after the
//!   loaded range (within its translation page) as the missed LPN has consecutively cached
//!   predecessors, at most as many as the coldest node holds. It switches off once
//!   `selective_threshold` more nodes were created than dropped (new pages keep arriving: little
//!   spatial locality) and on again once that many more were dropped than created.
//!
//! Deviations and choices: a write request reaches the mapping page by page, so its request-level
//! prefetch is modelled as the pages of one write request in one translation page sharing the
//! first miss's translation read (DFTL charges each); entries loaded by prefetch are clean and
//! count as accessed when loaded; capacity in bytes as the WiscSim re-implementation does (the
//! LearnedFTL artifact counts entries, hiding the compression); node hotness as WiscSim's
//! reading of the paper (the artifact orders nodes by plain LRU). GC as DFTL: moved entries
//! become dirty if cached, else their translation pages are rewritten once per batch.

use dary_heap::QuaternaryHeap;
use std::cmp::Reverse;
use std::collections::VecDeque;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::config::UnwrittenReads;
use crate::error::Result;
use crate::ftl::blocks::Owner;
use crate::ftl::lru::{place_slot, Linked, Links, LruList, NONE};
use crate::ftl::mapping::demand::{DemandCache, TranslationPages};
use crate::ftl::mapping::directory::{dirty_mark, Directory};
use crate::ftl::mapping::table::Table;
use crate::ftl::mapping::{BuildCtx, MapCtx, Mapping, Relocation, Translation};
use crate::registry::{PolicySettings, Settings};
use crate::units::{ByteSize, Lpn, SimTime};

#[derive(Debug, Clone, Copy)]
struct Entry {
    lpn: u32,
    /// Dirty while this equals its node's `write_backs` (see `Node::write_backs`).
    dirty_in: u32,
    /// Access tick of the last use (node hotness is the mean over its entries).
    access: u64,
    /// Place in its node's LRU order.
    links: Links,
}

impl Linked for Entry {
    fn links(&mut self) -> &mut Links {
        &mut self.links
    }
}

#[derive(Debug, Clone, Copy)]
struct Node {
    tp: u32,
    lru: LruList,
    entries: u32,
    access_sum: u64,
    /// `access_sum / entries`, kept current by `Tpftl::reheat` (the heap compares it often).
    mean_access: u64,
    /// Write-backs of the page since the node was created: an entry dirtied now records this
    /// count, and a write-back cleans every entry at once by counting up, instead of walking
    /// the node's entries (a GC batch writes back hundreds of pages). Wraps after 2^32
    /// write-backs of one page; an entry still cached from that long ago would only cost one
    /// needless write-back.
    write_backs: u32,
    /// Entries of the node that are dirty: replacement takes the tail at once when all or none
    /// are, and walks from the tail only past dirty entries otherwise (random writes leave every
    /// entry of a node dirty, and the walk used to cross them all on every eviction).
    dirty: u32,
}

impl Node {
    /// The node's place in the hotness order: mean access tick, then translation page, packed
    /// into one integer that orders as the pair does (one comparison in the heap's inner loop).
    fn key(&self) -> HotKey {
        (self.mean_access as HotKey) << 32 | self.tp as HotKey
    }
}

/// The nodes in hotness order: a min-structure of (mean access, translation page) keys, each a
/// lower bound of its node's current key. A node pushes its key when it is created and whenever
/// the key falls; when it rises (every hit and insert raises the mean), nothing happens, and the
/// stale key is raised only if it reaches the top. The least key that equals its node's current
/// key is then the least of all current keys: every live node has a key here at or below its
/// current one. So the coldest node is exactly the one a sorted set of current keys would give
/// first (keys are unique per node), at a fraction of the cost: a hit touches nothing here, and a
/// miss usually raises one key at the top. Keys of dropped nodes are dropped when they surface;
/// everything is rebuilt from the live nodes when such leftovers outnumber them.
///
/// Keys arrive mostly in increasing order (a new node's mean is the newest access tick, above
/// every other node's), so those go to a FIFO queue at O(1), and only keys below the queue's last
/// (a mean that fell, or a raised stale key) to a 4-ary heap; the least key is the smaller of the
/// two fronts. The keys held are the same multiset a single heap would hold, so the coldest node
/// and the rebuilds are the same (random reads spent 5-7 % of their time sifting that heap).
#[derive(Debug, Default, Clone)]
struct Hotness {
    heap: QuaternaryHeap<Reverse<HotKey>>,
    /// Keys pushed in non-decreasing order, least first.
    queue: VecDeque<HotKey>,
}

/// (mean access tick << 32) | translation page.
type HotKey = u128;

impl Hotness {
    fn push(&mut self, key: HotKey) {
        if self.queue.back().is_none_or(|&last| key >= last) {
            self.queue.push_back(key);
        } else {
            self.heap.push(Reverse(key));
        }
    }

    fn len(&self) -> usize {
        self.heap.len() + self.queue.len()
    }

    fn needs_rebuild(&self, live_nodes: u64) -> bool {
        self.len() as u64 > 2 * live_nodes + 64
    }

    fn rebuild(&mut self, live: impl Iterator<Item = HotKey>) {
        self.queue.clear();
        self.heap = live.map(Reverse).collect();
    }

    /// The least key held, and whether it is the queue's front (else the heap's top).
    fn least(&self) -> Option<(HotKey, bool)> {
        match (self.heap.peek(), self.queue.front()) {
            (None, None) => None,
            (Some(&Reverse(h)), Some(&q)) if q < h => Some((q, true)),
            (None, Some(&q)) => Some((q, true)),
            (Some(&Reverse(h)), _) => Some((h, false)),
        }
    }

    /// The translation page of the coldest node; `current` gives a page's current key (None:
    /// not cached).
    fn coldest(&mut self, current: impl Fn(u32) -> Option<HotKey>) -> Option<u32> {
        while let Some((key, in_queue)) = self.least() {
            let tp = key as u32;
            let now = current(tp);
            if now == Some(key) {
                return Some(tp);
            }
            if in_queue {
                self.queue.pop_front();
            } else {
                self.heap.pop();
            }
            // Risen since pushed: in again where it belongs now. Otherwise the node is gone, or
            // has a lower key held as well.
            if let Some(now) = now.filter(|&now| now > key) {
                self.push(now);
            }
        }
        None
    }
}

#[derive(Debug, Clone, Copy, Default, serde::Serialize)]
pub struct TpftlStats {
    /// Lookups of reads, writes and trims that found the entry cached, and that did not.
    pub cmt_hits: u64,
    pub cmt_misses: u64,
    /// Pages host reads looked up, and those the cache served.
    pub read_pages: u64,
    pub read_cmt_hits: u64,
    /// Translation reads host reads issued (each makes a double read).
    pub double_reads: u64,
    /// Entries loaded beyond the missed one: request-level and selective prefetch.
    pub request_prefetched: u64,
    pub selective_prefetched: u64,
    pub evictions: u64,
    pub dirty_evictions: u64,
    /// Translation pages rewritten for evictions and for GC moves of uncached entries.
    pub eviction_writebacks: u64,
    pub gc_writebacks: u64,
    pub nodes_created: u64,
    pub nodes_dropped: u64,
    pub selective_switches: u64,
}

/// The knobs of `[ftl.tpftl]` in the units the cache uses.
#[derive(Debug, Clone, Copy)]
pub struct TpftlParams {
    pub cmt_bytes: u64,
    pub node_bytes: u64,
    pub entry_bytes: u64,
    pub request_prefetch: bool,
    pub selective_prefetch: bool,
    pub selective_threshold: i64,
}

#[derive(Clone)]
pub struct Tpftl {
    /// The table as stored in the translation pages (authoritative), the GTD, and each LPN's
    /// slot in the cache.
    stored: TranslationPages,
    params: TpftlParams,
    entries: Vec<Entry>,
    free_entries: Vec<u32>,
    /// Node slot of each translation page (NONE: not cached).
    node_of: Vec<u32>,
    nodes: Vec<Node>,
    free_nodes: Vec<u32>,
    /// Nodes by hotness, coldest first.
    hotness: Hotness,
    cached_entries: u64,
    cached_nodes: u64,
    tick: u64,
    selective_on: bool,
    /// Nodes created minus nodes dropped since selective prefetch last switched.
    node_balance: i64,
    /// The translation read a write request's earlier page issued: (page, request time, done).
    last_write_read: Option<(u32, SimTime, SimTime)>,
    /// Scratch: the LPNs one lookup's translation read loaded.
    loaded: Vec<u32>,
    stats: TpftlStats,
}

/// `[ftl.tpftl]`: TPFTL (Zhou et al., EuroSys 2015) as the LearnedFTL paper compares against it
/// (Sec. 2.2): a two-level cache of translation-page nodes holding compact entries, clean-first
/// replacement in the coldest node, request-level and selective prefetching.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct TpftlSettings {
    /// DRAM for the two-level cache, in bytes: every cached node costs `node_bytes`, every
    /// cached entry `entry_bytes` (64 KiB as DFTL's default).
    pub cmt_bytes: ByteSize,
    /// DRAM bytes one translation-page node costs (its translation page number and entry count).
    pub node_bytes: u32,
    /// DRAM bytes one entry costs inside a node: the LPN's offset in its translation page
    /// (2 bytes) and the PPN (4), the compression TPFTL gets from its two levels.
    pub entry_bytes: u32,
    /// Request-level prefetch: a miss loads the rest of the request's range in the same
    /// translation page with the same translation read.
    pub request_prefetch: bool,
    /// Selective prefetch: a miss also loads as many following entries as the missed LPN has
    /// cached predecessors, while it is switched on.
    pub selective_prefetch: bool,
    /// Selective prefetch switches off once this many more nodes were created than evicted
    /// (the cache fills with new pages: little spatial locality), and on again once this many
    /// more were evicted than created.
    pub selective_threshold: u32,
}

impl Default for TpftlSettings {
    fn default() -> Self {
        TpftlSettings {
            cmt_bytes: ByteSize(64 * 1024),
            node_bytes: 8,
            entry_bytes: 6,
            request_prefetch: true,
            selective_prefetch: true,
            selective_threshold: 3,
        }
    }
}

impl PolicySettings for TpftlSettings {
    fn problems(&self) -> Vec<(&'static str, String)> {
        let mut problems = Vec::new();
        if self.entry_bytes < 1 {
            problems.push(("entry_bytes", "must be at least 1".into()));
        }
        if self.cmt_bytes.0 < self.smallest_cache() {
            problems.push((
                "cmt_bytes",
                format!("must hold at least one node with one entry ({} bytes)", self.smallest_cache()),
            ));
        }
        if self.selective_threshold < 1 {
            problems.push(("selective_threshold", "must be at least 1".into()));
        }
        problems
    }
}

impl TpftlSettings {
    /// The smallest cache that works: one node with one entry (LearnedFTL's cache too).
    pub fn smallest_cache(&self) -> u64 {
        (self.node_bytes + self.entry_bytes) as u64
    }
}

/// Where the settings are written (`[ftl.tpftl]`); LearnedFTL's cache reads them too.
pub const SETTINGS: Settings = Settings::of::<TpftlSettings>("ftl.tpftl");

pub fn build(ctx: &BuildCtx) -> Result<Box<dyn Mapping>> {
    let t: TpftlSettings = SETTINGS.decode(&ctx.cfg.policy_tables)?;
    Ok(Box::new(Tpftl::from_config(ctx, &t, t.cmt_bytes.0 + ctx.equal_dram_bytes())))
}

impl Tpftl {
    /// A TPFTL cache of `cmt_bytes` with the rest of `[ftl.tpftl]` (`t`).
    pub fn from_config(ctx: &BuildCtx, t: &TpftlSettings, cmt_bytes: u64) -> Tpftl {
        let params = TpftlParams {
            cmt_bytes,
            node_bytes: t.node_bytes as u64,
            entry_bytes: t.entry_bytes as u64,
            request_prefetch: t.request_prefetch,
            selective_prefetch: t.selective_prefetch,
            selective_threshold: t.selective_threshold as i64,
        };
        let predated = ctx.cfg.ftl.unwritten_reads == UnwrittenReads::MapOnRead;
        Tpftl::new(ctx.logical_pages, ctx.entries_per_translation_page(), params, predated)
    }

    pub fn new(logical_pages: u32, entries_per_page: u32, params: TpftlParams, predated: bool) -> Tpftl {
        let stored = TranslationPages::new(logical_pages, entries_per_page, predated);
        let pages = stored.gtd.pages() as usize;
        Tpftl {
            stored,
            params,
            entries: Vec::new(),
            free_entries: Vec::new(),
            node_of: vec![NONE; pages],
            nodes: Vec::new(),
            free_nodes: Vec::new(),
            hotness: Hotness::default(),
            cached_entries: 0,
            cached_nodes: 0,
            tick: 0,
            selective_on: true,
            node_balance: 0,
            last_write_read: None,
            loaded: Vec::new(),
            stats: TpftlStats::default(),
        }
    }

    pub fn stats(&self) -> TpftlStats {
        self.stats
    }

    pub(crate) fn directory(&self) -> &Directory {
        &self.stored.gtd
    }

    pub(crate) fn directory_mut(&mut self) -> &mut Directory {
        &mut self.stored.gtd
    }

    /// The authoritative table (the content of the translation pages).
    pub(crate) fn table(&self) -> &Table {
        &self.stored.table
    }

    fn used_bytes(&self) -> u64 {
        self.cached_nodes * self.params.node_bytes + self.cached_entries * self.params.entry_bytes
    }

    /// Whether `lpn`'s entry is cached (no side effect).
    fn is_cached(&self, lpn: u32) -> bool {
        self.stored.slot_of[lpn as usize] != NONE
    }

    /// Use `lpn`'s entry if cached: it and its node become more recent. Returns whether it was.
    fn hit(&mut self, lpn: u32) -> bool {
        let i = self.stored.slot_of[lpn as usize];
        if i == NONE {
            return false;
        }
        self.tick += 1;
        let n = self.node_of[self.stored.gtd.tpage(lpn) as usize];
        let old = self.entries[i as usize].access;
        self.entries[i as usize].access = self.tick;
        let gain = self.tick - old;
        self.reheat(n, |node| node.access_sum += gain);
        let node = &mut self.nodes[n as usize];
        node.lru.make_most_recent(&mut self.entries, i);
        true
    }

    /// Change node `n`'s access sum and keep the hotness order.
    fn reheat(&mut self, n: u32, change: impl FnOnce(&mut Node)) {
        let node = &mut self.nodes[n as usize];
        let (was_empty, before) = (node.entries == 0, node.key());
        change(node);
        node.mean_access = node.access_sum / node.entries.max(1) as u64;
        // A risen key stays in the heap as a lower bound (see `Hotness`).
        if node.entries > 0 && (was_empty || node.key() < before) {
            self.hotness.push(node.key());
        }
        if self.hotness.needs_rebuild(self.cached_nodes) {
            self.hotness.rebuild(self.nodes.iter().filter(|n| n.entries > 0).map(Node::key));
        }
    }

    /// The coldest cached node's translation page.
    fn coldest(&mut self) -> Option<u32> {
        let (nodes, node_of) = (&self.nodes, &self.node_of);
        self.hotness.coldest(|tp| {
            let n = node_of[tp as usize];
            (n != NONE).then(|| nodes[n as usize].key())
        })
    }

    /// Cache `lpn`'s entry (not cached), making room first.
    fn insert(&mut self, lpn: u32, dirty: bool, ctx: &mut MapCtx) -> Result<()> {
        let tp = self.stored.gtd.tpage(lpn);
        let needs_node = self.node_of[tp as usize] == NONE;
        let need = self.params.entry_bytes + if needs_node { self.params.node_bytes } else { 0 };
        while self.used_bytes() + need > self.params.cmt_bytes && self.cached_entries > 0 {
            self.evict_one(ctx)?;
        }
        // Eviction may have dropped this page's node.
        let mut n = self.node_of[tp as usize];
        if n == NONE {
            n = self.new_node(tp);
        }
        self.tick += 1;
        let epoch = self.nodes[n as usize].write_backs;
        let dirty_in = dirty_mark(epoch, dirty);
        self.nodes[n as usize].dirty += dirty as u32;
        let entry = Entry { lpn, dirty_in, access: self.tick, links: Links::UNLINKED };
        let i = place_slot(&mut self.entries, &mut self.free_entries, entry);
        self.stored.slot_of[lpn as usize] = i;
        self.cached_entries += 1;
        let tick = self.tick;
        self.reheat(n, |node| {
            node.entries += 1;
            node.access_sum += tick;
        });
        self.nodes[n as usize].lru.push_head(&mut self.entries, i);
        Ok(())
    }

    fn new_node(&mut self, tp: u32) -> u32 {
        let node =
            Node { tp, lru: LruList::default(), entries: 0, access_sum: 0, mean_access: 0, write_backs: 0, dirty: 0 };
        let n = place_slot(&mut self.nodes, &mut self.free_nodes, node);
        self.node_of[tp as usize] = n;
        self.cached_nodes += 1;
        self.stats.nodes_created += 1;
        self.count_node(1);
        n
    }

    /// Selective prefetch's switch: +1 per node created, -1 per node dropped.
    fn count_node(&mut self, delta: i64) {
        self.node_balance += delta;
        let t = self.params.selective_threshold;
        let switch = if self.selective_on { self.node_balance >= t } else { self.node_balance <= -t };
        if switch {
            self.selective_on = !self.selective_on;
            self.node_balance = 0;
            self.stats.selective_switches += 1;
        } else if self.node_balance.abs() >= t {
            // Already in the state the counter points to: start counting again.
            self.node_balance = 0;
        }
    }

    /// Evict one entry: the least recently used clean entry of the coldest node, else its least
    /// recently used dirty one (written back with every dirty entry of its page).
    fn evict_one(&mut self, ctx: &mut MapCtx) -> Result<()> {
        let tp = self.coldest().expect("a cache with entries has a node");
        let n = self.node_of[tp as usize];
        let node = &self.nodes[n as usize];
        let tail = node.lru.tail();
        let mut victim = if node.dirty == node.entries { NONE } else { tail };
        if node.dirty > 0 {
            while victim != NONE && self.is_dirty(n, victim) {
                victim = self.entries[victim as usize].links.newer;
            }
        }
        self.stats.evictions += 1;
        if victim == NONE {
            victim = tail;
            self.stats.dirty_evictions += 1;
            self.stats.eviction_writebacks += 1;
            let now = ctx.now;
            self.write_back(tp, now, ctx)?;
        }
        self.remove(n, victim);
        Ok(())
    }

    fn remove(&mut self, n: u32, i: u32) {
        let Entry { lpn, access, .. } = self.entries[i as usize];
        if self.is_dirty(n, i) {
            self.nodes[n as usize].dirty -= 1;
        }
        self.nodes[n as usize].lru.unlink(&mut self.entries, i);
        self.stored.slot_of[lpn as usize] = NONE;
        self.free_entries.push(i);
        self.cached_entries -= 1;
        self.reheat(n, |node| {
            node.entries -= 1;
            node.access_sum -= access;
        });
        if self.nodes[n as usize].entries == 0 {
            let tp = self.nodes[n as usize].tp;
            self.node_of[tp as usize] = NONE;
            self.free_nodes.push(n);
            self.cached_nodes -= 1;
            self.stats.nodes_dropped += 1;
            self.count_node(-1);
        }
    }

    /// Rewrite translation page `tp` at `ready`; its cached entries become clean.
    fn write_back(&mut self, tp: u32, ready: SimTime, ctx: &mut MapCtx) -> Result<SimTime> {
        let end = self.stored.gtd.write_back(tp, ready, ctx)?;
        let n = self.node_of[tp as usize];
        if n != NONE {
            let node = &mut self.nodes[n as usize];
            node.write_backs = node.write_backs.wrapping_add(1);
            node.dirty = 0;
        }
        Ok(end)
    }

    /// Whether entry `i` of node `n` differs from its translation page on flash.
    fn is_dirty(&self, n: u32, i: u32) -> bool {
        self.entries[i as usize].dirty_in == self.nodes[n as usize].write_backs
    }

    /// Entry `i` (of LPN `lpn`, cached) changed.
    fn set_dirty(&mut self, lpn: u32, i: u32) {
        let n = self.node_of[self.stored.gtd.tpage(lpn) as usize];
        if !self.is_dirty(n, i) {
            self.nodes[n as usize].dirty += 1;
        }
        self.entries[i as usize].dirty_in = self.nodes[n as usize].write_backs;
    }

    /// Cached predecessors of `lpn` in its translation page, consecutively from `lpn - 1` down.
    fn cached_run_before(&self, lpn: u32) -> u32 {
        let first = self.stored.gtd.tpage(lpn) * self.stored.gtd.entries_per_page();
        (first..lpn).rev().take_while(|&l| self.is_cached(l)).count() as u32
    }

    /// A miss on `lpn`, whose request continues to `last`: one translation read of its page,
    /// then `lpn`'s entry and the prefetched ones are cached (`loaded`, if given, receives the
    /// LPNs inserted, ascending). Returns when the read delivers.
    fn load(
        &mut self,
        lpn: u32,
        last: u32,
        dirty: bool,
        mut loaded: Option<&mut Vec<u32>>,
        ctx: &mut MapCtx,
    ) -> Result<SimTime> {
        let tp = self.stored.gtd.tpage(lpn);
        let page_end = (tp + 1) * self.stored.gtd.entries_per_page() - 1;
        let page_end = page_end.min(self.stored.table.logical_pages() - 1);
        // Decided on the cache as the miss found it.
        let selective = if self.params.selective_prefetch && self.selective_on {
            let coldest = self.coldest().map_or(u32::MAX, |t| self.nodes[self.node_of[t as usize] as usize].entries);
            self.cached_run_before(lpn).min(coldest)
        } else {
            0
        };
        let done = self.stored.gtd.read(tp, ctx.now, ctx)?;
        self.insert(lpn, dirty, ctx)?;
        if let Some(l) = loaded.as_deref_mut() {
            l.push(lpn);
        }
        let request_end = if self.params.request_prefetch { last.min(page_end) } else { lpn };
        for l in lpn + 1..=request_end {
            if !self.is_cached(l) {
                self.insert(l, false, ctx)?;
                self.stats.request_prefetched += 1;
                if let Some(v) = loaded.as_deref_mut() {
                    v.push(l);
                }
            }
        }
        let selective_end = (request_end as u64 + selective as u64).min(page_end as u64) as u32;
        for l in request_end + 1..=selective_end {
            if !self.is_cached(l) {
                self.insert(l, false, ctx)?;
                self.stats.selective_prefetched += 1;
            }
        }
        Ok(done)
    }

    /// GC or migration moved `moves`: follow them in the table and the GTD; a moved entry that
    /// is cached becomes dirty, and each distinct translation page of the uncached ones (of all
    /// moved ones with `rewrite_all`) is rewritten once, in page order. `pages` receives the
    /// translation pages rewritten.
    pub(crate) fn relocate(
        &mut self,
        moves: &[Relocation],
        rewrite_all: bool,
        pages: &mut Vec<u32>,
        ctx: &mut MapCtx,
    ) -> Result<()> {
        self.stored.relocated(moves);
        pages.clear();
        for m in moves {
            if let Owner::Data(lpn) = m.owner {
                let i = self.stored.slot_of[lpn.index()];
                if i != NONE {
                    self.set_dirty(lpn.0, i);
                }
                if i == NONE || rewrite_all {
                    pages.push(self.stored.gtd.tpage(lpn.0));
                }
            }
        }
        pages.sort_unstable();
        pages.dedup();
        for &tp in pages.iter() {
            self.stats.gc_writebacks += 1;
            let now = ctx.now;
            self.write_back(tp, now, ctx)?;
        }
        Ok(())
    }

    /// Host read of `lpns`, with `predicted(lpn)` answering for a page that misses the cache
    /// whether another index (LearnedFTL's models) knows its location without a translation
    /// read. Appends one `Translation` per page.
    pub(crate) fn lookup_with(
        &mut self,
        lpns: &[Lpn],
        out: &mut Vec<Translation>,
        ctx: &mut MapCtx,
        predicted: &mut dyn FnMut(u32) -> bool,
    ) -> Result<()> {
        let mut i = 0;
        while i < lpns.len() {
            // The sub-range: consecutive LPNs in one translation page.
            let tp = self.stored.gtd.tpage(lpns[i].0);
            let mut j = i + 1;
            while j < lpns.len() && lpns[j].0 == lpns[j - 1].0.wrapping_add(1) && self.stored.gtd.tpage(lpns[j].0) == tp
            {
                j += 1;
            }
            let last = lpns[j - 1].0;
            // The translation read of this sub-range's first miss, and the pages it loaded up
            // to `last` (ascending): those wait for it, pages cached before it do not.
            let mut read: Option<SimTime> = None;
            let mut loaded = std::mem::take(&mut self.loaded);
            loaded.clear();
            let mut next_loaded = 0;
            self.stats.read_pages += (j - i) as u64;
            for lpn in &lpns[i..j] {
                let lpn = lpn.0;
                let was_loaded = loaded.get(next_loaded) == Some(&lpn);
                if was_loaded {
                    next_loaded += 1;
                }
                let cached = self.hit(lpn);
                let start = match read {
                    Some(done) if was_loaded || !cached => {
                        // Its entry came with the sub-range's read (a page evicted again by
                        // that load's own insertions still came with it).
                        self.stats.cmt_misses += 1;
                        done
                    }
                    _ if cached => {
                        self.stats.cmt_hits += 1;
                        self.stats.read_cmt_hits += 1;
                        ctx.now
                    }
                    _ if predicted(lpn) => ctx.now,
                    _ => {
                        self.stats.cmt_misses += 1;
                        self.stats.double_reads += 1;
                        let done = self.load(lpn, last, false, Some(&mut loaded), ctx)?;
                        read = Some(done);
                        next_loaded = 1;
                        done
                    }
                };
                out.push(Translation { ppn: self.stored.table.get(Lpn(lpn)), start });
            }
            self.loaded = loaded;
            i = j;
        }
        Ok(())
    }
}

impl DemandCache for Tpftl {
    fn lookup(&mut self, lpns: &[Lpn], out: &mut Vec<Translation>, ctx: &mut MapCtx) -> Result<()> {
        self.lookup_with(lpns, out, ctx, &mut |_| false)
    }

    /// Dirty in the cache (loaded first on a miss).
    fn touch_dirty(&mut self, lpn: u32, ctx: &mut MapCtx) -> Result<SimTime> {
        if self.hit(lpn) {
            self.stats.cmt_hits += 1;
            self.set_dirty(lpn, self.stored.slot_of[lpn as usize]);
            return Ok(ctx.now);
        }
        self.stats.cmt_misses += 1;
        let tp = self.stored.gtd.tpage(lpn);
        if let Some((t, at, done)) = self.last_write_read {
            if t == tp && at == ctx.now {
                // The request's earlier page in this translation page read it already.
                self.insert(lpn, true, ctx)?;
                return Ok(done);
            }
        }
        let done = self.load(lpn, lpn, true, None, ctx)?;
        self.last_write_read = Some((tp, ctx.now, done));
        Ok(done)
    }

    fn stored(&self) -> &TranslationPages {
        &self.stored
    }

    fn stored_mut(&mut self) -> &mut TranslationPages {
        &mut self.stored
    }

    fn relocated(&mut self, moves: &[Relocation], ctx: &mut MapCtx) -> Result<()> {
        let mut pages = Vec::new();
        self.relocate(moves, false, &mut pages, ctx)
    }

    fn reset_cache_stats(&mut self) {
        self.stats = TpftlStats::default();
    }

    fn cache_bytes(&self) -> u64 {
        self.params.cmt_bytes
    }

    fn cache_report(&self) -> serde_json::Value {
        let s = self.stats;
        let lookups = s.cmt_hits + s.cmt_misses;
        json!({
            "cmt_bytes": self.params.cmt_bytes,
            "cmt_entries_cached": self.cached_entries,
            "cmt_nodes_cached": self.cached_nodes,
            "cmt_hits": s.cmt_hits,
            "cmt_misses": s.cmt_misses,
            "cmt_hit_ratio": if lookups == 0 { 0.0 } else { s.cmt_hits as f64 / lookups as f64 },
            "read_pages": s.read_pages,
            "read_cmt_hits": s.read_cmt_hits,
            "read_cmt_hit_ratio": if s.read_pages == 0 { 0.0 } else { s.read_cmt_hits as f64 / s.read_pages as f64 },
            "double_reads": s.double_reads,
            "request_prefetched": s.request_prefetched,
            "selective_prefetched": s.selective_prefetched,
            "selective_prefetch_on": self.selective_on,
            "selective_switches": s.selective_switches,
            "evictions": s.evictions,
            "dirty_evictions": s.dirty_evictions,
            "eviction_writebacks": s.eviction_writebacks,
            "gc_writebacks": s.gc_writebacks,
            "nodes_created": s.nodes_created,
            "nodes_dropped": s.nodes_dropped,
        })
    }
}
