//! Layer: ftl. What every SLC policy samples over a run: the SLC region's blocks and the
//! hot/cold threshold, every `slc.sample_every_bytes` of host writes (the RL-SLC paper's Figs.
//! 5 and 6 plot them every 128 MB). The series stays bounded: past `MAX_POINTS` it keeps every
//! other point and samples half as often.

use serde_json::{json, Value};

const MAX_POINTS: usize = 4096;

#[derive(Debug, Clone)]
pub struct SlcSeries {
    page_bytes: u64,
    every_pages: u64,
    next_pages: u64,
    host_write_bytes: Vec<u64>,
    slc_blocks: Vec<u32>,
    threshold_bytes: Vec<u64>,
}

impl SlcSeries {
    pub fn new(page_bytes: u64, every_bytes: u64) -> SlcSeries {
        SlcSeries {
            page_bytes: page_bytes.max(1),
            every_pages: every_bytes.div_ceil(page_bytes.max(1)).max(1),
            next_pages: 0,
            host_write_bytes: Vec::new(),
            slc_blocks: Vec::new(),
            threshold_bytes: Vec::new(),
        }
    }

    /// Offer the state after `host_pages` host pages written; kept if a sample is due.
    #[inline]
    pub fn offer(&mut self, host_pages: u64, slc_blocks: u32, threshold_bytes: u64) {
        if host_pages < self.next_pages {
            return;
        }
        self.host_write_bytes.push(host_pages * self.page_bytes);
        self.slc_blocks.push(slc_blocks);
        self.threshold_bytes.push(threshold_bytes);
        self.next_pages = (host_pages / self.every_pages + 1) * self.every_pages;
        if self.host_write_bytes.len() >= MAX_POINTS {
            self.every_pages *= 2;
            let keep = |i: &usize| i.is_multiple_of(2);
            let idx: Vec<usize> = (0..self.host_write_bytes.len()).filter(keep).collect();
            self.host_write_bytes = idx.iter().map(|&i| self.host_write_bytes[i]).collect();
            self.slc_blocks = idx.iter().map(|&i| self.slc_blocks[i]).collect();
            self.threshold_bytes = idx.iter().map(|&i| self.threshold_bytes[i]).collect();
            self.next_pages = (host_pages / self.every_pages + 1) * self.every_pages;
        }
    }

    /// Mean of the sampled SLC sizes (0 with no sample).
    pub fn mean_slc_blocks(&self) -> f64 {
        if self.slc_blocks.is_empty() {
            0.0
        } else {
            self.slc_blocks.iter().map(|&b| b as f64).sum::<f64>() / self.slc_blocks.len() as f64
        }
    }

    pub fn to_json(&self) -> Value {
        json!({
            "every_bytes": self.every_pages * self.page_bytes,
            "host_write_bytes": self.host_write_bytes,
            "slc_blocks": self.slc_blocks,
            "threshold_bytes": self.threshold_bytes,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn samples_once_per_interval_and_stays_bounded() {
        let mut s = SlcSeries::new(4096, 8192);
        for pages in 0..10 {
            s.offer(pages, pages as u32, 4096);
        }
        // Due at 0, 2, 4, 6, 8 pages (every two pages).
        assert_eq!(s.host_write_bytes, [0, 8192, 16384, 24576, 32768]);
        assert_eq!(s.slc_blocks, [0, 2, 4, 6, 8]);
        assert_eq!(s.mean_slc_blocks(), 4.0);
        let mut s = SlcSeries::new(1, 1);
        for pages in 0..100_000 {
            s.offer(pages, 0, 0);
        }
        assert!(s.host_write_bytes.len() < MAX_POINTS);
        assert!(s.host_write_bytes.windows(2).all(|w| w[0] < w[1]));
    }
}
