//! Outside agents (`ssdlab_core::decision`): a run driven decision by decision through
//! `Simulation::attach` / `advance` / `act`.

use ssdlab_core::decision::{Decision, DecisionKind, DecisionSpace};
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
fn driven(cfg: ValidatedConfig, choose: impl FnMut(&Decision) -> u32) -> (Report, u64) {
    driven_on(&[DecisionKind::GcScheduler], cfg, choose)
}

/// Run `cfg` with an outside agent on each of `kinds` that takes `choose(decision)`, checking
/// every decision against its kind's space; the report and the number of decisions.
fn driven_on(kinds: &[DecisionKind], cfg: ValidatedConfig, mut choose: impl FnMut(&Decision) -> u32) -> (Report, u64) {
    let mut sim = Simulation::new(cfg).unwrap();
    let spaces: Vec<DecisionSpace> = kinds.iter().map(|&k| sim.attach(k).unwrap()).collect();
    let mut decisions = 0;
    while let Some(d) = sim.advance().unwrap() {
        let space = spaces.iter().find(|s| s.kind == d.kind).expect("a decision of an attached kind");
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
        let (replayed, decisions) = driven(rlgc(scheduler, ""), |d| {
            assert_eq!(d.observation.len(), 4);
            d.builtin_action
        });
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

/// The RL-SLC drive cut small (256 blocks of 256 pages, 20 % spare: RLGC's GC needs more than
/// the preset's 3 % on so small a drive), a step every 2 SLC blocks of writes,
/// size steps of 8 blocks, mixed reads and writes of 64 KiB, verify on; `gc` the GC scheduler.
fn rl_slc(gc: &str, extra: &str) -> ValidatedConfig {
    rl_slc_with(gc, extra, &[])
}

/// `rl_slc` with `overrides` on top.
fn rl_slc_with(gc: &str, extra: &str, overrides: &[&str]) -> ValidatedConfig {
    let toml = format!(
        "verify = true\n[device]\nblocks_per_plane = 256\npages_per_block = 256\noverprovisioning = 0.2\n\
         [gc]\nscheduler = \"{gc}\"\n[slc.rl]\nstep_slc_blocks = 2\nsize_step_blocks = 8\n\
         [workload]\nrw = \"randrw\"\nrwmixread = 30\nbs = 65536\ncount = 6000\n{extra}"
    );
    config("yoo-hybrid-qlc", &toml, &[&["seed=3"], overrides].concat())
}

#[test]
fn replaying_the_slc_agents_own_steps_gives_its_report_byte_for_byte() {
    // The step is taken at the arrival of the write that crosses the step boundary, before
    // anything is done for it, in both modes: with region-wide GC (RLGC, which decides at that
    // arrival too) as with per-plane GC (greedy).
    for gc in ["greedy", "rlgc"] {
        let alone = run(rl_slc(gc, ""));
        let (replayed, decisions) = driven_on(&[DecisionKind::SlcPolicy], rl_slc(gc, ""), |d| d.builtin_action);
        let steps = alone.policies.region_report["steps"].as_u64().unwrap();
        assert!(steps > 100 && decisions == steps, "{gc}: {decisions} decisions, {steps} steps");
        assert_eq!(
            serde_json::to_string(&replayed).unwrap(),
            serde_json::to_string(&alone).unwrap(),
            "{gc}: the replay's report differs"
        );
        assert!(replayed.verify.final_scan_passed && replayed.verify.reads_checked > 0);
    }
}

#[test]
fn an_slc_agent_that_always_grows_the_region_gets_the_largest_one() {
    // Action 8: size up, threshold up, at every step.
    let (grown, _) = driven_on(&[DecisionKind::SlcPolicy], rl_slc("greedy", ""), |_| 8);
    let (shrunk, _) = driven_on(&[DecisionKind::SlcPolicy], rl_slc("greedy", ""), |_| 0);
    let r = |report: &Report, key: &str| report.policies.region_report[key].clone();
    assert_eq!(r(&grown, "slc_blocks_wanted"), r(&grown, "slc_blocks_range")[1]);
    assert_eq!(r(&shrunk, "slc_blocks_wanted"), r(&shrunk, "slc_blocks_range")[0]);
    assert_eq!(r(&grown, "threshold_bytes").as_u64(), Some(512 * 1024));
    assert_eq!(r(&shrunk, "threshold_bytes").as_u64(), Some(4 * 1024));
    let histogram = r(&grown, "agent")["action_histogram"].clone();
    assert_eq!(histogram.as_array().unwrap()[8].as_u64(), grown.policies.region_report["steps"].as_u64());
    assert!(grown.verify.final_scan_passed && shrunk.verify.final_scan_passed);
}

/// The FSP paper's QLC drive cut small (2 channels of 64 blocks of 256 pages), a 1 MiB write
/// buffer with `eviction`, mixed 16 KiB reads and writes, verify on.
fn fsp(eviction: &str) -> ValidatedConfig {
    let toml = format!(
        "verify = true\n[device]\nchannels = 2\nchips_per_channel = 1\nblocks_per_plane = 64\npages_per_block = 256\n\
         overprovisioning = 0.2\n[gc]\ntrigger_free_blocks = 8\n[cache]\ncapacity = \"1MiB\"\neviction = \"{eviction}\"\n\
         [workload]\nrw = \"randrw\"\nrwmixread = 50\nbs = 16384\ncount = 8000\n"
    );
    config("li-qlc-fsp", &toml, &["seed=2"])
}

#[test]
fn page_types_from_an_outside_agent_form_the_units() {
    let eviction = |r: &Report, key: &str| r.policies.eviction_report[key].as_u64().unwrap();
    // Every page LSB: each unit takes its LSB page by class and substitutes the other three.
    let (all_lsb, decisions) = driven_on(&[DecisionKind::CacheEviction], fsp("rl_fsp"), |d| {
        assert_eq!(d.mask, [true; 4]);
        0
    });
    let outside = &all_lsb.policies.eviction_report["outside_agent"];
    assert_eq!(outside["classes_asked"].as_u64(), Some(decisions));
    assert!(decisions > 1000, "{decisions}");
    let units = eviction(&all_lsb, "units");
    assert!(units > 500, "{units}");
    // Only units of fewer candidates than types (the end-of-run flush) substitute less.
    assert!(eviction(&all_lsb, "substitutions") >= 3 * units - 12, "{}", all_lsb.policies.eviction_report);
    // Types in turn: the candidates near the tail have every type, and substitutes are rare.
    let mut next = 0;
    let (in_turn, _) = driven_on(&[DecisionKind::CacheEviction], fsp("rl_fsp"), |_| {
        next = (next + 1) % 4;
        next
    });
    assert!(eviction(&in_turn, "substitutions") * 4 < units, "{}", in_turn.policies.eviction_report);
    // A page is asked before any event that can evict it: the Q-table stands in (almost) never.
    let fallback = outside["classes_fallback"].as_u64().unwrap();
    assert!(fallback * 100 <= decisions, "{fallback} of {decisions}");
    assert!(all_lsb.verify.final_scan_passed && all_lsb.verify.reads_checked > 0);
}

#[test]
fn outside_agents_on_page_types_and_slc_steps_of_one_device_with_verify() {
    // A hybrid QLC drive with a write buffer: RL-FSP's page types and RL-SLC's steps both from
    // outside (random actions), GC on its own policy; verify on.
    let extra = "[cache]\ncapacity = \"512KiB\"\neviction = \"rl_fsp\"\n";
    let kinds = [DecisionKind::CacheEviction, DecisionKind::SlcPolicy];
    let mut seen = std::collections::BTreeMap::new();
    let mut rng = 0x9e37_79b9_u32;
    let (report, _) = driven_on(&kinds, rl_slc("greedy", extra), |d| {
        *seen.entry(d.kind.key()).or_insert(0u64) += 1;
        rng ^= rng << 13;
        rng ^= rng >> 17;
        rng ^= rng << 5;
        rng % d.mask.len() as u32
    });
    assert!(seen.len() == 2 && seen.values().all(|&n| n > 100), "{seen:?}");
    assert!(report.verify.final_scan_passed && report.verify.reads_checked > 0);
}

#[test]
fn eviction_and_slc_decisions_are_refused_where_the_policy_has_none() {
    let err = |cfg: ValidatedConfig, kind| Simulation::new(cfg).unwrap().attach(kind).unwrap_err().to_string();
    let lru = err(fsp("lru"), DecisionKind::CacheEviction);
    assert!(lru.contains("`lru` has no decision point") && lru.contains("rl_fsp"), "{lru}");
    let unbuffered = err(rlgc("rlgc", ""), DecisionKind::CacheEviction);
    assert!(unbuffered.contains("no write buffer"), "{unbuffered}");
    let dwa = err(config("yoo-hybrid-qlc", "[slc]\npolicy = \"dwa\"\n", &[]), DecisionKind::SlcPolicy);
    assert!(dwa.contains("`dwa` has no decision point") && dwa.contains("rl"), "{dwa}");
}
