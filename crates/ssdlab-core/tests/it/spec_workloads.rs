//! Workload specs as a source of `ssdlab run`: a built-in spec and a spec file drive the
//! simulator, with verify mode on, and a spec's problems are refused with the config.

use crate::common::{config, read_request_log, run, temp_path};
use ssdlab_core::config::Layer;
use ssdlab_core::ValidatedConfig;

#[test]
fn a_builtin_spec_runs_with_verify_and_its_length_and_mix() {
    // fsp-ali735 (RL-FSP Table II): 70.1 % reads, 8 KiB requests, Poisson arrivals; 20,000
    // requests of it on the tiny device, addresses folded into its space.
    let toml = "verify = true\n[workload]\nkind = \"spec\"\nspec = \"fsp-ali735\"\ncount = 20000\n";
    let report = run(config("tiny", toml, &[]));
    assert_eq!(report.workload.requests, 20_000);
    let reads = report.workload.reads as f64 / 20_000.0;
    assert!((reads - 0.701).abs() < 0.015, "read share {reads}");
    assert_eq!(report.workload.write_bytes, report.workload.writes * 8192);
    assert!(report.verify.final_scan_passed && report.verify.reads_checked > 0);
}

#[test]
fn a_spec_file_with_its_own_closed_loop_and_write_length() {
    let path = temp_path("closed-spec.toml");
    std::fs::write(
        &path,
        "address_space = '32m'\nread_ratio = 0.5\n[length]\nwrite_bytes = '8m'\n\
         [write]\nsequential = 0.5\nsizes.bins = [{ min = '4k', max = '32k', weight = 1.0 }]\n\
         [arrival]\nkind = 'closed'\nqueue_depth = 4\n",
    )
    .unwrap();
    let toml = format!("verify = true\n[workload]\nkind = \"spec\"\nspec = \"{}\"\n", path.display());
    let report = run(config("tiny", &toml, &[]));
    // The run ends at the write that reaches 8 MiB.
    assert!(report.workload.write_bytes >= 8 << 20 && report.workload.write_bytes < (8 << 20) + (32 << 10));
    assert!(report.verify.final_scan_passed);
}

#[test]
fn a_spec_file_is_read_once_when_the_config_is_checked() {
    // The run draws from the spec the check read: the file changed (here: removed) after the
    // load does not reach the run, and the run equals one over the file as it was.
    let path = temp_path("read-once-spec.toml");
    std::fs::write(&path, "address_space = '32m'\nread_ratio = 0.25\n[length]\nrequests = 3000\n").unwrap();
    let toml = format!("verify = true\n[workload]\nkind = \"spec\"\nspec = \"{}\"\n", path.display());
    let kept = run(config("tiny", &toml, &[]));
    let cfg = config("tiny", &toml, &[]);
    assert!(cfg.workload_spec().is_some_and(|spec| spec.read_ratio == 0.25));
    std::fs::remove_file(&path).unwrap();
    let report = run(cfg);
    assert_eq!(report.workload.requests, 3000);
    assert_eq!(report.workload.reads, kept.workload.reads);
    assert_eq!(report.latency.read.mean_ns, kept.latency.read.mean_ns);
    assert!(report.verify.final_scan_passed);
}

#[test]
fn an_impossible_spec_is_refused_with_the_config() {
    let path = temp_path("bad-spec.toml");
    std::fs::write(&path, "address_space = '1g'\n[length]\nrequests = 5\n[read]\nfootprint = '2g'\n").unwrap();
    let toml = format!("[workload]\nkind = \"spec\"\nspec = \"{}\"\n", path.display());
    let cfg = ssdlab_core::catalog::load(Some("tiny"), &[Layer::inline(toml)], &[]).unwrap();
    let err = ValidatedConfig::new(cfg).unwrap_err().to_string();
    assert!(err.contains("workload.spec: read.footprint: 2147483648 bytes is larger than address_space"), "{err}");
    assert!(err.contains("bad-spec.toml:5"), "{err}");
    let cfg = ssdlab_core::catalog::load(Some("tiny"), &[Layer::inline("[workload]\nkind = \"spec\"\n")], &[]).unwrap();
    assert!(ValidatedConfig::new(cfg).unwrap_err().to_string().contains("a spec workload needs a spec"));
}

#[test]
fn a_closed_spec_sets_the_queue_depth_and_an_open_one_its_arrivals() {
    let arrivals = |arrival: &str, name: &str| -> Vec<u64> {
        let spec = temp_path(&format!("{name}.toml"));
        std::fs::write(&spec, format!("address_space = '32m'\n[length]\nrequests = 200\n[arrival]\n{arrival}\n"))
            .unwrap();
        let log = temp_path(&format!("{name}.parquet"));
        let toml = format!(
            "[workload]\nkind = \"spec\"\nspec = \"{}\"\n[report]\nrequest_log = \"{}\"\n",
            spec.display(),
            log.display()
        );
        run(config("tiny", &toml, &[]));
        let mut times: Vec<u64> = read_request_log(&log).iter().map(|r| r.arrival_ns).collect();
        times.sort_unstable();
        times
    };
    // Closed loop, 4 outstanding: four requests issued at once, the fifth at a completion.
    let closed = arrivals("kind = 'closed'\nqueue_depth = 4", "qd4");
    assert_eq!(&closed[..4], &[0, 0, 0, 0]);
    assert!(closed[4] > 0);
    // Poisson at 1,000/s: 200 arrivals over about 0.2 s, whatever the device does.
    let open = arrivals("kind = 'poisson'\nrate_iops = 1000.0", "poisson");
    assert_eq!(open.iter().filter(|&&t| t == 0).count(), 0);
    let span_s = *open.last().unwrap() as f64 / 1e9;
    assert!((0.15..0.25).contains(&span_s), "{span_s}");
}
