//! Layer: ftl. Building the FTL from a validated config: every policy from its registry by
//! the id the config gives, the regions and streams they ask for, and the units that own them.

use rand_pcg::Pcg64Mcg;

use crate::config::{GcScopeKind, ValidatedConfig};
use crate::error::{Error, Result};
use crate::ftl::blocks::{BlockManager, GcScope, RegionId, RegionSpec, StreamId, StreamSpec};
use crate::ftl::cache::{self, WriteBuffer};
use crate::ftl::check::check_chosen;
use crate::ftl::host::{BufferSettings, HostPath};
use crate::ftl::policies::Chosen;
use crate::ftl::reclaim::Reclaimer;
use crate::ftl::region::{self, NATIVE};
use crate::ftl::regions::RegionManager;
use crate::ftl::store::{Placer, Store, Streams};
use crate::ftl::verify::Verifier;
use crate::ftl::{gc, mapping, Ftl, FtlStats, GC_RESERVE_BLOCKS};
use crate::units::transfer_ns;

impl Ftl {
    /// `policy_rng` is the run's policy random stream, handed to the GC scheduler.
    pub fn build(cfg: &ValidatedConfig, policy_rng: Pcg64Mcg) -> Result<Ftl> {
        // Each policy id is looked up once; the loader has checked the combinations already
        // (`catalog::load_config`), a config made without it is checked here.
        let chosen = Chosen::of(cfg);
        if !cfg.policies_checked() {
            let problems = check_chosen(cfg, &chosen);
            if !problems.is_empty() {
                return Err(Error::Config { path: None, problems });
            }
        }
        let policies = chosen.complete()?;
        let geometry = cfg.geometry();
        let logical = cfg.used_logical_pages();
        let physical = geometry.pages();
        let regions = (policies.slc.build)(cfg)?;
        let scope = match cfg.gc.scope {
            GcScopeKind::Region => GcScope::Region,
            GcScopeKind::Plane => GcScope::Plane,
        };
        let mut placement = (policies.placement.build)(cfg)?;
        let placement_layout = placement.layout();
        let mut specs = vec![RegionSpec {
            name: "native".into(),
            mode: crate::nand::BlockMode::Native,
            gc_scope: scope,
            gc_reserve: GC_RESERVE_BLOCKS,
            lines: placement_layout.lines,
        }];
        let layout = regions.layout();
        specs.extend(layout.iter().map(|l| l.spec.clone()));
        // Streams: host and gc of the native region first (ids 0 and 1, as the single-region
        // FTL had them), then the translation stream, then per-region streams.
        let mut stream_specs = Vec::new();
        let mut add = |name: String, region: RegionId| {
            stream_specs.push(StreamSpec { name, region });
            StreamId(stream_specs.len() as u16 - 1)
        };
        let mut host = vec![add("host".into(), NATIVE)];
        let mut gc_streams = vec![add("gc".into(), NATIVE)];
        let map = add("map".into(), NATIVE);
        let mut migration = vec![add("migration".into(), NATIVE)];
        for (i, spec) in specs.iter().enumerate().skip(1) {
            let r = RegionId(i as u8);
            host.push(add(format!("{}.host", spec.name), r));
            gc_streams.push(add(format!("{}.gc", spec.name), r));
            migration.push(add(format!("{}.migration", spec.name), r));
        }
        // The FTL's own: host, gc, map and migration per region (4 + 3 per extra region).
        let own_streams = 4 + 3 * (specs.len() - 1);
        if own_streams + placement_layout.streams as usize > u16::MAX as usize {
            return Err(Error::config(
                "ftl.placement",
                format!("{} placement streams are too many (at most {})", placement_layout.streams, u16::MAX),
            ));
        }
        let mut placement_streams = 0..0;
        for k in 0..placement_layout.streams {
            let id = add(format!("{}.{k}", policies.placement.id), NATIVE).0;
            if k == 0 {
                placement_streams.start = id;
            }
            placement_streams.end = id + 1;
        }
        placement.bind_streams(StreamId(placement_streams.start));
        let mut blocks = BlockManager::with_layout(geometry.clone(), specs, stream_specs);
        for (i, l) in layout.iter().enumerate() {
            let r = RegionId(i as u8 + 1);
            // Spread the region's blocks evenly over the planes.
            let planes = geometry.planes();
            for k in 0..l.initial_blocks {
                let plane = crate::units::PlaneId(k % planes);
                blocks.move_free_block(NATIVE, r, plane).ok_or_else(|| {
                    Error::config(
                        "slc.blocks",
                        format!("plane {} has no block left for region {}", plane.0, l.spec.name),
                    )
                })?;
            }
        }
        let native_domain = blocks.domain_of(NATIVE, crate::units::PlaneId(0));
        let unit_pages = (0..blocks.regions())
            .map(|r| {
                let bits = match blocks.region_spec(RegionId(r as u8)).mode {
                    crate::nand::BlockMode::Native => geometry.cell.bits_per_cell(),
                    crate::nand::BlockMode::Slc => 1,
                };
                placement.unit_pages(bits)
            })
            .collect();
        let mapping_ctx = mapping::BuildCtx { cfg, logical_pages: logical };
        let mapping = (policies.mapping.build)(&mapping_ctx)?;
        let scheduler_ctx = gc::scheduler::BuildCtx {
            gc: &cfg.gc,
            timing: &cfg.device.timing,
            rng: policy_rng,
            tables: &cfg.policy_tables,
        };
        let scheduler = (policies.scheduler.build)(scheduler_ctx)?;
        let victim = (policies.victim.build)(cfg)?;
        let buffer = if cfg.cache.capacity.0 > 0 {
            let pages = (cfg.cache.capacity.0 / geometry.page_bytes).min(u32::MAX as u64) as u32;
            let eviction_ctx = cache::BuildCtx {
                cfg,
                logical_pages: logical,
                capacity_pages: pages,
                rng: crate::rng::rng_for(cfg.warmup_seed(), crate::rng::RngStream::Eviction),
            };
            let eviction = (policies.eviction.build)(eviction_ctx)?;
            Some(
                WriteBuffer::new(pages, cfg.cache.high_watermark, cfg.cache.low_watermark, eviction)
                    .with_room_order(cfg.cache.room_order),
            )
        } else {
            None
        };
        let buffer_settings = BufferSettings {
            dram_page_ns: transfer_ns(geometry.page_bytes, cfg.cache.dram_bytes_per_s),
            insert_reads: cfg.cache.insert_reads,
            write_back_reads: cfg.cache.write_back_reads,
            flush_on_idle: cfg.cache.flush_on_idle && cfg.cache.capacity.0 > 0,
            // Validation refuses an interval without a buffer.
            flush_interval_ns: cfg.cache.flush_interval_ns,
        };
        let trigger = cfg.gc.trigger_free_blocks;
        let target = cfg.gc.target_free_blocks.unwrap_or(trigger + 1);
        let when_idle = cfg.gc.background == crate::config::GcBackground::Idle;
        let streams = Streams { host, gc: gc_streams, migration, map };
        Ok(Ftl {
            store: Store {
                blocks,
                mapping,
                placer: Placer::new(placement, placement_streams, placement_layout.max_lines, streams, unit_pages),
                verify: cfg.verify.then(|| Verifier::new(logical, physical)),
                stats: FtlStats::for_geometry(&geometry),
                region_stats: vec![region::RegionStats::default(); layout.len() + 1],
            },
            host: HostPath::new(buffer, buffer_settings, cfg.ftl.unwritten_reads, logical),
            reclaimer: Reclaimer::new(
                (victim, policies.victim.id),
                scheduler,
                scope,
                native_domain,
                (trigger, target),
                when_idle,
            ),
            regions: RegionManager::new(regions, cfg.logical_pages() as u64, cfg.device.overprovisioning),
            policies,
            last_arrival: None,
            busy_until: 0,
        })
    }
}
