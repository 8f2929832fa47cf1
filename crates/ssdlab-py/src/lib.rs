//! PyO3 bindings for ssdlab-core: the `ssdlab._core` extension module. Registration only; the
//! exception classes and the one error mapping live in `errors.rs`, the wrapped types in `sim.rs`.
//! No simulator logic here.

mod buffers;
mod config;
mod errors;
mod sim;
mod trace;
mod vector;
mod workers;

use pyo3::prelude::*;

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    errors::register(m)?;
    m.add_class::<sim::Simulation>()?;
    m.add_class::<sim::WarmDrive>()?;
    m.add_class::<vector::VecSimulation>()?;
    m.add_class::<trace::TraceRecords>()?;
    m.add_function(wrap_pyfunction!(sim::presets, m)?)?;
    m.add_function(wrap_pyfunction!(sim::preset_toml, m)?)?;
    m.add_function(wrap_pyfunction!(sim::preset_sizes, m)?)?;
    m.add_function(wrap_pyfunction!(sim::workload_patterns, m)?)?;
    m.add_function(wrap_pyfunction!(sim::workload_toml, m)?)?;
    m.add_function(wrap_pyfunction!(sim::resolve_config, m)?)?;
    m.add_function(wrap_pyfunction!(sim::config_renames, m)?)?;
    m.add_function(wrap_pyfunction!(sim::config_key_suggestions, m)?)?;
    m.add_function(wrap_pyfunction!(config::config_schema, m)?)?;
    m.add_function(wrap_pyfunction!(config::workload_spec_schema, m)?)?;
    m.add_function(wrap_pyfunction!(config::is_spec_toml, m)?)?;
    m.add_function(wrap_pyfunction!(trace::trace_stats, m)?)?;
    m.add_function(wrap_pyfunction!(trace::trace_convert, m)?)?;
    m.add_function(wrap_pyfunction!(trace::trace_detect, m)?)?;
    m.add_function(wrap_pyfunction!(trace::trace_fit, m)?)?;
    m.add_function(wrap_pyfunction!(trace::spec_names, m)?)?;
    m.add_function(wrap_pyfunction!(trace::spec_toml, m)?)?;
    Ok(())
}
