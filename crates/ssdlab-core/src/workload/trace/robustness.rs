//! Layer: workload (trace readers), tests only. The core never panics on trace content: random
//! bytes and random mutations of valid lines go through every reader, under both bad-line
//! policies, and through the statistics; each run must end in `Ok` or `Err`.

use std::io::Cursor;
use std::path::Path;

use proptest::prelude::*;

use super::{from_reader, stats, BadLinePolicy, GenericColumns, TraceFormat, TraceOptions};
use super::{AddressUnit, TimeUnit};

/// One valid line per format (binary is covered by mutating a real binary file below).
const VALID_LINES: [(TraceFormat, &str); 12] = [
    (TraceFormat::Msr, "128166385295514663,hm,0,Write,9056014336,2048,2833"),
    (TraceFormat::Msr, "128166481075232000 \tWrite\t281358336 \t45056"),
    (TraceFormat::DisksimMs, "0.221 5 162947904 16 1"),
    (TraceFormat::DisksimNs, "938513000 4 264719034 16 0"),
    (TraceFormat::Spc, "0,303567,3584,w,0.000000"),
    (TraceFormat::Flashnet, "223.412 0 3159347200 36864 0"),
    (TraceFormat::Fiu, "89966528965337 4603 nfsd 1108089520 8 W 6 0 44be5f3b4e9bf4be21d50e8ac21b7dc6"),
    (TraceFormat::Systor, "1456095145.133076000,0.000806000,R,0,899056122368,131072"),
    (TraceFormat::Alibaba, "419,W,8825705472,4096,1577808000000080"),
    (TraceFormat::Tencent, "1538323200,4247200,128,1,1058"),
    (TraceFormat::Cloudphysics, "5633898368802,2a,512,42932745"),
    (TraceFormat::Blkparse, "  8,0    3        1     0.000000000  697  Q   W 223490 + 8 [kjournald]"),
];

fn generic_columns() -> GenericColumns {
    GenericColumns {
        device_column: Some(2),
        ..GenericColumns::csv(0, TimeUnit::Filetime, 4, AddressUnit::Sectors, 5, AddressUnit::Pages, 3)
    }
}

/// Every way of reading `bytes`: each format explicitly, auto-detection, both policies.
fn all_options() -> Vec<TraceOptions> {
    let mut all = Vec::new();
    for format in TraceFormat::ALL {
        for on_bad_line in [BadLinePolicy::Error, BadLinePolicy::Skip] {
            let generic = (format == TraceFormat::Generic).then(generic_columns);
            all.push(TraceOptions { format, generic, on_bad_line, reorder_window: 4, ..TraceOptions::default() });
        }
    }
    all
}

/// Read everything; any outcome but a panic is fine. Also run the statistics.
fn read_every_way(bytes: &[u8]) {
    for options in all_options() {
        if let Ok(mut reader) = from_reader(Box::new(Cursor::new(bytes.to_vec())), Path::new("fuzz"), &options) {
            let mut count = 0;
            while let Ok(Some(_)) = reader.next_record() {
                count += 1;
                if count > 10_000 {
                    break;
                }
            }
        }
        if let Ok(mut reader) = from_reader(Box::new(Cursor::new(bytes.to_vec())), Path::new("fuzz"), &options) {
            let _ = stats::compute(reader.as_mut(), 4096);
        }
    }
}

/// Replace, insert or delete bytes at positions given as fractions of the length.
pub(super) fn mutate(original: &[u8], edits: &[(u8, f64, u8)]) -> Vec<u8> {
    let mut bytes = original.to_vec();
    for &(kind, at, byte) in edits {
        let position = ((bytes.len() as f64) * at) as usize;
        match kind % 3 {
            0 if position < bytes.len() => bytes[position] = byte,
            1 => bytes.insert(position.min(bytes.len()), byte),
            _ if position < bytes.len() => {
                bytes.remove(position);
            }
            _ => {}
        }
    }
    bytes
}

/// Interesting bytes for mutations: digits, delimiters, signs, letters of op names, NUL, high bytes.
pub(super) fn interesting_byte() -> impl Strategy<Value = u8> {
    prop_oneof![prop::sample::select(b"0123456789,. \t\n\r-+eE#xRWrwDQ\"".to_vec()), Just(0u8), any::<u8>(),]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn random_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..400)) {
        read_every_way(&bytes);
    }

    #[test]
    fn mutated_valid_lines_never_panic(
        which in 0..VALID_LINES.len(),
        repeat in 1..4usize,
        edits in prop::collection::vec((any::<u8>(), 0.0..1.0f64, interesting_byte()), 1..6),
    ) {
        let (_, line) = VALID_LINES[which];
        let text = format!("{line}\n").repeat(repeat);
        read_every_way(&mutate(text.as_bytes(), &edits));
    }

    #[test]
    fn mutated_binary_traces_never_panic(
        edits in prop::collection::vec((any::<u8>(), 0.0..1.0f64, any::<u8>()), 1..6),
    ) {
        let mut bytes = super::binary::MAGIC.to_vec();
        bytes.extend_from_slice(&1u16.to_le_bytes());
        bytes.extend_from_slice(&25u16.to_le_bytes());
        bytes.extend_from_slice(&[0; 4]);
        bytes.extend_from_slice(&2u64.to_le_bytes());
        for _ in 0..2 {
            bytes.extend_from_slice(&[1, 0, 0, 0, 0, 0, 0, 0, 0, 16, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 3, 0, 0, 0, 1]);
        }
        read_every_way(&mutate(&bytes, &edits));
    }
}

#[test]
fn every_valid_line_parses_with_its_format_and_with_auto() {
    for (format, line) in VALID_LINES {
        let text = format!("{line}\n");
        for options in [TraceOptions::with_format(format), TraceOptions::default()] {
            let mut reader = from_reader(Box::new(Cursor::new(text.clone().into_bytes())), Path::new("t"), &options)
                .unwrap_or_else(|e| panic!("{format}: {e}"));
            assert!(reader.next_record().unwrap().is_some(), "{format}");
        }
    }
}
