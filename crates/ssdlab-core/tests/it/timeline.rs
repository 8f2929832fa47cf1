//! Hand-computed timelines of the write path and the mapping on a device small enough to follow
//! page by page: one channel, one chip, one die, one or two planes of 32 QLC blocks of 16 pages
//! (4 wordlines), every latency distinct. Each request arrives on an idle device (requests are
//! 20 ms apart and each completes before the next), so its latency is the sum of the flash
//! operations it waits for, each from the timing equations of `nand/timing.rs`:
//!
//! * read     = command + tR(page type) + page transfer
//! * program  = command + page transfer + tPROG(page type)
//! * wordline = command + n page transfers + tPROG_wordline (one-shot, all n page types)
//! * erase    = command + tBERS
//! * DRAM     = page bytes / dram_bytes_per_s, rounded up to whole ns, per page
//!
//! Where every page lands is worked out by hand in each test from the allocation rules (a
//! stream fills the next page of its open block, blocks open from the plane's free pool in
//! order; page p of a native block has type p mod 4) and then checked against the PPNs the FTL
//! holds, so a wrong expectation and a wrong simulator are told apart.

use crate::common::{cwdp_address, page_request, run_script, run_timeline};
use ssdlab_core::device::Source;
use ssdlab_core::ftl::blocks::{BlockManager, GcScope, RegionId, RegionSpec, StreamSpec};
use ssdlab_core::nand::{BlockMode, CellType, Geometry};
use ssdlab_core::units::Lpn;
use ssdlab_core::workload::{IoOp, TraceRecord};

const PAGE: u64 = 4096;
const COMMAND: u64 = 1_000;
/// tR of the four QLC page types (LSB, CLSB, CMSB, MSB).
const T_READ: [u64; 4] = [20_000, 30_000, 40_000, 50_000];
/// tPROG of the four page types, page-by-page programming.
const T_PROG: [u64; 4] = [100_000, 200_000, 300_000, 400_000];
const T_PROG_WORDLINE: u64 = 1_500_000;
const T_ERASE: u64 = 3_000_000;
const T_READ_SLC: u64 = 10_000;
const T_PROG_SLC: u64 = 60_000;
const T_ERASE_SLC: u64 = 2_000_000;
const CHANNEL_BYTES_PER_S: u64 = 400_000_000;
/// Does not divide a page: the DRAM time of a page is rounded up (1365.33 -> 1366 ns).
const DRAM_BYTES_PER_S: u64 = 3_000_000_000;
/// Time between arrivals: far longer than any request here takes.
const GAP: u64 = 20_000_000;

/// One page over the channel: 4096 B at 400 MB/s = 10,240 ns.
const fn xfer() -> u64 {
    (PAGE * 1_000_000_000).div_ceil(CHANNEL_BYTES_PER_S)
}
/// One page over the DRAM bus.
const fn dram() -> u64 {
    (PAGE * 1_000_000_000).div_ceil(DRAM_BYTES_PER_S)
}
const fn read(page_type: usize) -> u64 {
    COMMAND + T_READ[page_type] + xfer()
}
const fn program(page_type: usize) -> u64 {
    COMMAND + xfer() + T_PROG[page_type]
}
const fn read_slc() -> u64 {
    COMMAND + T_READ_SLC + xfer()
}
const fn program_slc() -> u64 {
    COMMAND + xfer() + T_PROG_SLC
}
const fn erase_slc() -> u64 {
    COMMAND + T_ERASE_SLC
}

/// The device: `planes` planes x 32 blocks x 16 QLC pages, half of it over-provisioned (256
/// logical pages), GC far away (2 free blocks).
fn device(planes: u32) -> String {
    format!(
        "verify = true\n\
         [device]\nchannels = 1\nchips_per_channel = 1\ndies_per_chip = 1\nplanes_per_die = {planes}\n\
         blocks_per_plane = 32\npages_per_block = 16\npage_bytes = {PAGE}\ncell = \"qlc\"\n\
         overprovisioning = 0.5\nutilization = 1.0\n\
         [device.timing]\nread_ns = {T_READ:?}\nprogram_ns = {T_PROG:?}\nprogram_wordline_ns = {T_PROG_WORDLINE}\n\
         erase_ns = {T_ERASE}\nslc_read_ns = {T_READ_SLC}\nslc_program_ns = {T_PROG_SLC}\n\
         slc_erase_ns = {T_ERASE_SLC}\nchannel_bytes_per_s = {CHANNEL_BYTES_PER_S}\ncommand_ns = {COMMAND}\n\
         array_unit = \"plane\"\n\
         [gc]\ntrigger_free_blocks = 2\n\
         [cache]\ndram_bytes_per_s = {DRAM_BYTES_PER_S}\n"
    )
}

/// Request k (1-based) of a script: `pages` whole pages from `lpn`, arriving at k x GAP.
fn at(k: u64, op: IoOp, lpn: u64, pages: u64) -> TraceRecord {
    page_request(k * GAP, op, lpn, pages, PAGE)
}

/// (translation reads, translation programs) of each of the first `n` requests.
fn mapping_ops(t: &crate::common::Timeline, n: usize) -> Vec<(u64, u64)> {
    (0..n)
        .map(|i| {
            let m = t.ops(i, Source::Mapping);
            (m.reads, m.programs)
        })
        .collect()
}

/// (block in plane, page in block) of the page holding `lpn`.
fn where_is(t: &crate::common::Timeline, lpn: u32) -> (u32, u32, u32) {
    let g = t.sim.ftl().blocks().geometry().clone();
    let a = g.decode(t.sim.ftl().mapping().peek(Lpn(lpn)).expect("lpn is mapped"));
    (a.plane, a.block, a.page)
}

#[test]
fn buffered_writes_and_read_hits_cost_dram_time_only() {
    use IoOp::{Read, Write};
    let buffer = "[cache]\ncapacity = \"64k\"\n";
    let t = run_timeline(
        &[&device(1), buffer],
        vec![
            at(1, Write, 3, 1),
            // Four pages cross the DRAM bus one after another.
            at(2, Write, 10, 4),
            at(3, Read, 3, 1),
            at(4, Read, 10, 2),
            // A rewrite of a buffered page merges in DRAM.
            at(5, Write, 3, 1),
        ],
    );
    let d = dram();
    assert_eq!(d, 1366, "4096 B at 3 GB/s, rounded up");
    assert_eq!(t.latencies, [d, 4 * d, d, 2 * d, d]);
    for i in 0..5 {
        assert_eq!(t.ops_except(i, &[]), 0, "request {i} touched the flash");
    }
    let cache = t.report.cache.as_ref().expect("buffer on");
    assert_eq!((cache.read_hits, cache.read_lookups, cache.write_hits, cache.write_lookups), (3, 3, 1, 6));
    // 16 pages hold 5 dirty pages, below the 0.9 watermark: all of them leave at the end.
    assert_eq!((cache.evicted_pages, cache.final_flush_pages), (5, 5));
    let by = &t.report.device.counters.by_source;
    assert_eq!((by.get(Source::BufferFlush).programs, by.get(Source::Host).programs), (5, 0));
    assert!(t.report.verify.final_scan_passed);
}

#[test]
fn evicting_four_pages_on_qlc_is_one_wordline_program() {
    use IoOp::{Read, Write};
    // Four pages of buffer; a flush starts above 3 dirty pages (floor(0.75 x 4)) and stops at 1
    // (floor(0.25 x 4)): the fourth distinct dirty page sends one wordline (4 pages) to flash.
    let buffer = "[ftl]\nplacement = \"wordline\"\n\
                  [cache]\ncapacity = \"16k\"\nhigh_watermark = 0.75\nlow_watermark = 0.25\n";
    let t5 = 5 * GAP;
    let read_during_program = t5 + 100_000;
    let t = run_timeline(
        &[&device(1), buffer],
        vec![
            at(1, Write, 7, 1),
            at(2, Write, 2, 1),
            at(3, Write, 5, 1),
            // Rewriting 2 makes it the most recently used: LRU order is now 7, 5, 2.
            at(4, Write, 2, 1),
            at(5, Write, 0, 1),
            // LPN 5 left the buffer with the flush: read from flash while its wordline programs.
            page_request(read_during_program, Read, 5, 1, PAGE),
            at(7, Read, 0, 1),
        ],
    );
    let eviction_order = [7u32, 5, 2, 0];
    // The wordline went to the first wordline of the first free block (block 0), slot i taking
    // page type i.
    let placed: Vec<(u32, u32, u32)> = eviction_order.iter().map(|&l| where_is(&t, l)).collect();
    assert_eq!(placed, [(0, 0, 0), (0, 0, 1), (0, 0, 2), (0, 0, 3)], "LPNs {eviction_order:?}");

    // The program starts when the fifth write arrives (the flush runs then) and lasts
    // command + 4 transfers + tPROG_wordline; the read of LPN 5 (type 1) waits for it.
    let wordline_end = t5 + COMMAND + 4 * xfer() + T_PROG_WORDLINE;
    let d = dram();
    assert_eq!(
        t.latencies,
        [d, d, d, d, d, wordline_end - read_during_program + read(1), read(3)],
        "the writes complete at DRAM time, the flush does not hold them"
    );
    let flush = t.ops(4, Source::BufferFlush);
    assert_eq!((flush.programs, flush.wordline_programs, flush.busy_ns), (4, 1, T_PROG_WORDLINE));
    assert_eq!(t.ops_except(4, &[Source::BufferFlush]), 0);
    for i in [0, 1, 2, 3] {
        assert_eq!(t.ops_except(i, &[]), 0, "write {i} stayed in DRAM");
    }
    assert_eq!((t.ops(5, Source::Host).reads, t.ops(6, Source::Host).reads), (1, 1));
    let c = &t.report.device.counters;
    assert_eq!((c.programs, c.wordline_programs), (4, 1));
    assert_eq!(c.reads_by_page_type, [0, 1, 0, 1]);
    let cache = t.report.cache.as_ref().unwrap();
    assert_eq!((cache.flushes, cache.evicted_units, cache.evicted_pages, cache.write_hits), (1, 1, 4, 1));
    assert!(t.report.verify.final_scan_passed);
}

#[test]
fn a_dftl_read_miss_reads_the_translation_page_first() {
    use IoOp::{Read, Write};
    // Two planes; static placement puts LPN l on plane l mod 2 (1 channel, chip and die).
    // A CMT of 2 entries; a translation page of 4096 / 1024 = 4 entries (tpage = lpn / 4).
    let dftl = "[ftl]\nmapping = \"dftl\"\nplacement = \"static\"\nunwritten_reads = \"free\"\ntranslation_entry_bytes = 1024\n\
                [ftl.dftl]\ncmt_bytes = 16\nentry_bytes = 8\n\
                [gc]\nscope = \"plane\"\n";
    let t = run_timeline(
        &[&device(2), dftl],
        vec![
            // Plane 0, host block page 0 (type 0). CMT: 2 dirty.
            at(1, Write, 2, 1),
            // Plane 0, page 1 (type 1). CMT: 0 dirty, 2 dirty.
            at(2, Write, 0, 1),
            // Plane 0, page 2 (type 2). The CMT is full: LRU entry 2 (dirty) goes, its translation
            // page 0 was never written, so it is programmed without a read, on the least busy
            // plane (plane 1, idle since the start), page 0 of its map block (type 0). Entry 0,
            // of the same translation page, is clean with it.
            at(3, Write, 4, 1),
            // Reads of never-written pages (free with `unwritten_reads = "free"`) load clean
            // entries: the first evicts entry 0 (clean: no write-back), the second entry 4
            // (dirty: translation page 1 is programmed).
            at(4, Read, 100, 1),
            at(5, Read, 104, 1),
            // LPN 0 is not cached; its translation page is on plane 1 (type 0), its data on
            // plane 0 (type 1); the evicted entry (100) is clean.
            at(6, Read, 0, 1),
        ],
    );
    let g = t.sim.ftl().blocks().geometry().clone();
    let tpage0 = g.decode(t.sim.ftl().mapping().translation_page(0).expect("translation page 0 on flash"));
    assert_eq!((tpage0.plane, tpage0.page), (1, 0));
    assert_eq!((where_is(&t, 2), where_is(&t, 0), where_is(&t, 4)), ((0, 0, 0), (0, 0, 1), (0, 0, 2)));

    // Request 3: the translation program (plane 1) and the data program (plane 0) share the
    // channel: the data transfer waits for the translation page's, then both arrays work at once.
    let third = (COMMAND + xfer()) + program(2);
    // Request 6: the data read starts when the translation read has delivered its page. Issued
    // at the arrival instead, it would overlap the translation read on the other plane.
    let sixth = read(0) + read(1);
    assert_eq!(t.latencies, [program(0), program(1), third, 0, 0, sixth]);
    assert_eq!(mapping_ops(&t, 6), [(0, 0), (0, 0), (0, 1), (0, 0), (0, 1), (1, 0)]);
    assert_eq!(t.ops(5, Source::Host).reads, 1);
    assert_eq!(t.ops_except(5, &[Source::Host, Source::Mapping]), 0);
    assert_eq!((t.report.mapping.translation_reads, t.report.mapping.translation_writes), (1, 2));
    assert_eq!(t.report.policies.mapping_report["cmt_misses"], 6);
    assert!(t.report.verify.final_scan_passed);
}

/// Data that predates the run (`map_on_read`, the default) has its translation pages on flash
/// from the start: a miss on it reads the translation page first, for a read as for a write,
/// although the run never wrote that translation page.
#[test]
fn a_dftl_miss_on_data_that_predates_the_run_reads_its_translation_page() {
    use IoOp::{Read, Write};
    // One plane; 4 entries per translation page (tpage = lpn / 4); a CMT far larger than needed.
    let dftl = "[ftl]\nmapping = \"dftl\"\ntranslation_entry_bytes = 1024\n";
    let t = run_timeline(
        &[&device(1), dftl],
        vec![
            // Translation page 1 is placed at its first use: the map stream opens block 0, page
            // 0 (type 0). The data, premapped, gets the host stream's block 1, page 0 (type 0).
            at(1, Read, 5, 1),
            // Same translation page (stored now), entry 6 not cached: read it again; the data
            // lands at block 1, page 1 (type 1).
            at(2, Read, 6, 1),
            // A write miss loads its entry too: translation page 2 is placed at block 0, page 1
            // (type 1) and read; the data program (block 1, page 2, type 2) queues behind it on
            // the plane and the channel.
            at(3, Write, 9, 1),
            // Two pages of translation page 3: both miss, one translation read serves both.
            at(4, Read, 12, 2),
        ],
    );
    assert_eq!((where_is(&t, 5), where_is(&t, 6), where_is(&t, 9)), ((0, 1, 0), (0, 1, 1), (0, 1, 2)));
    let g = t.sim.ftl().blocks().geometry().clone();
    let tpage = |tp: u32| {
        let a = g.decode(t.sim.ftl().mapping().translation_page(tp).expect("translation page on flash"));
        (a.plane, a.block, a.page)
    };
    assert_eq!((tpage(1), tpage(2)), ((0, 0, 0), (0, 0, 1)));
    assert_eq!(t.latencies[..3], [read(0) + read(0), read(0) + read(1), read(1) + program(2)]);
    assert_eq!(
        mapping_ops(&t, 4),
        [(1, 0), (1, 0), (1, 0), (1, 0)],
        "placing a translation page that predates the run programs nothing"
    );
    let m = &t.report.policies.mapping_report;
    assert_eq!((m["installed_translation_pages"].as_u64(), m["shared_translation_reads"].as_u64()), (Some(3), Some(1)));
    assert_eq!(t.ops(3, Source::Host).reads, 2);
    assert_eq!((t.report.ftl.premapped_pages, t.report.device.counters.programs), (4, 1));
    assert!(t.report.verify.final_scan_passed);
}

#[test]
fn a_dirty_cmt_eviction_rewrites_its_translation_page_and_cleans_its_siblings() {
    use IoOp::Write;
    // One plane: every operation serialises on it. Host data fills block 0 from page 0; the
    // first translation write opens block 1 (the map stream's). A CMT of 3 entries, 4 entries
    // per translation page (tpage = lpn / 4). An empty drive (`unwritten_reads = "free"`): a
    // translation page never written holds nothing and is not read.
    let dftl = "[ftl]\nmapping = \"dftl\"\nunwritten_reads = \"free\"\ntranslation_entry_bytes = 1024\n\
                [ftl.dftl]\ncmt_bytes = 24\nentry_bytes = 8\n";
    let lpns = [0u64, 4, 8, 12, 1, 2, 3, 16, 20, 24, 28];
    let t = run_timeline(
        &[&device(1), dftl],
        lpns.iter().enumerate().map(|(k, &l)| at(k as u64 + 1, Write, l, 1)).collect(),
    );
    // Host data page k is page k of block 0 (type k mod 4); translation writes take pages
    // 0, 1, 2, ... of block 1.
    let data = |k: usize| program(k % 4);
    let expected = [
        // 0, 4, 8: misses of never-written translation pages, no flash work for the mapping.
        data(0),
        data(1),
        data(2),
        // 12 evicts 0 (dirty; tpage 0 never written): program tpage 0 (map page 0), then data.
        program(0) + data(3),
        // 1 evicts 4 (dirty: program tpage 1, map page 1) and loads its entry from tpage 0
        // (read map page 0, type 0); the data transfer queues behind that read's transfer.
        program(1) + read(0) + data(4),
        // 2 evicts 8 (tpage 2 to map page 2) and reads tpage 0; likewise 3 evicts 12.
        program(2) + read(0) + data(5),
        program(3) + read(0) + data(6),
        // 16 evicts 1, dirty, of tpage 0 (on flash at map page 0): read-modify-write, the new
        // copy at map page 4 (type 0). Entries 2 and 3 of tpage 0 are clean with it.
        read(0) + program(0) + data(7),
        // 20 and 24 evict 2 and 3: clean, nothing to write back.
        data(8),
        data(9),
        // 28 evicts 16 (dirty; tpage 4 never written): program it at map page 5 (type 1).
        program(1) + data(10),
    ];
    assert_eq!(t.latencies, expected);
    assert_eq!(
        mapping_ops(&t, lpns.len()),
        [(0, 0), (0, 0), (0, 0), (0, 1), (1, 1), (1, 1), (1, 1), (1, 1), (0, 0), (0, 0), (0, 1)]
    );
    // The rewrite is a read and a program of the mapping, busy tR(type 0) + tPROG(type 0).
    assert_eq!(t.ops(7, Source::Mapping).busy_ns, T_READ[0] + T_PROG[0]);
    for i in 0..lpns.len() {
        assert_eq!(t.ops(i, Source::Host).programs, 1);
        assert_eq!(t.ops_except(i, &[Source::Host, Source::Mapping]), 0);
    }
    let g = t.sim.ftl().blocks().geometry().clone();
    let tpage0 = g.decode(t.sim.ftl().mapping().translation_page(0).unwrap());
    assert_eq!((tpage0.block, tpage0.page), (1, 4));
    assert_eq!(where_is(&t, 28), (0, 0, 10));
    let dftl_report = &t.report.policies.mapping_report;
    assert_eq!((dftl_report["evictions"].as_u64(), dftl_report["dirty_evictions"].as_u64()), (Some(8), Some(6)));
    assert_eq!((t.report.mapping.translation_reads, t.report.mapping.translation_writes), (4, 6));
    assert!(t.report.verify.final_scan_passed);
}

/// TPFTL's prefetching (`[ftl.tpftl]`): a read request's sub-range in one translation page is
/// loaded with one translation read (request-level prefetch), and a miss after cached
/// predecessors loads as many following entries (selective prefetch), so later reads hit.
#[test]
fn tpftl_prefetch_loads_a_sub_range_and_a_run_ahead_with_one_translation_read() {
    use IoOp::Read;
    // One plane; 8 entries per translation page (tpage = lpn / 8); data that predates the run
    // (`map_on_read`): translation page 1 is placed at its first use at map block 0, page 0
    // (type 0), and each page's data is premapped at its first read on the host stream's block
    // 1 in read order: 8, 9, 10, 11, 12, 14, 15 -> pages 0..6.
    let tpftl = "[ftl]\nmapping = \"tpftl\"\ntranslation_entry_bytes = 512\n";
    let t = run_timeline(
        &[&device(1), tpftl],
        vec![
            // 8 misses: one translation read loads 8, 9 and 10 (request-level prefetch).
            at(1, Read, 8, 3),
            // 11 misses; its predecessors 10, 9, 8 are cached and the coldest node holds 3
            // entries: the same read also loads 12, 13 and 14 (selective prefetch).
            at(2, Read, 11, 1),
            // Prefetched: hits, no translation read.
            at(3, Read, 12, 1),
            at(4, Read, 14, 1),
            // 15 was not prefetched: a miss.
            at(5, Read, 15, 1),
        ],
    );
    assert_eq!(
        (where_is(&t, 8), where_is(&t, 11), where_is(&t, 12), where_is(&t, 14)),
        ((0, 1, 0), (0, 1, 3), (0, 1, 4), (0, 1, 5))
    );
    assert_eq!(mapping_ops(&t, 5), [(1, 0), (1, 0), (0, 0), (0, 0), (1, 0)]);
    // A miss waits for the translation read (map page 0, type 0), then reads its data; a hit
    // reads only its data.
    assert_eq!(t.latencies[1..4], [read(0) + read(3), read(0), read(1)]);
    let m = &t.report.policies.mapping_report;
    assert_eq!((m["request_prefetched"].as_u64(), m["selective_prefetched"].as_u64()), (Some(2), Some(3)));
    assert_eq!((m["cmt_hits"].as_u64(), m["double_reads"].as_u64()), (Some(2), Some(3)));
    assert_eq!(t.report.mapping.translation_reads, 3);
    assert!(t.report.verify.final_scan_passed);
}

/// TPFTL's replacement: the victim node is the one whose entries were used longest ago on
/// average (not the least recently used node), and within it a clean entry leaves before a
/// dirty one. Capacity is counted in bytes: a node costs 8, an entry 6.
#[test]
fn tpftl_evicts_from_the_coldest_node_clean_entries_first() {
    use IoOp::{Read, Write};
    // 8 entries per translation page; an empty drive: reads of unwritten pages and translation
    // pages never written cost no flash operation, so only the cache's choices are observed.
    let base = "[ftl]\nmapping = \"tpftl\"\nunwritten_reads = \"free\"\ntranslation_entry_bytes = 512\n\
                [ftl.tpftl]\nselective_prefetch = false\n";
    // Two nodes and four entries: 2 x 8 + 4 x 6 = 40 bytes.
    let hot = format!("{base}cmt_bytes = 40\n");
    let lpns = [0u64, 1, 2, 8, 2, 16, 2, 8, 0];
    let t = run_timeline(
        &[&device(1), &hot],
        lpns.iter().enumerate().map(|(k, &l)| at(k as u64 + 1, Read, l, 1)).collect(),
    );
    // Access ticks 1, 2, 3 (node 0), 4 (node 1), 5 (2 again): node 0's mean is 8/3, node 1's 4,
    // although node 0 was used last. 16 needs a node and an entry (14 bytes): entries 0 and 1
    // of node 0 go, then node 0 (now only 2, tick 5) is hotter than node 1, whose entry 8 goes.
    // Then 2 hits; 8 evicts node 2 (16, tick 6) before node 0 (2, tick 7); 0 misses. A
    // least-recently-used order of nodes would have dropped node 1 first and kept 0: 3 hits.
    let m = &t.report.policies.mapping_report;
    assert_eq!(
        (m["cmt_hits"].as_u64(), m["evictions"].as_u64(), m["nodes_dropped"].as_u64()),
        (Some(2), Some(4), Some(2))
    );

    // One node of three entries: 8 + 3 x 6 = 26 bytes. Clean entries leave first; once only
    // dirty ones are left, the least recent goes and its translation page is written (never
    // written before: a program, no read), which cleans its siblings.
    let one = format!("{base}cmt_bytes = 26\n");
    let ops = [
        (Write, 0u64),
        (Read, 1),
        (Read, 2),
        (Read, 3),
        (Write, 4),
        (Read, 5),
        (Write, 6),
        (Read, 7),
        (Read, 1),
        (Read, 2),
    ];
    let t = run_timeline(
        &[&device(1), &one],
        ops.iter().enumerate().map(|(k, &(op, l))| at(k as u64 + 1, op, l, 1)).collect(),
    );
    // 3 evicts 1, 4 evicts 2, 5 evicts 3, 6 evicts 5 (clean, all); 7 finds 6, 4, 0 dirty: 0 goes
    // with a write-back; 1 evicts 4 and 2 evicts 6, clean since the write-back. Translation
    // page 0 is on flash now: the misses on 1 and 2 read it.
    assert_eq!(
        mapping_ops(&t, ops.len()),
        [(0, 0), (0, 0), (0, 0), (0, 0), (0, 0), (0, 0), (0, 0), (0, 1), (1, 0), (1, 0)]
    );
    let m = &t.report.policies.mapping_report;
    assert_eq!((m["evictions"].as_u64(), m["dirty_evictions"].as_u64()), (Some(7), Some(1)));
    assert_eq!((t.report.mapping.translation_reads, t.report.mapping.translation_writes), (2, 1));
    assert!(t.report.verify.final_scan_passed);
}

/// LearnedFTL: a CMT miss whose bit is set is served by the model without a translation read;
/// a miss without one costs what a TPFTL (or DFTL) miss costs; an overwrite clears the bit.
#[test]
fn a_learnedftl_model_hit_costs_no_translation_read_and_an_overwrite_clears_its_bit() {
    use IoOp::{Read, Write};
    // One plane: a PPN's virtual PPN is the PPN itself, so a block written in order gives
    // consecutive VPPNs. 8 entries per translation page; a cache of one node with three
    // entries (8 + 3 x 6 bytes); data that predates the run (`map_on_read`).
    let layers = |mapping: &str| {
        format!(
            "[ftl]\nmapping = \"{mapping}\"\ntranslation_entry_bytes = 512\n\
             [ftl.tpftl]\ncmt_bytes = 26\nselective_prefetch = false\n[ftl.learned]\ncmt_bytes = 26\n"
        )
    };
    let script = || {
        vec![
            // Host data fills block 0 from page 0 (each page allocated before its mapping update);
            // translation page 1 is placed on the map stream's block 1 at its first use (page 0,
            // type 0) and rewritten when 11 evicts the dirty 8 (page 1, type 1). 8..11 land on
            // VPPNs 0..3: sequential initialisation sets the model y = x and their bits.
            at(1, Write, 8, 4),
            // 12 continues the run (VPPN 4): its bit is set too; its miss evicts 9 (clean).
            at(2, Write, 12, 1),
            // 9: not cached, bit set: the model gives block 0, page 1 (type 1). No translation read.
            at(3, Read, 9, 1),
            // 13 predates the run: no bit; a translation read of page 1 (type 1), then its data,
            // premapped at block 0, page 5 (type 1).
            at(4, Read, 13, 1),
            // 9 is overwritten (block 0, page 6): its bit is cleared. 14 and 15 then push 9 out.
            at(5, Write, 9, 1),
            at(6, Read, 14, 1),
            at(7, Read, 15, 1),
            at(8, Read, 13, 1),
            // 9 again: not cached, and no bit any more: a translation read.
            at(9, Read, 9, 1),
        ]
    };
    let t = run_timeline(&[&device(1), &layers("learned")], script());
    assert_eq!(
        (where_is(&t, 8), where_is(&t, 12), where_is(&t, 13), where_is(&t, 9)),
        ((0, 0, 0), (0, 0, 4), (0, 0, 5), (0, 0, 6))
    );
    let ops = mapping_ops(&t, 9);
    assert_eq!((ops[2], ops[3], ops[8]), ((0, 0), (1, 0), (1, 0)));
    assert_eq!(t.latencies[2..4], [read(1), read(1) + read(1)]);
    let m = &t.report.policies.mapping_report;
    assert_eq!((m["model_hits"].as_u64(), m["bits_cleared"].as_u64()), (Some(1), Some(1)));
    assert_eq!((m["bits_set_by_initialisation"].as_u64(), m["initialised_entries"].as_u64()), (Some(5), Some(1)));
    assert!(t.report.verify.final_scan_passed);

    // TPFTL with the same cache: the read of 9 is a miss, with the same cost as 13's.
    let t = run_timeline(&[&device(1), &layers("tpftl")], script());
    assert_eq!(mapping_ops(&t, 9)[2], (1, 0));
    assert_eq!(t.latencies[2], read(1) + read(1));
}

/// Group GC (LearnedFTL Sec. 3.3): a group's line is collected when the group would open a
/// line beyond its threshold; its valid pages are written back sorted by LPN, row by row across
/// the planes, so they get consecutive virtual PPNs and every model predicts them exactly; the
/// training's translation-page rewrites are charged as TPFTL charges the same relocations.
#[test]
fn group_gc_writes_a_group_back_sorted_and_its_training_is_charged_like_any_relocation() {
    use IoOp::{Read, Trim, Write};
    // Two planes x 10 blocks x 16 pages, half of it logical (160 pages); 8 entries per
    // translation page, so a group (derived: a line of 32 pages / 8 = 4 translation pages) is
    // LPNs 0-31. A group holding one sealed line is collected before it opens another
    // (max_lines = 2). A one-node cache of three entries, no selective prefetch.
    let layers = |mapping: &str| {
        format!(
            "[device]\nplanes_per_die = 2\nblocks_per_plane = 10\n\
             [ftl]\nmapping = \"{mapping}\"\nplacement = \"group\"\ntranslation_entry_bytes = 512\n\
             [ftl.group]\nmax_lines = 2\n[gc]\nvictim = \"group\"\n\
             [ftl.tpftl]\ncmt_bytes = 26\nselective_prefetch = false\n[ftl.learned]\ncmt_bytes = 26\n"
        )
    };
    let mut script = Vec::new();
    // The group's first line (block 0 on both planes): LPN 31 down to 0, so no run is sequential.
    for (k, lpn) in (0..32).rev().enumerate() {
        script.push(at(k as u64 + 1, Write, lpn, 1));
    }
    // The odd LPNs are trimmed: the line keeps 16 valid pages, the even LPNs.
    for (k, lpn) in (1..32).step_by(2).enumerate() {
        script.push(at(33 + k as u64, Trim, lpn, 1));
    }
    // Request 49 rewrites LPN 0: the group must open a line, and holds one sealed: collected
    // first. Then a read of 4 (moved by GC, not cached).
    script.push(at(49, Write, 0, 1));
    script.push(at(50, Read, 4, 1));
    let t = run_timeline(&[&device(1), &layers("learned")], script.clone());

    // The 16 even LPNs went to the group's new line (block 2: block 1 holds the translation
    // pages), row by row: LPN 2k at position k, plane k mod 2, page k / 2. LPN 0's new copy
    // follows at position 16.
    let moved: Vec<(u32, u32, u32)> = (0..16).map(|k| where_is(&t, 2 * k)).collect();
    let expected: Vec<(u32, u32, u32)> = (1..16).map(|k| (k % 2, 2, k / 2)).collect();
    assert_eq!(moved[1..], expected[..]);
    assert_eq!(where_is(&t, 0), (0, 2, 8));
    let gc = t.ops(48, Source::Gc);
    assert_eq!((gc.reads, gc.programs, gc.erases), (16, 16, 2), "16 copies, the line's 2 blocks erased");
    let g = &t.report.gc;
    assert_eq!((g.line_collections, g.lines_collected, g.threshold_collections, g.pages_copied), (1, 1, 1, 16));
    let m = &t.report.policies.mapping_report;
    let stat = |k: &str| m[k].as_u64().unwrap();
    // Each of the group's 4 translation pages was rewritten once and retrained: every moved
    // page is predicted exactly (offsets 0, 2, 4, 6 of a page on 4 consecutive VPPNs).
    assert_eq!((stat("trainings"), stat("gc_writebacks"), stat("bits_set_by_training")), (4, 4, 16));
    // LPN 4 is read by its model: no translation read, one data read (plane 0, page 1: type 1).
    assert_eq!(mapping_ops(&t, 50)[49], (0, 0));
    assert_eq!(t.latencies[49], read(1));
    assert_eq!(stat("model_hits"), 1);
    // LPN 0 was rewritten after training: its bit was cleared, the other 15 stay.
    assert_eq!((stat("bits_cleared"), stat("bits_set")), (1, 15));
    assert!(t.report.verify.final_scan_passed);

    // TPFTL on the same groups: the same collection charges the same translation I/O (its
    // moved entries are not cached, so it rewrites the same 4 pages), and LPN 4 then costs a
    // translation read.
    let tp = run_timeline(&[&device(1), &layers("tpftl")], script);
    assert_eq!(tp.ops(48, Source::Mapping), t.ops(48, Source::Mapping));
    assert_eq!(tp.ops(48, Source::Gc), t.ops(48, Source::Gc));
    assert_eq!(tp.report.policies.mapping_report["gc_writebacks"].as_u64(), Some(4));
    assert_eq!(mapping_ops(&tp, 50)[49], (1, 0));
    let tpage = tp.sim.ftl().mapping().translation_page(0).expect("translation page 0 is on flash");
    let tpage_type = tp.sim.ftl().blocks().geometry().page_in_block(tpage) as usize % 4;
    assert_eq!(tp.latencies[49], read(tpage_type) + read(1));
}

#[test]
fn migrating_k_valid_pages_costs_k_reads_k_programs_and_an_erase() {
    use IoOp::Write;
    // Four SLC-mode blocks (4 pages each: 16 / 4 bits); migration starts when a write finds
    // none free (trigger 1) and runs until 2 are (target = trigger + 1). Every write here is
    // 4 KiB, under the 32 KiB threshold: all go to the SLC region. The four blocks are held in
    // SLC mode from the start (`reserved`; unset, the region grows to them as writes come).
    let slc = "[slc]\npolicy = \"static\"\nblocks = 4\ntrigger_free_blocks = 1\nregion = \"reserved\"\n";
    let lpns = [0u64, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 4, 8, 9, 10];
    let t = run_timeline(
        &[&device(1), slc],
        lpns.iter().enumerate().map(|(k, &l)| at(k as u64 + 1, Write, l, 1)).collect(),
    );
    // SLC blocks A, B, C, D fill in turn: A = 0 1 2 3, B = 4 5 6 7, C = 0 1 2 4 (leaving A one
    // valid page, 3, and B three, 5 6 7), D takes 8 and leaves no SLC block free.
    // Write 14 (LPN 9) migrates first. Greedy takes A (1 valid page), then B (3): each page is
    // an SLC read and a program into the native region's migration block (block 0, pages 0, 1,
    // 2, 3: types 0..3), each victim then an SLC erase. All on one plane, one after another.
    let victim_a = read_slc() + program(0) + erase_slc();
    let victim_b = read_slc() + program(1) + read_slc() + program(2) + read_slc() + program(3) + erase_slc();
    let mut expected = vec![program_slc(); lpns.len()];
    expected[13] = victim_a + victim_b + program_slc();
    assert_eq!(t.latencies, expected);

    let m = t.ops(13, Source::Migration);
    assert_eq!((m.reads, m.programs, m.erases), (4, 4, 2), "1 + 3 valid pages, 2 victims");
    let busy = 4 * T_READ_SLC + T_PROG.iter().sum::<u64>() + 2 * T_ERASE_SLC;
    assert_eq!(m.busy_ns, busy);
    assert_eq!(t.ops(13, Source::Host).programs, 1);
    assert_eq!(t.ops_except(13, &[Source::Host, Source::Migration]), 0);
    for i in (0..lpns.len()).filter(|&i| i != 13) {
        assert_eq!(t.ops_except(i, &[Source::Host]), 0, "write {i}");
    }
    // The migrated pages sit where the hand computation put them: native block 0, in order.
    let moved: Vec<(u32, u32, u32)> = [3, 5, 6, 7].iter().map(|&l| where_is(&t, l)).collect();
    assert_eq!(moved, [(0, 0, 0), (0, 0, 1), (0, 0, 2), (0, 0, 3)]);
    let f = &t.report.ftl;
    assert_eq!((f.migration_reads, f.migration_programs, f.migrated_victims), (4, 4, 2));
    assert_eq!(t.report.gc.victims_reclaimed, 0, "migration is not GC");
    let slc_region = &t.report.regions[1];
    assert_eq!((slc_region.name.as_str(), slc_region.blocks, slc_region.free_blocks), ("slc", 4, 2));
    assert!(t.report.verify.final_scan_passed);
}

#[test]
fn converting_blocks_to_slc_changes_capacity_exactly() {
    // 2 planes x 8 blocks x 16 QLC pages: 256 pages; a block in SLC mode holds 16 / 4 = 4.
    let g = Geometry {
        channels: 1,
        chips_per_channel: 1,
        dies_per_chip: 1,
        planes_per_die: 2,
        blocks_per_plane: 8,
        pages_per_block: 16,
        page_bytes: PAGE,
        cell: CellType::Qlc,
    };
    let region = |name: &str, mode| RegionSpec {
        name: name.into(),
        mode,
        gc_scope: GcScope::Region,
        gc_reserve: 0,
        lines: false,
    };
    let streams = vec![StreamSpec { name: "host".into(), region: RegionId(0) }];
    let mut bm = BlockManager::with_layout(
        g.clone(),
        vec![region("native", BlockMode::Native), region("slc", BlockMode::Slc)],
        streams,
    );
    let (native, slc) = (RegionId(0), RegionId(1));
    assert_eq!(bm.capacity_pages(), 256);
    let mut moved = Vec::new();
    for k in 1..=5u64 {
        let plane = ssdlab_core::units::PlaneId((k % 2) as u32);
        let b = bm.move_free_block(native, slc, plane).expect("a free native block");
        assert_eq!((bm.mode(b), bm.region(b), bm.capacity(b)), (BlockMode::Slc, slc, 4));
        assert_eq!(g.plane_of_block(b), plane, "the block stays on its plane");
        assert_eq!(bm.capacity_pages(), 256 - k * (16 - 4), "{k} SLC blocks");
        moved.push(b);
    }
    assert_eq!((bm.region_blocks(native), bm.region_blocks(slc), bm.region_free_blocks(slc)), (11, 5, 5));
    // Back to native: the capacity returns block by block.
    let back = bm.move_free_block(slc, native, ssdlab_core::units::PlaneId(1)).unwrap();
    assert!(moved.contains(&back));
    assert_eq!((bm.mode(back), bm.capacity(back)), (BlockMode::Native, 16));
    assert_eq!(bm.capacity_pages(), 256 - 4 * 12);
    // A plane with no free block of the source region gives none, and nothing changes.
    let plane0 = ssdlab_core::units::PlaneId(0);
    while bm.move_free_block(slc, native, plane0).is_some() {}
    assert_eq!(bm.move_free_block(slc, native, plane0), None);
    assert_eq!(bm.capacity_pages(), 256 - 2 * 12, "two SLC blocks left on plane 1");

    // Through a run: the static SLC policy's blocks, held in SLC mode (`reserved`), leave the
    // TLC `tiny` device 96 - 32 = 64 pages each short.
    let cfg = crate::common::config(
        "tiny",
        "[slc]\npolicy = \"static\"\nblocks = 24\nregion = \"reserved\"\n[workload]\ncount = 10\n",
        &["device.utilization=0.8"],
    );
    let mut sim = ssdlab_core::Simulation::new(cfg).unwrap();
    let report = sim.run().unwrap();
    assert_eq!(sim.ftl().blocks().capacity_pages(), 2 * 2 * 64 * 96 - 24 * 64);
    assert_eq!((report.regions[1].blocks, report.regions[1].mode), (24, BlockMode::Slc));
    assert_eq!(report.regions[0].blocks, 256 - 24);
}

#[test]
fn static_placement_puts_every_lpn_on_its_cwdp_plane() {
    // 2 channels x 2 chips x 2 dies x 2 planes (16 planes), GC within planes, random overwrites
    // after a fill: GC relocates data many times and must keep it on its plane. Per-plane GC
    // compares its trigger with each plane's free blocks: 32 blocks x 30 % spare per plane
    // leave room for a target of 3 plus the open blocks and reserve.
    let toml = "verify = true\n\
                [device]\nchannels = 2\nchips_per_channel = 2\ndies_per_chip = 2\nplanes_per_die = 2\n\
                blocks_per_plane = 32\npages_per_block = 48\noverprovisioning = 0.3\n\
                [ftl]\nplacement = \"static\"\n[gc]\nscope = \"plane\"\ntrigger_free_blocks = 2\n[warmup]\nfill = true\n\
                [workload]\nrw = \"randwrite\"\ncount = 20000\niodepth = 8\n";
    let cfg = crate::common::config("tiny", toml, &[]);
    let used = cfg.used_logical_pages();
    let mut sim = ssdlab_core::Simulation::new(cfg).unwrap();
    let report = sim.run().unwrap();
    assert!(report.verify.final_scan_passed);
    assert!(report.gc.victims_reclaimed > 100, "GC ran: {}", report.gc.victims_reclaimed);
    let g = sim.ftl().blocks().geometry().clone();
    for lpn in 0..used {
        let a = g.decode(sim.ftl().mapping().peek(Lpn(lpn)).expect("filled"));
        assert_eq!((a.channel, a.chip, a.die, a.plane), cwdp_address(&g, lpn), "LPN {lpn}");
    }
    // The first LPNs, written out: 0 -> channel 0, 1 -> channel 1, 2 -> chip 1, 4 -> die 1,
    // 8 -> plane 1, 15 -> the last plane of the last die of the last chip of channel 1.
    let at = |lpn| {
        let a = g.decode(sim.ftl().mapping().peek(Lpn(lpn)).unwrap());
        (a.channel, a.chip, a.die, a.plane)
    };
    assert_eq!(
        [at(0), at(1), at(2), at(4), at(8), at(15), at(16)],
        [(0, 0, 0, 0), (1, 0, 0, 0), (0, 1, 0, 0), (0, 0, 1, 0), (0, 0, 0, 1), (1, 1, 1, 1), (0, 0, 0, 0)]
    );
}

/// The idle gap of the idle-time tests: 1 ms with nothing outstanding.
const IDLE_GAP: u64 = 1_000_000;

/// The idle-GC script: one plane filled in warm-up, then one 64-page write of LPNs 0-63 at 0
/// and a one-page read of LPN 100 at `read_at`, with greedy idle GC below 30 free blocks.
fn idle_gc_script(read_at: u64) -> (ssdlab_core::Report, Vec<u64>) {
    let layers = [
        &device(1)[..],
        "[warmup]\nfill = true\n[gc]\nbackground = \"idle\"\nbackground_free_blocks = 30\n",
        &format!("[idle]\ngap_ns = {IDLE_GAP}\n"),
    ];
    run_script(
        &layers,
        vec![page_request(0, IoOp::Write, 0, 64, PAGE), page_request(read_at, IoOp::Read, 100, 1, PAGE)],
    )
}

/// Idle GC starts exactly when the gap closes, with no host request to carry it: a read that
/// arrives 1 us later on the same plane finds the erase running and waits for it.
#[test]
fn idle_gc_starts_when_the_gap_closes() {
    // One plane, filled in warm-up (LPNs 0-255 in blocks 0-15). One 64-page write rewrites LPNs
    // 0-63 into blocks 16-19, page by page: blocks 0-3 now hold no valid page. Its 64 programs
    // run back to back (page k of a block has type k mod 4), so it completes at:
    let write_done = 64 * (COMMAND + xfer()) + 16 * (T_PROG[0] + T_PROG[1] + T_PROG[2] + T_PROG[3]);
    assert_eq!(write_done, 16_719_360);
    let idle_at = write_done + IDLE_GAP;
    let read_at = idle_at + 1_000;
    let (report, latencies) = idle_gc_script(read_at);
    assert_eq!(latencies[0], write_done);
    // At `idle_at` greedy idle GC takes a victim without valid pages (one of blocks 0-3): an
    // erase only. The read (LPN 100: block 6, page 4, type 0) waits for it, then reads.
    assert_eq!(latencies[1], (idle_at + COMMAND + T_ERASE - read_at) + read(0));
    assert_eq!((report.gc.idle_steps, report.gc.idle_victims_reclaimed, report.gc.idle_pages_copied), (1, 1, 0));
    assert_eq!((report.idle.periods, report.idle.work_steps, report.idle.total_ns), (1, 1, read_at - write_done));
    assert_eq!(report.device.counters.by_source.get(Source::Gc).erases, 1);
    // Queueing delay by source: the read waited for the erase; the write's 64 programs each
    // waited for the one before (the erase itself started when it was ready).
    let waited = |s: Source| report.device.counters.by_source.get(s).wait_ns;
    let program_waits: u64 = {
        // Program k is ready at 0 and starts when programs 0..k have ended.
        let ends: Vec<u64> = (0..64u64)
            .scan(0, |t, k| {
                *t += COMMAND + xfer() + T_PROG[(k % 4) as usize];
                Some(*t)
            })
            .collect();
        ends[..63].iter().sum()
    };
    assert_eq!(waited(Source::Host), program_waits + (idle_at + COMMAND + T_ERASE - read_at));
    assert_eq!(waited(Source::Gc), 0);
    assert!(report.verify.final_scan_passed);
}

/// Left idle, the step chain runs on: each idle GC step starts when the last one ended, until
/// no block is worth reclaiming (here: the four blocks without valid pages), and an idle period
/// is counted once however many steps it holds.
#[test]
fn idle_gc_steps_follow_each_other_until_nothing_is_left() {
    let write_done = 16_719_360;
    let read_at = write_done + IDLE_GAP + 4 * (COMMAND + T_ERASE) + 5_000_000;
    let (report, latencies) = idle_gc_script(read_at);
    // Blocks 0-3 erased one after another; every other sealed block is fully valid (a victim
    // would free nothing), so the chain stops; the read then finds an idle plane.
    assert_eq!((report.gc.idle_steps, report.gc.idle_victims_reclaimed, report.gc.idle_pages_copied), (4, 4, 0));
    assert_eq!((report.idle.periods, report.idle.work_steps), (1, 4));
    assert_eq!(latencies[1], read(0));
    assert!(report.verify.final_scan_passed);
}

/// `cache.flush_on_idle`: the dirty pages are programmed when the gap closes, not at the end
/// of the run; the read that arrives just after waits behind those programs.
#[test]
fn the_write_buffer_flushes_when_the_gap_closes() {
    use IoOp::{Read, Write};
    let written = 4 * dram();
    let idle_at = written + IDLE_GAP;
    let read_at = idle_at + 1_000;
    let layers = [
        &device(1)[..],
        "[cache]\ncapacity = \"64k\"\nflush_on_idle = true\n",
        &format!("[idle]\ngap_ns = {IDLE_GAP}\n"),
    ];
    let (report, latencies) =
        run_script(&layers, vec![page_request(0, Write, 0, 4, PAGE), page_request(read_at, Read, 0, 1, PAGE)]);
    assert_eq!(latencies[0], written, "buffered: DRAM time");
    // Four one-page units from `idle_at`, oldest first (LPN 0 at page 0, type 0), back to back
    // on the plane; the read of LPN 0 (left the buffer) waits for all four, then reads page 0.
    let programs: u64 = (0..4).map(program).sum();
    assert_eq!(latencies[1], idle_at + programs - read_at + read(0));
    let cache = report.cache.as_ref().unwrap();
    assert_eq!((cache.idle_flushes, cache.idle_flush_pages, cache.final_flush_pages), (1, 4, 0));
    assert_eq!(report.device.counters.by_source.get(Source::BufferFlush).programs, 4);
    assert_eq!((report.idle.periods, report.idle.work_steps, report.idle.total_ns), (1, 1, read_at - written));
    assert!(report.verify.final_scan_passed);
}

/// `cache.flush_interval_ns`: a timer armed by the write that dirtied the clean buffer fires
/// at its time with no host activity (idle flushes off) and writes every dirty page
/// back, the second write's page too; the read that arrives just after waits behind those
/// programs. The buffer is clean again, so no timer is armed until the next write.
#[test]
fn the_write_back_timer_fires_without_host_activity() {
    use IoOp::{Read, Write};
    let interval = 50_000_000;
    let read_at = interval + 1_000;
    let layers = [&device(1)[..], &format!("[cache]\ncapacity = \"64k\"\nflush_interval_ns = {interval}\n")];
    let (report, latencies) = run_script(
        &layers,
        vec![
            page_request(0, Write, 0, 3, PAGE),
            page_request(interval / 2, Write, 3, 1, PAGE),
            page_request(read_at, Read, 0, 1, PAGE),
            page_request(3 * interval, Write, 4, 1, PAGE),
        ],
    );
    assert_eq!(latencies[0], 3 * dram(), "buffered: DRAM time");
    // Four one-page units from `interval`, back to back on the plane; the read of LPN 0 waits
    // for all four, then reads page 0.
    let programs: u64 = (0..4).map(program).sum();
    assert_eq!(latencies[2], interval + programs - read_at + read(0));
    let cache = report.cache.as_ref().unwrap();
    // The last write's timer would fire after the run: the end-of-run flush takes its page.
    assert_eq!((cache.timer_flushes, cache.timer_flush_pages, cache.final_flush_pages), (1, 4, 1));
    assert_eq!(cache.idle_flushes, 0, "the timer, not idle time, flushed");
    assert!(report.verify.final_scan_passed);
}

/// A bad write-back interval is refused with the key and the reason.
#[test]
fn a_write_back_timer_needs_a_buffer() {
    let layers = [ssdlab_core::config::Layer::inline("[cache]\nflush_interval_ns = 1_000_000\n")];
    let err = ssdlab_core::load_config(Some("tiny"), &layers, &[]).expect_err("no buffer").to_string();
    assert!(err.contains("cache.flush_interval_ns") && err.contains("needs a buffer"), "{err}");
}

/// Idle periods are gaps of at least `idle.gap_ns` with nothing outstanding, each counted once,
/// ended by the next arrival; none after the last request.
#[test]
fn idle_periods_count_each_long_gap_once() {
    use IoOp::Read;
    // Reads of never-written pages cost nothing (`unwritten_reads = "free"`): each completes on
    // arrival. Gaps: 10 ms (idle), 0.5 ms (not), 19.5 ms (idle), then the end.
    let layers = [&device(1)[..], "[ftl]\nunwritten_reads = \"free\"\n", &format!("[idle]\ngap_ns = {IDLE_GAP}\n")];
    let arrivals = [0, 10_000_000, 10_500_000, 30_000_000];
    let (report, latencies) =
        run_script(&layers, arrivals.iter().map(|&t| page_request(t, Read, 7, 1, PAGE)).collect());
    assert_eq!(latencies, [0, 0, 0, 0]);
    assert_eq!((report.idle.periods, report.idle.total_ns, report.idle.work_steps), (2, 10_000_000 + 19_500_000, 0));
    assert_eq!(report.idle.gap_ns, IDLE_GAP);
}
