//! Layer: stats. What a run measures: latency distributions, time series, the per-request log
//! and the report.

pub mod histogram;
pub mod report;
pub mod request_log;
pub mod timeseries;

pub use histogram::{LatencyHistogram, LatencySummary};
pub use report::Report;
pub use request_log::{RequestLog, RequestRecord};
pub use timeseries::TimeSeries;
