//! Trim at page granularity: a trim forgets the pages it covers whole and keeps every page it
//! covers only in part (the rest of that page still holds data), checked in verify mode against
//! a model built from the byte ranges alone.

use crate::common::{config, PageModel, Scripted};
use ssdlab_core::units::Lpn;
use ssdlab_core::workload::{IoOp, TraceRecord};
use ssdlab_core::Simulation;

const PAGE: u64 = 4096;

fn request(op: IoOp, offset_bytes: u64, size_bytes: u64) -> TraceRecord {
    TraceRecord { time_ns: 0, op, offset_bytes, size_bytes, device: 0 }
}

#[test]
fn a_trim_forgets_whole_pages_and_keeps_partly_covered_ones() {
    use IoOp::{Read, Trim, Write};
    let records = vec![
        request(Write, 5 * PAGE, PAGE),
        request(Write, 6 * PAGE, 3 * PAGE),
        // Inside page 5 only (both ends unaligned): the page keeps its data.
        request(Trim, 5 * PAGE + 512, 1024),
        // From the middle of page 6 to the middle of page 8: page 7 goes, 6 and 8 stay.
        request(Trim, 6 * PAGE + 2048, 2 * PAGE),
        // Part of page 9, never written: nothing to keep, nothing to forget.
        request(Trim, 9 * PAGE + 100, 200),
        // Reads of 5..=8 in verify mode: 5, 6 and 8 must hold version 1, 7 nothing.
        request(Read, 5 * PAGE, 4 * PAGE),
        // Rewrite page 6 in part (read-modify-write), then trim page 5 exactly.
        request(Write, 6 * PAGE + 1024, 1024),
        request(Trim, 5 * PAGE, PAGE),
    ];
    let cfg = config("tiny", "verify = true\n[workload]\niodepth = 1\n", &[]);
    let mut model = PageModel::new(cfg.used_logical_pages(), PAGE, false);
    records.iter().for_each(|r| model.apply(r));
    let mut sim = Simulation::with_source(cfg, Scripted::boxed(records)).unwrap();
    let report = sim.run().unwrap();

    assert!(report.verify.final_scan_passed);
    let ftl = &report.ftl;
    assert_eq!(ftl.host_trim_pages, 1 + 3 + 1 + 1);
    assert_eq!(ftl.partial_trim_pages_kept, 4, "pages 5, 6, 8 and 9 were trimmed in part");
    assert_eq!(report.verify.reads_checked, 4);
    assert_eq!(ftl.unmapped_read_pages, 1, "only page 7 was forgotten when it was read");
    assert_eq!(ftl.rmw_reads, 1, "page 6 still held data when it was rewritten in part");
    let versions: Vec<Option<u32>> = (5..=9).map(|lpn| sim.ftl().verifier().unwrap().version(Lpn(lpn))).collect();
    assert_eq!(versions, [None, Some(2), None, Some(1), None]);
    assert!(sim.ftl().mapping().peek(Lpn(8)).is_some());
    assert_eq!(model.mismatch(&sim), None);
}
