//! Layer: ftl. The FSP paper's group module (Li et al., TCAD 2024, Sec. III-C, Fig. 7): from
//! eviction candidates classified by page type, build one full-sequence-program unit with one
//! page per type.
//!
//! For each type, the candidate nearest the LRU tail classified as that type. A type no
//! candidate has takes "the data page that has a neighboring action, and is closer to the tail"
//! (Fig. 7: a missing CMSB takes an MSB or CLSB page). Ours, where the paper stops: when both
//! neighbours are used up, the next nearest class is taken (distance 2, then 3), ties again to
//! the tail; types are filled LSB first. The LRU tail page always leaves (it is the nearest
//! candidate of its own class), so no page can starve in the buffer.

use crate::error::{Error, Result};
use crate::ftl::cache::page_type_eviction::{self, PageTypeEvictionSettings};
use crate::ftl::cache::{BufferView, BufferedPage, BuildCtx};
use crate::units::Lpn;

/// Page types per wordline this module handles (QLC has 4; PLC would have 5).
pub const MAX_TYPES: usize = 8;

/// The shared settings (`[cache.page_type_eviction]`, checked at load) once the page types
/// are known to fit, shared by the FSP policies.
pub fn check_fsp(ctx: &BuildCtx) -> Result<PageTypeEvictionSettings> {
    let settings = page_type_eviction::settings(ctx)?;
    if ctx.page_types() as usize > MAX_TYPES {
        return Err(Error::config("device.cell", format!("at most {MAX_TYPES} page types")));
    }
    Ok(settings)
}

/// What the two Frequency policies share around `typed_unit`: the candidate buffer, the unit
/// and substitution counts, and the rewrite module's "slow page" test.
#[derive(Clone)]
pub struct TypedUnits {
    types: u32,
    candidates_fraction: f64,
    candidates: Vec<(Lpn, u8)>,
    pub units: u64,
    pub substitutions: u64,
}

impl TypedUnits {
    pub fn new(types: u32, candidates_fraction: f64) -> Self {
        TypedUnits { types, candidates_fraction, candidates: Vec::new(), units: 0, substitutions: 0 }
    }

    /// The next unit into `out`: the LRU tail when a unit is shorter than a wordline (a page at a
    /// time), else one page per type from the candidates as `classify` types them.
    pub fn next(
        &mut self,
        view: &BufferView,
        unit_pages: u32,
        out: &mut Vec<Lpn>,
        classify: impl FnMut(&BufferedPage) -> u8,
    ) {
        if unit_pages < self.types {
            view.oldest_dirty(unit_pages, out);
            return;
        }
        let (types, fraction) = (self.types, self.candidates_fraction);
        self.substitutions += typed_unit(view, types, fraction, &mut self.candidates, out, classify) as u64;
        self.units += 1;
    }

    /// Whether a read of `page_type` may trigger a rewrite: a slow page (CMSB, MSB on QLC) of a
    /// device with more than one type.
    pub fn is_slow(&self, page_type: u32) -> bool {
        self.types > 1 && page_type >= self.types.div_ceil(2)
    }
}

/// Eviction candidates of a buffer of `capacity_pages`: `fraction` of its pages (the paper's
/// fixed 5 % of the LRU list's nodes, Sec. IV-A), at least one unit.
pub fn candidate_count(capacity_pages: u32, fraction: f64, unit_pages: u32) -> usize {
    ((capacity_pages as f64 * fraction).floor() as usize).max(unit_pages as usize)
}

/// Collect up to `limit` dirty pages from the LRU tail with their class (`classify`), into
/// `out` (cleared), stopping early once every one of the `n` classes has a page: the group is
/// then decided, since each type takes its class's page nearest the tail.
pub fn collect_candidates(
    view: &BufferView,
    limit: usize,
    n: usize,
    out: &mut Vec<(Lpn, u8)>,
    mut classify: impl FnMut(&BufferedPage) -> u8,
) {
    out.clear();
    let all = (1u32 << n) - 1;
    let mut seen = 0u32;
    for p in view.from_tail().filter(|p| p.dirty).take(limit) {
        let class = classify(&p);
        out.push((p.lpn, class));
        seen |= 1 << class;
        if seen == all && out.len() >= n {
            break;
        }
    }
}

/// One full-sequence-program unit of `types` pages into `out`: the candidates
/// (`candidate_count`), each classified by `classify`, grouped by type (`group_by_type`);
/// `candidates` is scratch. Returns the slots that took a substitute.
pub fn typed_unit(
    view: &BufferView,
    types: u32,
    candidates_fraction: f64,
    candidates: &mut Vec<(Lpn, u8)>,
    out: &mut Vec<Lpn>,
    classify: impl FnMut(&BufferedPage) -> u8,
) -> u32 {
    let limit = candidate_count(view.capacity(), candidates_fraction, types);
    collect_candidates(view, limit, types as usize, candidates, classify);
    group_by_type(candidates, types as usize, out)
}

/// Fill `out` (cleared) with one page per type, slot i for type i, from `candidates` (LRU tail
/// first, each with its class `< n`); fewer than `n` candidates: all of them, in tail order
/// (too few for a wordline: they are programmed page by page).
/// Returns how many slots took a substitute.
pub fn group_by_type(candidates: &[(Lpn, u8)], n: usize, out: &mut Vec<Lpn>) -> u32 {
    out.clear();
    if candidates.len() < n {
        out.extend(candidates.iter().map(|c| c.0));
        return 0;
    }
    debug_assert!(n <= MAX_TYPES);
    let mut taken = [usize::MAX; MAX_TYPES];
    // Exact matches first, so a substitute never takes a page its own type wanted.
    for (t, slot) in taken.iter_mut().enumerate().take(n) {
        if let Some(i) = candidates.iter().position(|c| c.1 as usize == t) {
            *slot = i;
        }
    }
    let mut substituted = 0;
    for t in 0..n {
        if taken[t] != usize::MAX {
            continue;
        }
        // Nearest class, then nearest the tail.
        let best = candidates
            .iter()
            .enumerate()
            .filter(|(i, _)| !taken[..n].contains(i))
            .min_by_key(|(i, c)| ((c.1 as i32 - t as i32).unsigned_abs(), *i))
            .map(|(i, _)| i);
        if let Some(i) = best {
            taken[t] = i;
            substituted += 1;
        }
    }
    out.extend(taken[..n].iter().map(|&i| candidates[i].0));
    substituted
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cands(classes: &[u8]) -> Vec<(Lpn, u8)> {
        classes.iter().enumerate().map(|(i, &c)| (Lpn(i as u32), c)).collect()
    }

    fn lpns(out: &[Lpn]) -> Vec<u32> {
        out.iter().map(|l| l.0).collect()
    }

    #[test]
    fn one_page_per_type_nearest_the_tail() {
        let mut out = Vec::new();
        // Tail first: classes 3, 0, 0, 1, 2, 1.
        let s = group_by_type(&cands(&[3, 0, 0, 1, 2, 1]), 4, &mut out);
        assert_eq!((lpns(&out), s), (vec![1, 3, 4, 0], 0));
    }

    #[test]
    fn a_missing_type_takes_the_nearest_neighbour_closer_to_the_tail() {
        let mut out = Vec::new();
        // Fig. 7: no CMSB (2). Neighbours are CLSB (1) and MSB (3); the unused one nearest the
        // tail is MSB at position 2 (the CLSB at 1 is taken by CLSB itself; the next CLSB is at 5).
        let s = group_by_type(&cands(&[0, 1, 3, 3, 0, 1]), 4, &mut out);
        assert_eq!((lpns(&out), s), (vec![0, 1, 3, 2], 1));
        // No CLSB (1) and no CMSB (2): CLSB takes the LSB at 2 (distance 1, nearer than the MSB
        // at 4), CMSB then the MSB at 4 (distance 1).
        let s = group_by_type(&cands(&[0, 3, 0, 3, 3]), 4, &mut out);
        assert_eq!((lpns(&out), s), (vec![0, 2, 3, 1], 2));
        // Everything MSB: LSB takes the nearest class (3, distance 3) after MSB took its own.
        let s = group_by_type(&cands(&[3, 3, 3, 3, 3]), 4, &mut out);
        assert_eq!((lpns(&out), s), (vec![1, 2, 3, 0], 3));
    }

    #[test]
    fn the_tail_page_always_leaves_and_few_candidates_go_in_order() {
        let mut out = Vec::new();
        for classes in [[2u8, 2, 2, 2, 1], [0, 1, 2, 3, 0], [1, 1, 1, 0, 0]] {
            group_by_type(&cands(&classes), 4, &mut out);
            assert!(out.contains(&Lpn(0)), "{classes:?}");
            let mut sorted = lpns(&out);
            sorted.sort();
            sorted.dedup();
            assert_eq!(sorted.len(), 4, "distinct pages");
        }
        group_by_type(&cands(&[3, 0]), 4, &mut out);
        assert_eq!(lpns(&out), [0, 1]);
        group_by_type(&cands(&[3, 2, 1, 0]), 4, &mut out);
        assert_eq!(lpns(&out), [3, 2, 1, 0], "exactly one wordline: still by type");
    }
}
