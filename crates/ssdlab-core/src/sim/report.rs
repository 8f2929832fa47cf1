//! Layer: sim. The report of a run: every figure the stats, the FTL, the device and the
//! policies gathered, and the latency histograms.

use super::Simulation;
use crate::config::ValidatedConfig;
use crate::device::Source;
use crate::ftl::Ftl;
use crate::stats::report::*;
use crate::units::NS_PER_S;

/// The report of what `sim` has run so far.
pub(super) fn assemble(sim: &Simulation) -> Report {
    let span = sim.recorder.span_ns();
    let secs = span as f64 / NS_PER_S as f64;
    let per_s = |x: f64| if secs > 0.0 { x / secs } else { 0.0 };
    let s = &sim.recorder.summary;
    let f = sim.ftl.stats();
    let counters = sim.device.counters();
    // Flash pages programmed (every source) per host page written.
    let per_host_page = |programs: u64| {
        if f.host_write_pages == 0 {
            0.0
        } else {
            programs as f64 / f.host_write_pages as f64
        }
    };
    let waf = per_host_page(counters.programs);
    let waf_by_source: std::collections::BTreeMap<&'static str, f64> =
        Source::ALL.iter().map(|&src| (src.id(), per_host_page(counters.by_source.get(src).programs))).collect();
    let counts = sim.ftl.blocks().erase_counts();
    let measured: Vec<u32> = if sim.warmup.erase_base.len() == counts.len() {
        counts.iter().zip(&sim.warmup.erase_base).map(|(a, b)| a - b).collect()
    } else {
        counts.to_vec()
    };
    let n = measured.len().max(1) as f64;
    let mean = measured.iter().map(|&e| e as f64).sum::<f64>() / n;
    let var = measured.iter().map(|&e| (e as f64 - mean).powi(2)).sum::<f64>() / n;
    let busy: u64 = sim.device.unit_busy_ns().iter().sum();
    let units = sim.device.unit_busy_ns().len().max(1) as f64;
    let gc_report = sim.ftl.scheduler().report();
    Report {
        schema: REPORT_SCHEMA,
        ssdlab_version: env!("CARGO_PKG_VERSION"),
        git_revision: env!("SSDLAB_GIT_REVISION"),
        seed: sim.cfg.seed,
        config: crate::config::to_json(sim.cfg.config()),
        drive: drive_summary(&sim.cfg),
        workload: WorkloadSummary {
            span_ns: span,
            skipped_records: sim.arrivals.host.skipped_records(),
            host: sim.arrivals.host.stats.clone(),
            // Read again at the end: the lines the reader passed over are known only now.
            trace: s.trace.as_ref().and_then(|_| sim.arrivals.host.trace_info()),
            ..s.clone()
        },
        latency: sim.recorder.latency_report(),
        throughput: Throughput {
            iops: per_s(s.requests as f64),
            read_mb_per_s: per_s(s.read_bytes as f64 / 1e6),
            write_mb_per_s: per_s(s.write_bytes as f64 / 1e6),
            mb_per_s: per_s((s.read_bytes + s.write_bytes) as f64 / 1e6),
        },
        waf,
        waf_by_source,
        ftl: f.clone(),
        gc: sim.ftl.gc_stats().clone(),
        wear: WearSummary {
            erases: sim.device.counters().erases,
            max_erases_per_block: measured.iter().copied().max().unwrap_or(0),
            mean_erases_per_block: mean,
            std_erases_per_block: var.sqrt(),
            lifetime_max_erases_per_block: counts.iter().copied().max().unwrap_or(0),
        },
        device: DeviceSummary {
            counters: sim.device.counters().clone(),
            mean_unit_utilization: if span > 0 { busy as f64 / units / span as f64 } else { 0.0 },
            free_blocks_at_end: sim.ftl.blocks().free_blocks(),
        },
        policies: Policies {
            mapping: sim.ftl.policies().mapping.id.to_string(),
            placement: sim.ftl.placement_id().to_string(),
            region_policy: sim.ftl.policies().slc.id.to_string(),
            eviction: sim.ftl.buffer().map(|_| sim.ftl.policies().eviction.id.to_string()),
            gc_scheduler: sim.ftl.policies().scheduler.id.to_string(),
            gc_victim: sim.ftl.victim_id().to_string(),
            gc_scheduler_report: gc_report,
            mapping_report: sim.ftl.mapping().report(),
            region_report: sim.ftl.region_policy().report(),
            eviction_report: sim.ftl.buffer().map(|b| b.policy.report()).unwrap_or(serde_json::Value::Null),
        },
        mapping: MappingSummary {
            dram_bytes: sim.ftl.mapping().dram_bytes(),
            translation_reads: f.translation.reads,
            translation_writes: f.translation.writes,
        },
        cache: sim.ftl.buffer().map(|b| b.stats()),
        regions: region_summaries(&sim.ftl),
        warmup: sim.warmup.summary.clone(),
        idle: sim.idle.summary.clone(),
        verify: VerifySummary {
            enabled: sim.cfg.verify,
            reads_checked: sim.ftl.verify_reads_checked().unwrap_or(0),
            final_scan_passed: sim.final_scan_passed,
        },
        time_series: TimeSeriesReport {
            free_blocks: sim.recorder.free_blocks.clone(),
            buffer_occupied_pages: sim.recorder.buffer_series.as_ref().map(|(o, _)| o.clone()),
            buffer_dirty_pages: sim.recorder.buffer_series.as_ref().map(|(_, d)| d.clone()),
            rates: sim.recorder.rates.report(sim.recorder.first_arrival.map(|_| sim.now), sim.flash_totals()),
        },
        learning: [
            ("gc", sim.ftl.scheduler().learning(sim.ftl.policies().scheduler.id)),
            ("eviction", sim.ftl.buffer().and_then(|b| b.policy.learning(sim.ftl.policies().eviction.id))),
            ("region", sim.ftl.region_policy().learning(sim.ftl.policies().slc.id)),
        ]
        .into_iter()
        .filter_map(|(point, report)| report.map(|r| (point, r)))
        .collect(),
    }
}

fn drive_summary(cfg: &ValidatedConfig) -> DriveSummary {
    let page_bytes = cfg.device.page_bytes;
    DriveSummary {
        preset: cfg.preset().map(str::to_string),
        raw_bytes: crate::config::Capacity::of(cfg).physical_pages * page_bytes,
        logical_bytes: cfg.logical_pages() as u64 * page_bytes,
        used_logical_bytes: cfg.used_logical_pages() as u64 * page_bytes,
        utilization: cfg.device.utilization,
    }
}

fn region_summaries(ftl: &Ftl) -> Vec<RegionSummary> {
    let b = ftl.blocks();
    (0..b.regions())
        .map(|r| {
            let id = crate::ftl::blocks::RegionId(r as u8);
            let spec = b.region_spec(id);
            RegionSummary {
                name: spec.name.clone(),
                mode: spec.mode,
                blocks: b.region_blocks(id),
                free_blocks: b.region_free_blocks(id),
                stats: ftl.region_stats().get(r).copied().unwrap_or_default(),
            }
        })
        .collect()
}
