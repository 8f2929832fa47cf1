//! Verify mode over the policy catalog: every registered policy of every seam runs a short
//! write-heavy workload with GC under way and verify on, its companions chosen from the
//! registries' capabilities (`Entry::caps`), never from a list here. A policy is covered the
//! moment it is registered; one that needs what its capabilities do not say fails here with
//! its id and the reason.
//!
//! Each policy runs on the tiny QLC drive of `verify_matrix` (filled before the run), under
//! the generator's 6 KiB random writes with 20 % reads (partial pages, unaligned offsets),
//! 3,000 requests arriving in 20 ms bursts at 4,000 IOPS with 10 ms of silence between (so
//! idle-time work has time to run). Besides its plain run, a learner runs as its random-action control, a GC
//! scheduler with idle work runs with `gc.background = "idle"`, a victim policy that selects
//! lines runs under a placement that allocates lines, and a transaction scheduler that puts
//! host work first also runs with read suspension.

use ssdlab_core::config::Layer;
use ssdlab_core::device::scheduler::registry::REGISTRY as TRANSACTIONS;
use ssdlab_core::ftl::gc::scheduler::{SchedulerCaps, REGISTRY as SCHEDULERS};
use ssdlab_core::ftl::gc::victim::{Collects, VictimCaps, REGISTRY as VICTIMS};
use ssdlab_core::ftl::placement::registry::{Allocates, PlacementCaps, REGISTRY as PLACEMENTS};
use ssdlab_core::ftl::region::registry::{RegionCaps, SlcRegion, REGISTRY as REGIONS};
use ssdlab_core::ftl::{cache, mapping};
use ssdlab_core::registry::Entry;
use ssdlab_core::{load_config, Simulation};

use crate::verify_matrix::DEVICE;

/// The workload over `verify_matrix`'s drive (2 channels x 2 planes x 32 blocks x 32 pages of
/// QLC, 25 % over-provisioning, filled before the run).
const WORKLOAD: &str = "[workload]\nrw = \"randrw\"\nrwmixread = 20\nbs = 6144\ncount = 3000\n\
     arrival = \"onoff\"\nrate_iops = 4000.0\non_ns = 20_000_000\noff_ns = 10_000_000\n\
     [idle]\ngap_ns = 200_000\n";

/// A 16-page write buffer: room for a QLC wordline (4 pages) several times over.
const BUFFER: &str = "[cache]\ncapacity = 65536\n";

/// The first registered id whose capabilities pass `keep`.
fn first<B, C>(registry: &[Entry<B, C>], keep: impl Fn(&C) -> bool) -> &'static str {
    registry.iter().find(|e| keep(&e.caps)).map(|e| e.id).expect("a registered policy with that capability")
}

/// The layers a placement needs from its companions: the GC scope, a buffer, a victim policy
/// that collects what it allocates.
fn placement_layers(caps: &PlacementCaps) -> Vec<String> {
    let mut layers = Vec::new();
    if caps.plane_bound {
        layers.push("[gc]\nscope = \"plane\"\n".into());
    }
    if caps.fills_wordlines {
        layers.push(BUFFER.into());
    }
    let collects = match caps.allocates {
        Allocates::Blocks => None,
        Allocates::Lines => Some(Collects::BlocksOrLines),
        Allocates::Groups => Some(Collects::Groups),
    };
    if let Some(collects) = collects {
        let victim = first(VICTIMS, |c: &VictimCaps| c.collects == collects);
        layers.push(format!("[gc]\nvictim = \"{victim}\"\n"));
    }
    layers
}

/// The layers a victim policy needs: a placement whose allocation it collects.
fn victim_layers(caps: &VictimCaps) -> Vec<String> {
    match caps.collects {
        Collects::Blocks | Collects::BlocksOrLines => Vec::new(),
        Collects::Groups => {
            let placement = first(PLACEMENTS, |c: &PlacementCaps| c.allocates == Allocates::Groups);
            vec![format!("[ftl]\nplacement = \"{placement}\"\n")]
        }
    }
}

/// The layers an SLC policy needs: a fixed region's blocks and threshold (`verify_matrix`'s).
fn region_layers(caps: &RegionCaps) -> Vec<String> {
    match caps.region {
        SlcRegion::None | SlcRegion::Sized => Vec::new(),
        SlcRegion::Fixed => vec!["[slc]\nblocks = 12\nthreshold_bytes = 16384\ntrigger_free_blocks = 2\n".into()],
    }
}

/// The runs the catalog asks for: (label, layers), the policy's own layer last.
fn runs() -> Vec<(String, Vec<String>)> {
    let mut runs = Vec::new();
    let mut add = |label: String, mut layers: Vec<String>, own: String| {
        layers.push(own);
        runs.push((label, layers));
    };
    for e in mapping::registry::REGISTRY {
        add(format!("ftl.mapping = {}", e.id), Vec::new(), format!("[ftl]\nmapping = \"{}\"\n", e.id));
    }
    for e in PLACEMENTS {
        add(
            format!("ftl.placement = {}", e.id),
            placement_layers(&e.caps),
            format!("[ftl]\nplacement = \"{}\"\n", e.id),
        );
    }
    for e in VICTIMS {
        let own = format!("[gc]\nvictim = \"{}\"\n", e.id);
        add(format!("gc.victim = {}", e.id), victim_layers(&e.caps), own.clone());
        if e.caps.collects == Collects::BlocksOrLines {
            let lines = first(PLACEMENTS, |c: &PlacementCaps| c.allocates == Allocates::Lines);
            add(
                format!("gc.victim = {} on {lines} placement", e.id),
                vec![format!("[ftl]\nplacement = \"{lines}\"\n")],
                own,
            );
        }
    }
    for e in cache::registry::REGISTRY {
        let own = format!("[cache]\neviction = \"{}\"\n", e.id);
        add(format!("cache.eviction = {}", e.id), vec![BUFFER.into()], own.clone());
        if e.caps.learns {
            let control = vec![BUFFER.into(), "[cache.page_type_eviction]\nrandom_control = true\n".into()];
            add(format!("cache.eviction = {}, random control", e.id), control, own);
        }
    }
    for e in REGIONS {
        let own = format!("[slc]\npolicy = \"{}\"\n", e.id);
        add(format!("slc.policy = {}", e.id), region_layers(&e.caps), own.clone());
        if e.caps.caps_size {
            // Unset, `slc.region` is `shared` (the run above); the other two set.
            for region in ["reserved", "cap"] {
                let mut layers = region_layers(&e.caps);
                layers.push(format!("[slc]\nregion = \"{region}\"\n"));
                add(format!("slc.policy = {}, slc.region = {region}", e.id), layers, own.clone());
            }
        }
        if e.caps.learns {
            let mut control = region_layers(&e.caps);
            control.push("[slc.rl]\nrandom_control = true\n".into());
            add(format!("slc.policy = {}, random control", e.id), control, own);
        }
    }
    // The aggressive triggering's T_GC^A must be reachable on this small drive.
    let aggressive = "[gc.rlgc]\naggressive_trigger_free_blocks = 8\n";
    for e in SCHEDULERS {
        let caps: &SchedulerCaps = &e.caps;
        let own = format!("[gc]\nscheduler = \"{}\"\n", e.id);
        add(format!("gc.scheduler = {}", e.id), vec![aggressive.into()], own.clone());
        if caps.idle_work {
            let idle = vec![aggressive.into(), "[gc]\nbackground = \"idle\"\n".into()];
            add(format!("gc.scheduler = {}, idle GC", e.id), idle, own.clone());
        }
        if caps.learns {
            let control = vec![aggressive.into(), "[gc.rlgc]\nrandom_control = true\n".into()];
            add(format!("gc.scheduler = {}, random control", e.id), control, own);
        }
    }
    // Background work to order: GC in partial steps after writes.
    let partial = first(SCHEDULERS, |c: &SchedulerCaps| !c.blocking);
    let background = format!("[gc]\nscheduler = \"{partial}\"\n");
    for e in TRANSACTIONS {
        let own = format!("[transaction_scheduler]\npolicy = \"{}\"\n", e.id);
        add(
            format!("transaction_scheduler.policy = {}", e.id),
            vec![aggressive.into(), background.clone()],
            own.clone(),
        );
        if e.caps.host_first {
            let suspend = "[transaction_scheduler]\nsuspend_ns = 20_000\nresume_ns = 5_000\n".into();
            let layers = vec![aggressive.into(), background.clone(), suspend];
            add(format!("transaction_scheduler.policy = {}, read suspension", e.id), layers, own);
        }
    }
    runs
}

#[test]
fn every_registered_policy_runs_with_verify_on() {
    let runs = runs();
    let policies: usize = [
        mapping::registry::REGISTRY.len(),
        PLACEMENTS.len(),
        VICTIMS.len(),
        cache::registry::REGISTRY.len(),
        REGIONS.len(),
        SCHEDULERS.len(),
        TRANSACTIONS.len(),
    ]
    .iter()
    .sum();
    assert!(runs.len() > policies, "every policy runs at least once");
    for (label, layers) in runs {
        let drive = [DEVICE, WORKLOAD];
        let layers: Vec<Layer> =
            drive.into_iter().chain(layers.iter().map(String::as_str)).map(Layer::inline).collect();
        let cfg = load_config(Some("tiny"), &layers, &[]).unwrap_or_else(|e| panic!("[{label}] config refused: {e}"));
        let report = Simulation::new(cfg)
            .and_then(|mut sim| sim.run())
            .unwrap_or_else(|e| panic!("[{label}] the run failed: {e}"));
        assert!(report.verify.enabled && report.verify.final_scan_passed, "[{label}] final scan");
        assert!(report.verify.reads_checked > 0, "[{label}] no read was checked");
        assert!(report.wear.erases > 0, "[{label}] GC never erased a block");
        if label.ends_with("idle GC") {
            assert!(report.gc.idle_steps > 0, "[{label}] no idle-time GC step");
        }
        // Each run by name (with --nocapture): docs/adding-a-policy.md's test looks for its own.
        eprintln!("[{label}] verified: {} erases, {} reads checked", report.wear.erases, report.verify.reads_checked);
    }
}

/// Every settings table a policy declares in its registry line (`registry::Settings`) is
/// claimed by the loader, documented in the JSON Schema at its path, echoed at its path by
/// `to_toml`, and checked: an unknown key in it is refused with its full name.
#[test]
fn catalog_verify_every_policy_settings_table_is_claimed_documented_and_checked() {
    let settings = ssdlab_core::catalog::policy_settings();
    assert!(!settings.is_empty(), "no registered policy declares settings");
    let schema = ssdlab_core::config_schema();
    for s in settings {
        // Documented: the seam's table (through its definition) has the policy's table.
        let (parent, name) = s.table.rsplit_once('.').expect("a table under its seam's");
        let mut node = &schema;
        for part in parent.split('.') {
            node = &node["properties"][part];
            if let Some(reference) = node["$ref"].as_str().or(node["allOf"][0]["$ref"].as_str()) {
                node = &schema["definitions"][reference.rsplit('/').next().unwrap()];
            }
        }
        assert!(node["properties"][name]["properties"].is_object(), "{} missing from the schema", s.table);
        // Claimed and echoed: an empty table loads, and the resolved config writes it back.
        let (head, tail) = s.table.split_once('.').expect("dotted");
        let layer = Layer::inline(format!("[{head}.{tail}]\n"));
        let cfg =
            load_config(Some("tiny"), std::slice::from_ref(&layer), &[]).unwrap_or_else(|e| panic!("{}: {e}", s.table));
        let echoed = ssdlab_core::config::to_toml(cfg.config());
        assert!(echoed.contains(&format!("[{}]", s.table)) && !echoed.contains("policy_tables"), "{echoed}");
        // Checked: an unknown key is named in full.
        let bad = Layer::inline(format!("[{head}.{tail}]\nno_such_setting = 1\n"));
        let err = load_config(Some("tiny"), &[bad], &[]).expect_err("unknown key accepted").to_string();
        assert!(err.contains(&format!("{}.no_such_setting", s.table)), "{err}");
        // Each table by name (with --nocapture): docs/adding-a-policy.md's test looks for its own.
        eprintln!("[{}] settings claimed, documented, echoed and checked", s.table);
    }
}
