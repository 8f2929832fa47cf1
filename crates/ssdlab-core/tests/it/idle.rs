//! Idle-time work under verify mode: idle GC (`gc.background = "idle"`) for the two schedulers
//! that do any, with and without a write buffer that flushes on idle, on the `tiny` drive
//! under bursts with idle gaps (the `onoff` workload: hot/cold random writes, here with reads and
//! trims-free partial pages). Every run must pass verify mode's final scan and must actually
//! have done the idle work it was configured for; the hand-computed idle timelines are in
//! `timeline.rs`.

use crate::common::{config, refusal, run};

/// The `onoff` preset's rhythm (500 IOPS for 50 ms, then 50 ms silent), within what this drive
/// sustains under GC at 12.5 % over-provisioning: the 1 ms idle gap closes in every silence and
/// between many requests of a burst. 6 KiB requests at 4 KiB
/// offsets: half start inside a page.
const WORKLOAD: &str = "verify = true\nseed = 3\n\
    [workload]\nrw = \"randrw\"\nrwmixread = 30\nbs = \"6k\"\narrival = \"onoff\"\nrate_iops = 500.0\n\
    on_ns = 50_000_000\noff_ns = 50_000_000\nrandom_distribution = \"hotcold\"\nhot_fraction = 0.2\nhot_share = 0.8\n\
    count = 2000\n[warmup]\nfill = true\nrandom_writes = 1.0\n[idle]\ngap_ns = 1_000_000\n";

#[test]
fn idle_work_keeps_verify_green() {
    for (scheduler, order) in
        [("greedy", "fcfs"), ("lazy_rtgc", "fcfs"), ("greedy", "priority"), ("lazy_rtgc", "priority")]
    {
        for buffer in [false, true] {
            let cell = format!("[{scheduler}, {order}, buffer {}]", if buffer { "on, flush on idle" } else { "off" });
            let cache = if buffer { "[cache]\ncapacity = \"256k\"\nflush_on_idle = true\n" } else { "" };
            let gc = format!("[gc]\nscheduler = \"{scheduler}\"\nbackground = \"idle\"\nbackground_free_blocks = 40\n");
            let sched = match order {
                "priority" => "[transaction_scheduler]\npolicy = \"priority\"\nsuspend_ns = 20_000\n",
                _ => "",
            };
            let report = run(config("tiny", &format!("{WORKLOAD}{gc}{cache}{sched}"), &[]));
            assert!(report.verify.final_scan_passed, "{cell}");
            assert_eq!(report.verify.reads_checked, report.ftl.host_read_pages, "{cell}");
            assert!(report.idle.periods >= 100, "{cell}: {} idle periods", report.idle.periods);
            assert!(report.gc.victims_reclaimed > 0, "{cell}: the run garbage-collects");
            if scheduler == "greedy" {
                // Greedy reclaims in idle time whenever free blocks are below 40.
                assert!(report.gc.idle_victims_reclaimed > 0, "{cell}: {:?}", report.gc);
            }
            assert!(report.gc.idle_victims_reclaimed <= report.gc.victims_reclaimed, "{cell}");
            assert!(report.gc.idle_pages_copied <= report.gc.pages_copied, "{cell}");
            if let Some(c) = &report.cache {
                assert!(c.idle_flushes > 0 && c.idle_flush_pages > 0, "{cell}: {c:?}");
            }
        }
    }
}

/// Idle GC is an option of schedulers that work in idle time; for the others the config is
/// refused with the reason, not silently idle.
#[test]
fn schedulers_without_idle_work_refuse_background_idle() {
    let err = refusal("tiny", "[gc]\nscheduler = \"rlgc\"\nbackground = \"idle\"\n", &[]);
    assert!(err.contains("gc.background") && err.contains("rlgc"), "{err}");
    let err =
        ssdlab_core::load_config(Some("tiny"), &[], &["gc.background=\"idle\"".into(), "gc.scope=\"plane\"".into()])
            .expect_err("per-plane GC has no idle GC")
            .to_string();
    assert!(err.contains("gc.background"), "{err}");
}
