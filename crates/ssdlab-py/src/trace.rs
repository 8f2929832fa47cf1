//! Trace statistics, conversion, fitting and synthesis, wrapped for Python (`ssdlab trace
//! stats|convert|fit|synth`), a trace's records into arrays (`ssdlab.trace.read`), and the
//! built-in workload specs.

use std::path::Path;
use std::sync::Mutex;

use pyo3::buffer::PyBuffer;
use pyo3::prelude::*;
use ssdlab_core::workload::spec::fit::{self, FitOptions};
use ssdlab_core::workload::spec::{presets, WorkloadSpec};
use ssdlab_core::workload::trace::{self, writer, OutputFormat, TraceFormat, TraceOptions, TraceReader};
use ssdlab_core::workload::IoOp;

use crate::errors::IntoPy;

/// Statistics of one trace as JSON. `options_toml` holds `[workload.trace]`-style keys.
#[pyfunction]
#[pyo3(signature = (path, options_toml, page_bytes = 4096))]
pub fn trace_stats(py: Python<'_>, path: &str, options_toml: &str, page_bytes: u64) -> PyResult<String> {
    let options = TraceOptions::from_toml(options_toml).py_err(py)?;
    let result = py.allow_threads(|| {
        let mut reader = trace::open(Path::new(path), &options)?;
        trace::stats::compute(reader.as_mut(), page_bytes)
    });
    let stats = result.py_err(py)?;
    Ok(serde_json::to_string_pretty(&stats).unwrap_or_default())
}

/// Write a trace (read with `options_toml`), or a workload spec (a file or a built-in name,
/// `spec = true`, drawn for `requests` with `seed`), in the format `to` (`trace convert --to`):
/// (records written, trims skipped, records widened to whole sectors).
#[pyfunction]
#[pyo3(signature = (path, out, options_toml, to = "binary", spec = false, requests = None, seed = 1))]
#[allow(clippy::too_many_arguments)]
pub fn trace_convert(
    py: Python<'_>,
    path: &str,
    out: &str,
    options_toml: &str,
    to: &str,
    spec: bool,
    requests: Option<u64>,
    seed: u64,
) -> PyResult<(u64, u64, u64)> {
    let options = TraceOptions::from_toml(options_toml).py_err(py)?;
    let format: OutputFormat = to.parse().py_err(py)?;
    let out = Path::new(out);
    let result = py.allow_threads(|| {
        if spec {
            let spec = WorkloadSpec::load(Path::new(path))?;
            writer::write_all(fit::generate(&spec, requests, seed).map(Ok), out, format)
        } else {
            let mut reader = trace::open(Path::new(path), &options)?;
            writer::write_all(std::iter::from_fn(|| reader.next_record().transpose()), out, format)
        }
    });
    let summary = result.py_err(py)?;
    Ok((summary.records, summary.skipped_trims, summary.widened_to_sectors))
}

/// A trace's records, read in chunks into arrays Python owns (`ssdlab.trace.read`): the core's
/// reader does the parsing, the bindings only copy.
#[pyclass(module = "ssdlab._core")]
pub struct TraceRecords {
    // A Mutex for Sync, as `Simulation`'s; Python calls never contend for it.
    reader: Mutex<Box<dyn TraceReader + Send>>,
    left: Option<u64>,
    has_device: bool,
    format: String,
}

#[pymethods]
impl TraceRecords {
    /// Open `path` with `options_toml`; at most `limit` records are delivered.
    #[new]
    #[pyo3(signature = (path, options_toml, limit = None))]
    fn new(py: Python<'_>, path: &str, options_toml: &str, limit: Option<u64>) -> PyResult<Self> {
        let options = TraceOptions::from_toml(options_toml).py_err(py)?;
        let reader = py.allow_threads(|| trace::open(Path::new(path), &options)).py_err(py)?;
        let format = reader.info().map_or(TraceFormat::Auto, |info| info.format);
        Ok(TraceRecords {
            has_device: trace::has_device_column(format, &options),
            format: format.id().to_string(),
            reader: Mutex::new(reader),
            left: limit,
        })
    }

    /// Whether the format has a device column of its own.
    #[getter]
    fn has_device(&self) -> bool {
        self.has_device
    }

    /// The format read (detected or named).
    #[getter]
    fn format(&self) -> String {
        self.format.clone()
    }

    /// Fill the arrays (one-dimensional, writable, as long as each other) with the next records,
    /// from their start; returns how many were filled (fewer than their length at the end).
    /// `op` gets 0 = read, 1 = write, 2 = trim.
    fn fill(
        &mut self,
        py: Python<'_>,
        arrival_ns: PyBuffer<u64>,
        op: PyBuffer<u8>,
        offset_bytes: PyBuffer<u64>,
        size_bytes: PyBuffer<u64>,
        device: PyBuffer<u32>,
    ) -> PyResult<usize> {
        let capacity = arrival_ns.item_count();
        crate::buffers::writable(&arrival_ns, "arrival_ns", None)?;
        crate::buffers::writable(&op, "op", Some(capacity))?;
        crate::buffers::writable(&offset_bytes, "offset_bytes", Some(capacity))?;
        crate::buffers::writable(&size_bytes, "size_bytes", Some(capacity))?;
        crate::buffers::writable(&device, "device", Some(capacity))?;
        let wanted = self.left.map_or(capacity, |left| capacity.min(usize::try_from(left).unwrap_or(usize::MAX)));
        let mut guard = self.reader.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let reader = &mut *guard;
        let records = py
            .allow_threads(|| {
                let mut records = Vec::with_capacity(wanted);
                while records.len() < wanted {
                    match reader.next_record()? {
                        Some(record) => records.push(record),
                        None => break,
                    }
                }
                Ok::<_, ssdlab_core::error::Error>(records)
            })
            .py_err(py)?;
        let cells = (
            arrival_ns.as_mut_slice(py).expect("checked writable"),
            op.as_mut_slice(py).expect("checked writable"),
            offset_bytes.as_mut_slice(py).expect("checked writable"),
            size_bytes.as_mut_slice(py).expect("checked writable"),
            device.as_mut_slice(py).expect("checked writable"),
        );
        for (i, record) in records.iter().enumerate() {
            cells.0[i].set(record.time_ns);
            cells.1[i].set(match record.op {
                IoOp::Read => 0,
                IoOp::Write => 1,
                IoOp::Trim => 2,
            });
            cells.2[i].set(record.offset_bytes);
            cells.3[i].set(record.size_bytes);
            cells.4[i].set(record.device);
        }
        if let Some(left) = &mut self.left {
            *left -= records.len() as u64;
        }
        Ok(records.len())
    }

    /// Lines skipped under `on_bad_line = "skip"` so far.
    #[getter]
    fn skipped_lines(&self) -> u64 {
        self.reader.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).skipped_lines()
    }
}

/// The format detected from a file's content.
#[pyfunction]
pub fn trace_detect(py: Python<'_>, path: &str) -> PyResult<String> {
    Ok(trace::detect(Path::new(path)).py_err(py)?.id().to_string())
}

/// Fit a workload spec to a trace (`ssdlab trace fit`): the spec as TOML, the warnings (figures
/// the trace is too short to fit, or the spec cannot reach), the trace's statistics as JSON
/// and the comparison of the key figures (the spec drawn beside the trace) as JSON.
#[pyfunction]
#[pyo3(signature = (path, options_toml, page_bytes = 4096, requests = None, address_space_bytes = None, tolerance = None))]
pub fn trace_fit(
    py: Python<'_>,
    path: &str,
    options_toml: &str,
    page_bytes: u64,
    requests: Option<u64>,
    address_space_bytes: Option<u64>,
    tolerance: Option<f64>,
) -> PyResult<(String, Vec<String>, String, String)> {
    let options = TraceOptions::from_toml(options_toml).py_err(py)?;
    let name = Path::new(path).file_name().map(|n| n.to_string_lossy().into_owned());
    let fit_options = FitOptions { requests, address_space_bytes, name, tolerance };
    let result = py.allow_threads(|| {
        let mut reader = trace::open(Path::new(path), &options)?;
        fit::fit(reader.as_mut(), page_bytes, path, &fit_options)
    });
    let fitted = result.py_err(py)?;
    let stats = serde_json::to_string(&fitted.stats).unwrap_or_default();
    let comparison = serde_json::to_string(&fitted.comparison).unwrap_or_default();
    Ok((fitted.spec.to_toml().py_err(py)?, fitted.warnings, stats, comparison))
}

/// The names of the built-in workload specs.
#[pyfunction]
pub fn spec_names() -> Vec<&'static str> {
    presets::names()
}

/// A built-in workload spec's TOML.
#[pyfunction]
pub fn spec_toml(name: &str) -> Option<&'static str> {
    presets::spec(name)
}
