//! Layer: workload. `ssdlab trace fit`: a workload spec from a real trace, so a short excerpt
//! (or a trace that cannot be shared) can be replayed at any length or address space while
//! keeping its read ratio, sizes, popularity, re-reads, sequential runs and arrivals.
//!
//! One pass over the trace feeds the statistics builder (`trace stats`' figures) and an exact
//! histogram of request sizes; the spec is then read off those figures:
//! - sizes: every distinct size as a bin when there are at most `MAX_POINT_BINS`, else the
//!   power-of-two buckets as range bins with each bucket's mean;
//! - footprints from the read and write footprints, placed in the shared ranking so that they
//!   overlap as much as the trace's did (writes from rank 0, reads from where the overlap starts);
//! - popularity: each op's curve (share of its footprint for 10 % .. 99 % of its accesses),
//!   made concave where page granularity bent it;
//! - re-reads: the spec draws some re-reads from popularity already (hot data is read and
//!   written), so the explicit share is calibrated: a sample of the spec without explicit
//!   re-reads is generated, its share e measured, and the explicit share set to
//!   (measured - e) / (1 - e); distances from the trace's quantiles, requests turned into writes;
//! - alignment: the share of requests that start off a page boundary;
//! - arrivals: the inter-arrival quantiles as an empirical distribution (closed loop when the
//!   trace has no times).
//!
//! A figure the trace is too short to fit (fewer than `MIN_SAMPLES` of what it needs) keeps its
//! default and is named in the warnings; the other figures are fitted.

use std::collections::BTreeMap;

use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;

use super::compare::{compare, Comparison, DEFAULT_TOLERANCE, MAX_COMPARED_REQUESTS};
use super::generator::MAX_REMEMBERED_WRITES;
use super::{
    ArrivalKind, ArrivalSpec, Length, OpSpec, Popularity, PopularityKind, Reread, SizeBin, SizeHistogram, WeightBy,
    WorkloadSpec, SPEC_VERSION,
};
use crate::error::{Error, Result};
use crate::units::ByteSize;
use crate::workload::trace::reader::TraceReader;
use crate::workload::trace::stats::{StatsBuilder, TraceStats, DEFAULT_IDLE_THRESHOLD_NS};
use crate::workload::{IoOp, TraceRecord};

/// Distinct sizes of one op kept as bins of their own; more are grouped by powers of two.
pub const MAX_POINT_BINS: usize = 48;

/// Samples a figure needs before it is fitted (requests, page accesses or gaps).
pub const MIN_SAMPLES: u64 = 50;

/// The largest page (`align_bytes`) a spec takes.
const MAX_ALIGN_BYTES: u64 = 1 << 20;

/// Requests of the calibration sample (the trace's length when shorter).
const CALIBRATION_REQUESTS: u64 = 200_000;

/// How to scale the fitted workload, and how closely its figures must follow the trace's.
#[derive(Debug, Clone, Default)]
pub struct FitOptions {
    /// Requests of the spec (default: the trace's).
    pub requests: Option<u64>,
    /// Address space of the spec (default: the trace's, rounded up to a page); footprints and
    /// their offsets scale with it.
    pub address_space_bytes: Option<u64>,
    /// Name written in the spec (default: the trace file's name).
    pub name: Option<String>,
    /// The relative tolerance of the comparison (default `compare::DEFAULT_TOLERANCE`).
    pub tolerance: Option<f64>,
}

/// A fitted spec, the trace's figures it came from, what could not be fitted, and the key
/// figures of the spec drawn beside the trace's.
pub struct Fit {
    pub spec: WorkloadSpec,
    pub stats: TraceStats,
    pub warnings: Vec<String>,
    pub comparison: Comparison,
}

/// Fit a spec to everything `reader` delivers, in pages of `page_bytes` (also the spec's
/// `align_bytes`: sizes and offsets are rounded to pages). `source` names the trace.
pub fn fit(reader: &mut dyn TraceReader, page_bytes: u64, source: &str, options: &FitOptions) -> Result<Fit> {
    let tolerance = options.tolerance.unwrap_or(DEFAULT_TOLERANCE);
    if !(tolerance > 0.0 && tolerance.is_finite()) {
        return Err(Error::config("tolerance", format!("{tolerance} must be a positive share (0.2 = 20 %)")));
    }
    let mut builder = StatsBuilder::new(page_bytes, DEFAULT_IDLE_THRESHOLD_NS)?;
    let mut sizes = [BTreeMap::<u64, u64>::new(), BTreeMap::new()];
    let (mut unaligned, mut requests) = (0u64, 0u64);
    // The figures of the trace's first `MAX_COMPARED_REQUESTS` requests, when it has more: the
    // spec is compared at that length.
    let mut head: Option<TraceStats> = None;
    while let Some(record) = reader.next_record()? {
        if requests == MAX_COMPARED_REQUESTS && record.op != IoOp::Trim && head.is_none() {
            head = Some(builder.clone().finish(reader.skipped_lines(), reader.clamped_records(), reader.info()));
        }
        builder.push(&record);
        if record.op != IoOp::Trim {
            requests += 1;
            unaligned += (record.offset_bytes % page_bytes != 0) as u64;
        }
        if let Some(i) = op_index(record.op) {
            *sizes[i].entry(record.size_bytes.max(1)).or_default() += 1;
        }
    }
    let distances = builder.reread_distance_quantiles(DISTANCE_LEVELS);
    let stats = builder.finish(reader.skipped_lines(), reader.clamped_records(), reader.info());
    let unaligned_share = if requests == 0 || page_bytes < 1024 { 0.0 } else { unaligned as f64 / requests as f64 };
    let (spec, warnings, scale) = fit_stats(&stats, &distances, &sizes, page_bytes, source, options, unaligned_share)?;
    let comparison = compare(&spec, head.as_ref().unwrap_or(&stats), scale, tolerance)?;
    Ok(Fit { spec, stats, warnings, comparison })
}

/// The cumulative probabilities at which the trace's re-read distances are read off (more than
/// `trace stats` prints: the generator interpolates between them, so a tail that jumps between
/// p90 and p99 keeps its shape). 0 is the smallest distance, 1 the largest.
const DISTANCE_LEVELS: [f64; 18] =
    [0.0, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.925, 0.95, 0.975, 0.99, 0.995, 1.0];

fn op_index(op: IoOp) -> Option<usize> {
    match op {
        IoOp::Read => Some(0),
        IoOp::Write => Some(1),
        IoOp::Trim => None,
    }
}

/// The spec from a trace's figures and its exact size counts (bytes -> requests, reads then
/// writes), what could not be fitted, and the spec's address space over the trace's.
fn fit_stats(
    stats: &TraceStats,
    distances: &[u64; DISTANCE_LEVELS.len()],
    sizes: &[BTreeMap<u64, u64>; 2],
    page_bytes: u64,
    source: &str,
    options: &FitOptions,
    unaligned_share: f64,
) -> Result<(WorkloadSpec, Vec<String>, f64)> {
    let mut warnings = Vec::new();
    let requests = stats.reads + stats.writes;
    if !(512..=MAX_ALIGN_BYTES).contains(&page_bytes) {
        return Err(Error::config("page_bytes", format!("{page_bytes} must be between 512 bytes and 1 MiB")));
    }
    if let Some(s) = options.address_space_bytes.filter(|&s| s == 0 || s > i64::MAX as u64 / 2) {
        return Err(Error::config("address_space", format!("{s} bytes must be above 0 and below 2^62")));
    }
    if requests == 0 {
        return Err(Error::config("trace", format!("{source}: no reads or writes to fit a workload to")));
    }
    if stats.trims > 0 {
        warnings.push(format!("trims: {} trims in the trace are not modelled (specs have none)", stats.trims));
    }
    let trace_space = stats.max_address_bytes.div_ceil(page_bytes).max(1) * page_bytes;
    let space = options.address_space_bytes.map_or(trace_space, |s| s.div_ceil(page_bytes).max(1) * page_bytes);
    let scale = space as f64 / trace_space as f64;
    let pages = |p: u64| ByteSize(((p as f64 * scale).round() as u64).max(1) * page_bytes);

    // Footprints: writes from rank 0, reads overlapping them as much as in the trace.
    let (fr, fw, f) = (stats.read_footprint_pages, stats.write_footprint_pages, stats.footprint_pages);
    let overlap = (fr + fw).saturating_sub(f);
    let mut read = op_spec(stats, 0, &sizes[0], page_bytes, &mut warnings);
    let mut write = op_spec(stats, 1, &sizes[1], page_bytes, &mut warnings);
    if fw > 0 {
        write.footprint = Some(pages(fw));
    }
    if fr > 0 {
        read.footprint = Some(pages(fr));
        let offset = ((fw.saturating_sub(overlap)) as f64 * scale).round() as u64 * page_bytes;
        // Rounding must not push the read footprint past the space.
        read.footprint_offset = ByteSize(offset.min(space.saturating_sub(read.footprint.map_or(0, |b| b.0))));
    }

    let read_ratio = stats.reads as f64 / requests as f64;
    let mut spec = WorkloadSpec {
        version: SPEC_VERSION,
        name: options.name.clone().unwrap_or_else(|| source.to_string()),
        source: format!("ssdlab trace fit of {source} ({requests} requests, pages of {page_bytes} bytes)"),
        align_bytes: ByteSize(page_bytes),
        address_space: ByteSize(space),
        unaligned_share,
        read_ratio,
        length: Length { requests: Some(options.requests.unwrap_or(requests)), write_bytes: None },
        read,
        write,
        reread: Reread::default(),
        arrival: arrival(stats, requests, &mut warnings),
    };
    // What the options asked for may not hold the trace (an address space smaller than its
    // requests): the spec's own problems say what, as for a spec file, before it is drawn.
    let problems = spec.problems();
    if !problems.is_empty() {
        return Err(Error::Config { path: None, problems });
    }
    calibrate_rereads(&mut spec, stats, distances, &mut warnings)?;
    Ok((spec, warnings, scale))
}

/// One op's sizes, popularity and sequential share.
fn op_spec(
    stats: &TraceStats,
    op: usize,
    sizes: &BTreeMap<u64, u64>,
    page_bytes: u64,
    warnings: &mut Vec<String>,
) -> OpSpec {
    let (name, count, pop, seq) = if op == 0 {
        ("read", stats.reads, &stats.popularity.read, stats.sequential.read_share)
    } else {
        ("write", stats.writes, &stats.popularity.write, stats.sequential.write_share)
    };
    let mut spec = OpSpec::default();
    if count == 0 {
        return spec;
    }
    spec.sizes = size_histogram(sizes, page_bytes);
    if sizes.len() > MAX_POINT_BINS {
        warnings.push(format!(
            "{name} sizes: {} distinct sizes grouped into power-of-two page buckets (sizes rounded up to pages)",
            sizes.len()
        ));
    }
    spec.sequential = seq.clamp(0.0, 1.0);
    if pop.accesses < MIN_SAMPLES {
        warnings.push(format!(
            "{name} popularity: {} page accesses are too few to fit a curve (at least {MIN_SAMPLES}); uniform kept",
            pop.accesses
        ));
    } else {
        let points: Vec<(f64, f64)> =
            pop.curve.iter().filter(|p| p.access_share < 1.0).map(|p| (p.footprint_share, p.access_share)).collect();
        spec.popularity = Popularity { kind: PopularityKind::Curve, theta: 1.2, curve: concave(&points) };
        if spec.popularity.curve.is_empty() {
            spec.popularity.kind = PopularityKind::Uniform;
        }
    }
    if count < MIN_SAMPLES {
        warnings.push(format!(
            "{name} sizes and sequential share: fitted from only {count} requests (fewer than {MIN_SAMPLES})"
        ));
    }
    spec
}

/// Exact sizes (bytes) as point bins, or power-of-two page buckets as range bins each with its
/// bucket's mean (sizes rounded up to pages).
fn size_histogram(sizes: &BTreeMap<u64, u64>, page_bytes: u64) -> SizeHistogram {
    let point = |bytes: u64, weight: f64| SizeBin { size: Some(ByteSize(bytes)), min: None, max: None, weight };
    if sizes.len() <= MAX_POINT_BINS {
        let bins = sizes.iter().map(|(&b, &n)| point(b, n as f64)).collect();
        return SizeHistogram { weights: WeightBy::Count, bins };
    }
    // Buckets [2^k, 2^(k+1)) pages; a range bin [lo, hi] uniform over pages has mean
    // (lo + hi) / 2, so hi = 2 * mean - lo keeps the bucket's mean (within a page).
    let mut buckets: BTreeMap<u32, (u64, u64, u64)> = BTreeMap::new(); // k -> (requests, pages, max)
    for (&bytes, &n) in sizes {
        let u = bytes.div_ceil(page_bytes).max(1);
        let b = buckets.entry(63 - u.leading_zeros()).or_default();
        b.0 += n;
        b.1 += u * n;
        b.2 = b.2.max(u);
    }
    let bins = buckets
        .into_iter()
        .map(|(k, (n, units, largest))| {
            let lo = 1u64 << k;
            let mean = units as f64 / n as f64;
            let hi = ((2.0 * mean - lo as f64).round() as u64).clamp(lo, largest);
            if hi == lo {
                point(lo * page_bytes, n as f64)
            } else {
                SizeBin {
                    size: None,
                    min: Some(ByteSize(lo * page_bytes)),
                    max: Some(ByteSize(hi * page_bytes)),
                    weight: n as f64,
                }
            }
        })
        .collect();
    SizeHistogram { weights: WeightBy::Count, bins }
}

/// Curve points `(footprint share, access share)` made valid: footprint shares strictly
/// increasing, and concave (each segment's slope at most the one before), by dropping points
/// that page granularity bent upwards. Points with a footprint share of 1 are left to the
/// implied end.
fn concave(points: &[(f64, f64)]) -> Vec<[f64; 2]> {
    let mut hull: Vec<(f64, f64)> = vec![(0.0, 0.0)];
    let mut candidates: Vec<(f64, f64)> =
        points.iter().copied().filter(|&(x, y)| x > 0.0 && x < 1.0 && y > 0.0).collect();
    candidates.push((1.0, 1.0));
    for p in candidates {
        if p.0 <= hull[hull.len() - 1].0 {
            continue;
        }
        // The upper concave hull: drop the last point while it lies under the chord to p.
        while hull.len() >= 2 {
            let (a, b) = (hull[hull.len() - 2], hull[hull.len() - 1]);
            let cross = (b.0 - a.0) * (p.1 - a.1) - (b.1 - a.1) * (p.0 - a.0);
            if cross >= 0.0 {
                hull.pop();
            } else {
                break;
            }
        }
        hull.push(p);
    }
    hull.into_iter().filter(|&(x, _)| x > 0.0 && x < 1.0).map(|(x, y)| [x, y]).collect()
}

/// Inter-arrival gaps as an empirical distribution, or a closed loop when the trace has none.
fn arrival(stats: &TraceStats, requests: u64, warnings: &mut Vec<String>) -> ArrivalSpec {
    let ia = &stats.inter_arrival;
    if requests < MIN_SAMPLES || ia.max_ns == 0 {
        warnings.push(format!(
            "arrivals: {} (closed loop, queue depth 1, kept)",
            if ia.max_ns == 0 { "the trace has no time between requests" } else { "too few requests to fit gaps" }
        ));
        return ArrivalSpec::default();
    }
    // The histogram's quantiles are within 1 %; below p10 the gaps fall linearly to 0.
    let q = [
        (0.0, 0),
        (0.1, ia.p10_ns),
        (0.25, ia.p25_ns),
        (0.5, ia.p50_ns),
        (0.75, ia.p75_ns),
        (0.9, ia.p90_ns),
        (0.99, ia.p99_ns),
        (0.999, ia.p99_9_ns),
        (1.0, ia.max_ns),
    ];
    let points = monotone(q.iter().map(|&(p, v)| (p, v as f64)), 0.0);
    ArrivalSpec { kind: ArrivalKind::Empirical, inter_arrival_ns: points, ..ArrivalSpec::default() }
}

/// Quantile points with values made non-decreasing and at least `floor` (histogram quantiles
/// are each within 1 %, so neighbours can cross).
fn monotone(points: impl Iterator<Item = (f64, f64)>, floor: f64) -> Vec<[f64; 2]> {
    let mut last = floor;
    points
        .map(|(p, v)| {
            last = v.max(last);
            [p, last]
        })
        .collect()
}

/// Set `[reread]` so that the generated workload re-reads as much as the trace did, and as far
/// back. Reads drawn from popularity do not land on data written in the run
/// (`from_popularity = false`), so the explicit re-reads carry the share and the distances:
/// - distances: the trace's, at `DISTANCE_LEVELS`, from requests back into writes back (about
///   one request in (1 - read ratio) is a write);
/// - share: the re-read share of page accesses is about linear in the explicit share, with an
///   intercept (sequential runs that read on into written data) and a slope below 1 (a read
///   wider than the write it goes back to reads pages that write did not write). Both are
///   measured on samples of the spec, and the explicit share solved for; a share the spec
///   cannot reach is named in the warnings.
fn calibrate_rereads(
    spec: &mut WorkloadSpec,
    stats: &TraceStats,
    distances: &[u64; DISTANCE_LEVELS.len()],
    warnings: &mut Vec<String>,
) -> Result<()> {
    let measured = stats.reread.share;
    spec.reread.from_popularity = false;
    if stats.reread.page_accesses < MIN_SAMPLES {
        if stats.reads > 0 && stats.writes > 0 {
            warnings.push(format!(
                "re-reads: {} read page-accesses of written data are too few to fit (at least {MIN_SAMPLES}); none added",
                stats.reread.page_accesses
            ));
        }
        return Ok(());
    }
    let writes_per_request = (1.0 - spec.read_ratio).max(1e-6);
    let mut last = 1.0f64;
    spec.reread.distance_writes = DISTANCE_LEVELS
        .iter()
        .zip(distances)
        .map(|(&p, &requests)| {
            last = ((requests as f64 + 1.0) * writes_per_request).clamp(1.0, MAX_REMEMBERED_WRITES as f64).max(last);
            [p, last]
        })
        .collect();
    let length = spec.length.requests.unwrap_or(0).min(stats.reads + stats.writes).max(1);
    spec.reread.share = 0.0;
    let floor = sample_reread_share(spec, length)?;
    let open = 1.0 - spec.read.sequential;
    let guess = if open <= 0.0 { 0.0 } else { (measured / open).clamp(1e-3, 1.0) };
    spec.reread.share = guess;
    let slope = (sample_reread_share(spec, length)? - floor) / guess.max(1e-9);
    let solved = if slope <= 0.0 { 0.0 } else { (measured - floor) / slope };
    spec.reread.share = solved.clamp(0.0, 1.0);
    if measured > floor + slope.max(0.0) {
        warnings.push(format!(
            "re-reads: the trace re-reads {:.1} % of its read page-accesses, the spec at most about {:.1} %: a \
             re-read goes back to one earlier write, and the pages a read covers beyond that write were not \
             written by it",
            100.0 * measured,
            100.0 * (floor + slope.max(0.0)),
        ));
    } else if measured < floor {
        warnings.push(format!(
            "re-reads: the trace re-reads {:.1} % of its read page-accesses, the spec at least about {:.1} %: \
             sequential read runs continue into written data",
            100.0 * measured,
            100.0 * floor,
        ));
    }
    Ok(())
}

/// Re-read accesses a calibration sample gathers before it stops drawing more runs.
const CALIBRATION_REREADS: u64 = 5_000;

/// The re-read share of runs of `length` requests drawn from `spec` with different seeds, as
/// many as it takes to see `CALIBRATION_REREADS` re-read page-accesses or to draw
/// `CALIBRATION_REQUESTS` requests in all (at least one run): a short trace re-reads too
/// little in one run to measure a share on. The runs go through one statistics builder, each
/// shifted into an address range of its own, so that no re-read spans two runs.
fn sample_reread_share(spec: &WorkloadSpec, length: u64) -> Result<f64> {
    let mut builder = StatsBuilder::new(spec.align_bytes.0, DEFAULT_IDLE_THRESHOLD_NS)?;
    let length = length.min(CALIBRATION_REQUESTS);
    let space = spec.address_space.0;
    let mut run = 0u64;
    while let Some(base) = run.checked_mul(space).filter(|base| base.checked_add(space).is_some()) {
        for mut record in super::SpecSource::new(spec, Some(length), Pcg64Mcg::seed_from_u64(0x5eed + run)) {
            record.offset_bytes += base;
            builder.push(&record);
        }
        run += 1;
        if (run + 1) * length > CALIBRATION_REQUESTS || builder.reread_page_accesses() >= CALIBRATION_REREADS {
            break;
        }
    }
    Ok(builder.finish(0, 0, None).reread.share)
}

/// Records of a spec, for tests and `trace synth`.
pub fn generate(spec: &WorkloadSpec, requests: Option<u64>, seed: u64) -> impl Iterator<Item = TraceRecord> {
    super::SpecSource::new(spec, requests, crate::rng::rng_for(seed, crate::rng::RngStream::Workload))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn concave_keeps_the_upper_hull() {
        let pts = [(0.05, 0.5), (0.1, 0.6), (0.12, 0.8), (0.5, 0.9)];
        // (0.1, 0.6) lies under the chord from (0.05, 0.5) to (0.12, 0.8).
        assert_eq!(concave(&pts), vec![[0.05, 0.5], [0.12, 0.8], [0.5, 0.9]]);
        assert!(concave(&[(1.0, 1.0)]).is_empty());
    }

    #[test]
    fn many_sizes_become_range_bins_that_keep_each_buckets_mean() {
        let sizes: BTreeMap<u64, u64> = (1..=100).map(|u| (u * 4096, 1)).collect();
        let h = size_histogram(&sizes, 4096);
        let bucket_4_7 = &h.bins[2];
        assert_eq!(bucket_4_7.range_bytes(), (4 * 4096, 7 * 4096));
        let total: f64 = h.bins.iter().map(|b| b.weight).sum();
        assert_eq!(total, 100.0);
    }
}
