//! The report's figures per interval of simulated time (`time_series.iops`, ...), what it says
//! about the drive and the workload's footprint, and a warm-up run in slices.

use crate::common::{config, run};
use ssdlab_core::stats::IntervalValues;
use ssdlab_core::{Report, Simulation};

/// The seconds each point of a rate series covers: the interval, the last one to the run's end
/// (these runs start at time 0, so the end is the span).
fn seconds(series: &IntervalValues, report: &Report) -> Vec<f64> {
    let end = report.workload.span_ns;
    let n = series.time_ns.len();
    series
        .time_ns
        .iter()
        .enumerate()
        .map(|(k, &t)| if k + 1 == n { (end - t) as f64 / 1e9 } else { series.interval_ns as f64 / 1e9 })
        .collect()
}

fn integral(series: &IntervalValues, report: &Report) -> f64 {
    series.values.iter().zip(seconds(series, report)).map(|(v, s)| v.expect("a rate in every interval") * s).sum()
}

/// Random writes with GC and random reads over a filled drive, sampled finely enough that the
/// series coarsens several times (400 intervals at most).
fn gc_run() -> Report {
    let toml = "[warmup]\nfill = true\nrandom_writes = 0.5\n[workload]\nrw = \"randrw\"\nrwmixread = 30\n\
                iodepth = 4\ncount = 30000\n[report]\nsample_interval_ns = 10000\nmax_samples = 400\n";
    run(config("tiny", toml, &[]))
}

#[test]
fn iops_integrates_back_to_the_request_count_and_gc_copies_to_the_total() {
    let report = gc_run();
    let r = &report.time_series.rates;
    assert!(r.iops.interval_ns > 10_000, "the series coarsened: {}", r.iops.interval_ns);
    assert!(r.iops.values.len() <= 400 && r.iops.values.len() > 100, "{} intervals", r.iops.values.len());
    let requests = integral(&r.iops, &report);
    assert!((requests - 30_000.0).abs() < 1e-6, "iops integrates to {requests}");
    let bytes = integral(&r.mb_per_s, &report) * 1e6;
    let expected = (report.workload.read_bytes + report.workload.write_bytes) as f64;
    assert!((bytes - expected).abs() < 1e-6 * expected, "{bytes} against {expected}");
    let copied: f64 = r.gc_pages_copied.present().sum();
    assert!(report.gc.pages_copied > 1000, "GC ran: {}", report.gc.pages_copied);
    assert_eq!(copied, report.gc.pages_copied as f64);
    // Every series on one time axis, from 0.
    for other in [&r.mb_per_s, &r.read_latency_p99_us, &r.write_latency_p50_us, &r.waf, &r.gc_pages_copied] {
        assert_eq!(r.iops.time_ns, other.time_ns);
    }
    assert_eq!(r.iops.time_ns[0], 0);
}

#[test]
fn latency_percentiles_and_waf_per_interval_agree_with_the_run() {
    let report = gc_run();
    let r = &report.time_series.rates;
    // A percentile exists exactly in the intervals with such requests, p50 and p99 together.
    assert!(r.read_latency_p99_us.present().count() > 0);
    for (p50, p99) in r.write_latency_p50_us.values.iter().zip(&r.write_latency_p99_us.values) {
        assert_eq!(p50.is_some(), p99.is_some());
        assert!(p50 <= p99, "{p50:?} > {p99:?}");
    }
    // No interval's p99 exceeds the run's max, nor its p50 falls under the run's minimum
    // bucket; within the buckets' 1/64.
    let max_us = report.latency.write.max_ns as f64 / 1e3;
    assert!(r.write_latency_p99_us.present().all(|v| v <= max_us * (1.0 + 1.0 / 64.0)));
    // WAF per interval: programs over host pages, so host-page-weighted it is the run's WAF.
    assert!(r.waf.present().all(|w| w >= 1.0), "{:?}", r.waf.values);
    assert!(r.waf.present().any(|w| w > 1.0), "GC shows in the WAF");
    let json = report.to_json();
    for name in [
        "iops",
        "mb_per_s",
        "read_latency_p50_us",
        "read_latency_p99_us",
        "write_latency_p50_us",
        "write_latency_p99_us",
        "waf",
        "gc_pages_copied",
    ] {
        assert!(json.contains(&format!("\"{name}\": {{\n      \"interval_ns\"")), "{name} in time_series");
    }
}

#[test]
fn a_write_only_run_has_no_read_percentiles() {
    let report = run(config("tiny", "[workload]\nrw = \"randwrite\"\ncount = 3000\n", &[]));
    let r = &report.time_series.rates;
    assert!(r.read_latency_p50_us.values.iter().chain(&r.read_latency_p99_us.values).all(Option::is_none));
    assert!(r.write_latency_p99_us.present().count() > 0);
    // An interval without reads is null in the JSON, not a 0 and not left out.
    let json: serde_json::Value = serde_json::from_str(&report.to_json()).unwrap();
    let reads = &json["time_series"]["read_latency_p50_us"]["values"];
    assert_eq!(reads.as_array().unwrap().len(), r.iops.values.len());
    assert!(reads.as_array().unwrap().iter().all(serde_json::Value::is_null));
}

#[test]
fn the_drive_says_its_preset_and_capacities() {
    let report = run(config("tiny", "[device]\nutilization = 0.5\n[workload]\ncount = 100\n", &[]));
    let d = &report.drive;
    assert_eq!(d.preset.as_deref(), Some("tiny"));
    // tiny: 2 x 2 planes x 64 blocks x 96 pages of 4 KiB; 12.5 % over-provisioned; half in use.
    let raw = 4 * 64 * 96 * 4096u64;
    assert_eq!(d.raw_bytes, raw);
    let logical_pages = (4 * 64 * 96) as f64 * 0.875;
    assert_eq!(d.logical_bytes, logical_pages as u64 * 4096);
    assert_eq!(d.used_logical_bytes, (logical_pages * 0.5).floor() as u64 * 4096);
    assert_eq!(d.utilization, 0.5);
    assert_eq!(report.workload.host.footprint_pages, None, "not counted for the generator");
}

/// A warm-up in slices of any size leaves the drive, and so the report, as one `step` does; the
/// progress counts pages, then simulated time of the timed writes.
#[test]
fn a_warm_up_in_slices_reports_byte_for_byte_what_a_whole_one_does() {
    let toml = "[warmup]\nfill = true\nrandom_writes = 0.7\ntimed_random_writes_ns = 200_000_000\n\
                timed_queue_depth = 4\n[workload]\nrw = \"randrw\"\ncount = 4000\niodepth = 2\n";
    let whole = run(config("tiny", toml, &["seed=3"])).to_json();
    let mut sim = Simulation::new(config("tiny", toml, &["seed=3"])).unwrap();
    let first = sim.warmup_progress().unwrap();
    assert_eq!((first.pages_written, first.timed_ns, first.timed_total_ns), (0, 0, 200_000_000));
    let used = sim.config().used_logical_pages() as u64;
    assert_eq!(first.pages_to_write, used + (0.7 * used as f64) as u64);
    let (mut slices, mut timed_seen, mut last) = (0, false, 0);
    while !sim.warm_up_step(37).unwrap() {
        slices += 1;
        let p = sim.warmup_progress().unwrap();
        assert!(p.pages_written >= last && p.pages_written <= p.pages_to_write);
        last = p.pages_written;
        timed_seen |= p.timed_ns > 0;
    }
    assert!(slices > 100 && timed_seen, "{slices} slices");
    assert!(sim.warmup_progress().is_none());
    let sliced = sim.run().unwrap().to_json();
    assert_eq!(sliced, whole);
}
