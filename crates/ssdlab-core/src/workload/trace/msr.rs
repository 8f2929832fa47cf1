//! Layer: workload (trace readers). MSR Cambridge block traces (Narayanan et al., FAST'08;
//! SNIA IOTTA).
//!
//! The original CSV, no header:
//! `Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime`, e.g.
//! `128166385295514663,hm,0,Write,9056014336,2048,2833` — Timestamp in Windows FILETIME
//! (100 ns ticks since 1601-01-01), Type `Read`/`Write`, Offset and Size in bytes, DiskNumber
//! becomes the device. ResponseTime is not read.
//!
//! Also the reduced tab-separated form some repositories keep, `Timestamp Type Offset Size`
//! (same units, no host, disk or response time; device 0). The layout is chosen on the first
//! data line (a comma means CSV) and kept for the whole file.
//!
//! [`MsrWriter`] writes the CSV: times rounded to the nearest 100 ns tick (from the records'
//! own time base: a trace that started at 0 starts at FILETIME 0), Hostname `ssdlab`, the
//! device as DiskNumber, ResponseTime 0 (not known). Trims have no Type and are skipped.

use super::fields::{parse_device, parse_u64, request, scale_by, Blame, Fields, LineError, LineResult, Problem};
use super::options::TraceFormat;
use super::text::LineParser;
use super::writer::{TextOut, TraceWriter, WriteSummary};
use crate::error::Result;
use crate::workload::{IoOp, TraceRecord};

/// Nanoseconds per FILETIME tick.
const FILETIME_TICK_NS: u64 = 100;

const CSV_TIMESTAMP: &str = "Timestamp (column 1, FILETIME 100 ns ticks)";
const CSV_HOSTNAME: &str = "Hostname (column 2)";
const CSV_DISK: &str = "DiskNumber (column 3)";
const CSV_TYPE: &str = "Type (column 4)";
const CSV_OFFSET: &str = "Offset (column 5, bytes)";
const CSV_SIZE: &str = "Size (column 6, bytes)";

const TAB_TIMESTAMP: &str = "Timestamp (column 1, FILETIME 100 ns ticks)";
const TAB_TYPE: &str = "Type (column 2)";
const TAB_OFFSET: &str = "Offset (column 3, bytes)";
const TAB_SIZE: &str = "Size (column 4, bytes)";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Layout {
    Csv,
    Tabbed,
}

/// Parser for both MSR layouts.
#[derive(Debug, Default)]
pub(crate) struct MsrParser {
    layout: Option<Layout>,
}

impl LineParser for MsrParser {
    fn format(&self) -> TraceFormat {
        TraceFormat::Msr
    }

    #[inline]
    fn parse<'a>(&mut self, line: &'a [u8]) -> LineResult<'a> {
        let layout =
            *self.layout.get_or_insert_with(|| if line.contains(&b',') { Layout::Csv } else { Layout::Tabbed });
        match layout {
            Layout::Csv => parse_csv(line),
            Layout::Tabbed => parse_tabbed(line),
        }
    }
}

#[inline]
fn parse_csv(line: &[u8]) -> LineResult<'_> {
    let mut fields = Fields::delimited(line, b',');
    let timestamp = fields.need(CSV_TIMESTAMP)?;
    fields.skip_one(CSV_HOSTNAME)?;
    let disk = fields.need(CSV_DISK)?;
    let kind = fields.need(CSV_TYPE)?;
    let offset = fields.need(CSV_OFFSET)?;
    let size = fields.need(CSV_SIZE)?;

    let time_ns =
        parse_u64(timestamp).and_then(|ticks| scale_by(ticks, FILETIME_TICK_NS)).blame(CSV_TIMESTAMP, timestamp)?;
    let device = parse_device(disk).blame(CSV_DISK, disk)?;
    let op = parse_op(kind, CSV_TYPE)?;
    let offset_bytes = parse_u64(offset).blame(CSV_OFFSET, offset)?;
    let size_bytes = parse_u64(size).blame(CSV_SIZE, size)?;
    request(time_ns, op, offset_bytes, size_bytes, device, CSV_SIZE, size).map(Some)
}

fn parse_tabbed(line: &[u8]) -> LineResult<'_> {
    let mut fields = Fields::whitespace(line);
    let timestamp = fields.need(TAB_TIMESTAMP)?;
    let kind = fields.need(TAB_TYPE)?;
    let offset = fields.need(TAB_OFFSET)?;
    let size = fields.need(TAB_SIZE)?;

    let time_ns =
        parse_u64(timestamp).and_then(|ticks| scale_by(ticks, FILETIME_TICK_NS)).blame(TAB_TIMESTAMP, timestamp)?;
    let op = parse_op(kind, TAB_TYPE)?;
    let offset_bytes = parse_u64(offset).blame(TAB_OFFSET, offset)?;
    let size_bytes = parse_u64(size).blame(TAB_SIZE, size)?;
    request(time_ns, op, offset_bytes, size_bytes, 0, TAB_SIZE, size).map(Some)
}

#[inline]
fn parse_op<'a>(kind: &'a [u8], field: &'static str) -> Result<IoOp, LineError<'a>> {
    if kind.eq_ignore_ascii_case(b"Write") {
        Ok(IoOp::Write)
    } else if kind.eq_ignore_ascii_case(b"Read") {
        Ok(IoOp::Read)
    } else {
        Err(LineError::new(field, kind, Problem::UnknownOp("Read or Write")))
    }
}

/// Writes the MSR Cambridge CSV.
pub(crate) struct MsrWriter {
    out: TextOut,
}

impl MsrWriter {
    pub(crate) fn new(out: TextOut) -> Self {
        MsrWriter { out }
    }
}

impl TraceWriter for MsrWriter {
    fn write(&mut self, record: &TraceRecord) -> Result<()> {
        let kind = match record.op {
            IoOp::Read => "Read",
            IoOp::Write => "Write",
            IoOp::Trim => {
                self.out.summary.skipped_trims += 1;
                return Ok(());
            }
        };
        let ticks =
            record.time_ns / FILETIME_TICK_NS + u64::from(record.time_ns % FILETIME_TICK_NS >= FILETIME_TICK_NS / 2);
        let (device, offset, size) = (record.device, record.offset_bytes, record.size_bytes);
        self.out.line(format_args!("{ticks},ssdlab,{device},{kind},{offset},{size},0"))
    }

    fn finish(self: Box<Self>) -> Result<WriteSummary> {
        self.out.finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::trace::test_support::{first_records, parse_text, record, shared_trace};
    use crate::workload::trace::{BadLinePolicy, TraceOptions};
    use IoOp::{Read, Write};

    #[test]
    fn hm_0_first_lines() {
        let Some(path) = shared_trace("msr/hm_0.sample1000.csv") else {
            return;
        };
        let records = first_records(&path, TraceFormat::Msr, 3);
        // 128166385295514663,hm,0,Write,9056014336,2048,2833
        // 128166385295514878,hm,0,Write,11855351808,512,2617
        // 128166385295515175,hm,0,Write,5548077056,4096,2320
        assert_eq!(
            records,
            vec![
                record(12_816_638_529_551_466_300, Write, 9_056_014_336, 2048, 0),
                record(12_816_638_529_551_487_800, Write, 11_855_351_808, 512, 0),
                record(12_816_638_529_551_517_500, Write, 5_548_077_056, 4096, 0),
            ]
        );
    }

    #[test]
    fn wdev_device_numbers_and_reads() {
        let Some(path) = shared_trace("msr/wdev_1.csv") else {
            return;
        };
        // 128166410318060999,wdev,1,Write,3165323264,4096,1189
        assert_eq!(
            first_records(&path, TraceFormat::Msr, 1),
            vec![record(12_816_641_031_806_099_900, Write, 3_165_323_264, 4096, 1)]
        );
        let Some(path) = shared_trace("msr/wdev_3.csv") else {
            return;
        };
        let records = first_records(&path, TraceFormat::Msr, 1000);
        assert_eq!(records.len(), 682);
        // Last line: 128172379937472481,wdev,3,Read,2741218816,65536,77155
        assert_eq!(records[681], record(12_817_237_993_747_248_100, Read, 2_741_218_816, 65_536, 3));
    }

    #[test]
    fn rsrch_1_tab_separated_variant() {
        let Some(path) = shared_trace("msr/rsrch_1.txt.gz") else {
            return;
        };
        let records = first_records(&path, TraceFormat::Msr, 5);
        // "128166481075232000 \tWrite\t281358336 \t45056" ... line 5 is the first read:
        // "128166624705595000 \tRead\t279339008 \t4096"
        assert_eq!(records[0], record(12_816_648_107_523_200_000, Write, 281_358_336, 45_056, 0));
        assert_eq!(records[4], record(12_816_662_470_559_500_000, Read, 279_339_008, 4096, 0));
    }

    #[test]
    fn header_line_is_skipped() {
        let text = b"Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime\n10,h,2,Read,512,4096,1\n";
        assert_eq!(
            parse_text(text, &TraceOptions::with_format(TraceFormat::Msr)).unwrap(),
            vec![record(1000, Read, 512, 4096, 2)]
        );
    }

    #[test]
    fn bad_lines_name_the_field() {
        let options = TraceOptions::with_format(TraceFormat::Msr);
        let cases: [(&[u8], &str); 6] = [
            (
                b"10,h,0,Flush,0,512,1\n",
                "Type (column 4) field \"Flush\" is not a known operation; expected Read or Write",
            ),
            (b"10,h,0,Read,-512,512,1\n", "Offset (column 5, bytes) field \"-512\" is negative"),
            (b"10,h,0,Read,512,0,1\n", "Size (column 6, bytes) field \"0\" is zero"),
            (b"10,h,0,Read,512\n", "Size (column 6, bytes) field is missing"),
            (b"10,h,0,Read,18446744073709551615,512,1\n", "beyond 2^64"),
            (b"999999999999999999999,h,0,Read,0,512,1\n", "does not fit in 64 bits"),
        ];
        for (text, expected) in cases {
            let mut good = b"1,h,0,Read,0,512,1\n".to_vec();
            good.extend_from_slice(text);
            let message = parse_text(&good, &options).unwrap_err().to_string();
            assert!(message.starts_with("test.trace:2: "), "{message}");
            assert!(message.contains(expected), "{message}");
            assert!(message.contains("line: \""), "the line is quoted: {message}");
        }
    }

    #[test]
    fn skip_policy_counts_bad_lines() {
        let text = b"1,h,0,Read,0,512,1\n2,h,0,Oops,0,512,1\n3,h,0,Write,0,512,1\n";
        let options = TraceOptions { on_bad_line: BadLinePolicy::Skip, ..TraceOptions::with_format(TraceFormat::Msr) };
        let mut reader = crate::workload::trace::from_reader(
            Box::new(std::io::Cursor::new(text.to_vec())),
            std::path::Path::new("t"),
            &options,
        )
        .unwrap();
        let records = crate::workload::trace::test_support::drain(reader.as_mut()).unwrap();
        assert_eq!(records.len(), 2);
        assert_eq!(reader.skipped_lines(), 1);
        assert_eq!(reader.line(), 3);
    }
}
