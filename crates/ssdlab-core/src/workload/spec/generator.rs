//! Layer: workload. Streams the requests of a workload spec: seeded, lazy, with memory flat in
//! the workload's length (the samplers, and the last writes kept for re-reads, at most
//! `MAX_REMEMBERED_WRITES`).
//!
//! Addresses: an operation's footprint is a range of ranks `0..F` (rank 0 the hottest; reads and
//! writes share the ranking). Ranks are cut into chunks of `chunk_units` consecutive units, and
//! chunk `c` is placed at chunk `c * scatter mod chunks` of the address space (ranks past the
//! last whole chunk keep their place), so a hot set is spread over the space (as real hot data
//! is) while a request stays contiguous. A request drawn by rank is kept inside its rank chunk
//! and the footprint; a sequential run over hot data continues by address and may leave them
//! (docs/workloads.md, known gaps).

use std::collections::VecDeque;

use rand::Rng;
use rand_distr::{Distribution, Exp};
use rand_pcg::Pcg64Mcg;

use super::sample::{QuantileSampler, RankSampler, SizeSampler};
use super::{ArrivalKind, OpSpec, WorkloadSpec};
use crate::error::Result;
use crate::workload::request::RecordSource;
use crate::workload::scatter::{coprime_from, scatter, skip_off_period};
use crate::workload::{IoOp, TraceRecord};

/// Writes remembered for re-reads: re-read distances beyond this are clamped to it.
pub const MAX_REMEMBERED_WRITES: usize = 1 << 20;

/// The step of an unaligned start (`unaligned_share`): a sector.
const SECTOR_BYTES: u64 = 512;

/// Smallest chunk of consecutive ranks placed together, in units.
const MIN_CHUNK_UNITS: u64 = 256;

/// One operation's sampling state.
struct OpGen {
    sizes: SizeSampler,
    ranks: RankSampler,
    /// Units of the footprint (ranks).
    footprint_units: u64,
    /// The footprint's first rank in the shared ranking.
    first_rank: u64,
    sequential: f64,
    /// The byte where the last request of this operation ended (a sequential run continues
    /// there, to the byte: runs of sector-sized requests stay runs).
    next_sequential: Option<u64>,
}

impl OpGen {
    /// `requests`: about how many requests of this operation the workload has (to choose which
    /// popularity segments are walked).
    fn new(spec: &OpSpec, align: u64, space_units: u64, requests: f64, rng: &mut Pcg64Mcg) -> OpGen {
        let footprint_units = spec.footprint.map_or(space_units, |f| (f.0 / align).clamp(1, space_units));
        let sizes = SizeSampler::new(&spec.sizes, align);
        let request_units = sizes.mean_bytes() / align as f64;
        let accesses = requests * request_units.max(1.0);
        OpGen {
            ranks: RankSampler::new(&spec.popularity, footprint_units, accesses, request_units.round() as u64, rng),
            sizes,
            footprint_units,
            first_rank: spec.footprint_offset.0 / align,
            sequential: spec.sequential,
            next_sequential: None,
        }
    }
}

/// Rank -> address, chunk by chunk.
struct Layout {
    chunk_units: u64,
    chunks: u64,
    scatter: u64,
    /// The inverse of `scatter` modulo `chunks`: a unit's chunk back to its rank chunk.
    unscatter: u64,
}

impl Layout {
    fn new(space_units: u64, max_request_units: u64) -> Layout {
        let chunk_units = (4 * max_request_units).max(MIN_CHUNK_UNITS).next_power_of_two().min(space_units).max(1);
        let chunks = (space_units / chunk_units).max(1);
        // About the golden ratio of the chunk count, made coprime with it, so consecutive hot
        // chunks land far apart and every chunk is used once.
        let scatter = coprime_from((chunks as f64 * 0.618_033_988_75) as u64, chunks);
        Layout { chunk_units, chunks, scatter, unscatter: inverse_mod(scatter, chunks) }
    }

    /// The rank whose place is `unit` (the inverse of [`Layout::place`] before its clamp to the
    /// footprint: every unit has one rank).
    fn rank_of(&self, unit: u64) -> u64 {
        let chunk = unit / self.chunk_units;
        if chunk >= self.chunks {
            return unit;
        }
        scatter(chunk, self.unscatter, self.chunks) * self.chunk_units + unit % self.chunk_units
    }

    /// The first unit of a request of `units` at `rank` of a footprint ending at rank
    /// `end_rank` (exclusive): the request stays inside the rank's chunk and the footprint.
    /// Ranks past the last whole chunk (the space's tail) keep their own place.
    fn place(&self, rank: u64, units: u64, end_rank: u64) -> u64 {
        let chunk = rank / self.chunk_units;
        let in_chunk = end_rank.saturating_sub(chunk * self.chunk_units).min(self.chunk_units);
        let within = (rank % self.chunk_units).min(in_chunk.saturating_sub(units));
        if chunk >= self.chunks {
            return chunk * self.chunk_units + within;
        }
        scatter(chunk, self.scatter, self.chunks) * self.chunk_units + within
    }
}

/// `a^-1 mod n` for `a` coprime with `n` (1 when `n` is 1), by the extended Euclidean algorithm.
fn inverse_mod(a: u64, n: u64) -> u64 {
    if n <= 1 {
        return 1;
    }
    let (mut r0, mut r1) = (i128::from(n), i128::from(a % n));
    let (mut t0, mut t1) = (0i128, 1i128);
    while r1 != 0 {
        let q = r0 / r1;
        (r0, r1) = (r1, r0 - q * r1);
        (t0, t1) = (t1, t0 - q * t1);
    }
    t0.rem_euclid(i128::from(n)) as u64
}

/// The ranks of the read footprint that a request wrote in this run (`reread.from_popularity =
/// false`): one bit per rank.
struct WrittenRanks {
    first_rank: u64,
    bits: Vec<u64>,
}

impl WrittenRanks {
    fn new(first_rank: u64, ranks: u64) -> WrittenRanks {
        WrittenRanks { first_rank, bits: vec![0; ranks.div_ceil(64) as usize] }
    }

    fn index(&self, rank: u64) -> Option<usize> {
        let i = rank.checked_sub(self.first_rank)?;
        (i < self.bits.len() as u64 * 64).then_some(i as usize)
    }

    fn mark(&mut self, rank: u64) {
        if let Some(i) = self.index(rank) {
            self.bits[i / 64] |= 1 << (i % 64);
        }
    }

    fn contains(&self, rank: u64) -> bool {
        self.index(rank).is_some_and(|i| self.bits[i / 64] & (1 << (i % 64)) != 0)
    }
}

/// Popularity draws of a read that land on written data, at most, before the last one is kept
/// (`reread.from_popularity = false`): a read footprint written all over still draws.
const MAX_REDRAWS: u32 = 16;

/// When the next request arrives.
enum Arrivals {
    Closed,
    Poisson(Exp<f64>),
    Onoff { gap: Exp<f64>, on_ns: f64, period_ns: f64 },
    Empirical(QuantileSampler),
}

/// The requests of a workload spec, as a record source.
pub struct SpecSource {
    rng: Pcg64Mcg,
    align: u64,
    space_units: u64,
    read_ratio: f64,
    read: OpGen,
    write: OpGen,
    layout: Layout,
    reread_share: f64,
    unaligned_share: f64,
    reread_distance: Option<QuantileSampler>,
    /// First unit of each of the last writes, newest at the back.
    recent_writes: VecDeque<u64>,
    /// Units each of those writes spans (`from_popularity = false` only, else empty).
    recent_write_units: VecDeque<u32>,
    /// Read-footprint ranks written so far, when popularity draws must avoid them.
    written: Option<WrittenRanks>,
    arrivals: Arrivals,
    clock_ns: f64,
    requests_left: Option<u64>,
    write_bytes_left: Option<u64>,
    queue_depth: Option<u32>,
}

impl SpecSource {
    /// A generator for a validated spec. `requests` replaces the spec's `length.requests` (and
    /// drops its `write_bytes`) when set.
    pub fn new(spec: &WorkloadSpec, requests: Option<u64>, mut rng: Pcg64Mcg) -> SpecSource {
        let align = spec.align_bytes.0.max(1);
        let space_units = spec.space_units().max(1);
        // About how many requests there will be, for the popularity's walked segments.
        let total = match (requests.or(spec.length.requests), spec.length.write_bytes) {
            (Some(n), _) => n as f64,
            (None, Some(b)) => {
                let mean_write = SizeSampler::new(&spec.write.sizes, align).mean_bytes().max(1.0);
                b.0 as f64 / mean_write / (1.0 - spec.read_ratio).max(1e-9)
            }
            (None, None) => 0.0,
        };
        let read = OpGen::new(&spec.read, align, space_units, total * spec.read_ratio, &mut rng);
        let write = OpGen::new(&spec.write, align, space_units, total * (1.0 - spec.read_ratio), &mut rng);
        let max_units = read.sizes.max_bytes().max(write.sizes.max_bytes()).div_ceil(align);
        let layout = Layout::new(space_units, max_units);
        let a = &spec.arrival;
        let arrivals = match a.kind {
            ArrivalKind::Closed => Arrivals::Closed,
            ArrivalKind::Poisson => Arrivals::Poisson(Exp::new(a.rate_iops / 1e9).expect("validated rate")),
            ArrivalKind::Onoff => Arrivals::Onoff {
                gap: Exp::new(a.rate_iops / 1e9).expect("validated rate"),
                on_ns: a.on_ns as f64,
                period_ns: (a.on_ns + a.off_ns) as f64,
            },
            ArrivalKind::Empirical => {
                Arrivals::Empirical(QuantileSampler::new(&a.inter_arrival_ns, true).expect("validated quantiles"))
            }
        };
        let written = (!spec.reread.from_popularity).then(|| WrittenRanks::new(read.first_rank, read.footprint_units));
        let (requests_left, write_bytes_left) = match requests {
            Some(n) => (Some(n), None),
            None => (spec.length.requests, spec.length.write_bytes.map(|b| b.0)),
        };
        SpecSource {
            rng,
            align,
            space_units,
            read_ratio: spec.read_ratio,
            read,
            write,
            layout,
            reread_share: spec.reread.share,
            unaligned_share: spec.unaligned_share,
            reread_distance: QuantileSampler::new(&spec.reread.distance_writes, true),
            recent_writes: VecDeque::new(),
            recent_write_units: VecDeque::new(),
            written,
            arrivals,
            clock_ns: 0.0,
            requests_left,
            write_bytes_left,
            queue_depth: (a.kind == ArrivalKind::Closed).then_some(a.queue_depth),
        }
    }

    /// The closed loop's queue depth, or None for open-loop arrivals.
    pub fn queue_depth(&self) -> Option<u32> {
        self.queue_depth
    }

    /// Requests the spec asks for, when its length is a request count.
    pub fn expected_requests(&self) -> Option<u64> {
        self.requests_left.filter(|_| self.write_bytes_left.is_none())
    }

    fn arrival_ns(&mut self) -> u64 {
        match &self.arrivals {
            Arrivals::Closed => return 0,
            Arrivals::Poisson(gap) => self.clock_ns += gap.sample(&mut self.rng),
            Arrivals::Empirical(gaps) => self.clock_ns += gaps.sample(&mut self.rng),
            &Arrivals::Onoff { gap, on_ns, period_ns } => {
                let clock = self.clock_ns + gap.sample(&mut self.rng);
                self.clock_ns = skip_off_period(clock, on_ns, period_ns);
            }
        }
        self.clock_ns as u64
    }

    /// The offset and size in bytes of a request of `op`: a sequential run continues, else a
    /// read may go back to a recent write, else popularity places it.
    fn place(&mut self, op: IoOp) -> (u64, u64) {
        let is_read = op == IoOp::Read;
        let space_bytes = self.space_units * self.align;
        let g = if is_read { &mut self.read } else { &mut self.write };
        let bytes = g.sizes.sample(&mut self.rng);
        if g.sequential > 0.0 && self.rng.gen_bool(g.sequential) {
            if let Some(next) = g.next_sequential.filter(|&n| n + bytes <= space_bytes) {
                // Over walked (cold) data the run takes the walk's next ranks, so later draws
                // of the walk do not land on it again; elsewhere it just goes on (and may leave
                // the footprint: docs/workloads.md, known gaps).
                let span = (next % self.align + bytes).div_ceil(self.align);
                if g.ranks.continue_run(span).is_none() {
                    g.ranks.end_run();
                }
                return (next, bytes);
            }
        }
        // A sector-addressed start inside the first unit spans one unit more: the walk and the
        // layout must reserve that unit, or the next request there would share it.
        let mut shift = 0;
        if self.unaligned_share > 0.0 && self.rng.gen_bool(self.unaligned_share) {
            shift = SECTOR_BYTES * self.rng.gen_range(1..self.align / SECTOR_BYTES);
        }
        let span = (shift + bytes).div_ceil(self.align).clamp(1, self.space_units);
        let reread = if is_read { self.reread_start(span) } else { None };
        let start = match reread {
            Some(start) => start,
            None => self.popularity_start(is_read, span),
        };
        let offset = start.min(self.space_units - span) * self.align + shift;
        (offset, bytes.min(space_bytes.saturating_sub(offset)).max(1))
    }
}

impl SpecSource {
    /// Where a read of `span` units goes back to a recent write, when it does: with
    /// probability `reread.share`, the write `distance_writes` back. A distance beyond the
    /// writes so far is clamped to the oldest write, and the read starts where that write
    /// started. With `from_popularity = false`, the read is drawn from popularity instead (so
    /// that re-reads early in the run are not all short), and a read narrower than the write
    /// starts anywhere inside it (so that it reads only what that write wrote).
    fn reread_start(&mut self, span: u64) -> Option<u64> {
        if self.reread_share <= 0.0 || self.recent_writes.is_empty() || !self.rng.gen_bool(self.reread_share) {
            return None;
        }
        let back = self.reread_distance.as_ref().map_or(1.0, |d| d.sample(&mut self.rng));
        let back = (back.round() as usize).max(1);
        if back > self.recent_writes.len() && self.written.is_some() {
            return None;
        }
        let back = back.min(self.recent_writes.len());
        self.read.ranks.end_run();
        let start = self.recent_writes[self.recent_writes.len() - back];
        match self.recent_write_units.len().checked_sub(back).map(|i| u64::from(self.recent_write_units[i])) {
            Some(units) if units > span => Some(start + self.rng.gen_range(0..=units - span)),
            _ => Some(start),
        }
    }

    /// The first unit of a request of `span` units drawn from its op's popularity. A read that
    /// lands on data written in the run is drawn again when `from_popularity = false` (at most
    /// `MAX_REDRAWS` draws).
    fn popularity_start(&mut self, is_read: bool, span: u64) -> u64 {
        let mut draws = 0;
        loop {
            let g = if is_read { &mut self.read } else { &mut self.write };
            let rank = g.first_rank + g.ranks.sample(&mut self.rng, span);
            let end_rank = g.first_rank + g.footprint_units;
            let start = self.layout.place(rank, span, end_rank);
            draws += 1;
            let Some(written) = self.written.as_ref().filter(|_| is_read && draws < MAX_REDRAWS) else {
                return start;
            };
            let first = start.min(self.space_units - span);
            if !(first..first + span).any(|unit| written.contains(self.layout.rank_of(unit))) {
                return start;
            }
        }
    }
}

impl Iterator for SpecSource {
    type Item = TraceRecord;

    fn next(&mut self) -> Option<TraceRecord> {
        if self.requests_left == Some(0) || self.write_bytes_left == Some(0) {
            return None;
        }
        if let Some(n) = &mut self.requests_left {
            *n -= 1;
        }
        let op = if self.rng.gen_bool(self.read_ratio) { IoOp::Read } else { IoOp::Write };
        let (offset_bytes, size_bytes) = self.place(op);
        let g = if op == IoOp::Read { &mut self.read } else { &mut self.write };
        g.next_sequential = Some(offset_bytes + size_bytes);
        if op == IoOp::Write {
            if let Some(left) = &mut self.write_bytes_left {
                *left = left.saturating_sub(size_bytes);
            }
            if let Some(written) = &mut self.written {
                for unit in offset_bytes / self.align..=(offset_bytes + size_bytes - 1) / self.align {
                    written.mark(self.layout.rank_of(unit));
                }
            }
            if self.reread_share > 0.0 {
                if self.recent_writes.len() == MAX_REMEMBERED_WRITES {
                    self.recent_writes.pop_front();
                    self.recent_write_units.pop_front();
                }
                self.recent_writes.push_back(offset_bytes / self.align);
                if self.written.is_some() {
                    let units = (offset_bytes + size_bytes).div_ceil(self.align) - offset_bytes / self.align;
                    self.recent_write_units.push_back(units.min(u64::from(u32::MAX)) as u32);
                }
            }
        }
        let time_ns = self.arrival_ns();
        Some(TraceRecord { time_ns, op, offset_bytes, size_bytes, device: 0 })
    }
}

impl RecordSource for SpecSource {
    fn next_record(&mut self) -> Result<Option<TraceRecord>> {
        Ok(self.next())
    }
    fn arrival_model(&self) -> Option<Option<u32>> {
        Some(self.queue_depth)
    }
    fn expected_records(&self) -> Option<u64> {
        self.expected_requests()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    fn spec(text: &str) -> WorkloadSpec {
        WorkloadSpec::from_toml(text, std::path::Path::new("t.toml")).unwrap()
    }

    fn records(s: &WorkloadSpec, seed: u64) -> Vec<TraceRecord> {
        SpecSource::new(s, None, Pcg64Mcg::seed_from_u64(seed)).collect()
    }

    #[test]
    fn same_seed_same_requests_and_lengths_are_met() {
        let s = spec("address_space = '1g'\nread_ratio = 0.3\n[length]\nrequests = 5000\n");
        let a = records(&s, 1);
        assert_eq!(a, records(&s, 1));
        assert_ne!(a, records(&s, 2));
        assert_eq!(a.len(), 5000);
        let s = spec("address_space = '1g'\nread_ratio = 0.5\n[length]\nwrite_bytes = '4m'\n");
        let written: u64 = records(&s, 1).iter().filter(|r| r.op == IoOp::Write).map(|r| r.size_bytes).sum();
        assert_eq!(written, 4 << 20, "4 KiB writes meet 4 MiB exactly");
    }

    #[test]
    fn requests_stay_inside_the_space_and_the_footprint() {
        // 10 MiB is not a whole number of chunks: the tail keeps its place, and every page of
        // the write footprint can be reached. (Sequential runs over hot data may leave the
        // footprint: docs/workloads.md, known gaps.)
        let s = spec(
            "address_space = '10m'\nread_ratio = 0.5\n[length]\nrequests = 40000\n\
             [read]\nfootprint = '2m'\nsizes.bins = [{ min = '4k', max = '64k', weight = 1 }]\n\
             [write]\nfootprint = '10m'\nsizes.bins = [{ size = '16k', weight = 1 }]\n",
        );
        let mut pages = [hashbrown::HashSet::<u64, rustc_hash::FxBuildHasher>::default(), Default::default()];
        for r in records(&s, 3) {
            assert!(r.offset_bytes + r.size_bytes <= 10 << 20);
            let set = &mut pages[(r.op == IoOp::Write) as usize];
            set.extend((r.offset_bytes / 4096)..(r.offset_bytes + r.size_bytes) / 4096);
        }
        // Footprints (in 4 KiB pages) reach but do not pass 2 MiB and 10 MiB.
        assert!((480..=512).contains(&pages[0].len()), "{}", pages[0].len());
        assert!((2500..=2560).contains(&pages[1].len()), "{}", pages[1].len());
    }

    #[test]
    fn huge_sparse_spaces_place_without_overflow() {
        // 2^41 chunks' worth of 512-byte units: the scatter product needs 128 bits.
        let s = spec(
            "align_bytes = 512\naddress_space = '1000t'\nread_ratio = 0.0\n[length]\nrequests = 1000\n\
             [read]\nsizes.bins = [{ size = 512, weight = 1 }]\n[write]\nsizes.bins = [{ size = 512, weight = 1 }]\n",
        );
        let mut starts: Vec<u64> = records(&s, 9).iter().map(|r| r.offset_bytes).collect();
        assert!(starts.iter().all(|&o| o < 1000 << 40));
        starts.sort_unstable();
        starts.dedup();
        assert!(starts.len() > 990, "distinct places: {}", starts.len());
    }

    #[test]
    fn rereads_return_to_recent_writes() {
        let s = spec(
            "address_space = '4g'\nread_ratio = 0.5\n[length]\nrequests = 20000\n\
             [reread]\nshare = 1.0\ndistance_writes = [[0.0, 1.0], [1.0, 10.0]]\n",
        );
        let mut written = hashbrown::HashSet::<u64, rustc_hash::FxBuildHasher>::default();
        let (mut reads, mut rereads) = (0, 0);
        for r in records(&s, 4) {
            if r.op == IoOp::Write {
                written.insert(r.offset_bytes);
            } else {
                reads += 1;
                rereads += written.contains(&r.offset_bytes) as u32;
            }
        }
        // Only reads before the first write can miss.
        assert!(reads - rereads <= 3, "{reads} reads, {rereads} of written data");
    }

    #[test]
    fn sequential_share_continues_runs() {
        let s = spec("address_space = '1g'\nread_ratio = 0.0\n[length]\nrequests = 10000\n[write]\nsequential = 0.9\n");
        let recs = records(&s, 5);
        let continued = recs.windows(2).filter(|w| w[1].offset_bytes == w[0].offset_bytes + w[0].size_bytes).count();
        assert!((continued as f64 / 9999.0 - 0.9).abs() < 0.02, "{continued}");
    }

    #[test]
    fn open_loop_arrivals_follow_the_rate_and_the_quantiles() {
        let s = spec(
            "address_space = '1g'\n[length]\nrequests = 20000\n[arrival]\nkind = 'poisson'\nrate_iops = 10000.0\n",
        );
        let last = records(&s, 6).last().unwrap().time_ns as f64;
        assert!((last / 2e9 - 1.0).abs() < 0.03, "20,000 arrivals at 10 k/s take 2 s: {last}");
        let s = spec(
            "address_space = '1g'\n[length]\nrequests = 20000\n[arrival]\nkind = 'empirical'\n\
             inter_arrival_ns = [[0.0, 100.0], [0.5, 100.0], [1.0, 300.0]]\n",
        );
        // Half the gaps are 100 ns; the other half rise geometrically from 100 to 300 ns, whose
        // mean is 200 / ln 3: a mean gap of 50 + 100 / ln 3 = 141.0 ns.
        let mean = 50.0 + 100.0 / 3f64.ln();
        let last = records(&s, 6).last().unwrap().time_ns as f64;
        assert!((last / (20000.0 * mean) - 1.0).abs() < 0.02, "mean gap {mean} ns: {}", last / 20000.0);
    }

    #[test]
    fn the_layout_places_every_rank_once() {
        let layout = Layout::new(1 << 16, 4);
        let mut seen = hashbrown::HashSet::<u64, rustc_hash::FxBuildHasher>::default();
        for rank in 0..(1 << 16) {
            assert!(seen.insert(layout.place(rank, 1, 1 << 16)));
        }
    }
}
