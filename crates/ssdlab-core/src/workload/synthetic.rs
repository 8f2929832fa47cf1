//! Layer: workload. The FIO-like synthetic generator: op mix, block size, address
//! distribution and (for open loop) arrival times, from one seeded random stream.

use rand::Rng;
use rand_distr::{Distribution, Exp, Zipf};
use rand_pcg::Pcg64Mcg;

use crate::error::Result;
use crate::workload::config::{AddressDistribution, Arrival, RwMode, WorkloadConfig};
use crate::workload::request::RecordSource;
use crate::workload::{IoOp, TraceRecord};

pub struct SyntheticSource {
    rw: RwMode,
    bs: u64,
    read_percent: u32,
    slots: u64,
    distribution: AddressDistribution,
    zipf: Option<Zipf<f64>>,
    /// Multiplier coprime with `slots`, scattering zipf ranks over the space.
    scatter: u64,
    hot_slots: u64,
    hot_share: f64,
    arrival: Arrival,
    gap: Option<Exp<f64>>,
    on_ns: u64,
    off_ns: u64,
    clock_ns: f64,
    /// Sequential cursors: one shared, or one per job (`offset_increment`).
    cursors: Vec<u64>,
    /// The job the next sequential request belongs to (jobs take turns).
    job: usize,
    remaining: Option<u64>,
    rng: Pcg64Mcg,
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

impl SyntheticSource {
    /// `space_bytes`: the used logical space. The config must have been validated.
    pub fn new(cfg: &WorkloadConfig, space_bytes: u64, count: Option<u64>, rng: Pcg64Mcg) -> SyntheticSource {
        let bs = cfg.bs.0;
        let slots = (((space_bytes as f64) * cfg.working_set) as u64 / bs).max(1);
        let mut scatter = 2_654_435_761u64 % slots.max(2);
        while slots > 1 && gcd(scatter, slots) != 1 {
            scatter += 1;
        }
        SyntheticSource {
            rw: cfg.rw,
            bs,
            read_percent: cfg.rwmixread,
            slots,
            distribution: cfg.random_distribution,
            zipf: (cfg.random_distribution == AddressDistribution::Zipf)
                .then(|| Zipf::new(slots, cfg.zipf_theta).expect("validated zipf parameters")),
            scatter: scatter.max(1),
            hot_slots: ((slots as f64 * cfg.hot_fraction) as u64).clamp(1, slots),
            hot_share: cfg.hot_share,
            arrival: cfg.arrival,
            gap: (cfg.arrival != Arrival::Closed).then(|| Exp::new(cfg.rate_iops / 1e9).expect("validated rate")),
            on_ns: cfg.on_ns,
            off_ns: cfg.off_ns,
            clock_ns: 0.0,
            cursors: match cfg.offset_increment {
                Some(inc) => (0..cfg.numjobs.max(1) as u64).map(|j| j * (inc.0 / bs) % slots).collect(),
                None => vec![0],
            },
            job: 0,
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

    fn slot(&mut self) -> u64 {
        if !self.rw.is_random() {
            let job = self.job;
            self.job = (job + 1) % self.cursors.len();
            let s = self.cursors[job];
            self.cursors[job] = (s + 1) % self.slots;
            return s;
        }
        match self.distribution {
            AddressDistribution::Uniform => self.rng.gen_range(0..self.slots),
            AddressDistribution::Zipf => {
                let rank = self.zipf.as_ref().map(|z| z.sample(&mut self.rng) as u64).unwrap_or(1) - 1;
                ((rank as u128 * self.scatter as u128) % self.slots as u128) as u64
            }
            AddressDistribution::Hotcold => {
                if self.hot_slots >= self.slots || self.rng.gen_bool(self.hot_share) {
                    self.rng.gen_range(0..self.hot_slots)
                } else {
                    self.rng.gen_range(self.hot_slots..self.slots)
                }
            }
        }
    }

    fn arrival(&mut self) -> u64 {
        let Some(gap) = self.gap else { return 0 };
        self.clock_ns += gap.sample(&mut self.rng);
        if self.arrival == Arrival::Onoff {
            let period = (self.on_ns + self.off_ns) as f64;
            let phase = self.clock_ns % period;
            if phase >= self.on_ns as f64 {
                // Fell into the off period: move to the start of the next on period.
                self.clock_ns += period - phase;
            }
        }
        self.clock_ns as u64
    }
}

impl Iterator for SyntheticSource {
    type Item = TraceRecord;

    fn next(&mut self) -> Option<TraceRecord> {
        if let Some(r) = &mut self.remaining {
            if *r == 0 {
                return None;
            }
            *r -= 1;
        }
        let op = self.op();
        let slot = self.slot();
        let time_ns = self.arrival();
        Some(TraceRecord { time_ns, op, offset_bytes: slot * self.bs, size_bytes: self.bs, device: 0 })
    }
}

impl RecordSource for SyntheticSource {
    fn next_record(&mut self) -> Result<Option<TraceRecord>> {
        Ok(self.next())
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

    #[test]
    fn sequential_jobs_take_turns_from_their_own_offsets() {
        let offsets = |inc: Option<u64>| -> Vec<u64> {
            let cfg = WorkloadConfig {
                rw: RwMode::Read,
                numjobs: 3,
                offset_increment: inc.map(crate::units::ByteSize),
                ..Default::default()
            };
            source(cfg).take(7).map(|r| r.offset_bytes / 4096).collect()
        };
        // One shared stream (unset), fio's default of every job from the start (0), and jobs
        // 256 MiB apart (65536 pages), and 1.5 GiB apart, wrapping modulo the 1 GiB space.
        assert_eq!(offsets(None), [0, 1, 2, 3, 4, 5, 6]);
        assert_eq!(offsets(Some(0)), [0, 0, 0, 1, 1, 1, 2]);
        assert_eq!(offsets(Some(1 << 28)), [0, 65536, 131072, 1, 65537, 131073, 2]);
        assert_eq!(offsets(Some(3 << 29)), [0, 131072, 0, 1, 131073, 1, 2]);
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
