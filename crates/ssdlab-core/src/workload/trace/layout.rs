//! Layer: workload (trace readers). Keeps the devices of a multi-device trace apart
//! (`devices = "separate"`, the default).
//!
//! Many traces mix devices: DiskSim `devno`, the SPC ASU, MSR `DiskNumber`, SYSTOR LUNs,
//! Tencent and Alibaba volumes, blkparse and FIU `major,minor`. Each device has its own address
//! space, so byte 0 of volume 3 is not byte 0 of volume 5; replayed at their own offsets onto
//! one SSD they would overwrite each other's data. The rule:
//!
//! 1. A pre-scan reads the whole file once (same format reader, no filters) and records, per
//!    device, its request count, lowest offset and highest end.
//! 2. Each extent is widened to 1 MiB boundaries ([`ALIGN_BYTES`]), so that no flash page of any
//!    size up to 1 MiB straddles two devices whatever the simulated page size.
//! 3. Devices are laid back to back in device-number order: the lowest-numbered device keeps its
//!    own addresses, and each next device starts where the previous one's range ends.
//!
//! A trace with one device therefore replays unchanged, and laying out an already laid-out
//! trace (a binary trace converted from a separated one) changes nothing. The ranges are
//! disjoint, so compact folding keeps the devices apart, and so does modulo folding as long as
//! the layout's end fits the used logical space (the report shows `layout_end_bytes`).
//!
//! A trace read from a stream cannot be pre-scanned: its records pass unchanged while they name
//! one device, and a second device is an error that says what to do.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::info::DeviceRange;
use super::reader::TraceReader;
use crate::error::{Error, Result};
use crate::workload::TraceRecord;

/// Device ranges start and end on multiples of this many bytes (1 MiB).
pub(crate) const ALIGN_BYTES: u64 = 1 << 20;

/// One device's extent as the pre-scan found it.
#[derive(Debug, Clone, Copy)]
struct Extent {
    requests: u64,
    first_bytes: u64,
    end_bytes: u64,
}

/// Where each device's requests go, in device order. Immutable once built; shared by the
/// passes of a repeated replay.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Layout {
    ranges: Vec<DeviceRange>,
    end_bytes: u64,
}

impl Layout {
    /// Pre-scan `reader` to its end and lay out the devices it names.
    pub(crate) fn scan(reader: &mut dyn TraceReader, path: &Path) -> Result<Layout> {
        let mut extents: BTreeMap<u32, Extent> = BTreeMap::new();
        while let Some(record) = reader.next_record()? {
            let end_bytes = record.offset_bytes + record.size_bytes; // readers guarantee no overflow
            extents
                .entry(record.device)
                .and_modify(|extent| {
                    extent.requests += 1;
                    extent.first_bytes = extent.first_bytes.min(record.offset_bytes);
                    extent.end_bytes = extent.end_bytes.max(end_bytes);
                })
                .or_insert(Extent { requests: 1, first_bytes: record.offset_bytes, end_bytes });
        }
        Layout::from_extents(&extents, path)
    }

    fn from_extents(extents: &BTreeMap<u32, Extent>, path: &Path) -> Result<Layout> {
        let too_large = || {
            Error::trace(
                path,
                0,
                format!(
                    "the {} devices of this trace, laid back to back, need more than 2^64 bytes; read them with \
                     devices = \"merge\" or one at a time with device = N",
                    extents.len()
                ),
            )
        };
        let mut ranges = Vec::with_capacity(extents.len());
        let mut next_start: Option<u64> = None;
        for (&device, extent) in extents {
            let trace_start_bytes = extent.first_bytes / ALIGN_BYTES * ALIGN_BYTES;
            let trace_end_bytes =
                extent.end_bytes.div_ceil(ALIGN_BYTES).checked_mul(ALIGN_BYTES).ok_or_else(too_large)?;
            let start_bytes = next_start.unwrap_or(trace_start_bytes);
            let end_bytes = start_bytes.checked_add(trace_end_bytes - trace_start_bytes).ok_or_else(too_large)?;
            ranges.push(DeviceRange {
                device,
                requests: extent.requests,
                trace_start_bytes,
                trace_end_bytes,
                start_bytes,
            });
            next_start = Some(end_bytes);
        }
        Ok(Layout { ranges, end_bytes: next_start.unwrap_or(0) })
    }

    /// Every device's range, in device order.
    pub(crate) fn ranges(&self) -> &[DeviceRange] {
        &self.ranges
    }

    /// The end of the last range: the address space the layout needs.
    pub(crate) fn end_bytes(&self) -> u64 {
        self.end_bytes
    }
}

/// The reader stage that moves each request into its device's range.
pub(crate) struct Separated {
    inner: Box<dyn TraceReader + Send>,
    path: PathBuf,
    /// `None` for a stream that could not be pre-scanned.
    layout: Option<Arc<Layout>>,
    /// Index of the range used last: requests come in runs of one device.
    last: usize,
    /// A stream's device, once seen.
    stream_device: Option<u32>,
}

impl Separated {
    /// Map records through a pre-scanned layout.
    pub(crate) fn scanned(inner: Box<dyn TraceReader + Send>, path: &Path, layout: Arc<Layout>) -> Self {
        Separated { inner, path: path.to_path_buf(), layout: Some(layout), last: 0, stream_device: None }
    }

    /// Pass the records of a stream unchanged while they name one device.
    pub(crate) fn stream(inner: Box<dyn TraceReader + Send>, path: &Path) -> Self {
        Separated { inner, path: path.to_path_buf(), layout: None, last: 0, stream_device: None }
    }

    fn place(&mut self, record: &mut TraceRecord) -> Result<()> {
        let Some(layout) = &self.layout else {
            let first = *self.stream_device.get_or_insert(record.device);
            if record.device == first {
                return Ok(());
            }
            return Err(Error::trace(
                &self.path,
                self.inner.line(),
                format!(
                    "a second device ({} after {first}) in a trace read from a stream: keeping devices apart \
                     needs a pre-scan, which only a file opened by path allows; open the file by path, or set \
                     devices = \"merge\" (devices overlap) or device = N (one device)",
                    record.device
                ),
            ));
        };
        let ranges = layout.ranges();
        if ranges.get(self.last).is_none_or(|range| range.device != record.device) {
            match ranges.binary_search_by_key(&record.device, |range| range.device) {
                Ok(index) => self.last = index,
                Err(_) => {
                    return Err(self.changed(format!("device {} is not in the pre-scan", record.device)));
                }
            }
        }
        let range = ranges[self.last];
        let end_bytes = record.offset_bytes + record.size_bytes;
        if record.offset_bytes < range.trace_start_bytes || end_bytes > range.trace_end_bytes {
            return Err(self.changed(format!(
                "bytes [{}, {end_bytes}) of device {} lie outside the extent the pre-scan found",
                record.offset_bytes, record.device
            )));
        }
        record.offset_bytes = range.start_bytes + (record.offset_bytes - range.trace_start_bytes);
        Ok(())
    }

    fn changed(&self, what: String) -> Error {
        Error::trace(&self.path, self.inner.line(), format!("{what}: did the file change while it was read?"))
    }
}

impl TraceReader for Separated {
    fn next_record(&mut self) -> Result<Option<TraceRecord>> {
        let Some(mut record) = self.inner.next_record()? else {
            return Ok(None);
        };
        self.place(&mut record)?;
        Ok(Some(record))
    }

    fn line(&self) -> u64 {
        self.inner.line()
    }

    fn skipped_lines(&self) -> u64 {
        self.inner.skipped_lines()
    }

    fn clamped_records(&self) -> u64 {
        self.inner.clamped_records()
    }

    fn line_counts(&self) -> super::info::LineCounts {
        self.inner.line_counts()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::trace::test_support::record;
    use crate::workload::IoOp::{Read, Write};

    /// A reader over a fixed list of records; the line is the number of records asked for.
    struct Fixed(Vec<TraceRecord>, u64);

    impl TraceReader for Fixed {
        fn next_record(&mut self) -> Result<Option<TraceRecord>> {
            self.1 += 1;
            Ok(self.0.get(self.1 as usize - 1).copied())
        }
        fn line(&self) -> u64 {
            self.1
        }
        fn skipped_lines(&self) -> u64 {
            0
        }
    }

    fn fixed(records: &[TraceRecord]) -> Box<dyn TraceReader + Send> {
        Box::new(Fixed(records.to_vec(), 0))
    }

    const MIB: u64 = ALIGN_BYTES;

    fn separate(records: &[TraceRecord]) -> Result<(Layout, Vec<TraceRecord>)> {
        let layout = Layout::scan(fixed(records).as_mut(), Path::new("t"))?;
        let mut reader = Separated::scanned(fixed(records), Path::new("t"), Arc::new(layout.clone()));
        let mut out = Vec::new();
        while let Some(record) = reader.next_record()? {
            out.push(record);
        }
        Ok((layout, out))
    }

    #[test]
    fn devices_are_laid_back_to_back_in_device_order() {
        let records = [
            record(1, Write, 5 * MIB + 512, 4096, 7),
            record(2, Write, 0, 8192, 2),
            record(3, Read, 3 * MIB - 4096, 4096, 2),
            record(4, Read, 9 * MIB, 512, 7),
        ];
        let (layout, out) = separate(&records).unwrap();
        // Device 2 keeps its addresses, [0, 3 MiB); device 7's extent [5 MiB, 10 MiB) follows.
        assert_eq!(
            layout.ranges(),
            [
                DeviceRange { device: 2, requests: 2, trace_start_bytes: 0, trace_end_bytes: 3 * MIB, start_bytes: 0 },
                DeviceRange {
                    device: 7,
                    requests: 2,
                    trace_start_bytes: 5 * MIB,
                    trace_end_bytes: 10 * MIB,
                    start_bytes: 3 * MIB
                },
            ]
        );
        assert_eq!(layout.end_bytes(), 8 * MIB);
        let offsets: Vec<u64> = out.iter().map(|r| r.offset_bytes).collect();
        assert_eq!(offsets, vec![3 * MIB + 512, 0, 3 * MIB - 4096, 7 * MIB]);
        assert_eq!(out.iter().map(|r| r.device).collect::<Vec<_>>(), vec![7, 2, 2, 7], "devices are kept");
    }

    #[test]
    fn one_device_is_unchanged_and_layout_is_idempotent() {
        let single = [record(1, Write, 40 * MIB + 3, 100, 4), record(2, Read, 80 * MIB, 4096, 4)];
        let (layout, out) = separate(&single).unwrap();
        assert_eq!(out, single);
        assert_eq!(layout.end_bytes(), 81 * MIB);
        let mixed = [record(1, Write, 70 * MIB, 4096, 1), record(2, Write, 0, 4096, 0), record(3, Read, 0, 1, 9)];
        let (_, once) = separate(&mixed).unwrap();
        let (_, twice) = separate(&once).unwrap();
        assert_eq!(twice, once, "a laid-out trace lays out to itself");
    }

    #[test]
    fn layouts_beyond_64_bits_are_errors() {
        let huge = [record(1, Write, 0, 4096, 0), record(2, Write, u64::MAX - 4096, 4096, 1)];
        let layout = Layout::scan(fixed(&huge).as_mut(), Path::new("t"));
        assert!(layout.unwrap_err().to_string().contains("need more than 2^64 bytes"));
    }

    #[test]
    fn a_stream_passes_one_device_and_stops_at_a_second() {
        let records = [record(1, Write, 0, 4096, 3), record(2, Write, 8192, 4096, 3), record(3, Read, 0, 512, 4)];
        let mut reader = Separated::stream(fixed(&records), Path::new("t"));
        assert_eq!(reader.next_record().unwrap(), Some(records[0]));
        assert_eq!(reader.next_record().unwrap(), Some(records[1]));
        let message = reader.next_record().unwrap_err().to_string();
        assert!(message.starts_with("t:3: a second device (4 after 3)"), "{message}");
    }

    #[test]
    fn a_device_missing_from_the_pre_scan_is_an_error() {
        let scanned = [record(1, Write, 0, 4096, 3)];
        let layout = Arc::new(Layout::scan(fixed(&scanned).as_mut(), Path::new("t")).unwrap());
        let mut reader = Separated::scanned(fixed(&[record(1, Write, 0, 4096, 5)]), Path::new("t"), layout.clone());
        assert!(reader.next_record().unwrap_err().to_string().contains("device 5 is not in the pre-scan"));
        let mut reader = Separated::scanned(fixed(&[record(1, Write, MIB, 4096, 3)]), Path::new("t"), layout);
        assert!(reader.next_record().unwrap_err().to_string().contains("outside the extent"));
    }
}
