//! Layer: workload (trace statistics). The figures of a trace as plain serialisable data: what
//! `ssdlab trace stats --json` prints and what a workload-spec fit compares. Definitions are in
//! the header of `stats/mod.rs`; page figures are in pages of [`TraceStats::page_bytes`].

use serde::Serialize;

use super::super::info::TraceInfo;

/// Summary statistics of a trace.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TraceStats {
    pub requests: u64,
    pub reads: u64,
    pub writes: u64,
    pub trims: u64,
    /// reads / requests (0 for an empty trace).
    pub read_ratio: f64,
    pub bytes_read: u64,
    pub bytes_written: u64,
    pub bytes_trimmed: u64,
    /// Mean size over all requests, in bytes.
    pub mean_request_bytes: f64,
    pub mean_read_bytes: f64,
    pub mean_write_bytes: f64,
    /// Page size used for the footprints.
    pub page_bytes: u64,
    /// Distinct pages read or written.
    pub footprint_pages: u64,
    pub footprint_bytes: u64,
    pub read_footprint_pages: u64,
    pub write_footprint_pages: u64,
    /// Highest byte address touched plus one.
    pub max_address_bytes: u64,
    /// `max_address_bytes` rounded up to a whole page: the logical space a replay needs (trims
    /// included), which a generator fitted to the trace should span.
    pub address_space_bytes: u64,
    /// Request sizes in power-of-two buckets `[min_bytes, 2 * min_bytes)`, empty buckets left out.
    pub size_histogram: Vec<SizeBucket>,
    pub first_time_ns: u64,
    pub last_time_ns: u64,
    /// Latest minus earliest request time.
    pub time_span_ns: u64,
    pub inter_arrival: InterArrival,
    /// Gaps longer than this are idle time.
    pub idle_threshold_ns: u64,
    /// Share of the time span spent in gaps longer than `idle_threshold_ns` (0 when the span is 0).
    pub idle_share: f64,
    pub hot_read: HotReadSet,
    /// How concentrated each op's page accesses are on its hottest pages.
    pub popularity: PerOp<Popularity>,
    /// Reads of pages the trace itself wrote earlier.
    pub reread: Reread,
    /// Requests continuing a sequential run of their op.
    pub sequential: Sequential,
    /// Request sizes of each op, by count and by bytes.
    pub sizes: PerOp<SizeHistogram>,
    /// Malformed lines the reader skipped.
    pub skipped_lines: u64,
    /// Requests whose time the reader clamped.
    pub clamped_records: u64,
    /// What the reader did: format, blkparse events, how the devices were laid out.
    pub trace: Option<TraceInfo>,
}

/// One figure for reads and one for writes.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PerOp<T> {
    pub read: T,
    pub write: T,
}

/// One bucket of the all-ops request-size histogram.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SizeBucket {
    pub min_bytes: u64,
    pub requests: u64,
}

/// Gaps between consecutive requests in delivery order (a negative gap counts as 0).
/// Percentiles come from a log-bucketed histogram and are within 1 % of the exact value; the
/// mean and the maximum are exact. All 0 with fewer than two requests.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct InterArrival {
    pub mean_ns: f64,
    pub p10_ns: u64,
    pub p25_ns: u64,
    pub p50_ns: u64,
    pub p75_ns: u64,
    pub p90_ns: u64,
    pub p99_ns: u64,
    pub p99_9_ns: u64,
    pub max_ns: u64,
}

/// The hot read set: the fewest read pages that receive
/// [`HOT_ACCESS_SHARE`](super::HOT_ACCESS_SHARE) of read accesses (the 0.8 point of
/// `popularity.read`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HotReadSet {
    pub access_share: f64,
    pub pages: u64,
    pub bytes: u64,
    pub share_of_read_footprint: f64,
    pub share_of_footprint: f64,
}

/// The popularity curve of one op: how few of its pages take a given share of its accesses.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Popularity {
    /// Distinct pages this op touched (its own footprint).
    pub footprint_pages: u64,
    /// Page accesses: each page a request of this op touches counts once per request.
    pub accesses: u64,
    /// One point per share of [`POPULARITY_ACCESS_SHARES`](super::POPULARITY_ACCESS_SHARES).
    pub curve: Vec<CurvePoint>,
}

/// A point of a popularity curve.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CurvePoint {
    /// The share of the op's page accesses to cover.
    pub access_share: f64,
    /// `pages` / the op's footprint (0 when the op touched nothing).
    pub footprint_share: f64,
    /// The fewest pages, hottest first, whose accesses add up to at least `access_share` of
    /// the op's page accesses.
    pub pages: u64,
}

/// Reads of pages the trace wrote earlier (and did not trim since).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Reread {
    /// Read page-accesses of such pages / all read page-accesses (0 without reads).
    pub share: f64,
    /// Read page-accesses of such pages.
    pub page_accesses: u64,
    /// Per such page access: the requests of any op strictly between the read and the page's
    /// latest write (0 when the read comes right after the write).
    pub distance_requests: Quantiles,
}

/// Quantiles of a distribution, within 1 % (a log-bucketed histogram); the maximum is exact.
/// All 0 when empty.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Quantiles {
    pub p10: u64,
    pub p25: u64,
    pub p50: u64,
    pub p75: u64,
    pub p90: u64,
    pub p99: u64,
    pub max: u64,
}

/// Shares of requests that continue a sequential run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Sequential {
    /// Reads that start where the previous read ended / reads (0 without reads).
    pub read_share: f64,
    /// Writes that start where the previous write ended / writes (0 without writes).
    pub write_share: f64,
}

/// Request sizes of one op in power-of-two buckets, by count and by bytes.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SizeHistogram {
    pub requests: u64,
    pub bytes: u64,
    /// bytes / requests (0 without requests).
    pub mean_bytes: f64,
    /// Buckets `[min_bytes, 2 * min_bytes)` in ascending size, empty buckets left out.
    pub buckets: Vec<SizeShareBucket>,
}

/// One bucket of a per-op size histogram.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SizeShareBucket {
    pub min_bytes: u64,
    pub requests: u64,
    /// Sum of the sizes of the bucket's requests.
    pub bytes: u64,
    /// requests / the op's requests.
    pub request_share: f64,
    /// bytes / the op's bytes (0 when the op moved no bytes).
    pub byte_share: f64,
}
