//! Layer: device. The transaction scheduler seam (`transaction_scheduler.policy`): how each array
//! unit orders the flash operations waiting for it. The trait and the operations it books; the
//! registry names each scheduler (`registry.rs`); each scheduler is a file of this folder:
//! `fcfs.rs` books every operation when issued, `priority.rs` holds background work in per-unit
//! queues.
//!
//! A scheduler books on the device's `Resources` (`book_read`, `book_program`, `book_erase`: the
//! earliest fit at or after a ready time, order per block kept) and decides only when each
//! operation is booked. `Device` counts every operation and hands the timed ones here: one
//! dynamic call per operation, none during warm-up.

mod fcfs;
mod priority;
pub mod registry;

pub(super) use fcfs::Fcfs;

use super::{Resources, Source};
use crate::config::SchedulerConfig;
use crate::error::Result;
use crate::nand::BlockMode;
use crate::registry::PolicyTables;
use crate::units::{BlockId, Ppn, SimTime};

/// A read of one page.
#[derive(Debug, Clone, Copy)]
pub struct PageRead {
    pub ppn: Ppn,
    pub mode: BlockMode,
    /// Its page type (which sets tR), LSB first.
    pub page_type: u32,
}

/// A program of `pages` pages of one block (one page, or a one-shot wordline).
#[derive(Debug, Clone, Copy)]
pub struct Program {
    pub block: BlockId,
    pub pages: u32,
    /// Its array time.
    pub t_prog_ns: u64,
}

/// An erase of one block.
#[derive(Debug, Clone, Copy)]
pub struct Erase {
    pub block: BlockId,
    pub mode: BlockMode,
}

/// A page copy (a GC or migration move): read `old`, then program `new` once its data is out.
#[derive(Debug, Clone, Copy)]
pub struct PageCopy {
    pub old: Ppn,
    pub old_mode: BlockMode,
    /// The page type of `old` (which sets its tR).
    pub old_page_type: u32,
    pub new: Ppn,
    pub new_mode: BlockMode,
}

/// How array units order the operations waiting for them. Each call gets one operation, counted
/// already, its ready time (the earliest it may start) and who asked for it; it books the
/// operation on `res` now, or holds it to book later (in `advance_to` or `drain`), and returns
/// its end: when a read's data has crossed the channel, when a program or erase ends (for an
/// operation held back, an estimate as if nothing else came first). Calls come in time order:
/// `advance_to(now)` before anything issued at `now`.
pub trait TransactionScheduler: Send + dyn_clone::DynClone {
    fn read(&mut self, res: &mut Resources, op: PageRead, ready: SimTime, source: Source) -> SimTime;
    fn program(&mut self, res: &mut Resources, op: Program, ready: SimTime, source: Source) -> SimTime;
    fn erase(&mut self, res: &mut Resources, op: Erase, ready: SimTime, source: Source) -> SimTime;
    fn copy(&mut self, res: &mut Resources, op: PageCopy, ready: SimTime, source: Source) -> SimTime;
    /// The operations issued from now on are work no request waits for (`Device::set_background`),
    /// until called with false.
    fn set_background(&mut self, _background: bool) {}
    /// Time moves to `now`: book what held operations could start before it.
    fn advance_to(&mut self, _res: &mut Resources, _now: SimTime) {}
    /// Book every held operation (end of the run, or of warm-up).
    fn drain(&mut self, _res: &mut Resources) {}
    /// Back to idle: the resources were reset (timing turned on after warm-up).
    fn reset(&mut self) {}
    /// Operations held, not yet booked.
    fn queued(&self) -> usize {
        0
    }
}

dyn_clone::clone_trait_object!(TransactionScheduler);

/// What a scheduler's constructor gets: the `[transaction_scheduler]` table, the policies'
/// settings tables (`Config::policy_tables`, for a scheduler with its own), and the device's
/// array units and blocks.
pub struct BuildCtx<'a> {
    pub cfg: &'a SchedulerConfig,
    pub tables: &'a PolicyTables,
    pub units: usize,
    pub blocks: usize,
}

pub type BuildScheduler = fn(&BuildCtx) -> Result<Box<dyn TransactionScheduler>>;
