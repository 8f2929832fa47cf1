//! The config loader never panics on what a user may write: mutated device presets, workload
//! presets and `--set` overrides end in a config or in a `Config` error, every time (issue 47's
//! "keep it from coming back", for the loader as `robustness.rs` does for the trace readers).

use proptest::prelude::*;
use ssdlab_core::config::{presets, Layer};

/// Replace, insert or delete bytes at positions given as fractions of the length.
fn mutate(original: &str, edits: &[(u8, f64, u8)]) -> String {
    let mut bytes = original.as_bytes().to_vec();
    for &(kind, at, byte) in edits {
        let position = ((bytes.len() as f64) * at) as usize;
        match kind % 3 {
            0 if position < bytes.len() => bytes[position] = byte,
            1 => bytes.insert(position.min(bytes.len()), byte),
            _ if position < bytes.len() => {
                bytes.remove(position);
            }
            _ => {}
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

/// Bytes that change what TOML means: digits, signs, quotes, brackets, `=`, `.`, newlines.
fn toml_byte() -> impl Strategy<Value = u8> {
    prop_oneof![prop::sample::select(b"0123456789-+.e_=\"'[]{}\n #,xi".to_vec()), any::<u8>()]
}

const OVERRIDES: [&str; 6] = [
    "gc.scope=\"plane\"",
    "gc.trigger_free_blocks=12",
    "device.utilization=0.85",
    "workload.count=1000",
    "slc.rl.epsilon=0.5",
    "device.page_bytes=\"16k\"",
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn mutated_presets_workloads_and_overrides_load_or_are_refused(
        device in 0..presets::names().len(),
        workload in 0..presets::workload_names().len(),
        override_at in 0..OVERRIDES.len(),
        device_edits in prop::collection::vec((any::<u8>(), 0.0..1.0f64, toml_byte()), 0..4),
        workload_edits in prop::collection::vec((any::<u8>(), 0.0..1.0f64, toml_byte()), 0..4),
        override_edits in prop::collection::vec((any::<u8>(), 0.0..1.0f64, toml_byte()), 0..3),
    ) {
        let device_text = presets::device_preset(presets::names()[device]).unwrap();
        let workload_text = presets::workload_preset(presets::workload_names()[workload]).unwrap();
        let layers = [
            Layer::named("device.toml", mutate(device_text, &device_edits)),
            Layer::named("workload.toml", mutate(workload_text, &workload_edits)),
        ];
        let overrides = [mutate(OVERRIDES[override_at], &override_edits)];
        // A refusal is a config error (never an internal one), naming at least one key.
        if let Err(error) = ssdlab_core::load_config(None, &layers, &overrides) {
            let ssdlab_core::Error::Config { problems, .. } = &error else {
                return Err(TestCaseError::fail(format!("not a config error: {error:?}")));
            };
            prop_assert!(!problems.is_empty());
        }
    }
}
