//! Fuzz target: any text as a config layer over each device preset, with and without a
//! workload preset, must load or be refused with a config error naming a key, never panic.
//! The first byte picks the preset.

#![no_main]

use libfuzzer_sys::fuzz_target;
use ssdlab_core::config::{presets, Layer};

fuzz_target!(|data: &[u8]| {
    let Some((&selector, text)) = data.split_first() else {
        return;
    };
    let names = presets::names();
    let preset = names[usize::from(selector) % names.len()];
    let layers = [Layer::named("fuzz.toml", String::from_utf8_lossy(text).into_owned())];
    if let Err(error) = ssdlab_core::load_config(Some(preset), &layers, &[]) {
        assert!(matches!(error, ssdlab_core::Error::Config { .. }), "{error:?}");
    }
});
