//! Layer: stats. The per-request log: one row per completed host request, streamed to a Parquet
//! file in row groups, so memory stays flat however long the trace is (a 10 M-request run keeps
//! one row group of 64 Ki rows, about 2 MiB, in memory).
//!
//! Columns: `arrival_ns`, `latency_ns`, `offset_bytes`, `size_bytes` (unsigned 64-bit), `op`
//! (string `read`/`write`/`trim`, dictionary-encoded). Snappy-compressed. Any Parquet reader
//! (pyarrow, polars, DuckDB, Spark) reads it; `ssdlab` loads it with pyarrow.

use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use parquet::basic::Compression;
use parquet::data_type::{ByteArray, ByteArrayType, Int64Type};
use parquet::file::properties::WriterProperties;
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::parser::parse_message_type;

use crate::error::{Error, Result};
use crate::workload::IoOp;

/// Rows buffered before a row group is written.
pub const ROW_GROUP_ROWS: usize = 64 * 1024;

const SCHEMA: &str = "message ssdlab_requests {
    REQUIRED INT64 arrival_ns (INTEGER(64, false));
    REQUIRED INT64 latency_ns (INTEGER(64, false));
    REQUIRED BYTE_ARRAY op (STRING);
    REQUIRED INT64 offset_bytes (INTEGER(64, false));
    REQUIRED INT64 size_bytes (INTEGER(64, false));
}";

/// One completed host request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RequestRecord {
    pub arrival_ns: u64,
    pub latency_ns: u64,
    pub op: IoOp,
    pub offset_bytes: u64,
    pub size_bytes: u64,
}

/// Streams `RequestRecord`s to a Parquet file.
pub struct RequestLog {
    path: PathBuf,
    writer: Option<SerializedFileWriter<BufWriter<File>>>,
    arrival_ns: Vec<i64>,
    latency_ns: Vec<i64>,
    op: Vec<ByteArray>,
    offset_bytes: Vec<i64>,
    size_bytes: Vec<i64>,
    /// The three op strings, built once (cloning a ByteArray shares its bytes).
    op_values: [ByteArray; 3],
    rows: u64,
}

/// Parquet stores unsigned 64-bit columns in INT64 cells; the logical type marks them unsigned.
fn cell(v: u64) -> i64 {
    v as i64
}

impl RequestLog {
    /// Create (or truncate) the file at `path`.
    pub fn create(path: &Path) -> Result<RequestLog> {
        let io = |e: std::io::Error| Error::io(path, e);
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(io)?;
        }
        let file = File::create(path).map_err(io)?;
        let schema = Arc::new(parse_message_type(SCHEMA).map_err(|e| Error::invariant(format!("log schema: {e}")))?);
        let props = Arc::new(WriterProperties::builder().set_compression(Compression::SNAPPY).build());
        let writer =
            SerializedFileWriter::new(BufWriter::new(file), schema, props).map_err(|e| parquet_error(path, e))?;
        Ok(RequestLog {
            path: path.to_path_buf(),
            writer: Some(writer),
            arrival_ns: Vec::with_capacity(ROW_GROUP_ROWS),
            latency_ns: Vec::with_capacity(ROW_GROUP_ROWS),
            op: Vec::with_capacity(ROW_GROUP_ROWS),
            offset_bytes: Vec::with_capacity(ROW_GROUP_ROWS),
            size_bytes: Vec::with_capacity(ROW_GROUP_ROWS),
            op_values: [ByteArray::from("read"), ByteArray::from("write"), ByteArray::from("trim")],
            rows: 0,
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Rows written or buffered so far.
    pub fn rows(&self) -> u64 {
        self.rows
    }

    pub fn push(&mut self, r: RequestRecord) -> Result<()> {
        self.arrival_ns.push(cell(r.arrival_ns));
        self.latency_ns.push(cell(r.latency_ns));
        self.op.push(self.op_values[r.op as usize].clone());
        self.offset_bytes.push(cell(r.offset_bytes));
        self.size_bytes.push(cell(r.size_bytes));
        self.rows += 1;
        if self.arrival_ns.len() >= ROW_GROUP_ROWS {
            self.flush_row_group()?;
        }
        Ok(())
    }

    fn flush_row_group(&mut self) -> Result<()> {
        if self.arrival_ns.is_empty() {
            return Ok(());
        }
        let path = self.path.clone();
        let err = |e| parquet_error(&path, e);
        let writer = self.writer.as_mut().ok_or_else(|| Error::invariant("request log written after close"))?;
        let mut group = writer.next_row_group().map_err(err)?;
        let int_columns = [&self.arrival_ns, &self.latency_ns];
        for values in int_columns {
            let mut column = group.next_column().map_err(err)?.ok_or_else(|| Error::invariant("log column"))?;
            column.typed::<Int64Type>().write_batch(values, None, None).map_err(err)?;
            column.close().map_err(err)?;
        }
        let mut column = group.next_column().map_err(err)?.ok_or_else(|| Error::invariant("log column"))?;
        column.typed::<ByteArrayType>().write_batch(&self.op, None, None).map_err(err)?;
        column.close().map_err(err)?;
        for values in [&self.offset_bytes, &self.size_bytes] {
            let mut column = group.next_column().map_err(err)?.ok_or_else(|| Error::invariant("log column"))?;
            column.typed::<Int64Type>().write_batch(values, None, None).map_err(err)?;
            column.close().map_err(err)?;
        }
        group.close().map_err(err)?;
        self.arrival_ns.clear();
        self.latency_ns.clear();
        self.op.clear();
        self.offset_bytes.clear();
        self.size_bytes.clear();
        Ok(())
    }

    /// Write the buffered rows and the file footer. Idempotent.
    pub fn close(&mut self) -> Result<()> {
        if self.writer.is_none() {
            return Ok(());
        }
        self.flush_row_group()?;
        let writer = self.writer.take().ok_or_else(|| Error::invariant("request log closed twice"))?;
        writer.close().map_err(|e| parquet_error(&self.path, e))?;
        Ok(())
    }
}

fn parquet_error(path: &Path, e: parquet::errors::ParquetError) -> Error {
    match e {
        parquet::errors::ParquetError::External(inner) => Error::io(path, std::io::Error::other(inner.to_string())),
        other => Error::io(path, std::io::Error::other(other.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use parquet::file::reader::{FileReader, SerializedFileReader};
    use parquet::record::RowAccessor;

    fn temp(name: &str) -> PathBuf {
        std::env::temp_dir().join(format!("ssdlab-request-log-{}-{name}", std::process::id()))
    }

    #[test]
    fn rows_round_trip_across_row_groups() {
        let path = temp("round_trip.parquet");
        let mut log = RequestLog::create(&path).unwrap();
        let n = ROW_GROUP_ROWS as u64 + 10;
        let ops = [IoOp::Read, IoOp::Write, IoOp::Trim];
        for i in 0..n {
            let op = ops[(i % 3) as usize];
            log.push(RequestRecord {
                arrival_ns: i * 7,
                latency_ns: u64::MAX - i,
                op,
                offset_bytes: i << 12,
                size_bytes: 4096,
            })
            .unwrap();
        }
        log.close().unwrap();
        log.close().unwrap();
        let reader = SerializedFileReader::new(File::open(&path).unwrap()).unwrap();
        let meta = reader.metadata();
        assert_eq!(meta.file_metadata().num_rows() as u64, n);
        assert_eq!(meta.num_row_groups(), 2, "one full row group and the rest");
        let rows: Vec<_> = reader.get_row_iter(None).unwrap().map(|r| r.unwrap()).collect();
        let last = &rows[(n - 1) as usize];
        // Unsigned columns keep values above i64::MAX.
        assert_eq!(last.get_ulong(1).unwrap(), u64::MAX - (n - 1));
        assert_eq!(last.get_ulong(0).unwrap(), (n - 1) * 7);
        assert_eq!(last.get_string(2).unwrap(), ["read", "write", "trim"][((n - 1) % 3) as usize]);
        assert_eq!(rows[5].get_ulong(3).unwrap(), 5 << 12);
        std::fs::remove_file(&path).ok();
    }

    #[test]
    fn unwritable_path_is_an_io_error_naming_it() {
        let dir = temp("a-file-not-a-dir");
        std::fs::write(&dir, b"x").unwrap();
        let err = RequestLog::create(&dir.join("log.parquet")).err().unwrap();
        assert!(matches!(err, Error::Io { .. }), "{err}");
        assert!(err.to_string().contains("a-file-not-a-dir"), "{err}");
        std::fs::remove_file(&dir).ok();
    }
}
