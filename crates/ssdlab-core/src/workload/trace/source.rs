//! Layer: workload (trace readers). Turns a file or byte stream into a buffered stream of
//! decompressed trace bytes, and keeps a copy of its first bytes for format detection.
//!
//! Compression is recognised by magic bytes, never by file name: gzip (`1f 8b`, possibly many
//! concatenated members, as `cat a.gz b.gz` or bgzip produce) through flate2's
//! `MultiGzDecoder`, and zstd (`28 b5 2f fd`, possibly many frames, skippable frames ignored)
//! through ruzstd. A decompression error in the first bytes is not reported at open time: it is
//! replayed when the reader reaches that point, so the message names the line where the
//! compressed data broke off.

use std::io::{self, BufRead, BufReader, Cursor, Read};
use std::path::Path;

use ruzstd::frame::ReadFrameHeaderError;
use ruzstd::frame_decoder::{BlockDecodingStrategy, FrameDecoder, FrameDecoderError};

use crate::error::{Error, Result};

/// How many decompressed bytes are kept for format detection.
pub(crate) const HEAD_BYTES: usize = 64 * 1024;

/// Read buffer size for the decompressed stream.
const BUFFER_BYTES: usize = 256 * 1024;

const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];
const ZSTD_MAGIC: [u8; 4] = [0x28, 0xb5, 0x2f, 0xfd];

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
        return Err(Error::trace(path, 0, "the file is empty (0 bytes)"));
    }
    let raw = Cursor::new(magic[..magic_len].to_vec()).chain(raw);
    let (compression, mut decoded): (Compression, Box<dyn Read + Send>) = if magic[..magic_len].starts_with(&GZIP_MAGIC)
    {
        (Compression::Gzip, Box::new(flate2::read::MultiGzDecoder::new(raw)))
    } else if magic[..magic_len] == ZSTD_MAGIC {
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

    #[test]
    fn zstd_frames_are_decoded_when_the_cli_is_available() {
        // ruzstd only decodes; produce the test input with the zstd command line tool if present.
        let Ok(mut child) = std::process::Command::new("zstd")
            .args(["-q", "-c"])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
        else {
            eprintln!("skipping zstd test: no zstd command line tool");
            return;
        };
        let text: Vec<u8> = (0..50_000).flat_map(|i| format!("{i} 0 8 8 1\n").into_bytes()).collect();
        child.stdin.take().unwrap().write_all(&text).unwrap();
        let frame = child.wait_with_output().unwrap().stdout;
        let mut two_frames = frame.clone();
        two_frames.extend(&frame);
        let source = open_source(Box::new(Cursor::new(two_frames)), Path::new("t.zst")).unwrap();
        assert_eq!(source.compression, Compression::Zstd);
        let out = read_all(source).unwrap();
        assert_eq!(out.len(), 2 * text.len());
        assert_eq!(&out[..text.len()], &text[..]);
        assert_eq!(&out[text.len()..], &text[..]);
        let cut = frame[..frame.len() / 2].to_vec();
        let source = open_source(Box::new(Cursor::new(cut)), Path::new("t.zst")).unwrap();
        assert!(read_all(source).is_err(), "a truncated zstd frame must be an error");
    }

    #[test]
    fn empty_input_is_an_error() {
        let error = open_source(Box::new(Cursor::new(Vec::new())), Path::new("e")).err().unwrap();
        assert!(error.to_string().contains("empty"), "{error}");
    }
}
