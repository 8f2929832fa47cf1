//! Layer: workload (trace readers). The trait every format reader implements.

use super::info::{LineCounts, TraceInfo};
use crate::error::Result;
use crate::workload::TraceRecord;

/// A stream of trace requests.
pub trait TraceReader {
    /// The next request, `None` at the end of the trace.
    fn next_record(&mut self) -> Result<Option<TraceRecord>>;

    /// How far the reader has read: the 1-based number of the last line read (text formats) or
    /// record read (binary format). Filters read ahead, so this can be past the line of the
    /// request just returned.
    fn line(&self) -> u64;

    /// Malformed lines skipped under `on_bad_line = "skip"`.
    fn skipped_lines(&self) -> u64;

    /// Requests whose time was clamped under `on_out_of_order = "clamp"`.
    fn clamped_records(&self) -> u64 {
        0
    }

    /// The lines passed over so far: ignored as not requests, skipped as unreadable (by
    /// problem, the first few quoted). Empty for a reader that passes over nothing.
    fn line_counts(&self) -> LineCounts {
        LineCounts::default()
    }

    /// What the reader did with the file (format, blkparse events, device layout); `None` for a
    /// bare format reader, `Some` for what [`open`](super::open) and
    /// [`from_reader`](super::from_reader) return.
    fn info(&self) -> Option<TraceInfo> {
        None
    }
}
