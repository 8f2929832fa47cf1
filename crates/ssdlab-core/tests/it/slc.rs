//! Hybrid SLC/QLC drives (Yoo & Shin, HotStorage 2020) end to end: SLC and QLC operations cost
//! what the config says; every region policy (QLC-only, static, DWA, UST, RL), with the write
//! buffer on and off, keeps every page (verify mode) through migrations, collections and
//! resizes, and mode conversions keep the device's capacity accounting exact, under every reading
//! of issue #46 too (the SLC size as a cap, RL's reward baselines); an unused cap costs the
//! native region only the free blocks migration keeps; the RL agent's
//! Q-table is saved, loaded into another run, and refused when its shape does not match.

use crate::common::{page_request, temp_path, Scripted};
use rand::{Rng, SeedableRng};
use ssdlab_core::config::Layer;
use ssdlab_core::ftl::blocks::RegionId;
use ssdlab_core::workload::{IoOp, TraceRecord};
use ssdlab_core::{load_config, Report, Simulation};

const PAGE: u64 = 4096;
/// 4 KiB at 1.2 GB/s, rounded up: 3413.3 -> 3414 ns.
const XFER: u64 = 3414;

/// The preset's timings (Table 1 per 4 KiB) on a small QLC device: 2 planes x 64 blocks x 64
/// pages (16 in SLC mode).
const SMALL: &str = "[device]\nplanes_per_die = 2\nblocks_per_plane = 64\npages_per_block = 64\nutilization = 0.6\n\
                     [slc]\nsample_every_bytes = \"256KiB\"\n[slc.rl]\nstep_slc_blocks = 2\nsize_step_blocks = 4\n";

fn small(extra: &str) -> Vec<Layer> {
    vec![Layer::inline(SMALL), Layer::inline(extra.to_string())]
}

fn run_records(layers: Vec<Layer>, records: Vec<TraceRecord>) -> (Simulation, Report) {
    let cfg = load_config(Some("yoo-hybrid-qlc"), &layers, &[]).expect("config loads");
    let mut sim = Simulation::with_source(cfg, Scripted::boxed(records)).expect("simulation builds");
    let report = sim.run().expect("simulation runs");
    (sim, report)
}

/// Random reads and writes of 1 to 32 pages over the used space (60 % of the logical), 3 of 4
/// writes, one every 400 us (the device falls behind: writes queue, as on the paper's drive).
fn mixed(requests: usize, seed: u64) -> Vec<TraceRecord> {
    let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(seed);
    // Logical 0.97 x 8192 pages, 60 % used.
    let used = (8192.0 * 0.97 * 0.6) as u64;
    (0..requests)
        .map(|k| {
            let pages = if rng.gen_bool(0.7) { rng.gen_range(1..=4) } else { rng.gen_range(5..=32) };
            // Hot and cold: half the requests within the first tenth of the space.
            let span = if rng.gen_bool(0.5) { used / 10 } else { used };
            let first = rng.gen_range(0..span - pages);
            let op = if rng.gen_bool(0.75) { IoOp::Write } else { IoOp::Read };
            page_request(k as u64 * 400_000, op, first, pages, PAGE)
        })
        .collect()
}

#[test]
fn slc_and_qlc_operations_cost_their_configured_times() {
    // One page written, then read back, long after, on an idle drive without a buffer: to the
    // SLC region (4 KiB <= the 4 KiB threshold of `static`), and on the QLC-only drive.
    let records = vec![page_request(0, IoOp::Write, 0, 1, PAGE), page_request(10_000_000, IoOp::Read, 0, 1, PAGE)];
    let device = "[cache]\ncapacity = 0\n[warmup]\nfill = false\n";
    let latencies = |policy: &str| {
        let blocks = if policy == "static" { "blocks = 12\n" } else { "" };
        let extra = format!("{device}[slc]\npolicy = \"{policy}\"\n{blocks}threshold_bytes = 4096\n");
        let log = temp_path(&format!("slc-timing-{policy}.parquet"));
        let mut layers = small(&extra);
        layers.push(Layer::inline(format!(
            "[workload]\narrival = \"poisson\"\n[report]\nrequest_log = {:?}\n",
            log.display().to_string()
        )));
        let cfg = load_config(Some("yoo-hybrid-qlc"), &layers, &[]).unwrap();
        let report = Simulation::with_source(cfg, Scripted::boxed(records.clone())).unwrap().run().unwrap();
        let rows = crate::common::read_request_log(&log);
        std::fs::remove_file(&log).ok();
        (rows.iter().map(|r| r.latency_ns).collect::<Vec<_>>(), report)
    };
    let (slc, report) = latencies("static");
    // Table 1 per 4 KiB: SLC program 160 / 4 = 40 us, read 30 / 4 = 7.5 us; no command time.
    assert_eq!(slc, [XFER + 40_000, 7_500 + XFER], "SLC program, SLC read");
    assert_eq!(report.regions[1].stats.host_pages, 1);
    assert_eq!(report.regions[1].stats.host_write_ns, 40_000, "array time of the one SLC program");
    let (qlc, report) = latencies("none");
    // QLC program 3102 / 4 = 775.5 us, read 140 / 4 = 35 us.
    assert_eq!(qlc, [XFER + 775_500, 35_000 + XFER], "QLC program, QLC read");
    assert_eq!(report.regions[0].stats.host_write_ns, 775_500);
}

/// What each policy must show it did on the mixed workload (`extra`: more of the policy's
/// settings, e.g. `slc.region = "cap"`).
fn check_policy(policy: &str, buffer: bool, extra: &str) {
    let own = format!(
        "[slc]\npolicy = \"{policy}\"\n{}\n[cache]\ncapacity = {}\n[warmup]\nfill = true\n",
        if policy == "static" { "blocks = 24\nthreshold_bytes = 16384" } else { "" },
        if buffer { "\"144KiB\"" } else { "0" },
    );
    // Unset, `slc.region` is `shared`: a cap.
    let cap = !extra.contains("region = \"reserved\"");
    let layers =
        vec![Layer::inline(format!("verify = true\n{SMALL}")), Layer::inline(own), Layer::inline(extra.to_string())];
    let (sim, r) = run_records(layers, mixed(12_000, 7));
    let what = format!("{policy}, buffer {buffer}, {extra:?}");
    assert!(r.verify.enabled && r.verify.final_scan_passed, "{what}: verify");
    assert!(r.verify.reads_checked > 1000, "{what}: {} reads checked", r.verify.reads_checked);
    let rr = &r.policies.region_report;
    let b = sim.ftl().blocks();
    // Mode conversion keeps the accounting exact: every block in one region, capacity the sum
    // of each block's mode, free blocks as the pools hold them, data counted per region.
    let per_region: u32 = (0..b.regions()).map(|i| b.region_blocks(RegionId(i as u8))).sum();
    assert_eq!(per_region, b.blocks(), "{what}");
    let slc_blocks = if b.regions() > 1 { b.region_blocks(RegionId(1)) } else { 0 };
    assert_eq!(b.capacity_pages(), (b.blocks() - slc_blocks) as u64 * 64 + slc_blocks as u64 * 16, "{what}");
    for i in 0..b.regions() {
        let id = RegionId(i as u8);
        assert_eq!(b.recount_region_free(id).0, b.region_free_blocks(id), "{what}: region {i} free blocks");
    }
    let valid: u64 = (0..b.regions()).map(|i| b.region_valid_pages(RegionId(i as u8))).sum();
    assert_eq!(valid, b.page_census().1, "{what}: valid pages per region");
    let slc = r.regions.get(1).map(|s| (s.blocks, s.stats));
    match policy {
        "none" => assert_eq!(r.regions.len(), 1, "{what}"),
        "static" if cap => {
            // The 24 blocks bound the region; it grew to them as its data came, and migrates there.
            let (blocks, s) = slc.expect("an SLC region");
            assert!(blocks <= 24 && s.blocks_converted_in > 10, "{what}: {blocks} blocks, {s:?}");
            assert!(s.migrated_out_pages > 100 && r.regions[0].stats.host_pages > 100, "{what}: {s:?}");
        }
        "static" => {
            let (blocks, s) = slc.expect("an SLC region");
            assert_eq!(blocks, 24, "{what}");
            assert!(s.migrated_out_pages > 100 && r.regions[0].stats.host_pages > 100, "{what}: {s:?}");
        }
        "dwa" => {
            let (_, s) = slc.expect("an SLC region");
            assert!(s.blocks_converted_in > 10, "{what}: {s:?}");
            assert!(s.migrated_out_pages > 100, "{what}: {s:?}");
        }
        "ust" => {
            let (_, s) = slc.expect("an SLC region");
            assert!(rr["collections"].as_u64().unwrap() > 5, "{what}: {rr}");
            assert!(rr["pages_kept_in_slc"].as_u64().unwrap() > 0, "{what}: {rr}");
            assert!(s.gc_pages > 0 && s.migrated_out_pages > 100 && s.blocks_converted_in > 0, "{what}: {s:?}");
        }
        "rl" => {
            let (_, s) = slc.expect("an SLC region");
            assert!(rr["steps"].as_u64().unwrap() > 100, "{what}: {rr}");
            assert!(s.blocks_converted_in > 0 && s.blocks_converted_out > 0, "{what}: resized both ways {s:?}");
            assert!(s.migrated_out_pages > 100, "{what}: {s:?}");
            let thresholds: std::collections::BTreeSet<u64> =
                rr["series"]["threshold_bytes"].as_array().unwrap().iter().map(|v| v.as_u64().unwrap()).collect();
            assert!(thresholds.len() > 1, "{what}: theta never moved");
        }
        other => panic!("unknown policy {other}"),
    }
}

#[test]
fn every_policy_keeps_every_page_without_a_buffer() {
    for policy in ["none", "static", "dwa", "ust", "rl"] {
        check_policy(policy, false, "");
    }
}

#[test]
fn every_policy_keeps_every_page_with_a_buffer() {
    for policy in ["none", "static", "dwa", "ust", "rl"] {
        check_policy(policy, true, "");
    }
}

/// Issue #46's readings: the size reserved (the literal reading) or a cap (every policy that has
/// one to bound; unset is `shared`, run above) and the RL agent's reward baselines under each
/// region keep every page and the accounting exact.
#[test]
fn every_reading_keeps_every_page() {
    const RESERVED: &str = "[slc]\nregion = \"reserved\"\n";
    const CAP: &str = "[slc]\nregion = \"cap\"\n";
    for buffer in [false, true] {
        for policy in ["static", "dwa", "rl"] {
            check_policy(policy, buffer, RESERVED);
            check_policy(policy, buffer, CAP);
        }
        for baseline in ["all_steps", "exponential", "per_state"] {
            let reading = format!("[slc.rl]\nreward_baseline = \"{baseline}\"\n");
            check_policy("rl", buffer, &reading);
            check_policy("rl", buffer, &format!("{RESERVED}{reading}"));
            check_policy("rl", buffer, &format!("{CAP}{reading}"));
        }
    }
}

/// Unset, `slc.region` is `shared` and `slc.rl.reward_baseline` `exponential` (issue #46's
/// evidence): a run without them is the run with them set, and differs from the literal
/// reading's (`reserved`, `all_steps`).
#[test]
fn the_default_is_the_shared_region_with_the_exponential_baseline() {
    let run = |policy: &str, extra: &str| {
        let own = format!(
            "[slc]\npolicy = \"{policy}\"\n{}\n{extra}",
            if policy == "static" { "blocks = 24\nthreshold_bytes = 16384" } else { "" }
        );
        let (_, r) = run_records(small(&own), mixed(6_000, 11));
        (serde_json::to_value(&r.regions).unwrap(), r.policies.region_report)
    };
    for policy in ["static", "dwa", "rl"] {
        let baseline = if policy == "rl" { "[slc.rl]\nreward_baseline = \"exponential\"\n" } else { "" };
        let literal = if policy == "rl" { "[slc.rl]\nreward_baseline = \"all_steps\"\n" } else { "" };
        let default = run(policy, "");
        assert_eq!(default, run(policy, &format!("region = \"shared\"\n{baseline}")), "{policy}");
        assert_ne!(default, run(policy, &format!("region = \"reserved\"\n{literal}")), "{policy}");
    }
}

/// With the size as a cap, an SLC region that routing leaves unused holds only the free blocks
/// migration keeps, and the native region the rest: on writes all above theta, the native
/// region has all but those few blocks, where a reserved region of the same size takes its
/// share from the native region's spare and GC works harder for it.
#[test]
fn an_unused_cap_costs_the_native_region_only_the_free_blocks_migration_keeps() {
    // 16 KiB writes (4 pages) at random over the used space, theta 4 KiB: nothing goes to SLC.
    let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(5);
    let used = (8192.0 * 0.97 * 0.6) as u64;
    let records: Vec<TraceRecord> =
        (0..6_000).map(|k| page_request(k * 400_000, IoOp::Write, rng.gen_range(0..used - 4), 4, PAGE)).collect();
    let run = |region: &str| {
        let extra = format!(
            "verify = true\n[slc]\npolicy = \"static\"\nblocks = 24\nthreshold_bytes = 4096\nregion = \"{region}\"\n\
             [warmup]\nfill = true\n"
        );
        run_records(small(&extra), records.clone()).1
    };
    let (reserved, cap) = (run("reserved"), run("cap"));
    for r in [&reserved, &cap] {
        assert!(r.verify.final_scan_passed);
        assert_eq!(r.regions[1].stats.host_pages, 0, "nothing is routed to SLC");
    }
    // slc.target_free_blocks defaults to trigger (5) + 1.
    assert_eq!((cap.regions[1].blocks, cap.regions[1].stats.blocks_converted_in), (6, 0));
    assert_eq!(reserved.regions[1].blocks, 24);
    assert!(
        cap.gc.pages_copied < reserved.gc.pages_copied,
        "QLC GC copies {} with the cap, {} with the reserved region",
        cap.gc.pages_copied,
        reserved.gc.pages_copied
    );
}

/// With the region shared, SLC data that is cheaper to reclaim than the native region's gives
/// its blocks back when the native region has none to spare: single pages written at random
/// over a filled drive all go to SLC (theta 4 KiB) and stay valid (cold), so an SLC victim
/// holds all 16 of its pages where the native region's cheapest holds more than that of its 64.
/// Under a plain cap the region keeps its 24 blocks; shared, it gives blocks back.
#[test]
fn a_shared_region_gives_blocks_back_when_its_data_is_the_cheaper_space() {
    let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(9);
    let used = (8192.0 * 0.97 * 0.6) as u64;
    let records: Vec<TraceRecord> =
        (0..8_000).map(|k| page_request(k * 400_000, IoOp::Write, rng.gen_range(0..used), 1, PAGE)).collect();
    let run = |region: &str| {
        let extra = format!(
            "verify = true\n[slc]\npolicy = \"static\"\nblocks = 24\nthreshold_bytes = 4096\nregion = \"{region}\"\n\
             [cache]\ncapacity = 0\n[warmup]\nfill = true\n"
        );
        run_records(small(&extra), records.clone()).1
    };
    let (cap, shared) = (run("cap"), run("shared"));
    assert!(cap.verify.final_scan_passed && shared.verify.final_scan_passed);
    assert_eq!(cap.regions[0].stats.host_pages, 0, "every write goes to SLC");
    assert_eq!((cap.regions[1].blocks, cap.regions[1].stats.blocks_converted_out), (24, 0));
    let s = &shared.regions[1];
    assert!(s.stats.blocks_converted_out > 10 && s.blocks < 24, "{} blocks, {:?}", s.blocks, s.stats);
    assert!(s.stats.migrated_out_pages > cap.regions[1].stats.migrated_out_pages, "{:?}", s.stats);
}

#[test]
fn a_policy_without_a_size_to_bound_refuses_slc_region() {
    // Unset, they run (every_policy_keeps_every_page_*); set to any value, they refuse it.
    for policy in ["none", "ust"] {
        for region in ["reserved", "cap", "shared"] {
            let extra = format!("[slc]\npolicy = \"{policy}\"\nregion = \"{region}\"\n");
            let err = load_config(Some("yoo-hybrid-qlc"), &small(&extra), &[]).expect_err("refused").to_string();
            assert!(err.contains("slc.region") && err.contains(policy) && err.contains(region), "{err}");
        }
    }
}

#[test]
fn a_saved_q_table_loads_into_another_run_and_a_wrong_one_is_refused() {
    let saved = temp_path("slc-qtable.json");
    let path = saved.display().to_string();
    let first = format!("[slc]\npolicy = \"rl\"\n[slc.rl]\nsave_qtable = {path:?}\n");
    let (_, r1) = run_records(small(&first), mixed(4_000, 1));
    let text = std::fs::read_to_string(&saved).expect("the table was saved");
    let file: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(file["format"], "ssdlab-qtable");
    assert_eq!((file["n_states"].as_u64(), file["n_actions"].as_u64()), (Some(1296), Some(9)));
    assert_eq!(file["metadata"]["policy"], "slc.rl");
    assert_eq!(file["metadata"]["steps"].as_str().unwrap(), r1.policies.region_report["steps"].to_string());
    let trained = file["values"].as_array().unwrap().iter().flat_map(|r| r.as_array().unwrap()).any(|v| v != 0.0);
    assert!(trained, "the agent learned nothing");

    // Loaded into another run, not learning: the table is the same at its end.
    let again = temp_path("slc-qtable-again.json");
    let second = format!(
        "[slc]\npolicy = \"rl\"\n[slc.rl]\nload_qtable = {path:?}\nsave_qtable = {:?}\nlearn = false\n",
        again.display().to_string()
    );
    let (_, r2) = run_records(small(&second), mixed(4_000, 2));
    assert_eq!(r2.policies.region_report["loaded_qtable"], path.as_str());
    let reread: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&again).unwrap()).unwrap();
    assert_eq!(reread["values"], file["values"]);

    // A table of another shape: refused, naming the file and the key.
    let mut wrong = file.clone();
    wrong["n_states"] = 68.into();
    wrong["values"] = serde_json::Value::Array(file["values"].as_array().unwrap()[..68].to_vec());
    std::fs::write(&saved, wrong.to_string()).unwrap();
    let cfg = load_config(Some("yoo-hybrid-qlc"), &small(&second), &[]).unwrap();
    let err = Simulation::with_source(cfg, Scripted::boxed(mixed(10, 3))).err().expect("refused").to_string();
    assert!(err.contains(&path) && err.contains("slc.rl.load_qtable") && err.contains("68 states"), "{err}");
    // The same shape trained for other threshold levels: refused too.
    let mut other = file.clone();
    other["metadata"]["threshold_levels_bytes"] = "4096,8192".into();
    std::fs::write(&saved, other.to_string()).unwrap();
    let cfg = load_config(Some("yoo-hybrid-qlc"), &small(&second), &[]).unwrap();
    let err = Simulation::with_source(cfg, Scripted::boxed(mixed(10, 3))).err().expect("refused").to_string();
    assert!(err.contains("threshold_levels_bytes"), "{err}");
    std::fs::remove_file(&saved).ok();
    std::fs::remove_file(&again).ok();
}

#[test]
fn region_wide_gc_reclaims_inline_when_a_migration_would_eat_its_reserve() {
    // RLGC (GC decided at requests only) on the drive cut to 256 blocks of 256 pages, with a
    // write buffer, bursts with idle gaps: SLC migrations between requests used the native
    // region's free blocks up and reported the device full; the native region now reclaims
    // inline before its GC reserve. The case as found: the literal reading's reserved region.
    let toml = "verify = true\n[device]\nblocks_per_plane = 256\npages_per_block = 256\noverprovisioning = 0.3\n\
                [gc]\nscheduler = \"rlgc\"\ntrigger_free_blocks = 12\n[slc]\nregion = \"reserved\"\n\
                [slc.rl]\nreward_baseline = \"all_steps\"\nstep_slc_blocks = 2\nsize_step_blocks = 8\n\
                [cache]\ncapacity = \"512KiB\"\neviction = \"rl_fsp\"\n\
                [workload]\nrw = \"randrw\"\nrwmixread = 30\nbs = 65536\ncount = 6000\narrival = \"onoff\"\n\
                rate_iops = 500.0\non_ns = 20_000_000\noff_ns = 30_000_000\n";
    let cfg = load_config(Some("yoo-hybrid-qlc"), &[Layer::inline(toml)], &["seed=3".to_string()]).unwrap();
    let report = Simulation::new(cfg).unwrap().run().expect("the drive reclaims instead of filling up");
    assert!(report.gc.foreground_invocations > 0, "the case needs the inline reclaim");
    assert!(report.verify.final_scan_passed && report.verify.reads_checked > 0);
}
