//! Fuzz target: any bytes behind a valid ssdlab binary trace header (so the record decoder is
//! reached, not only the header check), read under either bad-line policy, must end in Ok or
//! Err, never a panic or a hang. The first byte picks the policy and the record count claimed.

#![no_main]

use std::io::Cursor;
use std::path::Path;

use libfuzzer_sys::fuzz_target;
use ssdlab_core::workload::trace::{self, binary, BadLinePolicy, TraceFormat, TraceOptions};

fuzz_target!(|data: &[u8]| {
    let Some((&selector, records)) = data.split_first() else {
        return;
    };
    let mut bytes = binary::MAGIC.to_vec();
    bytes.extend_from_slice(&1u16.to_le_bytes()); // version
    bytes.extend_from_slice(&25u16.to_le_bytes()); // record bytes
    bytes.extend_from_slice(&[0; 4]);
    bytes.extend_from_slice(&u64::from(selector & 0x7f).to_le_bytes()); // records claimed
    bytes.extend_from_slice(records);
    let on_bad_line = if selector & 0x80 == 0 { BadLinePolicy::Error } else { BadLinePolicy::Skip };
    let options = TraceOptions { on_bad_line, ..TraceOptions::with_format(TraceFormat::Binary) };
    if let Ok(mut reader) = trace::from_reader(Box::new(Cursor::new(bytes)), Path::new("fuzz"), &options) {
        while let Ok(Some(_)) = reader.next_record() {}
    }
});
