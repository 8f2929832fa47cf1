//! Layer: stats. Log-bucketed latency histograms, for the percentiles of one interval of a time
//! series (`interval_series.rs`), where the exact histograms of `histogram.rs` would cost a hash
//! map per interval.
//!
//! The buckets are HdrHistogram's: values below 2^5 have a bucket each; above, every power of
//! two is cut into 2^5 = 32 equal sub-buckets, so a bucket's width is at most 1/32 of its lowest
//! value. A quantile is the midpoint of the bucket that holds the exact nearest-rank quantile
//! (bucketing keeps the order, so the rank finds that bucket), hence within 1/64 (1.6 %) of the
//! exact value. Recording is a leading-zero count, two shifts and an add; the dense form
//! (`LogHistogram`, 1,920 buckets over the whole u64 range) takes the records of the interval
//! under way, the sparse form (`Bins`, the buckets in use) holds a closed interval and merges with
//! its neighbour when the series coarsens.

/// Sub-buckets per power of two, as bits: 2^5 = 32, a bucket at most 1/32 of its value wide.
pub const SUB_BUCKET_BITS: u32 = 5;
const SUB_BUCKETS: u64 = 1 << SUB_BUCKET_BITS;
/// Buckets over the whole u64 range: 32 exact values, then 32 per power of two from 2^5 to 2^63.
pub const BUCKETS: usize = ((64 - SUB_BUCKET_BITS as usize) + 1) * SUB_BUCKETS as usize;

/// The bucket of `value`: `value` itself below 32, else 32 per power of two.
#[inline(always)]
pub fn bucket_of(value: u64) -> usize {
    // The power of two of `value` (at least 5: below 32 the shift is 0 and the bucket the value).
    let shift = (63 - (value | SUB_BUCKETS).leading_zeros()) - SUB_BUCKET_BITS;
    (shift as u64 * SUB_BUCKETS + (value >> shift)) as usize
}

/// The values bucket `bucket` holds: (lowest, width).
pub fn bucket_range(bucket: usize) -> (u64, u64) {
    let b = bucket as u64;
    let shift = (b / SUB_BUCKETS).saturating_sub(1);
    let lowest = (b - shift * SUB_BUCKETS) << shift;
    (lowest, 1 << shift)
}

/// The value a quantile in `bucket` is reported as: the bucket's midpoint (rounded down).
pub fn bucket_value(bucket: usize) -> u64 {
    let (lowest, width) = bucket_range(bucket);
    lowest + (width - 1) / 2
}

/// A histogram's buckets in use, in bucket order: (bucket, count).
pub type Bins = [(u16, u64)];

/// The dense histogram of the interval under way: a count per bucket, and the range of buckets
/// in use so that closing it (`drain_into`) reads only those.
#[derive(Debug, Clone)]
pub struct LogHistogram {
    counts: Box<[u64]>,
    lowest: usize,
    highest: usize,
    total: u64,
}

impl Default for LogHistogram {
    fn default() -> Self {
        LogHistogram { counts: vec![0; BUCKETS].into_boxed_slice(), lowest: BUCKETS, highest: 0, total: 0 }
    }
}

impl LogHistogram {
    #[inline(always)]
    pub fn record(&mut self, value: u64) {
        let b = bucket_of(value);
        self.counts[b] += 1;
        self.lowest = self.lowest.min(b);
        self.highest = self.highest.max(b);
        self.total += 1;
    }

    pub fn total(&self) -> u64 {
        self.total
    }

    /// The buckets in use, appended to `out` (this histogram unchanged).
    pub fn bins_into(&self, out: &mut Vec<(u16, u64)>) {
        if self.total > 0 {
            out.extend(
                (self.lowest..=self.highest).filter(|&b| self.counts[b] > 0).map(|b| (b as u16, self.counts[b])),
            );
        }
    }

    /// The buckets in use, appended to `out`; this histogram is emptied. Returns the total.
    pub fn drain_into(&mut self, out: &mut Vec<(u16, u64)>) -> u64 {
        if self.total > 0 {
            for b in self.lowest..=self.highest {
                let count = std::mem::take(&mut self.counts[b]);
                if count > 0 {
                    out.push((b as u16, count));
                }
            }
        }
        let total = self.total;
        (self.lowest, self.highest, self.total) = (BUCKETS, 0, 0);
        total
    }

    /// Add the counts of `bins` (`total` in all).
    pub fn add(&mut self, bins: &Bins, total: u64) {
        for &(b, c) in bins {
            let b = b as usize;
            self.counts[b] += c;
            self.lowest = self.lowest.min(b);
            self.highest = self.highest.max(b);
        }
        self.total += total;
    }
}

/// The union of two histograms' buckets (counts of a bucket in both added), appended to `out`.
pub fn merge_into(a: &Bins, b: &Bins, out: &mut Vec<(u16, u64)>) {
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        match a[i].0.cmp(&b[j].0) {
            std::cmp::Ordering::Less => {
                out.push(a[i]);
                i += 1;
            }
            std::cmp::Ordering::Greater => {
                out.push(b[j]);
                j += 1;
            }
            std::cmp::Ordering::Equal => {
                out.push((a[i].0, a[i].1 + b[j].1));
                i += 1;
                j += 1;
            }
        }
    }
    out.extend_from_slice(&a[i..]);
    out.extend_from_slice(&b[j..]);
}

/// The nearest-rank `q`-quantile (0..=1) of a histogram of `total` values, as its bucket's
/// midpoint; None when it is empty.
pub fn quantile(bins: &Bins, total: u64, q: f64) -> Option<u64> {
    if total == 0 {
        return None;
    }
    let rank = ((q * total as f64).ceil() as u64).clamp(1, total);
    let mut seen = 0;
    for &(b, c) in bins {
        seen += c;
        if seen >= rank {
            return Some(bucket_value(b as usize));
        }
    }
    bins.last().map(|&(b, _)| bucket_value(b as usize))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::LatencyHistogram;

    #[test]
    fn buckets_cover_every_value_in_order_and_hold_what_they_say() {
        let mut values: Vec<u64> = (0..5_000).collect();
        values.extend((5..64).flat_map(|p| {
            let v = 1u64 << p;
            [v - 1, v, v + 1, v + v / 3]
        }));
        values.push(u64::MAX);
        values.sort_unstable();
        let mut last = 0;
        for &v in &values {
            let b = bucket_of(v);
            assert!(b < BUCKETS, "{v} -> {b}");
            assert!(b >= last, "buckets keep the order: {v} -> {b} after {last}");
            last = b;
            let (lowest, width) = bucket_range(b);
            assert!(lowest <= v && v - lowest < width, "{v} in bucket {b} = [{lowest}, +{width})");
            if v >= SUB_BUCKETS {
                assert!(width <= lowest / SUB_BUCKETS, "{v}: width {width} over 1/32 of {lowest}");
            } else {
                assert_eq!((lowest, width), (v, 1), "small values are exact");
            }
        }
        assert_eq!(bucket_of(u64::MAX), BUCKETS - 1);
    }

    /// The percentile error bound against the exact histogram on a known input: a skewed mix of
    /// latencies from 1 us to 100 ms, every quantile the report uses and more.
    #[test]
    fn quantiles_are_within_one_sixty_fourth_of_the_exact_ones() {
        let mut exact = LatencyHistogram::default();
        let mut dense = LogHistogram::default();
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        for i in 0..200_000u64 {
            // xorshift: a deterministic spread over six decades, heavier at the low end.
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let decade = 10u64.pow((x % 6) as u32) * 1_000;
            let v = decade + (x >> 20) % (decade * 9) + i % 7;
            exact.record(v);
            dense.record(v);
        }
        let mut bins = Vec::new();
        dense.bins_into(&mut bins);
        let qs = [0.0, 0.01, 0.25, 0.5, 0.75, 0.9, 0.99, 0.999, 0.9999, 1.0];
        for (q, want) in qs.iter().zip(exact.quantiles(&qs)) {
            let got = quantile(&bins, dense.total(), *q).unwrap();
            let error = got.abs_diff(want) as f64 / want as f64;
            assert!(error <= 1.0 / 64.0, "q {q}: {got} against exact {want} ({:.3} %)", error * 100.0);
        }
    }

    #[test]
    fn merging_adds_counts_bucket_by_bucket_and_draining_empties() {
        let mut a = LogHistogram::default();
        let mut b = LogHistogram::default();
        let mut both = LogHistogram::default();
        for v in [3, 40, 40, 1_000, 77_777] {
            a.record(v);
            both.record(v);
        }
        for v in [40, 999, 5_000_000, 3] {
            b.record(v);
            both.record(v);
        }
        let (mut from_a, mut from_b, mut merged, mut expected) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        assert_eq!((a.drain_into(&mut from_a), b.drain_into(&mut from_b)), (5, 4));
        merge_into(&from_a, &from_b, &mut merged);
        both.bins_into(&mut expected);
        assert_eq!(merged, expected);
        assert_eq!(a.total(), 0);
        assert!(a.counts.iter().all(|&c| c == 0), "draining leaves every bucket at zero");
        let mut none = Vec::new();
        a.bins_into(&mut none);
        assert!(none.is_empty());
        a.add(&merged, 9);
        let mut again = Vec::new();
        a.bins_into(&mut again);
        assert_eq!((again, a.total()), (merged.clone(), 9));
        assert_eq!(quantile(&[], 0, 0.5), None);
        assert_eq!(quantile(&merged, 9, 0.0), Some(3));
    }
}
