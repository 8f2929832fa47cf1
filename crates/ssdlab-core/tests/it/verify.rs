//! Verify mode: no GC policy loses or resurrects data under workloads that force many GC
//! cycles; a deliberately corrupted mapping is caught.

use crate::common::{config, run};
use ssdlab_core::units::{Lpn, Ppn};
use ssdlab_core::{Error, Simulation};

const WORKLOADS: &[&str] = &[
    "[workload]\nrw = \"randwrite\"\ncount = 60000\niodepth = 8\n",
    "[workload]\nrw = \"write\"\nbs = \"64k\"\ncount = 8000\n",
    "[workload]\nrw = \"randrw\"\nrwmixread = 40\nbs = \"8k\"\ncount = 60000\niodepth = 4\n\
     random_distribution = \"hotcold\"\n",
    "[workload]\nrw = \"randwrite\"\nbs = 6144\ncount = 40000\nrandom_distribution = \"zipf\"\n",
];

#[test]
fn every_victim_policy_keeps_all_data() {
    for victim in ["greedy", "fifo", "cost_benefit"] {
        for (i, w) in WORKLOADS.iter().enumerate() {
            let toml = format!("verify = true\n[gc]\nvictim = \"{victim}\"\n[warmup]\nfill = true\n{w}");
            let report = run(config("tiny", &toml, &[]));
            assert!(report.verify.final_scan_passed, "{victim} workload {i}");
            assert!(report.gc.victims_reclaimed > 100, "{victim} workload {i}: GC must run many cycles");
            assert!(report.verify.reads_checked > 0 || !w.contains("randrw"));
        }
    }
}

#[test]
fn static_allocation_keeps_all_data() {
    let toml = format!(
        "verify = true\n[ftl]\nplacement = \"static\"\n[gc]\nscope = \"plane\"\n[warmup]\nfill = true\n{}",
        WORKLOADS[2]
    );
    assert!(run(config("tiny", &toml, &[])).verify.final_scan_passed);
}

#[test]
fn corrupted_mapping_is_caught() {
    let cfg =
        config("tiny", "verify = true\n[warmup]\nfill = true\n[workload]\nrw = \"randread\"\ncount = 5000\n", &[]);
    let mut sim = Simulation::new(cfg).unwrap();
    sim.step(10).unwrap();
    // Point LPN 5 at the page holding LPN 6.
    let target = sim.ftl().mapping().peek(Lpn(6)).unwrap();
    sim.ftl_mut().corrupt_mapping(Lpn(5), Ppn(target.0));
    let err = loop {
        match sim.step(1000) {
            Ok(true) => panic!("corruption went unnoticed"),
            Ok(false) => continue,
            Err(e) => break e,
        }
    };
    assert!(matches!(err, Error::Invariant { .. }), "{err}");
    assert!(err.to_string().contains("LPN 5"), "{err}");
}

mod random_combinations {
    use crate::common::{config, run};
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]
        /// Random workloads x policy combinations: verify mode's final scan (forward and reverse
        /// maps agree, per-block counts, free + valid + invalid = total) always passes, and no
        /// read ever sees lost or stale data.
        #[test]
        fn no_policy_combination_loses_data(
            seed in 0u64..1_000_000,
            victim in prop::sample::select(vec!["greedy", "fifo", "cost_benefit"]),
            placement in prop::sample::select(vec!["dynamic", "static"]),
            rw in prop::sample::select(vec!["randwrite", "randrw", "rw", "write"]),
            bs in prop::sample::select(vec![2048u64, 4096, 6144, 16384]),
            dist in prop::sample::select(vec!["uniform", "zipf", "hotcold"]),
            iodepth in 1u32..16,
            utilization in 0.5f64..1.0,
            fill in any::<bool>(),
        ) {
            // Static placement writes each LPN to one plane: GC must reclaim within planes.
            let scope = if placement == "static" { "plane" } else { "region" };
            let toml = format!(
                "verify = true\nseed = {seed}\n[device]\nutilization = {utilization}\n\
                 [ftl]
placement = \"{placement}\"
[gc]
victim = \"{victim}\"
scope = \"{scope}\"
\
                 [warmup]
fill = {fill}
random_writes = 0.2
\
                 [workload]\nrw = \"{rw}\"\nbs = {bs}\niodepth = {iodepth}\nrandom_distribution = \"{dist}\"\ncount = 6000\n"
            );
            let report = run(config("tiny", &toml, &[]));
            prop_assert!(report.verify.final_scan_passed);
            prop_assert_eq!(report.workload.requests, 6000);
            prop_assert_eq!(report.policies.placement.as_str(), placement);
        }
    }
}

mod trims_and_partial_pages {
    use crate::common::{config, PageModel, Scripted};
    use proptest::prelude::*;
    use ssdlab_core::workload::{IoOp, TraceRecord};
    use ssdlab_core::Simulation;

    const PAGE: u64 = 4096;

    /// One request as drawn: operation (a percentile), first page (folded into the used space
    /// later), byte offset inside that page, size in bytes, and whether to align both ends to
    /// pages (so whole-page writes and trims are common, not only the unaligned ones).
    fn raw_request() -> impl Strategy<Value = (u32, u64, u64, u64, bool)> {
        (0u32..100, any::<u64>(), 0..PAGE, 1..4 * PAGE, any::<bool>())
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]
        /// Writes, partial-page writes, reads and trims (whole-page and partial-page, at any
        /// byte) under GC: at the end every page holds exactly what a model built from the byte
        /// ranges alone says (mapped or not, and which version), and verify mode's final scan
        /// (forward and reverse maps, per-block counts, free + valid + invalid = total) passes.
        #[test]
        fn every_page_ends_as_the_byte_ranges_say(
            raw in prop::collection::vec(raw_request(), 3000),
            trim_percent in 5u32..40,
            read_percent in 0u32..20,
            fill in any::<bool>(),
            utilization in 0.85f64..1.0,
            victim in prop::sample::select(vec!["greedy", "fifo", "cost_benefit"]),
            scheduler in prop::sample::select(vec!["greedy", "lazy_rtgc", "rlgc"]),
            iodepth in 1u32..8,
        ) {
            // 2 planes x 24 blocks x 96 pages, 25 % over-provisioning: small enough that 3000
            // requests after a fill run GC for many cycles. The model starts from an empty
            // drive, so reads of never-written pages find nothing (`unwritten_reads = "free"`).
            let toml = format!(
                "verify = true\n[device]\nchannels = 1\nplanes_per_die = 2\nblocks_per_plane = 24\n\
                 overprovisioning = 0.25\nutilization = {utilization}\n[ftl]\nunwritten_reads = \"free\"\n\
                 [gc]\nvictim = \"{victim}\"\nscheduler = \"{scheduler}\"\n\
                 [warmup]\nfill = {fill}\n[workload]\niodepth = {iodepth}\n"
            );
            let cfg = config("tiny", &toml, &[]);
            let used_pages = cfg.used_logical_pages();
            let used_bytes = used_pages as u64 * PAGE;
            let records: Vec<TraceRecord> = raw
                .iter()
                .map(|&(pick, page, head, size, aligned)| {
                    let op = if pick < trim_percent {
                        IoOp::Trim
                    } else if pick < trim_percent + read_percent {
                        IoOp::Read
                    } else {
                        IoOp::Write
                    };
                    let page = page % used_pages as u64;
                    let (offset, size) =
                        if aligned { (page * PAGE, size.div_ceil(PAGE) * PAGE) } else { (page * PAGE + head, size) };
                    let size = size.min(used_bytes - offset);
                    TraceRecord { time_ns: 0, op, offset_bytes: offset, size_bytes: size, device: 0 }
                })
                .collect();
            let mut model = PageModel::new(used_pages, PAGE, fill);
            records.iter().for_each(|r| model.apply(r));
            let mut sim = Simulation::with_source(cfg, Scripted::boxed(records)).unwrap();
            let report = sim.run().unwrap();
            prop_assert!(report.verify.final_scan_passed);
            prop_assert_eq!(report.workload.requests, 3000);
            prop_assert!(report.ftl.partial_trim_pages_kept > 0);
            prop_assert!(!fill || report.gc.victims_reclaimed > 10, "GC must run: {:?}", report.gc);
            prop_assert_eq!(model.mismatch(&sim), None);
        }
    }
}
