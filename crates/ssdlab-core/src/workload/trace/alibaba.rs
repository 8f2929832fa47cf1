//! Layer: workload (trace readers). Alibaba Cloud block traces (2020, `alibaba/block-traces`;
//! Li et al., IISWC'20): CSV `device_id,opcode,offset,length,timestamp`, no header in the
//! published files (a header line is skipped if present), e.g.
//! `419,W,8825705472,4096,1577808000000080`.
//!
//! device_id becomes the device; opcode `R`/`W`; offset and length in bytes; timestamp in
//! microseconds (Unix epoch).

use super::fields::{parse_device, parse_u64, request, scale_by, Blame, Fields, LineError, LineResult, Problem};
use super::options::TraceFormat;
use super::text::LineParser;
use crate::workload::IoOp;

const DEVICE: &str = "device_id (column 1)";
const OPCODE: &str = "opcode (column 2)";
const OFFSET: &str = "offset (column 3, bytes)";
const LENGTH: &str = "length (column 4, bytes)";
const TIMESTAMP: &str = "timestamp (column 5, us)";

/// Parser for the `alibaba` format.
#[derive(Debug)]
pub(crate) struct AlibabaParser;

impl LineParser for AlibabaParser {
    fn format(&self) -> TraceFormat {
        TraceFormat::Alibaba
    }

    #[inline]
    fn parse<'a>(&mut self, line: &'a [u8]) -> LineResult<'a> {
        let mut fields = Fields::delimited(line, b',');
        let device_id = fields.need(DEVICE)?;
        let opcode = fields.need(OPCODE)?;
        let offset = fields.need(OFFSET)?;
        let length = fields.need(LENGTH)?;
        let timestamp = fields.need(TIMESTAMP)?;

        let device = parse_device(device_id).blame(DEVICE, device_id)?;
        let op = match opcode {
            b"R" | b"r" => IoOp::Read,
            b"W" | b"w" => IoOp::Write,
            _ => return Err(LineError::new(OPCODE, opcode, Problem::UnknownOp("R or W"))),
        };
        let offset_bytes = parse_u64(offset).blame(OFFSET, offset)?;
        let size_bytes = parse_u64(length).blame(LENGTH, length)?;
        let time_ns = parse_u64(timestamp).and_then(|us| scale_by(us, 1_000)).blame(TIMESTAMP, timestamp)?;
        request(time_ns, op, offset_bytes, size_bytes, device, LENGTH, length).map(Some)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::trace::test_support::{parse_text, record};
    use crate::workload::trace::TraceOptions;
    use IoOp::{Read, Write};

    /// No Alibaba file is among the shared traces; these lines are written from the format's
    /// documentation (`device_id,opcode,offset,length,timestamp`, bytes, microseconds).
    const SAMPLE: &[u8] = b"device_id,opcode,offset,length,timestamp\n\
        419,W,8825705472,4096,1577808000000080\n\
        419,R,8825709568,16384,1577808000000312\n\
        7,W,0,512,1577808000001000\n";

    #[test]
    fn documented_sample_lines() {
        let records = parse_text(SAMPLE, &TraceOptions::with_format(TraceFormat::Alibaba)).unwrap();
        assert_eq!(
            records,
            vec![
                record(1_577_808_000_000_080_000, Write, 8_825_705_472, 4096, 419),
                record(1_577_808_000_000_312_000, Read, 8_825_709_568, 16_384, 419),
                record(1_577_808_000_001_000_000, Write, 0, 512, 7),
            ]
        );
    }

    #[test]
    fn negative_length_is_reported() {
        let message =
            parse_text(b"1,R,0,-4096,5\n", &TraceOptions::with_format(TraceFormat::Alibaba)).unwrap_err().to_string();
        assert!(message.contains("length (column 4, bytes) field \"-4096\" is negative"), "{message}");
    }
}
