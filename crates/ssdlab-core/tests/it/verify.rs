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
            trims in any::<bool>(),
        ) {
            // Static placement writes each LPN to one plane: GC must reclaim within planes.
            let scope = if placement == "static" { "plane" } else { "region" };
            let toml = format!(
                "verify = true\nseed = {seed}\n[device]\nutilization = {utilization}\n\
                 [ftl]\nplacement = \"{placement}\"\n[gc]\nvictim = \"{victim}\"\nscope = \"{scope}\"\n\
                 [warmup]\nfill = {trims}\nrandom_writes = 0.2\n\
                 [workload]\nrw = \"{rw}\"\nbs = {bs}\niodepth = {iodepth}\nrandom_distribution = \"{dist}\"\ncount = 6000\n"
            );
            let report = run(config("tiny", &toml, &[]));
            prop_assert!(report.verify.final_scan_passed);
            prop_assert_eq!(report.workload.requests, 6000);
            prop_assert_eq!(report.policies.placement.as_str(), placement);
        }
    }
}
