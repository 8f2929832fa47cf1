//! Layer: workload (trace readers). SYSTOR '17 enterprise VDI traces (Lee et al., SYSTOR'17;
//! SNIA IOTTA): CSV with the header `Timestamp,Response,IOType,LUN,Offset,Size`, e.g.
//! `1456095145.133076000,0.000806000,R,0,899056122368,131072`.
//!
//! Timestamp is Unix seconds with nanosecond digits; Response (seconds) is not read; IOType is
//! `R`/`W`; LUN becomes the device; Offset and Size are bytes. The published files list
//! requests in completion order, so arrival timestamps go backwards by a few requests: the
//! default `reorder_window` re-sorts them.

use super::fields::{parse_device, parse_scaled, parse_u64, request, Blame, Fields, LineError, LineResult, Problem};
use super::options::TraceFormat;
use super::text::LineParser;
use crate::workload::IoOp;

const TIMESTAMP: &str = "Timestamp (column 1, seconds)";
const RESPONSE: &str = "Response (column 2)";
const IOTYPE: &str = "IOType (column 3)";
const LUN: &str = "LUN (column 4)";
const OFFSET: &str = "Offset (column 5, bytes)";
const SIZE: &str = "Size (column 6, bytes)";

/// Parser for the `systor` format.
#[derive(Debug)]
pub(crate) struct SystorParser;

impl LineParser for SystorParser {
    fn format(&self) -> TraceFormat {
        TraceFormat::Systor
    }

    #[inline]
    fn parse<'a>(&mut self, line: &'a [u8]) -> LineResult<'a> {
        let mut fields = Fields::delimited(line, b',');
        let timestamp = fields.need(TIMESTAMP)?;
        fields.skip_one(RESPONSE)?;
        let kind = fields.need(IOTYPE)?;
        let lun = fields.need(LUN)?;
        let offset = fields.need(OFFSET)?;
        let size = fields.need(SIZE)?;

        let time_ns = parse_scaled(timestamp, 9).blame(TIMESTAMP, timestamp)?;
        let op = match kind {
            b"R" | b"r" => IoOp::Read,
            b"W" | b"w" => IoOp::Write,
            _ => return Err(LineError::new(IOTYPE, kind, Problem::UnknownOp("R or W"))),
        };
        let device = parse_device(lun).blame(LUN, lun)?;
        let offset_bytes = parse_u64(offset).blame(OFFSET, offset)?;
        let size_bytes = parse_u64(size).blame(SIZE, size)?;
        request(time_ns, op, offset_bytes, size_bytes, device, SIZE, size).map(Some)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::trace::test_support::{drain, first_records, record, shared_trace};
    use crate::workload::trace::{open, TraceOptions};
    use IoOp::Read;

    #[test]
    fn sample_in_file_order() {
        let Some(path) = shared_trace("systor17/systor17-traces-sample.csv.gz") else {
            return;
        };
        let records = first_records(&path, TraceFormat::Systor, 2);
        // "1456095145.133076000,0.000806000,R,0,899056122368,131072"
        // "1456095145.126285000,0.008044000,R,0,4256049987072,122880" (earlier: completion order)
        assert_eq!(
            records,
            vec![
                record(1_456_095_145_133_076_000, Read, 899_056_122_368, 131_072, 0),
                record(1_456_095_145_126_285_000, Read, 4_256_049_987_072, 122_880, 0),
            ]
        );
    }

    #[test]
    fn default_options_deliver_arrival_order() {
        let Some(path) = shared_trace("systor17/systor17-traces-sample.csv.gz") else {
            return;
        };
        let mut reader = open(&path, &TraceOptions::default()).unwrap();
        let records = drain(reader.as_mut()).unwrap();
        assert_eq!(records.len(), 999);
        assert!(records.windows(2).all(|pair| pair[0].time_ns <= pair[1].time_ns));
        assert_eq!(reader.clamped_records(), 0);
    }
}
