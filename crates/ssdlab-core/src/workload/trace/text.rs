//! Layer: workload (trace readers). The line loop shared by every text format: read a line into
//! a reused buffer (lines end at the line end detected from the head: LF, CRLF or CR alone),
//! drop blanks, comments and a header, hand the line to the format's parser, and apply the
//! bad-line policy. Every line that is not a request is counted: ignored (a header, a kind of
//! line the format defines but does not replay) or skipped (unreadable, by problem, the first
//! few quoted; `info::LineCounts`).
//!
//! One `TextReader<P>` is monomorphised per format, so the per-line path has no dynamic
//! dispatch and no allocation; a message is built only when a line is reported.

use std::io::BufRead;
use std::path::{Path, PathBuf};

use super::fields::{LineError, LineResult, Problem};
use super::info::{LineCounts, LineEnds};
use super::options::{BadLinePolicy, TraceFormat};
use super::reader::TraceReader;
use super::source::{Compression, Source};
use crate::error::{Error, Result, TraceErrorKind};
use crate::workload::TraceRecord;

/// How much of a bad line an error message quotes.
const QUOTE_CHARS: usize = 120;

/// A format's line parser.
pub(crate) trait LineParser: Send {
    /// The format, for messages.
    fn format(&self) -> TraceFormat;

    /// Parse one line that is not blank and not a comment, trimmed of blanks and line ends.
    /// `Ok(None)` means the line is not a request (e.g. a blkparse event of another kind).
    fn parse<'a>(&mut self, line: &'a [u8]) -> LineResult<'a>;
}

/// Reads a text trace line by line through a [`LineParser`].
pub(crate) struct TextReader<P> {
    path: PathBuf,
    source: Box<dyn BufRead + Send>,
    compression: Compression,
    buffer: Vec<u8>,
    /// The byte lines end at (`LineEnds::delimiter`).
    delimiter: u8,
    /// Lines read so far (the 1-based number of the current line).
    line: u64,
    counts: LineCounts,
    records: u64,
    /// Lines at the top of the file to drop unread (a generic format's `header_lines`).
    header_lines: u64,
    /// Whether the first content line may be a header (first byte a letter); every built-in
    /// format starts its data lines with a digit.
    detect_header: bool,
    seen_content: bool,
    policy: BadLinePolicy,
    finished: bool,
    parser: P,
}

impl<P: LineParser> TextReader<P> {
    pub(crate) fn new(source: Source, path: &Path, policy: BadLinePolicy, parser: P) -> Self {
        TextReader {
            path: path.to_path_buf(),
            delimiter: LineEnds::detect(&source.head).delimiter(),
            source: source.reader,
            compression: source.compression,
            buffer: Vec::with_capacity(256),
            line: 0,
            counts: LineCounts::default(),
            records: 0,
            header_lines: 0,
            detect_header: true,
            seen_content: false,
            policy,
            finished: false,
            parser,
        }
    }

    /// Drop exactly `lines` lines at the top instead of recognising a header by its first byte.
    pub(crate) fn with_header_lines(mut self, lines: u64) -> Self {
        self.header_lines = lines;
        self.detect_header = false;
        self
    }

    fn no_records_error(&self) -> Error {
        let skipped = self.counts.skipped_lines;
        let reason = if skipped > 0 {
            let first = self
                .counts
                .first_skipped
                .first()
                .map_or(String::new(), |s| format!(" (first: line {}: {})", s.line, s.reason));
            format!(
                "no valid requests: all {skipped} data lines were malformed and skipped (on_bad_line = \"skip\"){first}; \
                 is this really a {} trace?",
                self.parser.format().id()
            )
        } else if self.line == 0 {
            "the trace is empty (no lines after decompression)".to_string()
        } else {
            format!(
                "no requests in {} lines ({} ignored as headers or lines the {} format does not replay, the rest \
                 blank or comments)",
                self.line,
                self.counts.ignored_lines,
                self.parser.format().id()
            )
        };
        // All lines skipped: they were not of this format; none at all: nothing to replay.
        let kind = if skipped > 0 { TraceErrorKind::Format } else { TraceErrorKind::Empty };
        Error::trace(&self.path, self.line, reason).of_kind(kind)
    }
}

impl<P: LineParser> TraceReader for TextReader<P> {
    fn next_record(&mut self) -> Result<Option<TraceRecord>> {
        if self.finished {
            return Ok(None);
        }
        loop {
            self.buffer.clear();
            match self.source.read_until(self.delimiter, &mut self.buffer) {
                Ok(0) => {
                    self.finished = true;
                    if self.records == 0 {
                        return Err(self.no_records_error());
                    }
                    return Ok(None);
                }
                Ok(_) => {}
                Err(e) => {
                    self.finished = true;
                    let reason = self.compression.describe_read_error(&e);
                    return Err(Error::trace(&self.path, self.line + 1, reason).of_kind(TraceErrorKind::Corrupt));
                }
            }
            self.line += 1;
            if self.line <= self.header_lines {
                self.counts.ignored_lines += 1;
                continue;
            }
            let mut line = content(&self.buffer, self.delimiter);
            if self.line == 1 {
                line = line.strip_prefix(b"\xEF\xBB\xBF".as_slice()).unwrap_or(line);
                // UTF-8 BOM
            }
            if line.is_empty() || line[0] == b'#' {
                continue;
            }
            if !self.seen_content {
                self.seen_content = true;
                if self.detect_header && line[0].is_ascii_alphabetic() {
                    self.counts.ignored_lines += 1;
                    continue;
                }
            }
            match self.parser.parse(line) {
                Ok(Some(record)) => {
                    self.records += 1;
                    return Ok(Some(record));
                }
                Ok(None) => self.counts.ignored_lines += 1,
                Err(error) => match self.policy {
                    BadLinePolicy::Skip if error.problem.is_skippable() => {
                        let format = self.parser.format();
                        let problem = if is_binary(line) { "binary" } else { error.problem.id() };
                        self.counts.skip(self.line, problem, || describe_bad_line(format, line, &error));
                    }
                    BadLinePolicy::Skip | BadLinePolicy::Error => {
                        self.finished = true;
                        let reason = describe_bad_line(self.parser.format(), line, &error);
                        // A line skipping cannot get past says the format does not fit.
                        let kind =
                            if error.problem.is_skippable() { TraceErrorKind::BadLine } else { TraceErrorKind::Format };
                        return Err(Error::trace(&self.path, self.line, reason).of_kind(kind));
                    }
                },
            }
        }
    }

    fn line(&self) -> u64 {
        self.line
    }

    fn skipped_lines(&self) -> u64 {
        self.counts.skipped_lines
    }

    fn line_counts(&self) -> LineCounts {
        self.counts.clone()
    }
}

/// The line without its line end and surrounding blanks.
#[inline]
fn content(buffer: &[u8], delimiter: u8) -> &[u8] {
    let line = buffer.strip_suffix(&[delimiter]).unwrap_or(buffer);
    super::fields::trim_blanks(line)
}

/// Whether a line holds bytes no text trace has: NUL, or invalid UTF-8.
fn is_binary(line: &[u8]) -> bool {
    line.contains(&0) || std::str::from_utf8(line).is_err()
}

/// The message for a bad line: what is wrong with which field, then the line quoted.
pub(crate) fn describe_bad_line(format: TraceFormat, line: &[u8], error: &LineError<'_>) -> String {
    if let Some(column) = line.iter().position(|&b| b == 0) {
        return format!(
            "binary data, not text: NUL byte at column {}; the file is corrupt, or a compressed or binary \
             format other than gzip, zstd or the ssdlab binary trace; line: {}",
            column + 1,
            quote(line)
        );
    }
    if let Err(e) = std::str::from_utf8(line) {
        return format!(
            "binary data, not text: invalid UTF-8 at column {}; the file is corrupt or not a text trace; line: {}",
            e.valid_up_to() + 1,
            quote(line)
        );
    }
    let value = if error.problem == Problem::Missing { String::new() } else { format!(" {}", quote(error.value)) };
    format!("{} field{value} {} ({} format); line: {}", error.field, error.problem.describe(), format.id(), quote(line))
}

/// A line or field quoted for a message: lossy UTF-8, control characters escaped, truncated to
/// about [`QUOTE_CHARS`] characters.
pub(crate) fn quote(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let mut shown: String = text.chars().take(QUOTE_CHARS).collect();
    let truncated = shown.len() < text.len();
    if truncated {
        shown.push_str("...");
    }
    format!("{shown:?}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_are_truncated_and_escaped() {
        let long = vec![b'x'; 500];
        let quoted = quote(&long);
        assert!(quoted.len() < 130, "{quoted}");
        assert!(quoted.ends_with("...\""));
        assert_eq!(quote(b"a\tb"), "\"a\\tb\"");
    }

    #[test]
    fn binary_lines_are_called_binary() {
        let error = LineError::new("Size", b"x", Problem::NotUnsigned);
        let message = describe_bad_line(TraceFormat::Msr, b"12\0\x01,3", &error);
        assert!(message.contains("NUL byte at column 3"), "{message}");
        let message = describe_bad_line(TraceFormat::Msr, b"12\xff,3", &error);
        assert!(message.contains("invalid UTF-8 at column 3"), "{message}");
    }
}
