//! Layer: workload. The host-side vocabulary: one block I/O request as a trace or generator
//! produces it, before it is split into pages.

use serde::{Deserialize, Serialize};

use crate::error::Result;
use crate::workload::trace::info::TraceInfo;

/// What a host request asks the device to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum IoOp {
    Read,
    Write,
    /// Discard / TRIM / UNMAP: the range no longer holds data.
    Trim,
}

/// One request as read from a trace or produced by the generator, in byte units.
///
/// `time_ns` is the arrival time in nanoseconds in the trace's own time base (readers convert
/// the format's unit; they do not rebase). The host model rebases to the first request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TraceRecord {
    pub time_ns: u64,
    pub op: IoOp,
    pub offset_bytes: u64,
    pub size_bytes: u64,
    /// Device, volume, LUN or ASU number where the format has one, else 0.
    pub device: u32,
}

/// Anything that yields host requests in arrival order (a trace, the synthetic generator).
pub trait RecordSource {
    /// The next request of the one stream (or, for a source of independent jobs, the next of
    /// each job in turn: what an open loop issues).
    fn next_record(&mut self) -> Result<Option<TraceRecord>>;
    /// Independent jobs, as fio's threads (`numjobs` with `offset_increment`): how many, or
    /// `None` for one stream (the default). A closed loop then asks `next_record_of(job)` when a
    /// request of that job completes, so each job advances on its own completions.
    fn jobs(&self) -> Option<u32> {
        None
    }
    /// The next request of job `job` (below `jobs()`). `None` ends the workload for every job.
    /// Default: the shared stream.
    fn next_record_of(&mut self, job: u32) -> Result<Option<TraceRecord>> {
        let _ = job;
        self.next_record()
    }
    /// The closed loop's queue depth a source sets itself (a workload spec's `[arrival]`):
    /// `Some(Some(depth))` closed, `Some(None)` open loop, `None` (the default) as the config says.
    fn arrival_model(&self) -> Option<Option<u32>> {
        None
    }
    /// Requests the source will yield, when it knows (for progress), else `None`.
    fn expected_records(&self) -> Option<u64> {
        None
    }
    /// Lines skipped as malformed (traces with `on_bad_line = "skip"`).
    fn skipped(&self) -> u64 {
        0
    }
    /// What the trace reader did (format, blkparse events, device layout), for the report;
    /// `None` for sources that are not traces.
    fn trace_info(&self) -> Option<TraceInfo> {
        None
    }
}
