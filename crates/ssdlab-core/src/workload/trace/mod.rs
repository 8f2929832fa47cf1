//! Layer: workload. Block-trace readers: one file per format, all streaming.
//! (Filled in by the trace issue; see docs/traces.md.)
