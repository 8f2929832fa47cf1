//! Layer: ftl. Per-LPN read history for the FSP paper's page-type aware policies (Li et al.,
//! TCAD 2024, Sec. III-B): a long-term read count and when the page was last read.
//!
//! * Long-term: the accumulated read count, saturating at 255, in the paper's four bins
//!   "0 and 1, 2 and 3, 4 and 5, and >5" (`long_term_bin`, 0..=3).
//! * Time is the caller's clock (the RL policy's decision count, so "the recent episode" is the
//!   last `episode_length` decisions). A read stores `clock + 1`, so 0 means never read.
//! * Every host read counts, served by the buffer or the flash: both say the data is read.
//!
//! Memory: 5 bytes per logical page (the paper keeps 3 bits, Sec. IV-D3; a simulator can
//! afford bytes).

/// Bins of the long-term read count (Sec. III-B).
pub const LONG_TERM_BINS: usize = 4;

#[derive(Clone)]
pub struct ReadHistory {
    counts: Vec<u8>,
    /// `clock + 1` at the last read; 0: never read.
    last_read: Vec<u32>,
}

impl ReadHistory {
    pub fn new(logical_pages: u32) -> Self {
        ReadHistory { counts: vec![0; logical_pages as usize], last_read: vec![0; logical_pages as usize] }
    }

    /// A host read of `lpn` at `clock`.
    #[inline]
    pub fn note_read(&mut self, lpn: u32, clock: u64) {
        let i = lpn as usize;
        if let Some(c) = self.counts.get_mut(i) {
            *c = c.saturating_add(1);
            self.last_read[i] = (clock.min(u32::MAX as u64 - 1) + 1) as u32;
        }
    }

    /// Reads of `lpn` so far (saturating at 255).
    #[inline]
    pub fn count(&self, lpn: u32) -> u8 {
        self.counts.get(lpn as usize).copied().unwrap_or(0)
    }

    /// The paper's long-term bin: 0-1 reads -> 0, 2-3 -> 1, 4-5 -> 2, more -> 3.
    #[inline]
    pub fn long_term_bin(&self, lpn: u32) -> usize {
        (self.count(lpn) as usize / 2).min(LONG_TERM_BINS - 1)
    }

    /// Whether `lpn` was read at or after `clock`.
    #[inline]
    pub fn read_since(&self, lpn: u32, clock: u64) -> bool {
        let stamp = self.last_read.get(lpn as usize).copied().unwrap_or(0) as u64;
        stamp > clock
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bins_follow_the_paper_and_times_are_kept() {
        let mut h = ReadHistory::new(4);
        let bins: Vec<usize> = (0..8)
            .map(|k| {
                let b = h.long_term_bin(1);
                h.note_read(1, k);
                b
            })
            .collect();
        assert_eq!(bins, [0, 0, 1, 1, 2, 2, 3, 3], "0-1, 2-3, 4-5, >5");
        assert!(h.read_since(1, 7) && !h.read_since(1, 8));
        assert!(!h.read_since(2, 0), "never read");
        h.note_read(2, 0);
        assert!(h.read_since(2, 0));
        for _ in 0..300 {
            h.note_read(3, 5);
        }
        assert_eq!(h.count(3), 255);
        h.note_read(99, 0);
        assert_eq!(h.count(99), 0, "out of range: ignored");
    }
}
