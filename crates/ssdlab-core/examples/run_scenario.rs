//! Runs one benchmark scenario outside Python and prints simulated requests per wall second
//! and the process's peak resident memory: `cargo run --release --example run_scenario --
//! randwrite_gc 2000000`; arguments after the count are `key=value` overrides
//! (`'transaction_scheduler.policy="priority"'`), and `preset=NAME` runs it on another preset than bench-16gib.
//! With `RUN_SCENARIO_REPORT=FILE` the run's report is written there as JSON (to compare the
//! simulated figures of two builds byte for byte). Used by docs/performance.md (and for profiling).

use std::time::Instant;

use ssdlab_core::config::Layer;
use ssdlab_core::Simulation;

fn peak_rss_mib() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| s.lines().find(|l| l.starts_with("VmHWM:")).map(|l| l.to_string()))
        .and_then(|l| l.split_whitespace().nth(1).and_then(|kb| kb.parse::<f64>().ok()))
        .map(|kb| kb / 1024.0)
        .unwrap_or(f64::NAN)
}

/// The warm-up fill of a 512 GiB device with 128 planes (8 channels x 4 chips x 2 dies x 2
/// planes x 4096 blocks x 256 x 4 KiB pages): placement's per-page cost must not grow with the
/// plane count.
fn fill_512gib(placement: &str, blocks_per_plane: u32) {
    let scope = if placement == "static" { "plane" } else { "region" };
    let toml = format!(
        "[device]\nchannels = 8\nchips_per_channel = 4\ndies_per_chip = 2\nplanes_per_die = 2\nblocks_per_plane = {blocks_per_plane}\n\
         [ftl]\nplacement = \"{placement}\"\n[gc]\nscope = \"{scope}\"\ntrigger_free_blocks = 8\n\
         [warmup]\nfill = true\n[workload]\nrw = \"randread\"\ncount = 1\n"
    );
    let cfg = ssdlab_core::load_config(Some("bench-16gib"), &[Layer::inline(toml)], &[]).unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(2);
    });
    let pages = cfg.used_logical_pages();
    let mut sim = Simulation::new(cfg).expect("simulation builds");
    let start = Instant::now();
    sim.step(1).expect("warm-up");
    let wall = start.elapsed().as_secs_f64();
    println!(
        "fill_512gib_{placement}: {pages} pages in {wall:.3} s = {:.1} M pages/s; peak RSS {:.0} MiB",
        pages as f64 / wall / 1e6,
        peak_rss_mib()
    );
}

fn main() {
    let mut args = std::env::args().skip(1);
    let scenario = args.next().unwrap_or_else(|| "randwrite_gc".into());
    let number: Option<u64> = args.next().and_then(|s| s.parse().ok());
    if let Some(placement) = scenario.strip_prefix("fill_512gib_") {
        // The second argument, if any, shrinks the blocks per plane (same 128 planes).
        fill_512gib(placement, number.map_or(4096, |n| n as u32));
        return;
    }
    let count = number.unwrap_or(2_000_000);
    // The FSP paper's drive (fresh, as the paper's is far larger than its traces): zipf reads
    // and writes of 8 KiB pages through a 2 MiB buffer of one-shot QLC wordlines, each FSP
    // eviction policy (`fsp_<id>`): the policies' cost per evicted unit is the difference.
    if let Some(eviction) = scenario.strip_prefix("fsp_") {
        let workload = format!(
            "[workload]\nrw = \"randrw\"\nrwmixread = 50\nbs = 8192\niodepth = 8\nrandom_distribution = \"zipf\"\n\
             zipf_theta = 0.9\n[cache]\neviction = \"{eviction}\"\n"
        );
        run("li-qlc-fsp", &scenario, &workload, count, args.collect());
        return;
    }
    let workload = match scenario.as_str() {
        "randwrite_gc" => "[workload]\nrw = \"randwrite\"\n[warmup]\nfill = true\nrandom_writes = 1.0\n",
        "randread" => "[workload]\nrw = \"randread\"\niodepth = 32\n[warmup]\nfill = true\n",
        "randwrite_buffer" => {
            "[workload]\nrw = \"randwrite\"\n[warmup]\nfill = true\nrandom_writes = 1.0\n[cache]\ncapacity = \"64m\"\n"
        }
        "randread_dftl" => {
            "[workload]\nrw = \"randread\"\niodepth = 32\n[warmup]\nfill = true\n[ftl]\nmapping = \"dftl\"\n\
             [ftl.dftl]\ncmt_bytes = \"2m\"\n"
        }
        "randwrite_dftl" => {
            "[workload]\nrw = \"randwrite\"\n[warmup]\nfill = true\nrandom_writes = 1.0\n[ftl]\nmapping = \"dftl\"\n\
             [ftl.dftl]\ncmt_bytes = \"2m\"\n"
        }
        "randwrite_rlgc" => {
            "[workload]\nrw = \"randwrite\"\n[warmup]\nfill = true\nrandom_writes = 1.0\n\
             [gc]\nscheduler = \"rlgc\"\n[gc.rlgc]\nzero_interval = \"same_arrival\"\n"
        }
        "randwrite_tpftl" => {
            "[workload]\nrw = \"randwrite\"\n[warmup]\nfill = true\nrandom_writes = 1.0\n[ftl]\nmapping = \"tpftl\"\n\
             [ftl.tpftl]\ncmt_bytes = \"2m\"\n"
        }
        // LearnedFTL as the paper builds it (group allocation, group GC) after a fill and one drive
        // of random overwrites, and the page mapping on the same placement (the like-for-like
        // base: the same lines, groups and group GC, no translation pages). At half the logical
        // space: a group holds a full line and writes an open one, and at 90 % bench-16gib has
        // 1,024 lines for 860 groups, where each group collection after a fill frees a handful of
        // pages (WAF in the thousands; docs/performance.md, issue #31).
        "randwrite_learned" => {
            "[workload]\nrw = \"randwrite\"\n[device]\nutilization = 0.5\n[warmup]\nfill = true\nrandom_writes = 1.0\n[ftl]\nmapping = \"learned\"\n\
             placement = \"group\"\n[ftl.learned]\ncmt_bytes = \"2m\"\n[gc]\nvictim = \"group\"\n"
        }
        "randwrite_group" => {
            "[workload]\nrw = \"randwrite\"\n[device]\nutilization = 0.5\n[warmup]\nfill = true\nrandom_writes = 1.0\n[ftl]\nplacement = \"group\"\n\
             [gc]\nvictim = \"group\"\n"
        }
        "seqwrite_learned" => {
            "[workload]\nrw = \"write\"\n[device]\nutilization = 0.5\n[warmup]\nfill = true\nrandom_writes = 1.0\n[ftl]\nmapping = \"learned\"\n\
             placement = \"group\"\n[ftl.learned]\ncmt_bytes = \"2m\"\n[gc]\nvictim = \"group\"\n"
        }
        "randread_aged" => "[workload]\nrw = \"randread\"\niodepth = 32\n[warmup]\nfill = true\nrandom_writes = 1.0\n",
        "randread_tpftl" => {
            "[workload]\nrw = \"randread\"\niodepth = 32\n[warmup]\nfill = true\nrandom_writes = 1.0\n\
             [ftl]\nmapping = \"tpftl\"\n[ftl.tpftl]\ncmt_bytes = \"2m\"\n"
        }
        "randread_learned" => {
            "[workload]\nrw = \"randread\"\niodepth = 32\n[warmup]\nfill = true\nrandom_writes = 1.0\n\
             [ftl]\nmapping = \"learned\"\n[ftl.learned]\ncmt_bytes = \"2m\"\n"
        }
        other => {
            eprintln!(
                "unknown scenario {other}: use randwrite_gc, randread, randwrite_buffer, randread_dftl, randwrite_dftl, \
                 randwrite_tpftl, randwrite_learned, randwrite_group, seqwrite_learned, randwrite_rlgc, \
                 randread_aged, randread_tpftl, randread_learned, fsp_<eviction id> or \
                 fill_512gib_dynamic / fill_512gib_static"
            );
            std::process::exit(2);
        }
    };
    // `preset=NAME` among the overrides runs the scenario on another preset.
    let (presets, extra): (Vec<String>, Vec<String>) = args.partition(|a| a.starts_with("preset="));
    let preset = presets.last().map_or("bench-16gib", |p| &p["preset=".len()..]);
    run(preset, &scenario, workload, count, extra);
}

/// Run `scenario` (`workload` on `preset`) for `count` requests, warm-up untimed, and print
/// its speed. `extra` are `key=value` overrides, e.g. `transaction_scheduler.policy="priority"`.
fn run(preset: &str, scenario: &str, workload: &str, count: u64, extra: Vec<String>) {
    let overrides: Vec<String> = std::iter::once(format!("workload.count={count}")).chain(extra).collect();
    // `load_config`, not `load` + `ValidatedConfig::new`: it also decodes the policies' own
    // tables (`[gc.rlgc]`), which the plain validation does not know.
    let cfg = ssdlab_core::load_config(Some(preset), &[Layer::inline(workload)], &overrides).unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(2);
    });
    let physical_pages = cfg.geometry().pages();
    let mut sim = Simulation::new(cfg).expect("simulation builds");
    sim.step(1).expect("warm-up"); // warm-up runs on the first step; keep it out of the timing
    let start = Instant::now();
    let report = sim.run().expect("run");
    let wall = start.elapsed().as_secs_f64();
    let requests = report.workload.requests;
    let rss = peak_rss_mib();
    let units = report.cache.as_ref().map_or(0, |c| c.evicted_units);
    // The whole report, to check that a speed change left every simulated figure as it was.
    if let Some(path) = std::env::var_os("RUN_SCENARIO_REPORT") {
        let json = serde_json::to_string_pretty(&report).expect("report serialises");
        std::fs::write(&path, json).expect("report written");
    }
    println!(
        "{scenario}: {requests} requests in {wall:.3} s = {:.0} req/s; {units} evicted units; WAF {:.3}; \
         peak RSS {rss:.1} MiB (budget 12 B x {physical_pages} pages + 64 MiB = {:.1} MiB)",
        requests as f64 / wall,
        report.waf,
        (12.0 * physical_pages as f64) / (1024.0 * 1024.0) + 64.0
    );
}
