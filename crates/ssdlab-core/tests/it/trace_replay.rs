//! Trace replay through the simulator: a real MSR trace end to end in verify mode, repeated
//! passes continue in time, and `count` caps the total.
//!
//! The real traces sit in `../shared/traces` beside every checkout, so a missing one fails the
//! test; `SSDLAB_SKIP_SHARED_TRACES=1` (for builds elsewhere) turns that into a skip that says
//! so on the terminal.

use crate::common::{config, run};
use std::io::Write;
use std::path::PathBuf;

fn shared(rel: &str) -> Option<PathBuf> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/traces").join(rel);
    if p.is_file() {
        return Some(p);
    }
    let test = std::thread::current().name().unwrap_or("a test").to_string();
    if std::env::var_os("SSDLAB_SKIP_SHARED_TRACES").is_some_and(|value| value == "1") {
        // Straight to the terminal: the test harness captures `eprintln!` of passing tests.
        let _ =
            writeln!(std::io::stderr(), "SKIPPED {test}: {} is absent and SSDLAB_SKIP_SHARED_TRACES=1", p.display());
        return None;
    }
    panic!(
        "{} is absent: the shared real traces belong in ../shared/traces beside the checkout. Building away \
         from them? Set SSDLAB_SKIP_SHARED_TRACES=1 to skip the tests that need them.",
        p.display()
    );
}

#[test]
fn msr_trace_replays_repeated_in_verify_mode() {
    let Some(path) = shared("msr/hm_0.sample1000.csv") else { return };
    let toml =
        format!("verify = true\n[workload]\nkind = \"trace\"\npath = {:?}\nrepeat = 3\n", path.display().to_string());
    let report = run(config("tiny", &toml, &[]));
    assert_eq!(report.workload.requests, 3000);
    assert_eq!(report.workload.reads, 3 * 508);
    assert!(report.verify.final_scan_passed);
    // Three passes of a 127 s trace: the span is about three times as long.
    let span_s = report.workload.span_ns as f64 / 1e9;
    assert!((3.0 * 127.0..3.0 * 128.0 + 1.0).contains(&span_s), "span {span_s} s");
    let capped = run(config("tiny", &toml, &["workload.count=1500"]));
    assert_eq!(capped.workload.requests, 1500);
}
