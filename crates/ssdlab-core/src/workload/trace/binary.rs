//! Layer: workload (trace readers). The ssdlab binary trace: a compact, fixed-width form of any
//! trace, to replay a large trace many times without parsing text again.
//!
//! Layout, all integers little-endian:
//!
//! | bytes | field |
//! |---|---|
//! | 0..8   | magic `SSDLABTR` |
//! | 8..10  | version `u16` = 1 |
//! | 10..12 | record size in bytes `u16` = 25 |
//! | 12..16 | reserved `u32` = 0 |
//! | 16..24 | record count `u64` (`u64::MAX` while the writer has not finished) |
//! | 24..   | records |
//!
//! Each 25-byte record: `time_ns u64`, `offset_bytes u64`, `size_bytes u32`, `device u32`,
//! `op u8` (0 = read, 1 = write, 2 = trim). Sizes above 4 GiB - 1 cannot occur: every reader
//! rejects them. Binary traces may themselves be gzip- or zstd-compressed. Records keep the
//! order and times they were converted with (after the filters of the converting reader).

use std::fs::File;
use std::io::{BufRead, BufWriter, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use super::options::BadLinePolicy;
use super::reader::TraceReader;
use super::source::{read_up_to, Compression, Source};
use crate::error::{Error, Result, TraceErrorKind};
use crate::workload::{IoOp, TraceRecord};

/// The first eight bytes of every ssdlab binary trace.
pub const MAGIC: [u8; 8] = *b"SSDLABTR";
/// The layout version this build reads and writes.
pub const VERSION: u16 = 1;
/// Header size in bytes.
pub const HEADER_BYTES: usize = 24;
/// Record size in bytes.
pub const RECORD_BYTES: usize = 25;

/// Record count of a file whose writer has not finished.
const UNFINISHED: u64 = u64::MAX;

/// Writes an ssdlab binary trace record by record.
pub struct BinaryWriter {
    path: PathBuf,
    out: BufWriter<File>,
    count: u64,
}

impl BinaryWriter {
    /// Create (or truncate) the file and write the header.
    pub fn create(path: &Path) -> Result<Self> {
        let file = File::create(path).map_err(|e| Error::io(path, e))?;
        let mut writer =
            BinaryWriter { path: path.to_path_buf(), out: BufWriter::with_capacity(1 << 20, file), count: 0 };
        writer.out.write_all(&header(UNFINISHED)).map_err(|e| Error::io(path, e))?;
        Ok(writer)
    }

    /// Append one record.
    pub fn write(&mut self, record: &TraceRecord) -> Result<()> {
        let size_bytes = u32::try_from(record.size_bytes).map_err(|_| {
            Error::trace(
                &self.path,
                self.count + 1,
                format!("request size {} bytes does not fit in 32 bits", record.size_bytes),
            )
        })?;
        let mut bytes = [0u8; RECORD_BYTES];
        bytes[0..8].copy_from_slice(&record.time_ns.to_le_bytes());
        bytes[8..16].copy_from_slice(&record.offset_bytes.to_le_bytes());
        bytes[16..20].copy_from_slice(&size_bytes.to_le_bytes());
        bytes[20..24].copy_from_slice(&record.device.to_le_bytes());
        bytes[24] = match record.op {
            IoOp::Read => 0,
            IoOp::Write => 1,
            IoOp::Trim => 2,
        };
        self.out.write_all(&bytes).map_err(|e| Error::io(&self.path, e))?;
        self.count += 1;
        Ok(())
    }

    /// Write the record count into the header and close the file; returns the count.
    pub fn finish(self) -> Result<u64> {
        let BinaryWriter { path, out, count } = self;
        let io_error = |e| Error::io(&path, e);
        let mut file = out.into_inner().map_err(|e| io_error(e.into_error()))?;
        file.seek(SeekFrom::Start(16)).map_err(io_error)?;
        file.write_all(&count.to_le_bytes()).map_err(io_error)?;
        file.sync_all().map_err(io_error)?;
        Ok(count)
    }
}

impl super::writer::TraceWriter for BinaryWriter {
    fn write(&mut self, record: &TraceRecord) -> Result<()> {
        BinaryWriter::write(self, record)
    }

    fn finish(self: Box<Self>) -> Result<super::writer::WriteSummary> {
        let records = BinaryWriter::finish(*self)?;
        Ok(super::writer::WriteSummary { records, ..Default::default() })
    }
}

fn header(count: u64) -> [u8; HEADER_BYTES] {
    let mut bytes = [0u8; HEADER_BYTES];
    bytes[0..8].copy_from_slice(&MAGIC);
    bytes[8..10].copy_from_slice(&VERSION.to_le_bytes());
    bytes[10..12].copy_from_slice(&(RECORD_BYTES as u16).to_le_bytes());
    bytes[16..24].copy_from_slice(&count.to_le_bytes());
    bytes
}

/// Write every record of `reader` to a binary trace at `out_path`; returns the record count.
/// On error the partial file is removed.
pub fn convert(reader: &mut dyn TraceReader, out_path: &Path) -> Result<u64> {
    let result = (|| {
        let mut writer = BinaryWriter::create(out_path)?;
        while let Some(record) = reader.next_record()? {
            writer.write(&record)?;
        }
        writer.finish()
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(out_path);
    }
    result
}

/// Reads an ssdlab binary trace.
pub(crate) struct BinaryReader {
    path: PathBuf,
    source: Box<dyn BufRead + Send>,
    compression: Compression,
    count: u64,
    read: u64,
    counts: super::info::LineCounts,
    policy: BadLinePolicy,
    finished: bool,
}

impl BinaryReader {
    pub(crate) fn new(source: Source, path: &Path, policy: BadLinePolicy) -> Result<Self> {
        let Source { reader: mut source, compression, .. } = source;
        let mut bytes = [0u8; HEADER_BYTES];
        let got = read_up_to(&mut source, &mut bytes)
            .map_err(|e| Error::trace(path, 0, compression.describe_read_error(&e)).of_kind(TraceErrorKind::Corrupt))?;
        if got < HEADER_BYTES || bytes[0..8] != MAGIC {
            let what = if got < HEADER_BYTES { "too short for the header" } else { "wrong magic bytes" };
            return Err(Error::trace(
                path,
                0,
                format!("not an ssdlab binary trace ({what}; expected {:?})", "SSDLABTR"),
            )
            .of_kind(TraceErrorKind::Format));
        }
        let version = u16::from_le_bytes([bytes[8], bytes[9]]);
        if version != VERSION {
            return Err(Error::trace(
                path,
                0,
                format!("ssdlab binary trace version {version} is not supported (this build reads version {VERSION})"),
            )
            .of_kind(TraceErrorKind::Format));
        }
        let record_bytes = u16::from_le_bytes([bytes[10], bytes[11]]);
        if usize::from(record_bytes) != RECORD_BYTES {
            return Err(Error::trace(
                path,
                0,
                format!("binary trace records are {record_bytes} bytes, expected {RECORD_BYTES}"),
            )
            .of_kind(TraceErrorKind::Corrupt));
        }
        let count = u64::from_le_bytes(le8(&bytes[16..24]));
        if count == UNFINISHED {
            return Err(Error::trace(
                path,
                0,
                "the binary trace is unfinished: its writer stopped before recording the count",
            )
            .of_kind(TraceErrorKind::Corrupt));
        }
        if count == 0 {
            return Err(Error::trace(path, 0, "the binary trace holds no requests").of_kind(TraceErrorKind::Empty));
        }
        Ok(BinaryReader {
            path: path.to_path_buf(),
            source,
            compression,
            count,
            read: 0,
            counts: super::info::LineCounts::default(),
            policy,
            finished: false,
        })
    }

    fn fail(&mut self, record: u64, reason: String, kind: TraceErrorKind) -> Error {
        self.finished = true;
        Error::trace(&self.path, record, reason).of_kind(kind)
    }
}

impl TraceReader for BinaryReader {
    fn next_record(&mut self) -> Result<Option<TraceRecord>> {
        loop {
            if self.finished {
                return Ok(None);
            }
            if self.read == self.count {
                self.finished = true;
                return match self.source.fill_buf() {
                    Ok([]) => Ok(None),
                    Ok(_) => Err(Error::trace(
                        &self.path,
                        self.read,
                        format!("trailing bytes after the {} records the header announces", self.count),
                    )),
                    Err(e) => Err(Error::trace(&self.path, self.read, self.compression.describe_read_error(&e))
                        .of_kind(TraceErrorKind::Corrupt)),
                };
            }
            let mut bytes = [0u8; RECORD_BYTES];
            let got = match read_up_to(&mut self.source, &mut bytes) {
                Ok(got) => got,
                Err(e) => {
                    let reason = self.compression.describe_read_error(&e);
                    return Err(self.fail(self.read + 1, reason, TraceErrorKind::Corrupt));
                }
            };
            self.read += 1;
            if got < RECORD_BYTES {
                let reason = format!(
                    "truncated binary trace: the header announces {} records, the data ends {} bytes into record {}",
                    self.count, got, self.read
                );
                return Err(self.fail(self.read, reason, TraceErrorKind::Corrupt));
            }
            match decode(&bytes) {
                Ok(record) => return Ok(Some(record)),
                Err(reason) => match self.policy {
                    BadLinePolicy::Skip => {
                        self.counts.skip(self.read, "bad_record", || format!("bad binary record: {reason}"))
                    }
                    BadLinePolicy::Error => {
                        return Err(self.fail(
                            self.read,
                            format!("bad binary record: {reason}"),
                            TraceErrorKind::BadLine,
                        ))
                    }
                },
            }
        }
    }

    fn line(&self) -> u64 {
        self.read
    }

    fn skipped_lines(&self) -> u64 {
        self.counts.skipped_lines
    }

    fn line_counts(&self) -> super::info::LineCounts {
        self.counts.clone()
    }
}

fn le8(bytes: &[u8]) -> [u8; 8] {
    let mut array = [0u8; 8];
    array.copy_from_slice(bytes);
    array
}

fn le4(bytes: &[u8]) -> [u8; 4] {
    let mut array = [0u8; 4];
    array.copy_from_slice(bytes);
    array
}

#[inline]
fn decode(bytes: &[u8; RECORD_BYTES]) -> Result<TraceRecord, String> {
    let time_ns = u64::from_le_bytes(le8(&bytes[0..8]));
    let offset_bytes = u64::from_le_bytes(le8(&bytes[8..16]));
    let size_bytes = u64::from(u32::from_le_bytes(le4(&bytes[16..20])));
    let device = u32::from_le_bytes(le4(&bytes[20..24]));
    let op = match bytes[24] {
        0 => IoOp::Read,
        1 => IoOp::Write,
        2 => IoOp::Trim,
        other => return Err(format!("op byte {other} is not 0 (read), 1 (write) or 2 (trim)")),
    };
    if size_bytes == 0 {
        return Err("size is zero".to_string());
    }
    if offset_bytes.checked_add(size_bytes).is_none() {
        return Err(format!("offset {offset_bytes} + size {size_bytes} overflows 64 bits"));
    }
    Ok(TraceRecord { time_ns, op, offset_bytes, size_bytes, device })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::trace::test_support::{drain, shared_trace};
    use crate::workload::trace::{from_reader, open, TraceFormat, TraceOptions};

    fn temp_path(name: &str) -> PathBuf {
        std::env::temp_dir().join(format!("ssdlab-binary-{}-{name}", std::process::id()))
    }

    #[test]
    fn round_trip_of_a_shared_trace() {
        let Some(path) = shared_trace("msr/hm_0.sample1000.csv") else {
            return;
        };
        let out = temp_path("hm0.bin");
        let mut text = open(&path, &TraceOptions::default()).unwrap();
        assert_eq!(convert(text.as_mut(), &out).unwrap(), 1000);
        let expected = drain(open(&path, &TraceOptions::default()).unwrap().as_mut()).unwrap();
        assert_eq!(detect_of(&out), TraceFormat::Binary);
        let mut binary = open(&out, &TraceOptions::default()).unwrap();
        assert_eq!(drain(binary.as_mut()).unwrap(), expected);
        assert_eq!(std::fs::metadata(&out).unwrap().len(), (HEADER_BYTES + 1000 * RECORD_BYTES) as u64);
        std::fs::remove_file(&out).unwrap();
    }

    fn detect_of(path: &Path) -> TraceFormat {
        crate::workload::trace::detect(path).unwrap()
    }

    fn binary_bytes(records: &[TraceRecord]) -> Vec<u8> {
        let out = temp_path(&format!("bytes-{}.bin", records.len()));
        let mut writer = BinaryWriter::create(&out).unwrap();
        for record in records {
            writer.write(record).unwrap();
        }
        writer.finish().unwrap();
        let bytes = std::fs::read(&out).unwrap();
        std::fs::remove_file(&out).unwrap();
        bytes
    }

    fn read_bytes(bytes: Vec<u8>) -> Result<Vec<TraceRecord>> {
        let mut reader =
            from_reader(Box::new(std::io::Cursor::new(bytes)), Path::new("t.bin"), &TraceOptions::default())?;
        drain(reader.as_mut())
    }

    #[test]
    fn gzip_compressed_binary_is_detected() {
        use std::io::Write as _;
        let record = TraceRecord { time_ns: 1, op: IoOp::Read, offset_bytes: 0, size_bytes: 4096, device: 2 };
        let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        encoder.write_all(&binary_bytes(&[record])).unwrap();
        assert_eq!(read_bytes(encoder.finish().unwrap()).unwrap(), vec![record]);
    }

    #[test]
    fn damaged_files_are_reported() {
        let record = TraceRecord { time_ns: 5, op: IoOp::Trim, offset_bytes: 4096, size_bytes: 512, device: 9 };
        let good = binary_bytes(&[record, record]);
        assert_eq!(read_bytes(good.clone()).unwrap(), vec![record, record]);

        let truncated = good[..good.len() - 3].to_vec();
        let message = read_bytes(truncated).unwrap_err().to_string();
        assert!(message.contains("t.bin:2: truncated binary trace"), "{message}");

        let mut trailing = good.clone();
        trailing.push(0);
        assert!(read_bytes(trailing).unwrap_err().to_string().contains("trailing bytes"));

        let mut bad_op = good.clone();
        bad_op[HEADER_BYTES + 24] = 7;
        assert!(read_bytes(bad_op).unwrap_err().to_string().contains("op byte 7"));

        let mut unfinished = good.clone();
        unfinished[16..24].copy_from_slice(&UNFINISHED.to_le_bytes());
        assert!(read_bytes(unfinished).unwrap_err().to_string().contains("unfinished"));

        let mut version = good;
        version[8] = 9;
        let options = TraceOptions::with_format(TraceFormat::Binary);
        let error = from_reader(Box::new(std::io::Cursor::new(version)), Path::new("t.bin"), &options).err().unwrap();
        assert!(error.to_string().contains("version 9 is not supported"), "{error}");

        let error = from_reader(Box::new(std::io::Cursor::new(b"hello, world\n".to_vec())), Path::new("t"), &options)
            .err()
            .unwrap();
        assert!(error.to_string().contains("not an ssdlab binary trace"), "{error}");
    }
}
