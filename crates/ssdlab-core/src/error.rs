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

    /// A malformed trace line or an unreadable trace; `kind` says which, so a caller can say
    /// what helps (skipping helps a bad line, not a truncated file).
    #[error("{}:{line}: {reason}", .path.display())]
    Trace { path: PathBuf, line: u64, reason: String, kind: TraceErrorKind },

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

/// What is wrong with a trace, by what would fix it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TraceErrorKind {
    /// A line the format cannot read: `on_bad_line = "skip"` would skip it.
    BadLine,
    /// The file does not fit the format (or none is detected), or a line that skipping cannot
    /// get past: the format, or the column mapping, is what to change.
    Format,
    /// No requests at all: an empty file, or only headers and comments.
    Empty,
    /// Compressed (or binary trace) data that ends early or is damaged: the file itself.
    Corrupt,
    /// A request older than one already replayed, beyond `reorder_window`.
    OutOfOrder,
    /// Anything else.
    #[default]
    Other,
}

impl TraceErrorKind {
    /// The id Python sees (`TraceFormatError.kind`).
    pub fn id(self) -> &'static str {
        match self {
            TraceErrorKind::BadLine => "bad_line",
            TraceErrorKind::Format => "format",
            TraceErrorKind::Empty => "empty",
            TraceErrorKind::Corrupt => "corrupt",
            TraceErrorKind::OutOfOrder => "out_of_order",
            TraceErrorKind::Other => "other",
        }
    }
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

    /// A trace error at a line (1-based; 0 when the problem concerns the whole file), of kind
    /// `Other` until `of_kind` says what it is.
    pub fn trace(path: impl Into<PathBuf>, line: u64, reason: impl Into<String>) -> Self {
        Error::Trace { path: path.into(), line, reason: reason.into(), kind: TraceErrorKind::Other }
    }

    /// A trace error of `kind` (other errors unchanged).
    pub fn of_kind(self, kind: TraceErrorKind) -> Self {
        match self {
            Error::Trace { path, line, reason, .. } => Error::Trace { path, line, reason, kind },
            other => other,
        }
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
