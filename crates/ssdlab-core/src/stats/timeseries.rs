//! Layer: stats. Bounded time series: sampled at a fixed simulated-time interval that doubles
//! (keeping every other point) whenever the series would exceed its capacity, so memory stays
//! bounded on traces of any length.

use serde::Serialize;

use crate::units::SimTime;

#[derive(Debug, Clone, Serialize)]
pub struct TimeSeries {
    pub interval_ns: u64,
    pub time_ns: Vec<u64>,
    pub values: Vec<f64>,
    #[serde(skip)]
    next_ns: u64,
    #[serde(skip)]
    max_samples: usize,
}

impl TimeSeries {
    pub fn new(interval_ns: u64, max_samples: usize) -> TimeSeries {
        TimeSeries {
            interval_ns: interval_ns.max(1),
            time_ns: Vec::new(),
            values: Vec::new(),
            next_ns: 0,
            max_samples: max_samples.max(2),
        }
    }

    /// Offer the current value at `now`; it is kept if a sample is due.
    #[inline]
    pub fn offer(&mut self, now: SimTime, value: f64) {
        if now < self.next_ns {
            return;
        }
        self.time_ns.push(now);
        self.values.push(value);
        self.next_ns = now - now % self.interval_ns + self.interval_ns;
        if self.time_ns.len() >= self.max_samples {
            self.halve();
        }
    }

    fn halve(&mut self) {
        self.interval_ns *= 2;
        fn every_other<T>(v: &mut Vec<T>) {
            let mut i = 0;
            v.retain(|_| {
                i += 1;
                i % 2 == 1
            });
        }
        every_other(&mut self.time_ns);
        every_other(&mut self.values);
        self.next_ns = self.time_ns.last().map(|t| t - t % self.interval_ns + self.interval_ns).unwrap_or(0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stays_bounded_and_ordered() {
        let mut ts = TimeSeries::new(10, 8);
        for t in 0..10_000u64 {
            ts.offer(t, t as f64);
        }
        assert!(ts.time_ns.len() < 8);
        assert!(ts.time_ns.windows(2).all(|w| w[0] < w[1]));
        assert!(ts.interval_ns > 10);
    }
}
