//! Layer: workload (trace readers). Any CSV or whitespace-separated block trace, described by a
//! column mapping ([`GenericColumns`]) instead of code: which column holds the time and in what
//! unit, which the offset and size and in what unit, which the operation and how reads, writes
//! and trims are spelled, and optionally which holds the device.
//!
//! Columns are numbered from 0. Operation spellings are compared ASCII case-insensitively
//! after trimming blanks (and one pair of double quotes) from the field. Quoted fields that
//! contain the delimiter are not supported.

use super::fields::{
    parse_device, parse_scaled, parse_u64, request, scale_by, Blame, Fields, LineError, LineResult, Problem,
};
use super::options::{delimiter_byte, AddressUnit, GenericColumns, TraceFormat};
use super::text::LineParser;
use crate::error::Result;
use crate::workload::IoOp;

/// Which value a column feeds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    Time = 0,
    Offset = 1,
    Size = 2,
    Op = 3,
    Device = 4,
}

impl Role {
    fn field_name(self) -> &'static str {
        match self {
            Role::Time => TIME,
            Role::Offset => OFFSET,
            Role::Size => SIZE,
            Role::Op => OP,
            Role::Device => DEVICE,
        }
    }
}

/// Parser for a [`GenericColumns`] mapping.
#[derive(Debug)]
pub(crate) struct GenericParser {
    delimiter: Option<u8>,
    /// `(column, role)`, sorted by column, so one pass over the fields finds them all.
    columns: Vec<(usize, Role)>,
    has_device: bool,
    time_scale: u32,
    offset_unit_bytes: u64,
    size_unit_bytes: u64,
    read: Vec<Vec<u8>>,
    write: Vec<Vec<u8>>,
    trim: Vec<Vec<u8>>,
}

impl GenericParser {
    pub(crate) fn new(columns: &GenericColumns) -> Result<Self> {
        columns.validate()?;
        let unit_bytes = |unit: AddressUnit| match unit {
            AddressUnit::Bytes => 1,
            AddressUnit::Sectors => super::fields::SECTOR_BYTES,
            AddressUnit::Pages => columns.page_bytes,
        };
        let mut roles = vec![
            (columns.time_column, Role::Time),
            (columns.offset_column, Role::Offset),
            (columns.size_column, Role::Size),
            (columns.op_column, Role::Op),
        ];
        if let Some(device_column) = columns.device_column {
            roles.push((device_column, Role::Device));
        }
        roles.sort_by_key(|&(column, _)| column);
        let spellings = |list: &[String]| list.iter().map(|s| s.trim().as_bytes().to_vec()).collect();
        Ok(GenericParser {
            delimiter: delimiter_byte(&columns.delimiter)?,
            columns: roles,
            has_device: columns.device_column.is_some(),
            time_scale: columns.time_unit.scale_to_ns(),
            offset_unit_bytes: unit_bytes(columns.offset_unit),
            size_unit_bytes: unit_bytes(columns.size_unit),
            read: spellings(&columns.read),
            write: spellings(&columns.write),
            trim: spellings(&columns.trim),
        })
    }
}

const TIME: &str = "time column";
const OFFSET: &str = "offset column";
const SIZE: &str = "size column";
const OP: &str = "op column";
const DEVICE: &str = "device column";

impl LineParser for GenericParser {
    fn format(&self) -> TraceFormat {
        TraceFormat::Generic
    }

    fn parse<'a>(&mut self, line: &'a [u8]) -> LineResult<'a> {
        let mut fields = match self.delimiter {
            Some(delimiter) => Fields::delimited(line, delimiter),
            None => Fields::whitespace(line),
        };
        // The field text of each role, indexed by `Role as usize`.
        let mut values: [&[u8]; 5] = [b""; 5];
        let mut position = 0usize;
        let mut field: Option<&[u8]> = None;
        for &(column, role) in &self.columns {
            while position <= column {
                field = fields.next();
                position += 1;
                if field.is_none() {
                    break;
                }
            }
            values[role as usize] = field.ok_or(LineError::missing(role.field_name()))?;
        }
        let [time, offset, size, op, device] = values;

        let time_ns = parse_scaled(time, self.time_scale).blame(TIME, time)?;
        let offset_bytes = parse_u64(offset).and_then(|v| scale_by(v, self.offset_unit_bytes)).blame(OFFSET, offset)?;
        let size_bytes = parse_u64(size).and_then(|v| scale_by(v, self.size_unit_bytes)).blame(SIZE, size)?;
        let matches = |list: &[Vec<u8>]| list.iter().any(|spelling| spelling.eq_ignore_ascii_case(op));
        let op_kind = if matches(&self.read) {
            IoOp::Read
        } else if matches(&self.write) {
            IoOp::Write
        } else if matches(&self.trim) {
            IoOp::Trim
        } else {
            return Err(LineError::new(
                OP,
                op,
                Problem::UnknownOp("one of the read, write or trim spellings of the mapping"),
            ));
        };
        let device = if self.has_device { parse_device(device).blame(DEVICE, device)? } else { 0 };
        request(time_ns, op_kind, offset_bytes, size_bytes, device, SIZE, size).map(Some)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Error;
    use crate::workload::trace::options::TimeUnit;
    use crate::workload::trace::test_support::{first_records, parse_text, record, shared_trace};
    use crate::workload::trace::{open_unfiltered, TraceOptions};
    use IoOp::{Read, Trim, Write};

    fn options(columns: GenericColumns) -> TraceOptions {
        TraceOptions { generic: Some(columns), ..TraceOptions::with_format(TraceFormat::Generic) }
    }

    #[test]
    fn maps_columns_in_any_order_with_units() {
        let columns = GenericColumns {
            delimiter: ";".into(),
            header_lines: 2,
            trim: vec!["discard".into()],
            device_column: Some(4),
            ..GenericColumns::csv(3, TimeUnit::Us, 1, AddressUnit::Pages, 2, AddressUnit::Sectors, 0)
        };
        let text = b"# exported by a tool\nop;page;sectors;t_us;vol\nREAD;10;8;1.5;7\n\"write\" ; 0 ; 1 ; 2 ; 7\nDiscard;1;2048;3;8\n";
        let records = parse_text(text, &options(columns)).unwrap();
        assert_eq!(
            records,
            vec![
                record(1_500, Read, 40_960, 4096, 7),
                record(2_000, Write, 0, 512, 7),
                record(3_000, Trim, 4096, 1_048_576, 8),
            ]
        );
    }

    #[test]
    fn reads_an_msr_file_like_the_msr_reader() {
        let Some(path) = shared_trace("msr/hm_0.sample1000.csv") else {
            return;
        };
        let columns = GenericColumns {
            device_column: Some(2),
            ..GenericColumns::csv(0, TimeUnit::Filetime, 4, AddressUnit::Bytes, 5, AddressUnit::Bytes, 3)
        };
        let file = std::fs::File::open(&path).unwrap();
        let mut reader = open_unfiltered(Box::new(file), &path, &options(columns)).unwrap();
        let generic = crate::workload::trace::test_support::drain(reader.as_mut()).unwrap();
        assert_eq!(generic, first_records(&path, TraceFormat::Msr, 2000));
    }

    #[test]
    fn whitespace_delimiter_and_missing_columns() {
        let columns = GenericColumns {
            delimiter: "whitespace".into(),
            read: vec!["1".into()],
            write: vec!["0".into()],
            ..GenericColumns::csv(0, TimeUnit::Ms, 2, AddressUnit::Bytes, 3, AddressUnit::Bytes, 4)
        };
        let records = parse_text(b"0.5 0 4096 512 1\n", &options(columns.clone())).unwrap();
        assert_eq!(records, vec![record(500_000, Read, 4096, 512, 0)]);
        let message = parse_text(b"0.5 0 4096 512\n", &options(columns)).unwrap_err().to_string();
        assert!(message.contains("op column field is missing"), "{message}");
    }

    #[test]
    fn invalid_mappings_are_config_errors() {
        let base = GenericColumns::csv(0, TimeUnit::S, 1, AddressUnit::Bytes, 2, AddressUnit::Bytes, 3);
        let bad = [
            GenericColumns { delimiter: "ab".into(), ..base.clone() },
            GenericColumns { delimiter: "1".into(), ..base.clone() },
            GenericColumns { write: vec!["R".into()], ..base.clone() },
            GenericColumns { page_bytes: 0, ..base.clone() },
            GenericColumns { read: vec![" ".into()], ..base.clone() },
        ];
        for columns in bad {
            assert!(matches!(columns.validate(), Err(Error::Config { .. })), "{columns:?}");
        }
        assert!(base.validate().is_ok());
    }

    #[test]
    fn mapping_deserializes_from_toml() {
        let columns: GenericColumns = toml::from_str(
            "delimiter = \"\\t\"\ntime_column = 0\ntime_unit = \"s\"\noffset_column = 1\noffset_unit = \"sectors\"\n\
             size_column = 2\nsize_unit = \"bytes\"\nop_column = 3\nread = [\"0\"]\nwrite = [\"1\"]\n",
        )
        .unwrap();
        assert_eq!(columns.delimiter, "\t");
        assert!(toml::from_str::<GenericColumns>("time_column = 0\nbogus = 1").is_err());
    }
}
