//! Layer: workload (trace readers). The SPC trace format used by the UMass Trace Repository
//! (Financial1/2, WebSearch1-3): `ASU,LBA,Size,Opcode,Timestamp[,...]`, comma-separated, no
//! header, e.g. `0,303567,3584,w,0.000000`.
//!
//! ASU (application specific unit) becomes the device; LBA is in 512-byte sectors; Size is in
//! bytes; Opcode is `r`/`R` or `w`/`W`; Timestamp is seconds (with a fraction) from the start of
//! the trace. Further optional fields after the timestamp are ignored, as the SPC specification
//! allows them.

use super::fields::{
    parse_device, parse_scaled, parse_u64, request, scale_by, Blame, Fields, LineError, LineResult, Problem,
    SECTOR_BYTES,
};
use super::options::TraceFormat;
use super::text::LineParser;
use crate::workload::IoOp;

const ASU: &str = "ASU (column 1)";
const LBA: &str = "LBA (column 2, 512-byte sectors)";
const SIZE: &str = "Size (column 3, bytes)";
const OPCODE: &str = "Opcode (column 4)";
const TIMESTAMP: &str = "Timestamp (column 5, seconds)";

/// Parser for the `spc` format.
#[derive(Debug)]
pub(crate) struct SpcParser;

impl LineParser for SpcParser {
    fn format(&self) -> TraceFormat {
        TraceFormat::Spc
    }

    #[inline]
    fn parse<'a>(&mut self, line: &'a [u8]) -> LineResult<'a> {
        let mut fields = Fields::delimited(line, b',');
        let asu = fields.need(ASU)?;
        let lba = fields.need(LBA)?;
        let size = fields.need(SIZE)?;
        let opcode = fields.need(OPCODE)?;
        let timestamp = fields.need(TIMESTAMP)?;

        let device = parse_device(asu).blame(ASU, asu)?;
        let offset_bytes = parse_u64(lba).and_then(|sectors| scale_by(sectors, SECTOR_BYTES)).blame(LBA, lba)?;
        let size_bytes = parse_u64(size).blame(SIZE, size)?;
        let op = match opcode {
            b"r" | b"R" => IoOp::Read,
            b"w" | b"W" => IoOp::Write,
            _ => return Err(LineError::new(OPCODE, opcode, Problem::UnknownOp("r/R (read) or w/W (write)"))),
        };
        let time_ns = parse_scaled(timestamp, 9).blame(TIMESTAMP, timestamp)?;
        request(time_ns, op, offset_bytes, size_bytes, device, SIZE, size).map(Some)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::trace::test_support::{parse_text, record};
    use crate::workload::trace::TraceOptions;
    use IoOp::{Read, Write};

    /// No SPC CSV file is among the shared traces; these lines are written from the format's
    /// description (UMass / SPC: ASU, LBA in sectors, size in bytes, opcode, seconds).
    const SAMPLE: &[u8] = b"0,303567,3584,w,0.000000\n\
        1,55590,3072,W,0.000366\n\
        0,1008,512,r,0.026214\n\
        2,55590,8192,R,1.5,extra,fields\n";

    #[test]
    fn documented_sample_lines() {
        let records = parse_text(SAMPLE, &TraceOptions::with_format(TraceFormat::Spc)).unwrap();
        assert_eq!(
            records,
            vec![
                record(0, Write, 303_567 * 512, 3584, 0),
                record(366_000, Write, 55_590 * 512, 3072, 1),
                record(26_214_000, Read, 1008 * 512, 512, 0),
                record(1_500_000_000, Read, 55_590 * 512, 8192, 2),
            ]
        );
    }

    #[test]
    fn unknown_opcode_is_reported() {
        let message =
            parse_text(b"0,1,512,x,0.0\n", &TraceOptions::with_format(TraceFormat::Spc)).unwrap_err().to_string();
        assert!(message.contains("Opcode (column 4) field \"x\" is not a known operation"), "{message}");
    }
}
