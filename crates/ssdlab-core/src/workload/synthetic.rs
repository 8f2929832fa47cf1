//! Layer: workload. The FIO-like synthetic generator: op mix, block size, address
//! distribution and (for open loop) arrival times, from one seeded random stream. Addresses come
//! from the jobs' regions (`jobs.rs`): one shared stream, or with `offset_increment` one stream
//! per job that the simulator asks for by job (`RecordSource::next_record_of`).

use rand::Rng;
use rand_distr::{Distribution, Exp, Zipf};
use rand_pcg::Pcg64Mcg;

use crate::error::Result;
use crate::workload::config::{AddressDistribution, Arrival, RwMode, WorkloadConfig};
use crate::workload::jobs::{job_regions, working_set_bytes, JobRegion};
use crate::workload::request::RecordSource;
use crate::workload::scatter::{coprime_from, scatter, skip_off_period};
use crate::workload::{IoOp, TraceRecord};

/// One job's region and what drawing in it needs.
struct Region {
    start_bytes: u64,
    slots: u64,
    zipf: Option<Zipf<f64>>,
    /// Multiplier coprime with `slots`, scattering zipf ranks over the region.
    scatter: u64,
    hot_slots: u64,
    /// The sequential cursor: the slot the job reads or writes next.
    cursor: u64,
}

impl Region {
    fn new(r: JobRegion, cfg: &WorkloadConfig) -> Region {
        let slots = r.slots;
        let scatter = coprime_from(2_654_435_761u64 % slots.max(2), slots);
        Region {
            start_bytes: r.start_bytes,
            slots,
            zipf: (cfg.random_distribution == AddressDistribution::Zipf)
                .then(|| Zipf::new(slots, cfg.zipf_theta).expect("validated zipf parameters")),
            scatter,
            hot_slots: ((slots as f64 * cfg.hot_fraction) as u64).clamp(1, slots),
            cursor: 0,
        }
    }
}

pub struct SyntheticSource {
    rw: RwMode,
    bs: u64,
    read_percent: u32,
    distribution: AddressDistribution,
    hot_share: f64,
    arrival: Arrival,
    gap: Option<Exp<f64>>,
    on_ns: u64,
    off_ns: u64,
    clock_ns: f64,
    /// One region shared by the jobs, or one per job with `offset_increment`.
    regions: Vec<Region>,
    /// The job the next request of the shared stream (`next_record`) goes to: jobs take turns.
    turn: usize,
    remaining: Option<u64>,
    rng: Pcg64Mcg,
}

impl SyntheticSource {
    /// `space_bytes`: the used logical space. The config must have been validated (a region it
    /// would refuse falls back to the whole working set, shared).
    pub fn new(cfg: &WorkloadConfig, space_bytes: u64, count: Option<u64>, rng: Pcg64Mcg) -> SyntheticSource {
        let regions = job_regions(cfg, space_bytes).unwrap_or_else(|_| {
            vec![JobRegion { start_bytes: 0, slots: (working_set_bytes(cfg, space_bytes) / cfg.bs.0.max(1)).max(1) }]
        });
        SyntheticSource {
            rw: cfg.rw,
            bs: cfg.bs.0,
            read_percent: cfg.rwmixread,
            distribution: cfg.random_distribution,
            hot_share: cfg.hot_share,
            arrival: cfg.arrival,
            gap: (cfg.arrival != Arrival::Closed).then(|| Exp::new(cfg.rate_iops / 1e9).expect("validated rate")),
            on_ns: cfg.on_ns,
            off_ns: cfg.off_ns,
            clock_ns: 0.0,
            regions: regions.into_iter().map(|r| Region::new(r, cfg)).collect(),
            turn: 0,
            remaining: count,
            rng,
        }
    }

    fn op(&mut self) -> IoOp {
        match self.rw {
            RwMode::Read | RwMode::Randread => IoOp::Read,
            RwMode::Write | RwMode::Randwrite => IoOp::Write,
            RwMode::Randrw | RwMode::Rw => {
                if self.rng.gen_range(0..100) < self.read_percent {
                    IoOp::Read
                } else {
                    IoOp::Write
                }
            }
        }
    }

    /// The byte offset of job `job`'s next request.
    fn offset_bytes(&mut self, job: usize) -> u64 {
        let region = &mut self.regions[job];
        let slot = if !self.rw.is_random() {
            let s = region.cursor;
            region.cursor = (s + 1) % region.slots;
            s
        } else {
            match self.distribution {
                AddressDistribution::Uniform => self.rng.gen_range(0..region.slots),
                AddressDistribution::Zipf => {
                    let rank = region.zipf.as_ref().map(|z| z.sample(&mut self.rng) as u64).unwrap_or(1) - 1;
                    scatter(rank, region.scatter, region.slots)
                }
                AddressDistribution::Hotcold => {
                    if region.hot_slots >= region.slots || self.rng.gen_bool(self.hot_share) {
                        self.rng.gen_range(0..region.hot_slots)
                    } else {
                        self.rng.gen_range(region.hot_slots..region.slots)
                    }
                }
            }
        };
        region.start_bytes + slot * self.bs
    }

    fn arrival(&mut self) -> u64 {
        let Some(gap) = self.gap else { return 0 };
        self.clock_ns += gap.sample(&mut self.rng);
        if self.arrival == Arrival::Onoff {
            self.clock_ns = skip_off_period(self.clock_ns, self.on_ns as f64, (self.on_ns + self.off_ns) as f64);
        }
        self.clock_ns as u64
    }

    /// Job `job`'s next request; `count` is shared by all jobs.
    fn record_of(&mut self, job: usize) -> Option<TraceRecord> {
        if let Some(r) = &mut self.remaining {
            if *r == 0 {
                return None;
            }
            *r -= 1;
        }
        let op = self.op();
        let offset_bytes = self.offset_bytes(job);
        let time_ns = self.arrival();
        Some(TraceRecord { time_ns, op, offset_bytes, size_bytes: self.bs, device: 0 })
    }
}

impl Iterator for SyntheticSource {
    type Item = TraceRecord;

    /// The shared stream: the jobs take turns (one job, or one region, is always job 0).
    fn next(&mut self) -> Option<TraceRecord> {
        let job = self.turn;
        if self.regions.len() > 1 {
            self.turn = (job + 1) % self.regions.len();
        }
        self.record_of(job)
    }
}

impl RecordSource for SyntheticSource {
    fn next_record(&mut self) -> Result<Option<TraceRecord>> {
        Ok(self.next())
    }

    fn jobs(&self) -> Option<u32> {
        (self.regions.len() > 1).then_some(self.regions.len() as u32)
    }

    fn next_record_of(&mut self, job: u32) -> Result<Option<TraceRecord>> {
        debug_assert!((job as usize) < self.regions.len(), "job {job} of {}", self.regions.len());
        Ok(self.record_of(job as usize % self.regions.len()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    fn source(cfg: WorkloadConfig) -> SyntheticSource {
        SyntheticSource::new(&cfg, 1 << 30, Some(20_000), Pcg64Mcg::seed_from_u64(1))
    }

    #[test]
    fn sequential_wraps_and_mix_follows_rwmixread() {
        let cfg = WorkloadConfig { rw: RwMode::Rw, rwmixread: 30, ..Default::default() };
        let recs: Vec<_> = source(cfg).collect();
        assert_eq!(recs.len(), 20_000);
        assert_eq!(recs[1].offset_bytes, 4096);
        let reads = recs.iter().filter(|r| r.op == IoOp::Read).count() as f64 / 20_000.0;
        assert!((reads - 0.30).abs() < 0.02, "{reads}");
    }

    fn jobs(rw: RwMode, offset: u64, increment: Option<u64>, size: Option<u64>) -> WorkloadConfig {
        WorkloadConfig {
            rw,
            numjobs: 3,
            offset: crate::units::ByteSize(offset),
            offset_increment: increment.map(crate::units::ByteSize),
            size: size.map(crate::units::ByteSize),
            ..Default::default()
        }
    }

    #[test]
    fn sequential_jobs_take_turns_from_their_own_offsets() {
        let offsets =
            |cfg: WorkloadConfig| -> Vec<u64> { source(cfg).take(7).map(|r| r.offset_bytes / 4096).collect() };
        // One shared stream (unset), fio's default of every job from the start (0), jobs
        // 256 MiB apart (65536 pages), and jobs of 2 pages from the second page, wrapping there.
        assert_eq!(offsets(jobs(RwMode::Read, 0, None, None)), [0, 1, 2, 3, 4, 5, 6]);
        assert_eq!(offsets(jobs(RwMode::Read, 0, Some(0), None)), [0, 0, 0, 1, 1, 1, 2]);
        assert_eq!(offsets(jobs(RwMode::Read, 0, Some(1 << 28), None)), [0, 65536, 131072, 1, 65537, 131073, 2]);
        assert_eq!(
            offsets(jobs(RwMode::Read, 4096, Some(1 << 28), Some(8192))),
            [1, 65537, 131073, 2, 65538, 131074, 1]
        );
        // Unset increment: `offset` and `size` bound the one shared stream.
        assert_eq!(offsets(jobs(RwMode::Read, 4096, None, Some(12288))), [1, 2, 3, 1, 2, 3, 1]);
    }

    /// fio's threads in closed loop, iodepth 1: each job issues when its own request completes.
    /// Three sequential jobs at offset 0 with `offset_increment = 0` and `size` = 3 pages, driven
    /// by a completion order chosen here; the pages each issue are worked out by hand.
    #[test]
    fn each_job_advances_on_its_own_completions() {
        let mut src = source(jobs(RwMode::Write, 0, Some(0), Some(3 * 4096)));
        assert_eq!(src.jobs(), Some(3));
        let mut issue = |job: u32| src.next_record_of(job).unwrap().map(|r| (job, r.offset_bytes / 4096));
        // Start-up: one request per job, all at page 0.
        let start: Vec<_> = (0..3).map(&mut issue).collect();
        assert_eq!(start, [Some((0, 0)), Some((1, 0)), Some((2, 0))]);
        // Completions: job 1 twice before job 0 once, then job 2, job 1 (its cursor wraps after
        // page 2), job 0 twice (wrapping too).
        let order = [1, 1, 0, 2, 1, 0, 0];
        let issued: Vec<_> = order.iter().map(|&j| issue(j).unwrap()).collect();
        assert_eq!(issued, [(1, 1), (1, 2), (0, 1), (2, 1), (1, 0), (0, 2), (0, 0)]);
    }

    #[test]
    fn random_jobs_draw_inside_their_own_regions() {
        let mut src =
            source(WorkloadConfig { numjobs: 4, ..jobs(RwMode::Randrw, 1 << 20, Some(1 << 28), Some(1 << 26)) });
        for job in (0..4).cycle().take(4_000) {
            let offset = src.next_record_of(job).unwrap().unwrap().offset_bytes;
            let start = (1 << 20) + job as u64 * (1 << 28);
            assert!((start..start + (1 << 26)).contains(&offset), "job {job}: {offset}");
        }
        // The shared stream (open loop) takes the jobs in turn, each in its region.
        let mut src = source(WorkloadConfig {
            numjobs: 2,
            random_distribution: AddressDistribution::Zipf,
            ..jobs(RwMode::Randread, 0, Some(1 << 29), Some(1 << 20))
        });
        for (i, r) in src.by_ref().take(1_000).enumerate() {
            let start = (i as u64 % 2) << 29;
            assert!((start..start + (1 << 20)).contains(&r.offset_bytes), "request {i}: {}", r.offset_bytes);
        }
    }

    #[test]
    fn hotcold_sends_hot_share_to_hot_fraction() {
        let cfg = WorkloadConfig { random_distribution: AddressDistribution::Hotcold, ..Default::default() };
        let limit = (1u64 << 30) / 5;
        let hot = source(cfg).filter(|r| r.offset_bytes < limit).count() as f64 / 20_000.0;
        assert!((hot - 0.8).abs() < 0.02, "{hot}");
    }

    #[test]
    fn zipf_is_skewed_and_in_range() {
        let cfg = WorkloadConfig { random_distribution: AddressDistribution::Zipf, ..Default::default() };
        let mut counts = hashbrown::HashMap::<u64, u32, rustc_hash::FxBuildHasher>::default();
        for r in source(cfg) {
            assert!(r.offset_bytes < 1 << 30);
            *counts.entry(r.offset_bytes).or_default() += 1;
        }
        let top = counts.values().max().copied().unwrap_or(0);
        assert!(top > 1_000, "the most popular slot gets a large share under zipf 1.2: {top}");
    }

    #[test]
    fn onoff_arrivals_avoid_off_periods() {
        let cfg = WorkloadConfig {
            arrival: Arrival::Onoff,
            rate_iops: 100_000.0,
            on_ns: 1_000_000,
            off_ns: 9_000_000,
            ..Default::default()
        };
        for r in source(cfg) {
            assert!(r.time_ns % 10_000_000 <= 1_000_000, "arrival in an off period: {}", r.time_ns);
        }
    }
}
