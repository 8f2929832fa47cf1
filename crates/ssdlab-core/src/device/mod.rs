//! Layer: device. The timing engine: turns flash operations into completion times on shared
//! resources. It knows operations and resources, never FTL policies.
//!
//! Resources: each array unit (chip, die or plane, per `ArrayUnit`) runs one array operation at
//! a time; each channel bus carries commands and page transfers of all its chips. An operation
//! is booked when the FTL issues it, never earlier than its `ready` time (the request's
//! "not before", e.g. a translation read that must finish first). Units are booked in order
//! (first come, first served); channels are calendars whose idle gaps can be filled by later,
//! shorter bookings, as a controller interleaving its chips would do. Because the simulation
//! processes events in time order, bookings are made in non-decreasing `now`, which makes this
//! exact for FIFO service per resource. GC operations use the same resources as host ones.
//!
//! The page register acts as a cache register: the unit is free once its array time ends, and
//! the read's data transfer then waits only for the channel (so closed-loop random reads
//! saturate at min(units / tR, channel bandwidth)).

mod calendar;

use crate::nand::cell::page_type;
use crate::nand::{ArrayUnit, BlockMode, Geometry, Timing};
use crate::units::{BlockId, PlaneId, Ppn, SimTime};
use calendar::Calendar;

/// Who asked for a flash operation. Every operation carries one, so the report can break
/// operations, busy time and write amplification down by cause; a priority transaction
/// scheduler will queue by it.
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

pub struct Device {
    geometry: Geometry,
    timing: Timing,
    /// Free-at time of each array unit.
    unit_free_at: Vec<SimTime>,
    channels: Vec<Calendar>,
    /// Array-busy nanoseconds per unit (utilisation figures).
    unit_busy_ns: Vec<u64>,
    /// Per plane: (array unit, channel), precomputed off the hot path.
    plane_resources: Vec<(u32, u32)>,
    /// When false (warm-up), operations change no timing state: they complete at `ready`.
    timed: bool,
    /// Bumped whenever the resources are reset to idle (policies caching free times refresh).
    epoch: u64,
    counters: DeviceCounters,
}

impl Device {
    pub fn new(geometry: Geometry, timing: Timing) -> Device {
        let units = match timing.array_unit {
            ArrayUnit::Chip => geometry.chips(),
            ArrayUnit::Die => geometry.dies(),
            ArrayUnit::Plane => geometry.planes(),
        } as usize;
        let bits = geometry.cell.bits_per_cell() as usize;
        let plane_resources = (0..geometry.planes())
            .map(|p| {
                let plane = PlaneId(p);
                let unit = match timing.array_unit {
                    ArrayUnit::Chip => geometry.chip_of_plane(plane),
                    ArrayUnit::Die => geometry.die_of_plane(plane),
                    ArrayUnit::Plane => p,
                };
                (unit, geometry.channel_of_plane(plane))
            })
            .collect();
        Device {
            plane_resources,
            channels: (0..geometry.channels).map(|_| Calendar::default()).collect(),
            unit_free_at: vec![0; units],
            unit_busy_ns: vec![0; units],
            geometry,
            timing,
            timed: true,
            epoch: 0,
            counters: DeviceCounters { reads_by_page_type: vec![0; bits], ..Default::default() },
        }
    }

    pub fn geometry(&self) -> &Geometry {
        &self.geometry
    }
    pub fn timing(&self) -> &Timing {
        &self.timing
    }
    pub fn counters(&self) -> &DeviceCounters {
        &self.counters
    }

    /// Turn timing off (warm-up) or on. Turning it on resets all resources to idle at time 0
    /// and clears the counters, so measured runs start from a quiet device.
    pub fn set_timed(&mut self, timed: bool) {
        self.timed = timed;
        if timed {
            self.epoch += 1;
            self.unit_free_at.fill(0);
            self.unit_busy_ns.fill(0);
            self.channels.iter_mut().for_each(Calendar::clear);
            let bits = self.counters.reads_by_page_type.len();
            self.counters = DeviceCounters { reads_by_page_type: vec![0; bits], ..Default::default() };
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

    /// Forget channel bookings that ended before `now` (events are processed in time order).
    pub fn advance_to(&mut self, now: SimTime) {
        for c in &mut self.channels {
            c.prune(now);
        }
    }

    /// The array unit a plane's operations occupy.
    pub fn unit_of_plane(&self, plane: PlaneId) -> usize {
        self.plane_resources[plane.index()].0 as usize
    }

    /// When the array unit holding `plane` becomes free (for least-busy allocation).
    pub fn plane_free_at(&self, plane: PlaneId) -> SimTime {
        self.unit_free_at[self.unit_of_plane(plane)]
    }

    /// When each array unit becomes free, by unit index (`unit_of_plane`).
    #[inline]
    pub fn unit_free_times(&self) -> &[SimTime] {
        &self.unit_free_at
    }

    pub fn unit_busy_ns(&self) -> &[u64] {
        &self.unit_busy_ns
    }

    fn locate(&self, block: BlockId) -> (usize, usize) {
        let (unit, channel) = self.plane_resources[self.geometry.plane_of_block(block).index()];
        (unit as usize, channel as usize)
    }

    /// Read one page for `source`; returns when its data has crossed the channel.
    pub fn read(&mut self, ppn: Ppn, mode: BlockMode, ready: SimTime, source: Source) -> SimTime {
        let ptype = page_type(self.geometry.cell, mode, self.geometry.page_in_block(ppn));
        self.counters.reads += 1;
        self.counters.by_source.0[source as usize].reads += 1;
        match mode {
            BlockMode::Slc => self.counters.slc_reads += 1,
            BlockMode::Native => self.counters.reads_by_page_type[ptype as usize] += 1,
        }
        if !self.timed {
            return ready;
        }
        let (unit, channel) = self.locate(self.geometry.block_of(ppn));
        let t = &self.timing;
        let (cmd, t_r, xfer) = (t.command_ns, t.read(mode, ptype), t.page_transfer_ns);
        let start = ready.max(self.unit_free_at[unit]);
        let cmd_start = self.channels[channel].book(start, cmd);
        let array_end = cmd_start + cmd + t_r;
        self.unit_free_at[unit] = array_end;
        self.note_busy(unit, source, t_r);
        self.counters.by_source.0[source as usize].wait_ns += cmd_start - ready;
        let xfer_start = self.channels[channel].book(array_end, xfer);
        xfer_start + xfer
    }

    /// Program one page (page-by-page programming) for `source`; returns when the program ends.
    pub fn program(&mut self, ppn: Ppn, mode: BlockMode, ready: SimTime, source: Source) -> SimTime {
        self.counters.programs += 1;
        self.counters.by_source.0[source as usize].programs += 1;
        if !self.timed {
            return ready;
        }
        let ptype = page_type(self.geometry.cell, mode, self.geometry.page_in_block(ppn));
        let t_prog = self.timing.program(mode, ptype);
        self.program_pages(self.geometry.block_of(ppn), 1, t_prog, ready, source)
    }

    /// One-shot full-sequence program of `pages` pages of one wordline (all its page types).
    pub fn program_wordline(&mut self, first: Ppn, pages: u32, ready: SimTime, source: Source) -> SimTime {
        self.counters.programs += pages as u64;
        self.counters.wordline_programs += 1;
        let by = &mut self.counters.by_source.0[source as usize];
        by.programs += pages as u64;
        by.wordline_programs += 1;
        let t_prog = self.timing.program_wordline_ns;
        self.program_pages(self.geometry.block_of(first), pages, t_prog, ready, source)
    }

    fn program_pages(&mut self, block: BlockId, pages: u32, t_prog: u64, ready: SimTime, source: Source) -> SimTime {
        if !self.timed {
            return ready;
        }
        let (unit, channel) = self.locate(block);
        let data_in = self.timing.command_ns + self.timing.page_transfer_ns * pages as u64;
        let start = ready.max(self.unit_free_at[unit]);
        let xfer_start = self.channels[channel].book(start, data_in);
        let end = xfer_start + data_in + t_prog;
        self.unit_free_at[unit] = end;
        self.note_busy(unit, source, t_prog);
        self.counters.by_source.0[source as usize].wait_ns += xfer_start - ready;
        end
    }

    /// Erase a block for `source`; returns when the erase ends.
    pub fn erase(&mut self, block: BlockId, mode: BlockMode, ready: SimTime, source: Source) -> SimTime {
        self.counters.erases += 1;
        self.counters.by_source.0[source as usize].erases += 1;
        if !self.timed {
            return ready;
        }
        let (unit, channel) = self.locate(block);
        let t_bers = self.timing.erase(mode);
        let start = ready.max(self.unit_free_at[unit]);
        let cmd_start = self.channels[channel].book(start, self.timing.command_ns);
        let end = cmd_start + self.timing.command_ns + t_bers;
        self.unit_free_at[unit] = end;
        self.note_busy(unit, source, t_bers);
        self.counters.by_source.0[source as usize].wait_ns += cmd_start - ready;
        end
    }

    fn note_busy(&mut self, unit: usize, source: Source, ns: u64) {
        self.unit_busy_ns[unit] += ns;
        self.counters.by_source.0[source as usize].busy_ns += ns;
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
        array_unit: ArrayUnit::Plane,
    };
    Device::new(g.clone(), Timing::resolve(&cfg, g.cell, g.page_bytes))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nand::{CellType, TimingConfig};

    fn device(unit: ArrayUnit) -> Device {
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
    fn untimed_operations_take_no_time() {
        let mut d = device(ArrayUnit::Plane);
        d.set_timed(false);
        assert_eq!(d.program(Ppn(0), BlockMode::Native, 7, Source::Host), 7);
        assert_eq!(d.counters().programs, 1);
        d.set_timed(true);
        assert_eq!(d.counters().programs, 0);
    }
}
