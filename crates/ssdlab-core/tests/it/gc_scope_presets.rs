//! Every device preset under every GC scope (`gc.scope`): either the load refuses it, naming
//! the key, or a short verify run with GC under way passes, at a sane (data) WAF under plane
//! scope. What the load says
//! must match the table of supported scopes in docs/policies/gc.md, so the table cannot go
//! stale.
//!
//! A sane WAF is at most greedy cleaning's worst case: a greedy victim holds at most the average
//! valid share of the domain's sealed blocks, and when GC runs those are every block but the
//! target free blocks of each GC domain and, per plane, two open blocks and the block GC keeps in
//! reserve for its relocations, so WAF <= 1 / (1 - u) with
//! u = used logical pages / the pages of those blocks. GC that never reaches its target (the
//! plane-scope configs #47 found: WAF 47 on `tiny`, about 965 on `li-qlc-fsp`) has no such
//! room: u >= 1, and the load refuses it.

use ssdlab_core::config::{presets, Layer};
use ssdlab_core::Simulation;

/// Fill, a fifth of the drive in random page writes untimed, then 5,000 random page writes
/// measured, with verify on.
const WORKLOAD: &str = "verify = true\n[workload]\nrw = \"randwrite\"\nbs = \"4k\"\ncount = 5000\n\
     [warmup]\nfill = true\nrandom_writes = 0.2\n";

/// Plane scope runs on one chip of the preset (each plane's budget, what plane-scope GC
/// depends on, is the same), measuring 8 blocks' worth of writes per plane, so every plane's GC
/// runs whatever the preset's size.
fn one_chip(preset: &str, cfg: &ssdlab_core::ValidatedConfig) -> ssdlab_core::ValidatedConfig {
    let d = &cfg.device;
    let planes = (d.dies_per_chip * d.planes_per_die) as u64;
    let count = 8 * planes * d.pages_per_block as u64;
    let extra =
        ["device.channels=1".to_string(), "device.chips_per_channel=1".to_string(), format!("workload.count={count}")];
    load(preset, "plane", &extra).unwrap()
}

/// The supported scopes per preset from docs/policies/gc.md's table: (preset, region, plane).
fn documented() -> Vec<(String, bool, bool)> {
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/policies/gc.md")).unwrap();
    let table = doc.split("<!-- scopes per preset -->").nth(1).expect("docs/policies/gc.md has the scope table");
    table
        .lines()
        .skip_while(|line| !line.starts_with("| `"))
        .take_while(|line| line.starts_with("| `"))
        .map(|line| {
            let cells: Vec<&str> = line.split('|').map(str::trim).collect();
            let yes = |cell: &str| cell.starts_with("yes");
            (cells[1].trim_matches('`').to_string(), yes(cells[2]), yes(cells[3]))
        })
        .collect()
}

fn load(preset: &str, scope: &str, extra: &[String]) -> ssdlab_core::Result<ssdlab_core::ValidatedConfig> {
    let mut overrides = vec![format!("gc.scope=\"{scope}\"")];
    overrides.extend_from_slice(extra);
    ssdlab_core::load_config(Some(preset), &[Layer::inline(WORKLOAD)], &overrides)
}

#[test]
fn every_preset_under_every_scope_runs_sanely_or_is_refused() {
    let table = documented();
    let mut names: Vec<&str> = presets::names();
    names.sort_unstable();
    let mut listed: Vec<&str> = table.iter().map(|(name, _, _)| name.as_str()).collect();
    listed.sort_unstable();
    assert_eq!(listed, names, "docs/policies/gc.md's scope table lists every preset once");
    for (preset, region, plane) in &table {
        for (scope, supported) in [("region", *region), ("plane", *plane)] {
            let loaded = load(preset, scope, &[]);
            let Ok(cfg) = loaded else {
                let message = loaded.err().unwrap().to_string();
                assert!(!supported, "{preset} with gc.scope = {scope:?} is documented as supported: {message}");
                assert!(
                    ["gc.trigger_free_blocks", "gc.scope", "ftl.placement", "device.overprovisioning"]
                        .iter()
                        .any(|key| message.contains(key)),
                    "{preset}, {scope}: the refusal names its key: {message}"
                );
                continue;
            };
            assert!(supported, "{preset} with gc.scope = {scope:?} loads, but docs/policies/gc.md says it is refused");
            let cfg = if scope == "plane" { one_chip(preset, &cfg) } else { cfg };
            let g = cfg.geometry();
            let d = &cfg.device;
            let planes = (d.channels * d.chips_per_channel * d.dies_per_chip * d.planes_per_die) as f64;
            let target = cfg.gc.target_free_blocks.unwrap_or(cfg.gc.trigger_free_blocks + 1) as f64;
            let domains = if scope == "plane" { planes } else { 1.0 };
            let held_blocks = domains * target + 3.0 * planes;
            let usable = g.pages() as f64 - held_blocks * d.pages_per_block as f64;
            let bound = 1.0 / (1.0 - cfg.used_logical_pages() as f64 / usable);
            let report = Simulation::new(cfg).unwrap().run().unwrap();
            // Data WAF: host and GC programs per host page (a demand-paged mapping's translation
            // writes are not GC's and have no such bound).
            let by = &report.waf_by_source;
            let data_waf = by.get("host").copied().unwrap_or(0.0) + by.get("gc").copied().unwrap_or(0.0);
            // Region-wide, the run (verify on) must only pass: the measured writes do not reach
            // GC on the larger presets (li-qlc-fsp), and the bound does not hold on every one
            // (femu-learnedftl, DFTL, 16 spare blocks per plane: data WAF 61.9 against 25.0),
            // a question for the region-wide check, not this one.
            if scope == "plane" {
                assert!(report.gc.victims_reclaimed > 0, "{preset}, plane: GC ran");
                assert!(
                    data_waf < bound,
                    "{preset}, plane: data WAF {data_waf:.2} above greedy's worst case {bound:.2}"
                );
            }
        }
    }
}

/// The plane-scope configs the reliability pass found are refused with the key and the numbers.
#[test]
fn the_plane_scope_configs_that_never_progress_are_refused() {
    let message = load("tiny", "plane", &["gc.trigger_free_blocks=12".into()]).err().unwrap().to_string();
    assert!(message.contains("gc.trigger_free_blocks: 12 (target 13) counts free blocks per plane"), "{message}");
    assert!(message.contains("each plane has 8 spare blocks (of 64); GC needs at least 16"), "{message}");
    assert!(message.contains("lower it to at most 4 (target 5)"), "{message}");
    let message = load("li-qlc-fsp", "plane", &[]).err().unwrap().to_string();
    assert!(message.contains("gc.trigger_free_blocks: 410 (target 411)"), "{message}");
    assert!(message.contains("gc.scope = \"plane\""), "{message}");
    // The same numbers region-wide are fine: the trigger counts the whole region there.
    assert!(load("tiny", "region", &["gc.trigger_free_blocks=12".into()]).is_ok());
    // An explicit target is what is named then.
    let message = load("tiny", "plane", &["gc.trigger_free_blocks=2".into(), "gc.target_free_blocks=6".into()])
        .err()
        .unwrap()
        .to_string();
    assert!(message.contains("gc.target_free_blocks: 6 counts"), "{message}");
}
