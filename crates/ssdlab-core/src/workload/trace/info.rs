//! Layer: workload (trace readers). What a trace reader did with a file: the format it read,
//! its line ends, the blkparse events it replayed, how it laid out the trace's devices, and the
//! lines it passed over (ignored as not requests, or skipped as unreadable: counted by problem,
//! the first few quoted with their line numbers, so nothing is dropped unseen). Plain serialisable
//! data, small whatever the trace: it goes into every run report (`workload.trace`) and into
//! `ssdlab trace stats`. A leaf: it imports only `options.rs`, so `workload/request.rs` can name
//! it without a cycle.

use std::collections::BTreeMap;

use serde::Serialize;

use super::options::{BlkparseEvent, TraceFormat};

/// How many devices [`TraceInfo::device_ranges`] lists (the first ones in device order); the
/// count says how many there are in all.
pub const LISTED_DEVICES: usize = 8;

/// How many skipped lines [`LineCounts::first_skipped`] quotes.
pub const QUOTED_SKIPS: usize = 3;

/// What a trace reader did: reported, never configured.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TraceInfo {
    /// The format read: the one given, or the one detected from the content.
    pub format: TraceFormat,
    /// The line ends of a text trace, detected from its first 64 KiB (`null` for the binary
    /// format): `lf`, `crlf`, or `cr` (classic Mac OS), which every text reader splits at.
    pub line_ends: Option<LineEnds>,
    /// blkparse only: the events replayed, `queue` (Q) or `issue` (D), after `auto` was
    /// resolved; `null` for every other format.
    pub blkparse_event: Option<BlkparseEvent>,
    /// What was done with the devices.
    pub devices: DeviceHandling,
    /// Distinct devices in the whole file, from the pre-scan. 1 for a format without a device
    /// column; `null` when nothing was scanned (`merge`, `select`, or a stream that cannot be
    /// read twice).
    pub device_count: Option<u64>,
    /// The layout of the first [`LISTED_DEVICES`] devices in device order (empty when nothing
    /// was scanned or the format has no device column).
    pub device_ranges: Vec<DeviceRange>,
    /// End of the last device's range in the replayed address space, in bytes: the logical space
    /// the devices need to stay disjoint after modulo folding (`null` when nothing was scanned).
    pub layout_end_bytes: Option<u64>,
    /// The lines passed over (records, for the binary format), filled in as the reader goes.
    #[serde(flatten)]
    pub lines: LineCounts,
}

/// The line end a text trace uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LineEnds {
    /// `\n` (Unix).
    Lf,
    /// `\r\n` (Windows).
    Crlf,
    /// `\r` alone (classic Mac OS).
    Cr,
}

impl LineEnds {
    /// The byte a line ends at (a CRLF line's `\r` is trimmed with the blanks).
    pub fn delimiter(self) -> u8 {
        match self {
            LineEnds::Lf | LineEnds::Crlf => b'\n',
            LineEnds::Cr => b'\r',
        }
    }

    /// The line ends of a text whose first bytes are `head`: `cr` when it has carriage returns
    /// and no line feed, `crlf` when its first line feed follows a carriage return, else `lf`.
    pub fn detect(head: &[u8]) -> LineEnds {
        match head.iter().position(|&b| b == b'\n') {
            Some(at) if at > 0 && head[at - 1] == b'\r' => LineEnds::Crlf,
            Some(_) => LineEnds::Lf,
            None if head.contains(&b'\r') => LineEnds::Cr,
            None => LineEnds::Lf,
        }
    }
}

/// The lines a reader passed over. A line is either a request, blank or a comment, ignored (a
/// header, an event or operation the format defines but does not replay: blkparse's other
/// events and summary, CloudPhysics' non-data commands), or skipped as unreadable under
/// `on_bad_line = "skip"` (counted here by problem, never silently; under `"error"` the first
/// one stops the read).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct LineCounts {
    /// Lines recognised as not requests.
    pub ignored_lines: u64,
    /// Lines (binary records) skipped as unreadable.
    pub skipped_lines: u64,
    /// The skipped lines by problem: `missing_field`, `not_a_number`, `unknown_op`,
    /// `zero_size`, `too_large`, `binary`, ... (see docs/traces.md).
    pub skipped_by_problem: BTreeMap<&'static str, u64>,
    /// The first [`QUOTED_SKIPS`] skipped lines: where, and what was wrong.
    pub first_skipped: Vec<SkippedLine>,
}

/// One skipped line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SkippedLine {
    /// Its 1-based line number (record number in a binary trace).
    pub line: u64,
    /// The problem's id (a key of [`LineCounts::skipped_by_problem`]).
    pub problem: &'static str,
    /// What was wrong, with the line quoted.
    pub reason: String,
}

impl LineCounts {
    /// Count a skipped line; the first few keep their reason (built only for them).
    pub fn skip(&mut self, line: u64, problem: &'static str, reason: impl FnOnce() -> String) {
        self.skipped_lines += 1;
        *self.skipped_by_problem.entry(problem).or_insert(0) += 1;
        if self.first_skipped.len() < QUOTED_SKIPS {
            self.first_skipped.push(SkippedLine { line, problem, reason: reason() });
        }
    }

    /// Add another pass's counts (a repeated replay reads the file again).
    pub fn merge(&mut self, other: &LineCounts) {
        self.ignored_lines += other.ignored_lines;
        self.skipped_lines += other.skipped_lines;
        for (&problem, &count) in &other.skipped_by_problem {
            *self.skipped_by_problem.entry(problem).or_insert(0) += count;
        }
        for skipped in &other.first_skipped {
            let listed = self.first_skipped.iter().any(|s| s.line == skipped.line);
            if self.first_skipped.len() < QUOTED_SKIPS && !listed {
                self.first_skipped.push(skipped.clone());
            }
        }
    }
}

/// What was done with a trace's devices.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DeviceHandling {
    /// Disjoint ranges laid back to back (`devices = "separate"`, the default).
    Separate,
    /// Every device at its own offsets (`devices = "merge"`).
    Merge,
    /// Only the device `device = N` names, at its own offsets.
    Select,
}

/// Where one device's requests went.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct DeviceRange {
    /// The device, volume, LUN or ASU number as the reader reports it.
    pub device: u32,
    /// Requests of this device in the whole file (before the time, operation and count
    /// filters).
    pub requests: u64,
    /// The device's extent in the trace's own addresses, widened to 1 MiB boundaries:
    /// `[trace_start_bytes, trace_end_bytes)`.
    pub trace_start_bytes: u64,
    pub trace_end_bytes: u64,
    /// Where that extent starts in the replayed address space; it ends at
    /// `start_bytes + (trace_end_bytes - trace_start_bytes)`.
    pub start_bytes: u64,
}
