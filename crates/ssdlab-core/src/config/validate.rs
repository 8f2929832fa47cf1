//! Layer: config. Checks a configuration once, listing every problem, and derives the
//! quantities the rest of the simulator relies on (geometry, logical capacity).

use std::ops::Deref;
use std::sync::Arc;

use crate::config::origin::Sources;
use crate::config::overridden::{overridden, ConfigOverride};
use crate::config::schema::Segment;
use crate::config::{Config, ConfigWarning, DeviceConfig, GcBackground, GcScopeKind};
use crate::error::{ConfigProblem, Error, Result};
use crate::nand::{CellType, Geometry};
use crate::workload::config::{AddressDistribution, Arrival, WorkloadKind};
use crate::workload::jobs::job_regions;
use crate::workload::spec::WorkloadSpec;

/// A configuration that passed every check, and what loading it had to warn about. Derefs to
/// `Config`.
#[derive(Debug, Clone)]
pub struct ValidatedConfig {
    config: Config,
    logical_pages: u32,
    used_logical_pages: u32,
    warnings: Vec<ConfigWarning>,
    /// The device preset the configuration was loaded over (None: the layers gave the device).
    preset: Option<String>,
    /// The layers it was merged from, as parsed: where each value came from, and which keys a
    /// later layer overrode (both worked out only when asked).
    sources: Arc<Sources>,
    /// The policy-level checks passed at load (`catalog::load_config`), so building the
    /// simulation does not run them again (`policies_checked`).
    policies_checked: bool,
    /// The workload spec `workload.spec` names, read once when the config was checked (None
    /// unless `workload.kind = "spec"`); the run draws from this one (`workload::open`).
    workload_spec: Option<Arc<WorkloadSpec>>,
}

impl Deref for ValidatedConfig {
    type Target = Config;
    fn deref(&self) -> &Config {
        &self.config
    }
}

struct Problems(Vec<ConfigProblem>);

impl Problems {
    fn check(&mut self, ok: bool, key: &str, reason: impl FnOnce() -> String) {
        if !ok {
            self.0.push(ConfigProblem { key: key.to_string(), reason: reason() });
        }
    }

    /// Collect the problems of a check written as a `Result` (the `rl` module's validators).
    fn absorb(&mut self, result: Result<()>) {
        match result {
            Ok(()) => {}
            Err(Error::Config { problems, .. }) => self.0.extend(problems),
            Err(e) => self.0.push(ConfigProblem { key: "gc".into(), reason: e.to_string() }),
        }
    }
}

/// The smallest and largest page, in bytes. 512 B is a sector, the smallest block a host
/// addresses; the largest page NAND has shipped is 16 KiB (the RLGC paper's 3D TLC die, Table 2,
/// preset `kang-3d-512gb`; today's 3D TLC and QLC dies keep 16 KiB), and 64 KiB leaves room for
/// a multi-plane page modelled as one. A page outside these is a typo (`page_bytes = 4` for
/// 4 KiB), not a device.
pub const PAGE_BYTES_RANGE: std::ops::RangeInclusive<u64> = 512..=64 * 1024;

/// The keys that size the device: everything about capacity follows from them, so a problem of
/// one of these makes the capacity checks judge a device the user did not mean.
pub const GEOMETRY_KEYS: &[&str] = &[
    "device.channels",
    "device.chips_per_channel",
    "device.dies_per_chip",
    "device.planes_per_die",
    "device.blocks_per_plane",
    "device.pages_per_block",
    "device.page_bytes",
    "device.cell",
    "device.overprovisioning",
    "device.utilization",
];

/// The problems of the geometry keys each on its own (a count of 0, a page size no NAND has),
/// before anything is derived from them.
pub fn geometry_problems(d: &DeviceConfig) -> Vec<ConfigProblem> {
    let mut p = Problems(Vec::new());
    for (key, v) in [
        ("device.channels", d.channels),
        ("device.chips_per_channel", d.chips_per_channel),
        ("device.dies_per_chip", d.dies_per_chip),
        ("device.planes_per_die", d.planes_per_die),
        ("device.blocks_per_plane", d.blocks_per_plane),
        ("device.pages_per_block", d.pages_per_block),
    ] {
        p.check(v >= 1, key, || "must be at least 1".into());
    }
    let bits = d.cell.bits_per_cell();
    p.check(d.pages_per_block.is_multiple_of(bits), "device.pages_per_block", || {
        format!("must be a multiple of {bits} (pages per wordline of a {:?} cell)", d.cell)
    });
    p.check(PAGE_BYTES_RANGE.contains(&d.page_bytes) && d.page_bytes.is_multiple_of(512), "device.page_bytes", || {
        format!(
            "{} is not a NAND page: a multiple of 512 from {} to {} bytes (4096 = 4 KiB; the largest page shipped \
             is 16 KiB)",
            d.page_bytes,
            PAGE_BYTES_RANGE.start(),
            PAGE_BYTES_RANGE.end()
        )
    });
    p.check((0.0..0.9).contains(&d.overprovisioning), "device.overprovisioning", || {
        format!("{} is outside [0, 0.9)", d.overprovisioning)
    });
    p.check(d.utilization > 0.0 && d.utilization <= 1.0, "device.utilization", || {
        format!("{} is outside (0, 1]", d.utilization)
    });
    p.0
}

/// `[cache]`, `[slc]` and `ftl.translation_entry_bytes` on their own (the policy ids are checked with the
/// registries, `ftl::check_config`).
fn check_cache_and_regions(p: &mut Problems, config: &Config, bits: u32, blocks: u64) {
    let c = &config.cache;
    p.check(c.low_watermark > 0.0 && c.low_watermark <= c.high_watermark && c.high_watermark <= 1.0, "cache", || {
        format!(
            "watermarks need 0 < low_watermark <= high_watermark <= 1, got {} and {}",
            c.low_watermark, c.high_watermark
        )
    });
    p.check(c.dram_bytes_per_s > 0, "cache.dram_bytes_per_s", || "must be positive".into());
    p.check(c.capacity.0 == 0 || c.capacity.0 >= config.device.page_bytes, "cache.capacity", || {
        format!("must be 0 (no buffer) or at least one page ({} bytes)", config.device.page_bytes)
    });
    p.check(!c.write_back_reads || c.insert_reads, "cache.write_back_reads", || {
        "writes back pages that reads put in the buffer: it needs cache.insert_reads = true".into()
    });
    if let Some(interval) = c.flush_interval_ns {
        p.check(interval >= 1, "cache.flush_interval_ns", || "must be at least 1".into());
        p.check(c.capacity.0 > 0, "cache.flush_interval_ns", || {
            "times the write buffer's write-back: it needs a buffer (cache.capacity > 0)".into()
        });
    }
    let s = &config.slc;
    if s.blocks > 0 {
        p.check(bits > 1, "slc.blocks", || "SLC mode needs a multi-level cell device (device.cell)".into());
    }
    p.check((s.blocks as u64) < blocks, "slc.blocks", || format!("must be below the device's {blocks} blocks"));
    p.check(s.trigger_free_blocks >= 1, "slc.trigger_free_blocks", || "must be at least 1".into());
    if let Some(target) = s.target_free_blocks {
        p.check(target > s.trigger_free_blocks, "slc.target_free_blocks", || {
            format!("must exceed slc.trigger_free_blocks ({})", s.trigger_free_blocks)
        });
    }
    p.check(s.max_fraction > 0.0 && s.max_fraction < 1.0, "slc.max_fraction", || "must be in (0, 1)".into());
    p.check(s.sample_every_bytes.0 >= 1, "slc.sample_every_bytes", || "must be at least 1".into());
    let te = config.ftl.translation_entry_bytes;
    p.check(te >= 1 && config.device.page_bytes / te.max(1) as u64 >= 1, "ftl.translation_entry_bytes", || {
        format!("must be between 1 and the page size ({} bytes)", config.device.page_bytes)
    });
}

/// A device's capacity in pages, as the config sizes it (page numbers clamped to u32).
#[derive(Debug, Clone, Copy)]
pub struct Capacity {
    pub physical_pages: u64,
    /// Physical x (1 - overprovisioning).
    pub logical_pages: u64,
    /// Logical x utilization: the pages the workload uses.
    pub used_pages: u64,
    /// Pages a fixed SLC region's blocks cannot hold while in SLC mode (lost to the spare; 0
    /// until `with_fixed_slc_blocks` says how many blocks the SLC policy holds).
    pub slc_loss_pages: u64,
    pub pages_per_block: u64,
    pub planes: u64,
}

impl Capacity {
    pub fn of(config: &Config) -> Capacity {
        let d = &config.device;
        let planes =
            [d.channels, d.chips_per_channel, d.dies_per_chip, d.planes_per_die].iter().map(|&v| v as u64).product();
        let pages = planes as u128 * d.blocks_per_plane as u128 * d.pages_per_block as u128;
        let physical_pages = pages.min(u32::MAX as u128) as u64;
        let logical_pages = (physical_pages as f64 * (1.0 - d.overprovisioning)).floor() as u64;
        let used_pages = (logical_pages as f64 * d.utilization).floor() as u64;
        Capacity {
            physical_pages,
            logical_pages,
            used_pages,
            slc_loss_pages: 0,
            pages_per_block: d.pages_per_block.max(1) as u64,
            planes,
        }
    }

    /// With `blocks` held in SLC mode for the whole run (a fixed SLC region; the policies that
    /// size their region start small and never take the native region below what its data
    /// needs): an SLC-mode block holds pages_per_block / `bits_per_cell` pages, and the pages it
    /// cannot hold are lost to the spare.
    pub fn with_fixed_slc_blocks(self, blocks: u64, bits_per_cell: u32) -> Capacity {
        let per_block = self.pages_per_block - self.pages_per_block / bits_per_cell.max(1) as u64;
        Capacity { slc_loss_pages: blocks * per_block, ..self }
    }

    /// Blocks beyond the used logical space and the SLC loss: GC's room.
    pub fn spare_blocks(&self) -> u64 {
        self.physical_pages.saturating_sub(self.used_pages + self.slc_loss_pages) / self.pages_per_block
    }

    /// Spare blocks of one plane: the physical blocks of a plane less its share of the used
    /// logical space and of the SLC loss (data spreads over every plane).
    pub fn spare_blocks_per_plane(&self) -> u64 {
        let per_plane = self.physical_pages.saturating_sub(self.used_pages + self.slc_loss_pages) / self.planes.max(1);
        per_plane / self.pages_per_block
    }

    /// The smallest `device.blocks_per_plane` at which `config`'s drive, every other key as it
    /// is, has at least `needed_pages` of used logical space (the function of `of` is monotone
    /// in it; its floors are why the estimate is checked).
    pub fn blocks_per_plane_for(config: &Config, needed_pages: u64) -> u64 {
        let mut sized = config.clone();
        let used_with = |sized: &mut Config, blocks: u64| {
            sized.device.blocks_per_plane = blocks.min(u32::MAX as u64) as u32;
            Capacity::of(sized).used_pages
        };
        let per_block = used_with(&mut sized, 1).max(1) as f64;
        let mut blocks = ((needed_pages as f64 / per_block).floor() as u64).max(1);
        while used_with(&mut sized, blocks) < needed_pages && blocks < u32::MAX as u64 {
            blocks += 1;
        }
        blocks
    }

    /// The lowest `device.utilization` in hundredths at which `config`'s drive has at least
    /// `needed_pages` of used logical space; None when even all of its logical space is short.
    pub fn utilization_for(config: &Config, needed_pages: u64) -> Option<f64> {
        let logical = Capacity::of(config).logical_pages;
        (1..=100u32)
            .map(|hundredths| hundredths as f64 / 100.0)
            .find(|&u| (logical as f64 * u).floor() as u64 >= needed_pages)
    }

    /// The most blocks that can ever be free: the spare blocks less 3 per plane (the host and
    /// GC streams' open blocks and the per-plane GC reserve).
    pub fn reachable_free_blocks(&self) -> u64 {
        self.spare_blocks().saturating_sub(3 * self.planes)
    }
}

impl ValidatedConfig {
    pub fn new(config: Config) -> Result<ValidatedConfig> {
        let d = &config.device;
        let mut p = Problems(geometry_problems(d));
        let bits = d.cell.bits_per_cell();
        let pages =
            [d.channels, d.chips_per_channel, d.dies_per_chip, d.planes_per_die, d.blocks_per_plane, d.pages_per_block]
                .iter()
                .fold(1u128, |acc, &v| acc * v as u128);
        p.check(pages < u32::MAX as u128, "device", || {
            format!("{pages} physical pages; at most {} are supported (u32 page numbers)", u32::MAX - 1)
        });
        let t = &d.timing;
        for (key, list) in [("device.timing.read_ns", &t.read_ns), ("device.timing.program_ns", &t.program_ns)] {
            p.check(list.len() == 1 || list.len() == bits as usize, key, || {
                format!("needs 1 value or one per page type ({bits} for {:?}), got {}", d.cell, list.len())
            });
            p.check(list.iter().all(|&v| v > 0), key, || "latencies must be positive".into());
        }
        p.check(t.erase_ns > 0, "device.timing.erase_ns", || "must be positive".into());
        p.check(
            d.cell != CellType::Slc || (t.slc_program_ns.is_none() && t.slc_read_ns.is_none()),
            "device.timing",
            || "slc_* latencies apply to multi-level cells only".into(),
        );

        let capacity = Capacity::of(&config);
        let (logical_pages, used) = (capacity.logical_pages, capacity.used_pages);
        p.check(used >= 1, "device.utilization", || "leaves no logical page to use".into());
        // The out-of-band owner entry keeps one tag bit (data or translation page).
        p.check(logical_pages < (1u64 << 31) - 1, "device", || {
            format!("{logical_pages} logical pages; at most 2^31 - 2 are supported")
        });

        let g = &config.gc;
        let blocks = (pages / d.pages_per_block.max(1) as u128) as u64;
        p.check(g.trigger_free_blocks >= 1, "gc.trigger_free_blocks", || "must be at least 1".into());
        if let Some(target) = g.target_free_blocks {
            p.check(target > g.trigger_free_blocks, "gc.target_free_blocks", || {
                format!("must exceed gc.trigger_free_blocks ({})", g.trigger_free_blocks)
            });
        }
        p.check(config.idle.gap_ns >= 1, "idle.gap_ns", || "must be at least 1".into());
        let sched = &config.transaction_scheduler;
        p.check(sched.max_suspensions >= 1, "transaction_scheduler.max_suspensions", || "must be at least 1".into());
        if let Some(b) = g.background_free_blocks {
            p.check(b >= 1, "gc.background_free_blocks", || "must be at least 1".into());
        }
        p.check(g.background == GcBackground::Off || g.scope == GcScopeKind::Region, "gc.background", || {
            "background GC works device-wide: it needs gc.scope = \"region\"".into()
        });

        check_cache_and_regions(&mut p, &config, bits, blocks);

        let w = &config.workload;
        p.check(w.bs.0 >= 1, "workload.bs", || "must be at least 1 byte".into());
        p.check(w.iodepth >= 1, "workload.iodepth", || "must be at least 1".into());
        p.check(w.numjobs >= 1, "workload.numjobs", || "must be at least 1".into());
        p.check(w.rwmixread <= 100, "workload.rwmixread", || "is a percentage (0-100)".into());
        p.check(w.working_set > 0.0 && w.working_set <= 1.0, "workload.working_set", || "must be in (0, 1]".into());
        p.check((w.working_set * used as f64 * d.page_bytes as f64) as u64 >= w.bs.0, "workload.working_set", || {
            "is smaller than one block of workload.bs".into()
        });
        if w.kind == WorkloadKind::Synthetic {
            // fio's job regions (`offset`, `offset_increment`, `size`) inside the working set,
            // judged by the function the generator draws from.
            p.absorb(job_regions(w, used.saturating_mul(d.page_bytes)).map(drop));
        }
        if w.random_distribution == AddressDistribution::Zipf {
            p.check(w.zipf_theta > 0.0 && w.zipf_theta.is_finite(), "workload.zipf_theta", || {
                "must be positive".into()
            });
        }
        if w.random_distribution == AddressDistribution::Hotcold {
            p.check(w.hot_fraction > 0.0 && w.hot_fraction < 1.0, "workload.hot_fraction", || {
                "must be in (0, 1)".into()
            });
            p.check((0.0..=1.0).contains(&w.hot_share), "workload.hot_share", || "must be in [0, 1]".into());
        }
        if w.arrival != Arrival::Closed && w.kind == WorkloadKind::Synthetic {
            p.check(w.rate_iops > 0.0 && w.rate_iops.is_finite(), "workload.rate_iops", || "must be positive".into());
        }
        if w.arrival == Arrival::Onoff {
            p.check(w.on_ns > 0, "workload.on_ns", || "must be positive".into());
        }
        p.check(w.count != Some(0), "workload.count", || "must be at least 1 if set".into());
        p.check(w.repeat >= 1, "workload.repeat", || "must be at least 1".into());
        p.check(w.speedup > 0.0 && w.speedup.is_finite(), "workload.speedup", || "must be positive".into());
        if let Err(Error::Config { problems, .. }) = w.trace.validate() {
            p.0.extend(problems.into_iter().map(|c| ConfigProblem { key: format!("workload.trace.{}", c.key), ..c }));
        }
        if w.kind == WorkloadKind::Trace {
            match &w.path {
                None => p.0.push(ConfigProblem {
                    key: "workload.path".into(),
                    reason: "a trace workload needs a path".into(),
                }),
                Some(path) => {
                    if let Some(reason) = crate::workload::trace::trace_file_problem(path) {
                        p.check(false, "workload.path", || format!("{}: {reason}", path.display()));
                    }
                }
            }
        }
        let mut workload_spec = None;
        if w.kind == WorkloadKind::Spec {
            // The spec is read here, once, so an impossible spec is refused with the config,
            // before any request is drawn (each of its problems keeps its own key and line), and
            // the run draws from the spec read here.
            match &w.spec {
                None => p.0.push(ConfigProblem {
                    key: "workload.spec".into(),
                    reason: "a spec workload needs a spec (a file or a built-in name)".into(),
                }),
                Some(name) => match WorkloadSpec::load(name) {
                    Ok(spec) => workload_spec = Some(Arc::new(spec)),
                    Err(Error::Config { problems, .. }) => p.0.extend(problems.into_iter().map(|c| ConfigProblem {
                        key: "workload.spec".into(),
                        reason: if c.key == "workload.spec" { c.reason } else { format!("{}: {}", c.key, c.reason) },
                    })),
                    Err(e) => p.0.push(ConfigProblem { key: "workload.spec".into(), reason: e.to_string() }),
                },
            }
        }
        let wu = &config.warmup;
        p.check((0.0..=100.0).contains(&wu.random_writes), "warmup.random_writes", || "must be in [0, 100]".into());
        p.check(config.report.max_samples >= 2, "report.max_samples", || "must be at least 2".into());
        p.check(config.report.sample_interval_ns >= 1, "report.sample_interval_ns", || "must be positive".into());

        if !p.0.is_empty() {
            return Err(Error::Config { path: None, problems: p.0 });
        }
        Ok(ValidatedConfig {
            config,
            logical_pages: logical_pages as u32,
            used_logical_pages: used as u32,
            warnings: Vec::new(),
            preset: None,
            sources: Arc::default(),
            policies_checked: false,
            workload_spec,
        })
    }

    /// With what loading it found to warn about (deprecated names, `load_validated_claiming`).
    /// The workload spec the config names, as read when it was checked (None unless
    /// `workload.kind = "spec"`).
    pub fn workload_spec(&self) -> Option<&WorkloadSpec> {
        self.workload_spec.as_deref()
    }

    pub fn with_warnings(self, warnings: Vec<ConfigWarning>) -> ValidatedConfig {
        ValidatedConfig { warnings, ..self }
    }

    /// Its policies' ids and combinations checked too, by the loader that knows the registries
    /// (`catalog::load_config`, the layer above).
    pub fn with_policies_checked(self) -> ValidatedConfig {
        ValidatedConfig { policies_checked: true, ..self }
    }

    /// Whether the loader checked its policies (`with_policies_checked`): a config made without
    /// the registries (`ValidatedConfig::new`, `config::load_validated`) is checked when the
    /// simulation is built instead.
    pub fn policies_checked(&self) -> bool {
        self.policies_checked
    }

    /// Loaded over the device preset `preset` (`load_validated_claiming`), for the report.
    pub fn with_preset(self, preset: Option<&str>) -> ValidatedConfig {
        ValidatedConfig { preset: preset.map(str::to_string), ..self }
    }

    /// The device preset the configuration was loaded over, if any.
    pub fn preset(&self) -> Option<&str> {
        self.preset.as_deref()
    }

    /// With the layers it was merged from (`load_validated_claiming`).
    pub(crate) fn with_sources(self, sources: Sources) -> ValidatedConfig {
        ValidatedConfig { sources: Arc::new(sources), ..self }
    }

    /// Every key a later layer set over an earlier layer's value (a file over a built-in
    /// workload pattern, a `--set` over a preset), each once with every value it took, in key
    /// order: for the caller to show (the core prints nothing). Empty for a configuration not
    /// made by the loader.
    pub fn overridden(&self) -> Vec<ConfigOverride> {
        overridden(&self.sources)
    }

    /// Where the value of dotted `key` was written (`preset:tiny:9`, `my.toml:2`, `--set`), or
    /// None if no layer wrote it (its default applies).
    pub fn origin(&self, key: &str) -> Option<String> {
        let path: Vec<Segment> = key.split('.').map(|k| Segment::Key(k.to_string())).collect();
        self.sources.origin(&path)
    }

    /// What loading the configuration warned about, in the order the layers were read: for the
    /// caller to show (the core prints nothing).
    pub fn warnings(&self) -> &[ConfigWarning] {
        &self.warnings
    }

    pub fn config(&self) -> &Config {
        &self.config
    }

    pub fn geometry(&self) -> Geometry {
        self.config.device.geometry()
    }

    /// Logical capacity in pages: physical x (1 - overprovisioning).
    pub fn logical_pages(&self) -> u32 {
        self.logical_pages
    }

    /// Pages the workload uses: logical x utilization.
    pub fn used_logical_pages(&self) -> u32 {
        self.used_logical_pages
    }

    /// The seed of the warm-up's random streams and of the policies' while it runs:
    /// `warmup.seed`, else the run's `seed`.
    pub fn warmup_seed(&self) -> u64 {
        self.config.warmup.seed.unwrap_or(self.config.seed)
    }
}

#[cfg(test)]
mod tests {
    use crate::catalog::load;
    use crate::config::{Layer, ValidatedConfig};

    #[test]
    fn lists_every_problem_at_once() {
        let cfg = load(
            Some("tiny"),
            &[Layer::inline("[device]\npages_per_block = 65\nutilization = 1.5\n[workload]\niodepth = 0\n")],
            &[],
        )
        .unwrap();
        let text = ValidatedConfig::new(cfg).unwrap_err().to_string();
        for key in ["device.pages_per_block", "device.utilization", "workload.iodepth"] {
            assert!(text.contains(key), "{key} missing from: {text}");
        }
    }

    /// fio's job regions must lie in the working set (tiny: 21504 pages, 88080384 bytes); the
    /// problem names the key, its value and why, and a run never starts.
    #[test]
    fn job_regions_beyond_the_working_set_are_refused() {
        let problem = |keys: &str| {
            let cfg = load(Some("tiny"), &[Layer::inline(format!("[workload]\n{keys}"))], &[]).unwrap();
            ValidatedConfig::new(cfg).map(drop).map_err(|e| e.to_string())
        };
        let text = problem("offset = \"100m\"\n").unwrap_err();
        assert!(text.contains("workload.offset: = 104857600 bytes leaves no room"), "{text}");
        let text = problem("numjobs = 4\noffset_increment = \"30m\"\n").unwrap_err();
        let expected = "workload.offset_increment: = 31457280 bytes starts job 3 of 4 at byte 94371840";
        assert!(text.contains(expected), "{text}");
        let text = problem("numjobs = 2\noffset_increment = \"40m\"\nsize = \"50m\"\n").unwrap_err();
        assert!(text.contains("workload.size: = 52428800 bytes takes job 1 of 2"), "{text}");
        assert!(text.contains("beyond the 88080384-byte working set"), "{text}");
        let text = problem("size = 100\n").unwrap_err();
        assert!(text.contains("workload.size: = 100 bytes is smaller than one block"), "{text}");
        // A smaller working set moves the end; without numjobs the increment is unused.
        let text = problem("working_set = 0.5\noffset = \"50m\"\n").unwrap_err();
        assert!(text.contains("44040192-byte working set"), "{text}");
        assert!(problem("offset_increment = \"1g\"\n").is_ok());
        assert!(problem("numjobs = 4\noffset_increment = \"21m\"\nsize = \"21m\"\n").is_ok());
    }

    #[test]
    fn logical_space_follows_op_and_utilization() {
        let cfg = load(Some("tiny"), &[], &["device.utilization=0.5".into()]).unwrap();
        let v = ValidatedConfig::new(cfg).unwrap();
        assert_eq!(v.logical_pages(), (24576.0 * 0.875) as u32);
        assert_eq!(v.used_logical_pages(), v.logical_pages() / 2);
    }
}
