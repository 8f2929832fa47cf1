//! Layer: workload (trace readers). Summary statistics of a trace, computed in one streaming
//! pass over a [`TraceReader`]: request mix, bytes, footprint, request-size histogram,
//! inter-arrival times, idle share and the hot read set.
//!
//! Memory grows with the trace's footprint (one hash-map entry per distinct page, about 16
//! bytes plus table overhead), never with its length: inter-arrival percentiles come from a
//! fixed log-bucketed histogram. Footprints count pages of the byte address space the reader
//! delivers, read or written; trimmed pages are not counted. With the default
//! `devices = "separate"` every device has its own 1 MiB-aligned range, so page 0 of two volumes
//! is two pages (for pages up to 1 MiB; a larger page can straddle two ranges); with
//! `devices = "merge"` they are one page, and `device = N` counts one device. The hot read set follows Li et al. (TCAD'24, "RL-based FSP
//! scheduling", Table II, "Int. footprint"): the smallest set of read pages that receives 80 %
//! of all read page-accesses, reported in bytes and as a share of the read footprint and of
//! the whole footprint (the paper's "Int. ratio" divides by the footprint, which it does not
//! define further).

use hashbrown::HashMap;
use rustc_hash::FxBuildHasher;
use serde::Serialize;

use super::info::TraceInfo;
use super::reader::TraceReader;
use crate::error::{Error, Result};
use crate::workload::IoOp;

/// Gaps longer than this count as idle time unless told otherwise: 1 ms.
pub const DEFAULT_IDLE_THRESHOLD_NS: u64 = 1_000_000;

/// The share of read page-accesses the hot read set must receive.
pub const HOT_ACCESS_SHARE: f64 = 0.8;

/// Summary statistics of a trace.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TraceStats {
    pub requests: u64,
    pub reads: u64,
    pub writes: u64,
    pub trims: u64,
    /// reads / requests (0 for an empty trace).
    pub read_ratio: f64,
    pub bytes_read: u64,
    pub bytes_written: u64,
    pub bytes_trimmed: u64,
    /// Mean size over all requests, in bytes.
    pub mean_request_bytes: f64,
    pub mean_read_bytes: f64,
    pub mean_write_bytes: f64,
    /// Page size used for the footprints.
    pub page_bytes: u64,
    /// Distinct pages read or written.
    pub footprint_pages: u64,
    pub footprint_bytes: u64,
    pub read_footprint_pages: u64,
    pub write_footprint_pages: u64,
    /// Highest byte address touched plus one.
    pub max_address_bytes: u64,
    /// Request sizes in power-of-two buckets `[min_bytes, 2 * min_bytes)`, empty buckets left out.
    pub size_histogram: Vec<SizeBucket>,
    pub first_time_ns: u64,
    pub last_time_ns: u64,
    /// Latest minus earliest request time.
    pub time_span_ns: u64,
    pub inter_arrival: InterArrival,
    /// Gaps longer than this are idle time.
    pub idle_threshold_ns: u64,
    /// Share of the time span spent in gaps longer than `idle_threshold_ns` (0 when the span is 0).
    pub idle_share: f64,
    pub hot_read: HotReadSet,
    /// Malformed lines the reader skipped.
    pub skipped_lines: u64,
    /// Requests whose time the reader clamped.
    pub clamped_records: u64,
    /// What the reader did: format, blkparse events, how the devices were laid out.
    pub trace: Option<TraceInfo>,
}

/// One bucket of the request-size histogram.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SizeBucket {
    pub min_bytes: u64,
    pub requests: u64,
}

/// Gaps between consecutive requests in delivery order (a negative gap counts as 0).
/// Percentiles come from a log-bucketed histogram and are within 1 % of the exact value.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct InterArrival {
    pub mean_ns: f64,
    pub p50_ns: u64,
    pub p99_ns: u64,
}

/// The hot read set: the fewest read pages that receive [`HOT_ACCESS_SHARE`] of read accesses.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HotReadSet {
    pub access_share: f64,
    pub pages: u64,
    pub bytes: u64,
    pub share_of_read_footprint: f64,
    pub share_of_footprint: f64,
}

/// Statistics of everything `reader` delivers, with footprints in pages of `page_bytes` and the
/// default idle threshold.
pub fn compute(reader: &mut dyn TraceReader, page_bytes: u64) -> Result<TraceStats> {
    compute_with_idle_threshold(reader, page_bytes, DEFAULT_IDLE_THRESHOLD_NS)
}

/// Like [`compute`], with gaps longer than `idle_threshold_ns` counted as idle.
pub fn compute_with_idle_threshold(
    reader: &mut dyn TraceReader,
    page_bytes: u64,
    idle_threshold_ns: u64,
) -> Result<TraceStats> {
    if !(512..=1 << 30).contains(&page_bytes) {
        return Err(Error::config("page_bytes", format!("page_bytes = {page_bytes} must be between 512 and 1 GiB")));
    }
    let mut pages: HashMap<u64, PageUse, FxBuildHasher> = HashMap::with_hasher(FxBuildHasher);
    let mut counts = [0u64; 3];
    let mut bytes = [0u64; 3];
    let mut size_buckets = [0u64; 64];
    let mut max_address_bytes = 0u64;
    let (mut first_time_ns, mut min_time_ns, mut max_time_ns) = (None, u64::MAX, 0u64);
    let mut previous_ns: Option<u64> = None;
    let mut gaps = LogHistogram::new();
    let (mut gap_sum_ns, mut idle_ns) = (0u128, 0u128);

    while let Some(record) = reader.next_record()? {
        let kind = match record.op {
            IoOp::Read => 0,
            IoOp::Write => 1,
            IoOp::Trim => 2,
        };
        counts[kind] += 1;
        bytes[kind] = bytes[kind].saturating_add(record.size_bytes);
        size_buckets[63 - record.size_bytes.max(1).leading_zeros() as usize] += 1;
        let end_bytes = record.offset_bytes.saturating_add(record.size_bytes);
        max_address_bytes = max_address_bytes.max(end_bytes);
        if record.op != IoOp::Trim && record.size_bytes > 0 {
            for page in record.offset_bytes / page_bytes..=(end_bytes - 1) / page_bytes {
                let used = pages.entry(page).or_default();
                match record.op {
                    IoOp::Read => used.reads = used.reads.saturating_add(1),
                    _ => used.written = true,
                }
            }
        }
        first_time_ns.get_or_insert(record.time_ns);
        min_time_ns = min_time_ns.min(record.time_ns);
        max_time_ns = max_time_ns.max(record.time_ns);
        if let Some(previous) = previous_ns {
            let gap_ns = record.time_ns.saturating_sub(previous);
            gaps.record(gap_ns);
            gap_sum_ns += u128::from(gap_ns);
            if gap_ns > idle_threshold_ns {
                idle_ns += u128::from(gap_ns);
            }
        }
        previous_ns = Some(record.time_ns);
    }

    let requests: u64 = counts.iter().sum();
    let ratio = |part: f64, whole: f64| if whole > 0.0 { part / whole } else { 0.0 };
    let footprint_pages = pages.len() as u64;
    let read_footprint_pages = pages.values().filter(|used| used.reads > 0).count() as u64;
    let write_footprint_pages = pages.values().filter(|used| used.written).count() as u64;
    let hot_pages = hot_set_pages(pages.values().map(|used| used.reads));
    let time_span_ns = if requests > 0 { max_time_ns - min_time_ns } else { 0 };
    let size_histogram = size_buckets
        .iter()
        .enumerate()
        .filter(|(_, &count)| count > 0)
        .map(|(bucket, &count)| SizeBucket { min_bytes: 1 << bucket, requests: count })
        .collect();

    Ok(TraceStats {
        requests,
        reads: counts[0],
        writes: counts[1],
        trims: counts[2],
        read_ratio: ratio(counts[0] as f64, requests as f64),
        bytes_read: bytes[0],
        bytes_written: bytes[1],
        bytes_trimmed: bytes[2],
        mean_request_bytes: ratio(bytes.iter().map(|&b| b as f64).sum(), requests as f64),
        mean_read_bytes: ratio(bytes[0] as f64, counts[0] as f64),
        mean_write_bytes: ratio(bytes[1] as f64, counts[1] as f64),
        page_bytes,
        footprint_pages,
        footprint_bytes: footprint_pages.saturating_mul(page_bytes),
        read_footprint_pages,
        write_footprint_pages,
        max_address_bytes,
        size_histogram,
        first_time_ns: first_time_ns.unwrap_or(0),
        last_time_ns: previous_ns.unwrap_or(0),
        time_span_ns,
        inter_arrival: InterArrival {
            mean_ns: ratio(gap_sum_ns as f64, gaps.total as f64),
            p50_ns: gaps.quantile(0.5),
            p99_ns: gaps.quantile(0.99),
        },
        idle_threshold_ns,
        idle_share: ratio(idle_ns as f64, time_span_ns as f64).min(1.0),
        hot_read: HotReadSet {
            access_share: HOT_ACCESS_SHARE,
            pages: hot_pages,
            bytes: hot_pages.saturating_mul(page_bytes),
            share_of_read_footprint: ratio(hot_pages as f64, read_footprint_pages as f64),
            share_of_footprint: ratio(hot_pages as f64, footprint_pages as f64),
        },
        skipped_lines: reader.skipped_lines(),
        clamped_records: reader.clamped_records(),
        trace: reader.info(),
    })
}

/// How one page was used.
#[derive(Debug, Clone, Copy, Default)]
struct PageUse {
    reads: u32,
    written: bool,
}

/// The fewest pages whose read counts add up to [`HOT_ACCESS_SHARE`] of all reads.
fn hot_set_pages(read_counts: impl Iterator<Item = u32>) -> u64 {
    let mut counts: Vec<u32> = read_counts.filter(|&reads| reads > 0).collect();
    counts.sort_unstable_by(|a, b| b.cmp(a));
    let total: u64 = counts.iter().map(|&reads| u64::from(reads)).sum();
    // Integer form of `taken >= 0.8 * total`.
    let mut taken = 0u64;
    for (index, &reads) in counts.iter().enumerate() {
        if taken * 5 >= total * 4 {
            return index as u64;
        }
        taken += u64::from(reads);
    }
    counts.len() as u64
}

/// A histogram of u64 values with 64 linear sub-buckets per power of two: exact below 128,
/// within 1/64 relative above. 3,776 buckets, about 30 KiB.
struct LogHistogram {
    counts: Vec<u64>,
    total: u64,
}

const SUB_BITS: u32 = 6;
const SUB_BUCKETS: u64 = 1 << SUB_BITS;
const EXACT_BELOW: u64 = 2 * SUB_BUCKETS;

impl LogHistogram {
    fn new() -> Self {
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

    fn record(&mut self, value: u64) {
        self.counts[Self::index(value)] += 1;
        self.total += 1;
    }

    /// The value at quantile `q` (the middle of its bucket); 0 when empty.
    fn quantile(&self, q: f64) -> u64 {
        if self.total == 0 {
            return 0;
        }
        let rank = ((q * self.total as f64).ceil() as u64).clamp(1, self.total);
        let mut seen = 0u64;
        for (index, &count) in self.counts.iter().enumerate() {
            seen += count;
            if seen >= rank {
                let (low, width) = Self::bucket(index);
                return low + (width - 1) / 2;
            }
        }
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::trace::test_support::shared_trace;
    use crate::workload::trace::{open, DeviceHandling, DevicePolicy, OutOfOrderPolicy, TraceOptions};
    use crate::workload::TraceRecord;

    struct Fixed(std::vec::IntoIter<TraceRecord>);

    impl TraceReader for Fixed {
        fn next_record(&mut self) -> Result<Option<TraceRecord>> {
            Ok(self.0.next())
        }
        fn line(&self) -> u64 {
            0
        }
        fn skipped_lines(&self) -> u64 {
            0
        }
    }

    fn stats_of(records: Vec<(u64, IoOp, u64, u64)>) -> TraceStats {
        let records = records
            .into_iter()
            .map(|(time_ns, op, offset_bytes, size_bytes)| TraceRecord {
                time_ns,
                op,
                offset_bytes,
                size_bytes,
                device: 0,
            })
            .collect::<Vec<_>>();
        compute(&mut Fixed(records.into_iter()), 4096).unwrap()
    }

    #[test]
    fn counts_bytes_footprint_and_hot_set() {
        use IoOp::{Read, Trim, Write};
        let stats = stats_of(vec![
            (0, Write, 0, 8192),              // pages 0, 1
            (1_000, Read, 0, 4096),           // page 0
            (2_000, Read, 0, 4096),           // page 0
            (3_000, Read, 0, 4096),           // page 0
            (4_000, Read, 4096 * 5, 100),     // page 5
            (5_000_000, Trim, 4096 * 9, 512), // not in the footprint
            (5_001_000, Read, 4095, 2),       // pages 0 and 1
        ]);
        assert_eq!((stats.requests, stats.reads, stats.writes, stats.trims), (7, 5, 1, 1));
        assert_eq!(stats.footprint_pages, 3);
        assert_eq!(stats.read_footprint_pages, 3);
        assert_eq!(stats.write_footprint_pages, 2);
        assert_eq!(stats.bytes_read, 3 * 4096 + 100 + 2);
        assert_eq!(stats.max_address_bytes, 4096 * 9 + 512);
        // Read page accesses: page 0 x4, page 5 x1, page 1 x1 = 6; 80 % = 4.8 -> pages 0 and 5.
        assert_eq!(stats.hot_read.pages, 2);
        assert_eq!(stats.hot_read.bytes, 8192);
        assert!((stats.hot_read.share_of_read_footprint - 2.0 / 3.0).abs() < 1e-12);
        // One gap (4 ms) above 1 ms out of a 5.001 ms span.
        assert!((stats.idle_share - 4_996_000.0 / 5_001_000.0).abs() < 1e-12);
        assert_eq!(stats.time_span_ns, 5_001_000);
        assert!((stats.inter_arrival.p50_ns as f64 / 1_000.0 - 1.0).abs() < 0.01, "{:?}", stats.inter_arrival);
        let buckets: Vec<(u64, u64)> = stats.size_histogram.iter().map(|b| (b.min_bytes, b.requests)).collect();
        assert_eq!(buckets, vec![(2, 1), (64, 1), (512, 1), (4096, 3), (8192, 1)]);
    }

    #[test]
    fn empty_stream_has_no_nans() {
        let stats = stats_of(Vec::new());
        assert_eq!(stats.requests, 0);
        assert_eq!(stats.read_ratio, 0.0);
        assert_eq!(stats.inter_arrival.mean_ns, 0.0);
        assert!(serde_json::to_string(&stats).unwrap().contains("\"requests\":0"));
    }

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
        let p50 = histogram.quantile(0.5) as f64;
        let p99 = histogram.quantile(0.99) as f64;
        assert!((p50 / 5_000_000.0 - 1.0).abs() < 0.01, "{p50}");
        assert!((p99 / 9_900_000.0 - 1.0).abs() < 0.01, "{p99}");
    }

    /// The figures in shared/traces/README.md: exact request counts; read ratio and footprint
    /// (distinct 4 KiB pages, devices not told apart: the README's script ignores the device
    /// column, so the traces are read with `devices = "merge"`) within half a unit of the
    /// README's last printed digit, i.e. equal after the README's rounding.
    #[test]
    fn shared_traces_match_the_readme() {
        const MIB: f64 = 1024.0 * 1024.0;
        const GIB: f64 = 1024.0 * MIB;
        // (file, requests, read ratio, its decimals, footprint, its unit, its decimals)
        let expected: [(&str, u64, f64, i32, f64, f64, i32); 12] = [
            ("msr/rsrch_1.txt.gz", 13_780, 0.003, 3, 112.0, MIB, 0),
            ("msr/wdev_1.csv", 1_055, 0.000, 3, 1.4, MIB, 1),
            ("msr/wdev_3.csv", 682, 0.016, 3, 1.2, MIB, 1),
            ("msr/hm_0.sample1000.csv", 1_000, 0.508, 3, 7.5, MIB, 1),
            ("msr/msr_cut10k_rw20_80_105.trace", 10_000, 0.202, 3, 29.0, MIB, 0),
            ("msr/msr_cut10k_thpt_rand_1006.trace", 10_000, 0.832, 3, 113.0, MIB, 0),
            ("ms_production/msnfs_150k.disksim_ms.txt.gz", 149_999, 0.870, 3, 2.05, GIB, 2),
            ("ms_production/tpcc_small.disksim_ns.txt", 6_999, 0.626, 3, 80.0, MIB, 0),
            ("umass/websearch_small.disksim_ns.txt.gz", 24_783, 0.9998, 4, 0.35, GIB, 2),
            ("cloudphysics/cloudPhysicsIO.us.csv.gz", 113_872, 0.413, 3, 1.03, GIB, 2),
            ("tencent_cbs/cloud_storage_sample_50k.csv.gz", 50_000, 0.490, 3, 1.28, GIB, 2),
            ("systor17/systor17-traces-sample.csv.gz", 999, 0.827, 3, 38.0, MIB, 0),
        ];
        for (file, requests, read_ratio, ratio_decimals, footprint, unit, footprint_decimals) in expected {
            let Some(path) = shared_trace(file) else {
                return;
            };
            // Tencent's one-second stamps are unsorted beyond any small window (README caveat):
            // clamp them. SYSTOR's completion order is re-sorted by the default window.
            let options = TraceOptions {
                on_out_of_order: OutOfOrderPolicy::Clamp,
                devices: DevicePolicy::Merge,
                ..TraceOptions::default()
            };
            let mut reader = open(&path, &options).unwrap();
            let stats = compute(reader.as_mut(), 4096).unwrap();
            assert_eq!(stats.requests, requests, "{file}");
            let ratio_tolerance = 0.5 * 10f64.powi(-ratio_decimals) + 1e-9;
            assert!(
                (stats.read_ratio - read_ratio).abs() <= ratio_tolerance,
                "{file}: read ratio {}",
                stats.read_ratio
            );
            let ours = stats.footprint_bytes as f64 / unit;
            let footprint_tolerance = 0.5 * 10f64.powi(-footprint_decimals) + 1e-9;
            assert!((ours - footprint).abs() <= footprint_tolerance, "{file}: footprint {ours} vs README {footprint}");
            assert_eq!(stats.skipped_lines, 0, "{file}");
            if !file.starts_with("tencent") {
                assert_eq!(stats.clamped_records, 0, "{file}");
            }
        }
    }

    /// Footprints count pages of the separated address space by default: the same page number
    /// of two devices is two pages. The counts are distinct (device, 4 KiB page) pairs and
    /// distinct pages, computed with awk from the files, e.g. for the DiskSim traces
    /// `zcat -f F | awk '{for (p = int($3 * 512 / 4096); p <= int((($3 + $4) * 512 - 1) / 4096);
    /// p++) { m[p]; d[$2 " " p] }} END {print length(d), length(m)}'`.
    #[test]
    fn footprints_count_devices_apart_unless_merged() {
        // (file, devices, separated pages, merged pages)
        let expected: [(&str, u64, u64, u64); 4] = [
            ("ms_production/tpcc_small.disksim_ns.txt", 16, 20_470, 20_422),
            ("umass/websearch_small.disksim_ns.txt.gz", 6, 93_029, 92_259),
            ("tencent_cbs/cloud_storage_sample_50k.csv.gz", 2_038, 348_239, 334_782),
            ("ms_production/msnfs_150k.disksim_ms.txt.gz", 1, 538_027, 538_027),
        ];
        for (file, devices, separated, merged) in expected {
            let Some(path) = shared_trace(file) else {
                return;
            };
            let clamp = TraceOptions { on_out_of_order: OutOfOrderPolicy::Clamp, ..TraceOptions::default() };
            let stats = compute(open(&path, &clamp).unwrap().as_mut(), 4096).unwrap();
            assert_eq!(stats.footprint_pages, separated, "{file}");
            let info = stats.trace.unwrap();
            assert_eq!((info.devices, info.device_count), (DeviceHandling::Separate, Some(devices)), "{file}");
            let merge = TraceOptions { devices: DevicePolicy::Merge, ..clamp };
            let stats = compute(open(&path, &merge).unwrap().as_mut(), 4096).unwrap();
            assert_eq!(stats.footprint_pages, merged, "{file}");
            assert_eq!(stats.trace.unwrap().devices, DeviceHandling::Merge, "{file}");
        }
    }
}
