//! Trace statistics, conversion, fitting and synthesis, wrapped for Python (`ssdlab trace
//! stats|convert|fit|synth`), and the built-in workload specs.

use std::path::Path;

use pyo3::prelude::*;
use ssdlab_core::workload::spec::fit::{self, FitOptions};
use ssdlab_core::workload::spec::{presets, WorkloadSpec};
use ssdlab_core::workload::trace::{self, TraceOptions};

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

/// Convert a trace to ssdlab's compact binary format; returns the number of records written.
#[pyfunction]
pub fn trace_convert(py: Python<'_>, path: &str, out: &str, options_toml: &str) -> PyResult<u64> {
    let options = TraceOptions::from_toml(options_toml).py_err(py)?;
    let result = py.allow_threads(|| {
        let mut reader = trace::open(Path::new(path), &options)?;
        trace::convert(reader.as_mut(), Path::new(out))
    });
    result.py_err(py)
}

/// The format detected from a file's content.
#[pyfunction]
pub fn trace_detect(py: Python<'_>, path: &str) -> PyResult<String> {
    Ok(trace::detect(Path::new(path)).py_err(py)?.id().to_string())
}

/// Fit a workload spec to a trace (`ssdlab trace fit`): the spec as TOML, the warnings (figures
/// the trace is too short to fit) and the trace's statistics as JSON.
#[pyfunction]
#[pyo3(signature = (path, options_toml, page_bytes = 4096, requests = None, address_space_bytes = None))]
pub fn trace_fit(
    py: Python<'_>,
    path: &str,
    options_toml: &str,
    page_bytes: u64,
    requests: Option<u64>,
    address_space_bytes: Option<u64>,
) -> PyResult<(String, Vec<String>, String)> {
    let options = TraceOptions::from_toml(options_toml).py_err(py)?;
    let name = Path::new(path).file_name().map(|n| n.to_string_lossy().into_owned());
    let fit_options = FitOptions { requests, address_space_bytes, name };
    let result = py.allow_threads(|| {
        let mut reader = trace::open(Path::new(path), &options)?;
        fit::fit(reader.as_mut(), page_bytes, path, &fit_options)
    });
    let fitted = result.py_err(py)?;
    let stats = serde_json::to_string(&fitted.stats).unwrap_or_default();
    Ok((fitted.spec.to_toml().py_err(py)?, fitted.warnings, stats))
}

/// Draw a workload spec (a file or a built-in name) into a binary trace (`ssdlab trace synth`);
/// returns the number of records written.
#[pyfunction]
#[pyo3(signature = (spec, out, requests = None, seed = 1))]
pub fn trace_synth(py: Python<'_>, spec: &str, out: &str, requests: Option<u64>, seed: u64) -> PyResult<u64> {
    let result = py.allow_threads(|| {
        let spec = WorkloadSpec::load(Path::new(spec))?;
        let mut writer = trace::binary::BinaryWriter::create(Path::new(out))?;
        for record in fit::generate(&spec, requests, seed) {
            writer.write(&record)?;
        }
        writer.finish()
    });
    result.py_err(py)
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
