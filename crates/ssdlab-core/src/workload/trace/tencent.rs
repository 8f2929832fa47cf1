//! Layer: workload (trace readers). Tencent Cloud Block Storage traces (2018; Zhang et al.,
//! OSCA, ATC'20; SNIA IOTTA): CSV `Timestamp,Offset,Size,IOType,VolumeID`, no header, e.g.
//! `1538323200,4247200,128,1,1058`.
//!
//! Timestamp in whole Unix seconds (a fraction is accepted); Offset and Size in 512-byte
//! sectors; IOType 0 = read, 1 = write; VolumeID becomes the device. With one-second stamps
//! over thousands of volumes the file is not sorted (a request stamped second N+1 can precede
//! many stamped N), further back than any small window: read it with
//! `on_out_of_order = "clamp"` or sort it first (see docs/traces.md).

use super::fields::{
    parse_device, parse_scaled, parse_u64, request, scale_by, Blame, Fields, LineError, LineResult, Problem,
    SECTOR_BYTES,
};
use super::options::TraceFormat;
use super::text::LineParser;
use crate::workload::IoOp;

const TIMESTAMP: &str = "Timestamp (column 1, seconds)";
const OFFSET: &str = "Offset (column 2, 512-byte sectors)";
const SIZE: &str = "Size (column 3, 512-byte sectors)";
const IOTYPE: &str = "IOType (column 4)";
const VOLUME: &str = "VolumeID (column 5)";

/// Parser for the `tencent` format.
#[derive(Debug)]
pub(crate) struct TencentParser;

impl LineParser for TencentParser {
    fn format(&self) -> TraceFormat {
        TraceFormat::Tencent
    }

    #[inline]
    fn parse<'a>(&mut self, line: &'a [u8]) -> LineResult<'a> {
        let mut fields = Fields::delimited(line, b',');
        let timestamp = fields.need(TIMESTAMP)?;
        let offset = fields.need(OFFSET)?;
        let size = fields.need(SIZE)?;
        let kind = fields.need(IOTYPE)?;
        let volume = fields.need(VOLUME)?;

        let time_ns = parse_scaled(timestamp, 9).blame(TIMESTAMP, timestamp)?;
        let offset_bytes =
            parse_u64(offset).and_then(|sectors| scale_by(sectors, SECTOR_BYTES)).blame(OFFSET, offset)?;
        let size_bytes = parse_u64(size).and_then(|sectors| scale_by(sectors, SECTOR_BYTES)).blame(SIZE, size)?;
        let op = match kind {
            b"0" => IoOp::Read,
            b"1" => IoOp::Write,
            _ => return Err(LineError::new(IOTYPE, kind, Problem::UnknownOp("0 (read) or 1 (write)"))),
        };
        let device = parse_device(volume).blame(VOLUME, volume)?;
        request(time_ns, op, offset_bytes, size_bytes, device, SIZE, size).map(Some)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::trace::test_support::{drain, first_records, record, shared_trace};
    use crate::workload::trace::{open, OutOfOrderPolicy, TraceOptions};
    use IoOp::{Read, Write};

    #[test]
    fn cbs_sample_first_lines() {
        let Some(path) = shared_trace("tencent_cbs/cloud_storage_sample_50k.csv.gz") else {
            return;
        };
        // "1538323200,4247200,128,1,1058" then "1538323199,13896880,128,0,1063"
        assert_eq!(
            first_records(&path, TraceFormat::Tencent, 2),
            vec![
                record(1_538_323_200_000_000_000, Write, 4_247_200 * 512, 65_536, 1058),
                record(1_538_323_199_000_000_000, Read, 13_896_880 * 512, 65_536, 1063),
            ]
        );
    }

    #[test]
    fn unsorted_seconds_need_clamping() {
        let Some(path) = shared_trace("tencent_cbs/cloud_storage_sample_50k.csv.gz") else {
            return;
        };
        let error = drain(open(&path, &TraceOptions::default()).unwrap().as_mut()).unwrap_err().to_string();
        assert!(error.contains("out of order"), "{error}");
        let options = TraceOptions { on_out_of_order: OutOfOrderPolicy::Clamp, ..TraceOptions::default() };
        let mut reader = open(&path, &options).unwrap();
        assert_eq!(drain(reader.as_mut()).unwrap().len(), 50_000);
        assert!(reader.clamped_records() > 0);
    }
}
