//! Layer: workload. Small arithmetic the generators share: multipliers that scatter ranks over
//! a range (each rank to a distinct place, hot ranks far apart) and the on/off arrival step.

/// Greatest common divisor.
pub fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// The first multiplier from `start` (at least 1) coprime with `n`: `rank * m mod n` then visits
/// every place of `0..n` once.
pub fn coprime_from(start: u64, n: u64) -> u64 {
    let mut m = start.max(1);
    while n > 1 && gcd(m, n) != 1 {
        m += 1;
    }
    m
}

/// `rank * m mod n` without overflow (ranks and multipliers up to 2^64).
pub fn scatter(rank: u64, m: u64, n: u64) -> u64 {
    ((rank as u128 * m as u128) % n.max(1) as u128) as u64
}

/// An on/off arrival clock: a time that fell into a silent period moves to the start of the
/// next on period (`on_ns` on, then silent until `period_ns`).
pub fn skip_off_period(clock_ns: f64, on_ns: f64, period_ns: f64) -> f64 {
    let phase = clock_ns % period_ns;
    if phase >= on_ns {
        clock_ns + period_ns - phase
    } else {
        clock_ns
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_coprime_multiplier_visits_every_place_once() {
        let n = 1000;
        let m = coprime_from(618, n);
        let mut seen: Vec<u64> = (0..n).map(|r| scatter(r, m, n)).collect();
        seen.sort_unstable();
        assert_eq!(seen, (0..n).collect::<Vec<_>>());
        assert_eq!(scatter(u64::MAX, u64::MAX, 7), ((u64::MAX as u128).pow(2) % 7) as u64);
    }

    #[test]
    fn off_periods_are_skipped() {
        assert_eq!(skip_off_period(5.0, 10.0, 100.0), 5.0);
        assert_eq!(skip_off_period(150.0, 10.0, 100.0), 200.0);
    }
}
