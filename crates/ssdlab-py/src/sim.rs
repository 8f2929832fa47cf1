//! `Simulation` and the configuration helpers, wrapped for Python. Stepping releases the GIL.

use pyo3::buffer::PyBuffer;
use pyo3::prelude::*;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard};

use ssdlab_core::config::{
    presets as core_presets, to_toml, to_toml_with_origins, ConfigOverride, ConfigWarning, Layer,
};
use ssdlab_core::load_config;
use ssdlab_core::ValidatedConfig;

use crate::errors::IntoPy;
use ssdlab_core::decision::{Decision, DecisionKind};

/// A decision as Python receives it: (observation, mask, reward, builtin_action, reward_parts).
type Step = (Vec<f64>, Vec<bool>, f64, u32, Vec<f64>);

/// A decision whose observation and mask went into the bound arrays (`bind_decisions`):
/// (reward, builtin_action, reward_parts).
type Written = (f64, u32, Vec<f64>);

/// The arrays `advance_into` / `act_into` write a decision's observation and mask into.
struct DecisionBuffers {
    obs: PyBuffer<f32>,
    mask: PyBuffer<i8>,
}

fn step(d: Decision) -> Step {
    (d.observation, d.mask, d.reward, d.builtin_action, d.reward_parts)
}

/// A layer as Python passes it: (origin, TOML, generated: made from the caller's arguments, not
/// written by the user, so messages give it no line).
pub type RawLayer = (Option<String>, String, bool);

fn layers(raw: Vec<RawLayer>) -> Vec<Layer> {
    raw.into_iter()
        .map(|(origin, text, generated)| Layer { origin: origin.map(PathBuf::from), text, generated })
        .collect()
}

/// A configuration as Python passes it: (preset, layers, overrides).
pub type RawConfig = (Option<String>, Vec<RawLayer>, Vec<String>);

/// `RawConfig` -> validated config (ConfigError with every problem).
pub fn config_of(py: Python<'_>, (preset, raw_layers, overrides): RawConfig) -> PyResult<ValidatedConfig> {
    validated(py, preset.as_deref(), raw_layers, overrides)
}

fn validated(
    py: Python<'_>,
    preset: Option<&str>,
    raw_layers: Vec<RawLayer>,
    overrides: Vec<String>,
) -> PyResult<ValidatedConfig> {
    load_config(preset, &layers(raw_layers), &overrides).py_err(py)
}

#[pyfunction]
pub fn presets() -> Vec<&'static str> {
    core_presets::names()
}

#[pyfunction]
pub fn preset_toml(name: &str) -> Option<&'static str> {
    core_presets::device_preset(name)
}

/// Every built-in device preset's capacity at its own utilization (name, raw_bytes,
/// logical_bytes, used_logical_bytes, utilization), smallest used logical space first.
#[pyfunction]
pub fn preset_sizes(py: Python<'_>) -> PyResult<PyObject> {
    pythonize::pythonize(py, &ssdlab_core::catalog::preset_sizes())
        .map(|bound| bound.unbind())
        .map_err(|e| pyo3::exceptions::PyRuntimeError::new_err(format!("preset sizes conversion: {e}")))
}

#[pyfunction]
pub fn workload_patterns() -> Vec<&'static str> {
    core_presets::workload_names()
}

#[pyfunction]
pub fn workload_toml(name: &str) -> Option<&'static str> {
    core_presets::workload_preset(name)
}

/// A loader warning as (origin, line, key, replacement, message): `ssdlab.config` raises it as a
/// Python warning.
pub type Warning = (String, Option<usize>, String, String, String);

fn warnings(cfg: &ValidatedConfig) -> Vec<Warning> {
    cfg.warnings()
        .iter()
        .map(|w: &ConfigWarning| (w.origin.clone(), w.line, w.key.clone(), w.replacement.clone(), w.message()))
        .collect()
}

/// A key a later layer overrode: (key, [(value as TOML or None: its default, origin)], the
/// line `key: A (from X) -> B (from Y)`).
pub type Overridden = (String, Vec<(Option<String>, String)>, String);

fn overridden(cfg: &ValidatedConfig) -> Vec<Overridden> {
    cfg.overridden()
        .into_iter()
        .map(|o: ConfigOverride| {
            let line = o.to_string();
            (o.key, o.steps.into_iter().map(|s| (s.value, s.origin)).collect(), line)
        })
        .collect()
}

/// The fully resolved, validated configuration as TOML (with each value's origin as a comment
/// if `origins`), what loading it warned about, and the keys a later layer overrode.
#[pyfunction]
#[pyo3(signature = (preset, layers, overrides, origins=false))]
pub fn resolve_config(
    py: Python<'_>,
    preset: Option<&str>,
    layers: Vec<RawLayer>,
    overrides: Vec<String>,
    origins: bool,
) -> PyResult<(String, Vec<Warning>, Vec<Overridden>)> {
    let cfg = validated(py, preset, layers, overrides)?;
    let text = if origins { to_toml_with_origins(&cfg) } else { to_toml(cfg.config()) };
    Ok((text, warnings(&cfg), overridden(&cfg)))
}

/// The config keys closest to `key` (a misspelt one), best first: what the loader suggests.
#[pyfunction]
pub fn config_key_suggestions(key: &str) -> Vec<String> {
    ssdlab_core::catalog::key_suggestions(key)
}

/// Every renamed table as (old, new) dotted paths: the old names still load, with a warning.
#[pyfunction]
pub fn config_renames() -> Vec<(&'static str, &'static str)> {
    ssdlab_core::catalog::renamed().into_iter().map(|r| (r.old, r.new)).collect()
}

/// A drive after its warm-up (`Simulation.warm_drive()`), shared by runs that differ only in
/// their measured workload. Opaque: it lives in Rust and is never copied into Python.
#[pyclass(module = "ssdlab._core")]
pub struct WarmDrive {
    // A Mutex for Sync, as `Simulation`'s; an Arc so that the vector env's workers start from
    // it without the GIL (`vector.rs`).
    inner: Arc<Mutex<ssdlab_core::sim::WarmDrive>>,
}

impl WarmDrive {
    /// The drive, for a worker thread to start a simulation from.
    pub fn shared(&self) -> Arc<Mutex<ssdlab_core::sim::WarmDrive>> {
        Arc::clone(&self.inner)
    }
}

/// One simulation run. Build it from a preset, TOML layers and `key=value` overrides, then
/// `step()` until it returns True, then read `report()`.
#[pyclass(module = "ssdlab._core")]
pub struct Simulation {
    // A Mutex makes the wrapper Sync (PyO3 requires it); Python calls never contend for it.
    inner: Mutex<ssdlab_core::Simulation>,
    decision_buffers: Option<DecisionBuffers>,
}

impl Simulation {
    fn sim(&self) -> MutexGuard<'_, ssdlab_core::Simulation> {
        self.inner.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Take `action` if given, then run to the next decision, without the GIL.
    fn next_decision(&mut self, py: Python<'_>, action: Option<u32>) -> PyResult<Option<Decision>> {
        let inner = &mut self.inner;
        let next = py.allow_threads(|| {
            let sim = inner.get_mut().unwrap_or_else(|p| p.into_inner());
            if let Some(a) = action {
                sim.act(a)?;
            }
            sim.advance()
        });
        next.py_err(py)
    }

    /// Write `d`'s observation and mask into the bound arrays; the rest for Python.
    fn write_decision(&self, py: Python<'_>, d: Decision) -> PyResult<Written> {
        let b = self.decision_buffers.as_ref().ok_or_else(|| {
            pyo3::exceptions::PyRuntimeError::new_err("bind_decisions before advance_into / act_into")
        })?;
        let obs = b.obs.as_mut_slice(py).expect("bound as writable");
        let mask = b.mask.as_mut_slice(py).expect("bound as writable");
        if obs.len() != d.observation.len() || mask.len() != d.mask.len() {
            return Err(pyo3::exceptions::PyValueError::new_err(format!(
                "the bound arrays hold {} observed values and {} actions; the decision has {} and {}",
                obs.len(),
                mask.len(),
                d.observation.len(),
                d.mask.len()
            )));
        }
        crate::buffers::write_row(obs, mask, &d);
        Ok((d.reward, d.builtin_action, d.reward_parts))
    }
}

#[pymethods]
impl Simulation {
    #[new]
    #[pyo3(signature = (preset, layers, overrides))]
    fn new(py: Python<'_>, preset: Option<&str>, layers: Vec<RawLayer>, overrides: Vec<String>) -> PyResult<Self> {
        let cfg = validated(py, preset, layers, overrides)?;
        let inner = py.allow_threads(|| ssdlab_core::Simulation::new(cfg)).py_err(py)?;
        Ok(Simulation { inner: Mutex::new(inner), decision_buffers: None })
    }

    /// Process up to `max_events` events without the GIL. True when the run is finished.
    fn step(&mut self, py: Python<'_>, max_events: u64) -> PyResult<bool> {
        let inner = &mut self.inner;
        py.allow_threads(|| inner.get_mut().unwrap_or_else(|p| p.into_inner()).step(max_events)).py_err(py)
    }

    /// The drive after the warm-up (warming it up now, without the GIL, if it was not), for
    /// other simulations to `start_from`.
    fn warm_drive(&mut self, py: Python<'_>) -> PyResult<WarmDrive> {
        let inner = &mut self.inner;
        let drive = py.allow_threads(|| inner.get_mut().unwrap_or_else(|p| p.into_inner()).warm_drive());
        Ok(WarmDrive { inner: Arc::new(Mutex::new(drive.py_err(py)?)) })
    }

    /// Start from `drive` instead of warming up (ConfigError if it was made with another
    /// configuration than this one's but for `[workload]`, or once this run has begun).
    fn start_from(&mut self, py: Python<'_>, drive: &WarmDrive) -> PyResult<()> {
        let drive = drive.inner.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        self.inner.get_mut().unwrap_or_else(|p| p.into_inner()).start_from(&drive).py_err(py)
    }

    /// (requests completed, requests expected or None).
    fn progress(&self) -> (u64, Option<u64>) {
        self.sim().progress()
    }

    /// Run the next slice of the warm-up without the GIL: up to `max_work` pages of its untimed
    /// writes or events of its timed ones. True once it is over.
    fn warm_up_step(&mut self, py: Python<'_>, max_work: u64) -> PyResult<bool> {
        let inner = &mut self.inner;
        py.allow_threads(|| inner.get_mut().unwrap_or_else(|p| p.into_inner()).warm_up_step(max_work)).py_err(py)
    }

    /// (pages written, pages to write, timed ns run, timed ns to run) of the warm-up, or None
    /// once it is over.
    fn warmup_progress(&self) -> Option<(u64, u64, u64, u64)> {
        self.sim().warmup_progress().map(|p| (p.pages_written, p.pages_to_write, p.timed_ns, p.timed_total_ns))
    }

    /// What this drive needs to hold `needed_bytes` of used logical space, every other key as it
    /// is: (the smallest `device.blocks_per_plane`, the lowest `device.utilization` in hundredths
    /// or None when its logical space is short).
    fn drive_fit(&self, needed_bytes: u64) -> (u64, Option<f64>) {
        let sim = self.sim();
        let cfg = sim.config();
        let pages = needed_bytes.div_ceil(cfg.device.page_bytes);
        (
            ssdlab_core::config::Capacity::blocks_per_plane_for(cfg, pages),
            ssdlab_core::config::Capacity::utilization_for(cfg, pages),
        )
    }

    #[getter]
    fn now_ns(&self) -> u64 {
        self.sim().now()
    }

    /// The report so far, as a dict built in Rust (no JSON round trip).
    fn report(&self, py: Python<'_>) -> PyResult<PyObject> {
        let report = self.sim().report();
        pythonize::pythonize(py, &report)
            .map(|bound| bound.unbind())
            .map_err(|e| pyo3::exceptions::PyRuntimeError::new_err(format!("report conversion: {e}")))
    }

    /// The resolved configuration as TOML.
    fn config_toml(&self) -> String {
        to_toml(self.sim().config().config())
    }

    /// What loading the configuration warned about (see `resolve_config`).
    fn config_warnings(&self) -> Vec<Warning> {
        warnings(self.sim().config())
    }

    /// The keys a later layer overrode (see `resolve_config`).
    fn config_overridden(&self) -> Vec<Overridden> {
        overridden(self.sim().config())
    }

    /// Exact latency distribution as (value_ns, count) pairs: which = "read" | "write" | "trim" |
    /// "all" (anything else raises ConfigError).
    fn latency_histogram(&self, py: Python<'_>, which: &str) -> PyResult<Vec<(u64, u64)>> {
        self.sim().latency_histogram(which).py_err(py)
    }

    /// Drive the decisions of `kind` (a seam's config key: "gc.scheduler") from Python, from
    /// the measured run's start. Returns the decision space as a dict: `kind`, `actions`,
    /// `features` (name, low, high, doc), `reward_parts`. ConfigError if the chosen policy has
    /// no such decision point, the kind is unknown, or the run has started.
    fn attach(&mut self, py: Python<'_>, kind: &str) -> PyResult<PyObject> {
        let kind = DecisionKind::parse(kind).ok_or_else(|| {
            let known: Vec<&str> = DecisionKind::ALL.iter().map(|k| k.key()).collect();
            crate::errors::to_py(
                py,
                ssdlab_core::Error::config(
                    "decision",
                    format!("no decision kind '{kind}'; known: {}", known.join(", ")),
                ),
            )
        })?;
        let space = self.inner.get_mut().unwrap_or_else(|p| p.into_inner()).attach(kind).py_err(py)?;
        pythonize::pythonize(py, &space)
            .map(|bound| bound.unbind())
            .map_err(|e| pyo3::exceptions::PyRuntimeError::new_err(format!("space conversion: {e}")))
    }

    /// Run (without the GIL) to the next decision of an attached kind: (observation, mask,
    /// reward, builtin_action, reward_parts), or None once the run has finished.
    fn advance(&mut self, py: Python<'_>) -> PyResult<Option<Step>> {
        Ok(self.next_decision(py, None)?.map(step))
    }

    /// Take `action` for the waiting decision (ActionError if it is out of range or masked),
    /// then `advance`: one call per decision.
    fn act(&mut self, py: Python<'_>, action: u32) -> PyResult<Option<Step>> {
        Ok(self.next_decision(py, Some(action))?.map(step))
    }

    /// The arrays (float32 observations, int8 mask, writable and C-contiguous) that
    /// `advance_into` and `act_into` write each decision into, so a step builds no list (the
    /// Gymnasium environments use them).
    fn bind_decisions(&mut self, obs: PyBuffer<f32>, mask: PyBuffer<i8>) -> PyResult<()> {
        // Their lengths are checked at each decision: the kind attached tells them.
        crate::buffers::writable(&obs, "obs", None)?;
        crate::buffers::writable(&mask, "mask", None)?;
        self.decision_buffers = Some(DecisionBuffers { obs, mask });
        Ok(())
    }

    /// `advance`, the observation and mask written into the bound arrays: (reward,
    /// builtin_action, reward_parts), or None once the run has finished.
    fn advance_into(&mut self, py: Python<'_>) -> PyResult<Option<Written>> {
        self.next_decision(py, None)?.map(|d| self.write_decision(py, d)).transpose()
    }

    /// `act`, the next decision's observation and mask written into the bound arrays.
    fn act_into(&mut self, py: Python<'_>, action: u32) -> PyResult<Option<Written>> {
        self.next_decision(py, Some(action))?.map(|d| self.write_decision(py, d)).transpose()
    }

    /// The Parquet file of the per-request log (`report.request_log`), or None.
    fn request_log_path(&self) -> Option<String> {
        self.sim().request_log_path().map(|p| p.display().to_string())
    }
}
