//! Layer: workload (trace readers). The default text output of `blkparse` (Linux blktrace):
//! `dev cpu seq time pid action RWBS sector + blocks [process]`, e.g.
//! `259,2    0        5     0.000005462  4020  D  RS 282624 + 8 [java]`.
//!
//! Only one kind of event becomes a request. The device receives dispatches (`D`, after the
//! block layer merged and split the queued bios), not queue events (`Q`), and the two can
//! differ by orders of magnitude for small sequential writes (see docs/traces.md). So
//! `blkparse_event = "auto"` (the default) replays D events when the trace has them and Q only
//! when it has none (traces recorded with `blkparse -a queue`, say). A stream cannot be read
//! twice, so `auto` decides on the detection head, the first 64 KiB of decompressed text (953
//! events of the shared YCSB excerpt; blktrace logs a request's D a few events after its Q): D
//! if a D event with data is there, else Q. Should a D event with data turn up later in a trace read as Q by `auto`,
//! the reader stops with an error naming the line (never skipped, whatever `on_bad_line` says)
//! rather than replay requests the device never saw in that form. `queue` and `issue` name the
//! events explicitly.
//!
//! Every other event (G, I, M, P, U, C, A, X, m, ...) and the per-CPU summary blkparse prints at
//! the end are ignored (and counted as ignored lines). The summary is known by its labels
//! (`CPU0 (8,0):`, `Reads Queued:`, `Throughput (R/W):`, ...), not by its shape: a line that is
//! neither an event nor a summary line, or an event with a damaged device field or an action
//! blkparse does not print, is a bad line (an error, or skipped and counted under
//! `on_bad_line = "skip"`), never passed over unseen. The RWBS field decides the operation: `D` (discard) = trim, else `W` =
//! write, else `R` = read; events with neither, or with no `sector + blocks` part or zero blocks
//! (pure flushes and barriers), carry no data and are ignored. Time is seconds since the trace
//! started (nanosecond digits); sector and blocks are 512-byte units; the device is
//! `major << 20 | minor` from the `major,minor` field.
//!
//! [`BlkparseWriter`] writes one D event per request in that layout (CPU 0, sequence numbers
//! from 1, pid 0, process `[ssdlab]`), with RWBS `R`, `W` or `D` (a trim as a discard), the
//! device back as `major,minor` and requests widened to whole sectors; times are the records'
//! own (seconds with nine decimals).

use super::fields::{
    linux_device, parse_scaled, parse_u64, request, scale_by, Blame, Fields, LineError, LineResult, Problem,
    SECTOR_BYTES,
};
use super::options::{BlkparseEvent, TraceFormat};
use super::text::LineParser;
use super::writer::{TextOut, TraceWriter, WriteSummary};
use crate::error::Result;
use crate::workload::{IoOp, TraceRecord};

const DEVICE: &str = "device (column 1, major,minor)";
const CPU: &str = "cpu (column 2)";
const SEQUENCE: &str = "sequence (column 3)";
const TIME: &str = "time (column 4, seconds)";
const PID: &str = "pid (column 5)";
const ACTION: &str = "action (column 6)";
const RWBS: &str = "RWBS (column 7)";
const SECTOR: &str = "sector (column 8, 512-byte sectors)";
const PLUS: &str = "'+' (column 9)";
const BLOCKS: &str = "blocks (column 10, 512-byte sectors)";

/// Why a line whose first field is not `major,minor` is a bad line.
const NOT_AN_EVENT: &str = "is not major,minor: the line is neither an event nor a line of the summary blkparse \
     prints at the end";

/// Why an unknown action is a bad line.
const UNKNOWN_ACTION: &str = "is not an action blkparse prints (A B C D F G I M P Q R S T U X m)";

/// The actions blkparse(1) prints (its manual's "Trace actions", and `m` for messages).
const ACTIONS: [&[u8]; 16] =
    [b"A", b"B", b"C", b"D", b"F", b"G", b"I", b"M", b"P", b"Q", b"R", b"S", b"T", b"U", b"X", b"m"];

/// How the lines of blkparse's closing summary start (blkparse.c's output of per-CPU and
/// per-device totals; `CPU<n> (<device>):` heads each CPU's block).
const SUMMARY_LABELS: [&str; 21] = [
    "Total (",
    "Throughput (R/W):",
    "Events (",
    "Skips:",
    "Reads Queued:",
    "Read Dispatches:",
    "Reads Requeued:",
    "Reads Completed:",
    "Read Merges:",
    "Read depth:",
    "IO unplugs:",
    "PC Reads Queued:",
    "PC Read Disp.:",
    "PC Reads Req.:",
    "PC Reads Compl.:",
    "PC Reads:",
    "Allocation wait:",
    "Dispatch wait:",
    "Completion wait:",
    "Input file",
    "Trace started at",
];

/// Whether a line is one of the summary blkparse prints at the end (see [`SUMMARY_LABELS`]).
fn is_summary(line: &[u8]) -> bool {
    if let Some(rest) = line.strip_prefix(b"CPU") {
        let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
        return digits > 0 && rest[digits..].starts_with(b" (") && line.ends_with(b":");
    }
    SUMMARY_LABELS.iter().any(|label| line.starts_with(label.as_bytes()))
}

/// Why a D event stops a trace that `auto` reads as Q.
const LATE_ISSUE: &str = "is a D (issue) event with data, but the first 64 KiB of the trace held none, so \
     blkparse_event = \"auto\" replays Q (queue) events; name the events with blkparse_event = \"issue\" (what \
     the device saw) or \"queue\"";

/// The events `blkparse_event` selects on a trace whose first bytes are `head`: `auto` becomes
/// `issue` if the head holds a D event with data, else `queue`. The flag is true when `auto`
/// chose `queue`, so that a later D event is an error (see the module documentation).
pub(crate) fn resolve(event: BlkparseEvent, head: &[u8]) -> (BlkparseEvent, bool) {
    match event {
        BlkparseEvent::Auto => {
            let mut issue = BlkparseParser::new(BlkparseEvent::Issue, false);
            let delimiter = super::info::LineEnds::detect(head).delimiter();
            let has_issue = head
                .split(|&b| b == delimiter)
                .map(super::fields::trim_blanks)
                .any(|line| matches!(issue.parse(line), Ok(Some(_))));
            if has_issue {
                (BlkparseEvent::Issue, false)
            } else {
                (BlkparseEvent::Queue, true)
            }
        }
        event => (event, false),
    }
}

/// Parser for the `blkparse` format.
#[derive(Debug)]
pub(crate) struct BlkparseParser {
    action: &'static [u8],
    /// `auto` chose Q: a D event with data is an error.
    reject_issue: bool,
}

impl BlkparseParser {
    /// A parser for `event`, resolved (`auto` is read as `queue`); `reject_issue` as
    /// [`resolve`] returns it.
    pub(crate) fn new(event: BlkparseEvent, reject_issue: bool) -> Self {
        BlkparseParser {
            action: match event {
                BlkparseEvent::Auto | BlkparseEvent::Queue => b"Q",
                BlkparseEvent::Issue => b"D",
            },
            reject_issue,
        }
    }
}

impl LineParser for BlkparseParser {
    fn format(&self) -> TraceFormat {
        TraceFormat::Blkparse
    }

    fn parse<'a>(&mut self, line: &'a [u8]) -> LineResult<'a> {
        let mut fields = Fields::whitespace(line);
        let device_text = fields.need(DEVICE)?;
        let Some((major, minor)) = split_device(device_text) else {
            if is_summary(line) {
                return Ok(None); // the summary blkparse prints at the end
            }
            return Err(LineError::new(DEVICE, device_text, Problem::Invalid(NOT_AN_EVENT)));
        };
        fields.skip_one(CPU)?;
        fields.skip_one(SEQUENCE)?;
        let time = fields.need(TIME)?;
        fields.skip_one(PID)?;
        let action = fields.need(ACTION)?;
        if !ACTIONS.contains(&action) {
            return Err(LineError::new(ACTION, action, Problem::Invalid(UNKNOWN_ACTION)));
        }
        let late_issue = self.reject_issue && action == b"D";
        if action != self.action && !late_issue {
            return Ok(None);
        }
        let rwbs = fields.need(RWBS)?;
        let op = if rwbs.contains(&b'D') {
            IoOp::Trim
        } else if rwbs.contains(&b'W') {
            IoOp::Write
        } else if rwbs.contains(&b'R') {
            IoOp::Read
        } else {
            return Ok(None); // N (no data), F (flush) alone
        };
        let sector = match fields.next() {
            Some(sector) if !sector.starts_with(b"[") => sector,
            _ => return Ok(None), // a flush or barrier without a data range
        };
        let plus = fields.need(PLUS)?;
        if plus != b"+" {
            return Err(LineError::new(PLUS, plus, Problem::Invalid("should be '+' between sector and blocks")));
        }
        let blocks = fields.need(BLOCKS)?;

        let time_ns = parse_scaled(time, 9).blame(TIME, time)?;
        let offset_bytes =
            parse_u64(sector).and_then(|sectors| scale_by(sectors, SECTOR_BYTES)).blame(SECTOR, sector)?;
        let size_bytes = parse_u64(blocks).and_then(|sectors| scale_by(sectors, SECTOR_BYTES)).blame(BLOCKS, blocks)?;
        if size_bytes == 0 {
            return Ok(None); // zero-length flush
        }
        if late_issue {
            return Err(LineError::new(ACTION, action, Problem::Fatal(LATE_ISSUE)));
        }
        let major = parse_u64(major).blame(DEVICE, device_text)?;
        let minor = parse_u64(minor).blame(DEVICE, device_text)?;
        let device = linux_device(major, minor).blame(DEVICE, device_text)?;
        request(time_ns, op, offset_bytes, size_bytes, device, BLOCKS, blocks).map(Some)
    }
}

/// Writes blkparse text, one D event per request.
pub(crate) struct BlkparseWriter {
    out: TextOut,
}

impl BlkparseWriter {
    pub(crate) fn new(out: TextOut) -> Self {
        BlkparseWriter { out }
    }
}

impl TraceWriter for BlkparseWriter {
    fn write(&mut self, record: &TraceRecord) -> Result<()> {
        let rwbs = match record.op {
            IoOp::Read => "R",
            IoOp::Write => "W",
            IoOp::Trim => "D",
        };
        let (sector, blocks) = self.out.sectors(record);
        let (major, minor) = (record.device >> 20, record.device & ((1 << 20) - 1));
        let (seconds, nanos) = (record.time_ns / 1_000_000_000, record.time_ns % 1_000_000_000);
        let sequence = self.out.summary.records + 1;
        let device = format!("{major},{minor}");
        self.out.line(format_args!(
            "{device:>7} {cpu:>3} {sequence:>8} {seconds:>5}.{nanos:09} {pid:>5}  D {rwbs:>3} {sector} + {blocks} [ssdlab]",
            cpu = 0,
            pid = 0,
        ))
    }

    fn finish(self: Box<Self>) -> Result<WriteSummary> {
        self.out.finish()
    }
}

/// `"8,0"` into `("8", "0")` when both sides are digits.
pub(crate) fn split_device(text: &[u8]) -> Option<(&[u8], &[u8])> {
    let comma = text.iter().position(|&b| b == b',')?;
    let (major, minor) = (&text[..comma], &text[comma + 1..]);
    let digits = |part: &[u8]| !part.is_empty() && part.iter().all(u8::is_ascii_digit);
    (digits(major) && digits(minor)).then_some((major, minor))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Error;
    use crate::workload::trace::test_support::{drain, parse_text, record, shared_trace};
    use crate::workload::trace::{from_reader, open, BadLinePolicy, DeviceHandling, DevicePolicy, TraceOptions};
    use std::path::Path;
    use IoOp::{Read, Trim, Write};

    /// These lines follow the layout of the blkparse(1) manual's example and default output
    /// format, including the trailing summary: 8 queued 4 KiB writes merged into one 28 KiB
    /// dispatch (the I/O scheduler's view), two queued reads and a discard never dispatched.
    const SAMPLE: &[u8] = b"  8,0    3        1     0.000000000   697  G   W 223490 + 8 [kjournald]\n\
  8,0    3        2     0.000001829   697  P   N [kjournald]\n\
  8,0    3        3     0.000002197   697  Q   W 223490 + 8 [kjournald]\n\
  8,0    3        4     0.000005533   697  M   W 223498 + 8 [kjournald]\n\
  8,0    3        5     0.000008607   697  U   N [kjournald] 1\n\
  8,0    3        6     0.000021133   697  D   W 223490 + 56 [kjournald]\n\
  8,16   0        1     0.000030000  1201  Q   R 1000 + 16 [dd]\n\
  8,16   0        2     0.000031000  1201  Q  RA 2000 + 8 [dd]\n\
  8,0    1        7     0.000040000  3301  Q  DS 4096 + 2048 [fstrim]\n\
  8,0    1        8     0.000041000  3301  Q FWS [kworker/1:1]\n\
  8,0    1        9     0.000503157     0  C   W 223490 + 56 [0]\n\
CPU0 (8,0):\n\
 Reads Queued:           0,        0KiB\t Writes Queued:           2,        8KiB\n\
Total (8,0):\n\
Throughput (R/W): 0KiB/s / 0KiB/s\n";

    fn with_event(event: BlkparseEvent) -> TraceOptions {
        TraceOptions { blkparse_event: event, ..TraceOptions::with_format(TraceFormat::Blkparse) }
    }

    #[test]
    fn queue_events_on_request() {
        let records = parse_text(SAMPLE, &with_event(BlkparseEvent::Queue)).unwrap();
        let sda = 8 << 20;
        let sdb = (8 << 20) | 16;
        assert_eq!(
            records,
            vec![
                record(2_197, Write, 223_490 * 512, 4096, sda),
                record(30_000, Read, 1000 * 512, 8192, sdb),
                record(31_000, Read, 2000 * 512, 4096, sdb),
                record(40_000, Trim, 4096 * 512, 1_048_576, sda),
            ]
        );
    }

    #[test]
    fn issue_events_by_default_and_on_request() {
        let issued = vec![record(21_133, Write, 223_490 * 512, 56 * 512, 8 << 20)];
        assert_eq!(parse_text(SAMPLE, &with_event(BlkparseEvent::Issue)).unwrap(), issued);
        assert_eq!(parse_text(SAMPLE, &TraceOptions::with_format(TraceFormat::Blkparse)).unwrap(), issued);
        assert_eq!(resolve(BlkparseEvent::Auto, SAMPLE), (BlkparseEvent::Issue, false));
    }

    #[test]
    fn auto_falls_back_to_queue_events_without_issue_events() {
        // The sample without its D event, as `blkparse -a queue` (or a trace of a bio-based
        // device such as device-mapper) would have it.
        let is_issue = |line: &&[u8]| line.split(|&b| b == b' ').filter(|field| !field.is_empty()).nth(5) == Some(b"D");
        let queued_only: Vec<u8> =
            SAMPLE.split_inclusive(|&b| b == b'\n').filter(|line| !is_issue(line)).flatten().copied().collect();
        assert_eq!(
            queued_only.len(),
            SAMPLE.len() - b"8,0    3        6     0.000021133   697  D   W 223490 + 56 [kjournald]\n".len()
        );
        assert_eq!(resolve(BlkparseEvent::Auto, &queued_only), (BlkparseEvent::Queue, true));
        let records = parse_text(&queued_only, &TraceOptions::with_format(TraceFormat::Blkparse)).unwrap();
        assert_eq!(records, parse_text(SAMPLE, &with_event(BlkparseEvent::Queue)).unwrap());
        let options = TraceOptions { devices: DevicePolicy::Merge, ..TraceOptions::default() };
        let mut reader = from_reader(Box::new(std::io::Cursor::new(queued_only)), Path::new("q"), &options).unwrap();
        assert_eq!(drain(reader.as_mut()).unwrap().len(), 4);
        let info = reader.info().unwrap();
        assert_eq!((info.format, info.blkparse_event), (TraceFormat::Blkparse, Some(BlkparseEvent::Queue)));
    }

    #[test]
    fn a_late_issue_event_under_auto_is_an_error_even_when_skipping() {
        // More than the 64 KiB detection head of queue events, then a dispatch.
        let mut text = Vec::new();
        for i in 0..2_000u64 {
            text.extend(
                format!("  8,0    0 {:8} {:14.9}   697  Q   W {} + 8 [dd]\n", i + 1, i as f64 * 1e-6, 8 * i).bytes(),
            );
        }
        assert!(text.len() > crate::workload::trace::source::HEAD_BYTES);
        text.extend(b"  8,0    0     2001    0.002000000   697  D   W 0 + 16000 [dd]\n");
        text.extend(b"  8,0    0     2002    0.002000001   697  Q   W 16000 + 8 [dd]\n");
        for policy in [BadLinePolicy::Error, BadLinePolicy::Skip] {
            let options = TraceOptions { on_bad_line: policy, ..TraceOptions::with_format(TraceFormat::Blkparse) };
            let error = parse_text(&text, &options).unwrap_err();
            let message = error.to_string();
            assert!(matches!(error, Error::Trace { line: 2001, .. }), "{message}");
            assert!(message.contains("action (column 6) field \"D\" is a D (issue) event with data"), "{message}");
            assert!(message.contains("blkparse_event = \"issue\""), "{message}");
        }
        // Named explicitly, either kind reads the whole file.
        assert_eq!(parse_text(&text, &with_event(BlkparseEvent::Queue)).unwrap().len(), 2_001);
        assert_eq!(parse_text(&text, &with_event(BlkparseEvent::Issue)).unwrap().len(), 1);
    }

    /// The SNIA YCSB-on-RocksDB NVMe excerpt (device 259,2, reads only). Counts from
    /// `zcat F | awk '$6 == "D" && $8 ~ /^[0-9]+$/ && $10 > 0'` (and `$6 == "Q"`): 1,694 D events
    /// and 1,695 Q events (the file ends between the last request's Q and its D), all reads,
    /// lowest sector 282,624 (138 MiB), highest end 512,101,089,280 bytes.
    #[test]
    fn ycsb_rocksdb_trace_replays_its_dispatches() {
        let Some(path) = shared_trace("blkparse/snia_ycsb_rocksdb_ssdtrace_first10k_lines.blkparse.txt.gz") else {
            return;
        };
        assert_eq!(crate::workload::trace::detect(&path).unwrap(), TraceFormat::Blkparse);
        let nvme = (259 << 20) | 2;
        let mut reader = open(&path, &TraceOptions::default()).unwrap();
        let issued = drain(reader.as_mut()).unwrap();
        assert_eq!(issued.len(), 1_694);
        assert!(issued.iter().all(|r| r.op == Read && r.device == nvme));
        // "259,2 0 5 0.000005462 4020 D RS 282624 + 8 [java]", the last D:
        // "259,2 6 649 0.679519537 4118 D RS 804199952 + 256 [java]"
        assert_eq!(issued[0], record(5_462, Read, 282_624 * 512, 4096, nvme));
        assert_eq!(issued[1_693], record(679_519_537, Read, 804_199_952 * 512, 131_072, nvme));
        assert_eq!(issued.iter().map(|r| r.size_bytes).sum::<u64>(), 198_029_312);
        let info = reader.info().unwrap();
        assert_eq!(info.blkparse_event, Some(BlkparseEvent::Issue));
        assert_eq!((info.devices, info.device_count), (DeviceHandling::Separate, Some(1)));
        let range = info.device_ranges[0];
        assert_eq!((range.device, range.requests), (nvme, 1_694));
        // One device keeps its addresses: [138 MiB, 488,378 MiB) starts at 138 MiB.
        assert_eq!((range.trace_start_bytes, range.trace_end_bytes), (138 << 20, 488_378 << 20));
        assert_eq!(range.start_bytes, range.trace_start_bytes);

        let mut reader = open(&path, &with_event(BlkparseEvent::Queue)).unwrap();
        let queued = drain(reader.as_mut()).unwrap();
        assert_eq!(queued.len(), 1_695);
        // "259,2 0 1 0.000000000 4020 Q R 282624 + 8 [java]"
        assert_eq!(queued[0], record(0, Read, 282_624 * 512, 4096, nvme));
        assert_eq!(queued.iter().map(|r| r.size_bytes).sum::<u64>(), 198_160_384);
        assert_eq!(reader.info().unwrap().blkparse_event, Some(BlkparseEvent::Queue));
    }

    #[test]
    fn malformed_event_is_reported() {
        let message = parse_text(b"8,0 0 1 0.5 1 Q W 12 - 8 [x]\n", &TraceOptions::with_format(TraceFormat::Blkparse))
            .unwrap_err()
            .to_string();
        assert!(message.contains("'+' (column 9) field \"-\""), "{message}");
    }
}
