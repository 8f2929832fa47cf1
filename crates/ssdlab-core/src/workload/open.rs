//! Layer: workload. Opening a workload for a run: the source its config names (the generator, a
//! trace, a spec) and what the event loop needs to know of it (closed or open loop and the
//! queue depth, independent jobs, how many requests to expect, when to stop issuing). The one
//! place that tells the kinds of workload (`WorkloadKind`) apart.

use crate::error::{Error, Result};
use crate::rng::{rng_for, RngStream};
use crate::units::SimTime;
use crate::workload::config::{Arrival, Replay, WorkloadConfig, WorkloadKind};
use crate::workload::host::Host;
use crate::workload::request::RecordSource;
use crate::workload::spec::{SpecSource, WorkloadSpec};
use crate::workload::synthetic::SyntheticSource;
use crate::workload::trace::TraceInfo;

/// Synthetic requests when neither `workload.count` nor `workload.duration_ns` is set.
pub const DEFAULT_SYNTHETIC_COUNT: u64 = 100_000;

/// The drive's logical space a workload is opened on: its page size and the logical pages the
/// workload may use (`device.utilization` of them).
#[derive(Debug, Clone, Copy)]
pub struct HostSpace {
    pub page_bytes: u64,
    pub used_pages: u32,
}

/// A workload opened for a run: the host over its source, and how the event loop drives it.
pub struct OpenWorkload {
    pub host: Host,
    /// Closed loop: the requests kept outstanding (a spec sets its own, the others take
    /// `iodepth x numjobs`). None: open loop, requests issued at their arrival times.
    pub closed_depth: Option<u32>,
    /// In closed loop, the source's independent jobs (`RecordSource::jobs`); None: one stream
    /// (an open loop's jobs take turns in it).
    pub jobs: Option<u32>,
    /// Requests the run will issue, when known (for progress).
    pub expected_requests: Option<u64>,
    /// Nothing is issued after this simulated time (`workload.duration_ns`).
    pub stop_after_ns: Option<SimTime>,
    /// What the trace reader did, as known when it opened (None for other sources).
    pub trace: Option<TraceInfo>,
}

/// Open the workload `w` names: its source (the generator and a spec draw from `seed`'s
/// workload stream) and how it runs.
pub fn open(w: &WorkloadConfig, spec: Option<&WorkloadSpec>, seed: u64, space: HostSpace) -> Result<OpenWorkload> {
    let source = open_source(w, spec, seed, space)?;
    Ok(open_with_source(w, space, source))
}

/// The source of requests `w` names; a spec workload draws from `spec`, the spec its checked
/// config read (`ValidatedConfig::workload_spec`), so the file is parsed once per load.
pub fn open_source(
    w: &WorkloadConfig,
    spec: Option<&WorkloadSpec>,
    seed: u64,
    space: HostSpace,
) -> Result<Box<dyn RecordSource + Send>> {
    Ok(match w.kind {
        WorkloadKind::Synthetic => {
            let count = match (w.count, w.duration_ns) {
                (Some(c), _) => Some(c),
                (None, Some(_)) => None,
                (None, None) => Some(DEFAULT_SYNTHETIC_COUNT),
            };
            let bytes = space.used_pages as u64 * space.page_bytes;
            Box::new(SyntheticSource::new(w, bytes, count, rng_for(seed, RngStream::Workload)))
        }
        WorkloadKind::Trace => crate::workload::trace::open_source(w)?,
        WorkloadKind::Spec => {
            let spec = spec.ok_or_else(|| {
                Error::config("workload.spec", "a spec workload needs a spec (a file or a built-in name)")
            })?;
            Box::new(SpecSource::new(spec, w.count, rng_for(seed, RngStream::Workload)))
        }
    })
}

/// Run the workload `w` describes with requests drawn from `source` (the one `w` names, or
/// another of the caller's).
pub fn open_with_source(w: &WorkloadConfig, space: HostSpace, source: Box<dyn RecordSource + Send>) -> OpenWorkload {
    let closed = match w.kind {
        WorkloadKind::Synthetic => w.arrival == Arrival::Closed,
        WorkloadKind::Trace => w.replay == Replay::Closed,
        WorkloadKind::Spec => source.arrival_model().is_some_and(|depth| depth.is_some()),
    };
    // A spec sets its own queue depth; the others take the config's.
    let closed_depth = match source.arrival_model() {
        Some(depth) if w.kind == WorkloadKind::Spec => depth,
        _ => closed.then(|| w.queue_depth()),
    };
    let rebase = w.kind == WorkloadKind::Trace;
    let trace = source.trace_info();
    let source_expects = source.expected_records();
    let host = Host::new(source, space.page_bytes, space.used_pages, w.fold, w.speedup, rebase);
    // A trace or spec may address more than the drive holds: its footprint says what fits.
    let host = if w.kind == WorkloadKind::Synthetic { host } else { host.count_footprint() };
    // Open loop issues at arrival times, not completions: its jobs take turns (`next_record`).
    let jobs = host.jobs().filter(|_| closed);
    let expected_requests = match w.kind {
        WorkloadKind::Synthetic if w.duration_ns.is_none() => Some(w.count.unwrap_or(DEFAULT_SYNTHETIC_COUNT)),
        WorkloadKind::Spec => w.count.or(source_expects),
        _ => w.count,
    };
    OpenWorkload { host, closed_depth, jobs, expected_requests, stop_after_ns: w.duration_ns, trace }
}
