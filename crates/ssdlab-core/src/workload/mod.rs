//! Layer: workload. Where host requests come from: traces, the synthetic generator, and the
//! host model that turns them into page requests.

pub mod config;
pub mod footprint;
pub mod host;
pub mod jobs;
pub mod open;
pub mod request;
pub mod scatter;
pub mod spec;
pub mod synthetic;
pub mod trace;

pub use config::WorkloadConfig;
pub use open::{open, open_with_source, HostSpace, OpenWorkload};
pub use request::{IoOp, TraceRecord};
