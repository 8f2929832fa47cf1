//! The FSP paper's drive and schedulers (Li et al., TCAD 2024) end to end: on `li-qlc-fsp` a
//! host read costs its page type's read time, a unit of the write buffer is one full-sequence
//! program, and every eviction policy, at every cache size of the paper, keeps every page
//! (verify mode), rewrites included.

use crate::common::{page_request, read_request_log, temp_path, Scripted};
use ssdlab_core::config::Layer;
use ssdlab_core::device::Source;
use ssdlab_core::workload::IoOp;
use ssdlab_core::{load_config, Simulation};

/// The preset on 32 blocks per plane (8 GiB), the GC trigger kept at 5 % of the blocks, and the
/// spare space GC needs then (open blocks and reserve of 32 planes).
const SMALL: &str = "[device]\nblocks_per_plane = 32\noverprovisioning = 0.15\n[gc]\ntrigger_free_blocks = 51\n";

#[test]
fn a_read_costs_its_page_type_and_a_unit_one_program() {
    let log = temp_path("fsp-timing.parquet");
    // A buffer of one wordline (4 pages of 8 KiB): the 4th dirty page is above the high
    // watermark (floor(0.9 x 4) = 3), so one unit of the four pages, LRU first, leaves at once.
    let layers = [
        Layer::inline(SMALL),
        Layer::inline(format!(
            "[cache]\ncapacity = \"32KiB\"\n[workload]\narrival = \"poisson\"\n[report]\nrequest_log = {:?}\n",
            log.display().to_string()
        )),
    ];
    let cfg = load_config(Some("li-qlc-fsp"), &layers, &[]).unwrap();
    let page = cfg.device.page_bytes;
    let ms = 1_000_000;
    let mut records = vec![page_request(0, IoOp::Write, 0, 4, page)];
    // Each page read alone, long after the program ended, on an idle drive.
    records.extend((0..4).map(|k| page_request((10 + k) * ms, IoOp::Read, k, 1, page)));
    let report = Simulation::with_source(cfg, Scripted::boxed(records)).unwrap().run().unwrap();
    let rows = read_request_log(&log);
    std::fs::remove_file(&log).ok();
    let latencies: Vec<u64> = rows[1..].iter().map(|r| r.latency_ns).collect();
    // Table I: 90 / 120 / 150 / 180 us, plus 8 KiB at 800 MB/s = 10,240 ns; no command time.
    assert_eq!(latencies, [100_240, 130_240, 160_240, 190_240], "LSB, CLSB, CMSB, MSB");
    assert_eq!(report.ftl.host_reads_by_page_type, [1, 1, 1, 1]);
    let flush = report.device.counters.by_source.get(Source::BufferFlush);
    assert_eq!((flush.programs, flush.wordline_programs), (4, 1), "four pages, one program");
    assert_eq!(flush.busy_ns, 1_300_000, "one tPROG of a full-sequence program");
}

/// Zipf reads and writes over a filled drive: hot pages are read again and again, so the
/// rewrite modules fire; GC runs; the buffer still holds dirty data at the end.
fn run_policy(eviction: &str, insert_reads: bool, cache_mib: u32) -> ssdlab_core::Report {
    run_buffer(eviction, insert_reads, "room_order = \"clean_first\"", cache_mib)
}

/// `run_policy` with more `[cache]` keys (`extra`, TOML lines).
fn run_buffer(eviction: &str, insert_reads: bool, extra: &str, cache_mib: u32) -> ssdlab_core::Report {
    let toml = format!(
        "verify = true\n{SMALL}[cache]\ncapacity = \"{cache_mib}MiB\"\neviction = \"{eviction}\"\n\
         insert_reads = {insert_reads}\n{extra}\n[cache.page_type_eviction]\nepisode_length = 200\n\
         [warmup]\nfill = true\nrandom_writes = 0.2\n\
         [workload]\nrw = \"randrw\"\nrwmixread = 50\nbs = 12288\niodepth = 8\nrandom_distribution = \"zipf\"\n\
         zipf_theta = 0.9\ncount = 60000\n"
    );
    let cfg = load_config(Some("li-qlc-fsp"), &[Layer::inline(toml)], &[]).unwrap();
    Simulation::new(cfg).unwrap().run().unwrap_or_else(|e| panic!("{eviction} at {cache_mib} MiB: {e}"))
}

#[test]
fn every_scheduler_at_every_cache_size_keeps_every_page() {
    for cache_mib in [2, 8, 32] {
        for (eviction, insert_reads) in
            [("lru", false), ("lru", true), ("frequency", false), ("distance", false), ("rl_fsp", false)]
        {
            let cell = format!("{eviction} (insert_reads {insert_reads}) at {cache_mib} MiB");
            let r = run_policy(eviction, insert_reads, cache_mib);
            assert!(r.verify.final_scan_passed, "{cell}");
            let cache = r.cache.as_ref().expect("a buffer");
            assert!(cache.final_flush_pages > 0, "{cell}: data left in the buffer at the end");
            assert!(r.gc.pages_copied > 0, "{cell}: GC ran");
            let flush = r.device.counters.by_source.get(Source::BufferFlush);
            assert!(flush.wordline_programs > 0, "{cell}");
            let flash_reads: u64 = r.ftl.host_reads_by_page_type.iter().sum();
            assert_eq!(flash_reads, r.device.counters.by_source.get(Source::Host).reads - r.ftl.rmw_reads, "{cell}");
            if matches!(eviction, "frequency" | "rl_fsp") {
                assert!(cache.rewrite_pages > 0, "{cell}: the rewrite module moved data");
            } else {
                assert_eq!(cache.rewrite_pages, 0, "{cell}");
            }
            if eviction == "rl_fsp" {
                let rep = &r.policies.eviction_report;
                assert!(rep["episodes"].as_u64().unwrap() > 4, "{cell}: past the exploring episodes");
            }
        }
    }
}

/// Baseline-RW as the FSP paper runs it (Sec. IV-A): read data in the write buffer's one LRU
/// order (`room_order = "lru"`), so a read pushes dirty pages out and they are programmed
/// sooner than when clean pages always leave first: fewer write hits, more programs. (Erases
/// follow the programs only on average: here GC's copies of the warm-up's data dominate them.)
#[test]
fn baseline_rw_with_one_lru_order_evicts_dirty_pages_for_read_data() {
    for cache_mib in [2, 8] {
        let clean_first = run_buffer("lru", true, "room_order = \"clean_first\"", cache_mib);
        let lru = run_buffer("lru", true, "room_order = \"lru\"", cache_mib);
        let cell = format!("{cache_mib} MiB");
        assert!(lru.verify.final_scan_passed, "{cell}");
        let (a, b) = (clean_first.cache.as_ref().unwrap(), lru.cache.as_ref().unwrap());
        assert!(b.write_hit_ratio < a.write_hit_ratio, "{cell}: {} !< {}", b.write_hit_ratio, a.write_hit_ratio);
        assert!(b.evicted_pages > a.evicted_pages, "{cell}: {} !> {}", b.evicted_pages, a.evicted_pages);
    }
}

/// SSDsim's buffer, under the FSP paper's Baseline-RW, programs read data again when it leaves
/// (`write_back_reads`): every page a read put in the buffer costs a program, so flash programs
/// and erases rise with the reads (the paper's 2.2x erases, Sec. IV-D2), and no page is lost.
#[test]
fn written_back_read_data_costs_programs_and_erases() {
    let clean = run_buffer("lru", true, "", 2);
    let written = run_buffer("lru", true, "write_back_reads = true", 2);
    assert!(written.verify.final_scan_passed);
    let programs = |r: &ssdlab_core::Report| r.device.counters.by_source.get(Source::BufferFlush).programs;
    let inserted = written.device.counters.by_source.get(Source::Host).reads - written.ftl.rmw_reads;
    // Every flash read left a dirty page behind; nearly all of them were programmed by the end
    // (some were overwritten in the buffer first, merging with a host write).
    assert!(
        programs(&written) > programs(&clean) + inserted / 2,
        "{} {} {inserted}",
        programs(&written),
        programs(&clean)
    );
    assert!(written.device.counters.erases > clean.device.counters.erases);
    let bad = ssdlab_core::load_config(
        Some("li-qlc-fsp"),
        &[Layer::inline("[cache]\ncapacity = \"2MiB\"\nwrite_back_reads = true\n")],
        &[],
    )
    .unwrap_err()
    .to_string();
    assert!(bad.contains("cache.write_back_reads") && bad.contains("insert_reads"), "{bad}");
}
