//! Helpers shared by the integration tests.

use ssdlab_core::config::{load, Layer};
use ssdlab_core::{Report, Simulation, ValidatedConfig};

/// Preset + inline TOML + overrides -> validated config.
pub fn config(preset: &str, toml: &str, overrides: &[&str]) -> ValidatedConfig {
    let overrides: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
    let cfg = load(Some(preset), &[Layer::inline(toml)], &overrides).expect("config loads");
    ValidatedConfig::new(cfg).expect("config validates")
}

pub fn run(cfg: ValidatedConfig) -> Report {
    Simulation::new(cfg).expect("simulation builds").run().expect("simulation runs")
}
