//! Layer: stats. What a run measures: latency distributions, time series (sampled values, and
//! figures per interval of simulated time), the per-request log and the report.

pub mod histogram;
pub mod interval_series;
pub mod log_histogram;
pub mod report;
pub mod request_log;
pub mod timeseries;

pub use histogram::{LatencyHistogram, LatencySummary};
pub use interval_series::{FlashTotals, IntervalSeries, IntervalValues, RateSeries};
pub use report::Report;
pub use request_log::{RequestLog, RequestRecord};
pub use timeseries::TimeSeries;
