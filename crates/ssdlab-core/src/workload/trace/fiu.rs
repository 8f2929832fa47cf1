//! Layer: workload (trace readers). FIU traces (SNIA IOTTA: homes, webmail, webmail+online,
//! mail; Koller & Rangaswami, FAST'10), whitespace-separated, no header:
//! `ts_ns pid process lba size_blocks op major minor md5`, e.g.
//! `89966528965337 4603 nfsd 1108089520 8 W 6 0 44be5f3b4e9bf4be21d50e8ac21b7dc6`.
//!
//! Timestamp in nanoseconds; lba and size in 512-byte blocks; op `R`/`W` (`Read`/`Write` also
//! accepted); the device is `major << 20 | minor` (Linux's kernel `MKDEV` encoding). The
//! process name may contain spaces, so the first two fields are taken from the front and the
//! last six from the back; whatever lies between is the process name.

use super::fields::{
    linux_device, parse_scaled, parse_u64, request, scale_by, Blame, Fields, LineError, LineResult, Problem,
    SECTOR_BYTES,
};
use super::options::TraceFormat;
use super::text::LineParser;
use crate::workload::IoOp;

const TIMESTAMP: &str = "ts (column 1, ns)";
const PID: &str = "pid (column 2)";
const LBA: &str = "lba (6th field from the end, 512-byte blocks)";
const SIZE: &str = "size (5th field from the end, 512-byte blocks)";
const OP: &str = "op (4th field from the end)";
const MAJOR: &str = "major (3rd field from the end)";
const MINOR: &str = "minor (2nd field from the end)";
const MD5: &str = "md5 (last field)";

/// At least: ts, pid, process, lba, size, op, major, minor, md5.
const MIN_FIELDS: usize = 9;
/// Room for a process name of several words.
const MAX_FIELDS: usize = 32;

/// Parser for the `fiu` format.
#[derive(Debug)]
pub(crate) struct FiuParser;

impl LineParser for FiuParser {
    fn format(&self) -> TraceFormat {
        TraceFormat::Fiu
    }

    fn parse<'a>(&mut self, line: &'a [u8]) -> LineResult<'a> {
        let mut fields: [&[u8]; MAX_FIELDS] = [b""; MAX_FIELDS];
        let mut count = 0;
        for field in Fields::whitespace(line) {
            let Some(slot) = fields.get_mut(count) else {
                return Err(LineError::new(
                    MD5,
                    b"",
                    Problem::Invalid("is preceded by too many fields (more than 32)"),
                ));
            };
            *slot = field;
            count += 1;
        }
        if count < MIN_FIELDS {
            let missing = [TIMESTAMP, PID, "process (column 3)", LBA, SIZE, OP, MAJOR, MINOR, MD5][count];
            return Err(LineError::missing(missing));
        }
        let [timestamp, pid] = [fields[0], fields[1]];
        let [lba, size, op, major, minor] =
            [fields[count - 6], fields[count - 5], fields[count - 4], fields[count - 3], fields[count - 2]];

        let time_ns = parse_scaled(timestamp, 0).blame(TIMESTAMP, timestamp)?;
        parse_u64(pid).blame(PID, pid)?;
        let offset_bytes = parse_u64(lba).and_then(|blocks| scale_by(blocks, SECTOR_BYTES)).blame(LBA, lba)?;
        let size_bytes = parse_u64(size).and_then(|blocks| scale_by(blocks, SECTOR_BYTES)).blame(SIZE, size)?;
        let op = if op.eq_ignore_ascii_case(b"W") || op.eq_ignore_ascii_case(b"Write") {
            IoOp::Write
        } else if op.eq_ignore_ascii_case(b"R") || op.eq_ignore_ascii_case(b"Read") {
            IoOp::Read
        } else {
            return Err(LineError::new(OP, op, Problem::UnknownOp("R or W")));
        };
        let major_number = parse_u64(major).blame(MAJOR, major)?;
        let minor_number = parse_u64(minor).blame(MINOR, minor)?;
        let device = linux_device(major_number, minor_number).blame(MINOR, minor)?;
        request(time_ns, op, offset_bytes, size_bytes, device, SIZE, size).map(Some)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::trace::test_support::{drain, parse_text, record, shared_trace};
    use crate::workload::trace::{open, TraceOptions};
    use IoOp::{Read, Write};

    /// These lines are written from the format's documentation (`[ts in ns] [pid] [process] [lba] [size in 512 Bytes blocks]
    /// [Write or Read] [major device number] [minor device number] [MD5 per 4096/512 bytes]`).
    const SAMPLE: &[u8] = b"89966528965337 4603 nfsd 1108089520 8 W 6 0 44be5f3b4e9bf4be21d50e8ac21b7dc6\n\
        89966528993225 4603 nfsd 1108089528 8 W 6 0 a76f59eb2d4e36f4d6e5c5f1d0a81e17\n\
        89966529011283 4585 syslogd 52419584 8 R 6 0 3c49e1bc7e0b1f2d8e6a9c5a7f0e4d21\n\
        89966529033110 4713 Xorg server 7340032 16 R 6 1 f1e2d3c4b5a69788796a5b4c3d2e1f00\n";

    #[test]
    fn documented_sample_lines() {
        let records = parse_text(SAMPLE, &TraceOptions::with_format(TraceFormat::Fiu)).unwrap();
        let disk = 6 << 20;
        assert_eq!(
            records,
            vec![
                record(89_966_528_965_337, Write, 1_108_089_520 * 512, 4096, disk),
                record(89_966_528_993_225, Write, 1_108_089_528 * 512, 4096, disk),
                record(89_966_529_011_283, Read, 52_419_584 * 512, 4096, disk),
                record(89_966_529_033_110, Read, 7_340_032 * 512, 8192, disk | 1),
            ]
        );
    }

    #[test]
    fn short_lines_name_the_missing_field() {
        let message =
            parse_text(b"1 2 nfsd 3 8 W 6 0\n", &TraceOptions::with_format(TraceFormat::Fiu)).unwrap_err().to_string();
        assert!(message.contains("md5 (last field) field is missing"), "{message}");
        let message = parse_text(b"1 2 nfsd 3 8 X 6 0 abc\n", &TraceOptions::with_format(TraceFormat::Fiu))
            .unwrap_err()
            .to_string();
        assert!(message.contains("op (4th field from the end) field \"X\""), "{message}");
    }

    /// The FIU `mail` excerpt: 10,000 records on device 6,0, 8,905 reads (`zcat F | awk '$6 == "R"'
    /// | wc -l`), no blkparse events. One device: its addresses are not moved.
    #[test]
    fn mail_excerpt() {
        let Some(path) = shared_trace("fiu/fiu_mail_cheetah_day1_first10k.blkparse.gz") else {
            return;
        };
        let mut reader = open(&path, &TraceOptions::default()).unwrap();
        let records = drain(reader.as_mut()).unwrap();
        assert_eq!(records.len(), 10_000);
        assert_eq!(records.iter().filter(|r| r.op == Read).count(), 8_905);
        // "89966811921625 4257 nfsd 488846200 8 W 6 0 2c4787c7671c2f638777c4ab72859ce1"
        assert_eq!(records[0], record(89_966_811_921_625, Write, 488_846_200 * 512, 4096, 6 << 20));
        let info = reader.info().unwrap();
        assert_eq!((info.format, info.blkparse_event, info.device_count), (TraceFormat::Fiu, None, Some(1)));
        let range = info.device_ranges[0];
        assert_eq!((range.device, range.requests, range.start_bytes), (6 << 20, 10_000, range.trace_start_bytes));
    }
}
