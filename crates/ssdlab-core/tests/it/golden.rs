//! Golden tests: small workloads x presets -> a summary of the report, compared with the JSON
//! committed in `tests/it/golden/`. A golden changes only in a commit that says why; regenerate
//! with `SSDLAB_UPDATE_GOLDEN=1 cargo test --profile test-release -p ssdlab-core --test it golden`
//! and review the diff.

use crate::common::{config, run};
use serde_json::{json, Value};
use std::path::PathBuf;

fn summary(preset: &str, toml: &str) -> Value {
    let r = run(config(preset, toml, &[]));
    let lat = |s: &ssdlab_core::stats::LatencySummary| json!([s.count, s.p50_ns, s.p99_ns, s.p99_99_ns, s.max_ns]);
    json!({
        "requests": r.workload.requests,
        "reads": r.workload.reads,
        "span_ns": r.workload.span_ns,
        "waf": format!("{:.6}", r.waf),
        "read_count_p50_p99_p9999_max": lat(&r.latency.read),
        "write_count_p50_p99_p9999_max": lat(&r.latency.write),
        "erases": r.wear.erases,
        "gc_pages_copied": r.gc.pages_copied,
        "device_reads": r.device.counters.reads,
        "device_programs": r.device.counters.programs,
        "free_blocks_at_end": r.device.free_blocks_at_end,
    })
}

fn check(name: &str, preset: &str, toml: &str) {
    let actual = summary(preset, toml);
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/it/golden").join(format!("{name}.json"));
    let text = serde_json::to_string_pretty(&actual).unwrap() + "\n";
    if std::env::var_os("SSDLAB_UPDATE_GOLDEN").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path)
        .unwrap_or_else(|_| panic!("{} missing: run with SSDLAB_UPDATE_GOLDEN=1", path.display()));
    assert_eq!(text, expected, "golden {name} changed; if intended, regenerate and say why in the commit");
}

const WARM: &str = "[warmup]\nfill = true\nrandom_writes = 0.5\n";

#[test]
fn golden_tiny_randrw() {
    check("tiny_randrw", "tiny", &format!("{WARM}[workload]\nrw = \"randrw\"\niodepth = 4\ncount = 20000\n"));
}

#[test]
fn golden_tiny_lazy_rtgc_onoff() {
    check(
        "tiny_lazy_rtgc_onoff",
        "tiny",
        &format!(
            "{WARM}[gc]\nscheduler = \"lazy_rtgc\"\n[workload]\nrw = \"randwrite\"\narrival = \"onoff\"\n\
             rate_iops = 2000.0\non_ns = 20000000\noff_ns = 20000000\ncount = 20000\n"
        ),
    );
}

#[test]
fn golden_tiny_rlgc_closed() {
    check(
        "tiny_rlgc",
        "tiny",
        &format!("{WARM}[gc]\nscheduler = \"rlgc\"\n[workload]\nrw = \"randwrite\"\ncount = 20000\n"),
    );
}

#[test]
fn golden_kang_128gb_shrunk_randwrite() {
    check(
        "kang_128gb_randwrite",
        "kang-3d-128gb",
        &format!(
            "{WARM}[device]\nblocks_per_plane = 256\n[workload]\nrw = \"randwrite\"\nbs = \"8k\"\ncount = 20000\n"
        ),
    );
}

#[test]
fn golden_femu_randread() {
    check(
        "femu_randread",
        "femu-learnedftl",
        "[device]\nblocks_per_plane = 64\n[gc]\ntrigger_free_blocks = 20\n[warmup]\nfill = true\n[workload]\nrw = \"randread\"\niodepth = 64\ncount = 20000\n",
    );
}

#[test]
fn golden_yoo_hybrid_seqwrite() {
    check(
        "yoo_hybrid_seqwrite",
        "yoo-hybrid-qlc",
        "[device]\nblocks_per_plane = 512\n[workload]\nrw = \"write\"\nbs = \"64k\"\ncount = 5000\n",
    );
}
