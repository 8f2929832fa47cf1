//! Layer: workload. Block-trace readers: one file per format, all streaming.
//! (Filled in by the trace issue; see docs/traces.md.)

use crate::config::ValidatedConfig;
use crate::error::{Error, Result};
use crate::workload::host::RecordSource;

/// Open the trace the config names as a record source.
pub fn open_source(cfg: &ValidatedConfig) -> Result<Box<dyn RecordSource + Send>> {
    Err(Error::config("workload.path", format!("trace readers are not built yet ({:?})", cfg.workload.path)))
}
