//! ssdlab-core: a trace-driven SSD simulator and laboratory for learned FTL policies.
//!
//! Layers (data flows one way): `workload` -> `ftl` -> `device` -> `stats`, wired by `sim`.
//! See docs/architecture.md.

pub mod error;
pub mod rl;
pub mod units;
pub mod workload;

pub use error::{Error, Result};
