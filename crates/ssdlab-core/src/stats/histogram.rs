//! Layer: stats. Exact latency distributions.
//!
//! Simulated latencies are sums of a few fixed operation times plus queueing, so they take
//! relatively few distinct values: an exact value -> count map gives exact percentiles up to
//! p99.9999 with bounded memory in practice. Percentiles use the nearest-rank definition: the
//! p-quantile is the smallest value v such that at least ceil(p x N) samples are <= v.

use hashbrown::HashMap;
use rustc_hash::FxBuildHasher;
use serde::Serialize;

#[derive(Debug, Clone, Default)]
pub struct LatencyHistogram {
    counts: HashMap<u64, u64, FxBuildHasher>,
    total: u64,
    sum_ns: u128,
    max_ns: u64,
}

/// The percentiles every report carries, in nanoseconds.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct LatencySummary {
    pub count: u64,
    pub mean_ns: f64,
    pub p50_ns: u64,
    pub p90_ns: u64,
    pub p99_ns: u64,
    pub p99_9_ns: u64,
    pub p99_99_ns: u64,
    pub p99_9999_ns: u64,
    pub max_ns: u64,
}

impl LatencyHistogram {
    pub fn record(&mut self, latency_ns: u64) {
        *self.counts.entry(latency_ns).or_insert(0) += 1;
        self.total += 1;
        self.sum_ns += latency_ns as u128;
        self.max_ns = self.max_ns.max(latency_ns);
    }

    /// Add every sample of `other` (e.g. "all" = read + write + trim).
    pub fn merge(&mut self, other: &LatencyHistogram) {
        for (v, c) in &other.counts {
            *self.counts.entry(*v).or_insert(0) += c;
        }
        self.total += other.total;
        self.sum_ns += other.sum_ns;
        self.max_ns = self.max_ns.max(other.max_ns);
    }

    pub fn count(&self) -> u64 {
        self.total
    }

    /// (value, count) pairs in ascending value order.
    pub fn sorted(&self) -> Vec<(u64, u64)> {
        let mut v: Vec<(u64, u64)> = self.counts.iter().map(|(k, c)| (*k, *c)).collect();
        v.sort_unstable();
        v
    }

    /// Nearest-rank quantiles for each `q` in `qs` (each in 0..=1), in one pass.
    pub fn quantiles(&self, qs: &[f64]) -> Vec<u64> {
        let sorted = self.sorted();
        qs.iter()
            .map(|&q| {
                if self.total == 0 {
                    return 0;
                }
                let rank = ((q * self.total as f64).ceil() as u64).clamp(1, self.total);
                let mut seen = 0;
                for &(v, c) in &sorted {
                    seen += c;
                    if seen >= rank {
                        return v;
                    }
                }
                self.max_ns
            })
            .collect()
    }

    pub fn summary(&self) -> LatencySummary {
        let q = self.quantiles(&[0.5, 0.9, 0.99, 0.999, 0.9999, 0.999999]);
        LatencySummary {
            count: self.total,
            mean_ns: if self.total == 0 { 0.0 } else { self.sum_ns as f64 / self.total as f64 },
            p50_ns: q[0],
            p90_ns: q[1],
            p99_ns: q[2],
            p99_9_ns: q[3],
            p99_99_ns: q[4],
            p99_9999_ns: q[5],
            max_ns: self.max_ns,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_percentiles() {
        let mut h = LatencyHistogram::default();
        for v in 1..=100 {
            h.record(v);
        }
        let s = h.summary();
        assert_eq!((s.p50_ns, s.p90_ns, s.p99_ns, s.max_ns), (50, 90, 99, 100));
        assert_eq!(s.p99_9999_ns, 100);
        assert!((s.mean_ns - 50.5).abs() < 1e-9);
        // One outlier in a million shows at p99.9999 but not at p99.99.
        let mut h = LatencyHistogram::default();
        for _ in 0..999_999 {
            h.record(10);
        }
        h.record(1_000);
        let s = h.summary();
        assert_eq!((s.p99_99_ns, s.p99_9999_ns), (10, 10));
        h.record(1_000);
        assert_eq!(h.summary().p99_9999_ns, 1_000);
    }

    #[test]
    fn empty_histogram_is_zero() {
        assert_eq!(LatencyHistogram::default().summary(), LatencySummary::default());
    }
}
