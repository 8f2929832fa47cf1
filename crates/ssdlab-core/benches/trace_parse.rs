//! Bench: trace parsing throughput, in requests (lines) per second, through the public
//! `trace::from_reader` path with its filters, on synthetic traces generated in memory:
//! MSR Cambridge CSV (plain and gzip), DiskSim ASCII in ms (decimal times), and the ssdlab
//! binary format converted from the same MSR trace.
//!
//! Run: `cargo bench -p ssdlab-core --bench trace_parse`. Figures go in docs/traces.md.

use std::io::{Cursor, Write};
use std::path::Path;
use std::sync::Arc;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use ssdlab_core::workload::trace::{self, TraceFormat, TraceOptions, TraceReader};

/// Lines per synthetic trace.
const LINES: u64 = 1_000_000;

/// A small deterministic generator (64-bit LCG, high bits), so the bench needs no seed plumbing.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        self.0 >> 16
    }
}

/// MSR Cambridge CSV lines shaped like `hm_0`: FILETIME stamps, 4-64 KiB requests.
fn msr_csv() -> Vec<u8> {
    let mut rng = Lcg(42);
    let mut out = Vec::with_capacity(LINES as usize * 56);
    let mut ticks: u64 = 128_166_385_295_514_663;
    for _ in 0..LINES {
        ticks += rng.next() % 20_000;
        let op = if rng.next() & 1 == 0 { "Read" } else { "Write" };
        let offset = (rng.next() % (16 << 21)) * 512;
        let size = 512 << (rng.next() % 8);
        writeln!(out, "{ticks},hm,0,{op},{offset},{size},{}", rng.next() % 10_000).unwrap();
    }
    out
}

/// DiskSim ASCII with millisecond decimal times, like the MSNFS file.
fn disksim_ms() -> Vec<u8> {
    let mut rng = Lcg(7);
    let mut out = Vec::with_capacity(LINES as usize * 28);
    let mut micros: u64 = 0;
    for _ in 0..LINES {
        micros += rng.next() % 2_000;
        let lba = rng.next() % (1 << 29);
        let sectors = 8 << (rng.next() % 5);
        writeln!(out, "{}.{:03} 5 {lba} {sectors} {}", micros / 1000, micros % 1000, rng.next() % 2).unwrap();
    }
    out
}

fn gzip(data: &[u8]) -> Vec<u8> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    encoder.write_all(data).unwrap();
    encoder.finish().unwrap()
}

fn binary_of(text: &[u8]) -> Vec<u8> {
    let path = std::env::temp_dir().join(format!("ssdlab-bench-{}.bin", std::process::id()));
    let mut reader = open(Arc::from(text), TraceFormat::Msr);
    trace::convert(reader.as_mut(), &path).unwrap();
    let bytes = std::fs::read(&path).unwrap();
    std::fs::remove_file(&path).unwrap();
    bytes
}

fn open(bytes: Arc<[u8]>, format: TraceFormat) -> Box<dyn TraceReader + Send> {
    trace::from_reader(Box::new(Cursor::new(bytes)), Path::new("bench"), &TraceOptions::with_format(format)).unwrap()
}

/// Read every record; returns the count so the work cannot be optimised away.
fn drain(bytes: &Arc<[u8]>, format: TraceFormat) -> u64 {
    let mut reader = open(Arc::clone(bytes), format);
    let mut count = 0;
    while let Some(record) = reader.next_record().unwrap() {
        std::hint::black_box(record);
        count += 1;
    }
    assert_eq!(count, LINES);
    count
}

fn trace_parse(c: &mut Criterion) {
    let msr: Arc<[u8]> = Arc::from(msr_csv());
    let msr_gz: Arc<[u8]> = Arc::from(gzip(&msr));
    let disksim: Arc<[u8]> = Arc::from(disksim_ms());
    let binary: Arc<[u8]> = Arc::from(binary_of(&msr));

    let mut group = c.benchmark_group("trace_parse");
    group.sample_size(10);
    group.throughput(Throughput::Elements(LINES));
    group.bench_function("msr_csv", |b| b.iter(|| drain(&msr, TraceFormat::Msr)));
    group.bench_function("msr_csv_auto", |b| b.iter(|| drain(&msr, TraceFormat::Auto)));
    group.bench_function("msr_csv_gzip", |b| b.iter(|| drain(&msr_gz, TraceFormat::Msr)));
    group.bench_function("disksim_ms", |b| b.iter(|| drain(&disksim, TraceFormat::DisksimMs)));
    group.bench_function("binary", |b| b.iter(|| drain(&binary, TraceFormat::Binary)));
    group.finish();
}

criterion_group!(benches, trace_parse);
criterion_main!(benches);
