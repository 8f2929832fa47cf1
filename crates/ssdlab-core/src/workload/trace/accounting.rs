//! Layer: workload (trace readers), tests only. Nothing is dropped unseen: every line a reader
//! passes over is counted (ignored, or skipped by problem with the first few quoted), line ends
//! are detected for every format, and what cannot be read at all is named for what it is (empty,
//! no data line in the head, cut short, not a regular file). The property test feeds mutated
//! slices of the real traces in ../shared/traces to every reader and checks the count adds up.

use std::io::{Cursor, Write};
use std::path::Path;

use proptest::prelude::*;

use super::info::LineEnds;
use super::test_support::{drain, shared_trace};
use super::{from_reader, open, open_unfiltered, BadLinePolicy, TraceFormat, TraceOptions, TraceReader};
use crate::error::{Error, TraceErrorKind};

fn skip(format: TraceFormat) -> TraceOptions {
    TraceOptions { on_bad_line: BadLinePolicy::Skip, ..TraceOptions::with_format(format) }
}

fn reader(bytes: &[u8], options: &TraceOptions) -> crate::error::Result<Box<dyn TraceReader + Send>> {
    open_unfiltered(Box::new(Cursor::new(bytes.to_vec())), Path::new("t.trace"), options)
}

fn message(result: crate::error::Result<impl Sized>) -> String {
    match result {
        Ok(_) => panic!("expected an error"),
        Err(e) => e.to_string(),
    }
}

const BLKPARSE: &str = "  8,0    3        1     0.000000000   697  D   W 223490 + 8 [kjournald]\n\
  8,0    3        2     0.000001000   697  D   W 300000 + 8 [kjournald]\n\
  8,0    3        3     0.000002000   697  C   W 223490 + 8 [0]\n";

#[test]
fn a_blkparse_event_with_a_damaged_device_and_junk_lines_are_counted_not_passed_over() {
    let damaged = BLKPARSE.replace("8,0    3        2", "8;0    3        2") + "garbage here\n";
    assert_ne!(damaged, BLKPARSE.to_string() + "garbage here\n");
    let options = TraceOptions { blkparse_event: super::BlkparseEvent::Issue, ..skip(TraceFormat::Blkparse) };
    let mut r = reader(damaged.as_bytes(), &options).unwrap();
    assert_eq!(drain(r.as_mut()).unwrap().len(), 1, "only the undamaged D event is replayed");
    let counts = r.line_counts();
    assert_eq!((counts.skipped_lines, counts.ignored_lines), (2, 1), "{counts:?}");
    assert_eq!(counts.first_skipped.iter().map(|s| s.line).collect::<Vec<_>>(), [2, 4]);
    assert!(counts.first_skipped[0].reason.contains("\"8;0\""), "{:?}", counts.first_skipped[0]);
    // Under the default policy the damaged event stops the read at its line.
    let error = TraceOptions { on_bad_line: BadLinePolicy::Error, ..options };
    let text = message(drain(reader(damaged.as_bytes(), &error).unwrap().as_mut()));
    assert!(text.starts_with("t.trace:2:") && text.contains("is not major,minor"), "{text}");
    // The summary blkparse prints at the end is known by its labels, and ignored.
    let with_summary = format!("{BLKPARSE}CPU0 (8,0):\n Reads Queued:           0,        0KiB\nTotal (8,0):\n");
    let mut r = reader(with_summary.as_bytes(), &TraceOptions::with_format(TraceFormat::Blkparse)).unwrap();
    drain(r.as_mut()).unwrap();
    assert_eq!(r.line_counts().skipped_lines, 0);
}

#[test]
fn cr_only_line_ends_are_read_right_in_every_format() {
    let lf = [
        (TraceFormat::Blkparse, BLKPARSE.replace(" D ", " Q ")),
        (TraceFormat::Msr, "128166385295514663,hm,0,Write,9056014336,2048,2833\n".repeat(3)),
        (TraceFormat::Spc, "0,303567,3584,w,0.000000\n0,303575,3584,r,0.000100\n".into()),
    ];
    for (format, text) in lf {
        let expected = drain(reader(text.as_bytes(), &TraceOptions::with_format(format)).unwrap().as_mut()).unwrap();
        assert!(expected.len() > 1, "{format}");
        for ends in ["\r", "\r\n"] {
            let converted = text.replace('\n', ends);
            assert_eq!(LineEnds::detect(converted.as_bytes()).delimiter(), ends.as_bytes()[ends.len() - 1]);
            for options in [TraceOptions::with_format(format), TraceOptions::default()] {
                let records = drain(reader(converted.as_bytes(), &options).unwrap().as_mut()).unwrap();
                assert_eq!(records, expected, "{format}, line ends {ends:?}");
            }
        }
    }
    assert_eq!(LineEnds::detect(b"a\r\nb\r\n"), LineEnds::Crlf);
    assert_eq!(LineEnds::detect(b"a\rb\r"), LineEnds::Cr);
    assert_eq!(LineEnds::detect(b"a\nb\n"), LineEnds::Lf);
}

#[test]
fn an_empty_trace_and_one_without_data_in_its_head_are_told_apart() {
    let text = message(reader(b"# nothing\n\n", &TraceOptions::default()));
    assert!(text.contains("the trace is empty"), "{text}");
    let mut long = "# a long preamble\n".repeat(4000).into_bytes();
    long.extend_from_slice(b"128166385295514663,hm,0,Write,9056014336,2048,2833\n");
    let text = message(reader(&long, &TraceOptions::default()));
    assert!(text.contains("no data line in the first 64 KiB") && !text.contains("empty"), "{text}");
    let text = message(reader(&[b'x'; 70 * 1024], &TraceOptions::default()));
    assert!(text.contains("no line end in the first 64 KiB"), "{text}");
}

#[test]
fn compressed_traces_cut_short_are_named_so_not_empty() {
    let text = b"128166385295514663,hm,0,Write,9056014336,2048,2833\n".repeat(200);
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(&text).unwrap();
    let gz = gz.finish().unwrap();
    let zst = zstd::encode_all(text.as_slice(), 3).unwrap();
    for (name, bytes) in [("gzip", &gz), ("zstd", &zst)] {
        let cut = &bytes[..12];
        let result = from_reader(Box::new(Cursor::new(cut.to_vec())), Path::new("t.gz"), &TraceOptions::default());
        let Err(error @ Error::Trace { kind: TraceErrorKind::Corrupt, .. }) = result else {
            panic!("{name}: {:?}", result.err())
        };
        let text = error.to_string();
        assert!(text.contains(&format!("{name} data is cut short")) && !text.contains("empty"), "{text}");
    }
}

#[test]
fn a_pipe_a_device_or_a_directory_is_not_called_missing() {
    let device = message(open(Path::new("/dev/null"), &TraceOptions::default()));
    assert!(device.contains("not a regular file (a pipe, a socket or a device)"), "{device}");
    let dir = message(open(&std::env::temp_dir(), &TraceOptions::default()));
    assert!(dir.contains("is a directory, not a trace file"), "{dir}");
    let missing = message(open(Path::new("/no/such/trace.csv"), &TraceOptions::default()));
    assert!(missing.contains("No such file"), "{missing}");
}

/// Slices of the real traces, one per text reader family, decompressed: (format, file, lines).
const REAL: [(TraceFormat, &str); 5] = [
    (TraceFormat::Msr, "msr/hm_0.sample1000.csv"),
    (TraceFormat::Blkparse, "blkparse/snia_ycsb_rocksdb_ssdtrace_first10k_lines.blkparse.txt.gz"),
    (TraceFormat::Fiu, "fiu/fiu_mail_cheetah_day1_first10k.blkparse.gz"),
    (TraceFormat::Cloudphysics, "cloudphysics/cloudPhysicsIO.us.csv.gz"),
    (TraceFormat::Systor, "systor17/systor17-traces-sample.csv.gz"),
];

/// The first `lines` lines of a real trace, decompressed (None when the shared traces are
/// absent and the tests may skip them).
fn real_slice(file: &str, lines: usize) -> Option<Vec<u8>> {
    let path = shared_trace(file)?;
    let mut source = super::source::open_source(Box::new(std::fs::File::open(path).unwrap()), Path::new(file)).unwrap();
    let mut out = Vec::new();
    for _ in 0..lines {
        if std::io::BufRead::read_until(&mut source.reader, b'\n', &mut out).unwrap() == 0 {
            break;
        }
    }
    Some(out)
}

/// The lines a text reader sees: not blank and not comments, split where the reader splits.
fn content_lines(bytes: &[u8]) -> u64 {
    let delimiter = LineEnds::detect(&bytes[..bytes.len().min(super::source::HEAD_BYTES)]).delimiter();
    let mut count = 0;
    for (i, line) in bytes.split(|&b| b == delimiter).enumerate() {
        let line = if i == 0 { line.strip_prefix(b"\xEF\xBB\xBF".as_slice()).unwrap_or(line) } else { line };
        let line = super::fields::trim_blanks(line);
        if !line.is_empty() && line[0] != b'#' {
            count += 1;
        }
    }
    count
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// Every line of a mutated real trace is a request, ignored, or skipped and counted.
    #[test]
    fn every_line_of_a_mutated_real_trace_is_accounted_for(
        which in 0..REAL.len(),
        edits in prop::collection::vec((any::<u8>(), 0.0..1.0f64, super::robustness::interesting_byte()), 1..12),
    ) {
        let (format, file) = REAL[which];
        let Some(slice) = real_slice(file, 200) else { return Ok(()) };
        let bytes = super::robustness::mutate(&slice, &edits);
        let Ok(mut r) = reader(&bytes, &skip(format)) else { return Ok(()) };
        let mut records = 0u64;
        loop {
            match r.next_record() {
                Ok(Some(_)) => records += 1,
                Ok(None) => break,
                Err(_) => return Ok(()), // refused with a message: nothing dropped unseen
            }
        }
        let counts = r.line_counts();
        prop_assert_eq!(
            records + counts.ignored_lines + counts.skipped_lines,
            content_lines(&bytes),
            "{}: {:?}",
            file,
            counts
        );
        prop_assert_eq!(counts.skipped_by_problem.values().sum::<u64>(), counts.skipped_lines);
        prop_assert!(counts.first_skipped.len() as u64 == counts.skipped_lines.min(super::info::QUOTED_SKIPS as u64));
    }
}
