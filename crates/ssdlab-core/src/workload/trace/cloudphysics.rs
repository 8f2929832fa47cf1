//! Layer: workload (trace readers). CloudPhysics VMware vSCSI block traces (Waldspurger et al.,
//! SHARDS, FAST'15) in the CSV form libCacheSim's tools write: header
//! `timestamp_us,opcode,size_bytes,lbn_sectors`, e.g. `5633898368802,2a,512,42932745`.
//!
//! Timestamp in microseconds; opcode is the SCSI command in hex (`0x` prefix optional):
//! READ(6/10/12/16) = `08`/`28`/`a8`/`88` and WRITE(6/10/12/16) = `0a`/`2a`/`aa`/`8a` become
//! requests. Commands that move no user data (TEST UNIT READY, INQUIRY, READ CAPACITY,
//! SYNCHRONIZE CACHE, MODE/LOG SENSE, REPORT LUNS, UNMAP, ...; the list is `NON_DATA` below)
//! are ignored: UNMAP's ranges live in its parameter data, which the trace does not record.
//! Any other opcode is an unknown operation. Size is bytes, the LBN is 512-byte sectors; the
//! format has no device column (device 0).

use super::fields::{parse_u64, request, scale_by, Blame, Fields, LineError, LineResult, Problem, SECTOR_BYTES};
use super::options::TraceFormat;
use super::text::LineParser;
use crate::workload::IoOp;

const TIMESTAMP: &str = "timestamp_us (column 1)";
const OPCODE: &str = "opcode (column 2, SCSI hex)";
const SIZE: &str = "size_bytes (column 3)";
const LBN: &str = "lbn_sectors (column 4)";

const READS: [u8; 4] = [0x08, 0x28, 0xa8, 0x88];
const WRITES: [u8; 4] = [0x0a, 0x2a, 0xaa, 0x8a];
/// SCSI commands that carry no user data: ignored, not errors.
const NON_DATA: [u8; 14] = [0x00, 0x03, 0x12, 0x1a, 0x1b, 0x1e, 0x25, 0x35, 0x42, 0x4d, 0x5a, 0x91, 0x9e, 0xa0];
const EXPECTED: &str = "a SCSI read (08, 28, a8, 88) or write (0a, 2a, aa, 8a) opcode in hex";

/// Parser for the `cloudphysics` format.
#[derive(Debug)]
pub(crate) struct CloudphysicsParser;

impl LineParser for CloudphysicsParser {
    fn format(&self) -> TraceFormat {
        TraceFormat::Cloudphysics
    }

    #[inline]
    fn parse<'a>(&mut self, line: &'a [u8]) -> LineResult<'a> {
        let mut fields = Fields::delimited(line, b',');
        let timestamp = fields.need(TIMESTAMP)?;
        let opcode = fields.need(OPCODE)?;
        let size = fields.need(SIZE)?;
        let lbn = fields.need(LBN)?;

        let code = parse_opcode(opcode).ok_or(LineError::new(OPCODE, opcode, Problem::UnknownOp(EXPECTED)))?;
        let op = if READS.contains(&code) {
            IoOp::Read
        } else if WRITES.contains(&code) {
            IoOp::Write
        } else if NON_DATA.contains(&code) {
            return Ok(None);
        } else {
            return Err(LineError::new(OPCODE, opcode, Problem::UnknownOp(EXPECTED)));
        };
        let time_ns = parse_u64(timestamp).and_then(|us| scale_by(us, 1_000)).blame(TIMESTAMP, timestamp)?;
        let size_bytes = parse_u64(size).blame(SIZE, size)?;
        let offset_bytes = parse_u64(lbn).and_then(|sectors| scale_by(sectors, SECTOR_BYTES)).blame(LBN, lbn)?;
        request(time_ns, op, offset_bytes, size_bytes, 0, SIZE, size).map(Some)
    }
}

/// One or two hex digits, optionally prefixed by `0x`.
fn parse_opcode(text: &[u8]) -> Option<u8> {
    let digits = text.strip_prefix(b"0x").or_else(|| text.strip_prefix(b"0X")).unwrap_or(text);
    if digits.is_empty() || digits.len() > 2 {
        return None;
    }
    digits.iter().try_fold(0u8, |value, &b| Some(value * 16 + (b as char).to_digit(16)? as u8))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::trace::test_support::{first_records, parse_text, record, shared_trace};
    use crate::workload::trace::TraceOptions;
    use IoOp::{Read, Write};

    #[test]
    fn vscsi_csv_first_lines() {
        let Some(path) = shared_trace("cloudphysics/cloudPhysicsIO.us.csv.gz") else {
            return;
        };
        // Header, then "5633898368802,2a,512,42932745" and "5633898611441,2a,512,42932746".
        assert_eq!(
            first_records(&path, TraceFormat::Cloudphysics, 2),
            vec![
                record(5_633_898_368_802_000, Write, 42_932_745 * 512, 512, 0),
                record(5_633_898_611_441_000, Write, 42_932_746 * 512, 512, 0),
            ]
        );
    }

    #[test]
    fn all_read_write_opcodes_and_non_data_commands() {
        let text =
            b"timestamp_us,opcode,size_bytes,lbn_sectors\n1,08,512,1\n2,0x88,512,1\n3,AA,512,1\n4,35,0,0\n5,8a,512,1\n";
        let records = parse_text(text, &TraceOptions::with_format(TraceFormat::Cloudphysics)).unwrap();
        let ops: Vec<IoOp> = records.iter().map(|record| record.op).collect();
        assert_eq!(ops, vec![Read, Read, Write, Write], "SYNCHRONIZE CACHE (35) is ignored");
        let message =
            parse_text(b"1,ff,512,1\n", &TraceOptions::with_format(TraceFormat::Cloudphysics)).unwrap_err().to_string();
        assert!(message.contains("opcode (column 2, SCSI hex) field \"ff\" is not a known operation"), "{message}");
    }
}
