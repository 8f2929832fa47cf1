//! Layer: ftl. The FSP paper's "Distance" baseline (Li et al., TCAD 2024, Sec. IV-A), after
//! OSPADA (Wu et al., ICCD 2018): a full-sequence-program unit groups pages whose logical
//! addresses are far apart, so a later sequential read spreads over wordlines (and planes)
//! rather than queueing on one. Eviction id `distance`, settings in `[cache.page_type_eviction]`.
//!
//! What the paper says: OSPADA groups "the application data that do not have adjacent addresses
//! into a storage unit"; "the distance threshold is set as half of the page number of the total
//! write back cache"; the candidates are the paper's 5 % of the LRU tail (Sec. IV-D3).
//!
//! Our reading: the LRU tail page first; then, tail first among the candidates, each page at
//! least `distance_fraction` x the buffer's page count away (in LPN) from every page chosen so
//! far; if the candidates hold too few such pages, the unit is completed with the remaining
//! candidates nearest the tail. The unit keeps that order: no page-type awareness (slot i is
//! page type i). Units shorter than a wordline are the LRU tail.

use crate::error::{Error, Result};
use crate::ftl::cache::group::candidate_count;
use crate::ftl::cache::group::check_fsp;
use crate::ftl::cache::{BufferView, BuildCtx, EvictionPolicy};
use crate::units::Lpn;
use serde_json::{json, Value};

#[derive(Clone)]
pub struct DistanceEviction {
    types: u32,
    candidates_fraction: f64,
    threshold_lpns: u32,
    candidates: Vec<Lpn>,
    units: u64,
    /// Units completed with pages closer than the threshold.
    filled: u64,
}

impl DistanceEviction {
    pub fn new(ctx: &BuildCtx) -> Result<Self> {
        let fsp = check_fsp(ctx)?;
        let f = fsp.distance_fraction;
        if !(0.0..=1.0).contains(&f) {
            return Err(Error::config(
                "cache.page_type_eviction.distance_fraction",
                format!("must be in [0, 1], got {f}"),
            ));
        }
        Ok(DistanceEviction {
            types: ctx.page_types(),
            candidates_fraction: fsp.candidates_fraction,
            threshold_lpns: (ctx.capacity_pages as f64 * f).floor() as u32,
            candidates: Vec::new(),
            units: 0,
            filled: 0,
        })
    }
}

impl EvictionPolicy for DistanceEviction {
    fn next_unit(&mut self, view: &BufferView, unit_pages: u32, out: &mut Vec<Lpn>) {
        let n = unit_pages as usize;
        if unit_pages < self.types {
            view.oldest_dirty(unit_pages, out);
            return;
        }
        let limit = candidate_count(view.capacity(), self.candidates_fraction, unit_pages);
        let mut rest = std::mem::take(&mut self.candidates);
        rest.clear();
        for p in view.from_tail().filter(|p| p.dirty).take(limit) {
            let far = out.iter().all(|c: &Lpn| c.0.abs_diff(p.lpn.0) >= self.threshold_lpns);
            if out.len() < n && far {
                out.push(p.lpn);
                if out.len() == n {
                    break;
                }
            } else {
                rest.push(p.lpn);
            }
        }
        if out.len() < n {
            self.filled += 1;
            let missing = n - out.len();
            out.extend(rest.iter().take(missing));
        }
        self.candidates = rest;
        self.units += 1;
    }
    fn report(&self) -> Value {
        json!({ "units": self.units, "units_below_threshold": self.filled, "threshold_lpns": self.threshold_lpns })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ftl::cache::frequency_count::tests::ctx_config;
    use crate::ftl::cache::lru::LruEviction;
    use crate::ftl::cache::{PageWrite, WriteBuffer};

    #[test]
    fn pages_far_apart_first_then_the_nearest_to_the_tail() {
        // 20 pages of buffer, candidates 100 %: threshold 10 LPNs.
        let cfg = ctx_config("[device]\ncell = \"qlc\"\n[device.timing]\nread_ns = [50_000]\n[cache]\ncapacity = \"80KiB\"\n[cache.page_type_eviction]\ncandidates_fraction = 1.0\n");
        let ctx = BuildCtx { cfg: &cfg, logical_pages: 200, capacity_pages: 20, rng: rand_pcg::Pcg64Mcg::new(1) };
        let mut d = DistanceEviction::new(&ctx).unwrap();
        assert_eq!(d.threshold_lpns, 10);
        let mut b = WriteBuffer::new(20, 1.0, 1.0, Box::new(LruEviction));
        for l in [100, 101, 105, 111, 90, 130, 131] {
            b.insert(Lpn(l), true, PageWrite { request_pages: 1, partial: false }, 1);
        }
        let mut out = Vec::new();
        d.next_unit(&b.view(), 4, &mut out);
        assert_eq!(out, [Lpn(100), Lpn(111), Lpn(90), Lpn(130)]);
        // Sequential data: nothing is far enough; the unit is the LRU tail.
        let mut b = WriteBuffer::new(20, 1.0, 1.0, Box::new(LruEviction));
        for l in 0..6 {
            b.insert(Lpn(l), true, PageWrite { request_pages: 1, partial: false }, 1);
        }
        out.clear();
        d.next_unit(&b.view(), 4, &mut out);
        assert_eq!(out, [Lpn(0), Lpn(1), Lpn(2), Lpn(3)]);
        assert_eq!(d.report()["units_below_threshold"], 1);
    }
}
