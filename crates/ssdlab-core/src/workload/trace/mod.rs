//! Layer: workload. Block-trace readers: one file per format, all streaming.
//!
//! [`open`] reads a trace file (plain, gzip or zstd, recognised by magic bytes), detects or takes
//! its [`TraceFormat`], and returns a [`TraceReader`] that yields [`TraceRecord`]s with time in
//! nanoseconds in the trace's own time base (not rebased), offsets and sizes in bytes, and the
//! device where the format has one. Devices are kept apart by default: a pre-scan lays them out
//! in disjoint byte ranges (`layout.rs`). The [`TraceOptions`] filters (device, time window,
//! first N, operations, re-ordering of slightly out-of-order timestamps) are stacked on top, and
//! [`TraceReader::info`] says what was done ([`TraceInfo`]). Memory does not grow with the
//! length of the trace: each reader holds one reused line buffer, the layout one entry per
//! device.
//!
//! Layout: `source.rs` (decompression), `detect.rs` (auto-detection), `text.rs` and `fields.rs`
//! (the line loop and byte-level parsing shared by the text formats), one file per format,
//! `layout.rs` (devices kept apart), `filter.rs` (the options), `info.rs` (what the reader did),
//! `binary.rs` (the compact binary format), `writer.rs` (writing records in the formats other
//! tools read: binary, MSR, DiskSim, blkparse; each writer beside its reader), `stats/` (trace
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
pub mod info;
mod layout;
mod msr;
pub mod options;
pub mod reader;
mod source;
mod spc;
pub mod stats;
mod systor;
mod tencent;
mod text;
pub mod writer;

#[cfg(test)]
mod accounting;
#[cfg(test)]
mod robustness;
#[cfg(test)]
mod test_support;

use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Arc;

pub use binary::convert;
pub use info::{DeviceHandling, DeviceRange, LineCounts, LineEnds, SkippedLine, TraceInfo};
pub use options::{
    AddressUnit, BadLinePolicy, BlkparseEvent, DevicePolicy, GenericColumns, OpFilter, OutOfOrderPolicy, TimeUnit,
    TraceFormat, TraceOptions, MAX_REORDER_WINDOW,
};
pub use reader::TraceReader;
pub use source::trace_file_problem;
pub use stats::TraceStats;
pub use writer::{OutputFormat, TraceWriter, WriteSummary};

use crate::error::{Error, Result};
use crate::workload::config::WorkloadConfig;
use crate::workload::request::RecordSource;
use crate::workload::TraceRecord;
use layout::{Layout, Separated};
use text::TextReader;

/// Open a trace file: decompress, detect or take the format, lay out its devices (a pre-scan of
/// the file) and stack the option filters.
pub fn open(path: &Path, options: &TraceOptions) -> Result<Box<dyn TraceReader + Send>> {
    let (reader, _) = open_planned(path, options, None)?;
    Ok(reader)
}

/// Like [`open`], for bytes from any reader; `path` only names the trace in messages. A stream
/// cannot be read twice, so it is not pre-scanned: with `devices = "separate"` its records pass
/// unchanged while they name one device, and a second device is an error (open the file by
/// path, or set `devices = "merge"` or `device = N`).
pub fn from_reader(
    raw: Box<dyn Read + Send>,
    path: &Path,
    options: &TraceOptions,
) -> Result<Box<dyn TraceReader + Send>> {
    options.validate()?;
    let source = source::open_source(raw, path)?;
    let plan = Plan::new(&source.head, path, options, None)?;
    build(source, path, options, &plan)
}

/// Detect the format of a trace file from its content.
pub fn detect(path: &Path) -> Result<TraceFormat> {
    let file = source::open_file(path)?;
    let source = source::open_source(Box::new(file), path)?;
    detect::detect(&source.head, path)
}

/// How a file is read, resolved once from its head (and, to separate devices, a pre-scan) and
/// reused by every pass of a repeated replay.
#[derive(Debug, Clone)]
struct Plan {
    format: TraceFormat,
    /// The line ends of a text format (`None` for the binary format).
    line_ends: Option<LineEnds>,
    /// blkparse only: the events replayed and whether a D event is an error (`auto` chose Q).
    blkparse: Option<(BlkparseEvent, bool)>,
    devices: Devices,
}

/// What is done with the devices.
#[derive(Debug, Clone)]
enum Devices {
    /// `device = N`.
    Select,
    /// `devices = "merge"`.
    Merge,
    /// The format has no device column: nothing to separate.
    NoColumn,
    /// Pre-scanned and laid out.
    Scanned(Arc<Layout>),
    /// A stream: one device passes, a second is an error.
    Stream,
}

impl Plan {
    /// Resolve the format and the blkparse events from `head`; lay out the devices by
    /// pre-scanning `rescan` (the file, when there is one).
    fn new(head: &[u8], path: &Path, options: &TraceOptions, rescan: Option<&Path>) -> Result<Plan> {
        let format = match options.requested_format() {
            TraceFormat::Auto => detect::detect(head, path)?,
            format => format,
        };
        let blkparse = (format == TraceFormat::Blkparse).then(|| blkparse::resolve(options.blkparse_event, head));
        let line_ends = (format != TraceFormat::Binary).then(|| LineEnds::detect(head));
        let mut plan = Plan { format, line_ends, blkparse, devices: Devices::Stream };
        plan.devices = match (options.device, options.devices) {
            (Some(_), _) => Devices::Select,
            (None, DevicePolicy::Merge) => Devices::Merge,
            (None, DevicePolicy::Separate) if !has_device_column(format, options) => Devices::NoColumn,
            (None, DevicePolicy::Separate) => match rescan {
                Some(file_path) => {
                    let file = source::open_file(file_path)?;
                    let source = source::open_source(Box::new(file), path)?;
                    let mut reader = format_reader(source, path, options, &plan)?;
                    Devices::Scanned(Arc::new(Layout::scan(reader.as_mut(), path)?))
                }
                None => Devices::Stream,
            },
        };
        Ok(plan)
    }

    /// What the reader does, as the report shows it.
    fn info(&self) -> TraceInfo {
        let (device_count, device_ranges, layout_end_bytes) = match &self.devices {
            Devices::Scanned(layout) => (
                Some(layout.ranges().len() as u64),
                layout.ranges().iter().take(info::LISTED_DEVICES).copied().collect(),
                Some(layout.end_bytes()),
            ),
            Devices::NoColumn => (Some(1), Vec::new(), None),
            Devices::Select | Devices::Merge | Devices::Stream => (None, Vec::new(), None),
        };
        TraceInfo {
            format: self.format,
            line_ends: self.line_ends,
            blkparse_event: self.blkparse.map(|(event, _)| event),
            devices: match self.devices {
                Devices::Select => DeviceHandling::Select,
                Devices::Merge => DeviceHandling::Merge,
                Devices::NoColumn | Devices::Scanned(_) | Devices::Stream => DeviceHandling::Separate,
            },
            device_count,
            device_ranges,
            layout_end_bytes,
            lines: LineCounts::default(),
        }
    }
}

/// Whether records of `format` (read with `options`: a generic layout may map a device column)
/// carry a device number of the trace's own; without one, every record's device is 0.
pub fn has_device_column(format: TraceFormat, options: &TraceOptions) -> bool {
    match format {
        TraceFormat::Cloudphysics => false,
        TraceFormat::Generic => options.generic.as_ref().is_some_and(|columns| columns.device_column.is_some()),
        _ => true,
    }
}

/// Open `path` with a plan made earlier, or make one (the pre-scan opens the file a second
/// time). Returns the plan for later passes.
fn open_planned(
    path: &Path,
    options: &TraceOptions,
    plan: Option<&Plan>,
) -> Result<(Box<dyn TraceReader + Send>, Plan)> {
    options.validate()?;
    let file = source::open_file(path)?;
    let source = source::open_source(Box::new(file), path)?;
    let plan = match plan {
        Some(plan) => plan.clone(),
        None => Plan::new(&source.head, path, options, Some(path))?,
    };
    let reader = build(source, path, options, &plan)?;
    Ok((reader, plan))
}

/// The format reader, the device layout and the option filters, in that order.
fn build(
    source: source::Source,
    path: &Path,
    options: &TraceOptions,
    plan: &Plan,
) -> Result<Box<dyn TraceReader + Send>> {
    let reader = format_reader(source, path, options, plan)?;
    let reader: Box<dyn TraceReader + Send> = match &plan.devices {
        Devices::Scanned(layout) => Box::new(Separated::scanned(reader, path, Arc::clone(layout))),
        Devices::Stream => Box::new(Separated::stream(reader, path)),
        Devices::Select | Devices::Merge | Devices::NoColumn => reader,
    };
    Ok(Box::new(filter::Filtered::new(reader, path, options).with_info(plan.info())))
}

/// The format reader without the layout and the option filters (tests read files this way to
/// see their own order and addresses).
#[cfg(test)]
fn open_unfiltered(
    raw: Box<dyn Read + Send>,
    path: &Path,
    options: &TraceOptions,
) -> Result<Box<dyn TraceReader + Send>> {
    options.validate()?;
    let source = source::open_source(raw, path)?;
    let plan = Plan::new(&source.head, path, &TraceOptions { devices: DevicePolicy::Merge, ..options.clone() }, None)?;
    format_reader(source, path, options, &plan)
}

/// The reader of the plan's format.
fn format_reader(
    source: source::Source,
    path: &Path,
    options: &TraceOptions,
    plan: &Plan,
) -> Result<Box<dyn TraceReader + Send>> {
    let policy = options.on_bad_line;
    Ok(match plan.format {
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
            let (event, reject_issue) = plan.blkparse.unwrap_or((options.blkparse_event, false));
            Box::new(TextReader::new(source, path, policy, blkparse::BlkparseParser::new(event, reject_issue)))
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
/// requests in all. The file is planned (detected, pre-scanned) once; later passes reuse the
/// plan.
struct TraceSource {
    reader: Box<dyn TraceReader + Send>,
    plan: Plan,
    path: PathBuf,
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
    /// The lines earlier passes passed over.
    lines_before: LineCounts,
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
            self.lines_before.merge(&self.reader.line_counts());
            self.reader = open_planned(&self.path, &self.options, Some(&self.plan))?.0;
        }
    }
    fn skipped(&self) -> u64 {
        self.skipped_before + self.reader.skipped_lines()
    }
    fn trace_info(&self) -> Option<TraceInfo> {
        let mut lines = self.lines_before.clone();
        lines.merge(&self.reader.line_counts());
        Some(TraceInfo { lines, ..self.plan.info() })
    }
}

/// Open the trace a validated config names (`workload.path` with `[workload.trace]` options,
/// `workload.repeat` passes, at most `workload.count` requests).
pub fn open_source(w: &WorkloadConfig) -> Result<Box<dyn RecordSource + Send>> {
    let path = w.path.as_ref().ok_or_else(|| Error::config("workload.path", "a trace workload needs a path"))?;
    let (reader, plan) = open_planned(path, &w.trace, None)?;
    Ok(Box::new(TraceSource {
        reader,
        plan,
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
        lines_before: LineCounts::default(),
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

    #[test]
    fn one_device_cannot_also_be_merged() {
        let options = TraceOptions { device: Some(3), devices: DevicePolicy::Merge, ..TraceOptions::default() };
        let message = options.validate().unwrap_err().to_string();
        assert!(message.contains("devices = \"merge\" has no effect with device = 3"), "{message}");
        let options = TraceOptions::from_toml("devices = \"merge\"\nblkparse_event = \"queue\"\n").unwrap();
        assert_eq!((options.devices, options.blkparse_event), (DevicePolicy::Merge, BlkparseEvent::Queue));
        assert_eq!(
            (TraceOptions::default().devices, TraceOptions::default().blkparse_event),
            (DevicePolicy::Separate, BlkparseEvent::Auto)
        );
    }

    /// WebSearch (UMass / SPC, ASUs 0-5 in the DiskSim device column). Per-device request
    /// counts, lowest offsets and highest ends from
    /// `zcat F | awk '{d = $2; s = $3 * 512; e = ($3 + $4) * 512; c[d]++; if (!(d in mn) || s < mn[d])
    /// mn[d] = s; if (e > mx[d]) mx[d] = e} END {for (d in c) printf "%d %d %.0f %.0f\n", d, c[d], mn[d],
    /// mx[d]}'`; the ranges below are those extents widened to MiB and laid back to back by hand.
    #[test]
    fn websearch_devices_are_laid_out_apart() {
        let Some(path) = shared_trace("umass/websearch_small.disksim_ns.txt.gz") else {
            return;
        };
        const MIB: u64 = 1 << 20;
        // (device, requests, lowest offset, highest end) from awk.
        let extents: [(u32, u64, u64, u64); 6] = [
            (0, 8_340, 7_086_080, 17_902_723_072),
            (1, 8_231, 9_093_120, 17_746_501_632),
            (2, 8_187, 0, 13_285_957_632),
            (3, 8, 4_418_125_824, 11_056_758_784),
            (4, 7, 10_991_935_488, 17_201_700_864),
            (5, 10, 84_811_776, 17_475_076_096),
        ];
        // (trace start MiB, trace end MiB, start MiB): device 0 keeps its place, each next one
        // starts where the previous ends.
        let ranges_mib: [(u64, u64, u64); 6] = [
            (6, 17_074, 6),
            (8, 16_925, 17_074),
            (0, 12_671, 33_991),
            (4_213, 10_545, 46_662),
            (10_482, 16_405, 52_994),
            (80, 16_666, 58_917),
        ];
        let mut reader = open(&path, &TraceOptions::default()).unwrap();
        let info = reader.info().unwrap();
        assert_eq!(info.format, TraceFormat::DisksimNs);
        assert_eq!((info.devices, info.device_count), (DeviceHandling::Separate, Some(6)));
        assert_eq!(info.layout_end_bytes, Some(75_503 * MIB));
        for ((range, extent), mib) in info.device_ranges.iter().zip(extents).zip(ranges_mib) {
            assert_eq!((range.device, range.requests), (extent.0, extent.1));
            assert!(range.trace_start_bytes <= extent.2 && extent.3 <= range.trace_end_bytes);
            assert_eq!(
                (range.trace_start_bytes, range.trace_end_bytes, range.start_bytes),
                (mib.0 * MIB, mib.1 * MIB, mib.2 * MIB)
            );
        }
        let separated = drain(reader.as_mut()).unwrap();
        let merged = drain(
            open(&path, &TraceOptions { devices: DevicePolicy::Merge, ..TraceOptions::default() }).unwrap().as_mut(),
        )
        .unwrap();
        assert_eq!(separated.len(), 24_783);
        assert_eq!(merged.len(), 24_783);
        for (moved, own) in separated.iter().zip(&merged) {
            let (trace_start_mib, trace_end_mib, start_mib) = ranges_mib[own.device as usize];
            assert_eq!(
                (moved.time_ns, moved.op, moved.size_bytes, moved.device),
                (own.time_ns, own.op, own.size_bytes, own.device)
            );
            assert_eq!(moved.offset_bytes, own.offset_bytes - trace_start_mib * MIB + start_mib * MIB);
            // Inside the device's range, which ends where the next one starts.
            assert!(moved.offset_bytes + moved.size_bytes <= (start_mib + trace_end_mib - trace_start_mib) * MIB);
        }
        // First line "11413000 0 657728 16 1" (device 0, in place); last line
        // "60066625000 1 34371424 64 1" (device 1: 8 MiB of its own space sit at 17,074 MiB).
        assert_eq!(separated[0], record(11_413_000, IoOp::Read, 657_728 * 512, 8192, 0));
        assert_eq!(
            separated[24_782],
            record(60_066_625_000, IoOp::Read, 34_371_424 * 512 - 8 * MIB + 17_074 * MIB, 32_768, 1)
        );
    }

    /// TPC-C (devno 0-15). Extents from the awk command of the WebSearch test; 16 devices of
    /// about 180 GiB each lay out to 2,743,805 MiB; the report lists the first 8.
    #[test]
    fn tpcc_lists_eight_of_sixteen_devices() {
        let Some(path) = shared_trace("ms_production/tpcc_small.disksim_ns.txt") else {
            return;
        };
        const MIB: u64 = 1 << 20;
        let info = open(&path, &TraceOptions::default()).unwrap().info().unwrap();
        assert_eq!(info.device_count, Some(16));
        assert_eq!(info.device_ranges.len(), info::LISTED_DEVICES);
        assert_eq!(info.layout_end_bytes, Some(2_743_805 * MIB));
        let requests: Vec<u64> = info.device_ranges.iter().map(|range| range.requests).collect();
        assert_eq!(requests, vec![437, 461, 456, 461, 453, 447, 460, 450]);
        // Device 0, [3,857,644,992, 193,372,102,656) in awk, keeps its place; device 1 follows.
        let first = info.device_ranges[0];
        assert_eq!(
            (first.trace_start_bytes, first.trace_end_bytes, first.start_bytes),
            (3_679 * MIB, 184_415 * MIB, 3_679 * MIB)
        );
        assert_eq!(info.device_ranges[1].start_bytes, 184_415 * MIB);
        // Read from a stream, there is no pre-scan: the second line names a second device.
        let bytes = std::fs::read(&path).unwrap();
        let message = read_all(bytes, &TraceOptions::default()).unwrap_err().to_string();
        assert!(
            message.starts_with("t.trace:2: a second device (3 after 4) in a trace read from a stream"),
            "{message}"
        );
    }

    /// A binary trace converted from a separated trace keeps its device numbers; laid out again
    /// it does not move (the lowest device keeps its place, the others already touch).
    #[test]
    fn converting_a_separated_trace_is_stable() {
        let Some(path) = shared_trace("umass/websearch_small.disksim_ns.txt.gz") else {
            return;
        };
        let out = std::env::temp_dir().join(format!("ssdlab-layout-{}.bin", std::process::id()));
        let separated = drain(open(&path, &TraceOptions::default()).unwrap().as_mut()).unwrap();
        assert_eq!(convert(open(&path, &TraceOptions::default()).unwrap().as_mut(), &out).unwrap(), 24_783);
        let mut binary = open(&out, &TraceOptions::default()).unwrap();
        assert_eq!(drain(binary.as_mut()).unwrap(), separated);
        let info = binary.info().unwrap();
        assert_eq!((info.format, info.device_count), (TraceFormat::Binary, Some(6)));
        std::fs::remove_file(&out).unwrap();
    }
}
