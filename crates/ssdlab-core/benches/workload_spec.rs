//! Workload-spec generation in requests per second: the built-in specs drawn as the simulator
//! draws them (`SpecSource`), records counted and dropped. Issue #29's target: at least 5 M
//! requests per second, so a spec never limits the simulator (about 3 M per second).

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;
use ssdlab_core::workload::spec::{SpecSource, WorkloadSpec};

const REQUESTS: u64 = 1_000_000;

fn generate(c: &mut Criterion) {
    let mut group = c.benchmark_group("spec");
    group.throughput(Throughput::Elements(REQUESTS));
    group.sample_size(10);
    for name in ["fsp-ali735", "fsp-hm0", "slc-pc", "slc-ycsb-a"] {
        let spec = WorkloadSpec::load(std::path::Path::new(name)).expect("built-in spec");
        group.bench_function(name, |b| {
            b.iter(|| {
                let source = SpecSource::new(&spec, Some(REQUESTS), Pcg64Mcg::seed_from_u64(1));
                source.fold(0u64, |bytes, r| bytes.wrapping_add(r.size_bytes))
            })
        });
    }
    group.finish();
}

criterion_group!(benches, generate);
criterion_main!(benches);
