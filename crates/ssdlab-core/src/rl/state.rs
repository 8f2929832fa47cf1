//! Layer: rl. Turning observed features into a state: bin each feature, then combine the bins
//! into one index (for a dense `QTable`) or one 64-bit key (for the Q-table cache).
//!
//! * `Binning`: explicit ascending edges; `bin(v)` = number of edges `<= v`, so there are
//!   `edges.len() + 1` bins `(-inf, e0), [e0, e1), ..., [e_last, +inf)`. A value equal to an
//!   edge goes to the upper bin. RLGC Table 3 writes its bins as "<100", "<500", ..., ">100000"
//!   (us) and leaves equality open; this is our reading.
//! * `MixedRadix`: the state index of a vector of bins, first feature most significant, like
//!   digits of a number: RLGC's 2 x 17 x 2 = 68 states (Sec. 5.2), the SLC-cache paper's
//!   9 x 4 x 9 x 2 x 2 = 1,296 (Table 3), FSP's 4 x 2 x 2 x 2 x 4 = 128 (Sec. III-B).
//! * `state_key`: a fixed 64-bit hash of a bin vector for the Q-table cache, whose 17 features
//!   (QTC slide "What if more states are used?") span ~9.6e9 states. The function is
//!   `h = 0; for b in bins { h = mix64((h + GOLDEN) ^ b) }`, where `GOLDEN = 0x9E3779B97F4A7C15`
//!   and `mix64` is the SplitMix64 finaliser (Steele et al. 2014). It is part of the saved-state
//!   format: never change it. When the radix product fits in `u64`, `MixedRadix::encode_u64`
//!   gives a collision-free key instead; the hash exists for spaces that do not fit.

use crate::error::{Error, Result};

/// Ascending bin edges over `u64` features (times in ns, counts, sizes in bytes).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Binning {
    edges: Vec<u64>,
}

impl Binning {
    /// Edges must be strictly ascending; no edges means a single bin.
    pub fn new(edges: Vec<u64>) -> Result<Self> {
        if let Some(i) = edges.windows(2).position(|w| w[0] >= w[1]) {
            return Err(Error::config(
                "edges",
                format!(
                    "bin edges must be strictly ascending: edge {} ({}) >= edge {} ({})",
                    i,
                    edges[i],
                    i + 1,
                    edges[i + 1]
                ),
            ));
        }
        Ok(Binning { edges })
    }

    /// `n_edges` edges spaced geometrically from `first` to `last` inclusive, rounded to
    /// integers (implementation notes A4 proposes log-spaced interval bins for RLGC).
    pub fn geometric(first: u64, last: u64, n_edges: usize) -> Result<Self> {
        if n_edges == 0 {
            return Binning::new(Vec::new());
        }
        if first == 0 || last < first || (n_edges == 1 && first != last) {
            return Err(Error::config(
                "edges",
                format!("geometric edges need 0 < first <= last (and first == last for one edge), got {first}..{last}"),
            ));
        }
        let ratio = if n_edges == 1 { 1.0 } else { (last as f64 / first as f64).powf(1.0 / (n_edges - 1) as f64) };
        let mut edges: Vec<u64> = (0..n_edges).map(|i| (first as f64 * ratio.powi(i as i32)).round() as u64).collect();
        edges[0] = first;
        edges[n_edges - 1] = last;
        Binning::new(edges)
    }

    #[inline]
    pub fn bin(&self, value: u64) -> usize {
        self.edges.partition_point(|&e| e <= value)
    }

    pub fn n_bins(&self) -> usize {
        self.edges.len() + 1
    }

    pub fn edges(&self) -> &[u64] {
        &self.edges
    }
}

/// Mixed-radix numbering of bin vectors: `radices[i]` bins for feature `i`, first most significant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MixedRadix {
    radices: Vec<usize>,
    n_states: u64,
}

impl MixedRadix {
    /// Every radix at least 1, and the product must fit in `u64`.
    pub fn new(radices: Vec<usize>) -> Result<Self> {
        if radices.is_empty() {
            return Err(Error::config("radices", "needs at least one feature"));
        }
        let mut n: u64 = 1;
        for (i, &r) in radices.iter().enumerate() {
            if r == 0 {
                return Err(Error::config(format!("radices[{i}]"), "a feature needs at least one bin"));
            }
            n = n
                .checked_mul(r as u64)
                .ok_or_else(|| Error::config("radices", "the number of states overflows u64; use state_key"))?;
        }
        Ok(MixedRadix { radices, n_states: n })
    }

    /// Number of distinct states (product of the radices).
    pub fn n_states(&self) -> u64 {
        self.n_states
    }

    pub fn radices(&self) -> &[usize] {
        &self.radices
    }

    /// State number of `bins` (`bins[i] < radices[i]`, checked in debug builds).
    #[inline]
    pub fn encode_u64(&self, bins: &[usize]) -> u64 {
        debug_assert_eq!(bins.len(), self.radices.len());
        let mut index = 0u64;
        for (&b, &r) in bins.iter().zip(&self.radices) {
            debug_assert!(b < r, "bin {b} out of range for radix {r}");
            index = index * r as u64 + b as u64;
        }
        index
    }

    /// State number as a `usize`, for indexing a `QTable` (whose size bounds it).
    #[inline]
    pub fn encode(&self, bins: &[usize]) -> usize {
        self.encode_u64(bins) as usize
    }

    /// The bins of state `index` (`index < n_states()`), written into `bins`.
    pub fn decode(&self, mut index: u64, bins: &mut [usize]) {
        debug_assert_eq!(bins.len(), self.radices.len());
        debug_assert!(index < self.n_states);
        for (b, &r) in bins.iter_mut().zip(&self.radices).rev() {
            *b = (index % r as u64) as usize;
            index /= r as u64;
        }
    }
}

const GOLDEN: u64 = 0x9E37_79B9_7F4A_7C15;

/// SplitMix64's output function: a bijective 64-bit mixer.
#[inline]
pub fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The fixed 64-bit key of a bin vector (see the module header).
#[inline]
pub fn state_key(bins: &[usize]) -> u64 {
    bins.iter().fold(0u64, |h, &b| mix64(h.wrapping_add(GOLDEN) ^ b as u64))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn binning_edges_go_to_the_upper_bin() {
        let b = Binning::new(vec![100, 500, 100_000]).unwrap();
        assert_eq!(b.n_bins(), 4);
        assert_eq!(b.bin(0), 0);
        assert_eq!(b.bin(99), 0);
        assert_eq!(b.bin(100), 1);
        assert_eq!(b.bin(499), 1);
        assert_eq!(b.bin(500), 2);
        assert_eq!(b.bin(99_999), 2);
        assert_eq!(b.bin(100_000), 3);
        assert_eq!(b.bin(u64::MAX), 3);
        assert_eq!(Binning::new(vec![]).unwrap().bin(12345), 0);
        assert!(Binning::new(vec![5, 5]).is_err());
        assert!(Binning::new(vec![6, 5]).is_err());
    }

    #[test]
    fn geometric_edges() {
        let b = Binning::geometric(100, 100_000, 4).unwrap();
        assert_eq!(b.edges(), &[100, 1_000, 10_000, 100_000]);
        // RLGC's current interval: 17 bins = 16 edges from 100 us to 100 ms (in ns).
        let b = Binning::geometric(100_000, 100_000_000, 16).unwrap();
        assert_eq!(b.n_bins(), 17);
        assert_eq!(b.edges()[0], 100_000);
        assert_eq!(b.edges()[15], 100_000_000);
        assert!(Binning::geometric(0, 10, 3).is_err());
        assert!(Binning::geometric(10, 5, 3).is_err());
        assert!(Binning::geometric(1, 3, 10).is_err(), "rounding collapses edges");
        assert_eq!(Binning::geometric(7, 7, 1).unwrap().edges(), &[7]);
    }

    #[test]
    fn mixed_radix_rlgc_shape() {
        let m = MixedRadix::new(vec![2, 17, 2]).unwrap();
        assert_eq!(m.n_states(), 68);
        assert_eq!(m.encode(&[0, 0, 0]), 0);
        assert_eq!(m.encode(&[0, 0, 1]), 1);
        assert_eq!(m.encode(&[0, 1, 0]), 2);
        assert_eq!(m.encode(&[1, 0, 0]), 34);
        assert_eq!(m.encode(&[1, 16, 1]), 67);
        let mut bins = [0; 3];
        m.decode(35, &mut bins);
        assert_eq!(bins, [1, 0, 1]);
        assert!(MixedRadix::new(vec![]).is_err());
        assert!(MixedRadix::new(vec![2, 0]).is_err());
        assert!(MixedRadix::new(vec![usize::MAX, usize::MAX]).is_err());
    }

    #[test]
    fn qtc_slide_feature_space_fits_u64() {
        let m = MixedRadix::new(vec![32, 32, 3, 3, 3, 3, 3, 12, 5, 5, 2, 2, 2, 2, 2, 2, 2]).unwrap();
        // The slide's table multiplies to 9.56e9; its text says "88 x 10^8". Either fits easily.
        assert_eq!(m.n_states(), 9_555_148_800);
    }

    #[test]
    fn state_key_is_pinned_and_order_sensitive() {
        // Pinned values: a change here invalidates saved Q-table caches.
        assert_eq!(state_key(&[]), 0);
        assert_eq!(state_key(&[0]), mix64(GOLDEN));
        assert_eq!(
            state_key(&[1, 2, 3]),
            mix64(mix64(mix64(GOLDEN ^ 1).wrapping_add(GOLDEN) ^ 2).wrapping_add(GOLDEN) ^ 3)
        );
        // The first output of SplitMix64 seeded with 0 (the published test vector).
        assert_eq!(mix64(GOLDEN), 0xE220_A839_7B1D_CDAF);
        assert_ne!(state_key(&[1, 2]), state_key(&[2, 1]));
        assert_ne!(state_key(&[0]), state_key(&[0, 0]));
    }

    proptest! {
        #[test]
        fn mixed_radix_round_trip(radices in proptest::collection::vec(1usize..40, 1..8), seed in any::<u64>()) {
            let m = MixedRadix::new(radices.clone()).unwrap();
            let index = seed % m.n_states();
            let mut bins = vec![0; radices.len()];
            m.decode(index, &mut bins);
            for (b, r) in bins.iter().zip(&radices) {
                prop_assert!(b < r);
            }
            prop_assert_eq!(m.encode_u64(&bins), index);
        }

        #[test]
        fn binning_matches_a_linear_scan(mut edges in proptest::collection::vec(any::<u64>(), 0..20), v in any::<u64>()) {
            edges.sort_unstable();
            edges.dedup();
            let b = Binning::new(edges.clone()).unwrap();
            prop_assert_eq!(b.bin(v), edges.iter().filter(|&&e| e <= v).count());
        }
    }
}
