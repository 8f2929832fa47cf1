//! `trace fit` on every shared real trace: the spec fitted to a trace, drawn at the trace's
//! length, must show the trace's own figures (read ratio, sizes, footprint, popularity,
//! re-reads, sequential runs, arrivals) within the tolerances of `close`. They are the same for
//! every trace. Footprints and popularity points have wider bounds: a fitted workload touches
//! 77-109 % of its trace's footprint (109 %: the read footprint of msr_cut10k_rw20_80_105,
//! whose reads re-read 27 %: under `reread.from_popularity = false` a popularity read that lands
//! on written data is drawn again, onto a page not read yet), and a trace whose sequential runs
//! start on its hot data
//! comes out more concentrated (docs/workloads.md has the table and the reasons). Those two
//! bounds sit just outside what the model reaches today: they guard a documented gap against
//! regressions and claim no fidelity; the others are the fit's own tolerances.

use crate::common::shared_trace;
use ssdlab_core::workload::spec::fit::{fit, generate, FitOptions, MIN_SAMPLES};
use ssdlab_core::workload::trace::stats::{compute_records, TraceStats};
use ssdlab_core::workload::trace::{open, OutOfOrderPolicy, TraceOptions};

const TRACES: &[&str] = &[
    "msr/rsrch_1.txt.gz",
    "msr/wdev_1.csv",
    "msr/wdev_3.csv",
    "msr/hm_0.sample1000.csv",
    "msr/msr_cut10k_rw20_80_105.trace",
    "msr/msr_cut10k_thpt_rand_1006.trace",
    "ms_production/msnfs_150k.disksim_ms.txt.gz",
    "ms_production/tpcc_small.disksim_ns.txt",
    "umass/websearch_small.disksim_ns.txt.gz",
    "cloudphysics/cloudPhysicsIO.us.csv.gz",
    "tencent_cbs/cloud_storage_sample_50k.csv.gz",
    "systor17/systor17-traces-sample.csv.gz",
    "fiu/fiu_mail_cheetah_day1_first10k.blkparse.gz",
    "blkparse/snia_ycsb_rocksdb_ssdtrace_first10k_lines.blkparse.txt.gz",
];

/// (figure, original, synthesized) rows of one trace.
fn figures(a: &TraceStats, b: &TraceStats) -> Vec<(&'static str, f64, f64)> {
    let point = |s: &TraceStats, read: bool, share: f64| {
        let p = if read { &s.popularity.read } else { &s.popularity.write };
        p.curve.iter().find(|c| (c.access_share - share).abs() < 1e-9).map_or(0.0, |c| c.footprint_share)
    };
    let pair = |f: &dyn Fn(&TraceStats) -> f64| (f(a), f(b));
    let rows: Vec<(&'static str, (f64, f64))> = vec![
        ("read ratio", pair(&|s| s.read_ratio)),
        ("mean read KiB", pair(&|s| s.mean_read_bytes / 1024.0)),
        ("mean write KiB", pair(&|s| s.mean_write_bytes / 1024.0)),
        ("footprint MiB", pair(&|s| s.footprint_bytes as f64 / 1048576.0)),
        ("read footprint MiB", pair(&|s| (s.read_footprint_pages * s.page_bytes) as f64 / 1048576.0)),
        ("write footprint MiB", pair(&|s| (s.write_footprint_pages * s.page_bytes) as f64 / 1048576.0)),
        ("reads: footprint share for 50 %", pair(&|s| point(s, true, 0.5))),
        ("reads: footprint share for 80 %", pair(&|s| point(s, true, 0.8))),
        ("reads: footprint share for 90 %", pair(&|s| point(s, true, 0.9))),
        ("writes: footprint share for 50 %", pair(&|s| point(s, false, 0.5))),
        ("writes: footprint share for 80 %", pair(&|s| point(s, false, 0.8))),
        ("writes: footprint share for 90 %", pair(&|s| point(s, false, 0.9))),
        ("re-read share", pair(&|s| s.reread.share)),
        ("sequential reads", pair(&|s| s.sequential.read_share)),
        ("sequential writes", pair(&|s| s.sequential.write_share)),
        ("inter-arrival p50 us", pair(&|s| s.inter_arrival.p50_ns as f64 / 1e3)),
        ("inter-arrival p90 us", pair(&|s| s.inter_arrival.p90_ns as f64 / 1e3)),
    ];
    rows.into_iter().map(|(n, (x, y))| (n, x, y)).collect()
}

/// Whether a synthesized figure is close enough to the original: shares within 0.1 (absolute;
/// re-reads 0.15), mean sizes within 15 % (30 % when the fit grouped the sizes into page
/// buckets, which rounds sub-page sizes up), gap quantiles within 25 % or 1 us; footprints from
/// 75 % to 110 % of the trace's and popularity points within 0.25 (the known gaps, above).
fn close(name: &str, original: f64, synthesized: f64, sizes_grouped: bool) -> bool {
    let relative = |tol: f64| (synthesized - original).abs() <= tol * original.abs().max(1e-9);
    if name.contains("footprint MiB") {
        synthesized >= 0.75 * original && synthesized <= 1.10 * original
    } else if name.contains("footprint share") {
        (synthesized - original).abs() <= 0.25
    } else if name.contains("re-read") {
        (synthesized - original).abs() <= 0.15
    } else if name.contains("share") || name.contains("ratio") || name.starts_with("sequential") {
        (synthesized - original).abs() <= 0.1
    } else if name.starts_with("inter-arrival") {
        relative(0.25) || (synthesized - original).abs() <= 1.0
    } else {
        relative(if sizes_grouped { 0.3 } else { 0.15 })
    }
}

#[test]
fn a_fitted_spec_reproduces_its_trace() {
    let mut failures = Vec::new();
    let mut table = String::new();
    for rel in TRACES {
        let Some(path) = shared_trace(rel) else { continue };
        // Tencent CBS's ticks are out of order by a second now and then: clamp them, as its
        // replay tests do.
        let options = TraceOptions { on_out_of_order: OutOfOrderPolicy::Clamp, ..TraceOptions::default() };
        let mut reader = open(&path, &options).expect("trace opens");
        let fitted = fit(reader.as_mut(), 4096, rel, &FitOptions::default()).expect("trace fits");
        let records: Vec<_> = generate(&fitted.spec, None, 1).collect();
        let mut synthesized = compute_records(&records, 4096).unwrap();
        // Gap quantiles of a heavy-tailed distribution are noisy over a few thousand draws:
        // compare them on 100,000.
        let long: Vec<_> = generate(&fitted.spec, Some(100_000), 1).collect();
        synthesized.inter_arrival = compute_records(&long, 4096).unwrap().inter_arrival;
        table += &format!("\n{rel} (warnings: {:?})\n", fitted.warnings);
        let st = &fitted.stats;
        for (name, original, synth) in figures(st, &synthesized) {
            // A figure the trace has too few samples of is not fitted (the fit warns): skip it.
            let samples = if name.contains("re-read") {
                st.reread.page_accesses.min(st.reads)
            } else if name.contains("read") {
                st.reads
            } else if name.contains("write") {
                st.writes
            } else {
                st.requests
            };
            // Fewer than 200 samples: a share's own noise (sd > 0.035) is as large as the bound.
            if samples < MIN_SAMPLES.max(200) {
                continue;
            }
            let grouped = fitted.warnings.iter().any(|w| w.contains("grouped"));
            let ok = close(name, original, synth, grouped);
            table += &format!("  {name:<34} {original:>12.4} {synth:>12.4} {}\n", if ok { "" } else { "MISS" });
            if !ok {
                failures.push(format!("{rel}: {name}: trace {original:.4}, fitted {synth:.4}"));
            }
        }
    }
    println!("{table}");
    assert!(failures.is_empty(), "{} figures missed:\n{}\n{table}", failures.len(), failures.join("\n"));
}

/// A trace with a known re-read share and distance: writes over a 64 MiB footprint; 30 % of
/// the reads go back to the write 50 to 400 requests before (uniformly), the others read a
/// 256 MiB range no request writes. The fitted spec, drawn at the trace's length, must show
/// the share and the distance quantiles within the comparison's default tolerance; the
/// re-read share alone is also checked by hand against the trace's 30 %.
#[test]
fn rereads_of_a_known_share_and_distance_are_fitted() {
    use rand::{Rng, SeedableRng};
    use ssdlab_core::workload::spec::compare::{compare, DEFAULT_TOLERANCE};
    use ssdlab_core::workload::{IoOp, TraceRecord};
    let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(11);
    let mut records: Vec<TraceRecord> = Vec::new();
    let page = 4096u64;
    for i in 0..60_000u64 {
        let time_ns = i * 20_000;
        let record = if rng.gen_bool(0.5) {
            TraceRecord {
                time_ns,
                op: IoOp::Write,
                offset_bytes: rng.gen_range(0..16_384) * page,
                size_bytes: page,
                device: 0,
            }
        } else if i > 400 && rng.gen_bool(0.3) {
            // The latest write at least 50 to 400 requests back.
            let back = rng.gen_range(50..=400);
            let write = records[..(i - back) as usize].iter().rev().find(|r| r.op == IoOp::Write).unwrap();
            TraceRecord { time_ns, op: IoOp::Read, offset_bytes: write.offset_bytes, size_bytes: page, device: 0 }
        } else {
            let offset_bytes = (16_384 + rng.gen_range(0..65_536)) * page;
            TraceRecord { time_ns, op: IoOp::Read, offset_bytes, size_bytes: page, device: 0 }
        };
        records.push(record);
    }
    let original = compute_records(&records, page).unwrap();
    // By construction about 30 % (a page rewritten in between still counts: it was written).
    assert!((original.reread.share - 0.3).abs() < 0.02, "{}", original.reread.share);
    struct Vector(std::vec::IntoIter<TraceRecord>);
    impl ssdlab_core::workload::trace::TraceReader for Vector {
        fn next_record(&mut self) -> ssdlab_core::Result<Option<TraceRecord>> {
            Ok(self.0.next())
        }
        fn line(&self) -> u64 {
            0
        }
        fn skipped_lines(&self) -> u64 {
            0
        }
    }
    let fitted = fit(&mut Vector(records.into_iter()), page, "known", &FitOptions::default()).unwrap();
    let judged = |name: &str| fitted.comparison.rows.iter().find(|row| row.figure == name).unwrap().clone();
    for name in ["re-read share", "re-read distance p50", "re-read distance p90"] {
        let row = judged(name);
        assert_eq!(row.within, Some(true), "{name}: trace {}, fitted {}", row.original, row.fitted);
    }
    let share = judged("re-read share").fitted;
    assert!((share - 0.3).abs() < 0.03, "fitted re-read share {share}");
    // The same comparison from the public function, at the default tolerance.
    let again = compare(&fitted.spec, &fitted.stats, 1.0, DEFAULT_TOLERANCE).unwrap();
    assert_eq!(again, fitted.comparison);
}
