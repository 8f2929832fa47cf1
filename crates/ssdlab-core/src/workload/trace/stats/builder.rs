//! Layer: workload (trace statistics). The streaming accumulator: [`StatsBuilder::push`] takes
//! one request at a time from any source (a trace reader, the synthetic generator, a test's
//! vector) and [`StatsBuilder::finish`] turns the totals into [`TraceStats`]. Per request it does
//! one hash-map update per page touched, nothing that grows with the trace's length.

use hashbrown::HashMap;
use rustc_hash::FxBuildHasher;

use super::super::info::TraceInfo;
use super::figures::{
    HotReadSet, InterArrival, PerOp, Quantiles, Reread, Sequential, SizeBucket, SizeHistogram, SizeShareBucket,
    TraceStats,
};
use super::histogram::LogHistogram;
use super::popularity::{pages_at, popularity};
use super::HOT_ACCESS_SHARE;
use crate::error::{Error, Result};
use crate::workload::{IoOp, TraceRecord};

/// Index of an op in the per-op arrays.
const READ: usize = 0;
const WRITE: usize = 1;
const TRIM: usize = 2;

/// How one page was used. 16 bytes, plus the 8-byte key: the memory per footprint page.
#[derive(Debug, Clone, Copy, Default)]
struct PageUse {
    /// Read requests that touched the page (saturating).
    reads: u32,
    /// Write requests that touched the page (saturating).
    writes: u32,
    /// 1 + the index of the request that last wrote the page; 0 when never written, or trimmed
    /// since. The +1 spares an `Option` (8 more bytes per page).
    last_write: u64,
}

/// Accumulates [`TraceStats`] one request at a time.
#[derive(Clone)]
pub struct StatsBuilder {
    page_bytes: u64,
    idle_threshold_ns: u64,
    pages: HashMap<u64, PageUse, FxBuildHasher>,
    /// Requests and bytes by op ([`READ`], [`WRITE`], [`TRIM`]).
    counts: [u64; 3],
    bytes: [u64; 3],
    /// Per op, requests and bytes in size bucket `floor(log2(size))`.
    size_requests: [[u64; 64]; 3],
    size_bytes: [[u64; 64]; 3],
    max_address_bytes: u64,
    first_time_ns: Option<u64>,
    min_time_ns: u64,
    max_time_ns: u64,
    previous_ns: Option<u64>,
    gaps: LogHistogram,
    gap_sum_ns: u128,
    max_gap_ns: u64,
    idle_ns: u128,
    /// Where the previous read and the previous write ended, for sequential runs.
    previous_end_bytes: [Option<u64>; 2],
    sequential: [u64; 2],
    reread_accesses: u64,
    reread_distances: LogHistogram,
    max_reread_distance: u64,
}

impl StatsBuilder {
    /// An empty accumulator counting pages of `page_bytes` (512 B to 1 GiB) and gaps longer
    /// than `idle_threshold_ns` as idle.
    pub fn new(page_bytes: u64, idle_threshold_ns: u64) -> Result<Self> {
        if !(512..=1 << 30).contains(&page_bytes) {
            return Err(Error::config(
                "page_bytes",
                format!("page_bytes = {page_bytes} must be between 512 and 1 GiB"),
            ));
        }
        Ok(StatsBuilder {
            page_bytes,
            idle_threshold_ns,
            pages: HashMap::with_hasher(FxBuildHasher),
            counts: [0; 3],
            bytes: [0; 3],
            size_requests: [[0; 64]; 3],
            size_bytes: [[0; 64]; 3],
            max_address_bytes: 0,
            first_time_ns: None,
            min_time_ns: u64::MAX,
            max_time_ns: 0,
            previous_ns: None,
            gaps: LogHistogram::new(),
            gap_sum_ns: 0,
            max_gap_ns: 0,
            idle_ns: 0,
            previous_end_bytes: [None; 2],
            sequential: [0; 2],
            reread_accesses: 0,
            reread_distances: LogHistogram::new(),
            max_reread_distance: 0,
        })
    }

    /// Account one request, in delivery order.
    pub fn push(&mut self, record: &TraceRecord) {
        let index = self.counts.iter().sum::<u64>(); // of this request, 0-based
        let kind = match record.op {
            IoOp::Read => READ,
            IoOp::Write => WRITE,
            IoOp::Trim => TRIM,
        };
        self.counts[kind] += 1;
        self.bytes[kind] = self.bytes[kind].saturating_add(record.size_bytes);
        let bucket = 63 - record.size_bytes.max(1).leading_zeros() as usize;
        self.size_requests[kind][bucket] += 1;
        self.size_bytes[kind][bucket] = self.size_bytes[kind][bucket].saturating_add(record.size_bytes);
        let end_bytes = record.offset_bytes.saturating_add(record.size_bytes);
        self.max_address_bytes = self.max_address_bytes.max(end_bytes);
        if kind != TRIM {
            if self.previous_end_bytes[kind] == Some(record.offset_bytes) {
                self.sequential[kind] += 1;
            }
            self.previous_end_bytes[kind] = Some(end_bytes);
        }
        if record.size_bytes > 0 {
            let pages = record.offset_bytes / self.page_bytes..=(end_bytes - 1) / self.page_bytes;
            match kind {
                READ => self.read_pages(pages, index),
                WRITE => {
                    for page in pages {
                        let used = self.pages.entry(page).or_default();
                        used.writes = used.writes.saturating_add(1);
                        used.last_write = index + 1;
                    }
                }
                _ => self.trim_pages(pages),
            }
        }
        self.first_time_ns.get_or_insert(record.time_ns);
        self.min_time_ns = self.min_time_ns.min(record.time_ns);
        self.max_time_ns = self.max_time_ns.max(record.time_ns);
        if let Some(previous) = self.previous_ns {
            let gap_ns = record.time_ns.saturating_sub(previous);
            self.gaps.record(gap_ns);
            self.gap_sum_ns += u128::from(gap_ns);
            self.max_gap_ns = self.max_gap_ns.max(gap_ns);
            if gap_ns > self.idle_threshold_ns {
                self.idle_ns += u128::from(gap_ns);
            }
        }
        self.previous_ns = Some(record.time_ns);
    }

    fn read_pages(&mut self, pages: std::ops::RangeInclusive<u64>, index: u64) {
        for page in pages {
            let used = self.pages.entry(page).or_default();
            used.reads = used.reads.saturating_add(1);
            if used.last_write > 0 {
                // Requests strictly between: index - (last_write - 1) - 1.
                let distance = index - used.last_write;
                self.reread_accesses += 1;
                self.reread_distances.record(distance);
                self.max_reread_distance = self.max_reread_distance.max(distance);
            }
        }
    }

    /// A trimmed page holds no written data any more; it stays in (or out of) the footprint.
    fn trim_pages(&mut self, pages: std::ops::RangeInclusive<u64>) {
        let span = pages.end() - pages.start();
        // A whole-device discard spans far more pages than the footprint holds: walk the
        // footprint instead (the order does not matter, each page is cleared alone).
        if span >= self.pages.len() as u64 {
            for (page, used) in self.pages.iter_mut() {
                if pages.contains(page) {
                    used.last_write = 0;
                }
            }
        } else {
            for page in pages {
                if let Some(used) = self.pages.get_mut(&page) {
                    used.last_write = 0;
                }
            }
        }
    }

    /// Read page-accesses of written data so far (the re-reads of [`TraceStats::reread`]).
    pub fn reread_page_accesses(&self) -> u64 {
        self.reread_accesses
    }

    /// Re-read distances so far at each cumulative probability of `levels` (ascending; 0 gives
    /// the smallest, 1 the largest), each within 1 % (the histogram's buckets).
    pub fn reread_distance_quantiles<const N: usize>(&self, levels: [f64; N]) -> [u64; N] {
        self.reread_distances.quantiles(levels)
    }

    /// The statistics of everything pushed. `skipped_lines`, `clamped_records` and `trace` are
    /// the reader's (0, 0 and `None` for a source that is not a trace).
    pub fn finish(self, skipped_lines: u64, clamped_records: u64, trace: Option<TraceInfo>) -> TraceStats {
        let counts = self.counts;
        let requests: u64 = counts.iter().sum();
        let footprint_pages = self.pages.len() as u64;
        let read = popularity(self.pages.values().map(|used| used.reads).collect());
        let write = popularity(self.pages.values().map(|used| used.writes).collect());
        let hot_pages = pages_at(&read, (HOT_ACCESS_SHARE * 1000.0).round() as u64);
        let time_span_ns = if requests > 0 { self.max_time_ns - self.min_time_ns } else { 0 };
        let size_histogram = (0..64)
            .map(|bucket| (bucket, self.size_requests.iter().map(|op| op[bucket]).sum::<u64>()))
            .filter(|&(_, count)| count > 0)
            .map(|(bucket, count)| SizeBucket { min_bytes: 1 << bucket, requests: count })
            .collect();
        let [p10, p25, p50, p75, p90, p99, p99_9] = self.gaps.quantiles([0.1, 0.25, 0.5, 0.75, 0.9, 0.99, 0.999]);
        let [d10, d25, d50, d75, d90, d99] = self.reread_distances.quantiles([0.1, 0.25, 0.5, 0.75, 0.9, 0.99]);
        let page_bytes = self.page_bytes;

        TraceStats {
            requests,
            reads: counts[READ],
            writes: counts[WRITE],
            trims: counts[TRIM],
            read_ratio: ratio(counts[READ] as f64, requests as f64),
            bytes_read: self.bytes[READ],
            bytes_written: self.bytes[WRITE],
            bytes_trimmed: self.bytes[TRIM],
            mean_request_bytes: ratio(self.bytes.iter().map(|&b| b as f64).sum(), requests as f64),
            mean_read_bytes: ratio(self.bytes[READ] as f64, counts[READ] as f64),
            mean_write_bytes: ratio(self.bytes[WRITE] as f64, counts[WRITE] as f64),
            page_bytes,
            footprint_pages,
            footprint_bytes: footprint_pages.saturating_mul(page_bytes),
            read_footprint_pages: read.footprint_pages,
            write_footprint_pages: write.footprint_pages,
            max_address_bytes: self.max_address_bytes,
            address_space_bytes: self.max_address_bytes.div_ceil(page_bytes).saturating_mul(page_bytes),
            size_histogram,
            first_time_ns: self.first_time_ns.unwrap_or(0),
            last_time_ns: self.previous_ns.unwrap_or(0),
            time_span_ns,
            inter_arrival: InterArrival {
                mean_ns: ratio(self.gap_sum_ns as f64, self.gaps.total() as f64),
                p10_ns: p10,
                p25_ns: p25,
                p50_ns: p50,
                p75_ns: p75,
                p90_ns: p90,
                p99_ns: p99,
                p99_9_ns: p99_9,
                max_ns: self.max_gap_ns,
            },
            idle_threshold_ns: self.idle_threshold_ns,
            idle_share: ratio(self.idle_ns as f64, time_span_ns as f64).min(1.0),
            hot_read: HotReadSet {
                access_share: HOT_ACCESS_SHARE,
                pages: hot_pages,
                bytes: hot_pages.saturating_mul(page_bytes),
                share_of_read_footprint: ratio(hot_pages as f64, read.footprint_pages as f64),
                share_of_footprint: ratio(hot_pages as f64, footprint_pages as f64),
            },
            reread: Reread {
                share: ratio(self.reread_accesses as f64, read.accesses as f64),
                page_accesses: self.reread_accesses,
                distance_requests: Quantiles {
                    p10: d10,
                    p25: d25,
                    p50: d50,
                    p75: d75,
                    p90: d90,
                    p99: d99,
                    max: self.max_reread_distance,
                },
            },
            sequential: Sequential {
                read_share: ratio(self.sequential[READ] as f64, counts[READ] as f64),
                write_share: ratio(self.sequential[WRITE] as f64, counts[WRITE] as f64),
            },
            sizes: PerOp {
                read: size_histogram_of(&self.size_requests[READ], &self.size_bytes[READ]),
                write: size_histogram_of(&self.size_requests[WRITE], &self.size_bytes[WRITE]),
            },
            popularity: PerOp { read, write },
            skipped_lines,
            clamped_records,
            trace,
        }
    }
}

/// `part / whole`, 0 when the whole is 0 (no NaN in the JSON).
fn ratio(part: f64, whole: f64) -> f64 {
    if whole > 0.0 {
        part / whole
    } else {
        0.0
    }
}

fn size_histogram_of(requests: &[u64; 64], bytes: &[u64; 64]) -> SizeHistogram {
    let total_requests: u64 = requests.iter().sum();
    let total_bytes = bytes.iter().fold(0u64, |sum, &b| sum.saturating_add(b));
    let buckets = (0..64)
        .filter(|&bucket| requests[bucket] > 0)
        .map(|bucket| SizeShareBucket {
            min_bytes: 1 << bucket,
            requests: requests[bucket],
            bytes: bytes[bucket],
            request_share: ratio(requests[bucket] as f64, total_requests as f64),
            byte_share: ratio(bytes[bucket] as f64, total_bytes as f64),
        })
        .collect();
    SizeHistogram {
        requests: total_requests,
        bytes: total_bytes,
        mean_bytes: ratio(total_bytes as f64, total_requests as f64),
        buckets,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::IoOp::{Read, Trim, Write};

    const PAGE: u64 = 4096;

    /// Requests one microsecond apart, `(op, offset_bytes, size_bytes)`.
    fn stats_of(requests: &[(IoOp, u64, u64)]) -> TraceStats {
        let mut builder = StatsBuilder::new(PAGE, 1_000_000).unwrap();
        for (index, &(op, offset_bytes, size_bytes)) in requests.iter().enumerate() {
            builder.push(&TraceRecord { time_ns: index as u64 * 1_000, op, offset_bytes, size_bytes, device: 0 });
        }
        builder.finish(0, 0, None)
    }

    fn curve_pages(popularity: &super::super::Popularity) -> Vec<u64> {
        popularity.curve.iter().map(|point| point.pages).collect()
    }

    #[test]
    fn popularity_counts_each_page_once_per_request_by_op() {
        let stats = stats_of(&[
            (Read, 0, 2 * PAGE),         // pages 0, 1
            (Read, 0, PAGE),             // page 0
            (Read, 0, 100),              // page 0
            (Read, 3 * PAGE, PAGE),      // page 3
            (Write, 7 * PAGE, 3 * PAGE), // pages 7, 8, 9
            (Write, 9 * PAGE, 1),        // page 9
            (Trim, 0, 100 * PAGE),       // no access
        ]);
        // Reads: page 0 x3, page 1 x1, page 3 x1 = 5 accesses on 3 pages; sorted 3, 1, 1.
        // 10..60 % (0.5..3 accesses): 1 page; 70, 80 % (3.5, 4): 2; 90..100 %: 3.
        let read = &stats.popularity.read;
        assert_eq!((read.footprint_pages, read.accesses), (3, 5));
        assert_eq!(curve_pages(read), vec![1, 1, 1, 1, 1, 1, 2, 2, 3, 3, 3, 3]);
        assert!((read.curve[7].footprint_share - 2.0 / 3.0).abs() < 1e-12);
        assert_eq!(stats.hot_read.pages, 2);
        // Writes: page 9 x2, pages 7 and 8 x1 = 4 accesses on 3 pages; sorted 2, 1, 1.
        // 10..50 % (0.4..2): 1 page; 60, 70 % (2.4, 2.8): 2 pages, 80 % (3.2) on: 3.
        let write = &stats.popularity.write;
        assert_eq!((write.footprint_pages, write.accesses), (3, 4));
        assert_eq!(curve_pages(write), vec![1, 1, 1, 1, 1, 2, 2, 3, 3, 3, 3, 3]);
        assert_eq!(write.curve[4].footprint_share, 1.0 / 3.0);
        assert_eq!((stats.read_footprint_pages, stats.write_footprint_pages, stats.footprint_pages), (3, 3, 6));
    }

    #[test]
    fn rereads_by_hand() {
        let stats = stats_of(&[
            (Write, 0, PAGE),       // 0: page 0 written
            (Write, PAGE, PAGE),    // 1: page 1 written
            (Read, 0, PAGE),        // 2: page 0, 1 request after its write -> distance 1
            (Read, 2 * PAGE, PAGE), // 3: page 2 never written
            (Trim, 0, PAGE),        // 4: page 0 no longer written
            (Read, 0, PAGE),        // 5: page 0 trimmed: not a re-read
            (Write, 0, 2 * PAGE),   // 6: pages 0, 1 written again
            (Read, PAGE, PAGE),     // 7: page 1 right after -> distance 0
            (Read, 0, 2 * PAGE),    // 8: pages 0 and 1 -> distance 1, 1
        ]);
        // Read page-accesses: 1 + 1 + 1 + 1 + 2 = 6, of which 4 re-read: distances 0, 1, 1, 1.
        assert_eq!(stats.reread.page_accesses, 4);
        assert!((stats.reread.share - 4.0 / 6.0).abs() < 1e-12);
        let distance = &stats.reread.distance_requests;
        assert_eq!((distance.p10, distance.p25, distance.p50, distance.p90, distance.max), (0, 0, 1, 1, 1));
    }

    #[test]
    fn reread_distance_quantiles() {
        // Pages 0..100 written at requests 0..100, then read in reverse order at 100..200: page k
        // is read at 199 - k, so 198 - 2k requests lie between: 0, 2, .., 198.
        let mut requests: Vec<(IoOp, u64, u64)> = (0..100).map(|k| (Write, k * PAGE, PAGE)).collect();
        requests.extend((0..100).rev().map(|k| (Read, k * PAGE, PAGE)));
        let stats = stats_of(&requests);
        assert_eq!(stats.reread.share, 1.0);
        let distance = &stats.reread.distance_requests;
        let expected = [(distance.p10, 18), (distance.p25, 48), (distance.p50, 98), (distance.p75, 148)];
        for (ours, exact) in expected.into_iter().chain([(distance.p90, 178), (distance.p99, 196)]) {
            assert!((ours as f64 - exact as f64).abs() <= 0.01 * exact as f64, "{distance:?}");
        }
        assert_eq!(distance.max, 198);
    }

    #[test]
    fn a_discard_wider_than_the_footprint_unwrites_it() {
        let stats = stats_of(&[(Write, 0, 2 * PAGE), (Trim, 0, 1 << 40), (Read, 0, 2 * PAGE), (Write, PAGE, PAGE)]);
        assert_eq!((stats.reread.page_accesses, stats.reread.share), (0, 0.0));
        assert_eq!(stats.footprint_pages, 2); // trims do not count
        assert_eq!(stats.max_address_bytes, 1 << 40);
    }

    #[test]
    fn sequential_shares_by_hand() {
        let stats = stats_of(&[
            (Read, 0, PAGE),           // first read: not sequential
            (Read, PAGE, PAGE),        // continues
            (Write, 100 * PAGE, PAGE), // first write
            (Read, 2 * PAGE, 512),     // continues the reads, whatever came between
            (Write, 0, PAGE),          // does not continue the write at 100 pages
            (Trim, PAGE, PAGE),        // trims are neither
            (Write, PAGE, PAGE),       // continues
            (Read, 0, PAGE),           // does not
        ]);
        assert_eq!(stats.sequential.read_share, 0.5);
        assert!((stats.sequential.write_share - 1.0 / 3.0).abs() < 1e-12);
        assert_eq!(stats_of(&[(Trim, 0, PAGE)]).sequential, Sequential { read_share: 0.0, write_share: 0.0 });
    }

    #[test]
    fn size_histograms_by_count_and_bytes() {
        let stats = stats_of(&[
            (Read, 0, 512),
            (Read, 0, 4096),
            (Read, 0, 4096),
            (Read, 0, 6000),
            (Read, 0, 65536),
            (Write, 0, 8192),
            (Write, 0, 8192),
            (Trim, 0, 1 << 20),
        ]);
        let read = &stats.sizes.read;
        assert_eq!((read.requests, read.bytes), (5, 80_240));
        assert!((read.mean_bytes - 80_240.0 / 5.0).abs() < 1e-9);
        let buckets: Vec<(u64, u64, u64)> = read.buckets.iter().map(|b| (b.min_bytes, b.requests, b.bytes)).collect();
        assert_eq!(buckets, vec![(512, 1, 512), (4096, 3, 14_192), (65_536, 1, 65_536)]);
        assert!((read.buckets[1].byte_share - 14_192.0 / 80_240.0).abs() < 1e-12);
        assert!((read.buckets[1].request_share - 0.6).abs() < 1e-12);
        assert!((read.buckets[2].byte_share - 65_536.0 / 80_240.0).abs() < 1e-12);
        let write = &stats.sizes.write;
        assert_eq!((write.requests, write.bytes, write.mean_bytes), (2, 16_384, 8192.0));
        assert_eq!(
            write.buckets,
            vec![SizeShareBucket { min_bytes: 8192, requests: 2, bytes: 16_384, request_share: 1.0, byte_share: 1.0 }]
        );
        // The all-ops histogram keeps counting every op, trims included.
        let all: Vec<(u64, u64)> = stats.size_histogram.iter().map(|b| (b.min_bytes, b.requests)).collect();
        assert_eq!(all, vec![(512, 1), (4096, 3), (8192, 2), (65_536, 1), (1 << 20, 1)]);
    }

    #[test]
    fn inter_arrival_quantiles() {
        // Gaps of 1, 2, .., 1000 microseconds.
        let mut builder = StatsBuilder::new(PAGE, 1_000_000).unwrap();
        let mut time_ns = 0;
        for gap in 0..=1000u64 {
            time_ns += gap * 1_000;
            builder.push(&TraceRecord { time_ns, op: Read, offset_bytes: 0, size_bytes: 512, device: 0 });
        }
        let gaps = builder.finish(0, 0, None).inter_arrival;
        let expected = [
            (gaps.p10_ns, 100_000),
            (gaps.p25_ns, 250_000),
            (gaps.p50_ns, 500_000),
            (gaps.p75_ns, 750_000),
            (gaps.p90_ns, 900_000),
            (gaps.p99_ns, 990_000),
            (gaps.p99_9_ns, 999_000),
        ];
        for (ours, exact) in expected {
            assert!((ours as f64 / exact as f64 - 1.0).abs() < 0.01, "{gaps:?}");
        }
        assert_eq!((gaps.max_ns, gaps.mean_ns), (1_000_000, 500_500.0));
        // A request earlier than the one before it is a gap of 0.
        let mut builder = StatsBuilder::new(PAGE, 1_000_000).unwrap();
        for time_ns in [10, 5, 20] {
            builder.push(&TraceRecord { time_ns, op: Write, offset_bytes: 0, size_bytes: 512, device: 0 });
        }
        let gaps = builder.finish(0, 0, None).inter_arrival;
        assert_eq!((gaps.p10_ns, gaps.max_ns, gaps.mean_ns), (0, 15, 7.5));
    }
}
