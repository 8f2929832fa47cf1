//! The configuration's JSON Schema, for Python (`ssdlab config schema`, the docs generator).

use pyo3::prelude::*;

/// The JSON Schema (draft 07) of a configuration file, as JSON text.
#[pyfunction]
pub fn config_schema() -> String {
    ssdlab_core::config_schema_json()
}

/// Whether TOML text is a workload spec rather than a config layer (None: not TOML); the core's
/// one answer (`config::is_spec_toml`).
#[pyfunction]
pub fn is_spec_toml(text: &str) -> Option<bool> {
    ssdlab_core::config::is_spec_toml(text)
}

/// The JSON Schema (draft 07) of a workload spec file, as JSON text.
#[pyfunction]
pub fn workload_spec_schema() -> String {
    ssdlab_core::workload::spec::WorkloadSpec::json_schema()
}
