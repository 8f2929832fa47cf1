//! The configuration's JSON Schema, for Python (`ssdlab config schema`, the docs generator).

use pyo3::prelude::*;

/// The JSON Schema (draft 07) of a configuration file, as JSON text.
#[pyfunction]
pub fn config_schema() -> String {
    ssdlab_core::config_schema_json()
}

/// The JSON Schema (draft 07) of a workload spec file, as JSON text.
#[pyfunction]
pub fn workload_spec_schema() -> String {
    ssdlab_core::workload::spec::WorkloadSpec::json_schema()
}
