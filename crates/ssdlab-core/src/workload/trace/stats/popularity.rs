//! Layer: workload (trace statistics). Popularity curves: from the access count of each page of
//! one op, the fewest pages (hottest first) that take each share of the op's accesses. Run once
//! at the end, O(footprint log footprint) for the sort.

use super::figures::{CurvePoint, Popularity};
use super::POPULARITY_ACCESS_SHARES;

/// [`POPULARITY_ACCESS_SHARES`] in per mille: integers, so that "at least this share" is
/// compared exactly (`taken * 1000 >= share * total`), without 0.1 * 3 != 0.3.
pub(super) const ACCESS_SHARES_PER_MILLE: [u64; 12] = [100, 200, 300, 400, 500, 600, 700, 800, 900, 950, 990, 1000];

/// The curve of one op from the access counts of its pages (pages it never touched may be
/// given as 0; they are left out).
pub(super) fn popularity(mut counts: Vec<u32>) -> Popularity {
    counts.retain(|&count| count > 0);
    counts.sort_unstable_by(|a, b| b.cmp(a));
    let total: u64 = counts.iter().map(|&count| u64::from(count)).sum();
    let footprint_pages = counts.len() as u64;
    let mut curve = Vec::with_capacity(ACCESS_SHARES_PER_MILLE.len());
    // One walk down the sorted counts serves every (ascending) share.
    let (mut taken, mut pages) = (0u128, 0usize);
    for (per_mille, access_share) in ACCESS_SHARES_PER_MILLE.into_iter().zip(POPULARITY_ACCESS_SHARES) {
        let target = u128::from(per_mille) * u128::from(total);
        while taken * 1000 < target {
            taken += u128::from(counts[pages]);
            pages += 1;
        }
        curve.push(CurvePoint {
            access_share,
            footprint_share: if footprint_pages > 0 { pages as f64 / footprint_pages as f64 } else { 0.0 },
            pages: pages as u64,
        });
    }
    Popularity { footprint_pages, accesses: total, curve }
}

/// The pages of the point at `per_mille` (one of [`ACCESS_SHARES_PER_MILLE`]).
pub(super) fn pages_at(popularity: &Popularity, per_mille: u64) -> u64 {
    let index = ACCESS_SHARES_PER_MILLE.iter().position(|&share| share == per_mille);
    debug_assert!(index.is_some(), "{per_mille} per mille is not a curve point");
    index.map_or(0, |index| popularity.curve[index].pages)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pages(popularity: &Popularity) -> Vec<u64> {
        popularity.curve.iter().map(|point| point.pages).collect()
    }

    #[test]
    fn the_two_share_tables_agree() {
        for (per_mille, share) in ACCESS_SHARES_PER_MILLE.into_iter().zip(POPULARITY_ACCESS_SHARES) {
            assert_eq!(per_mille as f64 / 1000.0, share);
        }
        assert!(ACCESS_SHARES_PER_MILLE.windows(2).all(|pair| pair[0] < pair[1]));
        assert_eq!(ACCESS_SHARES_PER_MILLE.last(), Some(&1000));
    }

    #[test]
    fn curve_points_by_hand() {
        // Ten accesses: one page 5, one 3, two pages 1 each, one untouched page.
        // Sorted 5, 3, 1, 1; prefix sums 5, 8, 9, 10.
        // 10 % .. 50 % (1..5 accesses): 1 page; 60 %, 70 %, 80 % (6..8): 2 pages; 90 % (9): 3;
        // 95 % (9.5), 99 % (9.9) and 100 %: 4.
        let curve = popularity(vec![1, 0, 5, 1, 3]);
        assert_eq!((curve.footprint_pages, curve.accesses), (4, 10));
        assert_eq!(pages(&curve), vec![1, 1, 1, 1, 1, 2, 2, 2, 3, 4, 4, 4]);
        assert_eq!(curve.curve[4].access_share, 0.5);
        assert_eq!(curve.curve[8].footprint_share, 0.75);
        assert_eq!(pages_at(&curve, 800), 2);
        // Exactly at a boundary: 0.3 of 10 is 3, reached by the first page (5 >= 3) already;
        // with uniform counts 0.3 of 10 pages is exactly 3 pages, not 4.
        let uniform = popularity(vec![1; 10]);
        assert_eq!(pages(&uniform), vec![1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10]);
        assert_eq!(uniform.curve[2].footprint_share, 0.3);
    }

    #[test]
    fn an_op_without_accesses_has_a_flat_zero_curve() {
        let curve = popularity(vec![0, 0]);
        assert_eq!((curve.footprint_pages, curve.accesses), (0, 0));
        assert!(curve.curve.iter().all(|point| point.pages == 0 && point.footprint_share == 0.0));
        assert_eq!(curve.curve.len(), ACCESS_SHARES_PER_MILLE.len());
    }
}
