//! Layer: workload (trace readers). The options stacked on top of every format reader, applied
//! in this order: device filter, re-ordering of slightly out-of-order timestamps, time window
//! (relative to the first record left after the device filter), operation filter, first N.
//!
//! Re-ordering keeps a small window of pending records sorted by `(time, arrival order)` in a
//! `VecDeque`. Block traces are almost sorted, so a new record nearly always goes to the back in
//! O(1), and the rare late record is inserted by binary search. (A binary heap would pay
//! O(log window) on every record for nothing.) A record older than one already delivered cannot
//! be re-ordered any more: it is an error naming the line, or is clamped to the last delivered
//! time and counted.

use std::collections::VecDeque;
use std::path::{Path, PathBuf};

use super::info::TraceInfo;
use super::options::{OpFilter, OutOfOrderPolicy, TraceOptions};
use super::reader::TraceReader;
use crate::error::{Error, Result, TraceErrorKind};
use crate::workload::{IoOp, TraceRecord};

/// A format reader with the [`TraceOptions`] filters applied.
pub(crate) struct Filtered {
    inner: Box<dyn TraceReader + Send>,
    path: PathBuf,
    device: Option<u32>,
    start_ns: u64,
    end_ns: Option<u64>,
    ops: OpFilter,
    max_requests: Option<u64>,
    window: usize,
    on_out_of_order: OutOfOrderPolicy,
    /// Records read but not yet delivered, sorted by time (stable for equal times).
    pending: VecDeque<TraceRecord>,
    inner_done: bool,
    last_delivered_ns: Option<u64>,
    first_ns: Option<u64>,
    delivered: u64,
    clamped: u64,
    done: bool,
    info: Option<TraceInfo>,
}

impl Filtered {
    pub(crate) fn new(inner: Box<dyn TraceReader + Send>, path: &Path, options: &TraceOptions) -> Self {
        Filtered {
            inner,
            path: path.to_path_buf(),
            device: options.device,
            start_ns: options.start_ns,
            end_ns: options.end_ns,
            ops: options.ops,
            max_requests: options.max_requests,
            window: options.reorder_window,
            on_out_of_order: options.on_out_of_order,
            pending: VecDeque::with_capacity(options.reorder_window + 1),
            inner_done: false,
            last_delivered_ns: None,
            first_ns: None,
            delivered: 0,
            clamped: 0,
            done: false,
            info: None,
        }
    }

    /// Report `info` as what the reader did.
    pub(crate) fn with_info(mut self, info: TraceInfo) -> Self {
        self.info = Some(info);
        self
    }

    /// The next record of the selected device in time order.
    fn next_sorted(&mut self) -> Result<Option<TraceRecord>> {
        while !self.inner_done && self.pending.len() <= self.window {
            match self.inner.next_record()? {
                None => self.inner_done = true,
                Some(record) if self.device.is_some_and(|device| device != record.device) => {}
                Some(record) => self.insert(record)?,
            }
        }
        let next = self.pending.pop_front();
        if let Some(record) = &next {
            self.last_delivered_ns = Some(record.time_ns);
        }
        Ok(next)
    }

    fn insert(&mut self, mut record: TraceRecord) -> Result<()> {
        if let Some(last_ns) = self.last_delivered_ns {
            if record.time_ns < last_ns {
                match self.on_out_of_order {
                    OutOfOrderPolicy::Clamp => {
                        record.time_ns = last_ns;
                        self.clamped += 1;
                    }
                    OutOfOrderPolicy::Error => {
                        return Err(Error::trace(
                            &self.path,
                            self.inner.line(),
                            format!(
                                "out of order: time {} ns is {} ns earlier than a request already replayed, \
                                 more than reorder_window = {} requests back; sort the trace, raise \
                                 reorder_window, or set on_out_of_order = \"clamp\"",
                                record.time_ns,
                                last_ns - record.time_ns,
                                self.window
                            ),
                        )
                        .of_kind(TraceErrorKind::OutOfOrder));
                    }
                }
            }
        }
        match self.pending.back() {
            Some(back) if back.time_ns > record.time_ns => {
                let at = self.pending.partition_point(|pending| pending.time_ns <= record.time_ns);
                self.pending.insert(at, record);
            }
            _ => self.pending.push_back(record),
        }
        Ok(())
    }
}

impl TraceReader for Filtered {
    fn next_record(&mut self) -> Result<Option<TraceRecord>> {
        loop {
            if self.done || self.max_requests.is_some_and(|max| self.delivered >= max) {
                return Ok(None);
            }
            let Some(record) = self.next_sorted()? else {
                self.done = true;
                return Ok(None);
            };
            let first_ns = *self.first_ns.get_or_insert(record.time_ns);
            let since_first_ns = record.time_ns.saturating_sub(first_ns);
            if since_first_ns < self.start_ns {
                continue;
            }
            if self.end_ns.is_some_and(|end_ns| since_first_ns >= end_ns) {
                self.done = true; // records arrive sorted: nothing later can fall in the window
                return Ok(None);
            }
            let wanted = match self.ops {
                OpFilter::All => true,
                OpFilter::Reads => record.op == IoOp::Read,
                OpFilter::Writes => record.op == IoOp::Write,
            };
            if wanted {
                self.delivered += 1;
                return Ok(Some(record));
            }
        }
    }

    fn line(&self) -> u64 {
        self.inner.line()
    }

    fn skipped_lines(&self) -> u64 {
        self.inner.skipped_lines()
    }

    fn clamped_records(&self) -> u64 {
        self.clamped
    }

    fn line_counts(&self) -> super::info::LineCounts {
        self.inner.line_counts()
    }

    /// The plan's info with the lines passed over so far.
    fn info(&self) -> Option<TraceInfo> {
        self.info.clone().map(|info| TraceInfo { lines: self.inner.line_counts(), ..info })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reader over a fixed list of (time, op, device) records.
    struct Fixed {
        records: Vec<TraceRecord>,
        next: usize,
    }

    impl TraceReader for Fixed {
        fn next_record(&mut self) -> Result<Option<TraceRecord>> {
            let record = self.records.get(self.next).copied();
            self.next += 1;
            Ok(record)
        }
        fn line(&self) -> u64 {
            self.next as u64
        }
        fn skipped_lines(&self) -> u64 {
            0
        }
    }

    fn filtered(times: &[(u64, IoOp, u32)], options: &TraceOptions) -> Filtered {
        let records = times
            .iter()
            .map(|&(time_ns, op, device)| TraceRecord { time_ns, op, offset_bytes: 0, size_bytes: 512, device })
            .collect();
        Filtered::new(Box::new(Fixed { records, next: 0 }), Path::new("t"), options)
    }

    fn drain(reader: &mut dyn TraceReader) -> Result<Vec<u64>> {
        let mut times = Vec::new();
        while let Some(record) = reader.next_record()? {
            times.push(record.time_ns);
        }
        Ok(times)
    }

    const R: IoOp = IoOp::Read;
    const W: IoOp = IoOp::Write;

    #[test]
    fn reorders_within_the_window_stably() {
        let options = TraceOptions { reorder_window: 2, ..TraceOptions::default() };
        let mut reader = filtered(&[(10, R, 0), (30, R, 0), (20, W, 0), (20, R, 0), (40, R, 0)], &options);
        let mut ops = Vec::new();
        while let Some(record) = reader.next_record().unwrap() {
            ops.push((record.time_ns, record.op));
        }
        assert_eq!(ops, vec![(10, R), (20, W), (20, R), (30, R), (40, R)]);
    }

    #[test]
    fn too_late_is_an_error_or_clamped() {
        let late = [(10, R, 0), (20, R, 0), (30, R, 0), (5, R, 0)];
        let options = TraceOptions { reorder_window: 1, ..TraceOptions::default() };
        let error = drain(&mut filtered(&late, &options)).unwrap_err();
        let message = error.to_string();
        assert!(message.contains("out of order") && message.contains("t:4:"), "{message}");

        let options =
            TraceOptions { reorder_window: 1, on_out_of_order: OutOfOrderPolicy::Clamp, ..TraceOptions::default() };
        let mut reader = filtered(&late, &options);
        assert_eq!(drain(&mut reader).unwrap(), vec![10, 20, 20, 30]);
        assert_eq!(reader.clamped_records(), 1);
    }

    #[test]
    fn device_window_ops_and_count_filters() {
        let trace = [(100, R, 1), (150, W, 2), (200, W, 1), (300, R, 1), (400, W, 1), (500, R, 1)];
        let options = TraceOptions { device: Some(1), start_ns: 100, end_ns: Some(350), ..TraceOptions::default() };
        assert_eq!(drain(&mut filtered(&trace, &options)).unwrap(), vec![200, 300, 400]);
        let options = TraceOptions { ops: OpFilter::Reads, max_requests: Some(2), ..TraceOptions::default() };
        assert_eq!(drain(&mut filtered(&trace, &options)).unwrap(), vec![100, 300]);
        let options = TraceOptions { ops: OpFilter::Writes, ..TraceOptions::default() };
        assert_eq!(drain(&mut filtered(&trace, &options)).unwrap(), vec![150, 200, 400]);
    }
}
