//! numpy arrays the bindings write decisions into (bound once by `Simulation.bind_decisions`
//! and `VecSimulation.bind`): the check they are fit for it, and one decision's row.

use std::cell::Cell;

use pyo3::buffer::{Element, PyBuffer};
use pyo3::prelude::*;
use ssdlab_core::decision::Decision;

/// `buffer` (named `name` in the error) is writable and C-contiguous, and holds `len` items
/// where a length is known.
pub fn writable<T: Element>(buffer: &PyBuffer<T>, name: &str, len: Option<usize>) -> PyResult<()> {
    let wrong_len = len.is_some_and(|n| buffer.item_count() != n);
    if buffer.readonly() || !buffer.is_c_contiguous() || wrong_len {
        let of = len.map_or(String::new(), |n| format!(" of {n} items, got {} items", buffer.item_count()));
        let readonly = if buffer.readonly() { ", read-only" } else { "" };
        return Err(pyo3::exceptions::PyValueError::new_err(format!(
            "{name}: needs a writable C-contiguous array{of}{readonly}"
        )));
    }
    Ok(())
}

/// Write `d`'s observation and mask into one row of each array (as long as the decision's).
pub fn write_row(obs: &[Cell<f32>], mask: &[Cell<i8>], d: &Decision) {
    for (cell, v) in obs.iter().zip(&d.observation) {
        cell.set(*v as f32);
    }
    for (cell, ok) in mask.iter().zip(&d.mask) {
        cell.set(i8::from(*ok));
    }
}
