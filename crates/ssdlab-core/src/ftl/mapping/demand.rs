//! Layer: ftl. The base of the demand-based page mappings (DFTL, TPFTL): the exact table as
//! stored in the translation pages (`Table`) and the global translation directory
//! (`Directory`), and the `Mapping` methods that only they decide. A scheme is its cache in
//! front of them (`DemandCache`): what a lookup, a changed entry and a GC batch cost in
//! translation reads and write-backs. `impl<C: DemandCache> Mapping for C` makes each one a
//! mapping.

use serde_json::Value;

use crate::error::Result;
use crate::ftl::lru::NONE;
use crate::ftl::mapping::directory::Directory;
use crate::ftl::mapping::table::Table;
use crate::ftl::mapping::{MapCtx, Mapping, Relocation, Translation};
use crate::units::{Lpn, Ppn, SimTime};

/// The table as stored in the translation pages (authoritative), and where those are.
#[derive(Clone)]
pub struct TranslationPages {
    pub table: Table,
    pub gtd: Directory,
    /// Cache slot of each LPN (`NONE`: not cached); what a slot is, is the cache's.
    pub slot_of: Vec<u32>,
}

impl TranslationPages {
    /// An empty table of `logical_pages` in translation pages of `entries_per_page` entries
    /// (`predated`: see `Directory::new`).
    pub fn new(logical_pages: u32, entries_per_page: u32, predated: bool) -> TranslationPages {
        TranslationPages {
            table: Table::new(logical_pages),
            gtd: Directory::new(logical_pages, entries_per_page, predated),
            slot_of: vec![NONE; logical_pages as usize],
        }
    }

    /// GC or migration moved pages: the table follows the data pages, the directory the
    /// translation pages.
    pub fn relocated(&mut self, moves: &[Relocation]) {
        self.gtd.relocated(moves);
        self.table.relocated(moves);
    }

    /// The figures of the table and directory a demand mapping's report adds to its cache's.
    fn report_into(&self, report: &mut Value) {
        if let Value::Object(map) = report {
            map.insert("entries_per_translation_page".into(), self.gtd.entries_per_page().into());
            map.insert("translation_pages".into(), self.gtd.pages().into());
            map.insert("installed_translation_pages".into(), self.gtd.installed.into());
        }
    }
}

/// A demand-based mapping's cache in front of its `TranslationPages`.
pub trait DemandCache: Clone + Send + 'static {
    fn stored(&self) -> &TranslationPages;
    fn stored_mut(&mut self) -> &mut TranslationPages;

    /// `Mapping::lookup`: the cache's hits, misses and translation reads.
    fn lookup(&mut self, lpns: &[Lpn], out: &mut Vec<Translation>, ctx: &mut MapCtx) -> Result<()>;

    /// The entry of `lpn` changes (an update or a trim): dirty in the cache, loaded first on a
    /// miss. Returns when the entry is in DRAM.
    fn touch_dirty(&mut self, lpn: u32, ctx: &mut MapCtx) -> Result<SimTime>;

    /// `Mapping::relocated`: the table and directory follow the moves
    /// (`TranslationPages::relocated`), and the cache does what its scheme does.
    fn relocated(&mut self, moves: &[Relocation], ctx: &mut MapCtx) -> Result<()>;

    /// DRAM the cache takes (its budget).
    fn cache_bytes(&self) -> u64;

    fn reset_cache_stats(&mut self);

    /// The cache's figures (the table's and directory's are added).
    fn cache_report(&self) -> Value;
}

impl<C: DemandCache> Mapping for C {
    fn lookup(&mut self, lpns: &[Lpn], out: &mut Vec<Translation>, ctx: &mut MapCtx) -> Result<()> {
        DemandCache::lookup(self, lpns, out, ctx)
    }

    fn update(&mut self, lpn: Lpn, ppn: Ppn, ctx: &mut MapCtx) -> Result<(Option<Ppn>, SimTime)> {
        let done = self.touch_dirty(lpn.0, ctx)?;
        Ok((self.stored_mut().table.set(lpn, ppn), done))
    }

    fn premap(&mut self, lpn: Lpn, ppn: Ppn) {
        self.stored_mut().table.set(lpn, ppn);
    }

    fn relocated(&mut self, moves: &[Relocation], ctx: &mut MapCtx) -> Result<()> {
        DemandCache::relocated(self, moves, ctx)
    }

    fn unmap(&mut self, lpn: Lpn, ctx: &mut MapCtx) -> Result<Option<Ppn>> {
        if self.stored().table.get(lpn).is_none() {
            return Ok(None);
        }
        self.touch_dirty(lpn.0, ctx)?;
        Ok(self.stored_mut().table.clear(lpn))
    }

    fn peek(&self, lpn: Lpn) -> Option<Ppn> {
        self.stored().table.get(lpn)
    }

    fn translation_page(&self, tpage: u32) -> Option<Ppn> {
        self.stored().gtd.location(tpage)
    }

    /// Both the cache slot and the table entry: a lookup reads the slot, and the table (the
    /// translation pages' content) gives the PPN of every lookup and of `peek`.
    fn touch(&self, lpn: Lpn) {
        if let Some(v) = self.stored().slot_of.get(lpn.index()) {
            crate::units::prefetch(v);
        }
        self.stored().table.touch(lpn);
    }

    fn logical_pages(&self) -> u32 {
        self.stored().table.logical_pages()
    }

    fn reset_stats(&mut self) {
        self.reset_cache_stats();
        self.stored_mut().gtd.installed = 0;
    }

    /// The cache budget plus the GTD (one 4-byte location per translation page).
    fn dram_bytes(&self) -> u64 {
        self.cache_bytes() + self.stored().gtd.dram_bytes()
    }

    fn report(&self) -> Value {
        let mut report = self.cache_report();
        self.stored().report_into(&mut report);
        report
    }

    fn corrupt(&mut self, lpn: Lpn, ppn: Ppn) {
        self.stored_mut().table.set(lpn, ppn);
    }
}
