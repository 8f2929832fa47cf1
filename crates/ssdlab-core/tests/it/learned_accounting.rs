//! The LearnedFTL artifact's accounting (issue #33), option by option on a small
//! `femu-learnedftl` (8 planes x 64 blocks of 64 pages of 4 KiB; lines of 8 blocks): LearnedFTL's
//! translation programs in no time (`ftl.learned.translation_program_time = "none"`), FEMU's
//! background GC of lines between requests (`gc.background = "between_requests"`), and the
//! minimum-gain guard on the group victim (`gc.group.min_invalid_fraction`), each in verify mode.

use crate::common::{config, run};
use ssdlab_core::config::Layer;
use ssdlab_core::ValidatedConfig;

/// The small drive: 8 planes of 64 blocks of 64 pages, 12.5 % spare (8 lines; FEMU's 6.25 %
/// would leave too few for the FTL's checks on 8 planes), a CMT of 1 KiB, GC at 1 free line.
const SMALL: &[&str] = &[
    "device.channels=2",
    "device.chips_per_channel=4",
    "device.blocks_per_plane=64",
    "device.overprovisioning=0.125",
    "device.pages_per_block=64",
    "gc.trigger_free_blocks=9",
    "ftl.dftl.cmt_bytes=1024",
    "ftl.tpftl.cmt_bytes=1024",
    "ftl.learned.cmt_bytes=1024",
    "ftl.equal_dram=false",
    "ftl.unwritten_reads=free",
    "verify=true",
];

fn small(extra: &[&str]) -> ValidatedConfig {
    let all: Vec<&str> = SMALL.iter().chain(extra).copied().collect();
    config("femu-learnedftl", "", &all)
}

const LEARNED: &[&str] = &["ftl.mapping=learned", "ftl.placement=group", "gc.victim=group"];

/// One job (the request sequence does not depend on timing), random 4 KiB writes over 3 drive
/// writes: group GC, training and translation write-backs all happen.
fn one_job_random_writes(extra: &[&str]) -> ssdlab_core::Report {
    let mut keys: Vec<&str> = LEARNED.to_vec();
    keys.extend_from_slice(&["workload.rw=randwrite", "workload.bs=4k", "workload.numjobs=1"]);
    keys.extend_from_slice(extra);
    let pages = small(&keys).used_logical_pages();
    let count = format!("workload.count={}", 3 * pages);
    keys.push(&count);
    run(small(&keys))
}

/// The flag changes time, not what is written: the same programs, translation writes, erases and
/// WAF, every mapping verified, and the run is faster since no program of a translation page
/// holds a chip (nor does the request that evicted its entry wait for it).
#[test]
fn learned_translation_programs_in_no_time_change_time_not_writes() {
    let charged = one_job_random_writes(&[]);
    let free = one_job_random_writes(&["ftl.learned.translation_program_time=none"]);
    for r in [&charged, &free] {
        assert!(r.verify.final_scan_passed);
        assert!(
            r.mapping.translation_writes > 1000,
            "translation pages are written back: {}",
            r.mapping.translation_writes
        );
    }
    assert_eq!(charged.mapping.translation_writes, free.mapping.translation_writes);
    assert_eq!(charged.mapping.translation_reads, free.mapping.translation_reads);
    assert_eq!(charged.device.counters.programs, free.device.counters.programs);
    assert_eq!(charged.wear.erases, free.wear.erases);
    assert_eq!(charged.waf, free.waf);
    assert!(free.throughput.iops > charged.throughput.iops, "{} vs {}", free.throughput.iops, charged.throughput.iops);
    // No time is booked for them at all: the mapping's busy time is its reads'.
    let mapping =
        |r: &ssdlab_core::Report| r.device.counters.by_source.get(ssdlab_core::device::Source::Mapping).busy_ns;
    let read_ns = 40_000 * free.mapping.translation_reads;
    assert_eq!(mapping(&free), read_ns);
    assert_eq!(mapping(&charged), read_ns + 200_000 * charged.mapping.translation_writes);
}

fn line_random_writes(mapping: &str, background: &[&str]) -> ssdlab_core::Report {
    let mut keys = vec![
        "ftl.placement=line",
        "workload.rw=randwrite",
        "workload.bs=4k",
        "workload.numjobs=8",
        "workload.duration_ns=2000000000",
    ];
    let m = format!("ftl.mapping={mapping}");
    keys.push(&m);
    keys.extend_from_slice(background);
    run(small(&keys))
}

/// FEMU's background GC on lines: after requests, a line is collected while free lines are at
/// or below the threshold, only a line with at least 1/8 of its pages invalid; the host then
/// rarely meets the foreground trigger. Without it no background collection happens.
#[test]
fn background_gc_between_requests_collects_lines_after_requests() {
    for mapping in ["dftl", "tpftl"] {
        let off = line_random_writes(mapping, &[]);
        // Background at or below 20 free lines (of 64; 8 spare): always, once the drive is full.
        let on = line_random_writes(mapping, &["gc.background=between_requests", "gc.background_free_blocks=161"]);
        for r in [&off, &on] {
            assert!(r.verify.final_scan_passed, "{mapping}");
        }
        assert_eq!(off.gc.partial_steps, 0, "{mapping}");
        assert!(on.gc.partial_steps > 0, "{mapping}: background collections");
        assert!(on.gc.foreground_invocations < off.gc.foreground_invocations, "{mapping}");
        // Lines are collected earlier, holding more valid pages: more copies per host page.
        assert!(on.waf > off.waf, "{mapping}: {} vs {}", on.waf, off.waf);
    }
}

fn refused(keys: &[&str]) -> String {
    let overrides: Vec<String> = SMALL.iter().chain(keys).map(|s| s.to_string()).collect();
    let built = ssdlab_core::load_config(Some("femu-learnedftl"), &[Layer::inline("")], &overrides)
        .and_then(|c| ssdlab_core::Simulation::new(c).map(|_| ()));
    match built {
        Ok(()) => panic!("{keys:?} accepted"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn the_new_options_refuse_what_they_cannot_do() {
    // Background GC between requests collects lines: line placement only.
    let e = refused(&["gc.background=between_requests"]);
    assert!(e.contains("gc.background") && e.contains("line"), "{e}");
    let e = refused(&["gc.background=between_requests", "ftl.placement=group", "gc.victim=group"]);
    assert!(e.contains("gc.background"), "{e}");
    // Idle-time steps stay refused on lines.
    let e = refused(&["gc.background=idle", "ftl.placement=line"]);
    assert!(e.contains("gc.scheduler"), "{e}");
    for bad in ["-0.1", "1.5"] {
        let key = format!("gc.group.min_invalid_fraction={bad}");
        let e = refused(&[&key]);
        assert!(e.contains("gc.group.min_invalid_fraction"), "{e}");
    }
    let e = refused(&["ftl.learned.translation_program_time=later"]);
    assert!(e.contains("translation_program_time"), "{e}");
}

/// The guard at 1 (a group with any valid page gains too little) makes each collection one
/// line unless the group is all invalid; off, group GC takes a group's lines together. Both
/// verified.
#[test]
fn the_group_victims_guard_falls_back_to_single_lines() {
    let writes = |guard: &str| {
        let mut keys: Vec<&str> = LEARNED.to_vec();
        keys.extend_from_slice(&[
            "workload.rw=randwrite",
            "workload.bs=4k",
            "workload.numjobs=8",
            "workload.duration_ns=2000000000",
            "ftl.group.max_lines=0",
            guard,
        ]);
        run(small(&keys))
    };
    let off = writes("gc.group.min_invalid_fraction=0");
    let on = writes("gc.group.min_invalid_fraction=1");
    for r in [&off, &on] {
        assert!(r.verify.final_scan_passed);
        assert!(r.gc.line_collections > 0);
    }
    // Lines per collection: about 1.5 off (31 collections, 45 lines), nearer 1 with the guard.
    let per = |r: &ssdlab_core::Report| r.gc.lines_collected as f64 / r.gc.line_collections as f64;
    assert!(per(&off) > 1.3, "groups of several lines: {}", per(&off));
    assert!(per(&on) < 1.15, "mostly single lines: {}", per(&on));
    assert!(on.gc.line_collections > off.gc.line_collections);
}
