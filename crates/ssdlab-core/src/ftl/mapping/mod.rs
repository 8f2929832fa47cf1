//! Layer: ftl. Logical-to-physical mapping schemes behind one trait, and the context through
//! which a scheme keeps its table in translation pages on flash.
//!
//! A mapping answers "where is LPN x" for whole requests (so a scheme can prefetch a request's
//! range, as TPFTL does) and records where data goes. Demand-based schemes keep the table in
//! translation pages on flash: through `MapCtx` they read a translation page (a flash read
//! tagged `Source::Mapping`), write one (a page on the mapping's own stream and blocks, owner
//! `Owner::Map(tpage)`), and know the time. A data read that needs a translation read starts
//! when that read completes, per request: the lookup returns each page's start time, and the
//! FTL issues the data read at it (never by delaying the chip).
//!
//! The simulator keeps the authoritative table in memory whatever the scheme (the content of
//! the translation pages), so `peek` is exact and free; a scheme's cache and directory decide
//! only what the flash is asked to do. GC relocates translation pages like data pages and
//! hands every batch of moved pages of one victim to `relocated`, with the context, so a scheme
//! can update cached entries, rewrite the translation pages the moves touched, or rebuild
//! per-victim state (LearnedFTL trains its models there).

pub mod demand;
pub mod dftl;
pub mod directory;
pub mod learned;
pub mod page;
pub mod registry;
pub mod table;
pub mod tpftl;

use serde_json::Value;

use crate::config::ValidatedConfig;
use crate::device::{Device, Source};
use crate::error::{Error, Result};
use crate::ftl::blocks::{BlockManager, Owner, StreamId};
use crate::nand::Geometry;
use crate::units::{Lpn, PlaneId, Ppn, SimTime};

/// One page moved by GC or migration: what it holds, where it was, where it is now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Relocation {
    pub owner: Owner,
    pub from: Ppn,
    pub to: Ppn,
}

/// Translation I/O counted by the FTL for every scheme.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct TranslationIo {
    /// Translation pages read (misses of host requests, read-modify-writes).
    pub reads: u64,
    /// Translation pages written (write-backs of dirty entries, GC updates).
    pub writes: u64,
}

/// What a mapping may touch while serving one lookup, update or relocation.
pub struct MapCtx<'a> {
    /// The time the operation is served at.
    pub now: SimTime,
    pub(crate) device: &'a mut Device,
    pub(crate) blocks: &'a mut BlockManager,
    /// The stream translation pages are written to.
    pub(crate) stream: StreamId,
    pub(crate) io: &'a mut TranslationIo,
}

impl MapCtx<'_> {
    pub fn geometry(&self) -> &Geometry {
        self.blocks.geometry()
    }

    /// Read the translation page stored at `ppn`, not before `ready`; returns when its content
    /// is in controller memory.
    pub fn read_translation(&mut self, ppn: Ppn, ready: SimTime) -> SimTime {
        self.io.reads += 1;
        let mode = self.blocks.mode(self.blocks.geometry().block_of(ppn));
        self.device.read(ppn, mode, ready, Source::Mapping)
    }

    /// Write translation page `tpage` (its previous copy at `old`, if any), not before `ready`:
    /// a page on the translation stream (the least-busy plane with room), owned by
    /// `Owner::Map(tpage)`; the old copy becomes invalid. Returns the new location and when the
    /// program ends. Translation writes may use the planes' GC reserve (like GC, they must not
    /// wait for free space); if even that is gone the device is full.
    pub fn write_translation(&mut self, tpage: u32, old: Option<Ppn>, ready: SimTime) -> Result<(Ppn, SimTime)> {
        let ppn = self.place_translation(tpage, old, true)?;
        self.io.writes += 1;
        let mode = self.blocks.mode(self.blocks.geometry().block_of(ppn));
        Ok((ppn, self.device.program(ppn, mode, ready, Source::Mapping)))
    }

    /// `write_translation` without time: the page is placed, written and counted (translation
    /// writes, programs, WAF, the block's wear) but books no chip, so the call returns `ready`
    /// and nothing queues behind it. The LearnedFTL artifact's accounting
    /// (`ftl.learned.translation_program_time = "none"`), not a device's behaviour.
    pub fn write_translation_untimed(
        &mut self,
        tpage: u32,
        old: Option<Ppn>,
        ready: SimTime,
    ) -> Result<(Ppn, SimTime)> {
        let ppn = self.place_translation(tpage, old, true)?;
        self.io.writes += 1;
        self.device.program_untimed(Source::Mapping);
        Ok((ppn, ready))
    }

    /// Place translation page `tpage` of data that predates the run (`ftl.unwritten_reads =
    /// "map_on_read"`): it was on flash before the run started, so it takes a page on the
    /// translation stream without a program and is not counted. Where it went then has nothing
    /// to do with the load now: the first plane with room from `tpage mod planes` on, which
    /// spreads these pages evenly.
    pub fn install_translation(&mut self, tpage: u32) -> Result<Ppn> {
        self.place_translation(tpage, None, false)
    }

    /// A page for translation page `tpage`: on the least busy plane with room (`by_load`), or
    /// the first with room; ties and the search go in cyclic order from plane `tpage mod
    /// planes`, so translation pages placed while the device is idle (warm-up, untimed) spread
    /// over the planes instead of piling onto plane 0 until it is full.
    fn place_translation(&mut self, tpage: u32, old: Option<Ppn>, by_load: bool) -> Result<Ppn> {
        let planes = self.blocks.geometry().planes();
        let first = tpage % planes;
        let mut best: Option<(SimTime, PlaneId)> = None;
        for k in 0..planes {
            let plane = PlaneId(if first + k < planes { first + k } else { first + k - planes });
            if self.blocks.has_room(self.stream, plane, 0) {
                let free_at = self.device.plane_free_at(plane);
                if best.is_none_or(|(t, _)| free_at < t) {
                    best = Some((free_at, plane));
                }
                if !by_load {
                    break;
                }
            }
        }
        let (_, plane) =
            best.ok_or_else(|| Error::DeviceFull { reason: "no free page for a translation page".into() })?;
        let ppn = self
            .blocks
            .allocate(self.stream, plane, self.now)
            .ok_or_else(|| Error::invariant("plane with room gave no translation page"))?;
        if let Some(o) = old {
            self.blocks.invalidate(o);
        }
        self.blocks.set_owner(ppn, Owner::Map(tpage));
        Ok(ppn)
    }
}

/// Where each page of a read request lives and when its data read may start.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Translation {
    /// None: the page holds no data (never written, or trimmed).
    pub ppn: Option<Ppn>,
    pub start: SimTime,
}

pub trait Mapping: Send + dyn_clone::DynClone {
    /// Host read of `lpns` (one request, in order): append one `Translation` per page to
    /// `out`. The request arrived at `ctx.now`.
    fn lookup(&mut self, lpns: &[Lpn], out: &mut Vec<Translation>, ctx: &mut MapCtx) -> Result<()>;
    /// Host data of `lpn` now lives at `ppn`. Returns the page it replaces and the time the
    /// update is done (translation I/O it needed; the data program does not wait for it, the
    /// request completes after both).
    fn update(&mut self, lpn: Lpn, ppn: Ppn, ctx: &mut MapCtx) -> Result<(Option<Ppn>, SimTime)>;
    /// Install the location of data that predates the run (a read of a page the trace never
    /// wrote, `ftl.unwritten_reads = "map_on_read"`): no translation I/O, nothing cached (the
    /// lookup before it found, or read, the entry's translation page: see
    /// `MapCtx::install_translation`).
    fn premap(&mut self, lpn: Lpn, ppn: Ppn);
    /// GC or migration moved these pages, all from one victim block (data and translation
    /// pages).
    fn relocated(&mut self, moves: &[Relocation], ctx: &mut MapCtx) -> Result<()>;
    /// Trim: forget `lpn`; returns the page that held it.
    fn unmap(&mut self, lpn: Lpn, ctx: &mut MapCtx) -> Result<Option<Ppn>>;
    /// The current mapping without side effects or cost (verify mode, tests, GC prefetch).
    fn peek(&self, lpn: Lpn) -> Option<Ppn>;
    /// Where translation page `tpage` lives (schemes with translation pages; verify mode).
    fn translation_page(&self, _tpage: u32) -> Option<Ppn> {
        None
    }
    /// Hint: `lpn` will be looked up soon (bring its entry into cache). No effect on results.
    fn touch(&self, _lpn: Lpn) {}
    /// Logical pages the table covers.
    fn logical_pages(&self) -> u32;
    /// Controller DRAM the scheme's tables take, in bytes, as the modelled device would hold
    /// them (not the simulator's own memory).
    fn dram_bytes(&self) -> u64;
    /// Forget the figures gathered so far (end of warm-up); cached state stays.
    fn reset_stats(&mut self) {}
    /// Scheme-specific figures for the report (hits, misses, ...).
    fn report(&self) -> Value {
        Value::Null
    }
    /// Test hook: make `lpn` point at `ppn` without any bookkeeping (to prove verify mode
    /// catches a corrupted table).
    #[doc(hidden)]
    fn corrupt(&mut self, lpn: Lpn, ppn: Ppn);
}

/// What a mapping is built from.
pub struct BuildCtx<'a> {
    pub cfg: &'a ValidatedConfig,
    /// Logical pages the table covers.
    pub logical_pages: u32,
}

impl BuildCtx<'_> {
    /// Consecutive LPNs one translation page holds (`page_bytes / ftl.translation_entry_bytes`).
    pub fn entries_per_translation_page(&self) -> u32 {
        self.cfg.ftl.entries_per_translation_page(self.cfg.device.page_bytes)
    }

    /// Translation pages the table spans.
    pub fn translation_pages(&self) -> u64 {
        self.logical_pages.div_ceil(self.entries_per_translation_page()) as u64
    }

    /// DRAM one LearnedFTL model takes (`ftl.learned.model_bytes`, or derived as Sec. 4.1 does).
    pub fn model_bytes(&self) -> u64 {
        learned::model_bytes(&learned::SETTINGS.values(&self.cfg.policy_tables), self.entries_per_translation_page())
    }

    /// DRAM the CMT of `dftl` and `tpftl` gets on top of its `cmt_bytes` (`ftl.equal_dram`):
    /// what LearnedFTL's models take.
    pub fn equal_dram_bytes(&self) -> u64 {
        if self.cfg.ftl.equal_dram {
            self.translation_pages() * self.model_bytes()
        } else {
            0
        }
    }
}

// A drive snapshot (`sim::WarmDrive`) clones the FTL with its policies.
dyn_clone::clone_trait_object!(Mapping);
