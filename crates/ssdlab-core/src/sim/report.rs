//! Layer: sim. The report of a run: every figure the stats, the FTL, the device and the
//! policies gathered, and the latency histograms.

use super::*;

impl Simulation {
    /// The report of what has run so far.
    pub fn report(&self) -> Report {
        let span = self.last_completion.saturating_sub(self.first_arrival.unwrap_or(0));
        let secs = span as f64 / NS_PER_S as f64;
        let per_s = |x: f64| if secs > 0.0 { x / secs } else { 0.0 };
        let s = &self.summary;
        let f = self.ftl.stats();
        let counters = self.device.counters();
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
        let counts = self.ftl.blocks().erase_counts();
        let measured: Vec<u32> = if self.erase_base.len() == counts.len() {
            counts.iter().zip(&self.erase_base).map(|(a, b)| a - b).collect()
        } else {
            counts.to_vec()
        };
        let n = measured.len().max(1) as f64;
        let mean = measured.iter().map(|&e| e as f64).sum::<f64>() / n;
        let var = measured.iter().map(|&e| (e as f64 - mean).powi(2)).sum::<f64>() / n;
        let busy: u64 = self.device.unit_busy_ns().iter().sum();
        let units = self.device.unit_busy_ns().len().max(1) as f64;
        let gc_report = self.ftl.scheduler().report();
        Report {
            schema: REPORT_SCHEMA,
            ssdlab_version: env!("CARGO_PKG_VERSION"),
            git_revision: env!("SSDLAB_GIT_REVISION"),
            seed: self.cfg.seed,
            config: crate::config::to_json(self.cfg.config()),
            drive: self.drive_summary(),
            workload: WorkloadSummary {
                span_ns: span,
                skipped_records: self.host.skipped_records(),
                host: self.host.stats.clone(),
                // Read again at the end: the lines the reader passed over are known only now.
                trace: s.trace.as_ref().and_then(|_| self.host.trace_info()),
                ..s.clone()
            },
            latency: LatencyReport {
                read: self.lat_read.summary(),
                write: self.lat_write.summary(),
                trim: self.lat_trim.summary(),
                all: self.all_latencies().summary(),
            },
            throughput: Throughput {
                iops: per_s(s.requests as f64),
                read_mb_per_s: per_s(s.read_bytes as f64 / 1e6),
                write_mb_per_s: per_s(s.write_bytes as f64 / 1e6),
                mb_per_s: per_s((s.read_bytes + s.write_bytes) as f64 / 1e6),
            },
            waf,
            waf_by_source,
            ftl: f.clone(),
            gc: self.ftl.gc_stats().clone(),
            wear: WearSummary {
                erases: self.device.counters().erases,
                max_erases_per_block: measured.iter().copied().max().unwrap_or(0),
                mean_erases_per_block: mean,
                std_erases_per_block: var.sqrt(),
                lifetime_max_erases_per_block: counts.iter().copied().max().unwrap_or(0),
            },
            device: DeviceSummary {
                counters: self.device.counters().clone(),
                mean_unit_utilization: if span > 0 { busy as f64 / units / span as f64 } else { 0.0 },
                free_blocks_at_end: self.ftl.blocks().free_blocks(),
            },
            policies: Policies {
                mapping: self.ftl.policies().mapping.id.to_string(),
                placement: self.ftl.placement_id().to_string(),
                region_policy: self.ftl.policies().slc.id.to_string(),
                eviction: self.ftl.buffer().map(|_| self.ftl.policies().eviction.id.to_string()),
                gc_scheduler: self.ftl.policies().scheduler.id.to_string(),
                gc_victim: self.ftl.victim_id().to_string(),
                gc_scheduler_report: gc_report,
                mapping_report: self.ftl.mapping().report(),
                region_report: self.ftl.region_policy().report(),
                eviction_report: self.ftl.buffer().map(|b| b.policy.report()).unwrap_or(serde_json::Value::Null),
            },
            mapping: MappingSummary {
                dram_bytes: self.ftl.mapping().dram_bytes(),
                translation_reads: f.translation.reads,
                translation_writes: f.translation.writes,
            },
            cache: self.ftl.buffer().map(|b| b.stats()),
            regions: self.region_summaries(),
            warmup: self.warmup.clone(),
            idle: self.idle.clone(),
            verify: VerifySummary {
                enabled: self.cfg.verify,
                reads_checked: self.ftl.verify_reads_checked().unwrap_or(0),
                final_scan_passed: self.final_scan_passed,
            },
            time_series: TimeSeriesReport {
                free_blocks: self.free_blocks.clone(),
                buffer_occupied_pages: self.buffer_series.as_ref().map(|(o, _)| o.clone()),
                buffer_dirty_pages: self.buffer_series.as_ref().map(|(_, d)| d.clone()),
                rates: self.rates.report(self.first_arrival.map(|_| self.now), self.flash_totals()),
            },
            learning: [
                ("gc", self.ftl.scheduler().learning(self.ftl.policies().scheduler.id)),
                ("eviction", self.ftl.buffer().and_then(|b| b.policy.learning(self.ftl.policies().eviction.id))),
                ("region", self.ftl.region_policy().learning(self.ftl.policies().slc.id)),
            ]
            .into_iter()
            .filter_map(|(point, report)| report.map(|r| (point, r)))
            .collect(),
        }
    }

    fn drive_summary(&self) -> DriveSummary {
        let page_bytes = self.cfg.device.page_bytes;
        DriveSummary {
            preset: self.cfg.preset().map(str::to_string),
            raw_bytes: crate::config::Capacity::of(&self.cfg).physical_pages * page_bytes,
            logical_bytes: self.cfg.logical_pages() as u64 * page_bytes,
            used_logical_bytes: self.cfg.used_logical_pages() as u64 * page_bytes,
            utilization: self.cfg.device.utilization,
        }
    }

    pub(super) fn region_summaries(&self) -> Vec<RegionSummary> {
        let b = self.ftl.blocks();
        (0..b.regions())
            .map(|r| {
                let id = crate::ftl::blocks::RegionId(r as u8);
                let spec = b.region_spec(id);
                RegionSummary {
                    name: spec.name.clone(),
                    mode: spec.mode,
                    blocks: b.region_blocks(id),
                    free_blocks: b.region_free_blocks(id),
                    stats: self.ftl.region_stats().get(r).copied().unwrap_or_default(),
                }
            })
            .collect()
    }

    pub(super) fn all_latencies(&self) -> LatencyHistogram {
        let mut all = self.lat_read.clone();
        all.merge(&self.lat_write);
        all.merge(&self.lat_trim);
        all
    }

    /// Latency histogram (value, count) pairs for plotting exact CDFs: `which` is one of
    /// `LATENCY_HISTOGRAMS`.
    pub fn latency_histogram(&self, which: &str) -> Result<Vec<(u64, u64)>> {
        Ok(match which {
            "read" => self.lat_read.sorted(),
            "write" => self.lat_write.sorted(),
            "trim" => self.lat_trim.sorted(),
            "all" => self.all_latencies().sorted(),
            other => {
                return Err(Error::config(
                    "latency_histogram",
                    format!("unknown histogram {other:?}; expected one of {}", LATENCY_HISTOGRAMS.join(", ")),
                ))
            }
        })
    }
}
