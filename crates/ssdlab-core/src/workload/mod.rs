//! Layer: workload. Where host requests come from: traces, the synthetic generator, warm-up.

pub mod request;
pub mod trace;

pub use request::{IoOp, TraceRecord};
