//! Engine throughput in simulated host requests: steady-state 4 KiB random writes with greedy
//! GC at 90% utilisation, and 4 KiB random reads at QD 32. Smaller device than `ssdlab bench`
//! (1 GiB) so criterion's repetitions stay short; the figures are requests per second.

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use ssdlab_core::config::{load, Layer};
use ssdlab_core::{Simulation, ValidatedConfig};

const REQUESTS: u64 = 200_000;

fn simulation(workload: &str) -> Simulation {
    let cfg = load(
        Some("bench-16gib"),
        &[Layer::inline(workload)],
        &[format!("workload.count={REQUESTS}"), "device.blocks_per_plane=64".into()],
    )
    .and_then(ValidatedConfig::new)
    .expect("bench config");
    let mut sim = Simulation::new(cfg).expect("simulation");
    sim.step(1).expect("warm-up");
    sim
}

fn engine(c: &mut Criterion) {
    let mut group = c.benchmark_group("engine");
    group.throughput(Throughput::Elements(REQUESTS));
    group.sample_size(10);
    for (name, workload) in [
        ("randwrite_gc", "[workload]\nrw = \"randwrite\"\n[warmup]\nfill = true\nrandom_writes = 1.0\n"),
        ("randread_qd32", "[workload]\nrw = \"randread\"\niodepth = 32\n[warmup]\nfill = true\n"),
    ] {
        group.bench_function(name, |b| {
            b.iter_batched(
                || simulation(workload),
                |mut sim| while !sim.step(1 << 20).expect("run") {},
                BatchSize::LargeInput,
            )
        });
    }
    group.finish();
}

criterion_group!(benches, engine);
criterion_main!(benches);
