//! Layer: workload. The built-in workload specs, compiled into the binary: the papers' traces
//! rebuilt from their published statistics, each citing its table in its `source` key and its
//! header (the figures, the derivations, and what was chosen where the paper is silent).
//! `tests/it/spec_presets.rs` checks every one against its table.

/// (name, TOML) of every built-in spec: the RL-FSP paper's eight traces (Li et al., TCAD 2024,
/// Table II) in its order, then the RL-SLC paper's six (Yoo and Shin, HotStorage 2020, Table 4),
/// then the RLGC paper's nine (Kang, Shin, Yoo, ACM TECS 2017, Table 1) in its order.
const SPECS: &[(&str, &str)] = &[
    ("fsp-stg0", include_str!("presets/fsp-stg0.toml")),
    ("fsp-ts0", include_str!("presets/fsp-ts0.toml")),
    ("fsp-src1_2", include_str!("presets/fsp-src1_2.toml")),
    ("fsp-hm0", include_str!("presets/fsp-hm0.toml")),
    ("fsp-ali188", include_str!("presets/fsp-ali188.toml")),
    ("fsp-ali112", include_str!("presets/fsp-ali112.toml")),
    ("fsp-ali735", include_str!("presets/fsp-ali735.toml")),
    ("fsp-ali121", include_str!("presets/fsp-ali121.toml")),
    ("slc-pc", include_str!("presets/slc-pc.toml")),
    ("slc-phone", include_str!("presets/slc-phone.toml")),
    ("slc-tpcc", include_str!("presets/slc-tpcc.toml")),
    ("slc-oltp", include_str!("presets/slc-oltp.toml")),
    ("slc-linkbench", include_str!("presets/slc-linkbench.toml")),
    ("slc-ycsb-a", include_str!("presets/slc-ycsb-a.toml")),
    ("rlgc-home1", include_str!("presets/rlgc-home1.toml")),
    ("rlgc-home2", include_str!("presets/rlgc-home2.toml")),
    ("rlgc-home3", include_str!("presets/rlgc-home3.toml")),
    ("rlgc-home4", include_str!("presets/rlgc-home4.toml")),
    ("rlgc-webmail", include_str!("presets/rlgc-webmail.toml")),
    ("rlgc-webmail-online", include_str!("presets/rlgc-webmail-online.toml")),
    ("rlgc-rbesql", include_str!("presets/rlgc-rbesql.toml")),
    ("rlgc-msnfs", include_str!("presets/rlgc-msnfs.toml")),
    ("rlgc-oltp", include_str!("presets/rlgc-oltp.toml")),
];

/// The names of the built-in specs.
pub fn names() -> Vec<&'static str> {
    SPECS.iter().map(|(n, _)| *n).collect()
}

/// A built-in spec's TOML.
pub fn spec(name: &str) -> Option<&'static str> {
    SPECS.iter().find(|(n, _)| *n == name).map(|(_, t)| *t)
}
