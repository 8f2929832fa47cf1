//! Layer: ftl. A counting variant of the FSP paper's "Frequency" baseline (Li et al., TCAD 2024,
//! Sec. IV-A, after Lv et al., GLSVLSI 2020): historical read counts decide each cached page's
//! page type, and hot data read from slow pages is rewritten at once. Eviction id
//! `frequency_count`, settings in `[cache.page_type_eviction]`.
//!
//! Why a variant: the paper's Frequency keeps 1 bit per page ("only holds the recent frequency
//! information", 16 MB per TB, Sec. IV-D2/3), which is `frequency` (`frequency.rs`). This one
//! classifies by RL-FSP's own 4-bin long-term read count, a hand-made copy of the RL agent's main
//! state feature: a stronger baseline than the paper's, kept so the difference can be measured.
//!
//! What the paper says: it "groups FSP units with LRU tail nodes, by directly considering the
//! history information of read counts to match the suited QLC page for a specific data page",
//! and "the rewrite procedure also groups the to-be-written hot read data with the other three
//! data nodes in the LRU tail list, as an FSP unit, by following an immediate refresh fashion";
//! its trigger "is less stringent than" RL's (Sec. IV-D2).
//!
//! Our reading, and deviations:
//! * Classification: the long-term read-count bins RL uses (`history.rs`: 0-1, 2-3, 4-5, >5
//!   reads) map to MSB, CMSB, CLSB, LSB: the more a page was read, the faster its type. On a
//!   device with n types, bin b maps to type max(0, n - 1 - b).
//! * Grouping: the candidates (`candidates_fraction` of the buffer from the LRU tail, as the
//!   paper's overhead section says all three optimised policies traverse) go through the same
//!   group module as RL (`group.rs`), so the two differ only in the classifier.
//! * Rewrite trigger: a read from a slow page (the upper half of the types: CMSB, MSB) of data
//!   read more than five times before (long-term bin 3), without RL's short-term condition:
//!   the "less stringent" trigger. The page is loaded at the LRU tail and a unit is evicted at
//!   once (`Rewrite::Immediate`); being the hottest candidate, it takes the LSB page.
//! * Units shorter than a wordline (a page at a time: SLC-mode regions, page placement) are the
//!   LRU tail.

use crate::error::Result;
use crate::ftl::cache::group::{check_fsp, TypedUnits};
use crate::ftl::cache::history::{ReadHistory, LONG_TERM_BINS};
use crate::ftl::cache::{BufferView, BuildCtx, EvictionPolicy, Rewrite};
use crate::units::Lpn;
use serde_json::{json, Value};

#[derive(Clone)]
pub struct FrequencyCountEviction {
    types: u32,
    rewrite: bool,
    history: ReadHistory,
    /// Host reads so far: the history's clock.
    reads: u64,
    units: TypedUnits,
    rewrites: u64,
}

impl FrequencyCountEviction {
    pub fn new(ctx: &BuildCtx) -> Result<Self> {
        let fsp = check_fsp(ctx)?;
        Ok(FrequencyCountEviction {
            types: ctx.page_types(),
            rewrite: fsp.rewrite,
            history: ReadHistory::new(ctx.logical_pages),
            reads: 0,
            units: TypedUnits::new(ctx.page_types(), fsp.candidates_fraction),
            rewrites: 0,
        })
    }

    /// Page type for `lpn` by its read count: hotter, faster.
    #[cfg(test)]
    fn class(&self, lpn: Lpn) -> u8 {
        count_class(&self.history, self.types, lpn)
    }
}

/// Long-term bin b of a device with n types: type max(0, n - 1 - b) (scaled when n != 4).
fn count_class(history: &ReadHistory, types: u32, lpn: Lpn) -> u8 {
    let bin = history.long_term_bin(lpn.0);
    (types as usize - 1).saturating_sub(bin * (types as usize - 1) / (LONG_TERM_BINS - 1)) as u8
}

impl EvictionPolicy for FrequencyCountEviction {
    fn on_read(&mut self, lpn: Lpn, _hit: bool) {
        self.history.note_read(lpn.0, self.reads);
        self.reads += 1;
    }
    fn on_flash_read(&mut self, lpn: Lpn, page_type: u32) -> Rewrite {
        if self.rewrite && self.units.is_slow(page_type) && self.history.long_term_bin(lpn.0) == LONG_TERM_BINS - 1 {
            self.rewrites += 1;
            return Rewrite::Immediate;
        }
        Rewrite::No
    }
    fn next_unit(&mut self, view: &BufferView, unit_pages: u32, out: &mut Vec<Lpn>) {
        let (history, types) = (&self.history, self.types);
        self.units.next(view, unit_pages, out, |p| count_class(history, types, p.lpn));
    }
    fn report(&self) -> Value {
        let u = &self.units;
        json!({ "units": u.units, "substitutions": u.substitutions, "rewrites_requested": self.rewrites })
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::catalog::load;
    use crate::config::ValidatedConfig;
    use crate::ftl::cache::{PageWrite, WriteBuffer};

    pub(crate) fn ctx_config(toml: &str) -> ValidatedConfig {
        let cfg = load(Some("tiny"), &[crate::config::Layer::inline(toml)], &[]).unwrap();
        ValidatedConfig::new(cfg).unwrap()
    }

    fn policy() -> FrequencyCountEviction {
        let cfg = ctx_config(
            "[device]\ncell = \"qlc\"\n[device.timing]\nread_ns = [50_000]\n[cache]\ncapacity = \"64KiB\"\n",
        );
        let ctx = BuildCtx { cfg: &cfg, logical_pages: 64, capacity_pages: 16, rng: rand_pcg::Pcg64Mcg::new(1) };
        FrequencyCountEviction::new(&ctx).unwrap()
    }

    #[test]
    fn read_counts_pick_the_type_and_hot_slow_reads_rewrite_at_once() {
        let mut f = policy();
        for (lpn, reads) in [(1, 7), (2, 4), (3, 2), (4, 0)] {
            for _ in 0..reads {
                f.on_read(Lpn(lpn), false);
            }
        }
        assert_eq!([1, 2, 3, 4].map(|l| f.class(Lpn(l))), [0, 1, 2, 3]);
        // Buffer tail first: 4 (cold), 3, 2, 1 (hot), 5: the unit is ordered by heat, LSB first.
        let mut b = WriteBuffer::new(16, 1.0, 1.0, Box::new(crate::ftl::cache::lru::LruEviction));
        for l in [4, 3, 2, 1, 5] {
            b.insert(Lpn(l), true, PageWrite { request_pages: 1, partial: false }, 1);
        }
        let mut out = Vec::new();
        f.next_unit(&b.view(), 4, &mut out);
        assert_eq!(out, [Lpn(1), Lpn(2), Lpn(3), Lpn(4)]);
        // Rewrite: read more than 5 times before, now read from CMSB or MSB; not from LSB/CLSB.
        assert_eq!(f.on_flash_read(Lpn(1), 2), Rewrite::Immediate);
        assert_eq!(f.on_flash_read(Lpn(1), 1), Rewrite::No);
        assert_eq!(f.on_flash_read(Lpn(2), 3), Rewrite::No, "4 reads: bin 2");
    }
}
