//! Layer: workload (trace readers). The default text output of `blkparse` (Linux blktrace):
//! `dev cpu seq time pid action RWBS sector + blocks [process]`, e.g.
//! `  8,0    3        1     0.000000000  697  Q   W 223490 + 8 [kjournald]`.
//!
//! Only one kind of event becomes a request: `Q` (queued, as the application asked) by
//! default, or `D` (issued to the driver, after merges and splits) with
//! `blkparse_event = "issue"`. Every other event (G, I, M, P, U, C, A, X, m, ...) and the
//! per-CPU summary blkparse prints at the end are ignored. The RWBS field decides the
//! operation: `D` (discard) = trim, else `W` = write, else `R` = read; events with neither, or
//! with no `sector + blocks` part or zero blocks (pure flushes and barriers), carry no data and
//! are ignored. Time is seconds since the trace started (nanosecond digits); sector and blocks
//! are 512-byte units; the device is `major << 20 | minor` from the `major,minor` field.

use super::fields::{
    linux_device, parse_scaled, parse_u64, request, scale_by, Blame, Fields, LineError, LineResult, Problem,
    SECTOR_BYTES,
};
use super::options::{BlkparseEvent, TraceFormat};
use super::text::LineParser;
use crate::workload::IoOp;

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

/// Parser for the `blkparse` format.
#[derive(Debug)]
pub(crate) struct BlkparseParser {
    action: &'static [u8],
}

impl BlkparseParser {
    pub(crate) fn new(event: BlkparseEvent) -> Self {
        BlkparseParser {
            action: match event {
                BlkparseEvent::Queue => b"Q",
                BlkparseEvent::Issue => b"D",
            },
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
            return Ok(None); // not an event: the summary blkparse prints at the end
        };
        fields.skip_one(CPU)?;
        fields.skip_one(SEQUENCE)?;
        let time = fields.need(TIME)?;
        fields.skip_one(PID)?;
        let action = fields.need(ACTION)?;
        if action != self.action {
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
        let major = parse_u64(major).blame(DEVICE, device_text)?;
        let minor = parse_u64(minor).blame(DEVICE, device_text)?;
        let device = linux_device(major, minor).blame(DEVICE, device_text)?;
        request(time_ns, op, offset_bytes, size_bytes, device, BLOCKS, blocks).map(Some)
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
    use crate::workload::trace::test_support::{parse_text, record};
    use crate::workload::trace::TraceOptions;
    use IoOp::{Read, Trim, Write};

    /// No blkparse output is among the shared traces; these lines follow the layout of the
    /// blkparse(1) manual's example and default output format, including the trailing summary.
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

    #[test]
    fn queue_events_by_default() {
        let records = parse_text(SAMPLE, &TraceOptions::with_format(TraceFormat::Blkparse)).unwrap();
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
    fn issue_events_on_request() {
        let options =
            TraceOptions { blkparse_event: BlkparseEvent::Issue, ..TraceOptions::with_format(TraceFormat::Blkparse) };
        let records = parse_text(SAMPLE, &options).unwrap();
        assert_eq!(records, vec![record(21_133, Write, 223_490 * 512, 56 * 512, 8 << 20)]);
    }

    #[test]
    fn malformed_event_is_reported() {
        let message = parse_text(b"8,0 0 1 0.5 1 Q W 12 - 8 [x]\n", &TraceOptions::with_format(TraceFormat::Blkparse))
            .unwrap_err()
            .to_string();
        assert!(message.contains("'+' (column 9) field \"-\""), "{message}");
    }
}
