//! RLGC (Kang, Shin, Yoo 2017) end to end: the idle-gap experiment against Lazy-RTGC and the
//! blocking "page-level" GC, the aggressive variant's victim filter and read-initiated
//! triggering, and determinism of the learning schedulers.

use crate::common::{config, run};
use ssdlab_core::sim::{rng_for, RngStream};
use ssdlab_core::workload::synthetic::SyntheticSource;
use ssdlab_core::workload::IoOp;
use ssdlab_core::{Report, ValidatedConfig};

/// kang-3d-128gb (Table 2: 384 x 8 KiB pages per block, tR 49 us, tPROG 600 us, tBERS 4 ms,
/// T_GC = 10) scaled down to 512 blocks per plane (3 GiB), 60 % of the logical space in use so
/// greedy victims are about one third valid (WAF ~1.5). Open-loop bursts: Poisson 8 KiB
/// writes at 1000 IOPS for 20 ms, then 80 ms idle (200 IOPS on average, well within what the
/// device sustains), 80 % of them to 20 % of the space. 40,000 writes after a fill and one
/// random overwrite pass.
const IDLE_GAP: &str = "seed = 0\nverify = true\n\
    [device]\nblocks_per_plane = 512\nutilization = 0.6\n\
    [warmup]\nfill = true\nrandom_writes = 1.0\n\
    [workload]\nrw = \"randwrite\"\nbs = \"8k\"\narrival = \"onoff\"\nrate_iops = 1000.0\n\
    on_ns = 20_000_000\noff_ns = 80_000_000\nrandom_distribution = \"hotcold\"\n\
    hot_fraction = 0.2\nhot_share = 0.8\ncount = 40000\n";

fn idle_gap(scheduler: &str) -> Report {
    run(config("kang-3d-128gb", IDLE_GAP, &[&format!("gc.scheduler={scheduler}")]))
}

fn ms(ns: u64) -> f64 {
    ns as f64 / 1e6
}

#[test]
fn rlgc_uses_idle_gaps_better_than_lazy_rtgc_and_both_beat_blocking_gc() {
    let mut p9999 = Vec::new();
    for scheduler in ["greedy", "lazy_rtgc", "rlgc", "rlgc_aggressive", "rlgc_qtc", "predictor"] {
        let r = idle_gap(scheduler);
        let w = &r.latency.write;
        eprintln!(
            "{scheduler:16} write p99 {:8.3} ms  p99.99 {:8.3} ms  max {:8.3} ms  victims {} emergency {} waf {:.2}",
            ms(w.p99_ns),
            ms(w.p99_99_ns),
            ms(w.max_ns),
            r.gc.victims_reclaimed,
            r.gc.emergency_reclaims,
            r.waf
        );
        assert!(r.verify.final_scan_passed, "{scheduler}");
        assert!(r.gc.victims_reclaimed > 100, "{scheduler}: GC must run");
        assert_eq!(w.count, 40_000, "{scheduler}");
        p9999.push((scheduler, w.p99_99_ns, r));
    }
    let get = |name: &str| p9999.iter().find(|(s, ..)| *s == name).unwrap();
    let (greedy, lazy, rlgc, aggressive) =
        (get("greedy").1, get("lazy_rtgc").1, get("rlgc").1, get("rlgc_aggressive").1);
    // Blocking GC stalls a write for a whole victim (~130 valid pages x 0.65 ms + 4 ms erase).
    assert!(greedy > 100_000_000, "greedy p99.99 {} ms", ms(greedy));
    assert!(lazy * 4 < greedy, "lazy_rtgc {} ms vs greedy {} ms", ms(lazy), ms(greedy));
    assert!(rlgc * 4 < greedy, "rlgc {} ms vs greedy {} ms", ms(rlgc), ms(greedy));
    assert!(rlgc < lazy, "rlgc {} ms should beat lazy_rtgc {} ms at p99.99", ms(rlgc), ms(lazy));
    assert!(aggressive < lazy, "rlgc_aggressive {} ms vs lazy_rtgc {} ms", ms(aggressive), ms(lazy));
    // The partial schedulers keep up on their own: no write had to wait for an emergency reclaim.
    for name in ["lazy_rtgc", "rlgc", "rlgc_aggressive"] {
        assert_eq!(get(name).2.gc.emergency_reclaims, 0, "{name}");
        assert_eq!(get(name).2.gc.foreground_invocations, 0, "{name}");
    }
    // The learners report what they did.
    let rl = &get("rlgc").2.policies.gc_scheduler_report;
    assert!(rl["decisions"].as_u64().unwrap() > 1000, "{rl}");
    assert_eq!(rl["agent"]["epsilon"], 0.01);
    assert!(rl["agent"]["utilisation"]["state_fraction"].as_f64().unwrap() > 0.2, "{rl}");
    assert!(!rl["reward_series"].as_array().unwrap().is_empty());
    let qtc = &get("rlgc_qtc").2.policies.gc_scheduler_report;
    let cache = &qtc["agent"]["cache"];
    assert!(cache["hits"].as_u64().unwrap() > 0 && cache["evictions"].as_u64().unwrap() > 0, "{qtc}");
    assert_eq!(cache["occupancy"][0], 100, "{qtc}");
    let pred = &get("predictor").2.policies.gc_scheduler_report;
    assert!(pred["agent"]["prediction"]["mean_abs_error_ns"].as_f64().unwrap() > 0.0, "{pred}");
}

#[test]
fn aggressive_rlgc_filters_victims_above_t_gc_and_triggers_on_reads() {
    // Actions up to 6 copies so that the cap of 2 between T_GC and T_GC^A binds; 30 % reads.
    let toml = format!("{IDLE_GAP}\n[gc]\nscheduler = \"rlgc_aggressive\"\n[gc.rlgc]\nmax_copies = 6\n")
        .replace("rw = \"randwrite\"", "rw = \"randrw\"\nrwmixread = 30");
    let r = run(config("kang-3d-128gb", &toml, &[]));
    assert!(r.verify.final_scan_passed);
    let rep = &r.policies.gc_scheduler_report;
    // Victims chosen while free blocks were above T_GC = 10 came through the 60 % filter ...
    assert!(r.gc.filtered_victims_chosen > 10, "{:?}", r.gc);
    assert!(r.gc.filtered_victims_min_invalid_fraction >= 0.6, "{:?}", r.gc);
    assert!(rep["filtered_steps"].as_u64().unwrap() > 0, "{rep}");
    // ... and the early GC kept free blocks above T_GC for most of the run.
    assert!(rep["capped_decisions"].as_u64().unwrap() > 0, "{rep}");
    let hist = rep["action_histogram"].as_array().unwrap();
    assert_eq!(hist.len(), 7);
    // Read-initiated triggering: every request, read or write, reaches the trigger (it is then
    // a decision, untriggered above T_GC^A, or skipped for a zero interval; intensive GC, the
    // one other way out, never starts here), so the scheduler accounts for all 40,000 requests,
    // and the reads add decisions beyond the workload's writes (counted from its generator).
    let writes = generated_writes(&config("kang-3d-128gb", &toml, &[]));
    assert_eq!(r.workload.writes, writes, "the run replayed the generated workload");
    assert_eq!(rep["intensive"]["entries"], 0, "{rep}");
    assert_eq!(considered(rep), 40_000, "{rep}");
    assert!(rep["decisions"].as_u64().unwrap() > writes, "{rep}");
    assert!(r.device.free_blocks_at_end > 10, "free blocks at end {}", r.device.free_blocks_at_end);

    // Base RLGC with the same settings never filters victims and ignores reads: it accounts for
    // exactly the writes, and takes decisions.
    let r = run(config("kang-3d-128gb", &toml.replace("rlgc_aggressive", "rlgc"), &[]));
    let rep = &r.policies.gc_scheduler_report;
    assert_eq!(r.gc.filtered_victims_chosen, 0);
    assert_eq!(rep["intensive"]["entries"], 0, "{rep}");
    assert_eq!(considered(rep), writes, "{rep}");
    assert!(rep["decisions"].as_u64().unwrap() > 1000, "{rep}");
}

/// Requests an RLGC-family scheduler accounted for at arrival, outside intensive GC.
fn considered(rep: &serde_json::Value) -> u64 {
    ["decisions", "untriggered_requests", "skipped_zero_interval"].iter().map(|k| rep[k].as_u64().unwrap()).sum()
}

/// The writes of a synthetic workload, counted by running its generator on the run's own
/// seeded stream, without simulating anything.
fn generated_writes(cfg: &ValidatedConfig) -> u64 {
    let space_bytes = cfg.used_logical_pages() as u64 * cfg.device.page_bytes;
    let rng = rng_for(cfg.seed, RngStream::Workload);
    SyntheticSource::new(&cfg.workload, space_bytes, cfg.workload.count, rng).filter(|r| r.op == IoOp::Write).count()
        as u64
}

#[test]
fn learning_schedulers_are_deterministic() {
    let toml = "[gc]\ntrigger_free_blocks = 12\n[warmup]\nfill = true\n\
                [workload]\nrw = \"randrw\"\nrwmixread = 30\narrival = \"onoff\"\nrate_iops = 1000.0\n\
                on_ns = 20_000_000\noff_ns = 30_000_000\ncount = 15000\n";
    for scheduler in ["rlgc", "rlgc_aggressive", "rlgc_qtc", "predictor"] {
        let set = format!("gc.scheduler={scheduler}");
        let a = run(config("tiny", toml, &["seed=5", &set])).to_json();
        let b = run(config("tiny", toml, &["seed=5", &set])).to_json();
        assert_eq!(a, b, "{scheduler}");
    }
}
