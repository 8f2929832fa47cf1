//! `VecSimulation`: N simulations with an outside agent attached, stepped together by the
//! calling thread and worker threads that stay awake between steps (`workers.rs`), with the GIL
//! released, their decisions written into numpy buffers the caller owns. `ssdlab.gym.vector`
//! builds Gymnasium's `VectorEnv` on it.

use std::sync::{Arc, Mutex};

use pyo3::buffer::PyBuffer;
use pyo3::prelude::*;

use ssdlab_core::decision::{check_action, ActionError, Decision, DecisionKind};
use ssdlab_core::{Error, Result, Simulation, ValidatedConfig};

use crate::buffers::{writable, write_row};
use crate::errors::to_py;
use crate::sim::{config_of, RawConfig, WarmDrive};
use crate::workers::Workers;

/// A warm drive shared by the environments that start from it.
type SharedDrive = Arc<Mutex<ssdlab_core::sim::WarmDrive>>;

/// What a step asks of one environment.
enum Input {
    /// Built anew from a config (and started from a warm drive if given), run to its first
    /// decision.
    Restart(Box<ValidatedConfig>, Option<SharedDrive>),
    /// Take the action, run to the next decision.
    Act(u32),
}

/// One environment's outcome of a step: its next decision, or None once its run ended.
type Outcome = Result<Option<Decision>>;

/// A step's job for one environment.
fn run(slot: &mut Option<Simulation>, (kind, input): (DecisionKind, Input)) -> Outcome {
    match input {
        Input::Restart(cfg, drive) => {
            let mut sim = Simulation::new(*cfg)?;
            if let Some(drive) = drive {
                // The lock is held for the copy of the drive: restarts from one drive take turns.
                sim.start_from(&drive.lock().unwrap_or_else(|poisoned| poisoned.into_inner()))?;
            }
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

/// The numpy buffers a step writes into, bound once (`VecSimulation::bind`): rows of `obs` and
/// `mask`, one value per environment in the others.
struct Buffers {
    obs: PyBuffer<f32>,
    mask: PyBuffer<i8>,
    reward: PyBuffer<f64>,
    builtin: PyBuffer<i64>,
    done: PyBuffer<u8>,
}

#[pyclass(module = "ssdlab._core")]
pub struct VecSimulation {
    kind: DecisionKind,
    /// The environment's name, for errors.
    name: String,
    features: usize,
    actions: usize,
    workers: Workers<Simulation, (DecisionKind, Input), Outcome>,
    buffers: Option<Buffers>,
}

#[pymethods]
impl VecSimulation {
    /// `n` empty slots for decisions of `kind` with `features` observed values and `actions`
    /// actions each (`name`: the environment, in errors); `bind` the buffers, then `step`
    /// fills them (a slot given a config is built there). Stepped by the calling thread and
    /// `threads` workers (default: one per core but one, which the calling thread is).
    #[new]
    #[pyo3(signature = (kind, n, features, actions, name, threads=None))]
    fn new(
        py: Python<'_>,
        kind: &str,
        n: usize,
        features: usize,
        actions: usize,
        name: String,
        threads: Option<usize>,
    ) -> PyResult<Self> {
        let kind = DecisionKind::parse(kind)
            .ok_or_else(|| to_py(py, Error::config("decision", format!("no decision kind '{kind}'"))))?;
        let cores = std::thread::available_parallelism().map_or(1, |c| c.get());
        let threads = threads.unwrap_or(cores.saturating_sub(1)).min(n.saturating_sub(1));
        Ok(VecSimulation { kind, name, features, actions, workers: Workers::new(n, threads, run), buffers: None })
    }

    /// The worker threads (beside the calling thread).
    #[getter]
    fn threads(&self) -> usize {
        self.workers.threads()
    }

    /// The arrays every `step` writes into (kept, so a step converts no Python object but its
    /// actions): observations (n x features, float32), masks (n x actions, int8), rewards
    /// (float64), built-in actions (int64), done flags (uint8).
    fn bind(
        &mut self,
        obs: PyBuffer<f32>,
        mask: PyBuffer<i8>,
        reward: PyBuffer<f64>,
        builtin: PyBuffer<i64>,
        done: PyBuffer<u8>,
    ) -> PyResult<()> {
        let n = self.workers.len();
        writable(&obs, "obs", Some(n * self.features))?;
        writable(&mask, "mask", Some(n * self.actions))?;
        writable(&reward, "reward", Some(n))?;
        writable(&builtin, "builtin", Some(n))?;
        writable(&done, "done", Some(n))?;
        self.buffers = Some(Buffers { obs, mask, reward, builtin, done });
        Ok(())
    }

    /// One step of every environment, without the GIL: environment i takes `actions[i]` and
    /// runs to its next decision, or, where `restarts[i]` holds a config, is built anew from it
    /// (started from `drives[i]` if that holds a warm drive) and runs to its first decision
    /// (its action ignored), or, with a negative action and no
    /// restart, is held (not stepped; its rows untouched). The actions of the environments
    /// stepped are checked against their masks first (ActionError naming the first bad one,
    /// no environment stepped). Writes each decision's observation, mask, reward and built-in
    /// action into the bound buffers, and 1 into `done[i]` where the run ended (its row keeps
    /// the previous values, reward 0).
    #[pyo3(signature = (actions, restarts=None, drives=None))]
    fn step(
        &mut self,
        py: Python<'_>,
        actions: PyBuffer<i64>,
        restarts: Option<Vec<Option<RawConfig>>>,
        drives: Option<Vec<Option<PyRef<'_, WarmDrive>>>>,
    ) -> PyResult<()> {
        let n = self.workers.len();
        let Some(b) = &self.buffers else {
            return Err(pyo3::exceptions::PyRuntimeError::new_err("bind the buffers before the first step"));
        };
        let actions = actions.to_vec(py)?;
        if actions.len() != n
            || restarts.as_ref().is_some_and(|r| r.len() != n)
            || drives.as_ref().is_some_and(|d| d.len() != n)
        {
            return Err(pyo3::exceptions::PyValueError::new_err(format!(
                "{n} environments: got {} actions, {} restarts and {} drives",
                actions.len(),
                restarts.as_ref().map_or(n, Vec::len),
                drives.as_ref().map_or(n, Vec::len)
            )));
        }
        let mask = b.mask.as_slice(py).expect("bound as C-contiguous");
        let (kind, m) = (self.kind, self.actions);
        let mut inputs = Vec::with_capacity(n);
        let mut restarts = restarts.map(Vec::into_iter);
        let mut drives = drives.map(Vec::into_iter);
        for (i, &action) in actions.iter().enumerate() {
            let restart = restarts.as_mut().and_then(Iterator::next).flatten();
            let drive = drives.as_mut().and_then(Iterator::next).flatten().map(|d| d.shared());
            inputs.push(match restart {
                Some(raw) => Some((kind, Input::Restart(Box::new(config_of(py, raw)?), drive))),
                None if action >= 0 => {
                    let a = u32::try_from(action).unwrap_or(u32::MAX);
                    let row = &mask[i * m..(i + 1) * m];
                    if let Err(e) = check_action(kind, a, m as u32, |a| row[a as usize].get() != 0) {
                        let why = match e {
                            ActionError::OutOfRange { .. } => format!("action {action} is out of range: 0..{m}"),
                            ActionError::Masked { allowed, .. } => {
                                format!("action {action} is masked now: allowed {allowed}")
                            }
                            ActionError::NothingPending => e.to_string(),
                        };
                        return Err(crate::errors::action_error(py, format!("{} (environment {i}): {why}", self.name)));
                    }
                    Some((kind, Input::Act(a)))
                }
                None => None,
            });
        }
        let workers = &self.workers;
        let outcomes = py.allow_threads(|| workers.step(inputs));
        let (f, m) = (self.features, self.actions);
        let obs = b.obs.as_mut_slice(py).expect("bound as writable");
        let mask = b.mask.as_mut_slice(py).expect("bound as writable");
        let reward = b.reward.as_mut_slice(py).expect("bound as writable");
        let builtin = b.builtin.as_mut_slice(py).expect("bound as writable");
        let done = b.done.as_mut_slice(py).expect("bound as writable");
        for (i, outcome) in outcomes.into_iter().enumerate() {
            match outcome.transpose().map_err(|e| to_py(py, e))? {
                None => {}
                Some(Some(d)) => {
                    write_row(&obs[i * f..(i + 1) * f], &mask[i * m..(i + 1) * m], &d);
                    reward[i].set(d.reward);
                    builtin[i].set(d.builtin_action as i64);
                    done[i].set(0);
                }
                Some(None) => {
                    reward[i].set(0.0);
                    builtin[i].set(-1);
                    done[i].set(1);
                }
            }
        }
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
