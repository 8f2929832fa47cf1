//! Same config and seed give a byte-identical report; a different seed gives a different one.

use crate::common::{config, run};

#[test]
fn same_seed_same_bytes() {
    let toml = "[workload]\nrw = \"randrw\"\ncount = 20000\niodepth = 4\n[warmup]\nfill = true\nrandom_writes = 0.5\n";
    let a = run(config("tiny", toml, &["seed=11"])).to_json();
    let b = run(config("tiny", toml, &["seed=11"])).to_json();
    assert_eq!(a, b);
    let c = run(config("tiny", toml, &["seed=12"])).to_json();
    assert_ne!(a, c);
}
