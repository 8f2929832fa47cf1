//! Layer: ftl. The FSP paper's "Frequency" baseline as the paper describes it (Li et al., TCAD
//! 2024, Sec. IV-A and IV-D2/3, after Lv et al., GLSVLSI 2020): one bit of recent read
//! information per page decides its page type, and hot data read from slow pages is rewritten at
//! once. Eviction id `frequency`, settings in `[cache.page_type_eviction]`.
//!
//! What the paper says: Frequency "groups FSP units with LRU tail nodes, by directly considering
//! the history information of read counts to match the suited QLC page"; it "only holds the
//! recent frequency information whose trigger condition is less stringent than" RL's (Sec.
//! IV-D2), and it needs 16 MB for a 1 TB SSD where RL's 3 bits per page need 48 MB (Sec. IV-D3):
//! one bit per 8 KiB page.
//!
//! Our reading, and deviations:
//! * The bit: set by a host read of the page (buffer hits included), and cleared for every page
//!   each `cache.page_type_eviction.episode_length` host reads (ours: the paper does not say how the bit ages;
//!   one bit allows only a periodic reset, and RL's own short-term bit covers an episode).
//! * Classification: a page whose bit is set goes to the fastest type (LSB), the others to the
//!   slowest (MSB); the group module (`group.rs`) fills the middle types by substitution, nearest
//!   class first, as for RL.
//! * Rewrite trigger: a read from a slow page (CMSB, MSB) of data whose bit was set before this
//!   read: less stringent than RL's (long-term bin 3 and the short-term bit). The page is loaded
//!   at the LRU tail and a unit is evicted at once (`Rewrite::Immediate`).
//! * Units shorter than a wordline (a page at a time) are the LRU tail.
//!
//! `frequency_count` (`frequency_count.rs`) is the earlier, stronger reading that uses RL-FSP's
//! 4-bin long-term read count.

use serde_json::{json, Value};

use crate::error::{Error, Result};
use crate::ftl::cache::group::{check_fsp, TypedUnits};
use crate::ftl::cache::{BufferView, BuildCtx, EvictionPolicy, Rewrite};
use crate::units::Lpn;

/// One bit per logical page.
#[derive(Debug, Clone)]
struct RecentBits {
    words: Vec<u64>,
}

impl RecentBits {
    fn new(pages: u32) -> Self {
        RecentBits { words: vec![0; (pages as usize).div_ceil(64)] }
    }
    fn set(&mut self, lpn: u32) {
        if let Some(w) = self.words.get_mut(lpn as usize / 64) {
            *w |= 1 << (lpn % 64);
        }
    }
    fn get(&self, lpn: u32) -> bool {
        self.words.get(lpn as usize / 64).is_some_and(|w| w >> (lpn % 64) & 1 == 1)
    }
    fn clear(&mut self) {
        self.words.fill(0);
    }
}

#[derive(Clone)]
pub struct FrequencyEviction {
    types: u32,
    rewrite: bool,
    recent: RecentBits,
    /// Host reads between two resets of the bits.
    reset_every_reads: u64,
    reads_since_reset: u64,
    units: TypedUnits,
    rewrites: u64,
    resets: u64,
}

impl FrequencyEviction {
    pub fn new(ctx: &BuildCtx) -> Result<Self> {
        let fsp = check_fsp(ctx)?;
        let every = fsp.episode_length;
        if every == 0 {
            return Err(Error::config("cache.page_type_eviction.episode_length", "must be at least 1"));
        }
        Ok(FrequencyEviction {
            types: ctx.page_types(),
            rewrite: fsp.rewrite,
            recent: RecentBits::new(ctx.logical_pages),
            reset_every_reads: every,
            reads_since_reset: 0,
            units: TypedUnits::new(ctx.page_types(), fsp.candidates_fraction),
            rewrites: 0,
            resets: 0,
        })
    }

    /// LSB for a recently read page, MSB for the others.
    #[cfg(test)]
    fn class(&self, lpn: Lpn) -> u8 {
        bit_class(&self.recent, self.types, lpn)
    }
}

fn bit_class(recent: &RecentBits, types: u32, lpn: Lpn) -> u8 {
    if recent.get(lpn.0) {
        0
    } else {
        (types - 1) as u8
    }
}

impl EvictionPolicy for FrequencyEviction {
    fn on_read(&mut self, lpn: Lpn, _hit: bool) {
        self.reads_since_reset += 1;
        if self.reads_since_reset > self.reset_every_reads {
            self.recent.clear();
            self.reads_since_reset = 1;
            self.resets += 1;
        }
        self.recent.set(lpn.0);
    }
    fn on_flash_read(&mut self, lpn: Lpn, page_type: u32) -> Rewrite {
        // Called before this read's `on_read`: the bit says whether the page was read before.
        if self.rewrite && self.units.is_slow(page_type) && self.recent.get(lpn.0) {
            self.rewrites += 1;
            return Rewrite::Immediate;
        }
        Rewrite::No
    }
    fn next_unit(&mut self, view: &BufferView, unit_pages: u32, out: &mut Vec<Lpn>) {
        let (recent, types) = (&self.recent, self.types);
        self.units.next(view, unit_pages, out, |p| bit_class(recent, types, p.lpn));
    }
    fn report(&self) -> Value {
        json!({
            "units": self.units.units,
            "substitutions": self.units.substitutions,
            "rewrites_requested": self.rewrites,
            "bit_resets": self.resets,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ftl::cache::frequency_count::tests::ctx_config;
    use crate::ftl::cache::lru::LruEviction;
    use crate::ftl::cache::{PageWrite, WriteBuffer};

    fn policy(fsp: &str) -> FrequencyEviction {
        let cfg = ctx_config(&format!(
            "[device]\ncell = \"qlc\"\n[device.timing]\nread_ns = [50_000]\n[cache]\ncapacity = \"64KiB\"\n[cache.page_type_eviction]\n{fsp}"
        ));
        let ctx = BuildCtx { cfg: &cfg, logical_pages: 200, capacity_pages: 16, rng: rand_pcg::Pcg64Mcg::new(1) };
        FrequencyEviction::new(&ctx).unwrap()
    }

    #[test]
    fn one_bit_picks_lsb_or_msb_and_ages_by_periodic_reset() {
        let mut f = policy("episode_length = 3\n");
        f.on_read(Lpn(1), false);
        f.on_read(Lpn(130), false);
        assert_eq!([1, 2, 130].map(|l| f.class(Lpn(l))), [0, 3, 0], "read: LSB; never read: MSB");
        // Buffer tail first: 2 (cold), 1 (hot), 3, 4 (cold): LSB takes the hot page, MSB the
        // tail, the middle types the next tail pages by substitution.
        let mut b = WriteBuffer::new(16, 1.0, 1.0, Box::new(LruEviction));
        for l in [2, 1, 3, 4] {
            b.insert(Lpn(l), true, PageWrite { request_pages: 1, partial: false }, 1);
        }
        let mut out = Vec::new();
        f.next_unit(&b.view(), 4, &mut out);
        assert_eq!(out[0], Lpn(1));
        assert_eq!(out[3], Lpn(2));
        // Rewrite: a slow-page read of data read before; not of data read for the first time.
        assert_eq!(f.on_flash_read(Lpn(1), 3), Rewrite::Immediate);
        assert_eq!(f.on_flash_read(Lpn(1), 1), Rewrite::No, "CLSB is fast");
        assert_eq!(f.on_flash_read(Lpn(5), 3), Rewrite::No, "never read");
        // The third read fills the window; the fourth resets every bit first.
        f.on_read(Lpn(7), false);
        assert!(f.recent.get(1));
        f.on_read(Lpn(8), false);
        assert_eq!([1, 7, 8, 130].map(|l| f.recent.get(l)), [false, false, true, false]);
        assert_eq!(f.report()["bit_resets"], 1);
        assert_eq!(f.recent.words.len(), 4, "one bit per logical page");
    }
}
