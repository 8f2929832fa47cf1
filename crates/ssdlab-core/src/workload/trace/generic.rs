//! Layer: workload (trace readers). Any CSV or whitespace-separated block trace, described by a
//! column mapping ([`GenericColumns`]) instead of code: which column holds the time and in what
//! unit, which the offset and size and in what unit, which the operation and how reads, writes
//! and trims are spelled, and optionally which holds the device.
//!
//! Columns are numbered from 0. Operation spellings are compared ASCII case-insensitively
//! after trimming blanks (and one pair of double quotes) from the field. Quoted fields that
//! contain the delimiter are not supported.

use serde::{Deserialize, Serialize};

use super::fields::{
    parse_device, parse_scaled, parse_u64, request, scale_by, Blame, Fields, LineError, LineResult, Problem,
};
use super::text::LineParser;
use super::TraceFormat;
use crate::error::{Error, Result};
use crate::workload::IoOp;

/// Unit of the time column. Every unit accepts a decimal fraction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TimeUnit {
    /// Seconds.
    S,
    /// Milliseconds.
    Ms,
    /// Microseconds.
    Us,
    /// Nanoseconds.
    Ns,
    /// Windows FILETIME: 100 ns ticks (since 1601-01-01; not rebased).
    Filetime,
}

impl TimeUnit {
    /// Power of ten from this unit to nanoseconds.
    fn scale_to_ns(self) -> u32 {
        match self {
            TimeUnit::S => 9,
            TimeUnit::Ms => 6,
            TimeUnit::Us => 3,
            TimeUnit::Ns => 0,
            TimeUnit::Filetime => 2,
        }
    }
}

/// Unit of the offset and size columns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AddressUnit {
    Bytes,
    /// 512-byte sectors.
    Sectors,
    /// Pages of [`GenericColumns::page_bytes`] bytes.
    Pages,
}

/// The column mapping of a `generic` trace.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GenericColumns {
    /// One ASCII character (`","`, `";"`, `"\t"`, `"|"`, ...) or `"whitespace"` (runs of spaces
    /// and tabs).
    #[serde(default = "default_delimiter")]
    pub delimiter: String,
    /// Lines at the top of the file to skip (headers), counted before blank lines are dropped.
    #[serde(default)]
    pub header_lines: u64,
    pub time_column: usize,
    pub time_unit: TimeUnit,
    pub offset_column: usize,
    pub offset_unit: AddressUnit,
    pub size_column: usize,
    pub size_unit: AddressUnit,
    pub op_column: usize,
    /// Spellings of a read in the op column.
    #[serde(default = "default_read")]
    pub read: Vec<String>,
    /// Spellings of a write in the op column.
    #[serde(default = "default_write")]
    pub write: Vec<String>,
    /// Spellings of a trim / discard in the op column (none by default).
    #[serde(default)]
    pub trim: Vec<String>,
    /// The column holding the device / volume number, if any (else device 0).
    #[serde(default)]
    pub device_column: Option<usize>,
    /// Bytes per page when a unit is `pages`.
    #[serde(default = "default_page_bytes")]
    pub page_bytes: u64,
}

fn default_delimiter() -> String {
    ",".to_string()
}
fn default_read() -> Vec<String> {
    vec!["r".to_string(), "read".to_string()]
}
fn default_write() -> Vec<String> {
    vec!["w".to_string(), "write".to_string()]
}
fn default_page_bytes() -> u64 {
    4096
}

impl GenericColumns {
    /// A comma-separated mapping with default spellings and no device column.
    pub fn csv(
        time_column: usize,
        time_unit: TimeUnit,
        offset_column: usize,
        offset_unit: AddressUnit,
        size_column: usize,
        size_unit: AddressUnit,
        op_column: usize,
    ) -> Self {
        GenericColumns {
            delimiter: default_delimiter(),
            header_lines: 0,
            time_column,
            time_unit,
            offset_column,
            offset_unit,
            size_column,
            size_unit,
            op_column,
            read: default_read(),
            write: default_write(),
            trim: Vec::new(),
            device_column: None,
            page_bytes: default_page_bytes(),
        }
    }

    /// Check the mapping on its own.
    pub fn validate(&self) -> Result<()> {
        delimiter_byte(&self.delimiter)?;
        if self.page_bytes == 0 {
            return Err(Error::config("generic.page_bytes", "must be at least 1"));
        }
        let spellings = [("read", &self.read), ("write", &self.write), ("trim", &self.trim)];
        for (key, list) in spellings {
            if let Some(bad) = list.iter().find(|s| s.trim().is_empty()) {
                return Err(Error::config(format!("generic.{key}"), format!("empty operation spelling {bad:?}")));
            }
        }
        if self.read.is_empty() && self.write.is_empty() {
            return Err(Error::config("generic.read", "give at least one spelling for reads or for writes"));
        }
        for (i, (key_a, list_a)) in spellings.iter().enumerate() {
            for (key_b, list_b) in &spellings[i + 1..] {
                if let Some(both) =
                    list_a.iter().find(|a| list_b.iter().any(|b| a.trim().eq_ignore_ascii_case(b.trim())))
                {
                    return Err(Error::config(
                        format!("generic.{key_b}"),
                        format!("{both:?} is listed both as {key_a} and as {key_b}"),
                    ));
                }
            }
        }
        Ok(())
    }
}

/// `None` for whitespace, else the delimiter byte.
fn delimiter_byte(delimiter: &str) -> Result<Option<u8>> {
    match delimiter.as_bytes() {
        b"whitespace" => Ok(None),
        [byte] if byte.is_ascii() && !byte.is_ascii_alphanumeric() && !matches!(byte, b'.' | b'-' | b'+' | b'\n' | b'\r') => {
            Ok(Some(*byte))
        }
        _ => Err(Error::config(
            "generic.delimiter",
            format!("{delimiter:?} is not a delimiter: use one ASCII punctuation character, \"\\t\", \" \" or \"whitespace\""),
        )),
    }
}

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
