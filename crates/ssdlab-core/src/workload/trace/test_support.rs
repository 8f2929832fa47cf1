//! Layer: workload (trace readers), tests only. Finds the shared real traces and reads records
//! without the option filters, so format tests see the file's own order.

use std::io::Cursor;
use std::path::{Path, PathBuf};

use super::{open_unfiltered, TraceFormat, TraceOptions, TraceReader};
use crate::error::Result;
use crate::workload::{IoOp, TraceRecord};

/// The shared real traces: `shared/` sits beside the repository checkout.
pub(crate) const TRACES_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/traces");

/// The path of a shared trace, or `None` (with a message) when the folder is absent.
pub(crate) fn shared_trace(relative: &str) -> Option<PathBuf> {
    let path = Path::new(TRACES_DIR).join(relative);
    if path.exists() {
        Some(path)
    } else {
        eprintln!("skipping: {} is absent (the shared traces folder is not beside the checkout)", path.display());
        None
    }
}

/// The first `count` records of a file, read with an explicit format and no filters.
pub(crate) fn first_records(path: &Path, format: TraceFormat, count: usize) -> Vec<TraceRecord> {
    let file = std::fs::File::open(path).unwrap();
    let mut reader = open_unfiltered(Box::new(file), path, &TraceOptions::with_format(format)).unwrap();
    let mut records = Vec::new();
    while records.len() < count {
        match reader.next_record().unwrap() {
            Some(record) => records.push(record),
            None => break,
        }
    }
    records
}

/// Every record of an in-memory trace, read with the given options but without filters.
pub(crate) fn parse_text(text: &[u8], options: &TraceOptions) -> Result<Vec<TraceRecord>> {
    let mut reader = open_unfiltered(Box::new(Cursor::new(text.to_vec())), Path::new("test.trace"), options)?;
    let mut records = Vec::new();
    while let Some(record) = reader.next_record()? {
        records.push(record);
    }
    Ok(records)
}

/// Shorthand for an expected record.
pub(crate) fn record(time_ns: u64, op: IoOp, offset_bytes: u64, size_bytes: u64, device: u32) -> TraceRecord {
    TraceRecord { time_ns, op, offset_bytes, size_bytes, device }
}

/// Drain a reader, returning the records and the reader for its counters.
pub(crate) fn drain(reader: &mut dyn TraceReader) -> Result<Vec<TraceRecord>> {
    let mut records = Vec::new();
    while let Some(record) = reader.next_record()? {
        records.push(record);
    }
    Ok(records)
}
