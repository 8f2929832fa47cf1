//! Layer: sim. What a run records as it goes: the latency histograms, the workload's figures,
//! the sampled series (free blocks, the write buffer), the per-interval figures, the
//! per-request log, and the span from the first arrival to the last completion.

use crate::config::ValidatedConfig;
use crate::error::{Error, Result};
use crate::ftl::cache::WriteBuffer;
use crate::stats::report::{LatencyReport, WorkloadSummary};
use crate::stats::{FlashTotals, IntervalSeries, LatencyHistogram, RequestLog, RequestRecord, TimeSeries};
use crate::units::SimTime;
use crate::workload::trace::TraceInfo;
use crate::workload::IoOp;

use super::queue::Completion;
use super::LATENCY_HISTOGRAMS;

pub(super) struct Recorder {
    lat_read: LatencyHistogram,
    lat_write: LatencyHistogram,
    lat_trim: LatencyHistogram,
    pub summary: WorkloadSummary,
    pub free_blocks: TimeSeries,
    /// Write buffer occupancy (buffered plus in-flight pages) and its dirty pages, sampled
    /// as `free_blocks` is; None without a buffer.
    pub buffer_series: Option<(TimeSeries, TimeSeries)>,
    /// Throughput, latency percentiles, WAF and GC activity per interval of simulated time,
    /// rolled at the top of every event (`roll`).
    pub rates: IntervalSeries,
    pub log: Option<RequestLog>,
    pub first_arrival: Option<SimTime>,
    pub last_completion: SimTime,
}

impl Recorder {
    /// Nothing recorded yet; `trace` is what the trace reader said when it opened, `log` the
    /// per-request log if the run keeps one.
    pub fn new(cfg: &ValidatedConfig, trace: Option<TraceInfo>, log: Option<RequestLog>) -> Recorder {
        let sampled = || TimeSeries::new(cfg.report.sample_interval_ns, cfg.report.max_samples);
        Recorder {
            lat_read: LatencyHistogram::default(),
            lat_write: LatencyHistogram::default(),
            lat_trim: LatencyHistogram::default(),
            summary: WorkloadSummary { trace, ..WorkloadSummary::default() },
            free_blocks: sampled(),
            buffer_series: (cfg.cache.capacity.0 > 0).then(|| (sampled(), sampled())),
            rates: IntervalSeries::new(cfg.report.sample_interval_ns, cfg.report.max_samples),
            log,
            first_arrival: None,
            last_completion: 0,
        }
    }

    /// Everything recorded dropped (the timed warm-up is over): the trace reader's figures
    /// stay, and the per-request log set aside meanwhile (`log`) comes back.
    pub fn restart(&mut self, cfg: &ValidatedConfig, log: Option<RequestLog>) {
        *self = Recorder::new(cfg, self.summary.trace.take(), log);
    }

    /// Move the per-interval figures on to the interval of an event at `now` (one comparison
    /// while it stays in the interval under way; `totals` read only when it rolls).
    #[inline(always)]
    pub fn roll(&mut self, now: SimTime, totals: impl FnOnce() -> FlashTotals) {
        if self.rates.due(now) {
            self.rates.roll(now, totals());
        }
    }

    /// A request is issued at `now`, with `free_blocks` free blocks and the write buffer `buffer`.
    #[inline(always)]
    pub fn issued(&mut self, now: SimTime, free_blocks: u32, buffer: Option<&WriteBuffer>) {
        self.first_arrival.get_or_insert(now);
        self.free_blocks.offer(now, free_blocks as f64);
        if let (Some((occupied, dirty)), Some(b)) = (&mut self.buffer_series, buffer) {
            occupied.offer(now, b.occupied() as f64);
            dirty.offer(now, b.dirty() as f64);
        }
    }

    /// Request `c` completed after `latency_ns`.
    #[inline(always)]
    pub fn completed(&mut self, c: &Completion, latency_ns: SimTime) -> Result<()> {
        self.last_completion = self.last_completion.max(c.time);
        self.rates.record(c.op, latency_ns, c.size_bytes);
        let s = &mut self.summary;
        s.requests += 1;
        match c.op {
            IoOp::Read => {
                self.lat_read.record(latency_ns);
                s.reads += 1;
                s.read_bytes += c.size_bytes;
            }
            IoOp::Write => {
                self.lat_write.record(latency_ns);
                s.writes += 1;
                s.write_bytes += c.size_bytes;
            }
            IoOp::Trim => {
                self.lat_trim.record(latency_ns);
                s.trims += 1;
            }
        }
        if let Some(log) = &mut self.log {
            log.push(RequestRecord {
                arrival_ns: c.arrival,
                latency_ns,
                op: c.op,
                offset_bytes: c.offset_bytes,
                size_bytes: c.size_bytes,
            })?;
        }
        Ok(())
    }

    /// From the first arrival to the last completion (0 before any).
    pub fn span_ns(&self) -> SimTime {
        self.last_completion.saturating_sub(self.first_arrival.unwrap_or(0))
    }

    /// The latency summaries, by operation and all together.
    pub fn latency_report(&self) -> LatencyReport {
        LatencyReport {
            read: self.lat_read.summary(),
            write: self.lat_write.summary(),
            trim: self.lat_trim.summary(),
            all: self.all_latencies().summary(),
        }
    }

    fn all_latencies(&self) -> LatencyHistogram {
        let mut all = self.lat_read.clone();
        all.merge(&self.lat_write);
        all.merge(&self.lat_trim);
        all
    }

    /// Latency histogram (value, count) pairs: `which` is one of `LATENCY_HISTOGRAMS`.
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
