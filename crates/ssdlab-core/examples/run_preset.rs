//! Replays one trace on one preset and prints the report JSON (stdout) and the wall-clock times
//! of building the simulation (allocating the device's tables) and of the run (stderr): `cargo run --release --example run_preset -- mqsim-default
//! ../shared/traces/umass/websearch_small.disksim_ns.txt.gz ftl.mapping=page`. Each argument
//! after the trace is a `key=value` override (TOML values, as `--set` takes them). The trace's
//! devices are merged (every device at its own offsets), as MQSim reads a DiskSim trace; give
//! `workload.trace.devices=separate` to lay them side by side instead. Used by
//! docs/presets/mqsim.md.

use std::time::Instant;

use ssdlab_core::config::{load, Layer};
use ssdlab_core::{Simulation, ValidatedConfig};

fn fail(message: impl std::fmt::Display) -> ! {
    eprintln!("{message}");
    std::process::exit(2);
}

fn main() {
    let mut args = std::env::args().skip(1);
    let usage = "usage: run_preset PRESET TRACE [key=value ...]";
    let preset = args.next().unwrap_or_else(|| fail(usage));
    let trace = args.next().unwrap_or_else(|| fail(usage));
    let overrides: Vec<String> = args.collect();
    let workload = Layer::inline(format!(
        "[workload]\nkind = \"trace\"\npath = {trace:?}\n[workload.trace]\ndevices = \"merge\"\n"
    ));
    let cfg = load(Some(&preset), &[workload], &overrides).and_then(ValidatedConfig::new).unwrap_or_else(|e| fail(e));
    let start = Instant::now();
    let mut sim = Simulation::new(cfg).unwrap_or_else(|e| fail(e));
    let built = start.elapsed().as_secs_f64();
    let report = sim.run().unwrap_or_else(|e| fail(e));
    let wall = start.elapsed().as_secs_f64();
    let json = serde_json::to_string_pretty(&report).unwrap_or_else(|e| fail(e));
    println!("{json}");
    eprintln!(
        "{preset} {trace} [{}]: {} requests, wall {wall:.3} s (build {built:.3} s, run {:.3} s)",
        overrides.join(" "),
        report.workload.requests,
        wall - built
    );
}
