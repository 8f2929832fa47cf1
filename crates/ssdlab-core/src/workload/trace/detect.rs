//! Layer: workload (trace readers). Auto-detection of a trace's format from its first lines of
//! content (never from the file name).
//!
//! Order of decisions:
//! 1. the ssdlab binary magic;
//! 2. a known header line (`Timestamp,Response,IOType,...` and so on, compared
//!    case-insensitively field by field);
//! 3. otherwise every format's line shape (field count, delimiter, which fields are integers,
//!    decimals or operation words) is tested on up to [`SAMPLE_LINES`] data lines; the format
//!    matching the most lines wins, if it matches at least half of them (so one corrupt line
//!    early in a file still gets its precise error from the reader); ties go to the earlier
//!    format in [`SHAPES`].
//!
//! DiskSim ASCII (`time devno lba size flags`) and the FlashNet layout (`time_ms devno offset
//! size type`) have the same shape. They are told apart by units: FlashNet offsets and sizes
//! are bytes, so every sampled offset and size is a multiple of 512 and every type is 0 or 1;
//! DiskSim LBAs are sector numbers and are almost never all multiples of 512. The DiskSim time
//! unit is not in the file at all: times with a decimal point are taken as milliseconds
//! (`disksim_ms`, DiskSim's convention), integer times as nanoseconds (`disksim_ns`, MQSim's).
//! An integer-millisecond DiskSim trace is therefore misread by 10^6 and must be named with
//! `format = "disksim_ms"`. The generic format is never detected: it needs its mapping.

use std::path::Path;

use super::binary;
use super::fields::{parse_scaled, parse_u64, trim_blanks, Fields};
use super::info::LineEnds;
use super::options::TraceFormat;
use super::source::HEAD_BYTES;
use super::text::quote;
use crate::error::{Error, Result, TraceErrorKind};

/// How many data lines are examined.
pub(crate) const SAMPLE_LINES: usize = 20;

/// The formats tried by shape, in tie-break order. `DisksimNs` stands for the whole
/// five-number group (DiskSim in ms or ns, FlashNet), resolved afterwards.
const SHAPES: [TraceFormat; 9] = [
    TraceFormat::Blkparse,
    TraceFormat::Msr,
    TraceFormat::Systor,
    TraceFormat::Spc,
    TraceFormat::Alibaba,
    TraceFormat::Tencent,
    TraceFormat::Cloudphysics,
    TraceFormat::Fiu,
    TraceFormat::DisksimNs,
];

/// Known header lines, lower case, fields separated by commas.
const HEADERS: [(&str, TraceFormat); 6] = [
    ("timestamp,hostname,disknumber,type,offset,size,responsetime", TraceFormat::Msr),
    ("timestamp,response,iotype,lun,offset,size", TraceFormat::Systor),
    ("device_id,opcode,offset,length,timestamp", TraceFormat::Alibaba),
    ("timestamp_us,opcode,size_bytes,lbn_sectors", TraceFormat::Cloudphysics),
    ("timestamp,offset,size,iotype,volumeid", TraceFormat::Tencent),
    ("asu,lba,size,opcode,timestamp", TraceFormat::Spc),
];

/// Detect the format of a trace from the first bytes of its decompressed content.
pub(crate) fn detect(head: &[u8], path: &Path) -> Result<TraceFormat> {
    if head.starts_with(&binary::MAGIC) {
        return Ok(TraceFormat::Binary);
    }
    if head.is_empty() {
        return Err(
            Error::trace(path, 0, "the trace is empty (no data after decompression)").of_kind(TraceErrorKind::Empty)
        );
    }
    // Only complete lines: a full head may end in the middle of one.
    let delimiter = LineEnds::detect(head).delimiter();
    let complete = match head.len() == HEAD_BYTES {
        true => head.iter().rposition(|&b| b == delimiter).map_or(head, |end| &head[..end]),
        false => head,
    };
    let mut lines = complete
        .split(|&b| b == delimiter)
        .map(trim_blanks)
        .map(|line| line.strip_prefix(b"\xEF\xBB\xBF".as_slice()).unwrap_or(line))
        .filter(|line| !line.is_empty() && line[0] != b'#')
        .take(SAMPLE_LINES + 1)
        .peekable();
    let full = head.len() == HEAD_BYTES;
    if full && !head.contains(&delimiter) {
        let reason = format!(
            "no line end in the first {} KiB of decompressed data, so no data line either: not a line-oriented text \
             trace (it starts {})",
            HEAD_BYTES / 1024,
            quote(&head[..head.len().min(80)])
        );
        return Err(Error::trace(path, 1, reason).of_kind(TraceErrorKind::Format));
    }
    let Some(&first) = lines.peek() else {
        let reason = match full {
            false => "the trace is empty (only blank or comment lines)".to_string(),
            true => format!(
                "no data line in the first {} KiB of decompressed data: only blank lines and comments (the first: {})",
                HEAD_BYTES / 1024,
                quote(first_nonblank(complete, delimiter))
            ),
        };
        return Err(Error::trace(path, 0, reason).of_kind(TraceErrorKind::Empty));
    };
    if first.contains(&0) || std::str::from_utf8(first).is_err() {
        return Err(Error::trace(
            path,
            1,
            format!(
                "binary data, not a text trace: the start of the file is neither gzip, zstd nor an ssdlab binary \
                 trace, and its first line is not text: {}",
                quote(first)
            ),
        )
        .of_kind(TraceErrorKind::Format));
    }
    if first[0].is_ascii_alphabetic() {
        if let Some(format) = by_header(first) {
            return Ok(format);
        }
        lines.next(); // an unknown header: judge the data lines
    }
    let sample: Vec<&[u8]> = lines.take(SAMPLE_LINES).collect();
    if sample.is_empty() {
        let reason = match full {
            false => format!("no data lines after the header line {}", quote(first)),
            true => format!(
                "no data line in the first {} KiB of decompressed data after the header line {} (only blank lines \
                 and comments follow it there)",
                HEAD_BYTES / 1024,
                quote(first)
            ),
        };
        return Err(Error::trace(path, 1, reason).of_kind(TraceErrorKind::Empty));
    }

    let mut best: Option<(TraceFormat, usize)> = None;
    for format in SHAPES {
        let matching = sample.iter().filter(|line| matches_shape(format, line)).count();
        if matching > best.map_or(0, |(_, count)| count) {
            best = Some((format, matching));
        }
    }
    match best {
        Some((format, matching)) if 2 * matching >= sample.len() => Ok(match format {
            TraceFormat::DisksimNs => five_number_format(&sample),
            format => format,
        }),
        _ => {
            let ids: Vec<&str> = TraceFormat::ALL[1..].iter().map(|format| format.id()).collect();
            Err(Error::trace(
                path,
                0,
                format!(
                    "cannot detect the trace format: no known layout fits the {} data line(s) examined (first: {}); \
                     name it with format = one of {}, or describe the columns with a generic mapping",
                    sample.len(),
                    quote(sample[0]),
                    ids.join(", ")
                ),
            )
            .of_kind(TraceErrorKind::Format))
        }
    }
}

/// The first line of `text` that is not blank (a comment, where detection found nothing else).
fn first_nonblank(text: &[u8], delimiter: u8) -> &[u8] {
    text.split(|&b| b == delimiter).map(trim_blanks).find(|line| !line.is_empty()).unwrap_or(b"")
}

/// The format a header line names, if it is one of the known headers.
fn by_header(line: &[u8]) -> Option<TraceFormat> {
    HEADERS.iter().find_map(|&(header, format)| {
        let mut expected = header.as_bytes().split(|&b| b == b',');
        let mut got = Fields::delimited(line, b',');
        loop {
            match (expected.next(), got.next()) {
                (None, None) => return Some(format),
                (Some(want), Some(have)) if want.eq_ignore_ascii_case(have) => {}
                _ => return None,
            }
        }
    })
}

fn is_uint(field: &[u8]) -> bool {
    parse_u64(field).is_ok()
}

fn is_decimal(field: &[u8]) -> bool {
    parse_scaled(field, 0).is_ok()
}

fn is_one_of(field: &[u8], words: &[&str]) -> bool {
    words.iter().any(|word| field.eq_ignore_ascii_case(word.as_bytes()))
}

/// Up to 12 fields of a line and their count (the count goes on past 12).
fn split(line: &[u8], delimiter: Option<u8>) -> ([&[u8]; 12], usize) {
    let mut fields: [&[u8]; 12] = [b""; 12];
    let mut count = 0;
    let iter = match delimiter {
        Some(delimiter) => Fields::delimited(line, delimiter),
        None => Fields::whitespace(line),
    };
    for field in iter {
        if let Some(slot) = fields.get_mut(count) {
            *slot = field;
        }
        count += 1;
    }
    (fields, count)
}

/// Whether a data line has the shape of `format`.
fn matches_shape(format: TraceFormat, line: &[u8]) -> bool {
    let (c, commas) = split(line, Some(b','));
    let (w, words) = split(line, None);
    match format {
        TraceFormat::Blkparse => {
            words >= 7
                && super::blkparse::split_device(w[0]).is_some()
                && is_uint(w[1])
                && is_uint(w[2])
                && w[3].contains(&b'.')
                && is_decimal(w[3])
                && is_uint(w[4])
                && (1..=2).contains(&w[5].len())
                && w[5].iter().all(u8::is_ascii_alphabetic)
                && w[6].iter().all(u8::is_ascii_alphabetic)
        }
        TraceFormat::Msr => {
            let csv = commas == 7
                && is_uint(c[0])
                && is_uint(c[2])
                && is_one_of(c[3], &["Read", "Write"])
                && is_uint(c[4])
                && is_uint(c[5]);
            let tabbed = commas == 1
                && words == 4
                && is_uint(w[0])
                && is_one_of(w[1], &["Read", "Write"])
                && is_uint(w[2])
                && is_uint(w[3]);
            csv || tabbed
        }
        TraceFormat::Systor => {
            commas == 6
                && is_decimal(c[0])
                && is_decimal(c[1])
                && is_one_of(c[2], &["R", "W"])
                && is_uint(c[3])
                && is_uint(c[4])
                && is_uint(c[5])
        }
        TraceFormat::Spc => {
            commas >= 5
                && is_uint(c[0])
                && is_uint(c[1])
                && is_uint(c[2])
                && is_one_of(c[3], &["r", "w"])
                && is_decimal(c[4])
        }
        TraceFormat::Alibaba => {
            commas == 5
                && is_uint(c[0])
                && is_one_of(c[1], &["R", "W"])
                && is_uint(c[2])
                && is_uint(c[3])
                && is_uint(c[4])
        }
        TraceFormat::Tencent => {
            commas == 5
                && is_decimal(c[0])
                && is_uint(c[1])
                && is_uint(c[2])
                && is_one_of(c[3], &["0", "1"])
                && is_uint(c[4])
        }
        TraceFormat::Cloudphysics => {
            let opcode = c[1].strip_prefix(b"0x").unwrap_or(c[1]);
            commas == 4
                && is_uint(c[0])
                && (1..=2).contains(&opcode.len())
                && opcode.iter().all(u8::is_ascii_hexdigit)
                && is_uint(c[2])
                && is_uint(c[3])
        }
        TraceFormat::Fiu => {
            if !(9..=w.len()).contains(&words) || commas != 1 {
                return false;
            }
            let tail = |from_end: usize| w[words - from_end];
            is_uint(w[0])
                && is_uint(w[1])
                && !is_uint(w[2])
                && is_uint(tail(6))
                && is_uint(tail(5))
                && is_one_of(tail(4), &["R", "W", "Read", "Write"])
                && is_uint(tail(3))
                && is_uint(tail(2))
                && tail(1).iter().all(u8::is_ascii_alphanumeric)
        }
        // The five-number group: DiskSim (ms or ns) and FlashNet.
        TraceFormat::DisksimNs => {
            commas == 1
                && words == 5
                && is_decimal(w[0])
                && is_uint(w[1])
                && is_uint(w[2])
                && is_uint(w[3])
                && is_uint(w[4])
        }
        _ => false,
    }
}

/// Resolve the five-number group (see the module documentation).
fn five_number_format(sample: &[&[u8]]) -> TraceFormat {
    let lines: Vec<[&[u8]; 12]> = sample
        .iter()
        .filter(|line| matches_shape(TraceFormat::DisksimNs, line))
        .map(|line| split(line, None).0)
        .collect();
    let byte_units = lines.iter().all(|w| {
        let multiple_of_sector = |field: &[u8]| parse_u64(field).is_ok_and(|value| value % 512 == 0);
        multiple_of_sector(w[2]) && multiple_of_sector(w[3]) && is_one_of(w[4], &["0", "1"])
    });
    if byte_units {
        TraceFormat::Flashnet
    } else if lines.iter().any(|w| w[0].contains(&b'.')) {
        TraceFormat::DisksimMs
    } else {
        TraceFormat::DisksimNs
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::trace::test_support::shared_trace;

    fn detect_text(text: &[u8]) -> Result<TraceFormat> {
        detect(text, Path::new("t"))
    }

    #[test]
    fn every_shared_trace_is_detected() {
        let expected = [
            ("msr/hm_0.sample1000.csv", TraceFormat::Msr),
            ("msr/wdev_1.csv", TraceFormat::Msr),
            ("msr/wdev_3.csv", TraceFormat::Msr),
            ("msr/rsrch_1.txt.gz", TraceFormat::Msr),
            ("msr/msr_cut10k_rw20_80_105.trace", TraceFormat::Flashnet),
            ("msr/msr_cut10k_thpt_rand_1006.trace", TraceFormat::Flashnet),
            ("ms_production/msnfs_150k.disksim_ms.txt.gz", TraceFormat::DisksimMs),
            ("ms_production/tpcc_small.disksim_ns.txt", TraceFormat::DisksimNs),
            ("umass/websearch_small.disksim_ns.txt.gz", TraceFormat::DisksimNs),
            ("cloudphysics/cloudPhysicsIO.us.csv.gz", TraceFormat::Cloudphysics),
            ("tencent_cbs/cloud_storage_sample_50k.csv.gz", TraceFormat::Tencent),
            ("systor17/systor17-traces-sample.csv.gz", TraceFormat::Systor),
            ("blkparse/snia_ycsb_rocksdb_ssdtrace_first10k_lines.blkparse.txt.gz", TraceFormat::Blkparse),
            // FIU's own layout despite the file name (not blkparse output).
            ("fiu/fiu_mail_cheetah_day1_first10k.blkparse.gz", TraceFormat::Fiu),
        ];
        for (file, format) in expected {
            let Some(path) = shared_trace(file) else {
                return;
            };
            assert_eq!(crate::workload::trace::detect(&path).unwrap(), format, "{file}");
        }
    }

    #[test]
    fn documented_sample_lines_are_detected() {
        assert_eq!(detect_text(b"0,303567,3584,w,0.000000\n1,55590,3072,W,0.000366\n").unwrap(), TraceFormat::Spc);
        assert_eq!(detect_text(b"419,W,8825705472,4096,1577808000000080\n").unwrap(), TraceFormat::Alibaba);
        assert_eq!(
            detect_text(b"89966528965337 4603 nfsd 1108089520 8 W 6 0 44be5f3b4e9bf4be21d50e8ac21b7dc6\n").unwrap(),
            TraceFormat::Fiu
        );
        assert_eq!(
            detect_text(b"  8,0    3        1     0.000000000   697  Q   W 223490 + 8 [kjournald]\n").unwrap(),
            TraceFormat::Blkparse
        );
        assert_eq!(detect_text(b"ASU,LBA,Size,Opcode,Timestamp\n0,1,512,r,0.0\n").unwrap(), TraceFormat::Spc);
        assert_eq!(detect_text(b"5633898368802,2a,512,42932745\n").unwrap(), TraceFormat::Cloudphysics);
    }

    #[test]
    fn one_bad_line_does_not_defeat_detection() {
        let text = b"1,h,0,Write,0,512,1\n2,h,0,Write,0,512,1\n3,h,0,Wrote,0,512,1\n";
        assert_eq!(detect_text(text).unwrap(), TraceFormat::Msr);
    }

    #[test]
    fn undetectable_and_binary_content_is_explained() {
        let message = detect_text(b"hello world\nthis is not a trace\n").unwrap_err().to_string();
        assert!(message.contains("cannot detect the trace format"), "{message}");
        let message = detect_text(b"\x00\x01\x02garbage\n").unwrap_err().to_string();
        assert!(message.contains("binary data"), "{message}");
        let message = detect_text(b"\n  \n\n").unwrap_err().to_string();
        assert!(message.contains("empty"), "{message}");
    }
}
