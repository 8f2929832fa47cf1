//! Layer: workload. Block-trace readers: one file per format, all streaming.
//!
//! [`open`] reads a trace file (plain, gzip or zstd, recognised by magic bytes), detects or takes
//! its [`TraceFormat`], and returns a [`TraceReader`] that yields [`TraceRecord`]s with time in
//! nanoseconds in the trace's own time base (not rebased), offsets and sizes in bytes, and the
//! device where the format has one. The [`TraceOptions`] filters (device, time window, first N,
//! operations, re-ordering of slightly out-of-order timestamps) are stacked on top. Memory does
//! not grow with the length of the trace: each reader holds one reused line buffer.
//!
//! Layout: `source.rs` (decompression), `detect.rs` (auto-detection), `text.rs` and `fields.rs`
//! (the line loop and byte-level parsing shared by the text formats), one file per format,
//! `filter.rs` (the options), `binary.rs` (the compact binary format), `stats.rs` (trace
//! statistics). See docs/traces.md for every format, its units and sample lines.

mod alibaba;
pub mod binary;
mod blkparse;
mod cloudphysics;
mod detect;
mod disksim;
mod fields;
mod filter;
mod fiu;
mod flashnet;
pub mod generic;
mod msr;
pub mod options;
pub mod reader;
mod source;
mod spc;
pub mod stats;
mod systor;
mod tencent;
mod text;

#[cfg(test)]
mod robustness;
#[cfg(test)]
mod test_support;

use std::fs::File;
use std::io::Read;
use std::path::Path;

pub use binary::convert;
pub use options::{
    AddressUnit, BadLinePolicy, BlkparseEvent, GenericColumns, OpFilter, OutOfOrderPolicy, TimeUnit, TraceFormat,
    TraceOptions, MAX_REORDER_WINDOW,
};
pub use reader::TraceReader;
pub use stats::TraceStats;

use crate::error::{Error, Result};
use crate::workload::config::WorkloadConfig;
use crate::workload::request::RecordSource;
use crate::workload::TraceRecord;
use text::TextReader;

/// Open a trace file: decompress, detect or take the format, and stack the option filters.
pub fn open(path: &Path, options: &TraceOptions) -> Result<Box<dyn TraceReader + Send>> {
    let file = File::open(path).map_err(|e| Error::io(path, e))?;
    from_reader(Box::new(file), path, options)
}

/// Like [`open`], for bytes from any reader; `path` only names the trace in messages.
pub fn from_reader(
    raw: Box<dyn Read + Send>,
    path: &Path,
    options: &TraceOptions,
) -> Result<Box<dyn TraceReader + Send>> {
    let reader = open_unfiltered(raw, path, options)?;
    Ok(Box::new(filter::Filtered::new(reader, path, options)))
}

/// Detect the format of a trace file from its content.
pub fn detect(path: &Path) -> Result<TraceFormat> {
    let file = File::open(path).map_err(|e| Error::io(path, e))?;
    let source = source::open_source(Box::new(file), path)?;
    detect::detect(&source.head, path)
}

/// The format reader without the option filters.
fn open_unfiltered(
    raw: Box<dyn Read + Send>,
    path: &Path,
    options: &TraceOptions,
) -> Result<Box<dyn TraceReader + Send>> {
    options.validate()?;
    let source = source::open_source(raw, path)?;
    let format = match options.requested_format() {
        TraceFormat::Auto => detect::detect(&source.head, path)?,
        format => format,
    };
    let policy = options.on_bad_line;
    Ok(match format {
        TraceFormat::Auto => return Err(Error::invariant("trace format still auto after detection")),
        TraceFormat::Msr => Box::new(TextReader::new(source, path, policy, msr::MsrParser::default())),
        TraceFormat::DisksimMs => {
            Box::new(TextReader::new(source, path, policy, disksim::DisksimParser::milliseconds()))
        }
        TraceFormat::DisksimNs => {
            Box::new(TextReader::new(source, path, policy, disksim::DisksimParser::nanoseconds()))
        }
        TraceFormat::Spc => Box::new(TextReader::new(source, path, policy, spc::SpcParser)),
        TraceFormat::Flashnet => Box::new(TextReader::new(source, path, policy, flashnet::FlashnetParser)),
        TraceFormat::Fiu => Box::new(TextReader::new(source, path, policy, fiu::FiuParser)),
        TraceFormat::Systor => Box::new(TextReader::new(source, path, policy, systor::SystorParser)),
        TraceFormat::Alibaba => Box::new(TextReader::new(source, path, policy, alibaba::AlibabaParser)),
        TraceFormat::Tencent => Box::new(TextReader::new(source, path, policy, tencent::TencentParser)),
        TraceFormat::Cloudphysics => Box::new(TextReader::new(source, path, policy, cloudphysics::CloudphysicsParser)),
        TraceFormat::Blkparse => {
            Box::new(TextReader::new(source, path, policy, blkparse::BlkparseParser::new(options.blkparse_event)))
        }
        TraceFormat::Generic => {
            let columns = options
                .generic
                .as_ref()
                .ok_or_else(|| Error::config("generic", "format = \"generic\" needs a [generic] column mapping"))?;
            let header_lines = columns.header_lines;
            let parser = generic::GenericParser::new(columns)?;
            Box::new(TextReader::new(source, path, policy, parser).with_header_lines(header_lines))
        }
        TraceFormat::Binary => Box::new(binary::BinaryReader::new(source, path, policy)?),
    })
}

/// A trace as the host model's record source: replayed `repeat` times back to back (each pass
/// starts one mean inter-arrival gap after the previous pass's last request), at most `count`
/// requests in all.
struct TraceSource {
    reader: Box<dyn TraceReader + Send>,
    path: std::path::PathBuf,
    options: TraceOptions,
    passes_left: u32,
    remaining: Option<u64>,
    /// Added to this pass's (rebased) times.
    offset_ns: u64,
    pass_first_ns: Option<u64>,
    pass_last_ns: u64,
    pass_records: u64,
    last_out_ns: u64,
    skipped_before: u64,
}

impl RecordSource for TraceSource {
    fn next_record(&mut self) -> Result<Option<TraceRecord>> {
        if self.remaining == Some(0) {
            return Ok(None);
        }
        loop {
            if let Some(mut r) = self.reader.next_record()? {
                let first = *self.pass_first_ns.get_or_insert(r.time_ns);
                self.pass_last_ns = r.time_ns;
                self.pass_records += 1;
                r.time_ns = self.offset_ns + r.time_ns.saturating_sub(first);
                self.last_out_ns = r.time_ns;
                if let Some(n) = &mut self.remaining {
                    *n -= 1;
                }
                return Ok(Some(r));
            }
            if self.passes_left <= 1 || self.pass_records == 0 {
                return Ok(None);
            }
            self.passes_left -= 1;
            let span = self.pass_last_ns - self.pass_first_ns.unwrap_or(self.pass_last_ns);
            let gap = span / self.pass_records.max(2).saturating_sub(1);
            self.offset_ns = self.last_out_ns + gap.max(1);
            self.pass_first_ns = None;
            self.pass_records = 0;
            self.skipped_before += self.reader.skipped_lines();
            self.reader = open(&self.path, &self.options)?;
        }
    }
    fn skipped(&self) -> u64 {
        self.skipped_before + self.reader.skipped_lines()
    }
}

/// Open the trace a validated config names (`workload.path` with `[workload.trace]` options,
/// `workload.repeat` passes, at most `workload.count` requests).
pub fn open_source(w: &WorkloadConfig) -> Result<Box<dyn RecordSource + Send>> {
    let path = w.path.as_ref().ok_or_else(|| Error::config("workload.path", "a trace workload needs a path"))?;
    Ok(Box::new(TraceSource {
        reader: open(path, &w.trace)?,
        path: path.clone(),
        options: w.trace.clone(),
        passes_left: w.repeat.max(1),
        remaining: w.count,
        offset_ns: 0,
        pass_first_ns: None,
        pass_last_ns: 0,
        pass_records: 0,
        last_out_ns: 0,
        skipped_before: 0,
    }))
}

#[cfg(test)]
mod tests {
    use std::io::{Cursor, Write};

    use super::test_support::{drain, record, shared_trace};
    use super::*;
    use crate::workload::IoOp;

    fn read_all(bytes: Vec<u8>, options: &TraceOptions) -> Result<Vec<TraceRecord>> {
        let mut reader = from_reader(Box::new(Cursor::new(bytes)), Path::new("t.trace"), options)?;
        drain(reader.as_mut())
    }

    fn gzip(data: &[u8]) -> Vec<u8> {
        let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        encoder.write_all(data).unwrap();
        encoder.finish().unwrap()
    }

    #[test]
    fn format_ids_round_trip() {
        for format in TraceFormat::ALL {
            assert_eq!(format.id().parse::<TraceFormat>().unwrap(), format);
            let json = serde_json::to_string(&format).unwrap();
            assert_eq!(json, format!("\"{}\"", format.id()));
        }
        let error = "msr_csv".parse::<TraceFormat>().unwrap_err().to_string();
        assert!(error.contains("unknown trace format \"msr_csv\""), "{error}");
    }

    #[test]
    fn options_deserialize_strictly_with_defaults() {
        let options = TraceOptions::from_toml("format = \"disksim_ms\"\nops = \"reads\"\n").unwrap();
        assert_eq!(options.format, TraceFormat::DisksimMs);
        assert_eq!(options.ops, OpFilter::Reads);
        assert_eq!(options.reorder_window, 256);
        assert_eq!(options.on_bad_line, BadLinePolicy::Error);
        // Unknown keys are collected (all of them), not silently ignored.
        let error = TraceOptions::from_toml("formt = \"msr\"\nops = \"reads\"\nbogus = 1").unwrap_err().to_string();
        assert!(error.contains("formt") && error.contains("bogus"), "{error}");
    }

    #[test]
    fn inconsistent_options_are_config_errors() {
        let cases = [
            TraceOptions::with_format(TraceFormat::Generic),
            TraceOptions {
                generic: Some(GenericColumns::csv(0, TimeUnit::S, 1, AddressUnit::Bytes, 2, AddressUnit::Bytes, 3)),
                ..TraceOptions::with_format(TraceFormat::Msr)
            },
            TraceOptions { start_ns: 10, end_ns: Some(10), ..TraceOptions::default() },
            TraceOptions { reorder_window: MAX_REORDER_WINDOW + 1, ..TraceOptions::default() },
        ];
        for options in cases {
            assert!(matches!(options.validate(), Err(Error::Config { .. })), "{options:?}");
            assert!(matches!(read_all(b"1 0 0 1 1\n".to_vec(), &options), Err(Error::Config { .. })));
        }
    }

    #[test]
    fn empty_and_blank_files() {
        let message = read_all(Vec::new(), &TraceOptions::default()).unwrap_err().to_string();
        assert_eq!(message, "t.trace:0: the file is empty (0 bytes)");
        let message = read_all(b"\n \n\t\n".to_vec(), &TraceOptions::default()).unwrap_err().to_string();
        assert!(message.contains("empty (only blank or comment lines)"), "{message}");
        let message = read_all(gzip(b""), &TraceOptions::default()).unwrap_err().to_string();
        assert!(message.contains("empty (no data after decompression)"), "{message}");
        let options = TraceOptions::with_format(TraceFormat::Msr);
        let message = read_all(b"\n\n".to_vec(), &options).unwrap_err().to_string();
        assert!(message.contains("no requests in 2 lines"), "{message}");
        let message = read_all(b"Timestamp,Hostname\n".to_vec(), &options).unwrap_err().to_string();
        assert!(message.contains("no requests in 1 lines"), "{message}");
    }

    #[test]
    fn truncated_gzip_names_the_line_where_data_stops() {
        let Some(path) = shared_trace("ms_production/msnfs_150k.disksim_ms.txt.gz") else {
            return;
        };
        let compressed = std::fs::read(&path).unwrap();
        let cut = compressed[..compressed.len() / 2].to_vec();
        let message = read_all(cut, &TraceOptions::default()).unwrap_err().to_string();
        assert!(message.contains("gzip data is truncated or corrupt here"), "{message}");
        let line: u64 = message.split(':').nth(1).unwrap().parse().unwrap();
        assert!(line > 10_000, "the error comes after the intact lines: {message}");
    }

    #[test]
    fn binary_garbage_is_called_binary() {
        let garbage: Vec<u8> = (0..2000u32).map(|i| (i * 7919 % 251) as u8).collect();
        let message = read_all(garbage.clone(), &TraceOptions::default()).unwrap_err().to_string();
        assert!(message.contains("binary data"), "{message}");
        let mut text = b"1,h,0,Read,0,512,1\n".to_vec();
        text.extend_from_slice(b"2,h,0,Re\0d,0,512,1\n");
        let message = read_all(text, &TraceOptions::default()).unwrap_err().to_string();
        assert!(message.starts_with("t.trace:2: binary data, not text: NUL byte at column 9"), "{message}");
    }

    #[test]
    fn crlf_bom_comments_and_missing_final_newline() {
        let text = b"\xEF\xBB\xBF# MSR excerpt\r\n1,h,0,Read,0,512,1\r\n\r\n2,h,0,Write,512,512,1".to_vec();
        let records = read_all(text, &TraceOptions::default()).unwrap();
        assert_eq!(records, vec![record(100, IoOp::Read, 0, 512, 0), record(200, IoOp::Write, 512, 512, 0)]);
    }

    #[test]
    fn zero_size_requests_are_errors_unless_skipped() {
        let text = b"1,h,0,Read,0,512,1\n2,h,0,Read,0,0,1\n3,h,0,Read,0,512,1\n".to_vec();
        let message = read_all(text.clone(), &TraceOptions::default()).unwrap_err().to_string();
        assert!(message.contains("t.trace:2: Size (column 6, bytes) field \"0\" is zero"), "{message}");
        let options = TraceOptions { on_bad_line: BadLinePolicy::Skip, ..TraceOptions::default() };
        let mut reader = from_reader(Box::new(Cursor::new(text)), Path::new("t"), &options).unwrap();
        assert_eq!(drain(reader.as_mut()).unwrap().len(), 2);
        assert_eq!(reader.skipped_lines(), 1);
    }

    #[test]
    fn all_lines_bad_under_skip_is_still_an_error() {
        let options = TraceOptions { on_bad_line: BadLinePolicy::Skip, ..TraceOptions::with_format(TraceFormat::Msr) };
        let message = read_all(b"1,h,0,Oops,0,512,1\n2,h,0,Oops,0,512,1\n".to_vec(), &options).unwrap_err().to_string();
        assert!(message.contains("all 2 data lines were malformed"), "{message}");
    }

    #[test]
    fn window_and_first_n_on_a_real_trace() {
        let Some(path) = shared_trace("msr/hm_0.sample1000.csv") else {
            return;
        };
        let all = drain(open(&path, &TraceOptions::default()).unwrap().as_mut()).unwrap();
        let first_ns = all[0].time_ns;
        let options = TraceOptions { start_ns: 1_000_000_000, end_ns: Some(2_000_000_000), ..TraceOptions::default() };
        let window = drain(open(&path, &options).unwrap().as_mut()).unwrap();
        let expected: Vec<TraceRecord> =
            all.iter().copied().filter(|r| (1_000_000_000..2_000_000_000).contains(&(r.time_ns - first_ns))).collect();
        assert!(!expected.is_empty());
        assert_eq!(window, expected);
        let options = TraceOptions { max_requests: Some(10), ops: OpFilter::Reads, ..TraceOptions::default() };
        let reads = drain(open(&path, &options).unwrap().as_mut()).unwrap();
        let expected: Vec<TraceRecord> = all.iter().copied().filter(|r| r.op == IoOp::Read).take(10).collect();
        assert_eq!(reads, expected);
    }

    #[test]
    fn missing_file_is_an_io_error() {
        let error = open(Path::new("/nonexistent/trace.csv"), &TraceOptions::default()).err().unwrap();
        assert!(matches!(error, Error::Io { .. }), "{error}");
    }
}
