//! Layer: workload. The samplers a workload spec is drawn with: request sizes from a histogram,
//! ranks from a popularity, values from quantile points. Each is built once from a validated
//! spec and draws in O(log bins) with no allocation.

use rand::Rng;
use rand_distr::{Distribution, Zipf};
use rand_pcg::Pcg64Mcg;

use super::{Popularity, PopularityKind, SizeHistogram, WeightBy};
use crate::workload::scatter::coprime_from;

/// Request sizes in bytes: a point bin is any size; a range bin is uniform over the multiples of
/// `align_bytes` from its min to its max.
pub(crate) struct SizeSampler {
    /// Cumulative count probabilities of the bins (the last is 1).
    cumulative: Vec<f64>,
    /// (smallest, largest) size of each bin, in bytes.
    bins: Vec<(u64, u64)>,
    align: u64,
}

impl SizeSampler {
    pub(crate) fn new(h: &SizeHistogram, align: u64) -> SizeSampler {
        if h.bins.is_empty() {
            return SizeSampler { cumulative: vec![1.0], bins: vec![(align, align)], align };
        }
        let bins: Vec<(u64, u64)> = h.bins.iter().map(|b| b.range_bytes()).collect();
        // A bin's share of requests: its weight, or (weights by bytes) its weight over its mean
        // size, since a bin with a share of bytes b and mean size m holds b / m requests.
        let counts: Vec<f64> = h
            .bins
            .iter()
            .zip(&bins)
            .map(|(b, &(lo, hi))| match h.weights {
                WeightBy::Count => b.weight,
                WeightBy::Bytes => b.weight / ((lo + hi) as f64 / 2.0),
            })
            .collect();
        SizeSampler { cumulative: cumulative(&counts), bins, align }
    }

    /// The largest size, in bytes.
    pub(crate) fn max_bytes(&self) -> u64 {
        self.bins.iter().map(|b| b.1).max().unwrap_or(self.align)
    }

    /// The expected size, in bytes.
    pub(crate) fn mean_bytes(&self) -> f64 {
        let mut prev = 0.0;
        let mut mean = 0.0;
        for (&c, &(lo, hi)) in self.cumulative.iter().zip(&self.bins) {
            mean += (c - prev) * (lo + hi) as f64 / 2.0;
            prev = c;
        }
        mean
    }

    pub(crate) fn sample(&self, rng: &mut Pcg64Mcg) -> u64 {
        let bin = pick(&self.cumulative, rng.gen::<f64>());
        let (lo, hi) = self.bins[bin];
        if lo == hi {
            lo
        } else {
            rng.gen_range(lo / self.align..=hi / self.align) * self.align
        }
    }
}

/// Normalised cumulative sums of non-negative weights (the last is exactly 1).
fn cumulative(weights: &[f64]) -> Vec<f64> {
    let total: f64 = weights.iter().map(|w| w.max(0.0)).sum();
    let mut acc = 0.0;
    let mut out: Vec<f64> = weights
        .iter()
        .map(|w| {
            acc += w.max(0.0) / total;
            acc
        })
        .collect();
    if let Some(last) = out.last_mut() {
        *last = 1.0;
    }
    out
}

/// The first index whose cumulative probability exceeds `u` (u in [0, 1)).
fn pick(cumulative: &[f64], u: f64) -> usize {
    cumulative.partition_point(|&c| c <= u).min(cumulative.len() - 1)
}

/// Segments whose pages get fewer accesses each than this are walked, not sampled: drawing
/// with replacement touches only 1 - e^-a of a segment's pages in a accesses per page (63 % at
/// a = 1), while a short trace touches most of its cold pages once.
const WALK_BELOW_ACCESSES_PER_PAGE: f64 = 2.0;

/// Regions a walked segment is filled in, at most: consecutive draws go to different regions,
/// so a walk does not look like a sequential run.
const MAX_WALK_REGIONS: u64 = 64;

/// How one segment of a popularity curve is drawn.
pub(crate) enum Segment {
    /// Uniform with replacement over `len` ranks from `first`.
    Uniform { first: u64, len: u64 },
    /// Without replacement: the segment is cut into regions of `region_len` ranks, visited in a
    /// scattered round (`stride`), each filled from its start by the requests sent to it, so
    /// ranks are drawn about once before any twice, and requests neither overlap nor leave gaps
    /// (but at a region's end, where a request that does not fit starts the region again).
    /// The last region also takes the ranks `len` leaves over (`last_len`).
    Walk { first: u64, region_len: u64, last_len: u64, fill: Vec<u64>, stride: u64, next: u64 },
}
/// Ranks in `0..n`, rank 0 the hottest.
pub(crate) enum RankSampler {
    Zipf {
        n: u64,
        zipf: Zipf<f64>,
    },
    /// Piecewise uniform (a uniform popularity is one segment): cumulative access shares of the
    /// segments, each segment's ranks, and the walked (segment, region) the last draw came from.
    Segments {
        cumulative: Vec<f64>,
        segments: Vec<Segment>,
        last_walk: Option<(usize, usize)>,
    },
}

impl RankSampler {
    /// `n` ranks, at least 1, drawn about `accesses` times in all by requests of about
    /// `request_ranks` ranks each (to choose walked segments). The popularity must have been
    /// validated.
    pub(crate) fn new(p: &Popularity, n: u64, accesses: f64, request_ranks: u64, rng: &mut Pcg64Mcg) -> RankSampler {
        let n = n.max(1);
        let mut points = vec![(0.0, 0.0)];
        match p.kind {
            PopularityKind::Zipf => {
                if let Ok(zipf) = Zipf::new(n, p.theta) {
                    return RankSampler::Zipf { n, zipf };
                }
            }
            PopularityKind::Curve => points.extend(p.curve.iter().map(|&[x, y]| (x, y))),
            PopularityKind::Uniform => {}
        }
        if points[points.len() - 1].0 < 1.0 {
            points.push((1.0, 1.0));
        }
        let mut cumulative = Vec::new();
        let mut segments = Vec::new();
        for w in points.windows(2) {
            let ((x0, y0), (x1, y1)) = (w[0], w[1]);
            let first = (x0 * n as f64) as u64;
            let len = (((x1 * n as f64) as u64).min(n)).saturating_sub(first).max(1);
            if y1 <= y0 {
                continue; // no accesses: these ranks are never drawn
            }
            let per_rank = (y1 - y0) * accesses / len as f64;
            let regions = (len / (64 * request_ranks.max(1))).clamp(2, MAX_WALK_REGIONS).min(len);
            segments.push(if per_rank < WALK_BELOW_ACCESSES_PER_PAGE && len > request_ranks {
                let stride = coprime_from((regions as f64 * 0.618_033_988_75) as u64, regions);
                let (region_len, last_len) = (len / regions, len - (regions - 1) * (len / regions));
                Segment::Walk {
                    first,
                    region_len,
                    last_len,
                    fill: vec![0; regions as usize],
                    stride: stride % regions.max(2),
                    next: rng.gen_range(0..regions),
                }
            } else {
                Segment::Uniform { first, len }
            });
            cumulative.push(y1);
        }
        if segments.is_empty() {
            segments.push(Segment::Uniform { first: 0, len: n });
            cumulative.push(1.0);
        }
        let total = cumulative[cumulative.len() - 1];
        cumulative.iter_mut().for_each(|c| *c /= total);
        RankSampler::Segments { cumulative, segments, last_walk: None }
    }

    /// The first rank of a request of `units` ranks.
    pub(crate) fn sample(&mut self, rng: &mut Pcg64Mcg, units: u64) -> u64 {
        match self {
            RankSampler::Zipf { n, zipf } => (zipf.sample(rng) as u64).saturating_sub(1).min(*n - 1),
            RankSampler::Segments { cumulative, segments, last_walk } => {
                let i = if segments.len() == 1 { 0 } else { pick(cumulative, rng.gen::<f64>()) };
                *last_walk = None;
                match &mut segments[i] {
                    Segment::Uniform { first, len } => *first + rng.gen_range(0..*len),
                    Segment::Walk { first, region_len, last_len, fill, stride, next } => {
                        let region = *next as usize;
                        *next = (*next + *stride) % fill.len() as u64;
                        let room = if region + 1 == fill.len() { *last_len } else { *region_len };
                        let mut at = fill[region];
                        if at + units > room {
                            at = 0; // the region is full: start its next round
                        }
                        fill[region] = at + units;
                        *last_walk = Some((i, region));
                        *first + region as u64 * *region_len + at
                    }
                }
            }
        }
    }

    /// A sequential run over walked data goes on in the walk: the next ranks of the region the
    /// last draw filled, which they then count as drawn (so runs and the walk do not overlap).
    /// `None` when the last draw was not walked, or its region has no room for `units`.
    pub(crate) fn continue_run(&mut self, units: u64) -> Option<u64> {
        let RankSampler::Segments { segments, last_walk, .. } = self else { return None };
        let (i, region) = (*last_walk)?;
        let Segment::Walk { first, region_len, last_len, fill, .. } = &mut segments[i] else { return None };
        let room = if region + 1 == fill.len() { *last_len } else { *region_len };
        let at = fill[region];
        if at + units > room {
            *last_walk = None;
            return None;
        }
        fill[region] = at + units;
        Some(*first + region as u64 * *region_len + at)
    }

    /// Forget the last walked draw (the op's last request came from elsewhere).
    pub(crate) fn end_run(&mut self) {
        if let RankSampler::Segments { last_walk, .. } = self {
            *last_walk = None;
        }
    }
}

/// Values from `[cumulative probability, value]` points, interpolated (inverse CDF): linearly,
/// or geometrically between positive values (`geometric`: heavy-tailed figures such as gaps
/// between arrivals, whose mass sits near the lower end of each quantile step).
pub(crate) struct QuantileSampler {
    ps: Vec<f64>,
    vs: Vec<f64>,
    geometric: bool,
}

impl QuantileSampler {
    /// `points` validated: probabilities from 0 to 1, increasing; values not decreasing.
    pub(crate) fn new(points: &[[f64; 2]], geometric: bool) -> Option<QuantileSampler> {
        (!points.is_empty()).then(|| QuantileSampler {
            ps: points.iter().map(|p| p[0]).collect(),
            vs: points.iter().map(|p| p[1]).collect(),
            geometric,
        })
    }

    pub(crate) fn sample(&self, rng: &mut Pcg64Mcg) -> f64 {
        self.at(rng.gen::<f64>())
    }

    /// The value at cumulative probability `u`.
    pub(crate) fn at(&self, u: f64) -> f64 {
        let i = self.ps.partition_point(|&p| p <= u).clamp(1, self.ps.len().max(2) - 1);
        if self.ps.len() < 2 {
            return self.vs[0];
        }
        let (p0, p1, v0, v1) = (self.ps[i - 1], self.ps[i], self.vs[i - 1], self.vs[i]);
        if p1 > p0 {
            let t = (u - p0).clamp(0.0, p1 - p0) / (p1 - p0);
            if self.geometric && v0 > 0.0 {
                v0 * (v1 / v0).powf(t)
            } else {
                v0 + t * (v1 - v0)
            }
        } else {
            v1
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::ByteSize;
    use crate::workload::spec::SizeBin;
    use rand::SeedableRng;

    #[test]
    fn byte_weights_become_request_shares() {
        // Half the bytes in 4 KiB requests, half in 64 KiB ones: 16 small requests per large one.
        let h = SizeHistogram {
            weights: WeightBy::Bytes,
            bins: vec![
                SizeBin { size: Some(ByteSize(4096)), min: None, max: None, weight: 0.5 },
                SizeBin { size: Some(ByteSize(65536)), min: None, max: None, weight: 0.5 },
            ],
        };
        let s = SizeSampler::new(&h, 4096);
        let mut rng = Pcg64Mcg::seed_from_u64(1);
        let n = 200_000;
        let (mut small, mut units) = (0u64, 0u64);
        for _ in 0..n {
            let u = s.sample(&mut rng) / 4096;
            small += (u == 1) as u64;
            units += u;
        }
        assert!((s.mean_bytes() / 4096.0 - 32.0 / 17.0).abs() < 1e-9);
        assert!((small as f64 / n as f64 - 16.0 / 17.0).abs() < 0.005);
        let small_bytes = small as f64 / units as f64;
        assert!((small_bytes - 0.5).abs() < 0.02, "{small_bytes}");
    }

    #[test]
    fn a_one_point_curve_is_a_hot_cold_split() {
        let p = Popularity { kind: PopularityKind::Curve, theta: 1.0, curve: vec![[0.05, 0.8]] };
        let mut rng = Pcg64Mcg::seed_from_u64(2);
        let mut s = RankSampler::new(&p, 10_000, 1e6, 1, &mut rng);
        let hot = (0..100_000).filter(|_| s.sample(&mut rng, 1) < 500).count();
        assert!((hot as f64 / 1e5 - 0.8).abs() < 0.01, "{hot}");
    }

    #[test]
    fn a_segment_touched_about_once_per_page_is_walked_without_repeats() {
        // 10,000 draws over 10,000 ranks: a walk touches nearly every rank once (sampling with
        // replacement would touch 63 % of them); regions are visited in turn, so the last one,
        // 16 ranks longer, is 16 draws short.
        let p = Popularity::default();
        let mut rng = Pcg64Mcg::seed_from_u64(3);
        let mut s = RankSampler::new(&p, 10_000, 10_000.0, 1, &mut rng);
        let distinct: std::collections::BTreeSet<u64> = (0..10_000).map(|_| s.sample(&mut rng, 1)).collect();
        assert!(distinct.len() >= 9_980, "{}", distinct.len());
    }

    #[test]
    fn quantiles_interpolate_between_points() {
        let q = QuantileSampler::new(&[[0.0, 0.0], [0.5, 10.0], [1.0, 110.0]], false).unwrap();
        assert_eq!(q.at(0.25), 5.0);
        assert_eq!(q.at(0.75), 60.0);
        assert_eq!(q.at(1.0), 110.0);
        let g = QuantileSampler::new(&[[0.0, 1.0], [1.0, 100.0]], true).unwrap();
        assert!((g.at(0.5) - 10.0).abs() < 1e-9, "halfway between 1 and 100 geometrically");
    }
}
