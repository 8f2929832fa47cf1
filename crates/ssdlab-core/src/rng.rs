//! Layer: units. The run's named random streams: one seeded PCG per component, so a draw in one
//! never shifts another's sequence. No globals: each simulation derives its own from its seed.

use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;

/// Named random streams: each component draws from its own, so adding a draw in one does not
/// shift another's sequence.
#[derive(Debug, Clone, Copy)]
pub enum RngStream {
    Workload = 1,
    Warmup = 2,
    Policy = 3,
    /// The timed random writes of the warm-up (`warmup.timed_random_writes_ns`).
    TimedWarmup = 4,
    /// The write buffer's eviction policy (the RL-FSP agent's exploration).
    Eviction = 5,
    /// The region policy (the RL-SLC agent's exploration).
    Regions = 6,
}

pub fn rng_for(seed: u64, stream: RngStream) -> Pcg64Mcg {
    // Distinct, well-mixed seeds per stream (splitmix64 of seed ^ stream tag).
    let mut z = seed ^ ((stream as u64) << 56) ^ 0x9E37_79B9_7F4A_7C15;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    Pcg64Mcg::seed_from_u64(z ^ (z >> 31))
}
