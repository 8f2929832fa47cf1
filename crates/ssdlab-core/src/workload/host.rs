//! Layer: workload. The host model's address side: turns byte-addressed requests from a trace or
//! the generator into page requests in the used logical space (rebased and sped-up arrival
//! times, folded addresses, partial-page flags). Open/closed-loop issuing lives in `sim`.

use hashbrown::HashMap;
use rustc_hash::FxBuildHasher;
use serde::Serialize;

use crate::error::Result;
use crate::units::{Lpn, SimTime};
use crate::workload::config::Fold;
use crate::workload::footprint::PageSet;
use crate::workload::request::RecordSource;
use crate::workload::{IoOp, TraceRecord};

/// Requests the host reads ahead of the one being served (see `peek_lpn`).
const LOOKAHEAD: usize = 2;

/// One host request in page terms.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HostRequest {
    pub arrival_ns: SimTime,
    pub op: IoOp,
    pub offset_bytes: u64,
    pub size_bytes: u64,
    /// First page index in the trace's own (unfolded) address space.
    pub first_page: u64,
    pub pages: u32,
    pub partial_head: bool,
    pub partial_tail: bool,
    /// The job that issued it, for a source of independent jobs (`RecordSource::jobs`); else 0.
    pub job: u32,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct HostStats {
    /// Requests of size 0 (dropped: nothing to do).
    pub zero_size_skipped: u64,
    /// Requests whose pages were folded: under modulo folding, those reaching beyond the used
    /// logical space; under compact folding, those with a page whose slot did (the footprint
    /// outgrew the space).
    pub folded_requests: u64,
    /// Distinct trace pages seen by compact folding.
    pub compact_footprint_pages: u64,
    /// The end of the highest request (offset + size), in the workload's own (unfolded) address
    /// space: the used logical space it needs to replay without modulo folding.
    pub address_span_bytes: u64,
    /// Distinct pages the requests addressed (trims included, as compact folding packs them):
    /// the used logical space compact folding needs. Counted for traces and specs (under compact
    /// folding it is `compact_footprint_pages`); `null` for the synthetic generator, whose
    /// addresses lie in the used space.
    pub footprint_pages: Option<u64>,
}

/// Compact folding's slots: each distinct trace page gets the next slot in first-use order.
/// Pages below `DENSE_PAGES` (32 GiB of 4 KiB pages, where most traces' addresses lie) are
/// looked up in a table indexed by page, grown as pages appear (at most 32 MiB); a hash map
/// holds the pages above. The hash map alone took 12-15 % of a spec workload's run (a cache miss
/// and a hash per page); the table costs one miss.
#[derive(Default)]
struct CompactSlots {
    dense: Vec<u32>,
    sparse: HashMap<u64, u32, FxBuildHasher>,
    len: u32,
}

/// Pages held in the dense table (see `CompactSlots`).
const DENSE_PAGES: u64 = 1 << 23;
const UNSEEN: u32 = u32::MAX;

impl CompactSlots {
    fn slot(&mut self, page: u64) -> u32 {
        let next = self.len;
        let slot = if page < DENSE_PAGES {
            let i = page as usize;
            if i >= self.dense.len() {
                let grown = (i + 1).next_power_of_two().min(DENSE_PAGES as usize);
                self.dense.resize(grown, UNSEEN);
            }
            let slot = &mut self.dense[i];
            if *slot == UNSEEN {
                *slot = next;
            }
            *slot
        } else {
            *self.sparse.entry(page).or_insert(next)
        };
        if slot == next {
            self.len += 1;
        }
        slot
    }
}

pub struct Host {
    source: Box<dyn RecordSource + Send>,
    page_bytes: u64,
    used_pages: u64,
    fold: Fold,
    compact: CompactSlots,
    speedup: f64,
    first_time_ns: Option<u64>,
    rebase: bool,
    /// Requests read ahead, so the FTL can bring their mapping entries into cache early.
    ahead: std::collections::VecDeque<HostRequest>,
    started: bool,
    /// The pages addressed under modulo folding (`count_footprint`); None: not counted.
    footprint: Option<PageSet>,
    pub stats: HostStats,
}

impl Host {
    /// `rebase`: subtract the first record's time (traces); synthetic times start at 0 anyway.
    pub fn new(
        source: Box<dyn RecordSource + Send>,
        page_bytes: u64,
        used_pages: u32,
        fold: Fold,
        speedup: f64,
        rebase: bool,
    ) -> Host {
        Host {
            source,
            page_bytes,
            used_pages: used_pages as u64,
            fold,
            compact: CompactSlots::default(),
            speedup,
            first_time_ns: None,
            rebase,
            ahead: std::collections::VecDeque::with_capacity(LOOKAHEAD),
            started: false,
            footprint: None,
            stats: HostStats::default(),
        }
    }

    /// Count the distinct pages the requests address (`HostStats::footprint_pages`): under
    /// compact folding its slots do; under modulo folding a page set (`PageSet`) does.
    pub fn count_footprint(mut self) -> Host {
        self.stats.footprint_pages = Some(0);
        if self.fold == Fold::Modulo {
            self.footprint = Some(PageSet::default());
        }
        self
    }

    pub fn skipped_records(&self) -> u64 {
        self.source.skipped()
    }

    /// What the trace reader did so far (the lines it passed over included); `None` for a
    /// source that is not a trace.
    pub fn trace_info(&self) -> Option<crate::workload::trace::TraceInfo> {
        self.source.trace_info()
    }

    /// The next request, or None at the end of the workload.
    pub fn next_request(&mut self) -> Result<Option<HostRequest>> {
        if !self.started {
            self.started = true;
            for _ in 0..LOOKAHEAD {
                match self.read_request()? {
                    Some(r) => self.ahead.push_back(r),
                    None => break,
                }
            }
        }
        let next = self.ahead.pop_front();
        if next.is_some() {
            if let Some(r) = self.read_request()? {
                self.ahead.push_back(r);
            }
        }
        Ok(next)
    }

    /// The source's independent jobs (`RecordSource::jobs`), or None for one stream.
    pub fn jobs(&self) -> Option<u32> {
        self.source.jobs()
    }

    /// Job `job`'s next request, from a source of independent jobs. Nothing is read ahead here:
    /// which job asks next depends on which request completes first, so `peek_lpn` has nothing
    /// to offer and the simulator goes without the prefetch hint in this mode.
    pub fn next_request_of(&mut self, job: u32) -> Result<Option<HostRequest>> {
        debug_assert!(!self.started, "the shared stream and per-job requests do not mix");
        loop {
            let Some(r) = self.source.next_record_of(job)? else { return Ok(None) };
            if let Some(req) = self.page_request(r) {
                return Ok(Some(HostRequest { job, ..req }));
            }
        }
    }

    /// The first LPN of the request `k` places after the one last returned (0 = the next one;
    /// modulo folding only), so its mapping entries can be brought into cache while the current
    /// request is served.
    pub fn peek_lpn(&self, k: usize) -> Option<Lpn> {
        match (self.fold, self.ahead.get(k)) {
            (Fold::Modulo, Some(r)) => Some(Lpn((r.first_page % self.used_pages) as u32)),
            _ => None,
        }
    }

    fn read_request(&mut self) -> Result<Option<HostRequest>> {
        loop {
            let Some(r) = self.source.next_record()? else { return Ok(None) };
            if let Some(req) = self.page_request(r) {
                return Ok(Some(req));
            }
        }
    }

    /// The record in page terms, or None for a request of size 0 (counted and dropped).
    #[inline]
    fn page_request(&mut self, r: TraceRecord) -> Option<HostRequest> {
        if r.size_bytes == 0 {
            self.stats.zero_size_skipped += 1;
            return None;
        }
        let t0 = *self.first_time_ns.get_or_insert(r.time_ns);
        let rel = if self.rebase { r.time_ns.saturating_sub(t0) } else { r.time_ns };
        let arrival_ns = if self.speedup == 1.0 { rel } else { (rel as f64 / self.speedup) as u64 };
        let first_page = r.offset_bytes / self.page_bytes;
        let end = r.offset_bytes.saturating_add(r.size_bytes);
        let last_page = (end - 1) / self.page_bytes;
        let pages = (last_page - first_page + 1).min(u32::MAX as u64) as u32;
        if last_page >= self.used_pages && self.fold == Fold::Modulo {
            self.stats.folded_requests += 1;
        }
        self.stats.address_span_bytes = self.stats.address_span_bytes.max(end);
        Some(HostRequest {
            arrival_ns,
            op: r.op,
            offset_bytes: r.offset_bytes,
            size_bytes: r.size_bytes,
            first_page,
            pages,
            partial_head: !r.offset_bytes.is_multiple_of(self.page_bytes)
                || (pages == 1 && !end.is_multiple_of(self.page_bytes)),
            partial_tail: !end.is_multiple_of(self.page_bytes),
            job: 0,
        })
    }

    /// The request's pages as LPNs in the used logical space (into a reused buffer).
    pub fn lpns(&mut self, req: &HostRequest, out: &mut Vec<Lpn>) {
        out.clear();
        let mut wrapped = false;
        for i in 0..req.pages as u64 {
            let page = req.first_page + i;
            let lpn = match self.fold {
                Fold::Modulo => page % self.used_pages,
                Fold::Compact => {
                    let slot = self.compact.slot(page) as u64;
                    wrapped |= slot >= self.used_pages;
                    slot % self.used_pages
                }
            };
            out.push(Lpn(lpn as u32));
        }
        if self.fold == Fold::Compact {
            self.stats.compact_footprint_pages = self.compact.len as u64;
            self.stats.folded_requests += wrapped as u64;
            if self.stats.footprint_pages.is_some() {
                self.stats.footprint_pages = Some(self.compact.len as u64);
            }
        } else if let Some(set) = &mut self.footprint {
            set.insert_run(req.first_page, req.pages as u64);
            self.stats.footprint_pages = Some(set.len());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Fixed(std::vec::IntoIter<TraceRecord>);
    impl RecordSource for Fixed {
        fn next_record(&mut self) -> Result<Option<TraceRecord>> {
            Ok(self.0.next())
        }
    }

    fn rec(time_ns: u64, offset_bytes: u64, size_bytes: u64) -> TraceRecord {
        TraceRecord { time_ns, op: IoOp::Write, offset_bytes, size_bytes, device: 0 }
    }

    #[test]
    fn splits_folds_and_rebases() {
        let recs = vec![rec(1_000, 0, 8192), rec(5_000, 4096 * 10 + 512, 4096), rec(9_000, 7, 0)];
        let mut h = Host::new(Box::new(Fixed(recs.into_iter())), 4096, 8, Fold::Modulo, 2.0, true);
        let mut buf = Vec::new();
        let a = h.next_request().unwrap().unwrap();
        assert_eq!((a.arrival_ns, a.pages, a.partial_head, a.partial_tail), (0, 2, false, false));
        let b = h.next_request().unwrap().unwrap();
        assert_eq!((b.arrival_ns, b.first_page, b.pages, b.partial_head, b.partial_tail), (2_000, 10, 2, true, true));
        h.lpns(&b, &mut buf);
        assert_eq!(buf, vec![Lpn(2), Lpn(3)], "pages 10 and 11 fold modulo 8");
        assert!(h.next_request().unwrap().is_none());
        assert_eq!(h.stats.zero_size_skipped, 1);
        assert_eq!(h.stats.folded_requests, 1);
    }

    #[test]
    fn compact_slots_count_first_uses_in_order_on_both_sides_of_the_dense_table() {
        let mut slots = CompactSlots::default();
        let high = DENSE_PAGES + 5;
        let pages = [7, high, 0, 7, DENSE_PAGES - 1, high, 3, u64::MAX];
        let got: Vec<u32> = pages.iter().map(|&p| slots.slot(p)).collect();
        assert_eq!(got, vec![0, 1, 2, 0, 3, 1, 4, 5]);
        assert_eq!(slots.len, 6);
        assert_eq!(slots.dense.len() as u64, DENSE_PAGES, "grown to hold its last page, no further");
    }

    #[test]
    fn compact_folding_packs_first_use_order() {
        let recs = vec![rec(0, 4096 * 1000, 4096), rec(1, 4096 * 7, 8192), rec(2, 4096 * 1000, 4096)];
        let mut h = Host::new(Box::new(Fixed(recs.into_iter())), 4096, 100, Fold::Compact, 1.0, true);
        let mut buf = Vec::new();
        let mut all = Vec::new();
        while let Some(r) = h.next_request().unwrap() {
            h.lpns(&r, &mut buf);
            all.extend(buf.iter().map(|l| l.0));
        }
        assert_eq!(all, vec![0, 1, 2, 0]);
    }
}
