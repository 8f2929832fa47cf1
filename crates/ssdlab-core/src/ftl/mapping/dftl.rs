//! Layer: ftl. DFTL (Gupta, Kim, Urgaonkar, ASPLOS 2009) as the LearnedFTL paper describes it
//! (Wang et al., HPCA 2024, Sec. 2.2): the page-level table lives in translation pages on flash,
//! each holding `page_bytes / translation_entry_bytes` consecutive LPNs (512 for 4 KiB pages and
//! 8-byte entries); a global translation directory (GTD) in DRAM records where each translation
//! page is; a cached mapping table (CMT) of `cmt_bytes / entry_bytes` entries keeps recently
//! used entries, in LRU order.
//!
//! * Read hit: no flash access for the mapping. Read miss: one translation read of the entry's
//!   page, then the data read starts (the "double read"); the entry is cached clean. Misses of
//!   one request on the same translation page share one read.
//! * Write or trim: the entry is updated in the CMT and marked dirty; on a miss it is loaded
//!   first (a translation read, unless its translation page was never written); the data
//!   program does not wait for that read, the request completes after both.
//! * Eviction (the CMT is full): the least recently used entry leaves; a dirty one is written
//!   back by a read-modify-write of its translation page (read it, program a new copy), and every
//!   other dirty entry of that page becomes clean with it (batch update).
//! * GC: moved translation pages update the GTD; moved data pages update their cached entry
//!   (dirty) or, if not cached, their translation page by one read-modify-write per distinct
//!   page touched in the batch (the authors' FEMU DFTL does the same).
//!
//! Deviations and choices: every translation read and write is charged as a flash operation
//! (the LearnedFTL artifact charges them for DFTL too); the data program of a write miss does not
//! wait for the translation read (the artifact issues both at the request's arrival). Data that
//! predates the run (`ftl.unwritten_reads = "map_on_read"`, the default) has its translation
//! pages on flash from the start, as MQSim's preconditioned table does: each is placed (without a
//! program) on its first use, so a miss on it costs a translation read like any other, and the
//! premapped data entry itself costs no translation I/O. With `"free"` (an empty drive at
//! start) a page whose translation page was never written is known unmapped without a flash read
//! (its GTD entry is empty). The simulator keeps the full table in memory as the content of the
//! translation pages (exact `peek`), so the CMT decides only what the flash is asked to do.

use serde_json::json;

use schemars::JsonSchema;
use serde::Deserialize;

use crate::config::UnwrittenReads;
use crate::error::Result;
use crate::ftl::blocks::Owner;
use crate::ftl::lru::{place_slot, Linked, Links, LruList, NONE};
use crate::ftl::mapping::demand::{DemandCache, TranslationPages};
use crate::ftl::mapping::directory::dirty_mark;
use crate::ftl::mapping::{BuildCtx, MapCtx, Mapping, Relocation, Translation};
use crate::registry::{PolicySettings, Settings};
use crate::units::{ByteSize, Lpn, SimTime};

/// `[ftl.dftl]`: DFTL (Gupta et al., ASPLOS 2009) as the LearnedFTL paper runs it (Sec. 2.2):
/// the table in translation pages on flash, a global translation directory (GTD) in DRAM, and a
/// cached mapping table (CMT) of recently used entries.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct DftlSettings {
    /// DRAM for cached mapping entries, in bytes (the FEMU artifact of LearnedFTL: 8192 entries
    /// of 8 bytes = 64 KiB; MQSim: 2 MiB).
    pub cmt_bytes: ByteSize,
    /// DRAM bytes one cached entry costs (LPN + PPN + list links; 8 as in the FEMU artifact).
    pub entry_bytes: u32,
}

impl Default for DftlSettings {
    fn default() -> Self {
        DftlSettings { cmt_bytes: ByteSize(64 * 1024), entry_bytes: 8 }
    }
}

impl PolicySettings for DftlSettings {
    fn problems(&self) -> Vec<(&'static str, String)> {
        let mut problems = Vec::new();
        if self.entry_bytes < 1 {
            problems.push(("entry_bytes", "must be at least 1".into()));
        }
        if self.cmt_bytes.0 < self.entry_bytes as u64 {
            problems.push(("cmt_bytes", format!("must hold at least one entry ({} bytes)", self.entry_bytes)));
        }
        problems
    }
}

/// Where the settings are written (`[ftl.dftl]`).
pub const SETTINGS: Settings = Settings::of::<DftlSettings>("ftl.dftl");

/// One cached entry: its LPN, whether it is dirty, and its place in the LRU list.
#[derive(Debug, Clone, Copy)]
struct Cached {
    lpn: u32,
    /// Dirty while this equals its translation page's write-back count (`Dftl::write_backs`).
    dirty_in: u32,
    links: Links,
}

impl Linked for Cached {
    fn links(&mut self) -> &mut Links {
        &mut self.links
    }
}

#[derive(Debug, Clone, Copy, Default, serde::Serialize)]
pub struct DftlStats {
    pub cmt_hits: u64,
    pub cmt_misses: u64,
    /// Entries evicted, and those written back (dirty).
    pub evictions: u64,
    pub dirty_evictions: u64,
    /// Translation pages rewritten for evictions and for GC moves of uncached entries.
    pub eviction_writebacks: u64,
    pub gc_writebacks: u64,
    /// Read misses served by a translation read another page of the same request issued.
    pub shared_translation_reads: u64,
}

#[derive(Clone)]
pub struct Dftl {
    /// The table as stored in the translation pages (authoritative), the GTD, and each LPN's
    /// slot in the CMT.
    stored: TranslationPages,
    slots: Vec<Cached>,
    free_slots: Vec<u32>,
    capacity: u32,
    lru: LruList,
    /// Write-backs of each translation page: an entry dirtied now records its page's count, and
    /// a write-back cleans every cached entry of the page at once by counting up, as TPFTL's
    /// nodes do (`Node::write_backs`), instead of walking the page's cached entries (a GC batch
    /// writes back hundreds of pages, each with tens of cached entries). Wraps after 2^32
    /// write-backs of one page; an entry cached clean through all of them would only cost one
    /// needless write-back.
    write_backs: Vec<u32>,
    cmt_bytes: u64,
    stats: DftlStats,
}

pub fn build(ctx: &BuildCtx) -> Result<Box<dyn Mapping>> {
    let d: DftlSettings = SETTINGS.decode(&ctx.cfg.policy_tables)?;
    let entries_per_page = ctx.entries_per_translation_page();
    let cmt_bytes = d.cmt_bytes.0 + ctx.equal_dram_bytes();
    let capacity = (cmt_bytes / d.entry_bytes as u64).clamp(1, u32::MAX as u64 - 1) as u32;
    let predated = ctx.cfg.ftl.unwritten_reads == UnwrittenReads::MapOnRead;
    Ok(Box::new(Dftl::new(ctx.logical_pages, entries_per_page, capacity, cmt_bytes, predated)))
}

impl Dftl {
    pub fn new(logical_pages: u32, entries_per_page: u32, capacity: u32, cmt_bytes: u64, predated: bool) -> Dftl {
        let stored = TranslationPages::new(logical_pages, entries_per_page, predated);
        let pages = stored.gtd.pages() as usize;
        Dftl {
            stored,
            slots: Vec::new(),
            free_slots: Vec::new(),
            capacity,
            lru: LruList::default(),
            write_backs: vec![0; pages],
            cmt_bytes,
            stats: DftlStats::default(),
        }
    }

    pub fn stats(&self) -> DftlStats {
        self.stats
    }

    fn tpage(&self, lpn: u32) -> u32 {
        self.stored.gtd.tpage(lpn)
    }

    /// Move a cached entry to the head; returns whether it was cached.
    fn hit(&mut self, lpn: u32) -> Option<u32> {
        let i = self.stored.slot_of[lpn as usize];
        if i == NONE {
            return None;
        }
        self.lru.make_most_recent(&mut self.slots, i);
        Some(i)
    }

    /// Write back translation page `tp` (read the stored copy, program a new one) at `ready`;
    /// every cached entry of it becomes clean. Returns when the program ends.
    fn write_back(&mut self, tp: u32, ready: SimTime, ctx: &mut MapCtx) -> Result<SimTime> {
        let end = self.stored.gtd.write_back(tp, ready, ctx)?;
        let count = &mut self.write_backs[tp as usize];
        *count = count.wrapping_add(1);
        Ok(end)
    }

    /// The `dirty_in` of an entry of `lpn`'s page: dirty now, or clean.
    fn dirty_in(&self, lpn: u32, dirty: bool) -> u32 {
        dirty_mark(self.write_backs[self.tpage(lpn) as usize], dirty)
    }

    fn is_dirty(&self, entry: &Cached) -> bool {
        entry.dirty_in == self.write_backs[self.tpage(entry.lpn) as usize]
    }

    /// Make room for one entry (evicting the LRU one, writing it back if dirty).
    fn evict_if_full(&mut self, ctx: &mut MapCtx) -> Result<()> {
        let cached = self.slots.len() as u32 - self.free_slots.len() as u32;
        if cached < self.capacity {
            return Ok(());
        }
        let victim = self.lru.tail();
        let entry = self.slots[victim as usize];
        self.stats.evictions += 1;
        if self.is_dirty(&entry) {
            self.stats.dirty_evictions += 1;
            self.stats.eviction_writebacks += 1;
            let now = ctx.now;
            self.write_back(self.tpage(entry.lpn), now, ctx)?;
        }
        self.remove(victim);
        Ok(())
    }

    fn remove(&mut self, i: u32) {
        self.lru.unlink(&mut self.slots, i);
        let lpn = self.slots[i as usize].lpn;
        self.stored.slot_of[lpn as usize] = NONE;
        self.free_slots.push(i);
    }

    /// Load `lpn`'s entry into the CMT (evicting first if full). Returns when the entry is in
    /// DRAM: after a translation read, or at once if its page was never written.
    fn load(&mut self, lpn: u32, dirty: bool, ctx: &mut MapCtx) -> Result<SimTime> {
        self.load_after(lpn, dirty, None, ctx)
    }

    /// `load`, where `read_done` (if given) is when a translation read of the same page that
    /// this request already issued delivers it: the entry comes from that read.
    fn load_after(&mut self, lpn: u32, dirty: bool, read_done: Option<SimTime>, ctx: &mut MapCtx) -> Result<SimTime> {
        self.stats.cmt_misses += 1;
        self.evict_if_full(ctx)?;
        let tp = self.tpage(lpn);
        let ready = match read_done {
            Some(t) => {
                self.stats.shared_translation_reads += 1;
                t
            }
            None => self.stored.gtd.read(tp, ctx.now, ctx)?,
        };
        let entry = Cached { lpn, dirty_in: self.dirty_in(lpn, dirty), links: Links::UNLINKED };
        let i = place_slot(&mut self.slots, &mut self.free_slots, entry);
        self.stored.slot_of[lpn as usize] = i;
        self.lru.push_head(&mut self.slots, i);
        Ok(ready)
    }
}

impl DemandCache for Dftl {
    fn stored(&self) -> &TranslationPages {
        &self.stored
    }

    fn stored_mut(&mut self) -> &mut TranslationPages {
        &mut self.stored
    }

    /// Misses of one request on the same translation page share one translation read (its
    /// pages are consecutive, so they are neighbours in `lpns`), as MQSim serves every waiting
    /// entry of a translation page from one read.
    fn lookup(&mut self, lpns: &[Lpn], out: &mut Vec<Translation>, ctx: &mut MapCtx) -> Result<()> {
        // The translation page this request read last, and when that read delivered it.
        let mut last_read: Option<(u32, SimTime)> = None;
        for lpn in lpns {
            let start = match self.hit(lpn.0) {
                Some(_) => {
                    self.stats.cmt_hits += 1;
                    ctx.now
                }
                None => {
                    let tp = self.tpage(lpn.0);
                    let shared = last_read.filter(|&(t, _)| t == tp).map(|(_, at)| at);
                    let at = self.load_after(lpn.0, false, shared, ctx)?;
                    last_read = Some((tp, at));
                    at
                }
            };
            out.push(Translation { ppn: self.stored.table.get(*lpn), start });
        }
        Ok(())
    }

    /// Dirty in the CMT (loaded first on a miss).
    fn touch_dirty(&mut self, lpn: u32, ctx: &mut MapCtx) -> Result<SimTime> {
        match self.hit(lpn) {
            Some(i) => {
                self.stats.cmt_hits += 1;
                self.slots[i as usize].dirty_in = self.dirty_in(lpn, true);
                Ok(ctx.now)
            }
            None => self.load(lpn, true, ctx),
        }
    }

    fn relocated(&mut self, moves: &[Relocation], ctx: &mut MapCtx) -> Result<()> {
        self.stored.relocated(moves);
        // Translation pages to rewrite for uncached entries: sorted and deduplicated, so the
        // order of the write-backs is deterministic.
        let mut pages: Vec<u32> = Vec::new();
        for m in moves {
            if let Owner::Data(lpn) = m.owner {
                let i = self.stored.slot_of[lpn.index()];
                if i != NONE {
                    self.slots[i as usize].dirty_in = self.dirty_in(lpn.0, true);
                } else {
                    pages.push(self.tpage(lpn.0));
                }
            }
        }
        pages.sort_unstable();
        pages.dedup();
        for tp in pages {
            self.stats.gc_writebacks += 1;
            let now = ctx.now;
            self.write_back(tp, now, ctx)?;
        }
        Ok(())
    }

    fn reset_cache_stats(&mut self) {
        self.stats = DftlStats::default();
    }

    fn cache_bytes(&self) -> u64 {
        self.cmt_bytes
    }

    fn cache_report(&self) -> serde_json::Value {
        let s = self.stats;
        let lookups = s.cmt_hits + s.cmt_misses;
        json!({
            "cmt_entries": self.capacity,
            "cmt_hits": s.cmt_hits,
            "cmt_misses": s.cmt_misses,
            "cmt_hit_ratio": if lookups == 0 { 0.0 } else { s.cmt_hits as f64 / lookups as f64 },
            "evictions": s.evictions,
            "dirty_evictions": s.dirty_evictions,
            "eviction_writebacks": s.eviction_writebacks,
            "gc_writebacks": s.gc_writebacks,
            "shared_translation_reads": s.shared_translation_reads,
        })
    }
}
