//! Layer: workload. A workload described by its statistics instead of its requests: the figures
//! the papers publish about their traces (RL-FSP Table II, RL-SLC Table 4) and the figures
//! `ssdlab trace fit` measures on a real trace. The generator (`generator.rs`) streams requests
//! that carry those figures at any length; `presets/` holds the papers' workloads.
//!
//! The model, in the order a request is drawn (docs/workloads.md says it in prose):
//! - the operation: a read with probability `read_ratio`, else a write;
//! - its size, from the operation's size histogram (`[read.sizes]`, weights by count or bytes);
//! - its place: with probability `sequential` it continues where the last request of its
//!   operation ended; else, for a read, with probability `[reread].share`
//!   it goes back to data written earlier in the run, `distance` writes ago; else its start is
//!   drawn from the operation's popularity over its footprint. Reads and writes rank the same addresses (rank 0 is the hottest for
//!   both), so a hot read set inside the written footprint is rewritten and re-read as the run
//!   goes on; ranks are laid out in chunks scattered over the address space;
//! - its arrival: closed loop, Poisson, on/off, or inter-arrival gaps from fitted quantiles;
//! - the run ends after `length.requests` requests or `length.write_bytes` bytes written.

pub mod compare;
pub mod fit;
pub mod generator;
pub mod presets;
mod sample;

use std::path::{Path, PathBuf};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::error::{ConfigProblem, Error, Result};
use crate::units::ByteSize;

pub use generator::SpecSource;

/// The spec format's version, written by `trace fit` and checked on load.
pub const SPEC_VERSION: u32 = 1;

/// A workload spec: a TOML file (docs/workloads.md, schema in docs/workload-spec.schema.json).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct WorkloadSpec {
    /// The spec format's version (1).
    pub version: u32,
    /// What the workload stands for, e.g. "ali735".
    pub name: String,
    /// Where its figures come from (a paper's table, a trace file).
    pub source: String,
    /// Offsets and sizes are multiples of this many bytes (the trace's sector or page).
    pub align_bytes: ByteSize,
    /// The range of logical addresses the workload spans, from 0 (required).
    pub address_space: ByteSize,
    /// Share of requests that start off an `align_bytes` boundary (traces addressed in 512-byte
    /// sectors often do): such a request is shifted by a uniform multiple of 512 bytes inside
    /// its first unit, so it touches one more page and a write is a partial-page write.
    pub unaligned_share: f64,
    /// Share of requests that are reads, in [0, 1].
    pub read_ratio: f64,
    /// When the workload ends.
    pub length: Length,
    /// How reads look.
    pub read: OpSpec,
    /// How writes look.
    pub write: OpSpec,
    /// Reads of data written earlier in the run.
    pub reread: Reread,
    /// When requests arrive.
    pub arrival: ArrivalSpec,
}

impl Default for WorkloadSpec {
    fn default() -> Self {
        WorkloadSpec {
            version: SPEC_VERSION,
            name: String::new(),
            source: String::new(),
            align_bytes: ByteSize(4096),
            address_space: ByteSize(0),
            unaligned_share: 0.0,
            read_ratio: 0.5,
            length: Length::default(),
            read: OpSpec::default(),
            write: OpSpec::default(),
            reread: Reread::default(),
            arrival: ArrivalSpec::default(),
        }
    }
}

/// `[length]`: the workload ends at the first limit reached (at least one must be set).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct Length {
    /// Requests to generate.
    pub requests: Option<u64>,
    /// Stop once this many bytes have been written.
    pub write_bytes: Option<ByteSize>,
}

/// `[read]` / `[write]`: one operation's sizes and addresses.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct OpSpec {
    /// Bytes of the address space this operation touches (its footprint). Unset: the whole
    /// address space.
    pub footprint: Option<ByteSize>,
    /// Where the footprint starts in the hotness ranking both operations share, in bytes (0:
    /// this operation's hottest data is the other's hottest too). `trace fit` uses it to give
    /// reads and writes the overlap they had in the trace.
    pub footprint_offset: ByteSize,
    /// Request sizes.
    pub sizes: SizeHistogram,
    /// How accesses spread over the footprint.
    pub popularity: Popularity,
    /// Share of requests that start where the previous request of this operation ended (write
    /// or read locality: sequential runs), in [0, 1].
    pub sequential: f64,
}

impl Default for OpSpec {
    fn default() -> Self {
        OpSpec {
            footprint: None,
            footprint_offset: ByteSize(0),
            sizes: SizeHistogram::default(),
            popularity: Popularity::default(),
            sequential: 0.0,
        }
    }
}

/// What the weights of a size histogram count.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum WeightBy {
    /// A bin's weight is its share of requests.
    #[default]
    Count,
    /// A bin's weight is its share of bytes (RL-SLC Table 4's write-size distribution).
    Bytes,
}

/// A request-size histogram: bins of one size (any number of bytes; a request still starts on
/// `align_bytes`) or of a range of sizes (uniform over the multiples of `align_bytes` in the
/// range), each with a weight. Weights need not sum to 1.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct SizeHistogram {
    /// Whether the weights are shares of requests or of bytes.
    pub weights: WeightBy,
    /// The bins, smallest first, not overlapping. Empty: every request is `align_bytes`.
    pub bins: Vec<SizeBin>,
}

impl Default for SizeHistogram {
    fn default() -> Self {
        SizeHistogram { weights: WeightBy::Count, bins: Vec::new() }
    }
}

/// One bin of a size histogram: `size`, or `min` to `max` inclusive.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SizeBin {
    /// One size (instead of `min` and `max`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<ByteSize>,
    /// Smallest size of a range bin.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min: Option<ByteSize>,
    /// Largest size of a range bin.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max: Option<ByteSize>,
    /// The bin's weight (share of requests or of bytes), >= 0.
    pub weight: f64,
}

impl SizeBin {
    /// (smallest, largest) size in bytes.
    pub fn range_bytes(&self) -> (u64, u64) {
        match (self.size, self.min, self.max) {
            (Some(s), _, _) => (s.0, s.0),
            (None, Some(lo), Some(hi)) => (lo.0, hi.0),
            (None, Some(lo), None) => (lo.0, lo.0),
            (None, None, Some(hi)) => (hi.0, hi.0),
            (None, None, None) => (0, 0),
        }
    }
}

/// How accesses spread over an operation's footprint.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum PopularityKind {
    /// Every page of the footprint equally likely.
    #[default]
    Uniform,
    /// Zipf over the footprint's pages with exponent `theta`.
    Zipf,
    /// A popularity curve: `curve` lists (share of the footprint, share of accesses) points,
    /// hottest first; "5 % of the footprint takes 80 % of the reads" is `[[0.05, 0.8]]`. Within
    /// a segment of the curve pages are equally likely. (A hot/cold split is a one-point curve.)
    Curve,
}

/// `[read.popularity]` / `[write.popularity]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct Popularity {
    /// The shape.
    pub kind: PopularityKind,
    /// Zipf exponent, > 0 (`kind = "zipf"`).
    pub theta: f64,
    /// `[footprint share, access share]` points, both in (0, 1], footprint shares increasing,
    /// concave (each segment no steeper than the one before); (0, 0) and (1, 1) are implied.
    pub curve: Vec<[f64; 2]>,
}

impl Default for Popularity {
    fn default() -> Self {
        Popularity { kind: PopularityKind::Uniform, theta: 1.2, curve: Vec::new() }
    }
}

/// `[reread]`: reads sent back to data written earlier in the run, on top of those that
/// popularity makes (a hot read set inside the written footprint is re-read anyway), unless
/// `from_popularity = false`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct Reread {
    /// Share of the reads that do not continue a sequential run that go to data written
    /// earlier, in [0, 1] (of all reads: share x (1 - read.sequential)). Before any write, such a
    /// read is drawn from the read popularity instead.
    pub share: f64,
    /// How many writes back the re-read data was written: `[cumulative probability, writes]`
    /// points from probability 0 to 1, interpolated. Empty: the last write. Distances above
    /// 2^20 writes are clamped there (the generator remembers that many writes).
    pub distance_writes: Vec<[f64; 2]>,
    /// Whether a read drawn from the read popularity may land on data written earlier in the
    /// run (true, the default, and what every spec before this key drew). `false` (what `trace
    /// fit` writes): such a read is drawn again, so that data written in the run is read back
    /// only by `share` at `distance_writes` (and by sequential runs that continue onto it), and
    /// those two keys set the re-read share and distances instead of adding to an uncontrolled
    /// part. Costs one bit per unit of the read footprint.
    pub from_popularity: bool,
}

impl Default for Reread {
    fn default() -> Self {
        Reread { share: 0.0, distance_writes: Vec::new(), from_popularity: true }
    }
}

/// How requests arrive.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ArrivalKind {
    /// Closed loop: `queue_depth` requests outstanding.
    #[default]
    Closed,
    /// Open loop, Poisson at `rate_iops`.
    Poisson,
    /// Open loop: Poisson at `rate_iops` for `on_ns`, then nothing for `off_ns`, repeated.
    Onoff,
    /// Open loop: gaps between arrivals drawn from the quantiles `inter_arrival_ns` (a fitted
    /// distribution).
    Empirical,
}

/// `[arrival]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct ArrivalSpec {
    pub kind: ArrivalKind,
    /// Requests outstanding in closed loop, >= 1.
    pub queue_depth: u32,
    /// Arrival rate (requests per second) for `poisson` and the on periods of `onoff`, > 0.
    pub rate_iops: f64,
    /// Length of each on period (`onoff`).
    pub on_ns: u64,
    /// Length of each silent period (`onoff`).
    pub off_ns: u64,
    /// `[cumulative probability, gap in ns]` points from probability 0 to 1, interpolated
    /// (`empirical`).
    pub inter_arrival_ns: Vec<[f64; 2]>,
}

impl Default for ArrivalSpec {
    fn default() -> Self {
        ArrivalSpec {
            kind: ArrivalKind::Closed,
            queue_depth: 1,
            rate_iops: 1000.0,
            on_ns: 100_000_000,
            off_ns: 100_000_000,
            inter_arrival_ns: Vec::new(),
        }
    }
}

impl WorkloadSpec {
    /// Parse a spec from TOML text. `origin` (a path, or `spec:NAME` for a built-in) names the
    /// text in messages; every problem is listed at once, each with its key, value, reason and
    /// line.
    pub fn from_toml(text: &str, origin: &Path) -> Result<WorkloadSpec> {
        let table: toml::Table = toml::from_str(text).map_err(|e| {
            let line = e.span().map(|s| crate::config::origin::line_at(text, s.start)).unwrap_or(0);
            Error::trace(origin, line as u64, format!("not a valid TOML workload spec: {}", e.message()))
        })?;
        let mut unknown = Vec::new();
        let spec: std::result::Result<WorkloadSpec, _> = {
            let mut note = |path: serde_ignored::Path<'_>| unknown.push(path.to_string());
            let de = serde_ignored::Deserializer::new(toml::Value::Table(table), &mut note);
            serde_path_to_error::deserialize(de)
        };
        let at = |key: &str| {
            let keys: Vec<&str> = key.split('.').map(|k| k.split('[').next().unwrap_or(k)).collect();
            crate::config::origin::key_line(text, &keys).map(|l| format!(" ({}:{l})", origin.display()))
        };
        let mut problems: Vec<ConfigProblem> = unknown
            .iter()
            .map(|k| ConfigProblem { key: k.clone(), reason: format!("unknown key{}", at(k).unwrap_or_default()) })
            .collect();
        let spec = match spec {
            Ok(s) => Some(s),
            Err(e) => {
                let key = e.path().to_string();
                let reason = format!("{}{}", e.inner().message(), at(&key).unwrap_or_default());
                problems.push(ConfigProblem { key, reason });
                None
            }
        };
        if let Some(spec) = &spec {
            for p in spec.problems() {
                let reason = format!("{}{}", p.reason, at(&p.key).unwrap_or_default());
                problems.push(ConfigProblem { key: p.key, reason });
            }
        }
        match spec {
            Some(spec) if problems.is_empty() => Ok(spec),
            _ => Err(Error::Config { path: Some(origin.to_path_buf()), problems }),
        }
    }

    /// Load a spec from a file, or a built-in spec by name (a file of that name wins).
    pub fn load(name_or_path: &Path) -> Result<WorkloadSpec> {
        if name_or_path.exists() {
            let text = std::fs::read_to_string(name_or_path).map_err(|e| Error::io(name_or_path, e))?;
            return WorkloadSpec::from_toml(&text, name_or_path);
        }
        let name = name_or_path.to_string_lossy();
        match presets::spec(&name) {
            Some(text) => WorkloadSpec::from_toml(text, &PathBuf::from(format!("spec:{name}"))),
            None => Err(Error::config(
                "workload.spec",
                format!(
                    "'{name}' is neither a file nor a built-in workload spec (built-ins: {})",
                    presets::names().join(", ")
                ),
            )),
        }
    }

    /// The JSON Schema (draft 07) of a spec file, as JSON text (docs/workload-spec.schema.json,
    /// for editors).
    pub fn json_schema() -> String {
        let generator = schemars::generate::SchemaSettings::draft07().into_generator();
        let mut root = generator.into_root_schema_for::<WorkloadSpec>().to_value();
        if let Some(object) = root.as_object_mut() {
            object.insert("title".into(), "ssdlab workload spec".into());
        }
        serde_json::to_string_pretty(&root).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
    }

    /// The spec as TOML (what `trace fit` writes); a spec whose `problems()` are empty always
    /// serialises.
    pub fn to_toml(&self) -> Result<String> {
        toml::to_string(self).map_err(|e| Error::config("spec", format!("cannot be written as TOML: {e}")))
    }

    /// Every problem of a decoded spec, each as `key: value and why`. Empty: the spec can be met.
    pub fn problems(&self) -> Vec<ConfigProblem> {
        let mut out = Vec::new();
        let mut bad = |key: &str, reason: String| out.push(ConfigProblem { key: key.into(), reason });
        if self.version != SPEC_VERSION {
            bad("version", format!("{} is not a spec version this build reads ({SPEC_VERSION})", self.version));
        }
        let align = self.align_bytes.0;
        if align == 0 || align > 1 << 20 {
            bad("align_bytes", format!("{align} must be between 1 byte and 1 MiB"));
        }
        let space = self.address_space.0;
        if space == 0 {
            bad("address_space", "required: the range of logical addresses the workload spans".into());
        } else if space < align.max(1) {
            bad("address_space", format!("{space} bytes is smaller than align_bytes ({align})"));
        } else if space > i64::MAX as u64 {
            bad("address_space", format!("{space} bytes is above 2^63 - 1, which TOML cannot hold"));
        }
        check_share(&mut bad, "read_ratio", self.read_ratio);
        check_share(&mut bad, "unaligned_share", self.unaligned_share);
        if self.unaligned_share > 0.0 && align < 1024 {
            bad("unaligned_share", format!("align_bytes = {align} leaves no 512-byte step inside a unit"));
        }
        if self.length.requests.is_none() && self.length.write_bytes.is_none() {
            bad("length", "set requests or write_bytes (the workload must end)".into());
        }
        if self.length.write_bytes.is_some_and(|b| b.0 == 0) {
            bad("length.write_bytes", "0 bytes: the workload would end at once".into());
        }
        if self.length.requests == Some(0) {
            bad("length.requests", "0: the workload would end at once".into());
        }
        if self.length.write_bytes.is_some() && self.length.requests.is_none() && self.read_ratio >= 1.0 {
            bad("length.write_bytes", "a workload of reads only never writes: set length.requests".into());
        }
        for (op, spec) in [("read", &self.read), ("write", &self.write)] {
            spec.check(op, align, space, &mut bad);
        }
        check_share(&mut bad, "reread.share", self.reread.share);
        check_quantiles(&mut bad, "reread.distance_writes", &self.reread.distance_writes, false);
        let a = &self.arrival;
        match a.kind {
            ArrivalKind::Closed if a.queue_depth == 0 => bad("arrival.queue_depth", "0: must be at least 1".into()),
            ArrivalKind::Poisson | ArrivalKind::Onoff if !(a.rate_iops > 0.0 && a.rate_iops.is_finite()) => {
                bad("arrival.rate_iops", format!("{} must be a positive rate", a.rate_iops))
            }
            ArrivalKind::Onoff if a.on_ns == 0 => bad("arrival.on_ns", "0: on periods must last".into()),
            ArrivalKind::Empirical => {
                check_quantiles(&mut bad, "arrival.inter_arrival_ns", &a.inter_arrival_ns, true);
            }
            _ => {}
        }
        out
    }

    /// Logical pages of `align_bytes` in the address space.
    pub fn space_units(&self) -> u64 {
        self.address_space.0 / self.align_bytes.0.max(1)
    }
}

impl OpSpec {
    fn check(&self, op: &str, align: u64, space: u64, bad: &mut impl FnMut(&str, String)) {
        let offset = self.footprint_offset.0;
        let end = offset.checked_add(self.footprint.map_or(0, |f| f.0));
        if end.is_none_or(|end| end > space) || (offset > 0 && self.footprint.is_none()) {
            bad(
                &format!("{op}.footprint_offset"),
                format!("{offset} bytes: the footprint must be set and end inside address_space ({space})"),
            );
        }
        if let Some(f) = self.footprint {
            if f.0 > space {
                bad(&format!("{op}.footprint"), format!("{} bytes is larger than address_space ({space})", f.0));
            } else if f.0 < align.max(1) {
                bad(&format!("{op}.footprint"), format!("{} bytes is smaller than align_bytes ({align})", f.0));
            }
        }
        check_share(bad, &format!("{op}.sequential"), self.sequential);
        let key = format!("{op}.sizes.bins");
        let mut total = 0.0;
        let mut last_max = 0;
        for (i, bin) in self.sizes.bins.iter().enumerate() {
            let k = format!("{key}[{i}]");
            if !(bin.weight >= 0.0 && bin.weight.is_finite()) {
                bad(&k, format!("weight {} must be a finite number >= 0", bin.weight));
            }
            total += bin.weight.max(0.0);
            let (lo, hi) = bin.range_bytes();
            if bin.size.is_some() == (bin.min.is_some() || bin.max.is_some()) {
                bad(&k, "give either size, or min and max".into());
                continue;
            }
            if bin.size.is_none() && (bin.min.is_none() || bin.max.is_none()) {
                bad(&k, "a range bin needs both min and max".into());
                continue;
            }
            if lo == 0 || hi < lo {
                bad(&k, format!("sizes {lo}..{hi} bytes: min must be > 0 and at most max"));
            } else if bin.size.is_none() && align > 0 && (lo % align != 0 || hi % align != 0) {
                bad(&k, format!("range {lo}..{hi} bytes: min and max must be multiples of align_bytes ({align})"));
            } else if hi > space {
                bad(&k, format!("size {hi} bytes is larger than address_space ({space})"));
            } else if self.footprint.is_some_and(|f| hi > f.0) {
                bad(
                    &k,
                    format!("size {hi} bytes is larger than {op}.footprint ({})", self.footprint.map_or(0, |f| f.0)),
                );
            } else if hi > u32::MAX as u64 {
                bad(&k, format!("size {hi} bytes is above 4 GiB - 1, which no trace can hold"));
            }
            if i > 0 && lo <= last_max {
                bad(&k, format!("bins out of order: starts at {lo} bytes, not above the previous bin's {last_max}"));
            }
            last_max = last_max.max(hi);
        }
        if !self.sizes.bins.is_empty() && total <= 0.0 {
            bad(&key, "the weights sum to 0".into());
        }
        let p = &self.popularity;
        match p.kind {
            PopularityKind::Zipf if !(p.theta > 0.0 && p.theta.is_finite()) => {
                bad(&format!("{op}.popularity.theta"), format!("{} must be > 0", p.theta))
            }
            PopularityKind::Curve => check_curve(bad, &format!("{op}.popularity.curve"), &p.curve),
            _ => {}
        }
    }
}

fn check_share(bad: &mut impl FnMut(&str, String), key: &str, v: f64) {
    if !(0.0..=1.0).contains(&v) {
        bad(key, format!("{v} is not a share in [0, 1] (a share above 100 % cannot be met)"));
    }
}

/// A popularity curve: points in (0, 1]^2, footprint shares increasing, access shares not
/// decreasing, each segment no steeper than the one before (hottest pages first).
fn check_curve(bad: &mut impl FnMut(&str, String), key: &str, curve: &[[f64; 2]]) {
    if curve.is_empty() {
        bad(key, "a curve needs at least one [footprint share, access share] point".into());
        return;
    }
    let (mut px, mut py, mut slope) = (0.0f64, 0.0f64, f64::INFINITY);
    for (i, &[x, y]) in curve.iter().enumerate() {
        let k = format!("{key}[{i}]");
        let in_unit = |v: f64| v > 0.0 && v <= 1.0;
        if !(in_unit(x) && in_unit(y)) {
            bad(&k, format!("[{x}, {y}]: both shares must be in (0, 1] (a share above 100 % cannot be met)"));
            return;
        }
        if x <= px || y < py {
            bad(&k, format!("[{x}, {y}]: footprint shares must increase and access shares not decrease"));
            return;
        }
        let s = (y - py) / (x - px);
        if s > slope * (1.0 + 1e-6) + 1e-9 {
            bad(&k, format!("[{x}, {y}]: steeper than the segment before; list the hottest pages first"));
            return;
        }
        (px, py, slope) = (x, y, s);
    }
    if px < 1.0 && (1.0 - py) / (1.0 - px) > slope * (1.0 + 1e-6) + 1e-9 {
        bad(key, "the rest of the footprint (to [1, 1]) would be hotter than the last segment".into());
    }
}

/// Quantile points `[cumulative probability, value]`: probabilities from 0 to 1 (both present
/// when `full`), increasing; values >= 0, not decreasing.
fn check_quantiles(bad: &mut impl FnMut(&str, String), key: &str, points: &[[f64; 2]], full: bool) {
    if points.is_empty() {
        if full {
            bad(key, "needs [probability, value] points from probability 0 to 1".into());
        }
        return;
    }
    let mut prev: Option<[f64; 2]> = None;
    for (i, &[p, v]) in points.iter().enumerate() {
        let k = format!("{key}[{i}]");
        if !((0.0..=1.0).contains(&p) && v >= 0.0 && v.is_finite()) {
            bad(&k, format!("[{p}, {v}]: the probability must be in [0, 1] and the value a finite number >= 0"));
            return;
        }
        if let Some([pp, pv]) = prev {
            if p <= pp || v < pv {
                bad(&k, format!("[{p}, {v}]: probabilities must increase and values not decrease"));
                return;
            }
        }
        prev = Some([p, v]);
    }
    let (first, last) = (points[0][0], points[points.len() - 1][0]);
    if first != 0.0 || last != 1.0 {
        bad(key, format!("the points must run from probability 0 to 1 (they run from {first} to {last})"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<WorkloadSpec> {
        WorkloadSpec::from_toml(text, Path::new("w.toml"))
    }

    const MINIMAL: &str = "address_space = '1g'\nread_ratio = 0.7\n[length]\nrequests = 1000\n";

    #[test]
    fn a_minimal_spec_loads_and_round_trips() {
        let spec = parse(MINIMAL).unwrap();
        assert_eq!(spec.address_space, ByteSize(1 << 30));
        assert_eq!(parse(&spec.to_toml().unwrap()).unwrap(), spec);
    }

    #[test]
    fn impossible_specs_are_refused_with_key_value_reason_and_line() {
        let text = "address_space = '1g'\nread_ratio = 0.7\n[length]\nrequests = 10\n\
                    [read]\nfootprint = '2g'\n[read.popularity]\nkind = 'curve'\ncurve = [[0.05, 1.2]]\n\
                    [write.sizes]\nbins = [{ size = '8k', weight = 0 }]\n\
                    [arrival]\nkind = 'poisson'\nrate_iops = -5.0\n";
        let err = parse(text).unwrap_err().to_string();
        for needle in [
            "read.footprint: 2147483648 bytes is larger than address_space",
            "(w.toml:6)",
            "read.popularity.curve[0]: [0.05, 1.2]: both shares must be in (0, 1] (a share above 100 %",
            "write.sizes.bins: the weights sum to 0",
            "arrival.rate_iops: -5 must be a positive rate",
        ] {
            assert!(err.contains(needle), "missing «{needle}» in:\n{err}");
        }
    }

    #[test]
    fn bins_out_of_order_convex_curves_and_unknown_keys_are_refused() {
        let text = "address_space = '1g'\ncolour = 1\n[length]\nrequests = 10\n\
                    [read.sizes]\nbins = [{ size = '8k', weight = 1 }, { min = '4k', max = '16k', weight = 1 }]\n\
                    [write.popularity]\nkind = 'curve'\ncurve = [[0.5, 0.1], [0.6, 0.9]]\n";
        let err = parse(text).unwrap_err().to_string();
        assert!(err.contains("colour: unknown key (w.toml:2)"), "{err}");
        assert!(err.contains("read.sizes.bins[1]: bins out of order"), "{err}");
        assert!(err.contains("write.popularity.curve[1]: [0.6, 0.9]: steeper than the segment before"), "{err}");
    }

    #[test]
    fn sums_that_overflow_zero_lengths_and_requests_beyond_the_footprint_are_refused() {
        let err = parse(
            "address_space = '1g'\n[length]\nrequests = 0\nwrite_bytes = 0\n[read]\nfootprint = '1g'\n\
             footprint_offset = '17179869183g'\n[write]\nfootprint = '64k'\n\
             sizes.bins = [{ size = '1m', weight = 1 }]\n",
        )
        .unwrap_err()
        .to_string();
        for needle in [
            "length.requests: 0",
            "length.write_bytes: 0 bytes",
            "read.footprint_offset",
            "write.sizes.bins[0]: size 1048576 bytes is larger than write.footprint (65536)",
        ] {
            assert!(err.contains(needle), "missing «{needle}» in:\n{err}");
        }
        let err = parse("[length]\nrequests = 5\n").unwrap_err().to_string();
        assert!(err.contains("address_space: required"), "{err}");
    }

    #[test]
    fn wrong_types_and_missing_lengths_are_refused() {
        let err = parse("address_space = '1g'\nread_ratio = 'many'\n").unwrap_err().to_string();
        assert!(err.contains("read_ratio") && err.contains("(w.toml:2)"), "{err}");
        let err = parse("address_space = '1g'\n").unwrap_err().to_string();
        assert!(err.contains("length: set requests or write_bytes"), "{err}");
        let err = parse("address_space = '1g'\n[length]\nrequests = 1\n[arrival]\nkind = 'empirical'\n")
            .unwrap_err()
            .to_string();
        assert!(err.contains("arrival.inter_arrival_ns: needs"), "{err}");
    }

    #[test]
    fn unknown_builtin_names_list_the_builtins() {
        let err = WorkloadSpec::load(Path::new("no-such-spec")).unwrap_err().to_string();
        assert!(err.contains("neither a file nor a built-in") && err.contains("fsp-ali735"), "{err}");
    }
}
