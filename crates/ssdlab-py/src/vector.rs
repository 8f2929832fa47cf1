//! `VecSimulation`: N simulations with an outside agent attached, stepped together by the
//! calling thread and worker threads that stay awake between steps (`workers.rs`), with the GIL
//! released, their decisions written into numpy buffers the caller owns. `ssdlab.gym.vector`
//! builds Gymnasium's `VectorEnv` on it.

use pyo3::buffer::PyBuffer;
use pyo3::prelude::*;

use ssdlab_core::decision::{Decision, DecisionKind};
use ssdlab_core::{Error, Result, Simulation, ValidatedConfig};

use crate::errors::to_py;
use crate::sim::{config_of, RawConfig};
use crate::workers::Workers;

/// What a step asks of one environment.
enum Input {
    /// Built anew from a config, run to its first decision.
    Restart(Box<ValidatedConfig>),
    /// Take the action, run to the next decision.
    Act(u32),
}

/// One environment's outcome of a step: its next decision, or None once its run ended.
type Outcome = Result<Option<Decision>>;

/// A step's job for one environment.
fn run(slot: &mut Option<Simulation>, (kind, input): (DecisionKind, Input)) -> Outcome {
    match input {
        Input::Restart(cfg) => {
            let mut sim = Simulation::new(*cfg)?;
            sim.attach(kind)?;
            let first = sim.advance()?;
            *slot = Some(sim);
            Ok(first)
        }
        Input::Act(action) => {
            let sim = slot.as_mut().ok_or_else(|| Error::config("decision", "an environment never started"))?;
            sim.act(action)?;
            sim.advance()
        }
    }
}

#[pyclass(module = "ssdlab._core")]
pub struct VecSimulation {
    kind: DecisionKind,
    features: usize,
    workers: Workers<Simulation, (DecisionKind, Input), Outcome>,
}

#[pymethods]
impl VecSimulation {
    /// `n` empty slots for decisions of `kind` with `features` observed values each; `step`
    /// fills them (a slot given a config is built there). Stepped by the calling thread and
    /// `threads` workers (default: one per core but one, which the calling thread is).
    #[new]
    #[pyo3(signature = (kind, n, features, threads=None))]
    fn new(py: Python<'_>, kind: &str, n: usize, features: usize, threads: Option<usize>) -> PyResult<Self> {
        let kind = DecisionKind::parse(kind)
            .ok_or_else(|| to_py(py, Error::config("decision", format!("no decision kind '{kind}'"))))?;
        let cores = std::thread::available_parallelism().map_or(1, |c| c.get());
        let threads = threads.unwrap_or(cores.saturating_sub(1)).min(n.saturating_sub(1));
        Ok(VecSimulation { kind, features, workers: Workers::new(n, threads, run) })
    }

    /// The worker threads (beside the calling thread).
    #[getter]
    fn threads(&self) -> usize {
        self.workers.threads()
    }

    /// One step of every environment, without the GIL: environment i takes `actions[i]` and
    /// runs to its next decision, or, where `restarts[i]` holds a config, is built anew from it
    /// and runs to its first decision (its action ignored), or, with a negative action and no
    /// restart, is held (not stepped; its rows untouched). Writes each decision's observation,
    /// mask, reward and built-in action into the buffers (rows of `obs` and `mask`), and into
    /// `done[i]` 1 where the run ended (its row keeps the previous values, reward 0).
    #[allow(clippy::too_many_arguments)]
    fn step(
        &mut self,
        py: Python<'_>,
        actions: PyBuffer<i64>,
        restarts: Vec<Option<RawConfig>>,
        obs: PyBuffer<f32>,
        mask: PyBuffer<i8>,
        reward: PyBuffer<f64>,
        builtin: PyBuffer<i64>,
        done: PyBuffer<u8>,
    ) -> PyResult<()> {
        let n = self.workers.len();
        let actions = actions.to_vec(py)?;
        if actions.len() != n || restarts.len() != n {
            return Err(pyo3::exceptions::PyValueError::new_err(format!(
                "{n} environments: got {} actions and {} restarts",
                actions.len(),
                restarts.len()
            )));
        }
        let kind = self.kind;
        let mut inputs = Vec::with_capacity(n);
        for (restart, &action) in restarts.into_iter().zip(&actions) {
            inputs.push(match restart {
                Some(raw) => Some((kind, Input::Restart(Box::new(config_of(py, raw)?)))),
                // `ssdlab.gym.vector` checks actions against the masks first.
                None if action >= 0 => Some((kind, Input::Act(u32::try_from(action).unwrap_or(u32::MAX)))),
                None => None,
            });
        }
        let workers = &self.workers;
        let outcomes = py.allow_threads(|| workers.step(inputs));
        let f = self.features;
        let mut obs_rows = obs.to_vec(py)?;
        let mut mask_rows = mask.to_vec(py)?;
        let actions_n = mask_rows.len() / n.max(1);
        // Held environments keep their rows: start from the buffers' contents.
        let mut rewards = reward.to_vec(py)?;
        let mut builtins = builtin.to_vec(py)?;
        let mut dones = done.to_vec(py)?;
        for (i, outcome) in outcomes.into_iter().enumerate() {
            match outcome.transpose().map_err(|e| to_py(py, e))? {
                None => {}
                Some(Some(d)) => {
                    for (k, v) in d.observation.iter().enumerate().take(f) {
                        obs_rows[i * f + k] = *v as f32;
                    }
                    for (a, ok) in d.mask.iter().enumerate().take(actions_n) {
                        mask_rows[i * actions_n + a] = *ok as i8;
                    }
                    rewards[i] = d.reward;
                    builtins[i] = d.builtin_action as i64;
                    dones[i] = 0;
                }
                Some(None) => {
                    rewards[i] = 0.0;
                    builtins[i] = -1;
                    dones[i] = 1;
                }
            }
        }
        obs.copy_from_slice(py, &obs_rows)?;
        mask.copy_from_slice(py, &mask_rows)?;
        reward.copy_from_slice(py, &rewards)?;
        builtin.copy_from_slice(py, &builtins)?;
        done.copy_from_slice(py, &dones)?;
        Ok(())
    }

    /// Environment `i`'s report (its run so far; final once it ended), as a dict.
    fn report(&self, py: Python<'_>, i: usize) -> PyResult<PyObject> {
        if i >= self.workers.len() {
            return Err(pyo3::exceptions::PyIndexError::new_err(format!("no environment {i}")));
        }
        let slot = self.workers.slot(i);
        let sim = slot
            .as_ref()
            .ok_or_else(|| pyo3::exceptions::PyIndexError::new_err(format!("environment {i} has not started")))?;
        pythonize::pythonize(py, &sim.report())
            .map(|bound| bound.unbind())
            .map_err(|e| pyo3::exceptions::PyRuntimeError::new_err(format!("report conversion: {e}")))
    }
}
