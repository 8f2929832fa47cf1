//! Helpers shared by the integration tests.

use ssdlab_core::config::Layer;
use ssdlab_core::units::Lpn;
use ssdlab_core::workload::request::RecordSource;
use ssdlab_core::workload::{IoOp, TraceRecord};
use ssdlab_core::{Report, Simulation, ValidatedConfig};

/// Preset + inline TOML + overrides -> validated config.
pub fn config(preset: &str, toml: &str, overrides: &[&str]) -> ValidatedConfig {
    let overrides: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
    ssdlab_core::load_config(Some(preset), &[Layer::inline(toml)], &overrides).expect("config loads and validates")
}

/// Why preset + inline TOML + overrides cannot run: the load's problems, or the build's.
pub fn refusal(preset: &str, toml: &str, overrides: &[&str]) -> String {
    let overrides: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
    match ssdlab_core::load_config(Some(preset), &[Layer::inline(toml)], &overrides).and_then(Simulation::new) {
        Ok(_) => panic!("accepted: {toml} {overrides:?}"),
        Err(e) => e.to_string(),
    }
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

/// A real trace from the shared directory (`../shared/traces` beside the checkout), or None
/// (skipped loudly) when it is absent and `SSDLAB_SKIP_SHARED_TRACES=1`; absent otherwise, the
/// test fails: a matrix that silently dropped its real traces would pass without checking them.
pub fn shared_trace(rel: &str) -> Option<std::path::PathBuf> {
    use std::io::Write;
    let p = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/traces").join(rel);
    if p.is_file() {
        return Some(p);
    }
    let test = std::thread::current().name().unwrap_or("a test").to_string();
    if std::env::var_os("SSDLAB_SKIP_SHARED_TRACES").is_some_and(|value| value == "1") {
        let _ =
            writeln!(std::io::stderr(), "SKIPPED {test}: {} is absent and SSDLAB_SKIP_SHARED_TRACES=1", p.display());
        return None;
    }
    panic!(
        "{} is absent: the shared real traces belong in ../shared/traces beside the checkout. Building away \
         from them? Set SSDLAB_SKIP_SHARED_TRACES=1 to skip the tests that need them.",
        p.display()
    );
}

/// A request of `pages` whole pages from page `first`, arriving at `time_ns`.
pub fn page_request(time_ns: u64, op: IoOp, first: u64, pages: u64, page_bytes: u64) -> TraceRecord {
    TraceRecord { time_ns, op, offset_bytes: first * page_bytes, size_bytes: pages * page_bytes, device: 0 }
}

/// The CWDP plane of `lpn` as `(channel, chip, die, plane)`, written out from the formula in
/// `placement/static_cwdp.rs`'s documentation (not by calling it): consecutive LPNs stripe
/// over channels, then chips, dies and planes.
pub fn cwdp_address(g: &ssdlab_core::nand::Geometry, lpn: u32) -> (u32, u32, u32, u32) {
    let (c, w, d, p) = (g.channels, g.chips_per_channel, g.dies_per_chip, g.planes_per_die);
    (lpn % c, (lpn / c) % w, (lpn / (c * w)) % d, (lpn / (c * w * d)) % p)
}

/// A scripted open-loop run observed request by request: each request's latency (from the
/// per-request log) and the flash operations it caused (device counters by source, the
/// difference across its arrival).
pub struct Timeline {
    pub sim: Simulation,
    pub report: Report,
    pub latencies: Vec<u64>,
    /// Device counters by source after warm-up, then after each request completed.
    snapshots: Vec<[ssdlab_core::device::SourceCounters; 5]>,
}

impl Timeline {
    /// What request `i` (0-based) made the flash do for `source`.
    pub fn ops(&self, i: usize, source: ssdlab_core::device::Source) -> ssdlab_core::device::SourceCounters {
        let (a, b) = (&self.snapshots[i][source as usize], &self.snapshots[i + 1][source as usize]);
        ssdlab_core::device::SourceCounters {
            reads: b.reads - a.reads,
            programs: b.programs - a.programs,
            wordline_programs: b.wordline_programs - a.wordline_programs,
            erases: b.erases - a.erases,
            busy_ns: b.busy_ns - a.busy_ns,
            wait_ns: b.wait_ns - a.wait_ns,
            suspensions: b.suspensions - a.suspensions,
            queued: b.queued - a.queued,
        }
    }

    /// Request `i`'s flash operations of every source other than `sources` (all zero if it
    /// caused none).
    pub fn ops_except(&self, i: usize, sources: &[ssdlab_core::device::Source]) -> u64 {
        ssdlab_core::device::Source::ALL
            .iter()
            .filter(|s| !sources.contains(s))
            .map(|&s| {
                let o = self.ops(i, s);
                o.reads + o.programs + o.erases
            })
            .sum()
    }
}

/// Run `records` open loop (each arrives at its own `time_ns`) on the config of `layers`
/// (TOML documents merged over the `tiny` preset in order), one request at a time: every
/// request must complete before the next one arrives, so each one's flash operations are told
/// apart (the test fails if two overlap).
pub fn run_timeline(layers: &[&str], records: Vec<TraceRecord>) -> Timeline {
    let log =
        temp_path(&format!("timeline-{}.parquet", TIMELINE_RUNS.fetch_add(1, std::sync::atomic::Ordering::Relaxed)));
    let open_loop =
        format!("[workload]\narrival = \"poisson\"\n[report]\nrequest_log = {:?}\n", log.display().to_string());
    // No idle events (they would add events between requests) unless a layer sets `[idle]`.
    let mut all = vec![Layer::inline("[idle]\ngap_ns = 1_000_000_000_000_000\n")];
    all.extend(layers.iter().map(|&l| Layer::inline(l)));
    all.push(Layer::inline(open_loop));
    let cfg = ssdlab_core::load_config(Some("tiny"), &all, &[]).expect("timeline config loads");
    let arrivals: Vec<u64> = records.iter().map(|r| r.time_ns).collect();
    let mut sim = Simulation::with_source(cfg, Scripted::boxed(records)).expect("simulation builds");
    let by_source = |sim: &Simulation| sim.device().counters().by_source.0;
    // The first step warms up (nothing to do without `[warmup]`) and takes one event.
    let mut snapshots = vec![[ssdlab_core::device::SourceCounters::default(); 5]];
    for (i, arrival) in arrivals.iter().enumerate() {
        // Two events per request: its arrival, then its completion.
        assert!(!sim.step(2).expect("request served"), "the run ended before request {i}");
        assert_eq!(
            sim.progress().0,
            i as u64 + 1,
            "request {i} (arrival {arrival} ns) had not completed when the next one arrived"
        );
        snapshots.push(by_source(&sim));
    }
    assert!(sim.step(1).expect("the run finishes"), "requests left after the script");
    let report = sim.report();
    let rows = read_request_log(&log);
    std::fs::remove_file(&log).ok();
    assert_eq!(rows.iter().map(|r| r.arrival_ns).collect::<Vec<_>>(), arrivals, "log rows in request order");
    Timeline { sim, report, latencies: rows.iter().map(|r| r.latency_ns).collect(), snapshots }
}

/// Run `records` open loop to the end on the config of `layers` (TOML documents merged over
/// the `tiny` preset in order), with whatever happens between requests (idle time included):
/// the report and each request's latency, in request order.
pub fn run_script(layers: &[&str], records: Vec<TraceRecord>) -> (Report, Vec<u64>) {
    let log =
        temp_path(&format!("script-{}.parquet", TIMELINE_RUNS.fetch_add(1, std::sync::atomic::Ordering::Relaxed)));
    let open_loop =
        format!("[workload]\narrival = \"poisson\"\n[report]\nrequest_log = {:?}\n", log.display().to_string());
    let mut all: Vec<Layer> = layers.iter().map(|&l| Layer::inline(l)).collect();
    all.push(Layer::inline(open_loop));
    let cfg = ssdlab_core::load_config(Some("tiny"), &all, &[]).expect("script config loads");
    let report = Simulation::with_source(cfg, Scripted::boxed(records))
        .expect("simulation builds")
        .run()
        .expect("simulation runs");
    let rows = read_request_log(&log);
    std::fs::remove_file(&log).ok();
    (report, rows.iter().map(|r| r.latency_ns).collect())
}

static TIMELINE_RUNS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
