//! Verify mode stays green under every partial-GC scheduler (Lazy-RTGC, RLGC and its variants,
//! the interval predictor) on GC-heavy workloads of the `tiny` preset: closed-loop random
//! writes, mixed reads and writes on hot/cold data, Zipf-skewed unaligned writes, and open-loop
//! on/off bursts with idle gaps. These loads are far heavier than the schedulers are meant for,
//! so intensive mode and the FTL's emergency reclaim run too; data must survive all of it.

use crate::common::{config, run};

pub const PARTIAL_SCHEDULERS: &[&str] = &["lazy_rtgc", "rlgc", "rlgc_aggressive", "rlgc_qtc", "predictor"];

const WORKLOADS: &[&str] = &[
    "[workload]\nrw = \"randwrite\"\ncount = 40000\niodepth = 8\n",
    "[workload]\nrw = \"randrw\"\nrwmixread = 40\nbs = \"8k\"\ncount = 40000\niodepth = 4\n\
     random_distribution = \"hotcold\"\n",
    "[workload]\nrw = \"randwrite\"\nbs = 6144\ncount = 30000\nrandom_distribution = \"zipf\"\n",
    "[workload]\nrw = \"randrw\"\nrwmixread = 20\narrival = \"onoff\"\nrate_iops = 1500.0\n\
     on_ns = 20_000_000\noff_ns = 30_000_000\nrandom_distribution = \"hotcold\"\ncount = 40000\n",
];

#[test]
fn every_partial_scheduler_keeps_all_data() {
    // T_GC = 12 leaves room above tiny's four per-plane GC reserves; 4 (tiny's default) is
    // checked below.
    for scheduler in PARTIAL_SCHEDULERS {
        for (i, w) in WORKLOADS.iter().enumerate() {
            let toml = format!(
                "verify = true\n[gc]\nscheduler = \"{scheduler}\"\ntrigger_free_blocks = 12\n\
                 [warmup]\nfill = true\nrandom_writes = 0.5\n{w}"
            );
            let report = run(config("tiny", &toml, &[]));
            let what = format!("{scheduler} workload {i}");
            assert!(report.verify.final_scan_passed, "{what}");
            assert!(report.gc.victims_reclaimed > 100, "{what}: GC must run many cycles");
            assert!(report.gc.partial_steps > 100, "{what}: GC must run as partial steps");
            assert!(report.verify.reads_checked > 0 || !w.contains("randrw"), "{what}");
            assert!(report.policies.gc_scheduler_report.is_object(), "{what}");
        }
    }
}

#[test]
fn a_threshold_inside_the_gc_reserve_still_keeps_all_data() {
    // tiny's own trigger (4 free blocks) equals its four planes' GC reserves: partial schedulers
    // start with the host already out of room, so intensive mode and emergency reclaims carry
    // the load. Slow, but nothing may be lost and no DeviceFull may escape.
    for scheduler in PARTIAL_SCHEDULERS {
        let toml = format!("verify = true\n[gc]\nscheduler = \"{scheduler}\"\n[warmup]\nfill = true\n{}", WORKLOADS[1]);
        let report = run(config("tiny", &toml, &[]));
        assert!(report.verify.final_scan_passed, "{scheduler}");
        assert!(report.gc.victims_reclaimed > 100, "{scheduler}");
    }
}

/// The same loads under the `priority` scheduler, with and without suspension: the partial
/// steps run after requests are background work that waits in unit queues and yields to host
/// reads; data must survive the reordering (and queued copies that a read needs are promoted).
#[test]
fn every_partial_scheduler_keeps_all_data_under_priority() {
    for sched in [
        "[transaction_scheduler]\npolicy = \"priority\"\n",
        "[transaction_scheduler]\npolicy = \"priority\"\nsuspend_ns = 20_000\nresume_ns = 5_000\n",
    ] {
        for scheduler in ["lazy_rtgc", "rlgc"] {
            for (i, w) in WORKLOADS.iter().enumerate() {
                let toml = format!(
                    "verify = true\n[gc]\nscheduler = \"{scheduler}\"\ntrigger_free_blocks = 12\n\
                     [warmup]\nfill = true\nrandom_writes = 0.5\n{w}{sched}"
                );
                let report = run(config("tiny", &toml, &[]));
                let what = format!("{scheduler} workload {i} {sched:?}");
                assert!(report.verify.final_scan_passed, "{what}");
                assert!(report.gc.partial_steps > 100, "{what}: GC must run as partial steps");
                let gc = report.device.counters.by_source.get(ssdlab_core::device::Source::Gc);
                assert!(gc.wait_ns > 0, "{what}: background GC waited for its units");
            }
        }
    }
}
