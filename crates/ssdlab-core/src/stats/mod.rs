//! Layer: stats. What a run measures: latency distributions, time series, and the report.

pub mod histogram;
pub mod report;
pub mod timeseries;

pub use histogram::{LatencyHistogram, LatencySummary};
pub use report::Report;
pub use timeseries::TimeSeries;
