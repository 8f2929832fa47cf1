//! Layer: workload (trace readers). Summary statistics of a trace, computed in one streaming
//! pass: request mix, bytes, footprints, size histograms, inter-arrival times, idle share, the
//! hot read set, and the figures a workload-spec fit compares (popularity curves, re-reads,
//! sequential runs). [`StatsBuilder`] accumulates them from any stream of [`TraceRecord`]s (a
//! trace, the synthetic generator); [`compute`] drives it from a [`TraceReader`].
//!
//! Memory grows with the trace's footprint, never with its length: one hash-map entry per
//! distinct page read or written (an 8-byte key and 16 bytes of counts, plus hashbrown's
//! overhead), two fixed log-bucketed histograms (about 30 KiB each) for the quantiles, and at
//! the end one `u32` per footprint page for each op's popularity sort.
//!
//! Definitions. Page figures are in pages of `page_bytes`; a request touches every page its
//! byte range overlaps, once per request (a "page access").
//! * Footprints count pages of the byte address space the reader delivers, read or written;
//!   trimmed pages are not counted. With the default `devices = "separate"` every device has
//!   its own 1 MiB-aligned range, so page 0 of two volumes is two pages (for pages up to 1 MiB; a
//!   larger page can straddle two ranges); with `devices = "merge"` they are one page, and
//!   `device = N` counts one device.
//! * Popularity curve of an op (reads or writes): its pages sorted by that op's access count,
//!   hottest first; at each share s of [`POPULARITY_ACCESS_SHARES`], the fewest pages whose
//!   accesses add up to at least s of the op's page accesses, also as a share of the op's own
//!   footprint.
//! * The hot read set follows Li et al. (TCAD'24, "RL-based FSP scheduling", Table II, "Int.
//!   footprint"): the read curve's 0.8 point, reported in bytes and as a share of the read
//!   footprint and of the whole footprint (the paper's "Int. ratio" divides by the footprint,
//!   which it does not define further).
//! * Re-reads: read page-accesses of a page that an earlier request of this trace wrote, with
//!   no trim of the page since. Their distance is the number of requests of any op strictly
//!   between the read and the page's latest write (0 = the very next request).
//! * Sequential: a read (write) whose offset equals the end offset of the previous read
//!   (write), in delivery order, whatever came between; the first read (write) is not.
//! * Sizes: power-of-two buckets `[min_bytes, 2 * min_bytes)` (a size of 0 counts in bucket 1).
//! * Inter-arrival gaps: between consecutive requests in delivery order, a negative gap as 0.
//!
//! Every share and mean is 0, never NaN, when its denominator is 0.

mod builder;
mod figures;
mod histogram;
mod popularity;

pub use builder::StatsBuilder;
pub use figures::{
    CurvePoint, HotReadSet, InterArrival, PerOp, Popularity, Quantiles, Reread, Sequential, SizeBucket, SizeHistogram,
    SizeShareBucket, TraceStats,
};

use super::reader::TraceReader;
use crate::error::Result;
use crate::workload::TraceRecord;

/// Gaps longer than this count as idle time unless told otherwise: 1 ms.
pub const DEFAULT_IDLE_THRESHOLD_NS: u64 = 1_000_000;

/// The share of read page-accesses the hot read set must receive (a point of the read curve).
pub const HOT_ACCESS_SHARE: f64 = 0.8;

/// The access shares at which every popularity curve has a point, in this order.
pub const POPULARITY_ACCESS_SHARES: [f64; 12] = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99, 1.0];

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
    let mut builder = StatsBuilder::new(page_bytes, idle_threshold_ns)?;
    while let Some(record) = reader.next_record()? {
        builder.push(&record);
    }
    Ok(builder.finish(reader.skipped_lines(), reader.clamped_records(), reader.info()))
}

/// Statistics of records from any source (no reader counters, no `trace` info), with the
/// default idle threshold.
pub fn compute_records<'a>(records: impl IntoIterator<Item = &'a TraceRecord>, page_bytes: u64) -> Result<TraceStats> {
    let mut builder = StatsBuilder::new(page_bytes, DEFAULT_IDLE_THRESHOLD_NS)?;
    for record in records {
        builder.push(record);
    }
    Ok(builder.finish(0, 0, None))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::trace::test_support::shared_trace;
    use crate::workload::trace::{open, DeviceHandling, DevicePolicy, OutOfOrderPolicy, TraceOptions};
    use crate::workload::{IoOp, TraceRecord};

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

    /// The statistics through `compute` (a reader), checked against `compute_records`.
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
        let from_records = compute_records(&records, 4096).unwrap();
        let stats = compute(&mut Fixed(records.into_iter()), 4096).unwrap();
        assert_eq!(stats, from_records);
        stats
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
        assert_eq!(stats.popularity.read.curve.len(), POPULARITY_ACCESS_SHARES.len());
        assert!(stats.sizes.write.buckets.is_empty());
        // serde_json writes a NaN as null: the only null must be `trace` (no reader info).
        fn nulls(value: &serde_json::Value, path: &str, found: &mut Vec<String>) {
            match value {
                serde_json::Value::Null => found.push(path.to_string()),
                serde_json::Value::Number(number) => assert!(number.as_f64().unwrap().is_finite(), "{path}"),
                serde_json::Value::Array(items) => {
                    items.iter().enumerate().for_each(|(i, item)| nulls(item, &format!("{path}[{i}]"), found))
                }
                serde_json::Value::Object(fields) => {
                    fields.iter().for_each(|(key, item)| nulls(item, &format!("{path}.{key}"), found))
                }
                _ => {}
            }
        }
        let json = serde_json::to_value(&stats).unwrap();
        let mut found = Vec::new();
        nulls(&json, "", &mut found);
        assert_eq!(found, vec![".trace".to_string()]);
        assert_eq!(json["requests"], 0);
    }

    #[test]
    fn page_bytes_out_of_range_is_an_error() {
        assert!(StatsBuilder::new(511, DEFAULT_IDLE_THRESHOLD_NS).is_err());
        assert!(StatsBuilder::new((1 << 30) + 1, DEFAULT_IDLE_THRESHOLD_NS).is_err());
        assert!(compute_records(&[], 4096).is_ok());
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
