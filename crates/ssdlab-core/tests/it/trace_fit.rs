//! `trace fit` on every shared real trace: the spec fitted to a trace, drawn at the trace's
//! length, must show the trace's own figures (read ratio, sizes, footprint, popularity,
//! re-reads, sequential runs, arrivals) within the tolerances of `close`. They are the same for
//! every trace. Footprints and popularity points have wider bounds: a fitted workload touches
//! 77-104 % of its trace's footprint, and a trace whose sequential runs start on its hot data
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
/// 75 % to 105 % of the trace's and popularity points within 0.25 (the known gaps, above).
fn close(name: &str, original: f64, synthesized: f64, sizes_grouped: bool) -> bool {
    let relative = |tol: f64| (synthesized - original).abs() <= tol * original.abs().max(1e-9);
    if name.contains("footprint MiB") {
        synthesized >= 0.75 * original && synthesized <= 1.05 * original
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
