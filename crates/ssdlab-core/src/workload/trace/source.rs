//! Layer: workload (trace readers). Turns a file or byte stream into a buffered stream of
//! decompressed trace bytes, and keeps a copy of its first bytes for format detection.
//!
//! Compression is recognised by magic bytes, never by file name: gzip (`1f 8b`, possibly many
//! concatenated members, as `cat a.gz b.gz` or bgzip produce) through flate2's
//! `MultiGzDecoder`, and zstd (`28 b5 2f fd`, possibly many frames, skippable frames ignored)
//! through ruzstd. A zstd stream may also start with a skippable frame (`5? 2a 4d 18`), as pzstd
//! writes every file. A decompression error in the first bytes is not reported at open time: it is
//! replayed when the reader reaches that point, so the message names the line where the
//! compressed data broke off. For zstd that line can be up to one window early: ruzstd holds a
//! frame's last window (its window size, or the whole frame if smaller) until the frame ends,
//! and offers no way to drain it from a frame cut short; every complete frame is delivered.

use std::io::{self, BufRead, BufReader, Cursor, Read};
use std::path::Path;

use ruzstd::frame::ReadFrameHeaderError;
use ruzstd::frame_decoder::{BlockDecodingStrategy, FrameDecoder, FrameDecoderError};

use crate::error::{Error, Result, TraceErrorKind};

/// Why `path` cannot be read as a trace file, if it cannot: missing, a directory, or not a
/// regular file (a pipe, a socket, a device). A pipe is refused rather than read: a trace is
/// read more than once (detection, a device pre-scan, a repeated replay), and opening a FIFO
/// nobody writes to waits forever.
pub fn trace_file_problem(path: &Path) -> Option<String> {
    match std::fs::metadata(path) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => Some("no such file".into()),
        Err(e) => Some(e.to_string()),
        Ok(meta) if meta.is_dir() => Some("is a directory, not a trace file".into()),
        Ok(meta) if !meta.is_file() => Some(
            "not a regular file (a pipe, a socket or a device): a trace is read more than once (format detection, \
             a repeated replay), so save it to a file first"
                .into(),
        ),
        Ok(_) => None,
    }
}

/// Open a trace file; a directory, pipe or device is refused before `open` (which would wait
/// on a FIFO).
pub(crate) fn open_file(path: &Path) -> Result<std::fs::File> {
    if let (Ok(_), Some(reason)) = (std::fs::metadata(path), trace_file_problem(path)) {
        return Err(Error::trace(path, 0, reason));
    }
    std::fs::File::open(path).map_err(|e| Error::io(path, e))
}

/// How many decompressed bytes are kept for format detection.
pub(crate) const HEAD_BYTES: usize = 64 * 1024;

/// Read buffer size for the decompressed stream.
const BUFFER_BYTES: usize = 256 * 1024;

const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];
const ZSTD_MAGIC: [u8; 4] = [0x28, 0xb5, 0x2f, 0xfd];

/// Whether the first four bytes open a zstd stream: a frame, or a skippable frame (magic
/// `0x184D2A50..=0x184D2A5F`, little-endian), which pzstd puts before every frame.
fn is_zstd(magic: &[u8]) -> bool {
    magic == ZSTD_MAGIC || matches!(magic, [low, 0x2a, 0x4d, 0x18] if low & 0xf0 == 0x50)
}

/// The compression a trace file was stored with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Compression {
    None,
    Gzip,
    Zstd,
}

impl Compression {
    /// How a read error from this stream is described.
    pub(crate) fn describe_read_error(self, error: &io::Error) -> String {
        match self {
            Compression::None => format!("read failed: {error}"),
            Compression::Gzip => format!("gzip data is truncated or corrupt here: {error}"),
            Compression::Zstd => format!("zstd data is truncated or corrupt here: {error}"),
        }
    }
}

/// A decompressed byte stream, positioned at its start, with a copy of its first bytes.
pub(crate) struct Source {
    pub reader: Box<dyn BufRead + Send>,
    /// The first up to [`HEAD_BYTES`] decompressed bytes (also still readable from `reader`).
    pub head: Vec<u8>,
    pub compression: Compression,
}

/// Wrap a raw byte stream: detect compression, decompress, and peek at the head.
pub(crate) fn open_source(raw: Box<dyn Read + Send>, path: &Path) -> Result<Source> {
    let mut raw = BufReader::with_capacity(BUFFER_BYTES, raw);
    let mut magic = [0u8; 4];
    let magic_len = read_up_to(&mut raw, &mut magic).map_err(|e| Error::io(path, e))?;
    if magic_len == 0 {
        return Err(Error::trace(path, 0, "the file is empty (0 bytes)").of_kind(TraceErrorKind::Empty));
    }
    let raw = Cursor::new(magic[..magic_len].to_vec()).chain(raw);
    let (compression, mut decoded): (Compression, Box<dyn Read + Send>) = if magic[..magic_len].starts_with(&GZIP_MAGIC)
    {
        (Compression::Gzip, Box::new(flate2::read::MultiGzDecoder::new(raw)))
    } else if is_zstd(&magic[..magic_len]) {
        (Compression::Zstd, Box::new(ZstdFrames::new(BufReader::with_capacity(BUFFER_BYTES, raw))))
    } else {
        (Compression::None, Box::new(raw))
    };

    let mut head = vec![0u8; HEAD_BYTES];
    let mut filled = 0;
    let mut pending_error = None;
    while filled < head.len() {
        match decoded.read(&mut head[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => {
                pending_error = Some(e);
                break;
            }
        }
    }
    head.truncate(filled);
    if let (0, Some(error)) = (filled, &pending_error) {
        // Nothing came out: the stream is cut short (or damaged) before its first data byte, which
        // is not an empty trace.
        let reason = match compression {
            Compression::None => compression.describe_read_error(error),
            Compression::Gzip | Compression::Zstd => format!(
                "{} data is cut short or corrupt before its first decompressed byte (an interrupted download or \
                 copy?): {error}",
                if compression == Compression::Gzip { "gzip" } else { "zstd" }
            ),
        };
        return Err(Error::trace(path, 1, reason).of_kind(TraceErrorKind::Corrupt));
    }
    let rest: Box<dyn Read + Send> = match pending_error {
        None => decoded,
        Some(error) => Box::new(FailOnce(Some(error))),
    };
    let reader = BufReader::with_capacity(BUFFER_BYTES, Cursor::new(head.clone()).chain(rest));
    Ok(Source { reader: Box::new(reader), head, compression })
}

/// Read until `buf` is full or the stream ends; return how many bytes were read.
pub(crate) fn read_up_to(reader: &mut impl Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        match reader.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
}

/// A reader that reports a stored error once, then end of stream.
struct FailOnce(Option<io::Error>);

impl Read for FailOnce {
    fn read(&mut self, _buf: &mut [u8]) -> io::Result<usize> {
        match self.0.take() {
            Some(error) => Err(error),
            None => Ok(0),
        }
    }
}

/// A zstd stream of one or more frames (ruzstd's `StreamingDecoder` stops after the first).
struct ZstdFrames<R: BufRead> {
    source: R,
    decoder: FrameDecoder,
    /// A frame has been started and not yet drained.
    in_frame: bool,
}

impl<R: BufRead> ZstdFrames<R> {
    fn new(source: R) -> Self {
        ZstdFrames { source, decoder: FrameDecoder::new(), in_frame: false }
    }

    /// Start the next frame, skipping skippable frames. `false` at the end of the stream.
    fn start_frame(&mut self) -> io::Result<bool> {
        loop {
            if self.source.fill_buf()?.is_empty() {
                return Ok(false);
            }
            match self.decoder.init(&mut self.source) {
                Ok(()) => return Ok(true),
                Err(FrameDecoderError::ReadFrameHeaderError(ReadFrameHeaderError::SkipFrame { length, .. })) => {
                    let skipped = io::copy(&mut (&mut self.source).take(u64::from(length)), &mut io::sink())?;
                    if skipped < u64::from(length) {
                        return Err(io::Error::new(io::ErrorKind::UnexpectedEof, "truncated skippable zstd frame"));
                    }
                }
                Err(e) => return Err(io::Error::new(io::ErrorKind::InvalidData, e.to_string())),
            }
        }
    }
}

impl<R: BufRead + Send> Read for ZstdFrames<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        loop {
            if !self.in_frame {
                if !self.start_frame()? {
                    return Ok(0);
                }
                self.in_frame = true;
            }
            while self.decoder.can_collect() < buf.len() && !self.decoder.is_finished() {
                let wanted = buf.len() - self.decoder.can_collect();
                self.decoder
                    .decode_blocks(&mut self.source, BlockDecodingStrategy::UptoBytes(wanted))
                    .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e.to_string()))?;
            }
            let n = self.decoder.read(buf)?;
            if n > 0 {
                return Ok(n);
            }
            if self.decoder.is_finished() {
                self.in_frame = false; // drained: look for another frame
            } else {
                return Err(io::Error::new(io::ErrorKind::UnexpectedEof, "zstd frame ended early"));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;

    fn read_all(source: Source) -> io::Result<Vec<u8>> {
        let mut out = Vec::new();
        let mut reader = source.reader;
        reader.read_to_end(&mut out)?;
        Ok(out)
    }

    fn gzip(data: &[u8]) -> Vec<u8> {
        let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        encoder.write_all(data).unwrap();
        encoder.finish().unwrap()
    }

    #[test]
    fn plain_bytes_pass_through_and_head_is_kept() {
        let source = open_source(Box::new(Cursor::new(b"1 2 3\n".to_vec())), Path::new("t")).unwrap();
        assert_eq!(source.compression, Compression::None);
        assert_eq!(source.head, b"1 2 3\n");
        assert_eq!(read_all(source).unwrap(), b"1 2 3\n");
    }

    #[test]
    fn concatenated_gzip_members_are_all_read() {
        let mut data = gzip(b"a\n");
        data.extend(gzip(b"b\n"));
        let source = open_source(Box::new(Cursor::new(data)), Path::new("t.gz")).unwrap();
        assert_eq!(source.compression, Compression::Gzip);
        assert_eq!(read_all(source).unwrap(), b"a\nb\n");
    }

    #[test]
    fn truncated_gzip_is_an_error_after_the_good_bytes() {
        let text: Vec<u8> = (0..20_000).flat_map(|i| format!("{i} 0 1 1 1\n").into_bytes()).collect();
        let data = gzip(&text);
        let cut = data[..data.len() / 2].to_vec();
        let source = open_source(Box::new(Cursor::new(cut)), Path::new("t.gz")).unwrap();
        let mut reader = source.reader;
        let mut out = Vec::new();
        assert!(reader.read_to_end(&mut out).is_err());
        assert!(text.starts_with(&out));
    }

    /// A skippable zstd frame: magic `0x184D2A50 + nibble`, payload length, payload.
    fn skippable(nibble: u8, payload: &[u8]) -> Vec<u8> {
        let mut frame = vec![0x50 | nibble, 0x2a, 0x4d, 0x18];
        frame.extend((payload.len() as u32).to_le_bytes());
        frame.extend(payload);
        frame
    }

    #[test]
    fn zstd_frames_and_skippable_frames_are_all_read() {
        let text: Vec<u8> = (0..50_000).flat_map(|i| format!("{i} 0 8 8 1\n").into_bytes()).collect();
        let (a, rest) = text.split_at(text.len() / 3 + 7); // frames need not end on a line end
        let (b, c) = rest.split_at(rest.len() / 2);
        // One frame with its size in the header, one streamed (no size) with a checksum, one at a
        // high level.
        let frame_a = zstd::bulk::compress(a, 3).unwrap();
        let mut encoder = zstd::stream::Encoder::new(Vec::new(), 1).unwrap();
        encoder.include_checksum(true).unwrap();
        encoder.write_all(b).unwrap();
        let frame_b = encoder.finish().unwrap();
        let frame_c = zstd::bulk::compress(c, 19).unwrap();
        // pzstd puts a skippable frame before each frame; the seekable format appends its seek
        // table as one; an empty one in between.
        let mut stream = skippable(0, &(frame_a.len() as u32).to_le_bytes());
        stream.extend(&frame_a);
        stream.extend(&frame_b);
        stream.extend(skippable(5, b""));
        stream.extend(&frame_c);
        stream.extend(skippable(0xe, b"seek table"));
        let source = open_source(Box::new(Cursor::new(stream.clone())), Path::new("t.zst")).unwrap();
        assert_eq!(source.compression, Compression::Zstd, "a leading skippable frame opens a zstd stream");
        assert_eq!(source.head, &text[..HEAD_BYTES]);
        assert_eq!(read_all(source).unwrap(), text);

        let mut plain_start = frame_a.clone();
        plain_start.extend(&frame_b);
        let source = open_source(Box::new(Cursor::new(plain_start)), Path::new("t.zst")).unwrap();
        assert_eq!(source.compression, Compression::Zstd);
        assert_eq!(read_all(source).unwrap(), [a, b].concat());
    }

    #[test]
    fn truncated_zstd_is_an_error_after_the_good_bytes() {
        let text: Vec<u8> = (0..50_000).flat_map(|i| format!("{i} 0 8 8 1\n").into_bytes()).collect();
        let (a, b) = text.split_at(text.len() / 2);
        let frame_a = zstd::bulk::compress(a, 3).unwrap();
        let frame_b = zstd::bulk::compress(b, 3).unwrap();
        let mut stream = frame_a.clone();
        stream.extend(&frame_b);
        // Cut inside the second frame: the first frame's bytes come out, then an error.
        let cut = stream[..frame_a.len() + frame_b.len() / 2].to_vec();
        let mut reader = open_source(Box::new(Cursor::new(cut)), Path::new("t.zst")).unwrap().reader;
        let mut out = Vec::new();
        assert!(reader.read_to_end(&mut out).is_err(), "a truncated zstd frame must be an error");
        assert!(out.len() >= a.len() && text.starts_with(&out), "{} good bytes", out.len());
        // Cut inside a trailing skippable frame.
        let mut stream = frame_a;
        stream.extend(skippable(0, &[7; 100]));
        let cut = stream[..stream.len() - 10].to_vec();
        let mut reader = open_source(Box::new(Cursor::new(cut)), Path::new("t.zst")).unwrap().reader;
        let error = reader.read_to_end(&mut Vec::new()).unwrap_err();
        assert!(error.to_string().contains("truncated skippable zstd frame"), "{error}");
    }

    /// ruzstd holds back a frame's last window (as large as the frame here) until the frame
    /// ends, so a frame cut short yields nothing of that window: the error names a line after
    /// every complete frame, and at the start of the broken one.
    #[test]
    fn zstd_truncation_names_a_line_after_the_complete_frames() {
        let lines = |from: u64, to: u64| -> Vec<u8> {
            (from..to).flat_map(|i| format!("{i} 0 8 8 1\n").into_bytes()).collect()
        };
        let mut stream = Vec::new();
        for part in 0..5 {
            stream.extend(zstd::bulk::compress(&lines(part * 10_000, (part + 1) * 10_000), 3).unwrap());
        }
        let fourth = zstd::bulk::compress(&lines(30_000, 40_000), 3).unwrap();
        let first_three: usize =
            (0..3).map(|part| zstd::bulk::compress(&lines(part * 10_000, (part + 1) * 10_000), 3).unwrap().len()).sum();
        let cut = stream[..first_three + fourth.len() / 2].to_vec();
        let options = crate::workload::trace::TraceOptions {
            reorder_window: 0, // no read-ahead: every record before the break comes out
            ..crate::workload::trace::TraceOptions::with_format(crate::workload::trace::TraceFormat::DisksimNs)
        };
        let mut reader =
            crate::workload::trace::from_reader(Box::new(Cursor::new(cut)), Path::new("t.zst"), &options).unwrap();
        let mut records = 0u64;
        let message = loop {
            match reader.next_record() {
                Ok(Some(_)) => records += 1,
                Ok(None) => panic!("the truncated stream read to its end"),
                Err(error) => break error.to_string(),
            }
        };
        assert!(message.starts_with("t.zst:30001: zstd data is truncated or corrupt here"), "{message}");
        assert_eq!(records, 30_000);
    }

    #[test]
    fn empty_input_is_an_error() {
        let error = open_source(Box::new(Cursor::new(Vec::new())), Path::new("e")).err().unwrap();
        assert!(error.to_string().contains("empty"), "{error}");
    }
}
