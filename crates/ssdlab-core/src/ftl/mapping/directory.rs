//! Layer: ftl. The global translation directory (GTD) every demand-based mapping keeps in DRAM:
//! where each translation page is on flash, how translation pages of data that predates the run
//! get there, and the read-modify-write that rewrites one. DFTL, TPFTL and LearnedFTL differ in
//! what they cache in front of it, not in this.

use crate::error::Result;
use crate::ftl::blocks::{Owner, INVALID};
use crate::ftl::mapping::{MapCtx, Relocation};
use crate::units::{Ppn, SimTime};

/// The mark a cached entry keeps to say whether it is dirty, for caches that clean a translation
/// page's entries by counting its write-backs (DFTL per page, TPFTL per node): an entry is dirty
/// while its mark equals the current count, so one increment cleans them all.
#[inline]
pub fn dirty_mark(write_backs: u32, dirty: bool) -> u32 {
    if dirty {
        write_backs
    } else {
        write_backs.wrapping_sub(1)
    }
}

#[derive(Clone)]
pub struct Directory {
    /// Where each translation page is (INVALID: never written).
    gtd: Vec<u32>,
    entries_per_page: u32,
    /// Logical pages the run has not written hold data that predates it (`ftl.unwritten_reads
    /// = "map_on_read"`), so every translation page is on flash from the start: a miss on a
    /// page the run has not written yet costs a translation read like any other.
    predated: bool,
    /// Translation pages of data that predates the run, placed on flash at their first use
    /// (no program: they were written before the run).
    pub installed: u64,
    /// Whether a write-back's program takes time on its chip (false: LearnedFTL's artifact
    /// accounting, `ftl.learned.translation_program_time = "none"`; see `set_timed_programs`).
    timed_programs: bool,
}

impl Directory {
    pub fn new(logical_pages: u32, entries_per_page: u32, predated: bool) -> Directory {
        let pages = logical_pages.div_ceil(entries_per_page) as usize;
        Directory { gtd: vec![INVALID; pages], entries_per_page, predated, installed: 0, timed_programs: true }
    }

    /// Whether write-backs' programs take time (true, the default). False books them in no
    /// time (`MapCtx::write_translation_untimed`): the read of the stored copy is still charged.
    pub fn set_timed_programs(&mut self, timed: bool) {
        self.timed_programs = timed;
    }

    pub fn entries_per_page(&self) -> u32 {
        self.entries_per_page
    }

    /// Translation pages the table spans.
    pub fn pages(&self) -> u32 {
        self.gtd.len() as u32
    }

    /// The translation page holding `lpn`'s entry.
    #[inline]
    pub fn tpage(&self, lpn: u32) -> u32 {
        lpn / self.entries_per_page
    }

    /// Where translation page `tp` is, without side effects.
    pub fn location(&self, tp: u32) -> Option<Ppn> {
        self.gtd.get(tp as usize).copied().filter(|&v| v != INVALID).map(Ppn)
    }

    /// Where translation page `tp` is stored: None if it never was (no data of it predates the
    /// run and none was written back yet); with data that predates the run, placed on flash on
    /// its first use.
    pub fn stored(&mut self, tp: u32, ctx: &mut MapCtx) -> Result<Option<Ppn>> {
        let stored = self.gtd[tp as usize];
        if stored != INVALID {
            return Ok(Some(Ppn(stored)));
        }
        if !self.predated {
            return Ok(None);
        }
        let ppn = ctx.install_translation(tp)?;
        self.gtd[tp as usize] = ppn.0;
        self.installed += 1;
        Ok(Some(ppn))
    }

    /// Read translation page `tp` not before `ready`: when its content is in controller memory
    /// (at `ready` if it was never written: its entries are all unmapped).
    pub fn read(&mut self, tp: u32, ready: SimTime, ctx: &mut MapCtx) -> Result<SimTime> {
        Ok(match self.stored(tp, ctx)? {
            Some(p) => ctx.read_translation(p, ready),
            None => ready,
        })
    }

    /// Rewrite translation page `tp` (read the stored copy, program a new one) at `ready`.
    /// Returns when the program ends.
    pub fn write_back(&mut self, tp: u32, ready: SimTime, ctx: &mut MapCtx) -> Result<SimTime> {
        let old = self.stored(tp, ctx)?;
        let at = match old {
            Some(p) => ctx.read_translation(p, ready),
            None => ready,
        };
        let (new, end) = if self.timed_programs {
            ctx.write_translation(tp, old, at)?
        } else {
            ctx.write_translation_untimed(tp, old, at)?
        };
        self.gtd[tp as usize] = new.0;
        Ok(end)
    }

    /// GC or migration moved translation pages: follow them.
    pub fn relocated(&mut self, moves: &[Relocation]) {
        for m in moves {
            if let Owner::Map(tp) = m.owner {
                debug_assert_eq!(self.gtd[tp as usize], m.from.0, "moved translation page not where the GTD says");
                self.gtd[tp as usize] = m.to.0;
            }
        }
    }

    /// DRAM the directory takes: one 4-byte location per translation page.
    pub fn dram_bytes(&self) -> u64 {
        self.gtd.len() as u64 * 4
    }
}
