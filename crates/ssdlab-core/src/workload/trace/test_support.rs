//! Layer: workload (trace readers), tests only. Finds the shared real traces and reads records
//! without the option filters, so format tests see the file's own order.
//!
//! The shared traces sit beside every checkout (`../shared/traces`), for CI and every
//! developer, so a missing file fails the test that needs it: a test that quietly returns
//! checks nothing. Whoever builds the crate elsewhere sets `SSDLAB_SKIP_SHARED_TRACES=1`; each
//! such test then says on the terminal that it skipped and why.

use std::io::{Cursor, Write};
use std::path::{Path, PathBuf};

use super::{open_unfiltered, TraceFormat, TraceOptions, TraceReader};
use crate::error::Result;
use crate::workload::{IoOp, TraceRecord};

/// The shared real traces: `shared/` sits beside the repository checkout.
pub(crate) const TRACES_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/traces");

/// The environment variable that turns a missing shared trace from a failure into a skip.
pub(crate) const SKIP_VARIABLE: &str = "SSDLAB_SKIP_SHARED_TRACES";

/// The path of a shared trace. When the file is absent: a test failure, or `None` (after a
/// note on the terminal) with `SSDLAB_SKIP_SHARED_TRACES=1`.
pub(crate) fn shared_trace(relative: &str) -> Option<PathBuf> {
    let path = Path::new(TRACES_DIR).join(relative);
    if path.is_file() {
        return Some(path);
    }
    let test = std::thread::current().name().unwrap_or("a test").to_string();
    if std::env::var_os(SKIP_VARIABLE).is_some_and(|value| value == "1") {
        // Straight to the terminal: the test harness captures `eprintln!` of passing tests.
        let _ = writeln!(std::io::stderr(), "SKIPPED {test}: {} is absent and {SKIP_VARIABLE}=1", path.display());
        return None;
    }
    panic!(
        "{} is absent: the shared real traces belong in ../shared/traces beside the checkout. \
         Building away from them? Set {SKIP_VARIABLE}=1 to skip the tests that need them.",
        path.display()
    );
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
