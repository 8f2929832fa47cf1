//! Fuzz target: any bytes read as blkparse text, each event kind (auto, issue, queue) under
//! either bad-line policy, must end in Ok or Err, and every line must be accounted for: a
//! reader that ends Ok has counted what it did not replay. The first byte picks the options.

#![no_main]

use std::io::Cursor;
use std::path::Path;

use libfuzzer_sys::fuzz_target;
use ssdlab_core::workload::trace::{self, BadLinePolicy, BlkparseEvent, TraceFormat, TraceOptions};

fuzz_target!(|data: &[u8]| {
    let Some((&selector, content)) = data.split_first() else {
        return;
    };
    let blkparse_event = [BlkparseEvent::Auto, BlkparseEvent::Issue, BlkparseEvent::Queue][usize::from(selector % 3)];
    let on_bad_line = if selector & 0x80 == 0 { BadLinePolicy::Error } else { BadLinePolicy::Skip };
    let options = TraceOptions { blkparse_event, on_bad_line, ..TraceOptions::with_format(TraceFormat::Blkparse) };
    let Ok(mut reader) = trace::from_reader(Box::new(Cursor::new(content.to_vec())), Path::new("fuzz"), &options)
    else {
        return;
    };
    let mut records = 0u64;
    while let Ok(Some(_)) = reader.next_record() {
        records += 1;
    }
    let counts = reader.line_counts();
    assert_eq!(counts.skipped_by_problem.values().sum::<u64>(), counts.skipped_lines);
    assert!(records + counts.ignored_lines + counts.skipped_lines <= content.len() as u64 + 1);
});
