//! Layer: workload (trace readers). What a trace reader did with a file: the format it read,
//! the blkparse events it replayed and how it laid out the trace's devices. Plain serialisable
//! data, small whatever the trace: it goes into every run report (`workload.trace`) and into
//! `ssdlab trace stats`. A leaf: it imports only `options.rs`, so `workload/request.rs` can name
//! it without a cycle.

use serde::Serialize;

use super::options::{BlkparseEvent, TraceFormat};

/// How many devices [`TraceInfo::device_ranges`] lists (the first ones in device order); the
/// count says how many there are in all.
pub const LISTED_DEVICES: usize = 8;

/// What a trace reader did: reported, never configured.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TraceInfo {
    /// The format read: the one given, or the one detected from the content.
    pub format: TraceFormat,
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
