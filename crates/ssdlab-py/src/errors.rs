//! The one mapping from core errors to Python exceptions (classes of `ssdlab.errors`), with
//! their attributes: `.path`, `.line`, `.problems` (list of (key, reason)).

use pyo3::prelude::*;
use ssdlab_core::Error;

/// (exception class name, .path, .line, .problems)
type Fields = (&'static str, Option<String>, Option<u64>, Vec<(String, String)>);

pub fn to_py(py: Python<'_>, err: Error) -> PyErr {
    let message = err.to_string();
    let build = || -> PyResult<PyErr> {
        let module = py.import("ssdlab.errors")?;
        let (class, path, line, problems): Fields = match &err {
            Error::Config { path, problems } => (
                "ConfigError",
                path.as_ref().map(|p| p.display().to_string()),
                None,
                problems.iter().map(|p| (p.key.clone(), p.reason.clone())).collect(),
            ),
            Error::Trace { path, line, .. } => {
                ("TraceFormatError", Some(path.display().to_string()), Some(*line), vec![])
            }
            Error::Io { path, .. } => ("SsdlabIOError", Some(path.display().to_string()), None, vec![]),
            Error::DeviceFull { .. } => ("DeviceFullError", None, None, vec![]),
            Error::Invariant { .. } => ("InternalError", None, None, vec![]),
        };
        let instance = module.getattr(class)?.call1((message.clone(), path, line, problems))?;
        Ok(PyErr::from_value(instance))
    };
    build().unwrap_or_else(|e| e)
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
