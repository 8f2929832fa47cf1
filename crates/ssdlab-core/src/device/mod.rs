//! Layer: device. The timing engine: turns flash operations into completion times on shared
//! resources. It knows operations and resources, never FTL policies.
//!
//! Resources: each array unit (chip, die or plane, per `ArrayUnit`) runs one array operation at
//! a time; each channel bus carries commands and page transfers of all its chips. An operation
//! is booked when the FTL issues it, never earlier than its `ready` time (the request's
//! "not before", e.g. a translation read that must finish first), at the earliest time from
//! then on when its unit is idle for its array time and its channel for its command or data-in:
//! work-conserving, so an operation issued later but ready earlier takes an idle gap its unit
//! left rather than waiting behind bookings that start later. Channels are calendars with the
//! same rule, as a controller interleaving its chips would do. GC operations use the same
//! resources as host ones.
//!
//! Order on a block is kept whatever the gaps allow: a read or program of a block starts after
//! the last program or erase booked on it, and an erase after every operation booked on it, so
//! no operation overtakes one it depends on (a read its page's program, a program its block's
//! erase, an erase the reads of the pages it destroys).
//!
//! The page register acts as a cache register: the unit is free once its array time ends, and
//! the read's data transfer then waits only for the channel (so closed-loop random reads
//! saturate at min(units / tR, channel bandwidth)).
//!
//! Parts: `Device` counts every operation and hands the timed ones to its transaction scheduler
//! (`scheduler/`, the `TransactionScheduler` seam: when each operation is booked), which books
//! them on the device's `Resources` (`resources.rs`: the rules above). Under `fcfs` every
//! operation is booked when issued, as described here; `priority` holds background work back.

mod calendar;
mod resources;
pub mod scheduler;

use crate::config::SchedulerConfig;
use crate::error::Result;
use crate::nand::{BlockMode, Geometry, Timing};
use crate::registry::PolicyTables;
use crate::units::{BlockId, PlaneId, Ppn, SimTime};
pub use resources::Resources;
use scheduler::{Erase, PageCopy, PageRead, Program, TransactionScheduler};

/// Who asked for a flash operation. Every operation carries one, so the report can break
/// operations, busy time and write amplification down by cause.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Source {
    /// Host reads and, without a write buffer, host writes.
    Host = 0,
    /// Garbage collection: relocations and erases.
    Gc = 1,
    /// Translation pages of a demand-based mapping (reads on misses, write-backs).
    Mapping = 2,
    /// Moving valid data from one region to another (SLC cache to the native region).
    Migration = 3,
    /// Dirty pages leaving the DRAM write buffer.
    BufferFlush = 4,
}

impl Source {
    pub const ALL: [Source; 5] = [Source::Host, Source::Gc, Source::Mapping, Source::Migration, Source::BufferFlush];

    /// The id used in reports.
    pub const fn id(self) -> &'static str {
        match self {
            Source::Host => "host",
            Source::Gc => "gc",
            Source::Mapping => "mapping",
            Source::Migration => "migration",
            Source::BufferFlush => "buffer_flush",
        }
    }
}

/// Operations of one source.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct SourceCounters {
    pub reads: u64,
    /// Pages programmed (a one-shot wordline program counts its pages).
    pub programs: u64,
    pub wordline_programs: u64,
    pub erases: u64,
    /// Array-unit busy time of this source's operations, summed over units.
    pub busy_ns: u64,
    /// Queueing delay: time this source's operations waited, once ready, for their array unit
    /// and channel to start them (a read's later wait for the channel to carry its data out is
    /// not counted), summed.
    pub wait_ns: u64,
    /// Times this source's programs and erases were suspended for a read (`transaction_scheduler.suspend_ns`).
    pub suspensions: u64,
    /// Operations (a page copy counts once) that waited in a background queue
    /// (`transaction_scheduler.policy = "priority"`); their waits are in `wait_ns`.
    pub queued: u64,
}

/// Per-source counters, serialised as a map keyed by `Source::id`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BySource(pub [SourceCounters; 5]);

impl BySource {
    pub fn get(&self, source: Source) -> &SourceCounters {
        &self.0[source as usize]
    }
}

impl serde::Serialize for BySource {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = s.serialize_map(Some(Source::ALL.len()))?;
        for source in Source::ALL {
            map.serialize_entry(source.id(), self.get(source))?;
        }
        map.end()
    }
}

/// Counts of operations issued to the flash, by kind.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct DeviceCounters {
    pub reads: u64,
    pub programs: u64,
    pub wordline_programs: u64,
    pub erases: u64,
    /// Reads per page type (LSB first), native-mode blocks only; SLC-mode reads in `slc_reads`.
    pub reads_by_page_type: Vec<u64>,
    pub slc_reads: u64,
    /// The same operations by who asked for them.
    pub by_source: BySource,
}

/// The device: its resources (`Resources`) and the transaction scheduler that books operations
/// on them (`scheduler::TransactionScheduler`, chosen by `transaction_scheduler.policy`). It
/// counts every operation and hands the timed ones to the scheduler, one call each.
#[derive(Clone)]
pub struct Device {
    res: Resources,
    sched: Box<dyn TransactionScheduler>,
    /// When false (warm-up), operations change no timing state: they complete at `ready`.
    timed: bool,
    /// Bumped whenever the resources are reset to idle (policies caching free times refresh).
    epoch: u64,
}

impl Device {
    /// A device whose operations are booked when issued (`fcfs`) until `set_scheduler`.
    pub fn new(geometry: Geometry, timing: Timing) -> Device {
        Device { res: Resources::new(geometry, timing), sched: Box::new(scheduler::Fcfs), timed: true, epoch: 0 }
    }

    /// How units order their operations (`[transaction_scheduler]`, `scheduler::registry::REGISTRY`); a
    /// scheduler with settings of its own reads them from `tables` (`Config::policy_tables`).
    pub fn set_scheduler(&mut self, cfg: &SchedulerConfig, tables: &PolicyTables) -> Result<()> {
        let problems = scheduler::registry::problems(cfg);
        if !problems.is_empty() {
            return Err(crate::error::Error::Config { path: None, problems });
        }
        let entry = crate::registry::find(scheduler::registry::REGISTRY, "transaction_scheduler.policy", &cfg.policy)?;
        let ctx =
            scheduler::BuildCtx { cfg, tables, units: self.res.units(), blocks: self.res.geometry.blocks() as usize };
        self.sched = (entry.build)(&ctx)?;
        Ok(())
    }

    pub fn geometry(&self) -> &Geometry {
        &self.res.geometry
    }
    pub fn timing(&self) -> &Timing {
        &self.res.timing
    }
    pub fn counters(&self) -> &DeviceCounters {
        &self.res.counters
    }

    /// Turn timing off (warm-up) or on. Turning it on resets all resources to idle at time 0
    /// and clears the counters, so measured runs start from a quiet device.
    pub fn set_timed(&mut self, timed: bool) {
        self.timed = timed;
        if timed {
            self.epoch += 1;
            self.res.reset();
            self.sched.reset();
        }
    }

    /// Whether operations take time (false during warm-up).
    #[inline]
    pub fn is_timed(&self) -> bool {
        self.timed
    }

    /// Changes whenever every resource was reset to idle (`set_timed(true)`): free times seen
    /// before are no longer lower bounds.
    pub fn timing_epoch(&self) -> u64 {
        self.epoch
    }

    /// Time moves to `now` (events are processed in time order): the scheduler books what its
    /// units could start before `now` (nothing issued at or after `now` can change that), then
    /// channel bookings that ended are forgotten.
    pub fn advance_to(&mut self, now: SimTime) {
        self.sched.advance_to(&mut self.res, now);
        self.res.advance_to(now);
    }

    /// The FTL marks work no request waits for (GC steps after a request, idle-time work): a
    /// scheduler that puts host work first (`TransactionCaps::host_first`) holds it back.
    pub fn set_background(&mut self, background: bool) {
        self.sched.set_background(background);
    }

    /// Book every operation the scheduler still holds (end of the run).
    pub fn drain(&mut self) {
        self.sched.drain(&mut self.res);
    }

    #[cfg(test)]
    /// Operations the scheduler still holds (always 0 under `fcfs`).
    pub fn queued_operations(&self) -> usize {
        self.sched.queued()
    }

    /// The array unit a plane's operations occupy.
    pub fn unit_of_plane(&self, plane: PlaneId) -> usize {
        self.res.unit_of_plane(plane)
    }

    /// When the array unit holding `plane` becomes free (for least-busy allocation).
    pub fn plane_free_at(&self, plane: PlaneId) -> SimTime {
        self.res.plane_free_at(plane)
    }

    /// When each array unit becomes free, by unit index (`unit_of_plane`).
    #[inline]
    pub fn unit_free_times(&self) -> &[SimTime] {
        self.res.unit_free_times()
    }

    pub fn unit_busy_ns(&self) -> &[u64] {
        self.res.unit_busy_ns()
    }

    /// Read one page for `source`; returns when its data has crossed the channel.
    pub fn read(&mut self, ppn: Ppn, mode: BlockMode, ready: SimTime, source: Source) -> SimTime {
        let page_type = self.res.count_read(ppn, mode, source);
        if !self.timed {
            return ready;
        }
        self.sched.read(&mut self.res, PageRead { ppn, mode, page_type }, ready, source)
    }

    /// Program one page (page-by-page programming) for `source`; returns when the program ends.
    /// Always inlined: the write path's unit loop and GC's copies call it for every page.
    #[inline(always)]
    pub fn program(&mut self, ppn: Ppn, mode: BlockMode, ready: SimTime, source: Source) -> SimTime {
        self.res.count_program(source);
        if !self.timed {
            return ready;
        }
        let t_prog_ns = self.res.program_ns(ppn, mode);
        let block = self.res.geometry.block_of(ppn);
        self.sched.program(&mut self.res, Program { block, pages: 1, t_prog_ns }, ready, source)
    }

    /// Count one page program for `source` without booking any resource: the page is written
    /// (it counts in the programs, hence WAF) but takes no time on its chip, so nothing waits
    /// for it. Only for the LearnedFTL artifact's accounting of its translation programs
    /// (`ftl.learned.translation_program_time = "none"`).
    pub fn program_untimed(&mut self, source: Source) {
        self.res.count_program(source);
    }

    /// Copy one page for `source` (a GC or migration move): read `old`, then program `new` once
    /// its data is out. Returns when the program ends; for background work a scheduler holds
    /// back, an estimate as if nothing else came first.
    #[inline]
    pub fn copy(
        &mut self,
        old: Ppn,
        old_mode: BlockMode,
        new: Ppn,
        new_mode: BlockMode,
        ready: SimTime,
        source: Source,
    ) -> SimTime {
        let old_page_type = self.res.count_read(old, old_mode, source);
        self.res.count_program(source);
        if !self.timed {
            return ready;
        }
        let copy = PageCopy { old, old_mode, old_page_type, new, new_mode };
        self.sched.copy(&mut self.res, copy, ready, source)
    }

    /// One-shot full-sequence program of `pages` pages of one wordline (all its page types).
    pub fn program_wordline(&mut self, first: Ppn, pages: u32, ready: SimTime, source: Source) -> SimTime {
        let counters = &mut self.res.counters;
        counters.programs += pages as u64;
        counters.wordline_programs += 1;
        let by = &mut counters.by_source.0[source as usize];
        by.programs += pages as u64;
        by.wordline_programs += 1;
        if !self.timed {
            return ready;
        }
        let t_prog_ns = self.res.timing.program_wordline_ns;
        let block = self.res.geometry.block_of(first);
        self.sched.program(&mut self.res, Program { block, pages, t_prog_ns }, ready, source)
    }

    /// Erase a block for `source`; returns when the erase ends.
    pub fn erase(&mut self, block: BlockId, mode: BlockMode, ready: SimTime, source: Source) -> SimTime {
        self.res.counters.erases += 1;
        self.res.counters.by_source.0[source as usize].erases += 1;
        if !self.timed {
            return ready;
        }
        self.sched.erase(&mut self.res, Erase { block, mode }, ready, source)
    }
}

/// A device for unit tests over `g`: tR 50 us, tPROG 500 us, tBERS 3 ms, 400 MB/s channels,
/// `command_ns` per command, one array unit per plane.
#[cfg(test)]
pub(crate) fn test_device(g: &Geometry, command_ns: u64) -> Device {
    let cfg = crate::nand::TimingConfig {
        read_ns: vec![50_000],
        program_ns: vec![500_000],
        program_wordline_ns: None,
        erase_ns: 3_000_000,
        slc_read_ns: None,
        slc_program_ns: None,
        slc_erase_ns: None,
        channel_bytes_per_s: 400_000_000,
        command_ns,
        array_unit: crate::nand::ArrayUnit::Plane,
    };
    Device::new(g.clone(), Timing::resolve(&cfg, g.cell, g.page_bytes))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nand::{ArrayUnit, CellType, TimingConfig};

    /// Two chips x 2 planes x 4 blocks x 8 QLC pages on one channel; tR 90/120/150/180 us by
    /// page type, tPROG 1.3 ms, tBERS 10 ms, 1 us commands, 4 KiB in 10 us on the channel.
    pub(super) fn device(unit: ArrayUnit) -> Device {
        let g = Geometry {
            channels: 1,
            chips_per_channel: 2,
            dies_per_chip: 1,
            planes_per_die: 2,
            blocks_per_plane: 4,
            pages_per_block: 8,
            page_bytes: 4096,
            cell: CellType::Qlc,
        };
        let cfg = TimingConfig {
            read_ns: vec![90_000, 120_000, 150_000, 180_000],
            program_ns: vec![1_300_000],
            program_wordline_ns: Some(1_300_000),
            erase_ns: 10_000_000,
            slc_read_ns: Some(30_000),
            slc_program_ns: Some(160_000),
            slc_erase_ns: None,
            channel_bytes_per_s: 409_600_000, // 4 KiB in exactly 10 us
            command_ns: 1_000,
            array_unit: unit,
        };
        let t = Timing::resolve(&cfg, g.cell, g.page_bytes);
        Device::new(g, t)
    }

    #[test]
    fn idle_read_is_command_plus_tr_plus_transfer() {
        let mut d = device(ArrayUnit::Plane);
        for (page, tr) in [(0u32, 90_000u64), (1, 120_000), (2, 150_000), (3, 180_000)] {
            let mut d2 = device(ArrayUnit::Plane);
            assert_eq!(d2.read(Ppn(page), BlockMode::Native, 5, Source::Host), 5 + 1_000 + tr + 10_000);
        }
        assert_eq!(d.read(Ppn(0), BlockMode::Slc, 0, Source::Host), 1_000 + 30_000 + 10_000);
    }

    #[test]
    fn program_and_erase_equations() {
        let mut d = device(ArrayUnit::Plane);
        assert_eq!(d.program(Ppn(0), BlockMode::Native, 0, Source::Host), 1_000 + 10_000 + 1_300_000);
        let mut d = device(ArrayUnit::Plane);
        assert_eq!(d.program_wordline(Ppn(0), 4, 0, Source::Host), 1_000 + 4 * 10_000 + 1_300_000);
        let mut d = device(ArrayUnit::Plane);
        assert_eq!(d.erase(BlockId(0), BlockMode::Native, 0, Source::Host), 1_000 + 10_000_000);
    }

    #[test]
    fn same_unit_serialises_other_units_overlap() {
        // Plane unit: blocks 0 and 4 are on planes 0 and 1 of chip 0.
        let mut d = device(ArrayUnit::Plane);
        let a = d.read(Ppn(0), BlockMode::Native, 0, Source::Host);
        let b = d.read(Ppn(4 * 8), BlockMode::Native, 0, Source::Host);
        // b's command waits for a's command on the shared channel, its array time overlaps a's,
        // and its transfer queues behind a's transfer: 2000 + 90000 -> transfer at 101000.
        assert_eq!(a, 1_000 + 90_000 + 10_000);
        assert_eq!(b, a + 10_000);
        let c = d.read(Ppn(1), BlockMode::Native, 0, Source::Host);
        assert!(c >= 1_000 + 90_000 + 1_000 + 120_000, "same plane waits for the first array op");
        // Chip unit: the two planes of one chip serialise.
        let mut d = device(ArrayUnit::Chip);
        d.read(Ppn(0), BlockMode::Native, 0, Source::Host);
        let b = d.read(Ppn(4 * 8), BlockMode::Native, 0, Source::Host);
        // b's command waits for the unit (91000) and then for a's transfer on the channel.
        assert_eq!(b, 101_000 + 1_000 + 90_000 + 10_000);
    }

    #[test]
    fn a_later_operation_ready_earlier_fills_the_gap_its_unit_left() {
        // Chip unit: a program on plane 1 ready at 500 us leaves the chip idle before it; a
        // read on plane 0 issued afterwards but ready at 0 runs in that gap, not after it.
        let mut d = device(ArrayUnit::Chip);
        let prog_end = d.program(Ppn(4 * 8), BlockMode::Native, 500_000, Source::Gc);
        assert_eq!(prog_end, 500_000 + 1_000 + 10_000 + 1_300_000);
        assert_eq!(d.read(Ppn(0), BlockMode::Native, 0, Source::Host), 1_000 + 90_000 + 10_000);
        // A read of the block being programmed waits for that program (order on a block).
        assert_eq!(d.read(Ppn(4 * 8), BlockMode::Native, 0, Source::Host), prog_end + 1_000 + 90_000 + 10_000);
    }

    #[test]
    fn an_erase_never_overtakes_an_operation_on_its_block() {
        let mut d = device(ArrayUnit::Plane);
        let read_end = d.read(Ppn(3), BlockMode::Native, 400_000, Source::Host);
        let erase_end = d.erase(BlockId(0), BlockMode::Native, 0, Source::Gc);
        // After the read's array time, and its command after the read's data-out on the channel.
        assert_eq!(erase_end, read_end + 1_000 + 10_000_000);
        let prog_end = d.program(Ppn(0), BlockMode::Native, 0, Source::Host);
        assert_eq!(prog_end, erase_end + 1_000 + 10_000 + 1_300_000);
    }

    /// An operation as the reference sees it: (unit, channel, block, kind, ready).
    #[derive(Debug, Clone)]
    struct Op {
        plane: u32,
        block_in_plane: u32,
        kind: u8,
        ready_after_now: u64,
        advance: u64,
    }

    fn op_strategy() -> impl proptest::strategy::Strategy<Value = Op> {
        use proptest::prelude::*;
        (0u32..4, 0u32..2, 0u8..3, 0u64..3_000_000, 0u64..400_000).prop_map(|(plane, b, kind, r, a)| Op {
            plane,
            block_in_plane: b,
            kind,
            ready_after_now: r,
            advance: a,
        })
    }

    fn free_on(busy: &[(u64, u64)], s: u64, len: u64) -> bool {
        busy.iter().all(|&(a, b)| s + len <= a || s >= b)
    }

    proptest::proptest! {
        /// Against a brute-force reference: every operation starts at the earliest time at or
        /// after its ready time and its block's order where its unit is idle for its array time
        /// and its channel for its command or data-in (so a unit is never idle while an
        /// operation that fits is ready), and no two bookings of a resource overlap.
        #[test]
        fn work_conserving_earliest_fit(ops in proptest::collection::vec(op_strategy(), 1..80), chip_unit in proptest::bool::ANY) {
            let unit_kind = if chip_unit { ArrayUnit::Chip } else { ArrayUnit::Plane };
            let mut d = device(unit_kind);
            let g = d.geometry().clone();
            let mut unit_busy: Vec<Vec<(u64, u64)>> = vec![Vec::new(); 4];
            let mut chan_busy: Vec<(u64, u64)> = Vec::new();
            let mut order = vec![(0u64, 0u64); g.blocks() as usize];
            let mut now = 0;
            for op in ops {
                now += op.advance;
                d.advance_to(now);
                let block = BlockId(op.plane * g.blocks_per_plane + op.block_in_plane);
                let unit = d.unit_of_plane(PlaneId(op.plane));
                let ready = now + op.ready_after_now;
                let wait0 = d.counters().by_source.get(Source::Gc).wait_ns;
                let (cmd, xfer) = (1_000, 10_000);
                let (unit_ns, chan_ns, erase, writes) = match op.kind {
                    0 => (cmd + 90_000, cmd, false, false),
                    1 => (cmd + xfer + 1_300_000, cmd + xfer, false, true),
                    _ => (cmd + 10_000_000, cmd, true, true),
                };
                let ppn = g.ppn(block, 0);
                let end = match op.kind {
                    0 => d.read(ppn, BlockMode::Native, ready, Source::Gc),
                    1 => d.program(ppn, BlockMode::Native, ready, Source::Gc),
                    _ => d.erase(block, BlockMode::Native, ready, Source::Gc),
                };
                let start = ready + (d.counters().by_source.get(Source::Gc).wait_ns - wait0);
                let (w, t) = order[block.index()];
                let earliest = ready.max(if erase { t } else { w });
                proptest::prop_assert!(start >= earliest, "started {start} before {earliest}");
                proptest::prop_assert!(free_on(&unit_busy[unit], start, unit_ns), "unit overlap at {start}");
                proptest::prop_assert!(free_on(&chan_busy, start, chan_ns), "channel overlap at {start}");
                let candidates = std::iter::once(earliest)
                    .chain(unit_busy[unit].iter().map(|&(_, e)| e))
                    .chain(chan_busy.iter().map(|&(_, e)| e))
                    .filter(|&c| c >= earliest && c < start);
                for c in candidates {
                    proptest::prop_assert!(
                        !(free_on(&unit_busy[unit], c, unit_ns) && free_on(&chan_busy, c, chan_ns)),
                        "idle unit: the operation fitted at {c} but started at {start}"
                    );
                }
                unit_busy[unit].push((start, start + unit_ns));
                chan_busy.push((start, start + chan_ns));
                let unit_end = start + unit_ns;
                if op.kind == 0 {
                    // The read's data-out follows on the channel once the array is done.
                    proptest::prop_assert!(end >= unit_end + xfer);
                    chan_busy.push((end - xfer, end));
                }
                let o = &mut order[block.index()];
                if writes {
                    o.0 = o.0.max(unit_end);
                }
                o.1 = o.1.max(unit_end);
            }
        }
    }

    #[test]
    fn untimed_operations_take_no_time() {
        let mut d = device(ArrayUnit::Plane);
        d.set_timed(false);
        assert_eq!(d.program(Ppn(0), BlockMode::Native, 7, Source::Host), 7);
        assert_eq!(d.counters().programs, 1);
        d.set_timed(true);
        assert_eq!(d.counters().programs, 0);
    }
}
