//! The `mqsim-default` preset (MQSim's default `ssdconfig.xml`, docs/presets/mqsim.md): every
//! value the doc's table gives, the quantities MQSim derives from them (worked out here from
//! MQSim's formulas, not copied from the preset), an unloaded page read taking MQSim's read
//! time, and the tpcc trace MQSim ships replayed in verify mode.
//!
//! The real traces sit in `../shared/traces` beside every checkout, so a missing one fails the
//! test; `SSDLAB_SKIP_SHARED_TRACES=1` (for builds elsewhere) turns that into a skip that says
//! so on the terminal.

use crate::common::run;
use ssdlab_core::config::{GcScopeKind, Layer, UnwrittenReads};
use ssdlab_core::ftl::mapping::dftl::DftlSettings;
use ssdlab_core::load_config;
use ssdlab_core::nand::{ArrayUnit, CellType, Timing};
use ssdlab_core::units::transfer_ns;

const PRESET: &str = "mqsim-default";

use crate::common::shared_trace as shared;

/// A trace replay on the preset, devices merged as MQSim reads a DiskSim trace (it ignores the
/// device column).
fn trace_layer(path: &std::path::Path, extra: &str) -> Layer {
    Layer::inline(format!(
        "[workload]\nkind = \"trace\"\npath = {:?}\n{extra}\n[workload.trace]\ndevices = \"merge\"\n",
        path.display().to_string()
    ))
}

#[test]
fn preset_holds_mqsims_default_device() {
    let cfg = load_config(Some(PRESET), &[], &[]).expect("the preset loads and validates");
    let d = &cfg.device;
    // Flash_Channel_Count, Chip_No_Per_Channel, Die_No_Per_Chip, Plane_No_Per_Die,
    // Block_No_Per_Plane, Page_No_Per_Block, Page_Capacity, Flash_Technology,
    // Overprovisioning_Ratio.
    assert_eq!(
        (d.channels, d.chips_per_channel, d.dies_per_chip, d.planes_per_die, d.blocks_per_plane, d.pages_per_block),
        (8, 4, 2, 2, 2048, 256)
    );
    assert_eq!((d.page_bytes, d.cell, d.overprovisioning, d.utilization), (8192, CellType::Mlc, 0.07, 1.0));
    // 512 GiB raw; MQSim's logical pages: floor(physical x (1 - 0.07)).
    let physical: u64 = 8 * 4 * 2 * 2 * 2048 * 256;
    assert_eq!(physical * 8192, 512 << 30);
    assert_eq!(cfg.logical_pages() as u64, (physical as f64 * 0.93).floor() as u64);
    assert_eq!(cfg.logical_pages(), 62_411_243);

    // Page_Read_Latency_LSB/MSB 75 us, Page_Program_Latency_LSB/MSB 750 us, Block_Erase_Latency
    // 3.8 ms.
    let t = &d.timing;
    assert_eq!(
        (t.read_ns.as_slice(), t.program_ns.as_slice()),
        ([75_000, 75_000].as_slice(), [750_000, 750_000].as_slice())
    );
    assert_eq!(t.erase_ns, 3_800_000);
    assert_eq!(t.array_unit, ArrayUnit::Die);
    // MQSim's NV-DDR2 channel at 333 MT/s x 1 byte: a 6 ns cycle ((1000 / 333) truncated to
    // 3 ns, x 2) moves 2 bytes, so a page takes page_bytes / 2 x 6 ns.
    let cycle_ns = (1000 / 333) * 2;
    let resolved = Timing::resolve(t, d.cell, d.page_bytes);
    assert_eq!(resolved.page_transfer_ns, d.page_bytes / 2 * cycle_ns);
    assert_eq!(resolved.page_transfer_ns, 24_576);
    // Single-plane read command + address with MQSim's ONFI defaults: tCS + 6 tWC + tWB + tRR.
    let (t_cs, t_wc, t_wb, t_rr) = (20, 25, 100, 20);
    assert_eq!(t.command_ns, t_cs + 6 * t_wc + t_wb + t_rr);

    // CWDP plane allocation, per-plane GC below GC_Exec_Threshold x Block_No_Per_Plane free
    // blocks.
    assert_eq!((cfg.ftl.mapping.as_str(), cfg.ftl.placement.as_str()), ("dftl", "static"));
    assert_eq!(cfg.ftl.unwritten_reads, UnwrittenReads::MapOnRead);
    assert_eq!(cfg.gc.scope, GcScopeKind::Plane);
    assert_eq!((cfg.gc.scheduler.as_str(), cfg.gc.victim.as_str()), ("greedy", "greedy"));
    assert_eq!(cfg.gc.trigger_free_blocks, (0.05 * d.blocks_per_plane as f64) as u32);
    assert_eq!(cfg.gc.trigger_free_blocks, 102);
    assert_eq!(cfg.gc.target_free_blocks, None);

    // CMT_Capacity 2 MiB; MQSim's entry sizes from the device: a CMT entry holds LPN + PPN
    // (log2 of the physical pages each) + one bit per 512-byte sector, a translation-page entry
    // PPN + sector bits, rounded up to whole bytes.
    let dftl: DftlSettings = ssdlab_core::ftl::mapping::dftl::SETTINGS.decode(&cfg.policy_tables).unwrap();
    assert_eq!(dftl.cmt_bytes.0, 2 * 1024 * 1024);
    let ppn_bits = (physical as f64).log2();
    let sectors = (d.page_bytes / 512) as f64;
    assert_eq!(dftl.entry_bytes, ((2.0 * ppn_bits + sectors) / 8.0).ceil() as u32);
    assert_eq!(cfg.ftl.translation_entry_bytes, ((ppn_bits + sectors) / 8.0).ceil() as u32);
    assert_eq!((dftl.entry_bytes, cfg.ftl.translation_entry_bytes), (9, 6));

    // Data_Cache_Capacity 256 MiB as a write cache evicting LRU when full; DRAM at 100 MT/s with
    // 1-byte bursts: MQSim moves size / burst / 2 bursts of 1e9 / (100e6) ns each.
    let c = &cfg.cache;
    assert_eq!(c.capacity.0, 256 << 20);
    assert_eq!((c.eviction.as_str(), c.high_watermark, c.low_watermark, c.insert_reads), ("lru", 1.0, 1.0, false));
    let burst_ns = 1e9 / (100.0 * 1e6);
    let burst_bytes = 1; // Data_Cache_DRAM_Data_Busrt_Size
    let mqsim_page_ns = (d.page_bytes / burst_bytes / 2) as f64 * burst_ns;
    assert_eq!(transfer_ns(d.page_bytes, c.dram_bytes_per_s), mqsim_page_ns as u64);
    assert_eq!(transfer_ns(d.page_bytes, c.dram_bytes_per_s), 40_960);

    assert!(!cfg.warmup.fill && cfg.warmup.random_writes == 0.0, "MQSim's default runs without preconditioning");
}

/// A page read on an idle die: command + tR + the page over the channel, 290 + 75,000 +
/// 24,576 ns, MQSim's single-plane read. The WebSearch excerpt MQSim ships is light (about 400
/// requests per second) and almost all 8 KiB-aligned reads of data that predates the trace, so
/// its median read is exactly that with the mapping in DRAM (MQSim's ideal mapping), and two of
/// them in a row with DFTL, whose 2 MiB CMT misses almost every time: the translation page (on
/// flash from the start, as the data) first, then the data.
#[test]
fn an_unloaded_page_read_takes_mqsims_read_time() {
    let Some(path) = shared("umass/websearch_small.disksim_ns.txt.gz") else { return };
    let one_read = 290 + 75_000 + 24_576;
    for (mapping, reads) in [("page", 1), ("dftl", 2)] {
        let cfg =
            load_config(Some(PRESET), &[trace_layer(&path, "count = 5000")], &[format!("ftl.mapping={mapping:?}")])
                .expect("config");
        let report = run(cfg);
        assert_eq!(report.workload.requests, 5000);
        assert_eq!(report.latency.read.p50_ns, reads * one_read, "{mapping}");
        assert_eq!(report.mapping.translation_reads > 0, mapping == "dftl", "{mapping}");
    }
}

/// MQSim's bundled TPC-C trace end to end in verify mode: every read checked against the latest
/// write, the final scan over all 62 M logical pages passes, and the mapping is sized as the
/// doc says.
#[test]
fn tpcc_trace_replays_in_verify_mode() {
    let Some(path) = shared("ms_production/tpcc_small.disksim_ns.txt") else { return };
    let cfg =
        load_config(Some(PRESET), &[trace_layer(&path, ""), Layer::inline("verify = true\n")], &[]).expect("config");
    let report = run(cfg);
    // `awk '{print $5}' F | sort | uniq -c`: 4,381 reads (1) and 2,618 writes (0).
    assert_eq!((report.workload.requests, report.workload.reads, report.workload.writes), (6_999, 4_381, 2_618));
    assert!(report.verify.enabled && report.verify.final_scan_passed);
    assert_eq!(report.verify.reads_checked, report.ftl.host_read_pages);
    // Most TPC-C reads touch data written before the trace: mapped on first read, untimed.
    assert!(report.ftl.unwritten_read_pages > 0);
    assert_eq!(report.ftl.premapped_pages, report.ftl.unwritten_read_pages);
    let mapping = &report.policies.mapping_report;
    assert_eq!(mapping["cmt_entries"], 2 * 1024 * 1024 / 9);
    assert_eq!(mapping["entries_per_translation_page"], 8192 / 6);
    // The buffer holds every write of this short trace; the end-of-run flush programs them.
    let cache = report.cache.as_ref().expect("the preset has a write buffer");
    assert_eq!(cache.final_flush_pages, report.ftl.host_programs);
    assert!(report.waf > 0.0 && report.waf <= 1.0, "WAF {}", report.waf);
}
