//! ssdlab's exception classes, created here (`ssdlab.errors` re-exports them), and the one
//! mapping from core errors to them, with their attributes: `.message`, `.path`, `.line`,
//! `.problems` (list of (key, reason)), `.kind` (a trace error's: what is wrong, by what fixes
//! it, `ssdlab_core::TraceErrorKind::id`).
//!
//! The classes are made with `type(name, bases, namespace)`, not `#[pyclass]`: a pyclass adds
//! its own instance layout, and a class cannot have two bases with different layouts, so
//! `SsdlabIOError` could not also be an `OSError` (nor `ConfigError` a `ValueError` and still
//! pickle through `BaseException.__reduce__`). These are plain exception classes: `.args` is
//! `(message,)`, the other attributes live in the instance dict, so they pickle (Ray sends
//! them from its workers) and Python code can raise them too.

use pyo3::exceptions::{PyException, PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::GILOnceCell;
use pyo3::types::{PyDict, PyTuple, PyType};
use ssdlab_core::Error;

/// The classes, made once per interpreter when `_core` is imported.
struct Classes {
    config: Py<PyType>,
    trace: Py<PyType>,
    io: Py<PyType>,
    device_full: Py<PyType>,
    internal: Py<PyType>,
    action: Py<PyType>,
}

static CLASSES: GILOnceCell<Classes> = GILOnceCell::new();

/// `SsdlabError.__init__(self, message, path=None, line=None, problems=None, kind=None)`; bound
/// as a method through `functools.partialmethod` (a builtin function is not a descriptor).
#[pyfunction]
#[pyo3(signature = (this, message, path=None, line=None, problems=None, kind=None))]
fn init_error(
    this: &Bound<'_, PyAny>,
    message: String,
    path: Option<String>,
    line: Option<u64>,
    problems: Option<Vec<(String, String)>>,
    kind: Option<String>,
) -> PyResult<()> {
    let py = this.py();
    py.get_type::<PyException>().call_method1("__init__", (this, &message))?;
    this.setattr("message", message)?;
    this.setattr("path", path)?;
    this.setattr("line", line)?;
    this.setattr("problems", problems.unwrap_or_default())?;
    this.setattr("kind", kind)?;
    Ok(())
}

/// A new exception class of `ssdlab.errors` with `bases` and docstring `doc`.
fn class<'py>(
    py: Python<'py>,
    name: &str,
    bases: Bound<'py, PyTuple>,
    doc: &str,
    init: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyType>> {
    let namespace = PyDict::new(py);
    namespace.set_item("__module__", "ssdlab.errors")?;
    namespace.set_item("__doc__", doc)?;
    if let Some(init) = init {
        namespace.set_item("__init__", init)?;
    }
    let made = py.get_type::<PyType>().call1((name, bases, namespace))?;
    Ok(made.downcast_into::<PyType>()?)
}

/// Make the classes and add them to the extension module.
pub fn register<'py>(m: &Bound<'py, PyModule>) -> PyResult<()> {
    let py = m.py();
    let init = py.import("functools")?.getattr("partialmethod")?.call1((wrap_pyfunction!(init_error, m)?,))?;
    let base = class(
        py,
        "SsdlabError",
        PyTuple::new(py, [py.get_type::<PyException>()])?,
        "Base of every ssdlab error.\n\nAttributes:\n    message: the error's text.\n    path: the file \
         concerned (config, trace), if any.\n    line: the 1-based line in that file, if known.\n    problems: \
         for configuration errors, every (key, reason) found.\n    kind: for trace errors, what is wrong: \
         \"bad_line\", \"format\", \"empty\", \"corrupt\", \"out_of_order\" or \"other\".",
        Some(&init),
    )?;
    let with = |extra: Option<Bound<'py, PyType>>| -> PyResult<Bound<'py, PyTuple>> {
        match extra {
            Some(t) => PyTuple::new(py, [base.clone(), t]),
            None => PyTuple::new(py, [base.clone()]),
        }
    };
    let value = || Some(py.get_type::<PyValueError>());
    let config = class(
        py,
        "ConfigError",
        with(value())?,
        "An impossible or malformed configuration (every problem listed at once).",
        None,
    )?;
    let trace = class(
        py,
        "TraceFormatError",
        with(value())?,
        "A trace line that cannot be read (file, line and reason).",
        None,
    )?;
    let io = class(
        py,
        "SsdlabIOError",
        with(Some(py.get_type::<PyOSError>()))?,
        "A file could not be read or written.",
        None,
    )?;
    let device_full = class(
        py,
        "DeviceFullError",
        with(None)?,
        "The simulated device cannot reclaim space: the data does not fit.",
        None,
    )?;
    let internal =
        class(py, "InternalError", with(None)?, "A broken invariant inside ssdlab (a bug: please report it).", None)?;
    let action = class(
        py,
        "ActionError",
        with(value())?,
        "An outside agent's action refused: out of range, masked, or with no decision waiting.",
        None,
    )?;
    for made in [&base, &config, &trace, &io, &device_full, &internal, &action] {
        m.add(made.name()?, made)?;
    }
    let _ = CLASSES.set(
        py,
        Classes {
            config: config.unbind(),
            trace: trace.unbind(),
            io: io.unbind(),
            device_full: device_full.unbind(),
            internal: internal.unbind(),
            action: action.unbind(),
        },
    );
    Ok(())
}

/// (exception class, .path, .line, .problems, .kind)
type Fields<'a> = (&'a Py<PyType>, Option<String>, Option<u64>, Vec<(String, String)>, Option<&'static str>);

pub fn to_py(py: Python<'_>, err: Error) -> PyErr {
    let Some(classes) = CLASSES.get(py) else {
        return PyErr::new::<PyException, _>(err.to_string());
    };
    let message = err.to_string();
    let (class, path, line, problems, kind): Fields = match &err {
        Error::Config { path, problems } => (
            &classes.config,
            path.as_ref().map(|p| p.display().to_string()),
            None,
            problems.iter().map(|p| (p.key.clone(), p.reason.clone())).collect(),
            None,
        ),
        Error::Trace { path, line, kind, .. } => {
            (&classes.trace, Some(path.display().to_string()), Some(*line), vec![], Some(kind.id()))
        }
        Error::Io { path, .. } => (&classes.io, Some(path.display().to_string()), None, vec![], None),
        Error::DeviceFull { .. } => (&classes.device_full, None, None, vec![], None),
        Error::Invariant { .. } => (&classes.internal, None, None, vec![], None),
        Error::Action(_) => (&classes.action, None, None, vec![], None),
    };
    match class.bind(py).call1((message, path, line, problems, kind)) {
        Ok(instance) => PyErr::from_value(instance),
        Err(e) => e,
    }
}

/// An `ActionError` with `message` (the vector environment's, which names the environment).
pub fn action_error(py: Python<'_>, message: String) -> PyErr {
    let Some(classes) = CLASSES.get(py) else {
        return PyErr::new::<PyException, _>(message);
    };
    let no_problems: Vec<(String, String)> = Vec::new();
    match classes.action.bind(py).call1((message, None::<String>, None::<u64>, no_problems)) {
        Ok(instance) => PyErr::from_value(instance),
        Err(e) => e,
    }
}

/// `Result<T, Error>` -> `PyResult<T>`.
pub trait IntoPy<T> {
    fn py_err(self, py: Python<'_>) -> PyResult<T>;
}

impl<T> IntoPy<T> for Result<T, Error> {
    fn py_err(self, py: Python<'_>) -> PyResult<T> {
        self.map_err(|e| to_py(py, e))
    }
}
