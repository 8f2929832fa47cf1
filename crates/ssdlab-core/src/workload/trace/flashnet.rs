//! Layer: workload (trace readers). The FlashNet / Heimdall raw trace layout (UChicago UCARE
//! lab), used for their 10,000-request MSR Cambridge cuts: `time_ms devno offset_bytes
//! size_bytes type`, whitespace-separated, no header, type 1 = read and 0 = write, e.g.
//! `223.412 0 3159347200 36864 0`. Times are milliseconds with a fraction, relative to the start
//! of the cut; `devno` becomes the device.

use super::fields::{parse_device, parse_scaled, parse_u64, request, Blame, Fields, LineError, LineResult, Problem};
use super::options::TraceFormat;
use super::text::LineParser;
use crate::workload::IoOp;

const TIME: &str = "time (column 1, ms)";
const DEVNO: &str = "devno (column 2)";
const OFFSET: &str = "offset (column 3, bytes)";
const SIZE: &str = "size (column 4, bytes)";
const TYPE: &str = "type (column 5)";

/// Parser for the `flashnet` format.
#[derive(Debug)]
pub(crate) struct FlashnetParser;

impl LineParser for FlashnetParser {
    fn format(&self) -> TraceFormat {
        TraceFormat::Flashnet
    }

    #[inline]
    fn parse<'a>(&mut self, line: &'a [u8]) -> LineResult<'a> {
        let mut fields = Fields::whitespace(line);
        let time = fields.need(TIME)?;
        let devno = fields.need(DEVNO)?;
        let offset = fields.need(OFFSET)?;
        let size = fields.need(SIZE)?;
        let kind = fields.need(TYPE)?;

        let time_ns = parse_scaled(time, 6).blame(TIME, time)?;
        let device = parse_device(devno).blame(DEVNO, devno)?;
        let offset_bytes = parse_u64(offset).blame(OFFSET, offset)?;
        let size_bytes = parse_u64(size).blame(SIZE, size)?;
        let op = match kind {
            b"1" => IoOp::Read,
            b"0" => IoOp::Write,
            _ => return Err(LineError::new(TYPE, kind, Problem::UnknownOp("1 (read) or 0 (write)"))),
        };
        request(time_ns, op, offset_bytes, size_bytes, device, SIZE, size).map(Some)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::trace::test_support::{first_records, parse_text, record, shared_trace};
    use crate::workload::trace::TraceOptions;
    use IoOp::{Read, Write};

    #[test]
    fn rw20_80_cut() {
        let Some(path) = shared_trace("msr/msr_cut10k_rw20_80_105.trace") else {
            return;
        };
        // "0.000 0 200626176 4096 0", "223.412 0 3159347200 36864 0"
        assert_eq!(
            first_records(&path, TraceFormat::Flashnet, 2),
            vec![record(0, Write, 200_626_176, 4096, 0), record(223_412_000, Write, 3_159_347_200, 36_864, 0)]
        );
    }

    #[test]
    fn thpt_rand_cut_reads() {
        let Some(path) = shared_trace("msr/msr_cut10k_thpt_rand_1006.trace") else {
            return;
        };
        // "0.000 0 11562803200 4096 1"; last line "1017.077 0 11544100864 4096 1"
        let records = first_records(&path, TraceFormat::Flashnet, 20_000);
        assert_eq!(records[0], record(0, Read, 11_562_803_200, 4096, 0));
        assert_eq!(records.len(), 10_000);
        assert_eq!(records[9_999], record(1_017_077_000, Read, 11_544_100_864, 4096, 0));
    }

    #[test]
    fn unknown_type_is_reported() {
        let message =
            parse_text(b"0.0 0 0 4096 2\n", &TraceOptions::with_format(TraceFormat::Flashnet)).unwrap_err().to_string();
        assert!(message.contains("type (column 5) field \"2\" is not a known operation"), "{message}");
    }
}
