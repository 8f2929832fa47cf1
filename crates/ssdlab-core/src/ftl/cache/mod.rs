//! Layer: ftl. The DRAM write buffer (data cache) in front of the flash.
//!
//! * A host write completes when its pages are in DRAM (they cross at `cache.dram_bytes_per_s`);
//!   a partial write of a buffered page merges in DRAM; a read of a buffered page is served from
//!   DRAM. With `cache.insert_reads`, pages read from flash are kept too (clean), as a read cache.
//! * Space: the buffer holds `capacity / page_bytes` pages, counting pages being programmed
//!   (evicted, program not finished: their data must stay until it is on flash). A write that
//!   finds the buffer full drops clean pages, then evicts dirty ones, and waits for the first
//!   program to end if it must.
//! * Eviction: above `high_watermark` of dirty pages a flush evicts until `low_watermark`. An
//!   `EvictionPolicy` decides which pages leave and in what order (one program unit at a time:
//!   a page, or a wordline's pages in page-type order); the FTL programs each unit as the
//!   placement says. Write-back LRU (`lru.rs`) is the first policy; the FSP paper's page-type
//!   aware policies (`frequency.rs`, `distance.rs`, `rl_fsp.rs`) share the read history
//!   (`history.rs`) and the group module (`group.rs`).
//! * Rewrite: a policy may ask for a page just read from flash to come back into the buffer as
//!   dirty data at the LRU tail, to be regrouped (`Rewrite`; the FSP paper's Sec. III-D).
//! * At the end of a run everything dirty is flushed before the final figures and the verify
//!   pass, so no data can be lost in the buffer.
//!
//! The buffer keeps the LRU order (most recent at the head, touched by writes and read hits);
//! policies choose from its tail through `BufferView`.

pub(crate) mod distance;
pub(crate) mod frequency;
pub(crate) mod frequency_count;
pub(crate) mod group;
pub(crate) mod history;
pub(crate) mod lru;
pub(crate) mod page_type_eviction;
pub mod registry;
pub(crate) mod rl_fsp;

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use hashbrown::HashMap;
use rand_pcg::Pcg64Mcg;
use rustc_hash::FxBuildHasher;
use serde::Serialize;
use serde_json::Value;

use crate::config::{RoomOrder, ValidatedConfig};
use crate::ftl::lru::{place_slot, Linked, Links, LruList, NONE};
use crate::units::{Lpn, SimTime};

/// One buffered page.
#[derive(Debug, Clone, Copy)]
struct Slot {
    lpn: Lpn,
    dirty: bool,
    /// Pages of the host request that last wrote it (0 for a page inserted by a read).
    request_pages: u32,
    /// The last write covered the page only in part.
    partial: bool,
    /// Verify mode: the write version the buffer holds.
    version: u32,
    /// Its place in the LRU order.
    links: Links,
}

impl Linked for Slot {
    fn links(&mut self) -> &mut Links {
        &mut self.links
    }
}

/// A page the view exposes to eviction policies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BufferedPage {
    pub lpn: Lpn,
    pub dirty: bool,
    /// Pages of the host request that last wrote it (0: inserted by a read).
    pub request_pages: u32,
    /// The last write covered the page only in part (a sub-page or unaligned write).
    pub partial: bool,
}

/// What a host write tells the buffer about one of its pages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PageWrite {
    /// Pages of the request (0 for a page a read inserted).
    pub request_pages: u32,
    /// The request covers this page only in part.
    pub partial: bool,
}

/// What a policy asks for after a host read missed the buffer (`EvictionPolicy::on_flash_read`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rewrite {
    No,
    /// Load the page into the buffer as dirty data at the LRU tail, so it is regrouped with the
    /// next unit, if the buffer has a free slot (FSP paper, Sec. III-D and Fig. 8).
    Regroup,
    /// Load it at the LRU tail (making room if needed) and evict a unit at once: the
    /// "immediate refresh" of the FSP paper's Frequency baseline (Sec. IV-A).
    Immediate,
}

/// What an eviction policy sees: the buffered pages from the LRU tail (least recent) up.
pub struct BufferView<'a> {
    buffer: &'a WriteBuffer,
}

impl BufferView<'_> {
    /// Buffered pages from the least recently used, lazily.
    pub fn from_tail(&self) -> impl Iterator<Item = BufferedPage> + '_ {
        let slots = &self.buffer.slots;
        let mut at = self.buffer.lru.tail();
        std::iter::from_fn(move || {
            if at == NONE {
                return None;
            }
            let s = &slots[at as usize];
            at = s.links.newer;
            Some(BufferedPage { lpn: s.lpn, dirty: s.dirty, request_pages: s.request_pages, partial: s.partial })
        })
    }
    /// The `n` least recently used dirty pages, oldest first, into `out`: write-back LRU's
    /// unit, and every policy's unit when it is shorter than a wordline.
    pub fn oldest_dirty(&self, n: u32, out: &mut Vec<Lpn>) {
        out.extend(self.from_tail().filter(|p| p.dirty).take(n as usize).map(|p| p.lpn));
    }
    pub fn len(&self) -> u32 {
        self.buffer.index.len() as u32
    }
    pub fn is_empty(&self) -> bool {
        self.buffer.index.is_empty()
    }
    pub fn dirty(&self) -> u32 {
        self.buffer.dirty
    }
    pub fn capacity(&self) -> u32 {
        self.buffer.capacity_pages
    }
    pub fn contains(&self, lpn: Lpn) -> bool {
        self.buffer.index.contains_key(&lpn)
    }
    /// The buffered page of `lpn`, if any.
    pub fn page(&self, lpn: Lpn) -> Option<BufferedPage> {
        let s = &self.buffer.slots[*self.buffer.index.get(&lpn)? as usize];
        Some(BufferedPage { lpn: s.lpn, dirty: s.dirty, request_pages: s.request_pages, partial: s.partial })
    }
}

/// Decides which buffered dirty pages leave the buffer, as program units.
pub trait EvictionPolicy: Send + dyn_clone::DynClone {
    /// A host write put `lpn` in the buffer (new or merged).
    fn on_write(&mut self, _lpn: Lpn, _write: PageWrite) {}
    /// A host read of `lpn`; `hit` if the buffer served it.
    fn on_read(&mut self, _lpn: Lpn, _hit: bool) {}
    /// A host read of `lpn` missed the buffer and read a flash page of type `page_type` (0 =
    /// LSB; a page of an SLC-mode block is 0). Called before that read's `on_read`, so the
    /// policy sees the history without it. Whether to bring the page back for regrouping.
    fn on_flash_read(&mut self, _lpn: Lpn, _page_type: u32) -> Rewrite {
        Rewrite::No
    }
    /// A host read request ended: its pages, its size in bytes and its response time.
    fn on_read_done(&mut self, _lpns: &[Lpn], _request_bytes: u64, _response_ns: u64) {}
    /// The next program unit: up to `unit_pages` dirty pages, pushed to `out` in program order
    /// (slot i of a one-shot wordline takes page type i, LSB first). Fewer than `unit_pages`
    /// only when fewer dirty pages are buffered. Must push at least one page if any page is
    /// dirty.
    fn next_unit(&mut self, view: &BufferView, unit_pages: u32, out: &mut Vec<Lpn>);
    fn report(&self) -> Value {
        Value::Null
    }
    /// The learning diagnostics of a policy with an agent (`None`: the policy does not learn),
    /// under `id`, the id of the registry entry that built it.
    fn learning(&self, _id: &'static str) -> Option<crate::rl::LearningReport> {
        None
    }
    /// Its decision point, for an outside agent (`crate::decision`; declared in the registry
    /// entry as `EvictionCaps::decides`). `None`: the policy has none.
    fn decision_point(&mut self) -> Option<&mut dyn crate::decision::DecisionPoint> {
        None
    }
    /// Between two events, while an outside agent is attached: leave pending what the policy
    /// needs decided before the next one (the engine stops there, and calls again after `act`).
    fn before_event(&mut self, _view: &BufferView) {}
    /// The measured run's random stream, drawn afresh from the run's seed when the warm-up had
    /// its own (`warmup.seed`); a policy that draws no random numbers ignores it.
    fn reseed(&mut self, _rng: rand_pcg::Pcg64Mcg) {}
}

/// What an eviction policy is built from.
pub struct BuildCtx<'a> {
    /// The run's config (a policy's own settings: `[cache.page_type_eviction]`).
    pub cfg: &'a ValidatedConfig,
    /// LPNs are below this.
    pub logical_pages: u32,
    /// Buffer capacity in pages.
    pub capacity_pages: u32,
    /// The eviction stream of the run's random numbers (`RngStream::Eviction`).
    pub rng: Pcg64Mcg,
}

impl BuildCtx<'_> {
    /// Page types per wordline of the device's native cell (4 on QLC).
    pub fn page_types(&self) -> u32 {
        self.cfg.device.cell.bits_per_cell()
    }
}

/// Buffer figures for the report.
#[derive(Debug, Clone, Default, Serialize)]
pub struct CacheStats {
    pub capacity_pages: u32,
    /// Host page reads served from the buffer / looked up in it.
    pub read_hits: u64,
    pub read_lookups: u64,
    /// Host page writes that found the page buffered (merged) / all host page writes.
    pub write_hits: u64,
    pub write_lookups: u64,
    pub read_hit_ratio: f64,
    pub write_hit_ratio: f64,
    /// Dirty pages programmed, in program units.
    pub evicted_pages: u64,
    pub evicted_units: u64,
    /// Clean pages dropped to make room.
    pub dropped_clean_pages: u64,
    /// Watermark flushes started, and writes that waited for buffer space.
    pub flushes: u64,
    pub writes_waited: u64,
    pub wait_ns: u64,
    /// Dirty pages flushed at the end of the run.
    pub final_flush_pages: u64,
    /// Pages read from flash that the policy loaded back as dirty for regrouping (`Rewrite`),
    /// and rewrites it asked for that found the buffer full (`Rewrite::Regroup` only).
    pub rewrite_pages: u64,
    pub rewrites_skipped_full: u64,
    /// Idle-time flushes (`cache.flush_on_idle`) and the dirty pages they programmed.
    pub idle_flushes: u64,
    pub idle_flush_pages: u64,
    /// Timed write-backs (`cache.flush_interval_ns`) and the dirty pages they programmed.
    pub timer_flushes: u64,
    pub timer_flush_pages: u64,
}

/// Stands in for the eviction policy while the policy looks at the buffer
/// (`WriteBuffer::next_unit`); nothing is asked of it.
#[derive(Clone)]
struct Vacant;

impl EvictionPolicy for Vacant {
    fn next_unit(&mut self, _view: &BufferView, _unit_pages: u32, _out: &mut Vec<Lpn>) {}
}

/// The DRAM write buffer. Owned by the FTL; the eviction policy is a field so the FTL can
/// hand it a view of the buffer.
#[derive(Clone)]
pub struct WriteBuffer {
    capacity_pages: u32,
    high_dirty: u32,
    low_dirty: u32,
    index: HashMap<Lpn, u32, FxBuildHasher>,
    slots: Vec<Slot>,
    free_slots: Vec<u32>,
    lru: LruList,
    dirty: u32,
    /// Program end times of evicted pages still holding buffer space.
    in_flight: BinaryHeap<Reverse<SimTime>>,
    /// Which page a full buffer gives up first (`cache.room_order`).
    room_order: RoomOrder,
    pub(crate) policy: Box<dyn EvictionPolicy>,
    pub(crate) stats: CacheStats,
}

impl WriteBuffer {
    pub fn new(capacity_pages: u32, high_watermark: f64, low_watermark: f64, policy: Box<dyn EvictionPolicy>) -> Self {
        let high = ((capacity_pages as f64 * high_watermark).floor() as u32).clamp(1, capacity_pages);
        let low = ((capacity_pages as f64 * low_watermark).floor() as u32).min(high);
        WriteBuffer {
            capacity_pages,
            high_dirty: high,
            low_dirty: low,
            index: HashMap::default(),
            slots: Vec::new(),
            free_slots: Vec::new(),
            lru: LruList::default(),
            dirty: 0,
            in_flight: BinaryHeap::new(),
            room_order: RoomOrder::CleanFirst,
            policy,
            stats: CacheStats { capacity_pages, ..CacheStats::default() },
        }
    }

    /// The same buffer giving up pages in `order` when full.
    pub fn with_room_order(mut self, order: RoomOrder) -> Self {
        self.room_order = order;
        self
    }

    pub fn view(&self) -> BufferView<'_> {
        BufferView { buffer: self }
    }
    pub fn capacity_pages(&self) -> u32 {
        self.capacity_pages
    }
    /// Pages buffered (dirty or clean), not counting pages being programmed.
    pub fn len(&self) -> u32 {
        self.index.len() as u32
    }
    pub fn is_empty(&self) -> bool {
        self.index.is_empty()
    }
    pub fn dirty(&self) -> u32 {
        self.dirty
    }
    /// Evicted pages whose program has not ended (they still hold buffer space).
    pub fn in_flight(&self) -> u32 {
        self.in_flight.len() as u32
    }
    /// Buffer space in use: buffered pages plus pages still being programmed.
    pub fn occupied(&self) -> u32 {
        self.index.len() as u32 + self.in_flight.len() as u32
    }
    pub fn contains(&self, lpn: Lpn) -> bool {
        self.index.contains_key(&lpn)
    }
    /// The version a buffered page holds (verify mode).
    pub fn version(&self, lpn: Lpn) -> Option<u32> {
        self.index.get(&lpn).map(|&i| self.slots[i as usize].version)
    }
    pub fn is_dirty(&self, lpn: Lpn) -> bool {
        self.index.get(&lpn).is_some_and(|&i| self.slots[i as usize].dirty)
    }

    /// A read hit: the page becomes most recently used.
    pub fn touch(&mut self, lpn: Lpn) -> bool {
        match self.index.get(&lpn).copied() {
            Some(i) => {
                self.lru.make_most_recent(&mut self.slots, i);
                true
            }
            None => false,
        }
    }

    /// Put `lpn` at the head (a write makes it dirty; a read-inserted page is clean). The
    /// caller made room first. Returns whether the page was already buffered.
    pub fn insert(&mut self, lpn: Lpn, dirty: bool, write: PageWrite, version: u32) -> bool {
        if let Some(&i) = self.index.get(&lpn) {
            let s = &mut self.slots[i as usize];
            if dirty {
                if !s.dirty {
                    self.dirty += 1;
                }
                s.dirty = true;
                s.request_pages = write.request_pages;
                s.partial = write.partial;
                s.version = version;
            }
            self.lru.make_most_recent(&mut self.slots, i);
            return true;
        }
        self.insert_new(lpn, dirty, write, version, false);
        false
    }

    /// Put `lpn`, not buffered, at the LRU tail as dirty data holding `version` (the rewrite
    /// module: it leaves with the next unit). The caller made room first.
    pub fn insert_at_tail(&mut self, lpn: Lpn, write: PageWrite, version: u32) {
        debug_assert!(!self.contains(lpn));
        self.insert_new(lpn, true, write, version, true);
    }

    fn insert_new(&mut self, lpn: Lpn, dirty: bool, write: PageWrite, version: u32, at_tail: bool) {
        let slot = Slot {
            lpn,
            dirty,
            request_pages: write.request_pages,
            partial: write.partial,
            version,
            links: Links::UNLINKED,
        };
        let i = place_slot(&mut self.slots, &mut self.free_slots, slot);
        self.index.insert(lpn, i);
        if at_tail {
            self.lru.push_tail(&mut self.slots, i);
        } else {
            self.lru.push_head(&mut self.slots, i);
        }
        if dirty {
            self.dirty += 1;
        }
    }

    /// Whether one more page fits now, without dropping or evicting anything.
    pub fn has_free_slot(&self) -> bool {
        self.occupied() < self.capacity_pages
    }

    /// Remove a page (trim, or evicted). Returns (was dirty, version) if it was buffered.
    pub fn remove(&mut self, lpn: Lpn) -> Option<(bool, u32)> {
        let i = self.index.remove(&lpn)?;
        self.lru.unlink(&mut self.slots, i);
        self.free_slots.push(i);
        let s = self.slots[i as usize];
        if s.dirty {
            self.dirty -= 1;
        }
        Some((s.dirty, s.version))
    }

    /// Give back the space of evicted pages whose program ended by `now`.
    pub fn release_until(&mut self, now: SimTime) {
        while self.in_flight.peek().is_some_and(|Reverse(t)| *t <= now) {
            self.in_flight.pop();
        }
    }

    /// An evicted page holds its space until its program ends at `end`.
    pub fn hold_until(&mut self, end: SimTime) {
        self.in_flight.push(Reverse(end));
    }

    /// When the last program in flight ends (0 if none).
    pub fn latest_release(&self) -> SimTime {
        self.in_flight.iter().map(|Reverse(t)| *t).max().unwrap_or(0)
    }

    /// Wait for the earliest program to end; returns its end time (None if none in flight).
    pub fn wait_one(&mut self) -> Option<SimTime> {
        self.in_flight.pop().map(|Reverse(t)| t)
    }

    /// Drop a clean page to make room, as `cache.room_order` says: the least recently used
    /// clean page (`clean_first`), or the LRU tail if it is clean (`lru`; a dirty tail must
    /// leave in a program unit instead). False if none may be dropped.
    pub fn drop_for_room(&mut self) -> bool {
        match self.room_order {
            RoomOrder::CleanFirst => self.drop_clean(),
            RoomOrder::Lru => {
                let tail = self.lru.tail();
                if tail == NONE || self.slots[tail as usize].dirty {
                    return false;
                }
                let lpn = self.slots[tail as usize].lpn;
                self.remove(lpn);
                self.stats.dropped_clean_pages += 1;
                true
            }
        }
    }

    /// Drop the least recently used clean page, if any.
    pub fn drop_clean(&mut self) -> bool {
        // Without clean pages (write-only buffers: `insert_reads = false`) there is nothing to
        // find: do not walk the whole list before every eviction of a full buffer.
        if self.dirty as usize == self.index.len() {
            return false;
        }
        let Some(clean) = self.view().from_tail().find(|p| !p.dirty) else { return false };
        self.remove(clean.lpn);
        self.stats.dropped_clean_pages += 1;
        true
    }

    /// Whether dirty pages are above the high watermark (a flush should start).
    pub fn above_high(&self) -> bool {
        self.dirty > self.high_dirty
    }
    /// Whether a flush may stop.
    pub fn at_or_below_low(&self) -> bool {
        self.dirty <= self.low_dirty
    }

    /// The next program unit from the policy (into `out`, cleared first).
    pub fn next_unit(&mut self, unit_pages: u32, out: &mut Vec<Lpn>) {
        out.clear();
        if self.dirty == 0 {
            return;
        }
        let mut policy = std::mem::replace(&mut self.policy, Box::new(Vacant));
        policy.next_unit(&self.view(), unit_pages, out);
        self.policy = policy;
    }

    /// Between events, with an outside agent attached: the policy's `before_event`.
    pub fn before_event(&mut self) {
        let mut policy = std::mem::replace(&mut self.policy, Box::new(Vacant));
        policy.before_event(&self.view());
        self.policy = policy;
    }

    pub fn stats(&self) -> CacheStats {
        let mut s = self.stats.clone();
        let ratio = |a: u64, b: u64| if b == 0 { 0.0 } else { a as f64 / b as f64 };
        s.read_hit_ratio = ratio(s.read_hits, s.read_lookups);
        s.write_hit_ratio = ratio(s.write_hits, s.write_lookups);
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(super) fn w(request_pages: u32) -> PageWrite {
        PageWrite { request_pages, partial: false }
    }

    fn buffer(capacity: u32) -> WriteBuffer {
        WriteBuffer::new(capacity, 0.75, 0.5, Box::new(lru::LruEviction))
    }

    #[test]
    fn lru_order_dirty_count_and_merges() {
        let mut b = buffer(4);
        for l in 0..3 {
            assert!(!b.insert(Lpn(l), true, w(1), l + 1));
        }
        assert!(b.insert(Lpn(0), true, w(2), 9), "a rewrite merges");
        let order: Vec<u32> = b.view().from_tail().map(|p| p.lpn.0).collect();
        assert_eq!(order, [1, 2, 0]);
        assert_eq!((b.len(), b.dirty(), b.version(Lpn(0))), (3, 3, Some(9)));
        b.touch(Lpn(1));
        let order: Vec<u32> = b.view().from_tail().map(|p| p.lpn.0).collect();
        assert_eq!(order, [2, 0, 1]);
        // High watermark floor(0.75 x 4) = 3 dirty pages: 3 is not above it, 4 is.
        assert!(!b.above_high());
        b.insert(Lpn(7), true, w(1), 1);
        assert!(b.above_high());
        assert!(!b.at_or_below_low(), "low watermark floor(0.5 x 4) = 2");
    }

    #[test]
    fn clean_pages_drop_first_and_in_flight_pages_hold_space() {
        let mut b = buffer(4);
        b.insert(Lpn(1), false, w(0), 0);
        b.insert(Lpn(2), true, w(1), 1);
        b.insert(Lpn(3), false, w(0), 0);
        assert!(b.drop_clean());
        assert!(!b.contains(Lpn(1)) && b.contains(Lpn(3)));
        assert_eq!(b.remove(Lpn(2)), Some((true, 1)));
        b.hold_until(500);
        b.hold_until(300);
        assert_eq!(b.occupied(), 3);
        b.release_until(300);
        assert_eq!(b.occupied(), 2);
        assert_eq!(b.wait_one(), Some(500));
        assert_eq!(b.occupied(), 1);
    }

    #[test]
    fn room_orders_differ_only_when_the_tail_is_dirty() {
        // Tail to head: dirty 2, clean 1, clean 3.
        let fill = |order| {
            let mut b = buffer(4).with_room_order(order);
            b.insert(Lpn(2), true, w(1), 1);
            b.insert(Lpn(1), false, w(0), 0);
            b.insert(Lpn(3), false, w(0), 0);
            b
        };
        let mut clean_first = fill(RoomOrder::CleanFirst);
        assert!(clean_first.drop_for_room());
        assert!(!clean_first.contains(Lpn(1)), "the oldest clean page goes, past the dirty tail");
        let mut lru = fill(RoomOrder::Lru);
        assert!(!lru.drop_for_room(), "a dirty tail must leave in a program unit");
        assert_eq!((lru.len(), lru.stats.dropped_clean_pages), (3, 0));
        // Once the dirty tail has left, the clean tail is dropped.
        lru.remove(Lpn(2));
        assert!(lru.drop_for_room());
        assert!(!lru.contains(Lpn(1)) && lru.contains(Lpn(3)));
        assert_eq!(lru.stats.dropped_clean_pages, 1);
    }

    #[test]
    fn a_page_loaded_at_the_tail_leaves_first() {
        let mut b = buffer(4);
        b.insert(Lpn(1), true, w(1), 1);
        b.insert(Lpn(2), true, w(1), 1);
        b.insert_at_tail(Lpn(9), PageWrite { request_pages: 3, partial: true }, 7);
        let order: Vec<BufferedPage> = b.view().from_tail().collect();
        assert_eq!(order[0], BufferedPage { lpn: Lpn(9), dirty: true, request_pages: 3, partial: true });
        assert_eq!((b.dirty(), b.version(Lpn(9))), (3, Some(7)));
        assert!(b.has_free_slot());
        b.insert(Lpn(3), true, w(1), 1);
        assert!(!b.has_free_slot());
        let mut out = Vec::new();
        b.next_unit(2, &mut out);
        assert_eq!(out, [Lpn(9), Lpn(1)]);
    }
}

// A drive snapshot (`sim::WarmDrive`) clones the FTL with its policies.
dyn_clone::clone_trait_object!(EvictionPolicy);
