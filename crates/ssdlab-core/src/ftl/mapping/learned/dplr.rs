//! Layer: ftl. LearnedFTL's Dynamic Piece-wise Linear Regression (DPLR; Wang et al., HPCA 2024,
//! Sec. 3.2): the learned model of one GTD entry. A point is (x, y) with x the LPN's offset
//! inside the entry's translation page and y the VPPN's offset from the entry's start VPPN
//! (negative or out of order when GC has not yet rewritten the entry). The model is at most N
//! lines, each covering a range of x; it is fitted at GC time (Sec. 3.3.3 step 3) and checked
//! point by point to fill the bitmap prediction filter (Sec. 3.4, `train`).
//!
//! Fitting, as the paper states it (Fig. 7), for M points and at most N segments:
//! 1. **Set parameters.** The average segment length is M/N. A maximal contiguous run (each point
//!    one more than the previous in both x and y) strictly longer than M/N is a *large segment*
//!    and gets a line of its own.
//! 2. **Count continuation.** With T large segments, the other points (the gaps around the large
//!    segments, in x order) are cut into N - T segments of about equal point count; no segment
//!    spans a large segment.
//! 3. **Build segments.** Ordinary least squares per segment.
//!
//! Where the paper is silent (the choices, all deterministic):
//! * Each non-empty gap gets one segment, and the rest of the N - T are shared out in proportion
//!   to gap sizes by largest remainder (ties to the lower x); a gap never gets more segments than
//!   it has points (the surplus goes round the gaps that have room, in the same order), so fewer
//!   than N segments are used when few points are left. A gap of P points in C segments is cut at
//!   `floor(j * P / C)`, so the longer pieces come last.
//! * When there are more non-empty gaps than N - T, the shortest large segment (ties: the later
//!   one) is demoted to ordinary points and step 2 is redone. The longest large segment (ties:
//!   the earliest) therefore survives whenever N >= 3.
//! * A segment that is one contiguous run (a large segment, a one-point segment, or a gap piece
//!   that happens to be contiguous) gets slope 1 and intercept y - x, the exact least-squares
//!   answer, set directly: exact by construction rather than by the floating-point sums
//!   happening to cancel, and cheaper.
//! * A segment starts at its first point's x, except the first, which starts at 0: an x below
//!   the first point, or between two segments' points, uses the line to its left.
//! * A prediction is rounded half away from zero.
//!
//! Deviations from the paper:
//! * Slopes and intercepts are kept as f64. The paper stores each segment's <k, b, off> as narrow
//!   integers; the simulator charges DRAM for a model separately, through config (96 B per model,
//!   Sec. 4.1), so the representation here has no memory cost to model.
//! * The authors' artifact does not segment dynamically: it cuts the points into 8 equal-count
//!   pieces and fits each line to n - 1 of its n points in f32. We implement the paper's dynamic
//!   segmentation, which is what the paper evaluates and argues for.

use std::cmp::Reverse;
use std::ops::Range;

/// One line of a DPLR model. It covers x from `start` up to the next segment's start.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Segment {
    /// The first x (LPN offset in the entry) this segment covers.
    pub start: u32,
    pub slope: f64,
    pub intercept: f64,
}

impl Segment {
    #[inline]
    fn predict(&self, x: u32) -> i64 {
        round_to_i64(self.slope * f64::from(x) + self.intercept)
    }
}

/// `v.round() as i64`: half away from zero, saturating, NaN to 0; so no x can make a prediction
/// panic. Without the libm call `f64::round` is on x86-64 before SSE4.1 (the crate builds for the
/// baseline target): training checks every point's prediction, and that call was 8-10 % of a
/// LearnedFTL warm-up under perf.
#[inline]
fn round_to_i64(v: f64) -> i64 {
    // From 2^52 on every f64 is an integer, and NaN or an infinity is no finite number below
    // it: `as` alone.
    if v.is_nan() || v.abs() >= 4_503_599_627_370_496.0 {
        return v as i64;
    }
    // Below 2^52 the truncation and the fraction left are exact.
    let t = v as i64;
    let fraction = v - t as f64;
    if fraction >= 0.5 {
        t + 1
    } else if fraction <= -0.5 {
        t - 1
    } else {
        t
    }
}

/// The DPLR model of one GTD entry: x (LPN offset) -> y (VPPN offset).
#[derive(Debug, Clone, PartialEq)]
pub struct Dplr {
    /// Sorted by strictly increasing `start`; the first starts at 0; never empty.
    segments: Vec<Segment>,
}

impl Default for Dplr {
    fn default() -> Self {
        Dplr::identity()
    }
}

impl Dplr {
    /// The model of sequential initialisation (Sec. 3.2): one segment, y = x.
    pub fn identity() -> Dplr {
        Dplr { segments: vec![Segment { start: 0, slope: 1.0, intercept: 0.0 }] }
    }

    /// Fits at most `max_segments` lines to the points (`xs[i]`, `ys[i]`).
    ///
    /// `xs` must be strictly increasing and as long as `ys`, and `max_segments` at least 1
    /// (checked in debug builds; in release a longer slice is cut to the shorter one's length and
    /// a budget of 0 is taken as 1). No points gives `identity()`.
    pub fn fit(xs: &[u32], ys: &[i64], max_segments: usize) -> Dplr {
        debug_assert_eq!(xs.len(), ys.len(), "one y per x");
        debug_assert!(xs.windows(2).all(|w| w[0] < w[1]), "x strictly increasing");
        debug_assert!(max_segments >= 1, "at least one segment");
        let points = xs.len().min(ys.len());
        let (xs, ys) = (&xs[..points], &ys[..points]);
        if points == 0 {
            return Dplr::identity();
        }
        let pieces = cut(xs, ys, max_segments.max(1));
        let segments = pieces
            .into_iter()
            .enumerate()
            .map(|(i, piece)| {
                let (slope, intercept) = least_squares(&xs[piece.clone()], &ys[piece.clone()]);
                Segment { start: if i == 0 { 0 } else { xs[piece.start] }, slope, intercept }
            })
            .collect();
        Dplr { segments }
    }

    /// The predicted y at `x`: the line of the segment with the largest start <= x, rounded.
    #[inline]
    pub fn predict(&self, x: u32) -> i64 {
        // The first segment starts at 0, so at least one segment starts at or below any x.
        let covering = self.segments.partition_point(|s| s.start <= x).saturating_sub(1);
        self.segments[covering].predict(x)
    }

    /// The segments, by increasing start (the first starts at 0).
    pub fn segments(&self) -> &[Segment] {
        &self.segments
    }
}

/// Trains a model and evaluates it (Sec. 3.3.3 step 3, Sec. 3.4): fits, then returns one bit per
/// point, `bits[i]` true exactly when the model predicts `ys[i]` at `xs[i]`. These are the bits
/// the bitmap prediction filter sets to 1; the caller places them at the points' LPN offsets.
pub fn train(xs: &[u32], ys: &[i64], max_segments: usize) -> (Dplr, Vec<bool>) {
    let mut bits = Vec::new();
    let model = train_into(xs, ys, max_segments, &mut bits);
    (model, bits)
}

/// `train`, writing the bits into `bits` (cleared first; a buffer the caller reuses). The points
/// are in x order, so the covering segment is found by stepping through the segments once
/// rather than by a search per point.
pub fn train_into(xs: &[u32], ys: &[i64], max_segments: usize, bits: &mut Vec<bool>) -> Dplr {
    let model = Dplr::fit(xs, ys, max_segments);
    bits.clear();
    let segments = &model.segments;
    let mut covering = 0;
    for (&x, &y) in xs.iter().zip(ys) {
        while covering + 1 < segments.len() && segments[covering + 1].start <= x {
            covering += 1;
        }
        bits.push(segments[covering].predict(x) == y);
    }
    model
}

/// Whether point `i` continues point `i - 1`'s contiguous run (x and y both one more).
#[inline]
fn continues(xs: &[u32], ys: &[i64], i: usize) -> bool {
    xs[i - 1].checked_add(1) == Some(xs[i]) && ys[i - 1].checked_add(1) == Some(ys[i])
}

/// Steps 1 and 2: the index ranges of the segments, in x order, at most `budget` of them.
fn cut(xs: &[u32], ys: &[i64], budget: usize) -> Vec<Range<usize>> {
    let points = xs.len();
    // Large segments: maximal runs strictly longer than points / budget (compared as
    // `len * budget > points`, exactly). Each is longer than the average, so fewer than `budget`
    // of them fit in the points: at least one segment is always left for the gaps.
    let mut large: Vec<Range<usize>> = Vec::new();
    let mut run_start = 0;
    for i in 1..=points {
        if i == points || !continues(xs, ys, i) {
            if (i - run_start) * budget > points {
                large.push(run_start..i);
            }
            run_start = i;
        }
    }

    let mut gaps = gaps_around(points, &large);
    while gaps.len() > budget.saturating_sub(large.len()) {
        // Some gap would get no segment: demote the shortest large segment (ties: the later).
        // With none left there is one gap and `budget >= 1`, so this ends.
        let Some(shortest) = (0..large.len()).min_by_key(|&i| (large[i].len(), Reverse(i))) else {
            break;
        };
        large.remove(shortest);
        gaps = gaps_around(points, &large);
    }
    let counts = share(&gaps, budget.saturating_sub(large.len()));

    let mut pieces = Vec::with_capacity(budget);
    let mut next_gap = 0;
    let mut cursor = 0;
    for run in large.iter().cloned().chain(std::iter::once(points..points)) {
        if cursor < run.start {
            let (gap, count) = (gaps[next_gap].clone(), counts[next_gap]);
            let len = gap.len();
            pieces.extend((0..count).map(|j| gap.start + j * len / count..gap.start + (j + 1) * len / count));
            next_gap += 1;
        }
        if !run.is_empty() {
            pieces.push(run.clone());
        }
        cursor = run.end;
    }
    debug_assert!(pieces.len() <= budget && pieces.iter().all(|p| !p.is_empty()));
    pieces
}

/// The non-empty index ranges before, between and after the large segments (sorted, disjoint).
fn gaps_around(points: usize, large: &[Range<usize>]) -> Vec<Range<usize>> {
    let mut gaps = Vec::with_capacity(large.len() + 1);
    let mut cursor = 0;
    for run in large.iter().chain(std::iter::once(&(points..points))) {
        if cursor < run.start {
            gaps.push(cursor..run.start);
        }
        cursor = run.end;
    }
    gaps
}

/// How many segments each gap gets out of `budget` (`budget >= gaps.len()`): one each, the rest
/// in proportion to gap size by largest remainder (ties to the lower x), never more than a gap
/// has points.
fn share(gaps: &[Range<usize>], budget: usize) -> Vec<usize> {
    let total: usize = gaps.iter().map(|g| g.len()).sum();
    if gaps.is_empty() {
        return Vec::new();
    }
    // Every gap is non-empty, so `gaps.len() <= total` and this does not underflow.
    let extra = budget.min(total) - gaps.len();
    // 1 + floor(extra * len / total) <= len, since extra <= total - 1: a floor never overfills.
    let mut counts: Vec<usize> = gaps.iter().map(|g| 1 + extra * g.len() / total).collect();
    let mut left = extra - counts.iter().map(|c| c - 1).sum::<usize>();
    let mut order: Vec<usize> = (0..gaps.len()).collect();
    order.sort_by_key(|&i| (Reverse(extra * gaps[i].len() % total), i));
    while left > 0 {
        let before = left;
        for &i in &order {
            if left > 0 && counts[i] < gaps[i].len() {
                counts[i] += 1;
                left -= 1;
            }
        }
        // Total room (total - gaps.len()) covers `extra`, so this only guards against a bug.
        debug_assert_ne!(left, before, "no gap has room for {left} more segments");
        if left == before {
            break;
        }
    }
    counts
}

/// Step 3: the least-squares line through the points, as (slope, intercept).
fn least_squares(xs: &[u32], ys: &[i64]) -> (f64, f64) {
    let (x0, y0) = (f64::from(xs[0]), ys[0] as f64);
    if (1..xs.len()).all(|i| continues(xs, ys, i)) {
        return (1.0, y0 - x0);
    }
    // Centred sums, taken relative to the first point so the magnitudes stay small.
    let n = xs.len() as f64;
    let dx = |i: usize| f64::from(xs[i]) - x0;
    let dy = |i: usize| ys[i] as f64 - y0;
    let mean_dx = (0..xs.len()).map(dx).sum::<f64>() / n;
    let mean_dy = (0..xs.len()).map(dy).sum::<f64>() / n;
    let (mut sxx, mut sxy) = (0.0, 0.0);
    for i in 0..xs.len() {
        let cx = dx(i) - mean_dx;
        sxx += cx * cx;
        sxy += cx * (dy(i) - mean_dy);
    }
    // x is strictly increasing, so two or more points spread out and sxx > 0; guard anyway.
    let slope = if sxx > 0.0 && (sxy / sxx).is_finite() { sxy / sxx } else { 1.0 };
    (slope, y0 + (mean_dy - slope * mean_dx) - slope * x0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use rand::seq::SliceRandom;
    use rand::{Rng, SeedableRng};
    use rand_pcg::Pcg64Mcg;

    /// A y for point `i` that is never contiguous with a neighbour nor near a run's line
    /// (alternating sign, growing): noise the fit cannot predict by accident.
    fn noise(i: usize) -> i64 {
        let v = 3 * i as i64 + 2;
        if i.is_multiple_of(2) {
            v
        } else {
            -v
        }
    }

    enum Part {
        /// This many points on y = x + offset.
        Run(usize, i64),
        /// This many noise points.
        Noise(usize),
    }

    /// Points at x = 0, 1, 2, ..., laid out part after part.
    fn build(parts: &[Part]) -> (Vec<u32>, Vec<i64>) {
        let (mut xs, mut ys) = (Vec::new(), Vec::new());
        for part in parts {
            let (len, offset) = match *part {
                Part::Run(len, offset) => (len, Some(offset)),
                Part::Noise(len) => (len, None),
            };
            for _ in 0..len {
                let i = xs.len();
                xs.push(i as u32);
                ys.push(offset.map_or_else(|| noise(i), |o| i as i64 + o));
            }
        }
        (xs, ys)
    }

    fn starts(model: &Dplr) -> Vec<u32> {
        model.segments().iter().map(|s| s.start).collect()
    }

    /// At most `budget` segments, at least one, the first at 0, starts strictly increasing.
    fn assert_well_formed(model: &Dplr, budget: usize) {
        let s = starts(model);
        assert!(!s.is_empty() && s.len() <= budget, "{} segments for a budget of {budget}", s.len());
        assert_eq!(s[0], 0);
        assert!(s.windows(2).all(|w| w[0] < w[1]), "starts not increasing: {s:?}");
    }

    /// The bitmap is exactly "the prediction equals y", point by point.
    fn assert_bits_match(model: &Dplr, bits: &[bool], xs: &[u32], ys: &[i64]) {
        assert_eq!(bits.len(), xs.len());
        for i in 0..xs.len() {
            assert_eq!(bits[i], model.predict(xs[i]) == ys[i], "point {i}: ({}, {})", xs[i], ys[i]);
        }
    }

    proptest! {
        /// The rounding without libm gives what `round() as i64` gives, for any f64.
        #[test]
        fn rounding_matches_the_standard_library(bits in any::<u64>(), small in -1.0e6f64..1.0e6) {
            for v in [f64::from_bits(bits), small, small.trunc() + 0.5, small.trunc() - 0.5] {
                prop_assert_eq!(round_to_i64(v), v.round() as i64, "{}", v);
            }
        }
    }

    #[test]
    fn rounding_edge_cases() {
        let edges = [
            0.0,
            -0.0,
            0.5,
            -0.5,
            1.5,
            -1.5,
            2.5,
            -2.5,
            0.49999999999999994,
            -0.49999999999999994,
            4_503_599_627_370_495.5,
            -4_503_599_627_370_495.5,
            4_503_599_627_370_496.0,
            9.3e18,
            -9.3e18,
            f64::MAX,
            f64::MIN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            f64::MIN_POSITIVE,
        ];
        for v in edges {
            assert_eq!(round_to_i64(v), v.round() as i64, "{v}");
        }
    }

    #[test]
    fn one_contiguous_run_is_one_exact_segment() {
        let xs: Vec<u32> = (37..449).collect();
        let ys: Vec<i64> = xs.iter().map(|&x| x as i64 - 20).collect();
        let (model, bits) = train(&xs, &ys, 8);
        assert_eq!(model.segments().len(), 1);
        assert!(bits.iter().all(|&b| b), "every point of a run is predicted");
        // The first segment reaches down to x = 0.
        assert_eq!(model.predict(0), -20);
    }

    #[test]
    fn identity_predicts_x() {
        let model = Dplr::identity();
        assert_eq!(model.segments().len(), 1);
        for x in [0, 1, 255, 511, u32::MAX] {
            assert_eq!(model.predict(x), i64::from(x));
        }
        assert_eq!(Dplr::default(), model);
    }

    #[test]
    fn two_runs_with_an_offset_jump_are_both_large_and_exact() {
        let (xs, ys) = build(&[Part::Run(256, 10_000), Part::Run(256, 50_000)]);
        let (model, bits) = train(&xs, &ys, 8);
        assert_eq!(starts(&model), vec![0, 256]);
        assert!(bits.iter().all(|&b| b));
    }

    #[test]
    fn long_run_in_noise_is_one_exact_segment() {
        // M = 512, N = 8: the run of 300 is large; the 212 noise points share the other 7
        // segments: one each for the gaps of 40 and 172, the 5 left split 0 + 4 by floors and
        // the last to the gap of 40 (remainder 200/212 beats 12/212).
        let (xs, ys) = build(&[Part::Noise(40), Part::Run(300, 10_000), Part::Noise(172)]);
        let (model, bits) = train(&xs, &ys, 8);
        assert_well_formed(&model, 8);
        assert_eq!(starts(&model), vec![0, 20, 40, 340, 374, 408, 443, 477]);
        let run = model.segments()[2];
        assert_eq!((run.slope, run.intercept), (1.0, 10_000.0));
        assert!(bits[40..340].iter().all(|&b| b), "every point of the run is exact");
        assert_bits_match(&model, &bits, &xs, &ys);
    }

    #[test]
    fn random_permutations_stay_within_budget_and_bits_match_predictions() {
        let mut rng = Pcg64Mcg::seed_from_u64(0x5EED_D91C);
        for round in 0..40 {
            // Alternate fully shuffled entries with mostly sequential ones (a few swaps), which
            // make runs, large segments and demotions.
            let amount = rng.gen_range(1..=512);
            let mut xs: Vec<u32> =
                rand::seq::index::sample(&mut rng, 512, amount).into_iter().map(|i| i as u32).collect();
            xs.sort_unstable();
            let mut ys: Vec<i64> = (0..xs.len() as i64).collect();
            if round % 2 == 0 {
                ys.shuffle(&mut rng);
            } else {
                for _ in 0..rng.gen_range(0..8) {
                    let (a, b) = (rng.gen_range(0..ys.len()), rng.gen_range(0..ys.len()));
                    ys.swap(a, b);
                }
            }
            for budget in [1, 2, 3, 8, 16, 100] {
                let (model, bits) = train(&xs, &ys, budget);
                assert_well_formed(&model, budget);
                assert_bits_match(&model, &bits, &xs, &ys);
            }
        }
    }

    #[test]
    fn more_gaps_than_budget_demotes_the_later_of_equal_large_segments() {
        // M = 43, N = 3: both runs of 20 are large (20 * 3 > 43), leaving 1 segment for 3 gaps.
        // The later run is demoted; the first keeps its line and the rest is 2 gaps for 2.
        let (xs, ys) =
            build(&[Part::Noise(1), Part::Run(20, 10_000), Part::Noise(1), Part::Run(20, 20_000), Part::Noise(1)]);
        let (model, bits) = train(&xs, &ys, 3);
        assert_eq!(starts(&model), vec![0, 1, 21]);
        assert!(bits[1..21].iter().all(|&b| b), "the surviving large segment is exact");
        assert_bits_match(&model, &bits, &xs, &ys);
    }

    #[test]
    fn more_gaps_than_budget_demotes_the_shortest_large_segment() {
        // As above with runs of 18 and 22: the shorter, earlier one is demoted.
        let (xs, ys) =
            build(&[Part::Noise(1), Part::Run(18, 10_000), Part::Noise(1), Part::Run(22, 20_000), Part::Noise(1)]);
        let (model, bits) = train(&xs, &ys, 3);
        assert_eq!(starts(&model), vec![0, 20, 42]);
        assert!(bits[20..42].iter().all(|&b| b), "the surviving large segment is exact");
        assert_bits_match(&model, &bits, &xs, &ys);
    }

    #[test]
    fn run_longer_than_average_is_large_and_gaps_share_the_rest() {
        // M = 16, N = 4, average 4: the run of 5 is large; gaps of 2 and 9 get 1 segment each
        // and the third goes to the gap of 9 (remainder 9/11 beats 2/11), cut 4 + 5.
        let (xs, ys) = build(&[Part::Noise(2), Part::Run(5, 10_000), Part::Noise(9)]);
        let (model, bits) = train(&xs, &ys, 4);
        assert_eq!(starts(&model), vec![0, 2, 7, 11]);
        assert!(bits[2..7].iter().all(|&b| b));
    }

    #[test]
    fn run_of_exactly_average_length_is_not_large() {
        // M = 16, N = 4: a run of 4 is not longer than 4, so all 16 points are cut 4 + 4 + 4 + 4,
        // straight through the run.
        let (xs, ys) = build(&[Part::Noise(2), Part::Run(4, 10_000), Part::Noise(10)]);
        let (model, _) = train(&xs, &ys, 4);
        assert_eq!(starts(&model), vec![0, 4, 8, 12]);
    }

    #[test]
    fn noise_alone_is_cut_into_equal_pieces() {
        let (xs, ys) = build(&[Part::Noise(512)]);
        let model = Dplr::fit(&xs, &ys, 8);
        assert_eq!(starts(&model), (0..8).map(|i| i * 64).collect::<Vec<u32>>());
        // 10 points in 3: cut at floor(j * 10 / 3), the longer piece last.
        let model = Dplr::fit(&xs[..10], &ys[..10], 3);
        assert_eq!(starts(&model), vec![0, 3, 6]);
    }

    #[test]
    fn fewer_points_than_budget_gives_one_segment_per_point() {
        let (xs, ys) = build(&[Part::Noise(3)]);
        let (model, bits) = train(&xs, &ys, 8);
        assert_eq!(starts(&model), vec![0, 1, 2]);
        assert!(bits.iter().all(|&b| b), "a one-point segment passes through its point");
    }

    #[test]
    fn a_segment_covers_x_up_to_the_next_start() {
        // Two runs of 3 in 6 points with N = 2: neither is large (3 is the average), the equal
        // cut happens to separate them, and a contiguous piece fits exactly.
        let xs = [10, 11, 12, 100, 101, 102];
        let ys = [15, 16, 17, 150, 151, 152];
        let (model, bits) = train(&xs, &ys, 2);
        assert_eq!(starts(&model), vec![0, 100]);
        assert!(bits.iter().all(|&b| b));
        assert_eq!(model.predict(5), 10, "below the first point: the first line");
        assert_eq!(model.predict(50), 55, "between segments: the line to the left");
        assert_eq!(model.predict(200), 250, "past the last point: the last line");
    }

    #[test]
    fn least_squares_recovers_a_line_through_spaced_points() {
        // Points on y = 3x + 7 at even x: not contiguous, so the least-squares path fits them.
        let xs: Vec<u32> = (0..100).map(|i| 2 * i).collect();
        let ys: Vec<i64> = xs.iter().map(|&x| 3 * x as i64 + 7).collect();
        let (model, bits) = train(&xs, &ys, 1);
        let line = model.segments()[0];
        assert!((line.slope - 3.0).abs() < 1e-9 && (line.intercept - 7.0).abs() < 1e-6, "{line:?}");
        assert!(bits.iter().all(|&b| b));
        // Noisy points: the same line as the textbook formula from raw sums.
        let ys: Vec<i64> = xs.iter().enumerate().map(|(i, &x)| i64::from(x) + noise(i) % 7).collect();
        let line = Dplr::fit(&xs, &ys, 1).segments()[0];
        let n = xs.len() as f64;
        let (sx, sy) = (xs.iter().map(|&x| f64::from(x)).sum::<f64>(), ys.iter().map(|&y| y as f64).sum::<f64>());
        let sxx = xs.iter().map(|&x| f64::from(x) * f64::from(x)).sum::<f64>();
        let sxy = xs.iter().zip(&ys).map(|(&x, &y)| f64::from(x) * y as f64).sum::<f64>();
        let slope = (n * sxy - sx * sy) / (n * sxx - sx * sx);
        let intercept = (sy - slope * sx) / n;
        assert!((line.slope - slope).abs() < 1e-9 && (line.intercept - intercept).abs() < 1e-6, "{line:?}");
        assert!((line.slope - 1.0).abs() > 1e-6, "the noise must actually move the line: {line:?}");
    }

    #[test]
    fn extreme_values_do_not_panic() {
        let xs = [0, 1, u32::MAX - 1, u32::MAX];
        let ys = [i64::MIN, i64::MAX, i64::MIN, i64::MAX];
        for budget in [1, 2, 4] {
            let (model, bits) = train(&xs, &ys, budget);
            assert_well_formed(&model, budget);
            assert_bits_match(&model, &bits, &xs, &ys);
        }
    }

    #[test]
    fn empty_input_is_identity() {
        assert_eq!(Dplr::fit(&[], &[], 8), Dplr::identity());
        let (model, bits) = train(&[], &[], 8);
        assert_eq!(model, Dplr::identity());
        assert!(bits.is_empty());
    }

    /// Strictly increasing x below 512 with y = x + an offset drawn per point from a small set
    /// weighted to 0, so contiguous runs of every length occur.
    fn points() -> impl Strategy<Value = (Vec<u32>, Vec<i64>)> {
        prop::collection::btree_set(0u32..512, 0..400)
            .prop_flat_map(|set| {
                let len = set.len();
                (Just(set), prop::collection::vec(prop::sample::select(vec![0i64, 0, 0, 0, 0, 5, -40, 300]), len))
            })
            .prop_map(|(set, offsets)| {
                let xs: Vec<u32> = set.into_iter().collect();
                let ys = xs.iter().zip(&offsets).map(|(&x, &o)| i64::from(x) + o).collect();
                (xs, ys)
            })
    }

    proptest! {
        #[test]
        fn fit_invariants((xs, ys) in points(), budget in 1usize..20) {
            let (model, bits) = train(&xs, &ys, budget);
            assert_well_formed(&model, budget);
            assert_bits_match(&model, &bits, &xs, &ys);
            // The longest run (ties: the earliest) is demoted only when N < 3, so with N >= 3 a
            // longest run that is large is one segment of its own and every point of it is exact.
            let mut longest = 0..0;
            let mut run_start = 0;
            for i in 1..=xs.len() {
                if i == xs.len() || !continues(&xs, &ys, i) {
                    if i - run_start > longest.len() {
                        longest = run_start..i;
                    }
                    run_start = i;
                }
            }
            if budget >= 3 && longest.len() * budget > xs.len() {
                prop_assert!(bits[longest.clone()].iter().all(|&b| b), "run {longest:?} not exact");
            }
        }
    }
}
