//! ssdlab-core: a trace-driven SSD simulator and laboratory for learned FTL policies.
//!
//! Layers (data flows one way): `workload` -> `ftl` -> `device` -> `stats`, wired by `sim`;
//! `nand` holds the device's fixed description, `config` the typed configuration, `rl` the
//! generic tabular agents. See docs/architecture.md.

pub mod catalog;
pub mod config;
pub mod decision;
pub mod device;
pub mod error;
pub mod ftl;
pub mod nand;
pub mod output;
pub mod registry;
pub mod rl;
pub mod rng;
pub mod sim;
pub mod stats;
pub mod units;
pub mod workload;

pub use catalog::{config_schema, config_schema_json, load_config};
pub use config::{Config, ValidatedConfig};
pub use error::{Error, Result, TraceErrorKind};
pub use sim::Simulation;
pub use stats::Report;
