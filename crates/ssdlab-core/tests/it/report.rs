//! What the report promises: every policy id it prints is accepted back by the config, trims
//! are reported with their own latency row, and the per-request log streams every request to a
//! readable Parquet file.

use crate::common::{config, run};
use parquet::file::reader::{FileReader, SerializedFileReader};
use parquet::record::RowAccessor;
use ssdlab_core::Simulation;

const SMALL: &str = "[warmup]\nfill = true\n[workload]\nrw = \"randrw\"\ncount = 3000\n";

/// The policy ids a report prints, as `key=id` overrides.
fn reported_ids(p: &ssdlab_core::stats::report::Policies) -> Vec<String> {
    let mut ids = vec![
        format!("gc.scheduler={}", p.gc_scheduler),
        format!("gc.victim={}", p.gc_victim),
        format!("ftl.placement={}", p.placement),
        format!("ftl.mapping={}", p.mapping),
        format!("slc.policy={}", p.region_policy),
    ];
    ids.extend(p.eviction.as_ref().map(|e| format!("cache.eviction={e}")));
    ids
}

#[test]
fn every_reported_policy_id_round_trips_into_a_config() {
    let mut combos: Vec<Vec<String>> = Vec::new();
    for scheduler in ["greedy", "lazy_rtgc", "rlgc", "rlgc_aggressive", "rlgc_qtc", "predictor"] {
        for victim in ["greedy", "fifo", "cost_benefit"] {
            combos.push(vec![format!("gc.scheduler={scheduler}"), format!("gc.victim={victim}")]);
        }
    }
    let other = [
        "ftl.placement=static,gc.scope=plane",
        "ftl.placement=wordline,cache.capacity=1m",
        "ftl.mapping=dftl,cache.capacity=256k",
        "slc.policy=static,slc.blocks=24,device.utilization=0.8",
    ];
    combos.extend(other.iter().map(|c| c.split(',').map(String::from).collect()));
    for sets in combos {
        let as_str: Vec<&str> = sets.iter().map(String::as_str).collect();
        let p = run(config("tiny", SMALL, &as_str)).policies;
        let ids = reported_ids(&p);
        // Every override we gave is among the ids the report prints ...
        for set in sets.iter().filter(|s| {
            !s.starts_with("gc.scope") && !s.contains("capacity") && !s.contains("blocks") && !s.contains("utilization")
        }) {
            assert!(ids.contains(set), "{set} not reported back: {ids:?}");
        }
        // ... and the printed ids, fed back as config values, build the same policies.
        let mut back = ids.clone();
        back.extend(
            sets.iter()
                .filter(|s| {
                    s.starts_with("gc.scope")
                        || s.contains("capacity")
                        || s.contains("blocks")
                        || s.contains("utilization")
                })
                .cloned(),
        );
        let back: Vec<&str> = back.iter().map(String::as_str).collect();
        let again = run(config("tiny", SMALL, &back)).policies;
        assert_eq!(reported_ids(&again), ids);
    }
}

fn temp(name: &str) -> std::path::PathBuf {
    std::env::temp_dir().join(format!("ssdlab-it-report-{}-{name}", std::process::id()))
}

#[test]
fn trims_get_their_own_latency_row_and_histogram() {
    // A generic CSV trace: time_us, op, offset (pages), size (pages); "t" spells a trim.
    let path = temp("trims.csv");
    let mut lines = String::new();
    for i in 0..300u64 {
        let op = ["w", "w", "t"][(i % 3) as usize];
        lines.push_str(&format!("{},{op},{},1\n", i * 100, i % 50));
    }
    std::fs::write(&path, lines).unwrap();
    let toml = format!(
        "[workload]\nkind = \"trace\"\npath = {:?}\n[workload.trace]\nformat = \"generic\"\n\
         [workload.trace.generic]\ntime_column = 0\ntime_unit = \"us\"\nop_column = 1\noffset_column = 2\n\
         offset_unit = \"pages\"\nsize_column = 3\nsize_unit = \"pages\"\ntrim = [\"t\"]\n",
        path.display().to_string()
    );
    let mut sim = Simulation::new(config("tiny", &toml, &[])).unwrap();
    let report = sim.run().unwrap();
    assert_eq!(report.workload.trims, 100);
    assert_eq!(report.latency.trim.count, 100);
    assert_eq!(report.latency.write.count, 200);
    assert_eq!(report.latency.all.count, 300);
    let trims: u64 = sim.latency_histogram("trim").unwrap().iter().map(|(_, c)| c).sum();
    assert_eq!(trims, 100);
    let err = sim.latency_histogram("writes").unwrap_err().to_string();
    assert!(err.contains("writes") && err.contains("read, write, trim, all"), "{err}");
    std::fs::remove_file(&path).ok();
}

#[test]
fn request_log_streams_every_request_to_parquet() {
    let path = temp("requests.parquet");
    let toml = format!("{SMALL}[report]\nrequest_log = {:?}\n", path.display().to_string());
    let mut sim = Simulation::new(config("tiny", &toml, &[])).unwrap();
    let report = sim.run().unwrap();
    assert_eq!(sim.request_log_path(), Some(path.as_path()));
    let reader = SerializedFileReader::new(std::fs::File::open(&path).unwrap()).unwrap();
    assert_eq!(reader.metadata().file_metadata().num_rows(), 3000);
    let (mut reads, mut latency_sum) = (0u64, 0u128);
    for row in reader.get_row_iter(None).unwrap() {
        let row = row.unwrap();
        latency_sum += row.get_ulong(1).unwrap() as u128;
        reads += (row.get_string(2).unwrap() == "read") as u64;
        assert_eq!(row.get_ulong(4).unwrap(), 4096);
    }
    assert_eq!(reads, report.workload.reads);
    // The log's latencies are the ones the report's percentiles were computed from.
    let mean = latency_sum as f64 / 3000.0;
    assert!((mean - report.latency.all.mean_ns).abs() < 1e-6 * mean, "{mean} vs {}", report.latency.all.mean_ns);
    std::fs::remove_file(&path).ok();
}

#[test]
fn buffer_occupancy_is_sampled_over_time_only_with_a_buffer() {
    // 64 pages of buffer under random writes.
    let toml = "[cache]\ncapacity = \"256k\"\n[workload]\nrw = \"randwrite\"\ncount = 5000\niodepth = 4\n\
                [report]\nsample_interval_ns = 100000\n";
    let report = run(config("tiny", toml, &[]));
    let ts = &report.time_series;
    let (occupied, dirty) = (ts.buffer_occupied_pages.as_ref().unwrap(), ts.buffer_dirty_pages.as_ref().unwrap());
    assert!(occupied.values.len() > 20, "{} samples", occupied.values.len());
    assert_eq!(occupied.time_ns, dirty.time_ns);
    for (o, d) in occupied.values.iter().zip(&dirty.values) {
        assert!(*d <= *o && *o <= 64.0, "dirty {d}, occupied {o}");
    }
    // The host writes at DRAM speed, far faster than 4 planes program: a flush hands its dirty
    // pages to the flash at once, and they hold their buffer space until programmed, so the
    // buffer stays full of pages in flight.
    let max_occupied = occupied.values.iter().cloned().fold(0.0, f64::max);
    assert_eq!(max_occupied, 64.0, "the buffer filled");

    let without = run(config("tiny", "[workload]\nrw = \"randwrite\"\ncount = 100\n", &[]));
    assert!(without.time_series.buffer_occupied_pages.is_none());
    assert!(!without.to_json().contains("buffer_occupied_pages"));
}
