//! Layer: ftl. LearnedFTL (Wang, Lin, Wu, Zhou, Xu, Li; HPCA 2024): TPFTL's two-level cached
//! mapping table (`tpftl.rs`) in front of a model layer in the GTD (Sec. 3.1). Every GTD entry
//! (translation page) has a model: a start VPPN, a DPLR of at most N segments (`dplr.rs`, Sec.
//! 3.2) over (LPN offset, VPPN offset), and a bitmap with one bit per LPN of the page, set only
//! where the model's prediction is exact (Sec. 3.4).
//!
//! * **Read.** CMT hit: no translation read. Miss with the LPN's bit set: the model predicts the
//!   VPPN, which is turned into the PPN (`nand/vppn.rs`, Sec. 3.3.2): the data read starts at
//!   once ("model hit", no translation read). Otherwise TPFTL's miss path: one translation read,
//!   request-level and selective prefetch, exactly what a TPFTL miss costs.
//! * **Write, trim.** TPFTL's path; the LPN's bit is cleared (Sec. 3.4: a bit is only ever set for
//!   an exact prediction).
//! * **Sequential initialisation** (Sec. 3.2). A model starts as y = x with no start VPPN and no
//!   bit set. The first write run of consecutive LPNs of the entry that lands on consecutive
//!   VPPNs sets the start VPPN (so that the run is y = x) and the run's bits; the bits of its later
//!   pages are set as long as the run continues.
//! * **Training** (Sec. 3.3.3). GC hands every victim step's moves to `relocated`. Each GTD entry
//!   with moved data pages is retrained there: its translation page is read and rewritten with
//!   the new locations (a read-modify-write charged as any GC write-back, also when its moved
//!   entries were cached), the entry's valid (LPN, VPPN) pairs, sorted by LPN, train a new DPLR
//!   whose start is the VPPN of its first valid LPN, and the bitmap is rebuilt from the exact
//!   predictions. With group-based allocation and sorted write-back the moved pages of an entry
//!   are consecutive VPPNs, and the model predicts nearly all of them; with any other placement
//!   the model is still trained and the bitmap admits only what it gets right.
//!
//! Deviations and choices (see also the LearnedFTL artifact notes in docs/policies/mapping.md):
//! * Predictions are filtered by the bitmap alone; the artifact also checks each prediction
//!   against the true table (an oracle) and never clears bits on overwrite. Here a bit is
//!   cleared on every overwrite and trim, a relocation retrains (and so rebuilds the bits of)
//!   every translation page it touches, and every
//!   model hit is checked against the simulator's exact table: a wrong one is an invariant
//!   error, never a silent fallback.
//! * Training runs in every GC step that moves an entry's data (the paper trains in group GC);
//!   the controller's computing time for sorting and training is not charged (the paper measures
//!   it at up to 3.2 % of GC time, Fig. 16, and finds no effect on host latency, Fig. 17).
//! * The model DRAM is `model_bytes` per translation page (Sec. 4.1: 96 B), whatever the
//!   simulator's representation.

pub mod dplr;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::error::{ConfigProblem, Error, Result};
use crate::ftl::mapping::tpftl::{self, Tpftl, TpftlSettings};
use crate::ftl::mapping::{BuildCtx, MapCtx, Mapping, Relocation, Translation};
use crate::nand::vppn::VirtualPages;
use crate::registry::{PolicySettings, PolicyTables, Settings};
use crate::units::ByteSize;
use crate::units::{Lpn, Ppn, SimTime};
use dplr::Dplr;

/// `[ftl.learned]`: LearnedFTL (Wang et al., HPCA 2024): TPFTL's two-level cache (`[ftl.tpftl]`
/// for everything but its size) in front of a model layer in the GTD: per translation page a
/// piecewise linear model over (LPN, virtual PPN) and a bitmap of the LPNs it predicts exactly.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct LearnedSettings {
    /// DRAM for LearnedFTL's cached mapping table, in bytes (its models come on top).
    pub cmt_bytes: ByteSize,
    /// Most linear segments per model (Sec. 3.2: N, 8 by default).
    pub max_segments: u32,
    /// DRAM bytes one model takes; 0 derives it as Sec. 4.1 does: an 8-byte start PPN, 3 bytes
    /// per segment and one bit per entry of the translation page (96 for 8 segments and 512
    /// entries).
    pub model_bytes: u32,
    /// Whether LearnedFTL's translation-page programs take time: `charged` (the default, as for
    /// DFTL and TPFTL) or `none`, the accounting of the authors' FEMU code (`ld-tpftl.c`, whose
    /// `translation_write_page` leaves the program's `ssd_advance_status` call commented out,
    /// while their `dftl.c` and `tpftl.c` charge it). With `none` the page is still placed and
    /// written (translation writes, programs, WAF and wear count it) but books no chip: nothing
    /// waits for it, neither the request that evicted the entry nor any later operation on that
    /// chip. The read of the page's stored copy is still charged. Translation pages moved by GC
    /// are GC copies and keep their time either way.
    pub translation_program_time: TranslationProgramTime,
}

/// `ftl.learned.translation_program_time`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TranslationProgramTime {
    /// A translation-page program books its chip for tPROG, like any program.
    #[default]
    Charged,
    /// Written and counted, but in no time (the LearnedFTL artifact's accounting).
    None,
}

impl Default for LearnedSettings {
    fn default() -> Self {
        LearnedSettings {
            cmt_bytes: ByteSize(64 * 1024),
            max_segments: 8,
            model_bytes: 0,
            translation_program_time: TranslationProgramTime::Charged,
        }
    }
}

impl PolicySettings for LearnedSettings {
    fn problems(&self) -> Vec<(&'static str, String)> {
        if (1..=64).contains(&self.max_segments) {
            Vec::new()
        } else {
            vec![("max_segments", "must be between 1 and 64".into())]
        }
    }
}

/// Where the settings are written (`[ftl.learned]`); the cache's node and entry sizes come from
/// `[ftl.tpftl]`, so the cache's size is checked against them.
pub const SETTINGS: Settings = Settings::of::<LearnedSettings>("ftl.learned").cross_checked(cache_holds_a_node);

/// `cmt_bytes` must hold one node of `[ftl.tpftl]` with one entry.
fn cache_holds_a_node(tables: &PolicyTables) -> Vec<ConfigProblem> {
    let (l, t): (LearnedSettings, TpftlSettings) = (SETTINGS.values(tables), tpftl::SETTINGS.values(tables));
    if l.cmt_bytes.0 >= t.smallest_cache() {
        return Vec::new();
    }
    vec![ConfigProblem {
        key: "ftl.learned.cmt_bytes".into(),
        reason: format!("must hold at least one node with one entry ({} bytes)", t.smallest_cache()),
    }]
}

/// DRAM of one model as Sec. 4.1 counts it: an 8-byte start PPN, a 3-byte <k, b, off> per
/// segment and one bit per entry of the translation page; or the configured figure.
pub fn model_bytes(cfg: &LearnedSettings, entries_per_page: u32) -> u64 {
    if cfg.model_bytes > 0 {
        cfg.model_bytes as u64
    } else {
        8 + 3 * cfg.max_segments as u64 + (entries_per_page as u64).div_ceil(8)
    }
}

/// The model layer of one GTD entry.
#[derive(Debug, Clone)]
struct Model {
    dplr: Dplr,
    /// VPPN of offset 0 under the model (None: sequential initialisation still waits for its
    /// first contiguous write).
    start_vppn: Option<i64>,
    /// Still the y = x of sequential initialisation (never trained).
    initial: bool,
}

#[derive(Debug, Clone, Copy, Default, serde::Serialize)]
pub struct LearnedStats {
    /// Read pages served by a model prediction (CMT miss, bit set).
    pub model_hits: u64,
    /// Read pages that missed both the CMT and the bitmap.
    pub model_misses: u64,
    /// Entries retrained, and the valid pages they were trained on.
    pub trainings: u64,
    pub trained_pages: u64,
    /// Bits set by training (exact predictions) and by sequential initialisation.
    pub bits_set_by_training: u64,
    pub bits_set_by_initialisation: u64,
    /// Bits cleared by overwrites and trims (a relocation retrains its page, which rebuilds
    /// every bit of it).
    pub bits_cleared: u64,
    /// Entries whose start VPPN sequential initialisation set.
    pub initialised_entries: u64,
}

#[derive(Clone)]
pub struct Learned {
    tp: Tpftl,
    vp: VirtualPages,
    /// Physical pages: a prediction outside them is no page.
    physical_pages: u64,
    models: Vec<Model>,
    /// One bit per LPN: its model predicts it exactly.
    bits: Vec<u64>,
    max_segments: usize,
    model_bytes: u64,
    /// The last write: (LPN, VPPN), for sequential initialisation's runs.
    last_write: Option<(u32, i64)>,
    /// Scratch: a lookup's model predictions (LPN, PPN), checked against the table after it.
    predictions: Vec<(u32, Option<Ppn>)>,
    /// Scratch for training.
    xs: Vec<u32>,
    ys: Vec<i64>,
    exact: Vec<bool>,
    pages: Vec<u32>,
    stats: LearnedStats,
}

pub fn build(ctx: &BuildCtx) -> Result<Box<dyn Mapping>> {
    let l: LearnedSettings = SETTINGS.decode(&ctx.cfg.policy_tables)?;
    let t: TpftlSettings = tpftl::SETTINGS.decode(&ctx.cfg.policy_tables)?;
    let mut tp = Tpftl::from_config(ctx, &t, l.cmt_bytes.0);
    tp.directory_mut().set_timed_programs(l.translation_program_time == TranslationProgramTime::Charged);
    let tpages = tp.directory().pages() as usize;
    Ok(Box::new(Learned {
        tp,
        vp: VirtualPages::new(&ctx.cfg.geometry()),
        physical_pages: ctx.cfg.geometry().pages(),
        models: vec![Model { dplr: Dplr::identity(), start_vppn: None, initial: true }; tpages],
        bits: vec![0; (ctx.logical_pages as usize).div_ceil(64)],
        max_segments: l.max_segments as usize,
        model_bytes: ctx.model_bytes(),
        last_write: None,
        predictions: Vec::new(),
        xs: Vec::new(),
        ys: Vec::new(),
        exact: Vec::new(),
        pages: Vec::new(),
        stats: LearnedStats::default(),
    }))
}

impl Learned {
    fn bit(&self, lpn: u32) -> bool {
        self.bits[lpn as usize / 64] >> (lpn % 64) & 1 == 1
    }

    fn set_bit(&mut self, lpn: u32, on: bool) {
        let (w, b) = (lpn as usize / 64, lpn % 64);
        if on {
            self.bits[w] |= 1 << b;
        } else {
            self.bits[w] &= !(1 << b);
        }
    }

    fn clear_bit(&mut self, lpn: u32) {
        if self.bit(lpn) {
            self.set_bit(lpn, false);
            self.stats.bits_cleared += 1;
        }
    }

    /// `lpn`'s offset in its translation page and the page.
    fn place(&self, lpn: u32) -> (usize, u32) {
        let per = self.tp.directory().entries_per_page();
        ((lpn / per) as usize, lpn % per)
    }

    /// Sequential initialisation (Sec. 3.2) after `lpn` was written at VPPN `vppn`.
    fn initialise(&mut self, lpn: u32, vppn: i64) {
        let (e, x) = self.place(lpn);
        let previous = self.last_write.replace((lpn, vppn));
        if !self.models[e].initial {
            return;
        }
        let continues = previous.is_some_and(|(l, v)| l + 1 == lpn && v + 1 == vppn && self.place(l).0 == e);
        match self.models[e].start_vppn {
            None if continues => {
                // The entry's first contiguous write: y = x through it.
                let start = vppn - x as i64;
                self.models[e].start_vppn = Some(start);
                self.stats.initialised_entries += 1;
                for l in [lpn - 1, lpn] {
                    self.set_bit(l, true);
                    self.stats.bits_set_by_initialisation += 1;
                }
            }
            Some(start) if continues && start + x as i64 == vppn && previous.is_some_and(|(l, _)| self.bit(l)) => {
                // The initialising run goes on.
                self.set_bit(lpn, true);
                self.stats.bits_set_by_initialisation += 1;
            }
            _ => {}
        }
    }

    /// Retrain entry `e` on its valid (LPN, VPPN) pairs and rebuild its bits.
    fn train(&mut self, e: usize) {
        let per = self.tp.directory().entries_per_page();
        let first = e as u32 * per;
        let end = (first + per).min(self.tp.table().logical_pages());
        self.xs.clear();
        self.ys.clear();
        let mut start = None;
        for lpn in first..end {
            let Some(ppn) = self.tp.table().get(Lpn(lpn)) else { continue };
            let v = self.vp.to_vppn(ppn) as i64;
            let s = *start.get_or_insert(v);
            self.xs.push(lpn - first);
            self.ys.push(v - s);
        }
        self.stats.trainings += 1;
        self.stats.trained_pages += self.xs.len() as u64;
        let dplr = dplr::train_into(&self.xs, &self.ys, self.max_segments, &mut self.exact);
        self.clear_bits(first, end);
        for k in 0..self.exact.len() {
            if self.exact[k] {
                self.set_bit(first + self.xs[k], true);
                self.stats.bits_set_by_training += 1;
            }
        }
        self.models[e] = Model { dplr, start_vppn: start, initial: false };
    }

    /// Clear the bits of LPNs `first..end`, a word at a time.
    fn clear_bits(&mut self, first: u32, end: u32) {
        let mut lpn = first;
        while lpn < end {
            let (w, b) = (lpn as usize / 64, lpn % 64);
            let n = (64 - b).min(end - lpn);
            let mask = if n == 64 { u64::MAX } else { ((1u64 << n) - 1) << b };
            self.bits[w] &= !mask;
            lpn += n;
        }
    }
}

impl Mapping for Learned {
    fn lookup(&mut self, lpns: &[Lpn], out: &mut Vec<Translation>, ctx: &mut MapCtx) -> Result<()> {
        let mut predictions = std::mem::take(&mut self.predictions);
        predictions.clear();
        let (bits, models, vp, physical) = (&self.bits, &self.models, &self.vp, self.physical_pages);
        let per = self.tp.directory().entries_per_page();
        let stats = &mut self.stats;
        let mut by_model = |lpn: u32| {
            if bits[lpn as usize / 64] >> (lpn % 64) & 1 == 0 {
                stats.model_misses += 1;
                return false;
            }
            let m = &models[(lpn / per) as usize];
            let vppn = m.start_vppn.map(|s| s + m.dplr.predict(lpn % per));
            let ppn =
                vppn.and_then(|v| u32::try_from(v).ok()).filter(|&v| (v as u64) < physical).map(|v| vp.to_ppn(v).0);
            predictions.push((lpn, ppn.map(Ppn)));
            stats.model_hits += 1;
            true
        };
        self.tp.lookup_with(lpns, out, ctx, &mut by_model)?;
        for &(lpn, predicted) in &predictions {
            let actual = self.tp.table().get(Lpn(lpn));
            if actual != predicted {
                return Err(Error::invariant(format!(
                    "LearnedFTL's model predicted {predicted:?} for LPN {lpn}, which is at {actual:?}: a bitmap bit \
                     was left set"
                )));
            }
        }
        self.predictions = predictions;
        Ok(())
    }

    fn update(&mut self, lpn: Lpn, ppn: Ppn, ctx: &mut MapCtx) -> Result<(Option<Ppn>, SimTime)> {
        let r = self.tp.update(lpn, ppn, ctx)?;
        self.clear_bit(lpn.0);
        let vppn = self.vp.to_vppn(ppn) as i64;
        self.initialise(lpn.0, vppn);
        Ok(r)
    }

    fn premap(&mut self, lpn: Lpn, ppn: Ppn) {
        self.tp.premap(lpn, ppn);
    }

    fn relocated(&mut self, moves: &[Relocation], ctx: &mut MapCtx) -> Result<()> {
        let mut pages = std::mem::take(&mut self.pages);
        // Every translation page with a moved data page is rewritten and retrained: training
        // rebuilds all of its bits, the moved pages' included.
        self.tp.relocate(moves, true, &mut pages, ctx)?;
        for &tp in &pages {
            self.train(tp as usize);
        }
        self.pages = pages;
        Ok(())
    }

    fn unmap(&mut self, lpn: Lpn, ctx: &mut MapCtx) -> Result<Option<Ppn>> {
        self.clear_bit(lpn.0);
        self.tp.unmap(lpn, ctx)
    }

    fn peek(&self, lpn: Lpn) -> Option<Ppn> {
        self.tp.peek(lpn)
    }

    fn translation_page(&self, tpage: u32) -> Option<Ppn> {
        self.tp.translation_page(tpage)
    }

    /// The bitmap word a lookup tests first, then what TPFTL's lookup reads.
    fn touch(&self, lpn: Lpn) {
        if let Some(w) = self.bits.get(lpn.index() / 64) {
            crate::units::prefetch(w);
        }
        self.tp.touch(lpn);
    }

    fn logical_pages(&self) -> u32 {
        self.tp.logical_pages()
    }

    fn reset_stats(&mut self) {
        self.tp.reset_stats();
        self.stats = LearnedStats::default();
    }

    /// The CMT, the GTD and a model per translation page.
    fn dram_bytes(&self) -> u64 {
        self.tp.dram_bytes() + self.models.len() as u64 * self.model_bytes
    }

    fn report(&self) -> serde_json::Value {
        let mut r = self.tp.report();
        let s = self.stats;
        let cmt = self.tp.stats();
        let bits_set = self.bits.iter().map(|w| w.count_ones() as u64).sum::<u64>();
        let extra = json!({
            "model_hits": s.model_hits,
            "model_misses": s.model_misses,
            // Of the pages host reads looked up, the share a model served (Fig. 14b).
            "model_hit_ratio": if cmt.read_pages == 0 { 0.0 } else { s.model_hits as f64 / cmt.read_pages as f64 },
            "trainings": s.trainings,
            "trained_pages": s.trained_pages,
            "bits_set": bits_set,
            "bits_set_by_training": s.bits_set_by_training,
            "bits_set_by_initialisation": s.bits_set_by_initialisation,
            "bits_cleared": s.bits_cleared,
            "initialised_entries": s.initialised_entries,
            "trained_models": self.models.iter().filter(|m| !m.initial).count(),
            "model_bytes": self.model_bytes,
            "models_dram_bytes": self.models.len() as u64 * self.model_bytes,
        });
        if let (Some(r), serde_json::Value::Object(e)) = (r.as_object_mut(), extra) {
            r.extend(e);
        }
        r
    }

    fn corrupt(&mut self, lpn: Lpn, ppn: Ppn) {
        self.tp.corrupt(lpn, ppn);
    }
}
