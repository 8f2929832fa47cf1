//! Trace replay through the simulator: a real MSR trace end to end in verify mode, repeated
//! passes continue in time, and `count` caps the total; a blkparse trace replays what the
//! device saw; the devices of a multi-device trace stay apart under both folding modes, and
//! the report says what the reader did.
//!
//! The real traces sit in `../shared/traces` beside every checkout, so a missing one fails the
//! test; `SSDLAB_SKIP_SHARED_TRACES=1` (for builds elsewhere) turns that into a skip that says
//! so on the terminal.

use crate::common::{config, run};
use ssdlab_core::workload::trace::{BlkparseEvent, DeviceHandling, TraceFormat};

use crate::common::shared_trace as shared;

fn trace_toml(path: &std::path::Path, extra: &str) -> String {
    format!("[workload]\nkind = \"trace\"\npath = {:?}\n{extra}", path.display().to_string())
}

#[test]
fn msr_trace_replays_repeated_in_verify_mode() {
    let Some(path) = shared("msr/hm_0.sample1000.csv") else { return };
    let toml =
        format!("verify = true\n[workload]\nkind = \"trace\"\npath = {:?}\nrepeat = 3\n", path.display().to_string());
    let report = run(config("tiny", &toml, &[]));
    assert_eq!(report.workload.requests, 3000);
    assert_eq!(report.workload.reads, 3 * 508);
    assert!(report.verify.final_scan_passed);
    // Three passes of a 127 s trace: the span is about three times as long.
    let span_s = report.workload.span_ns as f64 / 1e9;
    assert!((3.0 * 127.0..3.0 * 128.0 + 1.0).contains(&span_s), "span {span_s} s");
    let capped = run(config("tiny", &toml, &["workload.count=1500"]));
    assert_eq!(capped.workload.requests, 1500);
}

/// The YCSB-on-RocksDB blkparse excerpt: 1,694 D events and 1,695 Q events
/// (`zcat F | awk '$6 == "D" && $8 ~ /^[0-9]+$/ && $10 > 0' | wc -l`, and `$6 == "Q"`).
#[test]
fn blkparse_trace_replays_the_dispatched_requests() {
    let Some(path) = shared("blkparse/snia_ycsb_rocksdb_ssdtrace_first10k_lines.blkparse.txt.gz") else { return };
    let report = run(config("tiny", &trace_toml(&path, ""), &[]));
    assert_eq!((report.workload.requests, report.workload.reads), (1_694, 1_694));
    let info = report.workload.trace.as_ref().expect("a trace run reports what the reader did");
    assert_eq!((info.format, info.blkparse_event), (TraceFormat::Blkparse, Some(BlkparseEvent::Issue)));
    let queued = run(config("tiny", &trace_toml(&path, "[workload.trace]\nblkparse_event = \"queue\"\n"), &[]));
    assert_eq!(queued.workload.requests, 1_695);
    assert_eq!(queued.workload.trace.unwrap().blkparse_event, Some(BlkparseEvent::Queue));
    let json: serde_json::Value = serde_json::from_str(&report.to_json()).unwrap();
    assert_eq!(json["workload"]["trace"]["blkparse_event"], "issue");
    assert_eq!(json["workload"]["trace"]["device_count"], 1);
}

/// WebSearch's six ASUs under compact folding: each distinct page of the separated address
/// space gets its own LPN. Distinct 4 KiB pages: 93,029 (device, page) pairs, 92,259 page
/// numbers (`zcat -f F | awk '{for (p = int($3 * 512 / 4096); p <= int((($3 + $4) * 512 - 1) /
/// 4096); p++) { m[p]; d[$2 " " p] }} END {print length(d), length(m)}'`).
#[test]
fn websearch_devices_stay_apart_under_compact_folding() {
    let Some(path) = shared("umass/websearch_small.disksim_ns.txt.gz") else { return };
    let report = run(config("tiny", &trace_toml(&path, "fold = \"compact\"\n"), &[]));
    assert_eq!(report.workload.requests, 24_783);
    assert_eq!(report.workload.host.compact_footprint_pages, 93_029);
    let info = report.workload.trace.as_ref().unwrap();
    assert_eq!(
        (info.format, info.devices, info.device_count),
        (TraceFormat::DisksimNs, DeviceHandling::Separate, Some(6))
    );
    assert_eq!(info.layout_end_bytes, Some(75_503 << 20));
    // The footprint (4.3 times tiny's 84 MiB) outgrows the space: compact folding wraps too.
    assert_eq!(report.workload.host.footprint_pages, Some(93_029));
    assert!(report.workload.host.folded_requests > 10_000, "{}", report.workload.host.folded_requests);
    // Modulo folding counts the same footprint with its page set, and the address span: the end
    // of the last device's extent, widened to 1 MiB.
    let modulo = run(config("tiny", &trace_toml(&path, ""), &[]));
    let host = &modulo.workload.host;
    assert_eq!((host.footprint_pages, host.compact_footprint_pages), (Some(93_029), 0));
    assert!((75_502 << 20..=75_503 << 20).contains(&host.address_span_bytes), "{}", host.address_span_bytes);
    // A footprint that fits is not folded under compact folding, whatever its addresses.
    let fits = run(config("bench-16gib", &trace_toml(&path, "fold = \"compact\"\n"), &["workload.count=5000"]));
    assert_eq!(fits.workload.host.folded_requests, 0);
    let merged =
        run(config("tiny", &trace_toml(&path, "fold = \"compact\"\n[workload.trace]\ndevices = \"merge\"\n"), &[]));
    assert_eq!(merged.workload.host.compact_footprint_pages, 92_259);
    assert_eq!(merged.workload.trace.unwrap().devices, DeviceHandling::Merge);
}

/// Modulo folding keeps devices apart while the layout fits the used logical space: volume 1
/// writes 4 MiB, then volume 0 reads the same offsets. Apart, volume 0 reads pages the trace
/// never wrote (data that predates the trace); merged, it reads volume 1's data.
#[test]
fn devices_stay_apart_under_modulo_folding() {
    let path = std::env::temp_dir().join(format!("ssdlab-two-volumes-{}.trace", std::process::id()));
    let mut text = String::new();
    for (device, flags) in [(1, 0), (0, 1)] {
        for page in 0..1024u64 {
            // DiskSim ASCII in ns: time devno lba_sectors size_sectors flags (1 = read).
            let time_ns = 1_000_000 * (page + 1024 * (1 - device));
            text.push_str(&format!("{time_ns} {device} {} 8 {flags}\n", page * 8));
        }
    }
    std::fs::write(&path, text).unwrap();
    let apart = run(config("tiny", &trace_toml(&path, "[workload.trace]\nformat = \"disksim_ns\"\n"), &[]));
    let merged = run(config(
        "tiny",
        &trace_toml(&path, "[workload.trace]\nformat = \"disksim_ns\"\ndevices = \"merge\"\n"),
        &[],
    ));
    std::fs::remove_file(&path).unwrap();
    assert_eq!((apart.workload.reads, apart.workload.writes), (1024, 1024));
    assert_eq!(apart.ftl.unwritten_read_pages, 1024, "volume 0 was never written");
    assert_eq!(merged.ftl.unwritten_read_pages, 0, "merged, volume 0 reads volume 1's pages");
    assert_eq!(apart.workload.trace.unwrap().layout_end_bytes, Some(8 << 20), "two 4 MiB volumes back to back");
}
