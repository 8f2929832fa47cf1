//! Outside agents (`ssdlab_core::decision`): a run driven decision by decision through
//! `Simulation::attach` / `advance` / `act`.

use ssdlab_core::decision::{DecisionKind, DecisionSpace};
use ssdlab_core::{Report, Simulation, ValidatedConfig};

use crate::common::{config, run};

const WARM: &str = "[warmup]\nfill = true\nrandom_writes = 0.5\n";

/// RLGC on the tiny drive, GC under way from the start (a filled drive, T_GC = 12), open-loop
/// bursts with idle gaps between them (RLGC decides only after a gap: Alg. 1 lines 3-5),
/// verify on; `extra` TOML appended.
fn rlgc(scheduler: &str, extra: &str) -> ValidatedConfig {
    let toml = format!(
        "verify = true\n{WARM}[gc]\nscheduler = \"{scheduler}\"\ntrigger_free_blocks = 12\n\
         [workload]\nrw = \"randrw\"\nrwmixread = 30\narrival = \"onoff\"\nrate_iops = 1000.0\n\
         on_ns = 20_000_000\noff_ns = 30_000_000\ncount = 15000\n{extra}"
    );
    config("tiny", &toml, &["seed=5"])
}

/// Run `cfg` with an outside agent on GC that takes `choose(decision)`; the report and the
/// number of decisions.
fn driven(cfg: ValidatedConfig, mut choose: impl FnMut(&ssdlab_core::decision::Decision) -> u32) -> (Report, u64) {
    let mut sim = Simulation::new(cfg).unwrap();
    let space: DecisionSpace = sim.attach(DecisionKind::GcScheduler).unwrap();
    assert_eq!(space.features.len(), 4);
    let mut decisions = 0;
    while let Some(d) = sim.advance().unwrap() {
        assert_eq!(d.observation.len(), space.features.len());
        assert_eq!(d.mask.len() as u32, space.actions);
        for (v, f) in d.observation.iter().zip(&space.features) {
            assert!((f.low..=f.high).contains(v), "{} = {v} outside [{}, {}]", f.name, f.low, f.high);
        }
        sim.act(choose(&d)).unwrap();
        decisions += 1;
    }
    (sim.report(), decisions)
}

#[test]
fn replaying_the_tabular_agents_own_actions_gives_its_report_byte_for_byte() {
    for scheduler in ["rlgc", "rlgc_aggressive"] {
        let alone = run(rlgc(scheduler, ""));
        let (replayed, decisions) = driven(rlgc(scheduler, ""), |d| d.builtin_action);
        assert!(decisions > 100, "{scheduler}: {decisions} decisions");
        assert_eq!(
            serde_json::to_string(&replayed).unwrap(),
            serde_json::to_string(&alone).unwrap(),
            "{scheduler}: the replay's report differs"
        );
        assert!(replayed.verify.final_scan_passed);
    }
}

#[test]
fn an_outside_agent_changes_the_run_and_keeps_the_data() {
    // Always the fewest copies allowed: GC falls behind, intensive mode takes over more often.
    let alone = run(rlgc("rlgc", ""));
    let (lazy, decisions) = driven(rlgc("rlgc", ""), |d| d.mask.iter().position(|&ok| ok).unwrap() as u32);
    assert!(decisions > 100);
    assert!(lazy.verify.final_scan_passed && lazy.verify.reads_checked > 0);
    assert_ne!(serde_json::to_string(&lazy).unwrap(), serde_json::to_string(&alone).unwrap());
    let histogram = lazy.policies.gc_scheduler_report["action_histogram"].as_array().unwrap().clone();
    assert!(histogram[1..].iter().all(|v| v.as_u64() == Some(0)), "{histogram:?}");
}

#[test]
fn an_agent_on_gc_beside_a_buffer_and_an_slc_cache_on_their_own_policies() {
    // A composed device: write buffer (its own eviction), hybrid SLC region (its own policy),
    // an outside agent on GC; verify on.
    let extra = "[cache]\ncapacity = \"256KiB\"\n[slc]\npolicy = \"dwa\"\n";
    let (report, decisions) = driven(rlgc("rlgc", extra), |d| d.builtin_action);
    assert!(decisions > 0);
    assert!(report.verify.final_scan_passed && report.verify.reads_checked > 0);
}

#[test]
fn bad_actions_and_policies_without_a_decision_point_are_refused() {
    let mut sim = Simulation::new(rlgc("rlgc", "")).unwrap();
    sim.attach(DecisionKind::GcScheduler).unwrap();
    assert_eq!(sim.act(0).unwrap_err().to_string(), "no decision is waiting for an action (advance first)");
    let d = sim.advance().unwrap().expect("a decision");
    let n = d.mask.len() as u32;
    assert_eq!(sim.act(n).unwrap_err().to_string(), format!("action {n} is out of range: gc.scheduler takes 0..{n}"));
    // The refused action left the decision waiting: the same one comes back.
    assert_eq!(sim.advance().unwrap(), Some(d.clone()));
    sim.act(d.builtin_action).unwrap();

    let mut greedy = Simulation::new(rlgc("greedy", "")).unwrap();
    let err = greedy.attach(DecisionKind::GcScheduler).unwrap_err().to_string();
    assert!(err.contains("`greedy` has no decision point") && err.contains("rlgc"), "{err}");
    let mut alone = Simulation::new(rlgc("rlgc", "")).unwrap();
    assert!(alone.advance().unwrap_err().to_string().contains("no decision kind is attached"));
}
