//! Layer: stats. Figures per interval of simulated time: requests completed and their bytes,
//! read and write latency histograms (log-bucketed, `log_histogram.rs`), and the flash programs,
//! host pages written and GC pages copied in the interval. From them the report's rate series:
//! throughput, latency percentiles, WAF and GC activity over time.
//!
//! Interval `k` is `(k x interval_ns, (k + 1) x interval_ns]`: a completion at time t belongs to
//! interval `(t - 1) / interval_ns` (t = 0 to the first). Intervals are kept from time 0 to the
//! one under way, empty ones included (a rate of 0 is a measurement), so their number grows with
//! simulated time; when it would exceed `max_intervals` the interval doubles and each pair of
//! neighbours merges into one (counts summed, histograms merged bucket by bucket): unlike a
//! sampled series (`TimeSeries`), no completion is ever dropped, and the series still sum to the
//! run's totals.
//!
//! Flash figures are counted where the work was booked: the simulation rolls the series
//! (`due`, `roll`) at the top of every event (an arrival, a completion, a timer, idle time) with
//! the running totals, so an interval gets what the events in it booked.

use serde::Serialize;

use crate::stats::log_histogram::{self, Bins, LogHistogram};
use crate::units::SimTime;
use crate::workload::IoOp;

/// Running totals of the flash figures a series follows (the simulation's counters).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FlashTotals {
    /// Flash page programs, every source.
    pub programs: u64,
    /// Host pages written (the WAF's denominator).
    pub host_pages_written: u64,
    pub gc_pages_copied: u64,
}

impl FlashTotals {
    fn minus(self, base: FlashTotals) -> FlashTotals {
        FlashTotals {
            programs: self.programs - base.programs,
            host_pages_written: self.host_pages_written - base.host_pages_written,
            gc_pages_copied: self.gc_pages_copied - base.gc_pages_copied,
        }
    }
    fn plus(self, other: FlashTotals) -> FlashTotals {
        FlashTotals {
            programs: self.programs + other.programs,
            host_pages_written: self.host_pages_written + other.host_pages_written,
            gc_pages_copied: self.gc_pages_copied + other.gc_pages_copied,
        }
    }
}

/// Where a closed interval's histogram lies in the series' arena of buckets (`IntervalSeries::bins`),
/// and how many values it holds.
#[derive(Debug, Clone, Copy, Default)]
struct BinRange {
    start: usize,
    len: usize,
    total: u64,
}

impl BinRange {
    fn of<'a>(&self, arena: &'a [(u16, u64)]) -> &'a Bins {
        &arena[self.start..self.start + self.len]
    }
}

/// One closed interval.
#[derive(Debug, Clone, Copy, Default)]
struct Interval {
    requests: u64,
    bytes: u64,
    read: BinRange,
    write: BinRange,
    flash: FlashTotals,
}

/// One series of figures per interval, `{interval_ns, time_ns, values}` as a sampled
/// `TimeSeries` is, with `time_ns` the start of each interval and a value for every interval
/// from 0: `null` (None) where the figure does not exist (a latency percentile of an interval
/// without such requests, the WAF of one without host writes), never a 0 that would read as a
/// measurement.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct IntervalValues {
    pub interval_ns: u64,
    pub time_ns: Vec<u64>,
    pub values: Vec<Option<f64>>,
}

impl IntervalValues {
    fn new(interval_ns: u64) -> IntervalValues {
        IntervalValues { interval_ns, time_ns: Vec::new(), values: Vec::new() }
    }

    fn push(&mut self, time_ns: u64, value: Option<f64>) {
        self.time_ns.push(time_ns);
        self.values.push(value);
    }

    /// The values that exist, in order.
    pub fn present(&self) -> impl Iterator<Item = f64> + '_ {
        self.values.iter().flatten().copied()
    }
}

/// The rate series of a run (`TimeSeriesReport`), all on one time axis.
#[derive(Debug, Clone, Serialize)]
pub struct RateSeries {
    /// Requests completed per second of the interval.
    pub iops: IntervalValues,
    /// Read and write bytes completed, in 10^6 bytes per second.
    pub mb_per_s: IntervalValues,
    /// Read and write latency percentiles of the requests completed in the interval, in us
    /// (null in an interval without such requests).
    pub read_latency_p50_us: IntervalValues,
    pub read_latency_p99_us: IntervalValues,
    pub write_latency_p50_us: IntervalValues,
    pub write_latency_p99_us: IntervalValues,
    /// Flash programs per host page written in the interval (null without host writes).
    pub waf: IntervalValues,
    /// Pages GC copied in the interval.
    pub gc_pages_copied: IntervalValues,
}

#[derive(Debug, Clone)]
pub struct IntervalSeries {
    interval_ns: u64,
    max_intervals: usize,
    /// Intervals 0 .. closed.len(); the one under way is the next.
    closed: Vec<Interval>,
    /// The closed intervals' histograms end to end (one allocation for them all, not two per
    /// interval: an interval closes every millisecond of simulated time at first).
    bins: Vec<(u16, u64)>,
    /// The end of the interval under way: an event after it rolls the series.
    end_ns: SimTime,
    requests: u64,
    bytes: u64,
    read: LogHistogram,
    write: LogHistogram,
    /// The running totals when the interval under way began.
    flash_base: FlashTotals,
}

impl IntervalSeries {
    pub fn new(interval_ns: u64, max_intervals: usize) -> IntervalSeries {
        let interval_ns = interval_ns.max(1);
        IntervalSeries {
            interval_ns,
            max_intervals: max_intervals.max(2),
            closed: Vec::new(),
            bins: Vec::new(),
            end_ns: interval_ns,
            requests: 0,
            bytes: 0,
            read: LogHistogram::default(),
            write: LogHistogram::default(),
            flash_base: FlashTotals::default(),
        }
    }

    /// The running totals the series starts from (the measured run's first event).
    pub fn start_from(&mut self, totals: FlashTotals) {
        self.flash_base = totals;
    }

    pub fn interval_ns(&self) -> u64 {
        self.interval_ns
    }

    /// Whether an event at `now` lies beyond the interval under way (then `roll` first).
    #[inline(always)]
    pub fn due(&self, now: SimTime) -> bool {
        now > self.end_ns
    }

    /// A request completed in the interval under way.
    #[inline(always)]
    pub fn record(&mut self, op: IoOp, latency_ns: u64, size_bytes: u64) {
        self.requests += 1;
        match op {
            IoOp::Read => {
                self.read.record(latency_ns);
                self.bytes += size_bytes;
            }
            IoOp::Write => {
                self.write.record(latency_ns);
                self.bytes += size_bytes;
            }
            IoOp::Trim => {}
        }
    }

    fn index_of(&self, now: SimTime) -> u64 {
        now.saturating_sub(1) / self.interval_ns
    }

    /// Move on to the interval that holds `now`, closing the one under way with the flash work
    /// booked until now (`totals`, the running totals), and coarsening first if that interval
    /// lies beyond `max_intervals`.
    #[cold]
    #[inline(never)]
    pub fn roll(&mut self, now: SimTime, totals: FlashTotals) {
        while self.index_of(now) >= self.max_intervals as u64 {
            self.coarsen();
        }
        let target = self.index_of(now) as usize;
        if target > self.closed.len() {
            let read_start = self.bins.len();
            let read_total = self.read.drain_into(&mut self.bins);
            let write_start = self.bins.len();
            let write_total = self.write.drain_into(&mut self.bins);
            let interval = Interval {
                requests: std::mem::take(&mut self.requests),
                bytes: std::mem::take(&mut self.bytes),
                read: BinRange { start: read_start, len: write_start - read_start, total: read_total },
                write: BinRange { start: write_start, len: self.bins.len() - write_start, total: write_total },
                flash: totals.minus(self.flash_base),
            };
            self.closed.push(interval);
            self.flash_base = totals;
            self.closed.resize(target, Interval::default());
        }
        self.end_ns = (target as u64 + 1) * self.interval_ns;
    }

    /// Double the interval: intervals 2j and 2j + 1 become interval j. With the interval under way
    /// at an odd index, it takes in the closed one before it. The buckets are copied into a new
    /// arena, merged pair by pair.
    fn coarsen(&mut self) {
        if self.closed.len() % 2 == 1 {
            let last = self.closed.pop().expect("an odd index has a closed interval before it");
            self.requests += last.requests;
            self.bytes += last.bytes;
            self.read.add(last.read.of(&self.bins), last.read.total);
            self.write.add(last.write.of(&self.bins), last.write.total);
            self.flash_base = self.flash_base.minus(last.flash);
        }
        let mut bins = Vec::with_capacity(self.bins.len());
        let merge = |a: &BinRange, b: &BinRange, old: &[(u16, u64)], bins: &mut Vec<(u16, u64)>| {
            let start = bins.len();
            log_histogram::merge_into(a.of(old), b.of(old), bins);
            BinRange { start, len: bins.len() - start, total: a.total + b.total }
        };
        let closed = self
            .closed
            .chunks(2)
            .map(|pair| Interval {
                requests: pair[0].requests + pair[1].requests,
                bytes: pair[0].bytes + pair[1].bytes,
                read: merge(&pair[0].read, &pair[1].read, &self.bins, &mut bins),
                write: merge(&pair[0].write, &pair[1].write, &self.bins, &mut bins),
                flash: pair[0].flash.plus(pair[1].flash),
            })
            .collect();
        (self.closed, self.bins) = (closed, bins);
        self.interval_ns *= 2;
        self.end_ns = (self.closed.len() as u64 + 1) * self.interval_ns;
    }

    /// The series from time 0 to `now` (the interval under way counted to `now`, its flash
    /// figures to `totals`); every series empty when `now` is None (nothing ran).
    pub fn report(&self, now: Option<SimTime>, totals: FlashTotals) -> RateSeries {
        let interval = self.interval_ns;
        let series = || IntervalValues::new(interval);
        let mut out = RateSeries {
            iops: series(),
            mb_per_s: series(),
            read_latency_p50_us: series(),
            read_latency_p99_us: series(),
            write_latency_p50_us: series(),
            write_latency_p99_us: series(),
            waf: series(),
            gc_pages_copied: series(),
        };
        let Some(now) = now else { return out };
        // The interval under way, its buckets in an arena of their own.
        let mut current_bins = Vec::new();
        self.read.bins_into(&mut current_bins);
        let read_len = current_bins.len();
        self.write.bins_into(&mut current_bins);
        let current = Interval {
            requests: self.requests,
            bytes: self.bytes,
            read: BinRange { start: 0, len: read_len, total: self.read.total() },
            write: BinRange { start: read_len, len: current_bins.len() - read_len, total: self.write.total() },
            flash: totals.minus(self.flash_base),
        };
        let last = self.closed.len();
        let closed = self.closed.iter().map(|iv| (iv, &self.bins[..]));
        for (k, (iv, arena)) in closed.chain(std::iter::once((&current, &current_bins[..]))).enumerate() {
            let start = k as u64 * interval;
            // The interval under way is measured to `now`, the others whole (and a run that
            // ended where it began, at time 0, over a whole interval).
            let length_ns = if k == last { now.min(start + interval).saturating_sub(start) } else { interval };
            let seconds = if length_ns == 0 { interval } else { length_ns };
            let seconds = seconds as f64 / 1e9;
            out.iops.push(start, Some(iv.requests as f64 / seconds));
            out.mb_per_s.push(start, Some(iv.bytes as f64 / 1e6 / seconds));
            out.gc_pages_copied.push(start, Some(iv.flash.gc_pages_copied as f64));
            let host = iv.flash.host_pages_written;
            out.waf.push(start, (host > 0).then(|| iv.flash.programs as f64 / host as f64));
            let percentiles = [
                (iv.read, &mut out.read_latency_p50_us, &mut out.read_latency_p99_us),
                (iv.write, &mut out.write_latency_p50_us, &mut out.write_latency_p99_us),
            ];
            for (range, p50, p99) in percentiles {
                let histogram = range.of(arena);
                let quantile = |q| log_histogram::quantile(histogram, range.total, q);
                p50.push(start, quantile(0.5).map(|ns| ns as f64 / 1e3));
                p99.push(start, quantile(0.99).map(|ns| ns as f64 / 1e3));
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::log_histogram::bucket_of;
    use crate::stats::log_histogram::bucket_value;

    fn totals(programs: u64, host: u64, gc: u64) -> FlashTotals {
        FlashTotals { programs, host_pages_written: host, gc_pages_copied: gc }
    }

    /// Drive a series through completions at `times` (one write of 4096 bytes each, latency =
    /// the time mod 1000, one program and one host page each, a GC copy every third).
    fn drive(series: &mut IntervalSeries, times: &[u64]) -> FlashTotals {
        let mut t = FlashTotals::default();
        for (i, &now) in times.iter().enumerate() {
            if series.due(now) {
                series.roll(now, t);
            }
            series.record(IoOp::Write, now % 1000, 4096);
            t = totals(t.programs + 1, t.host_pages_written + 1, t.gc_pages_copied + (i % 3 == 0) as u64);
        }
        t
    }

    #[test]
    fn intervals_are_half_open_at_the_start_and_empty_ones_count_as_zero() {
        let mut s = IntervalSeries::new(100, 64);
        let t = drive(&mut s, &[0, 50, 100, 101, 350]);
        let r = s.report(Some(350), t);
        assert_eq!(r.iops.time_ns, vec![0, 100, 200, 300]);
        // (0, 100]: 0, 50, 100; (100, 200]: 101; (200, 300]: none; (300, 350]: 350 over 50 ns.
        assert_eq!(r.iops.values, [3.0 / 100e-9, 1.0 / 100e-9, 0.0, 1.0 / 50e-9].map(Some));
        assert_eq!(r.write_latency_p50_us.time_ns, r.iops.time_ns, "every series on one time axis");
        let present: Vec<bool> = r.write_latency_p50_us.values.iter().map(Option::is_some).collect();
        assert_eq!(present, [true, true, false, true], "null for an interval without writes");
        assert_eq!(r.waf.values[2], None, "no WAF without host writes");
        assert!(r.read_latency_p99_us.values.iter().all(Option::is_none));
        assert_eq!(r.gc_pages_copied.present().sum::<f64>(), t.gc_pages_copied as f64);
    }

    /// Coarsening merges neighbours: the counts of the coarse series are the sums of the fine
    /// one's, and its percentiles those of the merged histograms.
    #[test]
    fn coarsening_merges_intervals_and_loses_no_completion() {
        let times: Vec<u64> = (0..5_000u64).map(|i| i * 37 + (i * i) % 101).collect();
        let mut fine = IntervalSeries::new(10, 1_000_000);
        let mut coarse = IntervalSeries::new(10, 16);
        let t_fine = drive(&mut fine, &times);
        let t_coarse = drive(&mut coarse, &times);
        let now = *times.last().unwrap();
        let (f, c) = (fine.report(Some(now), t_fine), coarse.report(Some(now), t_coarse));
        assert!(c.iops.values.len() <= 16 && c.iops.interval_ns > 10);
        let ratio = (c.iops.interval_ns / f.iops.interval_ns) as usize;
        assert!(ratio.is_power_of_two());
        // Requests per interval: the coarse interval's are the fine ones it covers, summed.
        let count = |r: &RateSeries, k: usize, len: f64| (r.iops.values[k].unwrap() * len * 1e-9).round() as u64;
        let n = c.iops.values.len();
        for k in 0..n {
            let covered = k * ratio..((k + 1) * ratio).min(f.iops.values.len());
            let fine_sum: u64 = covered
                .clone()
                .map(|j| {
                    let len = if j + 1 == f.iops.values.len() { (now - j as u64 * 10) as f64 } else { 10.0 };
                    count(&f, j, len)
                })
                .sum();
            let len = if k + 1 == n { (now - k as u64 * c.iops.interval_ns) as f64 } else { c.iops.interval_ns as f64 };
            assert_eq!(count(&c, k, len), fine_sum, "coarse interval {k}");
            let gc: f64 = covered.map(|j| f.gc_pages_copied.values[j].unwrap()).sum();
            assert_eq!(c.gc_pages_copied.values[k], Some(gc));
        }
        let total: u64 = (0..n)
            .map(|k| {
                let len =
                    if k + 1 == n { (now - k as u64 * c.iops.interval_ns) as f64 } else { c.iops.interval_ns as f64 };
                count(&c, k, len)
            })
            .sum();
        assert_eq!(total, times.len() as u64);
        assert_eq!(c.waf.present().filter(|&w| w != 1.0).count(), 0, "one program per host page everywhere");
        // The percentiles of a coarse interval: those of every latency it holds, bucketed.
        let start = c.iops.interval_ns;
        let mut latencies: Vec<u64> =
            times.iter().filter(|&&t| t > start && t <= 2 * start).map(|t| t % 1000).collect();
        latencies.sort_unstable();
        let rank = (latencies.len() as f64 * 0.99).ceil() as usize;
        let want = bucket_value(bucket_of(latencies[rank - 1])) as f64 / 1e3;
        assert_eq!(c.write_latency_p99_us.values[1], Some(want));
    }

    #[test]
    fn a_long_gap_coarsens_at_once_and_stays_bounded() {
        let mut s = IntervalSeries::new(1_000, 8);
        let t = drive(&mut s, &[10, 594_248_213_400_000]);
        let r = s.report(Some(594_248_213_400_000), t);
        assert!(r.iops.values.len() <= 8);
        assert_eq!(r.iops.present().filter(|&v| v > 0.0).count(), 2);
        assert!(s.report(None, t).iops.values.is_empty());
    }
}
