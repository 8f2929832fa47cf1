//! Helpers shared by the integration tests.

use ssdlab_core::config::{load, Layer};
use ssdlab_core::units::Lpn;
use ssdlab_core::workload::request::RecordSource;
use ssdlab_core::workload::{IoOp, TraceRecord};
use ssdlab_core::{Report, Simulation, ValidatedConfig};

/// Preset + inline TOML + overrides -> validated config.
pub fn config(preset: &str, toml: &str, overrides: &[&str]) -> ValidatedConfig {
    let overrides: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
    let cfg = load(Some(preset), &[Layer::inline(toml)], &overrides).expect("config loads");
    ValidatedConfig::new(cfg).expect("config validates")
}

pub fn run(cfg: ValidatedConfig) -> Report {
    Simulation::new(cfg).expect("simulation builds").run().expect("simulation runs")
}

/// A workload given up front, request by request (`Simulation::with_source`): byte ranges the
/// fio-style generator cannot express, such as trims that start and end inside a page.
pub struct Scripted(std::vec::IntoIter<TraceRecord>);

impl Scripted {
    pub fn boxed(records: Vec<TraceRecord>) -> Box<dyn RecordSource + Send> {
        Box::new(Scripted(records.into_iter()))
    }
}

impl RecordSource for Scripted {
    fn next_record(&mut self) -> ssdlab_core::Result<Option<TraceRecord>> {
        Ok(self.0.next())
    }
}

/// What every logical page should hold after a sequence of requests, worked out from their
/// byte ranges alone (never from the FTL): a write gives each page it touches, whole or in
/// part, its next version; a trim forgets only the pages it covers whole; a read changes
/// nothing. Versions count as verify mode does: 1 for the first write since the page was empty.
pub struct PageModel {
    page_bytes: u64,
    version: Vec<Option<u32>>,
}

impl PageModel {
    /// `pages` logical pages (the used space), all empty, or all written once (`filled`, as
    /// `warmup.fill` leaves them).
    pub fn new(pages: u32, page_bytes: u64, filled: bool) -> PageModel {
        PageModel { page_bytes, version: vec![filled.then_some(1); pages as usize] }
    }

    /// Apply one request. Addresses beyond the space fold modulo its size, as the host does.
    pub fn apply(&mut self, r: &TraceRecord) {
        if r.size_bytes == 0 {
            return;
        }
        let end = r.offset_bytes + r.size_bytes;
        let pages = self.version.len() as u64;
        for page in r.offset_bytes / self.page_bytes..=(end - 1) / self.page_bytes {
            let slot = &mut self.version[(page % pages) as usize];
            let (start, stop) = (page * self.page_bytes, (page + 1) * self.page_bytes);
            match r.op {
                IoOp::Write => *slot = Some(slot.map_or(1, |v| v + 1)),
                IoOp::Trim if r.offset_bytes <= start && end >= stop => *slot = None,
                IoOp::Trim | IoOp::Read => {}
            }
        }
    }

    pub fn version(&self, lpn: u32) -> Option<u32> {
        self.version[lpn as usize]
    }

    /// Every page the FTL still maps must be mapped in the model and the other way round, and
    /// verify mode's version of each (which its final scan holds against the version stored in
    /// the page's out-of-band area) must be the model's. The first difference, if any.
    pub fn mismatch(&self, sim: &Simulation) -> Option<String> {
        let ftl = sim.ftl();
        let verifier = ftl.verifier().expect("the model is checked in verify mode");
        (0..self.version.len() as u32).find_map(|lpn| {
            let expected = self.version(lpn);
            let mapped = ftl.mapping().peek(Lpn(lpn)).is_some();
            let version = verifier.version(Lpn(lpn));
            (mapped != expected.is_some() || version != expected)
                .then(|| format!("LPN {lpn}: model {expected:?}, FTL mapped {mapped} with verify version {version:?}"))
        })
    }
}

/// A path in the temp directory unique to this test process.
pub fn temp_path(name: &str) -> std::path::PathBuf {
    std::env::temp_dir().join(format!("ssdlab-it-{}-{name}", std::process::id()))
}

/// Every row of a per-request log written by `report.request_log`, in request order.
pub fn read_request_log(path: &std::path::Path) -> Vec<ssdlab_core::stats::RequestRecord> {
    use parquet::file::reader::{FileReader, SerializedFileReader};
    use parquet::record::RowAccessor;
    use ssdlab_core::workload::IoOp;
    let reader = SerializedFileReader::new(std::fs::File::open(path).expect("request log exists")).expect("parquet");
    reader
        .get_row_iter(None)
        .expect("rows")
        .map(|row| {
            let row = row.expect("row");
            let op = match row.get_string(2).expect("op").as_str() {
                "read" => IoOp::Read,
                "write" => IoOp::Write,
                _ => IoOp::Trim,
            };
            ssdlab_core::stats::RequestRecord {
                arrival_ns: row.get_ulong(0).expect("arrival"),
                latency_ns: row.get_ulong(1).expect("latency"),
                op,
                offset_bytes: row.get_ulong(3).expect("offset"),
                size_bytes: row.get_ulong(4).expect("size"),
            }
        })
        .collect()
}
