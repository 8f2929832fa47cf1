//! Timing arithmetic end to end: a QD1 read on an idle preconditioned device takes exactly
//! command + tR + transfer; page-type latencies show up as configured; closed-loop random
//! reads at high queue depth saturate near min(units / tR, channel bandwidth).

use crate::common::{config, read_request_log, run, temp_path};
use ssdlab_core::units::Lpn;

#[test]
fn qd1_read_is_command_plus_tr_plus_transfer() {
    // Closed loop at QD 1: each read is issued when the previous one completes, onto an idle
    // device (reads only, so no GC and no page moves).
    let log_path = temp_path("qd1_reads.parquet");
    let toml = format!(
        "[workload]\nrw = \"randread\"\niodepth = 1\ncount = 2000\n[warmup]\nfill = true\nrandom_writes = 0.5\n\
         [report]\nrequest_log = {:?}\n",
        log_path.display().to_string()
    );
    let cfg = config("tiny", &toml, &[]);
    let t = cfg.device.timing.clone();
    let (page_bytes, pages_per_block) = (cfg.device.page_bytes, cfg.device.pages_per_block);
    let xfer = (page_bytes * 1_000_000_000).div_ceil(t.channel_bytes_per_s);
    let by_type_ns: Vec<u64> = t.read_ns.iter().map(|tr| t.command_ns + tr + xfer).collect();
    let mut sim = ssdlab_core::Simulation::new(cfg).unwrap();
    let report = sim.run().unwrap();

    // The expected latency of each read, from its address alone: the page now holding its LPN
    // (reads move nothing, so it held it when read), that page's type (TLC pages are numbered
    // wordline-major: type = page in block mod 3), and the timing equation.
    let log = read_request_log(&log_path);
    std::fs::remove_file(&log_path).ok();
    let mut reads_of_type = vec![0u64; by_type_ns.len()];
    let expected: Vec<u64> = log
        .iter()
        .map(|r| r.offset_bytes)
        .map(|offset| {
            let ppn = sim.ftl().mapping().peek(Lpn((offset / page_bytes) as u32)).expect("filled device");
            let page_type = (ppn.0 % pages_per_block) as usize % by_type_ns.len();
            reads_of_type[page_type] += 1;
            by_type_ns[page_type]
        })
        .collect();
    let latencies: Vec<u64> = log.iter().map(|r| r.latency_ns).collect();
    assert_eq!(latencies, expected, "every read took command + tR(its page type) + transfer");
    assert_eq!(report.device.counters.reads_by_page_type, reads_of_type);
    // All three page types were read, each at its own latency.
    assert!(reads_of_type.iter().all(|&n| n > 300), "{reads_of_type:?}");
    let values: Vec<u64> = sim.latency_histogram("read").unwrap().iter().map(|(v, _)| *v).collect();
    let mut distinct = by_type_ns.clone();
    distinct.sort();
    assert_eq!(values, distinct, "distinct read latencies");

    // The summary, from the expected latencies: nearest-rank median (the ceil(n/2)-th smallest),
    // maximum and mean.
    let mut sorted = expected.clone();
    sorted.sort();
    let n = sorted.len();
    let lat = &report.latency.read;
    assert_eq!(lat.count, 2000);
    assert_eq!(lat.p50_ns, sorted[n.div_ceil(2) - 1]);
    assert_eq!(lat.max_ns, sorted[n - 1]);
    let mean = expected.iter().sum::<u64>() as f64 / n as f64;
    assert!((lat.mean_ns - mean).abs() < 1e-6, "mean {} vs {mean}", lat.mean_ns);
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
