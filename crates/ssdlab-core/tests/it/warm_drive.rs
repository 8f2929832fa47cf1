//! A warmed-up drive shared by several runs (`Simulation::warm_drive`, `start_from`): a run that
//! starts from it reports, byte for byte, what it reports after its own warm-up, for policies
//! whose state is a learned model, a Q-table or a cache; and a drive made with another
//! configuration is refused.

use crate::common::{config, page_request, Scripted};
use ssdlab_core::workload::{IoOp, TraceRecord};
use ssdlab_core::{Simulation, ValidatedConfig};

/// A small drive, a timed warm-up of random writes and the untimed steps before it, verify on.
const DRIVE: &str = "[warmup]\nfill = true\nrandom_writes = 0.5\ntimed_random_writes_ns = 1_000_000_000\n\
                     timed_queue_depth = 8\n";

fn cfg(extra: &[&str]) -> ValidatedConfig {
    let mut keys = vec!["verify=true", "seed=5"];
    keys.extend_from_slice(extra);
    config("tiny", DRIVE, &keys)
}

fn straight(cfg: ValidatedConfig) -> String {
    Simulation::new(cfg).unwrap().run().unwrap().to_json()
}

fn from(drive: &ssdlab_core::sim::WarmDrive, cfg: ValidatedConfig) -> String {
    let mut sim = Simulation::new(cfg).unwrap();
    sim.start_from(drive).unwrap();
    sim.run().unwrap().to_json()
}

/// Measured workloads that differ in pattern, size, depth and count, none of them the warm-up's.
const WORKLOADS: [&[&str]; 3] = [
    &["workload.rw=randread", "workload.count=4000", "workload.iodepth=4"],
    &["workload.rw=read", "workload.count=3000", "workload.bs=16k"],
    &["workload.rw=randrw", "workload.count=5000", "workload.iodepth=2"],
];

fn same_as_straight(policy: &[&str]) {
    let mut warming = Simulation::new(cfg(&[policy, WORKLOADS[0]].concat())).unwrap();
    let drive = warming.warm_drive().unwrap();
    assert!(drive.warmup().timed_programs > 1000, "the timed warm-up ran: {:?}", drive.warmup());
    for workload in WORKLOADS {
        let keys = [policy, workload].concat();
        assert_eq!(from(&drive, cfg(&keys)), straight(cfg(&keys)), "{keys:?}");
    }
    // The run that made the drive goes on to its own workload as if nothing had been taken.
    let own = warming.run().unwrap().to_json();
    assert_eq!(own, straight(cfg(&[policy, WORKLOADS[0]].concat())));
}

#[test]
fn page_mapping_with_greedy_gc() {
    same_as_straight(&[]);
}

#[test]
fn learnedftl_with_its_models_and_group_gc() {
    same_as_straight(&[
        "ftl.mapping=learned",
        "ftl.placement=group",
        "gc.victim=group",
        "ftl.learned.cmt_bytes=2048",
        "ftl.translation_entry_bytes=128",
    ]);
}

#[test]
fn tpftl_with_its_cache() {
    same_as_straight(&["ftl.mapping=tpftl", "ftl.tpftl.cmt_bytes=2048", "ftl.translation_entry_bytes=128"]);
}

#[test]
fn rlgc_with_its_q_table_and_random_stream() {
    same_as_straight(&["gc.scheduler=rlgc", "gc.rlgc.policy=stochastic"]);
}

#[test]
fn a_drive_made_with_another_configuration_is_refused() {
    let drive = Simulation::new(cfg(WORKLOADS[0])).unwrap().warm_drive().unwrap();
    for (other, table) in [
        (&["gc.victim=fifo"][..], "gc"),
        (&["seed=6"][..], "seed"),
        (&["warmup.timed_random_writes_ns=10000000"][..], "warmup"),
    ] {
        let mut sim = Simulation::new(cfg(&[WORKLOADS[0], other].concat())).unwrap();
        let e = sim.start_from(&drive).unwrap_err().to_string();
        assert!(e.contains("another configuration") && e.contains(table), "{other:?}: {e}");
    }
}

#[test]
fn a_run_that_began_neither_gives_nor_takes_a_warm_drive() {
    let mut sim = Simulation::new(cfg(WORKLOADS[0])).unwrap();
    let drive = sim.warm_drive().unwrap();
    sim.step(10).unwrap();
    assert!(sim.warm_drive().is_err());
    assert!(sim.start_from(&drive).is_err());
}

/// The warm-up figures of a report (pages written, timed requests, erases).
fn warmup_of(report: &str) -> serde_json::Value {
    serde_json::from_str::<serde_json::Value>(report).unwrap()["warmup"].clone()
}

#[test]
fn a_warm_up_seed_lets_runs_of_every_seed_share_one_drive() {
    // `warmup.seed` draws the warm-up, `seed` the measured run: one drive, made by a run of
    // seed 5, serves runs of seeds 6 and 7 byte for byte as their own warm-ups would.
    let policy = ["gc.scheduler=rlgc", "gc.rlgc.policy=stochastic", "warmup.seed=11"];
    let keys = |seed: &'static str| [&policy[..], WORKLOADS[2], &[seed]].concat();
    let drive = Simulation::new(cfg(&keys("seed=5"))).unwrap().warm_drive().unwrap();
    let mut reports = Vec::new();
    for seed in ["seed=5", "seed=6", "seed=7"] {
        let report = from(&drive, cfg(&keys(seed)));
        assert_eq!(report, straight(cfg(&keys(seed))), "{seed}");
        reports.push(report);
    }
    // The drive is the same for every seed, the measured workload is not.
    assert_eq!(warmup_of(&reports[0]), warmup_of(&reports[1]));
    assert_ne!(reports[0], reports[1]);
    // Another warm-up seed is another drive, and a run of another warm-up seed refuses it.
    let twelve = [&policy[..2], WORKLOADS[2], &["seed=5", "warmup.seed=12"]].concat();
    let other = Simulation::new(cfg(&twelve)).unwrap().warm_drive().unwrap();
    assert_ne!(from(&other, cfg(&twelve)), reports[0]);
    let mut sim = Simulation::new(cfg(&keys("seed=5"))).unwrap();
    let e = sim.start_from(&other).unwrap_err().to_string();
    assert!(e.contains("another configuration") && e.contains("warmup"), "{e}");
}

/// 6,000 one-page writes scattered over the used space, the same whatever the seed.
fn scattered_writes(cfg: &ValidatedConfig) -> Vec<TraceRecord> {
    let (used, page_bytes) = (cfg.used_logical_pages() as u64, cfg.device.page_bytes);
    (0..6000u64).map(|i| page_request(i * 1000, IoOp::Write, i * 7919 % used, 1, page_bytes)).collect()
}

#[test]
fn with_a_warm_up_seed_the_run_seed_still_draws_the_policies_streams() {
    // A scripted workload draws no random number: what differs between the two seeds is
    // RLGC's stochastic policy, drawn afresh from the run's seed after the shared warm-up.
    let keys = |seed: &'static str| {
        let rlgc = ["gc.scheduler=rlgc", "gc.rlgc.policy=stochastic", "gc.rlgc.zero_interval=same_arrival"];
        cfg(&[&rlgc[..], &["gc.trigger_free_blocks=12", "warmup.seed=11", seed]].concat())
    };
    let drive = Simulation::new(keys("seed=5")).unwrap().warm_drive().unwrap();
    let run = |seed: &'static str| {
        let cfg = keys(seed);
        let mut sim = Simulation::with_source(cfg.clone(), Scripted::boxed(scattered_writes(&cfg))).unwrap();
        sim.start_from(&drive).unwrap();
        serde_json::to_value(sim.run().unwrap()).unwrap()
    };
    let (five, six) = (run("seed=5"), run("seed=6"));
    assert_eq!(five["warmup"], six["warmup"]);
    let decisions = |r: &serde_json::Value| r["policies"]["gc_scheduler_report"]["decisions"].as_u64().unwrap();
    assert!(decisions(&five) > 100, "{}", decisions(&five));
    let histogram = |r: &serde_json::Value| r["policies"]["gc_scheduler_report"]["action_histogram"].clone();
    assert_ne!(histogram(&five), histogram(&six));
}
