//! Layer: cross-cutting. One error type for the whole core, by kind of problem.
//!
//! User input (configs, traces, arguments) never panics the core: every problem becomes one of
//! these values, naming the file, line or key and the reason. `Invariant` is reserved for bugs
//! the simulator detects in itself (a lost page, a request that never completed).

use std::path::PathBuf;

/// Every failure the core can report.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A configuration problem. `problems` lists every problem found, each as `key: reason`.
    #[error("{}", format_config(.path, .problems))]
    Config { path: Option<PathBuf>, problems: Vec<ConfigProblem> },

    /// A malformed trace line or an unreadable trace.
    #[error("{}:{line}: {reason}", .path.display())]
    Trace { path: PathBuf, line: u64, reason: String },

    /// An I/O failure on a named file.
    #[error("{}: {source}", .path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },

    /// The device cannot reclaim space for new writes: every block is full of valid data.
    #[error("device full: {reason}")]
    DeviceFull { reason: String },

    /// An outside agent's action refused (`crate::decision`): out of range, masked, or with
    /// nothing waiting for one.
    #[error(transparent)]
    Action(#[from] crate::decision::ActionError),

    /// A broken internal invariant: a bug in ssdlab, never the user's input.
    #[error("internal invariant violated: {reason}")]
    Invariant { reason: String },
}

/// One problem in a configuration: the dotted key it concerns and why it is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigProblem {
    pub key: String,
    pub reason: String,
}

fn format_config(path: &Option<PathBuf>, problems: &[ConfigProblem]) -> String {
    let origin = path.as_ref().map(|p| format!("{}: ", p.display())).unwrap_or_default();
    let lines: Vec<String> = problems.iter().map(|p| format!("{origin}{}: {}", p.key, p.reason)).collect();
    if lines.len() == 1 {
        lines[0].clone()
    } else {
        format!("{} configuration problems:\n  {}", lines.len(), lines.join("\n  "))
    }
}

impl Error {
    /// A configuration error with a single problem.
    pub fn config(key: impl Into<String>, reason: impl Into<String>) -> Self {
        Error::Config { path: None, problems: vec![ConfigProblem { key: key.into(), reason: reason.into() }] }
    }

    /// A trace error at a line (1-based; 0 when the problem concerns the whole file).
    pub fn trace(path: impl Into<PathBuf>, line: u64, reason: impl Into<String>) -> Self {
        Error::Trace { path: path.into(), line, reason: reason.into() }
    }

    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io { path: path.into(), source }
    }

    pub fn invariant(reason: impl Into<String>) -> Self {
        Error::Invariant { reason: reason.into() }
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Return early with an error: `bail!(Error::invariant("..."))`.
#[macro_export]
macro_rules! bail {
    ($err:expr) => {
        return Err($err.into())
    };
}

/// Return early with an error unless a condition holds.
#[macro_export]
macro_rules! ensure {
    ($cond:expr, $err:expr) => {
        if !$cond {
            return Err($err.into());
        }
    };
}
