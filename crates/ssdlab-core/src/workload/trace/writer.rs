//! Layer: workload (trace writers). Records from any source (a trace reader, a workload spec)
//! written in a format other tools read: ssdlab's binary trace, MSR Cambridge CSV, DiskSim
//! ASCII (milliseconds, as DiskSim reads it, or nanoseconds, as MQSim does) and blkparse text.
//! Each format's writer sits in the file of its reader (`msr.rs`, `disksim.rs`, `blkparse.rs`,
//! `binary.rs`), so that the two agree on the layout; this file holds what they share: the
//! format ids, the trait, the line output and sector rounding.
//!
//! Streamed: one record at a time through a 1 MiB buffer, memory flat in the trace's length.
//! What a format cannot hold is said in the [`WriteSummary`]: trims in a format without them
//! (MSR, DiskSim) are skipped and counted; a request that does not start or end on a 512-byte
//! sector, in a format addressed in sectors (DiskSim, blkparse), is widened to the sectors it
//! touches and counted.

use std::fmt;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::str::FromStr;

use serde::Serialize;

use super::fields::SECTOR_BYTES;
use crate::error::{Error, Result};
use crate::workload::TraceRecord;

/// A format ssdlab writes. Its id is the id of the reader that reads it back (`--format`), so
/// that `trace convert --to X` and `trace stats --format X` name the same thing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum OutputFormat {
    /// ssdlab's binary trace (`.sstr`): every field exact, trims kept.
    #[default]
    Binary,
    /// MSR Cambridge CSV: FILETIME 100 ns ticks, bytes; no trims.
    Msr,
    /// DiskSim ASCII with times in milliseconds (DiskSim's own convention): 512-byte sectors;
    /// no trims.
    DisksimMs,
    /// DiskSim ASCII with integer nanosecond times (what MQSim reads): 512-byte sectors; no
    /// trims.
    DisksimNs,
    /// blkparse default text output, one D (dispatch) event per request: 512-byte sectors,
    /// trims as discards.
    Blkparse,
}

impl OutputFormat {
    /// Every format, the default first.
    pub const ALL: [OutputFormat; 5] = [
        OutputFormat::Binary,
        OutputFormat::Msr,
        OutputFormat::DisksimMs,
        OutputFormat::DisksimNs,
        OutputFormat::Blkparse,
    ];

    /// The id: the reader's format id.
    pub fn id(self) -> &'static str {
        match self {
            OutputFormat::Binary => "binary",
            OutputFormat::Msr => "msr",
            OutputFormat::DisksimMs => "disksim_ms",
            OutputFormat::DisksimNs => "disksim_ns",
            OutputFormat::Blkparse => "blkparse",
        }
    }

    /// Other names accepted for it: the file suffix of the binary trace, `disksim` for DiskSim's
    /// own time unit, `blkparse-text`.
    fn aliases(self) -> &'static [&'static str] {
        match self {
            OutputFormat::Binary => &["sstr"],
            OutputFormat::DisksimMs => &["disksim"],
            OutputFormat::Blkparse => &["blkparse-text"],
            OutputFormat::Msr | OutputFormat::DisksimNs => &[],
        }
    }
}

impl fmt::Display for OutputFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

impl FromStr for OutputFormat {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self> {
        OutputFormat::ALL.into_iter().find(|format| format.id() == s || format.aliases().contains(&s)).ok_or_else(
            || {
                let ids: Vec<String> = OutputFormat::ALL
                    .iter()
                    .map(|f| match f.aliases() {
                        [] => f.id().to_string(),
                        aliases => format!("{} ({})", f.id(), aliases.join(", ")),
                    })
                    .collect();
                Error::config("to", format!("cannot write trace format {s:?}; expected one of {}", ids.join(", ")))
            },
        )
    }
}

/// What a writer did with the records it was given.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct WriteSummary {
    /// Records written.
    pub records: u64,
    /// Trims left out: the format has no trim.
    pub skipped_trims: u64,
    /// Records whose start or end was not on a 512-byte sector, widened to the sectors they
    /// touch: the format addresses sectors.
    pub widened_to_sectors: u64,
}

/// One format's writer.
pub trait TraceWriter {
    /// Append one record (or count why it was left out or changed).
    fn write(&mut self, record: &TraceRecord) -> Result<()>;

    /// Flush and close the file; what was written.
    fn finish(self: Box<Self>) -> Result<WriteSummary>;
}

/// A writer of `format` into a new (or truncated) file at `path`.
pub fn create(path: &Path, format: OutputFormat) -> Result<Box<dyn TraceWriter>> {
    Ok(match format {
        OutputFormat::Binary => Box::new(super::binary::BinaryWriter::create(path)?),
        OutputFormat::Msr => Box::new(super::msr::MsrWriter::new(TextOut::create(path)?)),
        OutputFormat::DisksimMs => Box::new(super::disksim::DisksimWriter::milliseconds(TextOut::create(path)?)),
        OutputFormat::DisksimNs => Box::new(super::disksim::DisksimWriter::nanoseconds(TextOut::create(path)?)),
        OutputFormat::Blkparse => Box::new(super::blkparse::BlkparseWriter::new(TextOut::create(path)?)),
    })
}

/// Write every record of `records` to `path` in `format`. On error the partial file is
/// removed.
pub fn write_all(
    records: impl Iterator<Item = Result<TraceRecord>>,
    path: &Path,
    format: OutputFormat,
) -> Result<WriteSummary> {
    let result = (|| {
        let mut writer = create(path, format)?;
        for record in records {
            writer.write(&record?)?;
        }
        writer.finish()
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(path);
    }
    result
}

/// Lines of a text format, buffered, with the summary's counts.
pub(crate) struct TextOut {
    path: PathBuf,
    out: BufWriter<File>,
    pub(crate) summary: WriteSummary,
}

impl TextOut {
    pub(crate) fn create(path: &Path) -> Result<TextOut> {
        let file = File::create(path).map_err(|e| Error::io(path, e))?;
        Ok(TextOut {
            path: path.to_path_buf(),
            out: BufWriter::with_capacity(1 << 20, file),
            summary: WriteSummary::default(),
        })
    }

    /// Write one line (`args` without its newline) and count it.
    pub(crate) fn line(&mut self, args: fmt::Arguments<'_>) -> Result<()> {
        self.out.write_fmt(args).and_then(|()| self.out.write_all(b"\n")).map_err(|e| Error::io(&self.path, e))?;
        self.summary.records += 1;
        Ok(())
    }

    pub(crate) fn finish(self) -> Result<WriteSummary> {
        let TextOut { path, out, summary } = self;
        let file = out.into_inner().map_err(|e| Error::io(&path, e.into_error()))?;
        file.sync_all().map_err(|e| Error::io(&path, e))?;
        Ok(summary)
    }

    /// The record's first sector and its length in sectors: the sectors it touches (widened,
    /// and counted, when it does not start or end on a sector).
    pub(crate) fn sectors(&mut self, record: &TraceRecord) -> (u64, u64) {
        let first = record.offset_bytes / SECTOR_BYTES;
        let end = record.offset_bytes.saturating_add(record.size_bytes).div_ceil(SECTOR_BYTES);
        if !record.offset_bytes.is_multiple_of(SECTOR_BYTES) || !record.size_bytes.is_multiple_of(SECTOR_BYTES) {
            self.summary.widened_to_sectors += 1;
        }
        (first, (end - first).max(1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::IoOp;

    #[test]
    fn ids_and_aliases_parse_and_unknown_ones_list_the_choices() {
        for format in OutputFormat::ALL {
            assert_eq!(format.id().parse::<OutputFormat>().unwrap(), format);
            // Every id but the binary one reads back with the same --format id.
            if format != OutputFormat::Binary {
                assert_eq!(format.id().parse::<super::super::TraceFormat>().unwrap().id(), format.id());
            }
        }
        assert_eq!("disksim".parse::<OutputFormat>().unwrap(), OutputFormat::DisksimMs);
        assert_eq!("blkparse-text".parse::<OutputFormat>().unwrap(), OutputFormat::Blkparse);
        assert_eq!("sstr".parse::<OutputFormat>().unwrap(), OutputFormat::Binary);
        let message = "spc".parse::<OutputFormat>().unwrap_err().to_string();
        assert!(
            message.contains("cannot write trace format \"spc\"") && message.contains("disksim_ms (disksim)"),
            "{message}"
        );
    }

    #[test]
    fn sectors_widen_what_is_not_on_a_sector() {
        let path = std::env::temp_dir().join(format!("ssdlab-sectors-{}.txt", std::process::id()));
        let mut out = TextOut::create(&path).unwrap();
        let record =
            |offset_bytes, size_bytes| TraceRecord { time_ns: 0, op: IoOp::Read, offset_bytes, size_bytes, device: 0 };
        assert_eq!(out.sectors(&record(1024, 4096)), (2, 8));
        assert_eq!(out.summary.widened_to_sectors, 0);
        // Bytes 1000..1100 cross from sector 1 into sector 2; bytes 500..1600 lie in sectors 0 to 3.
        assert_eq!(out.sectors(&record(1000, 100)), (1, 2));
        assert_eq!(out.sectors(&record(500, 1100)), (0, 4));
        assert_eq!(out.summary.widened_to_sectors, 2);
        std::fs::remove_file(&path).unwrap();
    }
}
