//! Fuzz target: any bytes, read as a trace in any format under either bad-line policy, and
//! summarised by the statistics, must end in Ok or Err, never a panic or a hang.
//! The first input byte picks the format and policy; the rest is the file content.

#![no_main]

use std::io::Cursor;
use std::path::Path;

use libfuzzer_sys::fuzz_target;
use ssdlab_core::workload::trace::{
    self, AddressUnit, BadLinePolicy, GenericColumns, TimeUnit, TraceFormat, TraceOptions,
};

fuzz_target!(|data: &[u8]| {
    let Some((&selector, content)) = data.split_first() else {
        return;
    };
    let format = TraceFormat::ALL[usize::from(selector) % TraceFormat::ALL.len()];
    let generic = (format == TraceFormat::Generic).then(|| GenericColumns {
        device_column: Some(2),
        ..GenericColumns::csv(
            0,
            TimeUnit::Filetime,
            4,
            AddressUnit::Sectors,
            5,
            AddressUnit::Pages,
            3,
        )
    });
    let on_bad_line = if selector & 0x80 == 0 {
        BadLinePolicy::Error
    } else {
        BadLinePolicy::Skip
    };
    let options = TraceOptions {
        format,
        generic,
        on_bad_line,
        reorder_window: 8,
        ..TraceOptions::default()
    };

    let open = || {
        trace::from_reader(
            Box::new(Cursor::new(content.to_vec())),
            Path::new("fuzz"),
            &options,
        )
    };
    if let Ok(mut reader) = open() {
        while let Ok(Some(_)) = reader.next_record() {}
    }
    if let Ok(mut reader) = open() {
        let _ = trace::stats::compute(reader.as_mut(), 4096);
    }
});
