//! Layer: config. Telling a workload spec file from a config layer by its top-level keys: the
//! one answer the CLI and the Python API ask for (`ssdlab.config.workload_layer`,
//! `ssdlab.trace.is_spec`), so no caller keeps a list of its own.

use std::collections::BTreeSet;

use crate::config::schema;
use crate::workload::spec::WorkloadSpec;

/// A spec's metadata: it names and dates a spec but draws no request, and says nothing a
/// config layer could not hold by mistake.
const METADATA: [&str; 3] = ["version", "name", "source"];

/// The top-level keys only a workload spec has: the spec's own (`WorkloadSpec`), less its
/// metadata and any a configuration also has at its top level.
pub fn spec_only_keys() -> BTreeSet<String> {
    let config: BTreeSet<String> = top_level_keys(schema());
    let generator = schemars::generate::SchemaSettings::draft07().into_generator();
    let spec = top_level_keys(generator.into_root_schema_for::<WorkloadSpec>().to_value());
    spec.into_iter().filter(|k| !config.contains(k) && !METADATA.contains(&k.as_str())).collect()
}

/// Whether TOML `text` is a workload spec rather than a config layer (`[workload]`,
/// `[device]`, ...): it has a key only a spec has (`spec_only_keys`), so the spec's own check
/// then names whatever is missing. None if the text is not TOML (the caller's loader reports
/// it with its line).
pub fn is_spec_toml(text: &str) -> Option<bool> {
    let table: toml::Table = text.parse().ok()?;
    let only = spec_only_keys();
    Some(table.keys().any(|k| only.contains(k)))
}

fn top_level_keys(schema: serde_json::Value) -> BTreeSet<String> {
    schema.get("properties").and_then(|p| p.as_object()).map(|p| p.keys().cloned().collect()).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_spec_is_told_from_a_config_layer() {
        let only = spec_only_keys();
        for key in ["address_space", "read_ratio", "length", "read", "write", "reread", "arrival", "align_bytes"] {
            assert!(only.contains(key), "{key} missing from {only:?}");
        }
        assert!(!only.contains("workload") && !only.contains("name"), "{only:?}");
        assert_eq!(is_spec_toml("read_ratio = 0.5\n"), Some(true));
        assert_eq!(is_spec_toml("[arrival]\nkind = \"closed\"\n"), Some(true));
        assert_eq!(is_spec_toml("[workload]\nkind = \"spec\"\n[device]\nchannels = 2\n"), Some(false));
        assert_eq!(is_spec_toml("name = \"x\"\n"), Some(false), "metadata alone");
        assert_eq!(is_spec_toml("read_ratio = \n"), None);
    }
}
