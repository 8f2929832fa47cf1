//! Trace statistics and conversion, wrapped for Python (`ssdlab trace stats|convert`).

use std::path::Path;

use pyo3::prelude::*;
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
