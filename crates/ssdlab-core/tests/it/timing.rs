//! Timing arithmetic end to end: a QD1 read on an idle preconditioned device takes exactly
//! command + tR + transfer; page-type latencies show up as configured; closed-loop random
//! reads at high queue depth saturate near min(units / tR, channel bandwidth).

use crate::common::{config, run};

#[test]
fn qd1_read_is_command_plus_tr_plus_transfer() {
    // Closed loop at QD 1: each read is issued when the previous one completes, onto an idle
    // device (reads only, so no GC).
    let toml = "[workload]\nrw = \"randread\"\niodepth = 1\ncount = 2000\n\
                [warmup]\nfill = true\nrandom_writes = 0.5\n";
    let cfg = config("tiny", toml, &[]);
    let t = &cfg.device.timing;
    let xfer = (4096u64 * 1_000_000_000).div_ceil(t.channel_bytes_per_s);
    let expected: Vec<u64> = t.read_ns.iter().map(|tr| t.command_ns + tr + xfer).collect();
    let mut sim = ssdlab_core::Simulation::new(cfg).unwrap();
    let report = sim.run().unwrap();
    // Every read took exactly command + tR(page type) + transfer, and every type occurred.
    let values: Vec<u64> = sim.latency_histogram("read").unwrap().iter().map(|(v, _)| *v).collect();
    let mut sorted_expected = expected.clone();
    sorted_expected.sort();
    assert_eq!(values, sorted_expected, "distinct read latencies");
    let lat = &report.latency.read;
    assert_eq!(lat.count, 2000);
    // TLC: LSB/CSB/MSB pages; every read takes one of the three exact values.
    assert_eq!(lat.p50_ns.min(lat.max_ns), lat.p50_ns);
    assert!(expected.contains(&lat.max_ns), "max {} not in {expected:?}", lat.max_ns);
    assert!(expected.contains(&lat.p50_ns), "p50 {} not in {expected:?}", lat.p50_ns);
    let min_expected = *expected.iter().min().unwrap();
    assert!(lat.mean_ns >= min_expected as f64);
    // All three page types were read, each at its own latency.
    let by_type = &report.device.counters.reads_by_page_type;
    assert!(by_type.iter().all(|&n| n > 300), "{by_type:?}");
}

#[test]
fn closed_loop_random_reads_saturate_the_array() {
    // 4 planes, tR 50 us everywhere, transfer 4 KiB at 1.6 GB/s (2.56 us): array-bound at
    // 4 / 50 us = 80k IOPS (channel limit 2 x 625k).
    let toml = "[device.timing]\nread_ns = [50000]\nchannel_bytes_per_s = 1600000000\ncommand_ns = 0\n\
                [workload]\nrw = \"randread\"\niodepth = 64\ncount = 100000\n[warmup]\nfill = true\n";
    let report = run(config("tiny", toml, &[]));
    let bound = 4.0 / 50e-6;
    let iops = report.throughput.iops;
    assert!((iops - bound).abs() / bound < 0.05, "IOPS {iops:.0} vs bound {bound:.0}");
}

#[test]
fn closed_loop_random_reads_saturate_the_channel() {
    // Slow channel: 4 KiB at 100 MB/s = 40.96 us per page, 2 channels -> 48.8k IOPS, while the
    // 4 planes could deliver 4 / 20 us = 200k IOPS.
    let toml = "[device.timing]\nread_ns = [20000]\nchannel_bytes_per_s = 100000000\ncommand_ns = 0\n\
                [workload]\nrw = \"randread\"\niodepth = 64\ncount = 100000\n[warmup]\nfill = true\n";
    let report = run(config("tiny", toml, &[]));
    let bound = 2.0 / (4096.0 / 100e6);
    let iops = report.throughput.iops;
    assert!((iops - bound).abs() / bound < 0.05, "IOPS {iops:.0} vs bound {bound:.0}");
}
