//! Layer: config. Built-in device presets and workload patterns, compiled into the binary.
//! Each device preset cites its source table in its `source` key and header comment. A preset is
//! added when the engine can simulate its device as described (the papers' QLC and hybrid
//! SLC/QLC devices arrive with the features they need).

/// (name, TOML) of every device preset.
const DEVICES: &[(&str, &str)] = &[
    ("tiny", include_str!("presets/tiny.toml")),
    ("kang-3d-128gb", include_str!("presets/kang-3d-128gb.toml")),
    ("kang-3d-512gb", include_str!("presets/kang-3d-512gb.toml")),
    ("bench-16gib", include_str!("presets/bench-16gib.toml")),
    ("mqsim-default", include_str!("presets/mqsim-default.toml")),
    ("femu-learnedftl", include_str!("presets/femu-learnedftl.toml")),
    ("li-qlc-fsp", include_str!("presets/li-qlc-fsp.toml")),
    ("yoo-hybrid-qlc", include_str!("presets/yoo-hybrid-qlc.toml")),
];

/// (name, TOML) of every built-in workload pattern (`ssdlab run --workload NAME`).
const WORKLOADS: &[(&str, &str)] = &[
    ("randwrite", include_str!("presets/workloads/randwrite.toml")),
    ("randread", include_str!("presets/workloads/randread.toml")),
    ("seqwrite", include_str!("presets/workloads/seqwrite.toml")),
    ("seqread", include_str!("presets/workloads/seqread.toml")),
    ("randrw", include_str!("presets/workloads/randrw.toml")),
    ("onoff", include_str!("presets/workloads/onoff.toml")),
    // The LearnedFTL paper's FIO jobs (Wang et al., HPCA 2024, Sec. 4.2).
    ("fio-64-seqwrite", include_str!("presets/workloads/fio-64-seqwrite.toml")),
    ("fio-64-randwrite", include_str!("presets/workloads/fio-64-randwrite.toml")),
    ("fio-64-seqread", include_str!("presets/workloads/fio-64-seqread.toml")),
    ("fio-64-randread", include_str!("presets/workloads/fio-64-randread.toml")),
];

pub fn names() -> Vec<&'static str> {
    DEVICES.iter().map(|(n, _)| *n).collect()
}

pub fn device_preset(name: &str) -> Option<&'static str> {
    DEVICES.iter().find(|(n, _)| *n == name).map(|(_, t)| *t)
}

pub fn workload_names() -> Vec<&'static str> {
    WORKLOADS.iter().map(|(n, _)| *n).collect()
}

pub fn workload_preset(name: &str) -> Option<&'static str> {
    WORKLOADS.iter().find(|(n, _)| *n == name).map(|(_, t)| *t)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Layer;

    /// Through the catalog (`load_config`), as every run loads: a preset may hold a policy's own
    /// settings table (`[ftl.dftl]`), which only the registries know.
    #[test]
    fn every_preset_and_pattern_loads_and_validates() {
        for name in names() {
            for w in workload_names() {
                crate::load_config(Some(name), &[Layer::inline(workload_preset(w).unwrap())], &[])
                    .unwrap_or_else(|e| panic!("{name} + {w}: {e}"));
            }
        }
    }
}
