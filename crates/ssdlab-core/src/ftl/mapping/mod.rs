//! Layer: ftl. Logical-to-physical mapping schemes behind one trait.
//!
//! A mapping answers "where is LPN x" and records moves. Demand-based schemes (DFTL, TPFTL,
//! LearnedFTL, later issues) keep their table in translation pages on flash: their lookups
//! issue flash reads through the context's device and return when the data access may start,
//! so a data read waits for its translation read per request, not by delaying the chip.

pub mod page;

use crate::device::Device;
use crate::units::{Lpn, Ppn, SimTime};

/// What a mapping may touch while serving one lookup or update.
pub struct MapCtx<'a> {
    pub device: &'a mut Device,
    pub now: SimTime,
}

pub trait Mapping: Send {
    /// The policy id used in configs and reports.
    fn id(&self) -> &'static str;
    /// Host read: the page holding `lpn` (None if never written or trimmed), and the time the
    /// data read may start.
    fn lookup(&mut self, lpn: Lpn, ctx: &mut MapCtx) -> (Option<Ppn>, SimTime);
    /// Host write: point `lpn` at `ppn`; returns the previous page and the time the program may
    /// start.
    fn update(&mut self, lpn: Lpn, ppn: Ppn, ctx: &mut MapCtx) -> (Option<Ppn>, SimTime);
    /// GC moved `lpn` from `from` to `to`.
    fn relocate(&mut self, lpn: Lpn, from: Ppn, to: Ppn);
    /// Trim: forget `lpn`; returns the page that held it.
    fn unmap(&mut self, lpn: Lpn) -> Option<Ppn>;
    /// The current mapping without side effects or cost (verify mode, tests).
    fn peek(&self, lpn: Lpn) -> Option<Ppn>;
    /// Hint: `lpn` will be looked up soon (bring its entry into cache). No effect on results.
    fn touch(&self, _lpn: Lpn) {}
    /// Logical pages the table covers.
    fn logical_pages(&self) -> u32;
    /// Test hook: make `lpn` point at `ppn` without any bookkeeping (to prove verify mode
    /// catches a corrupted table).
    #[doc(hidden)]
    fn corrupt(&mut self, lpn: Lpn, ppn: Ppn);
}
