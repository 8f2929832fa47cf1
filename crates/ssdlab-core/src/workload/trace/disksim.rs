//! Layer: workload (trace readers). DiskSim ASCII traces: `time devno lba size flags`,
//! whitespace-separated, no header.
//!
//! `lba` and `size` are in 512-byte sectors; `flags` bit 0 is the DiskSim read flag
//! (1 = read, 0 = write; other bits are ignored); `devno` becomes the device. The time unit is
//! not in the file, so there are two named formats: `disksim_ms` (DiskSim's own convention,
//! milliseconds with a fraction, e.g. `0.221 5 162947904 16 1`) and `disksim_ns` (integer
//! nanoseconds, as MQSim stores its traces, e.g. `938513000 4 264719034 16 0`). Both parse any
//! decimal number, so a wrong choice changes times by 10^6 without an error; auto-detection
//! decides by the presence of a decimal point (see docs/traces.md).
//!
//! [`DisksimWriter`] writes either: `disksim_ms` times with six decimals (exact to the
//! nanosecond, and always with a decimal point, so that detection reads them back as
//! milliseconds), `disksim_ns` times as integers; flags 1 = read, 0 = write; requests widened
//! to whole sectors. Trims have no flag and are skipped.

use super::fields::{
    parse_device, parse_scaled, parse_u64, request, scale_by, Blame, Fields, LineResult, SECTOR_BYTES,
};
use super::options::TraceFormat;
use super::text::LineParser;
use super::writer::{TextOut, TraceWriter, WriteSummary};
use crate::error::Result;
use crate::workload::{IoOp, TraceRecord};

const DEVNO: &str = "devno (column 2)";
const LBA: &str = "lba (column 3, 512-byte sectors)";
const SIZE: &str = "size (column 4, 512-byte sectors)";
const FLAGS: &str = "flags (column 5, bit 0: 1 = read, 0 = write)";

/// Parser for `disksim_ms` and `disksim_ns`.
#[derive(Debug)]
pub(crate) struct DisksimParser {
    format: TraceFormat,
    /// Power of ten from the file's time unit to ns: 6 for ms, 0 for ns.
    time_scale: u32,
    time_field: &'static str,
}

impl DisksimParser {
    pub(crate) fn milliseconds() -> Self {
        DisksimParser { format: TraceFormat::DisksimMs, time_scale: 6, time_field: "time (column 1, ms)" }
    }

    pub(crate) fn nanoseconds() -> Self {
        DisksimParser { format: TraceFormat::DisksimNs, time_scale: 0, time_field: "time (column 1, ns)" }
    }
}

impl LineParser for DisksimParser {
    fn format(&self) -> TraceFormat {
        self.format
    }

    #[inline]
    fn parse<'a>(&mut self, line: &'a [u8]) -> LineResult<'a> {
        let mut fields = Fields::whitespace(line);
        let time = fields.need(self.time_field)?;
        let devno = fields.need(DEVNO)?;
        let lba = fields.need(LBA)?;
        let size = fields.need(SIZE)?;
        let flags = fields.need(FLAGS)?;

        let time_ns = parse_scaled(time, self.time_scale).blame(self.time_field, time)?;
        let device = parse_device(devno).blame(DEVNO, devno)?;
        let offset_bytes = parse_u64(lba).and_then(|sectors| scale_by(sectors, SECTOR_BYTES)).blame(LBA, lba)?;
        let size_bytes = parse_u64(size).and_then(|sectors| scale_by(sectors, SECTOR_BYTES)).blame(SIZE, size)?;
        let op = if parse_u64(flags).blame(FLAGS, flags)? & 1 == 1 { IoOp::Read } else { IoOp::Write };
        request(time_ns, op, offset_bytes, size_bytes, device, SIZE, size).map(Some)
    }
}

/// Writes DiskSim ASCII, times in milliseconds or nanoseconds.
pub(crate) struct DisksimWriter {
    out: TextOut,
    milliseconds: bool,
}

impl DisksimWriter {
    pub(crate) fn milliseconds(out: TextOut) -> Self {
        DisksimWriter { out, milliseconds: true }
    }

    pub(crate) fn nanoseconds(out: TextOut) -> Self {
        DisksimWriter { out, milliseconds: false }
    }
}

impl TraceWriter for DisksimWriter {
    fn write(&mut self, record: &TraceRecord) -> Result<()> {
        let flags = match record.op {
            IoOp::Read => 1,
            IoOp::Write => 0,
            IoOp::Trim => {
                self.out.summary.skipped_trims += 1;
                return Ok(());
            }
        };
        let (sector, sectors) = self.out.sectors(record);
        let (device, t) = (record.device, record.time_ns);
        if self.milliseconds {
            let (ms, ns) = (t / 1_000_000, t % 1_000_000);
            self.out.line(format_args!("{ms}.{ns:06} {device} {sector} {sectors} {flags}"))
        } else {
            self.out.line(format_args!("{t} {device} {sector} {sectors} {flags}"))
        }
    }

    fn finish(self: Box<Self>) -> Result<WriteSummary> {
        self.out.finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::trace::test_support::{first_records, parse_text, record, shared_trace};
    use crate::workload::trace::TraceOptions;
    use IoOp::{Read, Write};

    #[test]
    fn msnfs_milliseconds() {
        let Some(path) = shared_trace("ms_production/msnfs_150k.disksim_ms.txt.gz") else {
            return;
        };
        let records = first_records(&path, TraceFormat::DisksimMs, 2);
        // "0.000 5 174224064 16 1" and "0.221 5 162947904 16 1"
        assert_eq!(
            records,
            vec![record(0, Read, 174_224_064 * 512, 8192, 5), record(221_000, Read, 162_947_904 * 512, 8192, 5),]
        );
    }

    #[test]
    fn tpcc_nanoseconds() {
        let Some(path) = shared_trace("ms_production/tpcc_small.disksim_ns.txt") else {
            return;
        };
        let records = first_records(&path, TraceFormat::DisksimNs, 3);
        // "938513000 4 264719034 16 0", "938828000 3 197570570 16 0", "938944000 13 93230992 32 0"
        assert_eq!(
            records,
            vec![
                record(938_513_000, Write, 264_719_034 * 512, 8192, 4),
                record(938_828_000, Write, 197_570_570 * 512, 8192, 3),
                record(938_944_000, Write, 93_230_992 * 512, 16_384, 13),
            ]
        );
    }

    #[test]
    fn websearch_nanoseconds_with_asu_devices() {
        let Some(path) = shared_trace("umass/websearch_small.disksim_ns.txt.gz") else {
            return;
        };
        let records = first_records(&path, TraceFormat::DisksimNs, 30_000);
        // First line "11413000 0 657728 16 1"; the last line has no newline:
        // "60066625000 1 34371424 64 1".
        assert_eq!(records[0], record(11_413_000, Read, 657_728 * 512, 8192, 0));
        assert_eq!(records.len(), 24_783);
        assert_eq!(records[24_782], record(60_066_625_000, Read, 34_371_424 * 512, 32_768, 1));
    }

    #[test]
    fn other_flag_bits_are_ignored_and_units_differ_by_format() {
        let text = b"1.5 2 10 1 3\n2.5 2 10 1 2\n";
        let ms = parse_text(text, &TraceOptions::with_format(TraceFormat::DisksimMs)).unwrap();
        assert_eq!(ms, vec![record(1_500_000, Read, 5120, 512, 2), record(2_500_000, Write, 5120, 512, 2)]);
        let ns = parse_text(text, &TraceOptions::with_format(TraceFormat::DisksimNs)).unwrap();
        assert_eq!(ns[0].time_ns, 2, "1.5 ns rounds half up");
    }

    #[test]
    fn sector_overflow_is_reported() {
        let text = b"0 0 36028797018963968 1 1\n";
        let message = parse_text(text, &TraceOptions::with_format(TraceFormat::DisksimNs)).unwrap_err().to_string();
        assert!(message.contains("lba (column 3, 512-byte sectors) field") && message.contains("64 bits"), "{message}");
    }
}
