//! `VecSimulation`: N simulations with an outside agent attached, stepped together across
//! threads (rayon) with the GIL released, their decisions written into numpy buffers the caller
//! owns. `ssdlab.gym.vector` builds Gymnasium's `VectorEnv` on it.

use pyo3::buffer::PyBuffer;
use pyo3::prelude::*;
use rayon::prelude::*;

use ssdlab_core::decision::{Decision, DecisionKind};
use ssdlab_core::{Error, Result, Simulation};

use crate::errors::to_py;
use crate::sim::{config_of, RawConfig};

/// One environment's outcome of a step: None if it was held (not stepped), else its next
/// decision, or None once its run ended.
type Outcome = Result<Option<Option<Decision>>>;

#[pyclass(module = "ssdlab._core")]
pub struct VecSimulation {
    kind: DecisionKind,
    // A Mutex makes the class Sync (PyO3 requires it); `&mut self` methods reach it lock-free.
    sims: std::sync::Mutex<Vec<Option<Simulation>>>,
    features: usize,
    /// The environments' own pool (`threads` workers).
    pool: rayon::ThreadPool,
}

/// Build a simulation for `kind` from its config, attach, and run to its first decision.
fn start(kind: DecisionKind, cfg: ssdlab_core::ValidatedConfig) -> Result<(Simulation, Option<Decision>)> {
    let mut sim = Simulation::new(cfg)?;
    sim.attach(kind)?;
    let first = sim.advance()?;
    Ok((sim, first))
}

#[pymethods]
impl VecSimulation {
    /// `n` empty slots for decisions of `kind` with `features` observed values each; `step`
    /// fills them (a slot given a config is built there). Stepped on a pool of `threads`
    /// workers; by default one per core but one, which the Python thread keeps: a decision is a
    /// few microseconds of work, and waking a thread that the agent's own thread competes with
    /// for its core costs more than it saves (docs/lab.md has the measurements).
    #[new]
    #[pyo3(signature = (kind, n, features, threads=None))]
    fn new(py: Python<'_>, kind: &str, n: usize, features: usize, threads: Option<usize>) -> PyResult<Self> {
        let kind = DecisionKind::parse(kind)
            .ok_or_else(|| to_py(py, Error::config("decision", format!("no decision kind '{kind}'"))))?;
        let cores = std::thread::available_parallelism().map_or(1, |c| c.get());
        let threads = threads.unwrap_or(cores.saturating_sub(1)).max(1);
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .thread_name(|i| format!("ssdlab-vec-{i}"))
            .build()
            .map_err(|e| pyo3::exceptions::PyRuntimeError::new_err(format!("thread pool: {e}")))?;
        Ok(VecSimulation { kind, sims: std::sync::Mutex::new((0..n).map(|_| None).collect()), features, pool })
    }

    /// The pool's workers.
    #[getter]
    fn threads(&self) -> usize {
        self.pool.current_num_threads()
    }

    /// One step of every environment, in parallel without the GIL: environment i takes
    /// `actions[i]` and runs to its next decision, or, where `restarts[i]` holds a config, is
    /// built anew from it and runs to its first decision (its action ignored), or, with a
    /// negative action and no restart, is held (not stepped; its rows untouched). Writes each
    /// decision's observation, mask, reward and built-in action into the buffers (rows of
    /// `obs` and `mask`), and into `done[i]` 1 where the run ended (its row keeps the previous
    /// values, reward 0).
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
        let sims = self.sims.get_mut().unwrap_or_else(|p| p.into_inner());
        let n = sims.len();
        let actions = actions.to_vec(py)?;
        if actions.len() != n || restarts.len() != n {
            return Err(pyo3::exceptions::PyValueError::new_err(format!(
                "{n} environments: got {} actions and {} restarts",
                actions.len(),
                restarts.len()
            )));
        }
        let configs: Vec<Option<ssdlab_core::ValidatedConfig>> =
            restarts.into_iter().map(|r| r.map(|raw| config_of(py, raw)).transpose()).collect::<PyResult<_>>()?;
        let kind = self.kind;
        // One task per thread: an environment's decision is a few microseconds of work, less
        // than waking a thread for it.
        let pool = &self.pool;
        let per_task = n.div_ceil(pool.current_num_threads()).max(1);
        let outcomes: Vec<Outcome> = py.allow_threads(|| {
            pool.install(|| {
                sims.par_iter_mut()
                    .zip(configs.into_par_iter())
                    .zip(actions.par_iter())
                    .with_min_len(per_task)
                    .map(|((slot, cfg), &action)| match cfg {
                        Some(cfg) => {
                            let (sim, first) = start(kind, cfg)?;
                            *slot = Some(sim);
                            Ok(Some(first))
                        }
                        None if action < 0 => Ok(None),
                        None => {
                            let sim = slot
                                .as_mut()
                                .ok_or_else(|| Error::config("decision", "an environment never started"))?;
                            // `ssdlab.gym.vector` checks actions against the masks first.
                            let action = u32::try_from(action).unwrap_or(u32::MAX);
                            sim.act(action)?;
                            sim.advance().map(Some)
                        }
                    })
                    .collect()
            })
        });
        let f = self.features;
        let mut obs_rows = obs.to_vec(py)?;
        let mut mask_rows = mask.to_vec(py)?;
        let actions_n = mask_rows.len() / n.max(1);
        // Held environments keep their rows: start from the buffers' contents.
        let mut rewards = reward.to_vec(py)?;
        let mut builtins = builtin.to_vec(py)?;
        let mut dones = done.to_vec(py)?;
        for (i, outcome) in outcomes.into_iter().enumerate() {
            match outcome.map_err(|e| to_py(py, e))? {
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
        let sims = self.sims.lock().unwrap_or_else(|p| p.into_inner());
        let sim = sims
            .get(i)
            .and_then(Option::as_ref)
            .ok_or_else(|| pyo3::exceptions::PyIndexError::new_err(format!("environment {i} has not started")))?;
        pythonize::pythonize(py, &sim.report())
            .map(|bound| bound.unbind())
            .map_err(|e| pyo3::exceptions::PyRuntimeError::new_err(format!("report conversion: {e}")))
    }
}
