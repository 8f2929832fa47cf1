//! Layer: workload (trace statistics). A fixed-size log-bucketed histogram of u64 values, so that
//! quantiles of inter-arrival gaps and re-read distances cost fixed memory whatever the trace's
//! length.

/// A histogram of u64 values with 64 linear sub-buckets per power of two: exact below 128,
/// within 1/64 relative above. 3,776 buckets, about 30 KiB.
#[derive(Clone)]
pub(super) struct LogHistogram {
    counts: Vec<u64>,
    total: u64,
}

const SUB_BITS: u32 = 6;
const SUB_BUCKETS: u64 = 1 << SUB_BITS;
const EXACT_BELOW: u64 = 2 * SUB_BUCKETS;

impl LogHistogram {
    pub(super) fn new() -> Self {
        let buckets = EXACT_BELOW + (64 - u64::from(SUB_BITS) - 1) * SUB_BUCKETS;
        LogHistogram { counts: vec![0; buckets as usize], total: 0 }
    }

    fn index(value: u64) -> usize {
        if value < EXACT_BELOW {
            return value as usize;
        }
        let exponent = 63 - value.leading_zeros(); // >= 7
        let sub = (value >> (exponent - SUB_BITS)) - SUB_BUCKETS;
        (EXACT_BELOW + u64::from(exponent - SUB_BITS - 1) * SUB_BUCKETS + sub) as usize
    }

    /// The smallest value of a bucket and its width.
    fn bucket(index: usize) -> (u64, u64) {
        let index = index as u64;
        if index < EXACT_BELOW {
            return (index, 1);
        }
        let offset = index - EXACT_BELOW;
        let shift = offset / SUB_BUCKETS + 1;
        ((SUB_BUCKETS + offset % SUB_BUCKETS) << shift, 1 << shift)
    }

    pub(super) fn record(&mut self, value: u64) {
        self.counts[Self::index(value)] += 1;
        self.total += 1;
    }

    /// How many values were recorded.
    pub(super) fn total(&self) -> u64 {
        self.total
    }

    /// The value at each quantile of `qs` (ascending), each the middle of its bucket; 0 when
    /// empty. One pass over the buckets for all of them.
    pub(super) fn quantiles<const N: usize>(&self, qs: [f64; N]) -> [u64; N] {
        let mut values = [0u64; N];
        if self.total == 0 {
            return values;
        }
        debug_assert!(qs.windows(2).all(|pair| pair[0] <= pair[1]), "{qs:?}");
        let ranks = qs.map(|q| ((q * self.total as f64).ceil() as u64).clamp(1, self.total));
        let (mut next, mut seen) = (0usize, 0u64);
        for (index, &count) in self.counts.iter().enumerate() {
            seen += count;
            while next < N && seen >= ranks[next] {
                let (low, width) = Self::bucket(index);
                values[next] = low + (width - 1) / 2;
                next += 1;
            }
            if next == N {
                break;
            }
        }
        values
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn histogram_quantiles_are_within_one_percent() {
        for value in [0u64, 1, 127, 128, 129, 1_000, 123_456_789, u64::MAX / 3, u64::MAX] {
            let (low, width) = LogHistogram::bucket(LogHistogram::index(value));
            assert!(low <= value && value - low < width, "{value}: [{low}, +{width})");
            assert!(width == 1 || (width as f64) / (low as f64) <= 1.0 / 64.0 + 1e-12, "{value}");
        }
        let mut histogram = LogHistogram::new();
        for value in 1..=10_000u64 {
            histogram.record(value * 1000);
        }
        let [p10, p50, p99, p99_9] = histogram.quantiles([0.1, 0.5, 0.99, 0.999]).map(|v| v as f64);
        assert!((p10 / 1_000_000.0 - 1.0).abs() < 0.01, "{p10}");
        assert!((p50 / 5_000_000.0 - 1.0).abs() < 0.01, "{p50}");
        assert!((p99 / 9_900_000.0 - 1.0).abs() < 0.01, "{p99}");
        assert!((p99_9 / 9_990_000.0 - 1.0).abs() < 0.01, "{p99_9}");
        assert_eq!(LogHistogram::new().quantiles([0.5, 1.0]), [0, 0]);
    }
}
