//! Layer: above config and ftl. What needs both the configuration and the policy registries:
//! loading a configuration with every problem, its own and its policies', in one error; and the
//! configuration's JSON Schema with each policy key's registered ids as its allowed values.
//!
//! The config layer sits below the FTL and keeps policy ids as strings (so adding a policy
//! touches no config type); these two functions are where the registries meet them.

use serde_json::Value;

use crate::config::{load_claiming, load_validated_claiming, Claim, Claims, Config, Layer, Renamed, ValidatedConfig};
use crate::error::Result;
use crate::registry::{Entry, Settings};

/// Preset + layers + overrides -> a validated configuration whose policy ids are registered and
/// whose policy combinations work; every problem reported together. Every policy's settings
/// table is in `Config::policy_tables`, its defaults under what was written; a table renamed
/// (`Settings::formerly`) loads under its old name too, with a warning
/// (`ValidatedConfig::warnings`).
pub fn load_config(preset: Option<&str>, layers: &[Layer], overrides: &[String]) -> Result<ValidatedConfig> {
    load_validated_claiming(preset, layers, overrides, &claims(), |cfg| {
        let mut problems = crate::ftl::check_config(cfg);
        problems.extend(crate::device::scheduler::registry::check_config(cfg));
        // Every policy's settings table, the policy chosen or not (a mistake is caught before a
        // sweep switches to it), as the config's own tables are.
        for s in &policy_settings() {
            if let Some(table) = cfg.policy_tables.get(s.table) {
                problems.extend((s.check)(s.table, table));
            }
            problems.extend(s.cross_check.map(|check| check(&cfg.policy_tables)).unwrap_or_default());
        }
        problems
    })
    .map(ValidatedConfig::with_policies_checked)
}

/// A built-in device preset's capacity, loaded alone (at its own utilization).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct PresetSize {
    pub name: &'static str,
    pub raw_bytes: u64,
    pub logical_bytes: u64,
    pub used_logical_bytes: u64,
    pub utilization: f64,
}

/// Every built-in device preset's capacity, smallest used logical space first: for naming one a
/// workload fits in. A preset that does not load alone is left out.
pub fn preset_sizes() -> Vec<PresetSize> {
    let mut sizes: Vec<PresetSize> = crate::config::presets::names()
        .into_iter()
        .filter_map(|name| {
            let cfg = load_config(Some(name), &[], &[]).ok()?;
            let page_bytes = cfg.device.page_bytes;
            Some(PresetSize {
                name,
                raw_bytes: crate::config::Capacity::of(&cfg).physical_pages * page_bytes,
                logical_bytes: cfg.logical_pages() as u64 * page_bytes,
                used_logical_bytes: cfg.used_logical_pages() as u64 * page_bytes,
                utilization: cfg.device.utilization,
            })
        })
        .collect();
    sizes.sort_by_key(|s| (s.used_logical_bytes, s.name));
    sizes
}

/// Preset + layers + overrides -> a typed configuration with every policy's settings table, not
/// yet validated (for tests that build a `ValidatedConfig` or check one part of it).
pub fn load(preset: Option<&str>, layers: &[Layer], overrides: &[String]) -> Result<Config> {
    load_claiming(preset, layers, overrides, &claims())
}

/// The config keys closest to `key`, best first (`config::suggest`), among every key a
/// configuration may hold: the config's own and every policy's settings (what the loader
/// suggests for an unknown key; the sweep checker asks it too).
pub fn key_suggestions(key: &str) -> Vec<String> {
    crate::config::suggest::suggest(key, crate::config::known_keys(&claims()).iter().map(String::as_str))
}

/// Every renamed table (old, new): the config's own and the policies' (`Settings::formerly`).
pub fn renamed() -> Vec<Renamed> {
    crate::config::RENAMED.iter().copied().chain(claims().renamed).collect()
}

/// What the registries add to loading: every settings table with its defaults, and the tables
/// renamed.
fn claims() -> Claims {
    let settings = policy_settings();
    Claims {
        tables: settings
            .iter()
            .map(|s| Claim { path: s.table.to_string(), defaults: s.resolved(None), keys: s.keys() })
            .collect(),
        renamed: settings.iter().filter_map(|s| s.formerly.map(|old| Renamed { old, new: s.table })).collect(),
    }
}

/// One registry as the catalog sees it: its config key, its (id, summary) pairs in registry
/// order and the settings tables its policies declare.
struct Registered {
    key: &'static str,
    entries: Vec<(&'static str, &'static str)>,
    settings: Vec<Settings>,
}

fn registered<B, C>(key: &'static str, registry: &[Entry<B, C>]) -> Registered {
    Registered {
        key,
        entries: crate::registry::catalog(registry),
        settings: registry.iter().filter_map(|e| e.settings).collect(),
    }
}

/// Every registry: the FTL's seams and the device's transaction scheduler (the one list).
fn registries() -> Vec<Registered> {
    use crate::ftl::{cache, gc, mapping, placement, region};
    vec![
        registered("ftl.mapping", mapping::registry::REGISTRY),
        registered("ftl.placement", placement::registry::REGISTRY),
        registered("cache.eviction", cache::registry::REGISTRY),
        registered("slc.policy", region::registry::REGISTRY),
        registered("gc.scheduler", gc::scheduler::REGISTRY),
        registered("gc.victim", gc::victim::REGISTRY),
        registered("transaction_scheduler.policy", crate::device::scheduler::registry::REGISTRY),
    ]
}

/// The settings tables every registered policy declares (`registry::Settings`), each once
/// (the variants of a policy declare the same table), in registry order.
pub fn policy_settings() -> Vec<Settings> {
    let mut all: Vec<Settings> = Vec::new();
    for s in registries().into_iter().flat_map(|r| r.settings) {
        if !all.iter().any(|a| a.table == s.table) {
            all.push(s);
        }
    }
    all
}

/// Every policy key and its registered (id, summary) pairs, in registry order: what the
/// generated reference and the JSON Schema list as allowed values.
pub fn policy_catalog() -> Vec<(&'static str, Vec<(&'static str, &'static str)>)> {
    registries().into_iter().map(|r| (r.key, r.entries)).collect()
}

/// The JSON Schema (draft 07) of a configuration file, with the registered ids of every policy
/// key as its `enum` and their summaries in its description.
pub fn config_schema() -> Value {
    let mut schema = crate::config::schema();
    for (key, entries) in policy_catalog() {
        if let Some(property) = property_mut(&mut schema, key) {
            let ids: Vec<Value> = entries.iter().map(|(id, _)| Value::from(*id)).collect();
            let listing: Vec<String> = entries.iter().map(|(id, summary)| format!("`{id}`: {summary}")).collect();
            let description = property.get("description").and_then(Value::as_str).unwrap_or("").to_string();
            let object = property.as_object_mut().expect("property schemas are objects");
            object.insert("enum".into(), ids.into());
            object.insert("description".into(), format!("{description}\n\nRegistered: {}.", listing.join("; ")).into());
        }
    }
    for settings in policy_settings() {
        insert_settings(&mut schema, &settings);
    }
    schema
}

/// A policy's settings table in the schema, as a property of its seam's table (`gc.steady`
/// under `gc`), its own definitions merged into the schema's.
fn insert_settings(schema: &mut Value, settings: &Settings) {
    let mut own = (settings.schema)();
    let definitions = own.as_object_mut().and_then(|o| o.remove("definitions"));
    if let Some(o) = own.as_object_mut() {
        o.remove("$schema");
        o.remove("title");
    }
    if let Some(Value::Object(defs)) = definitions {
        if let Some(Value::Object(all)) = schema.get_mut("definitions") {
            all.extend(defs);
        }
    }
    let (parent, name) = settings.table.rsplit_once('.').unwrap_or(("", settings.table));
    let definition = if parent.is_empty() { None } else { property_mut(schema, parent).and_then(|p| ref_name(p)) };
    let table = match (parent.is_empty(), definition) {
        (true, _) => Some(schema),
        (false, Some(name)) => schema.get_mut("definitions").and_then(|d| d.get_mut(&name)),
        (false, None) => property_mut(schema, parent),
    };
    if let Some(Value::Object(props)) = table.and_then(|t| t.get_mut("properties")) {
        props.insert(name.to_string(), own);
    }
}

/// `config_schema` as pretty-printed JSON text (what `docs/config.schema.json` holds).
pub fn config_schema_json() -> String {
    serde_json::to_string_pretty(&config_schema()).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
}

/// The schema of dotted `key`, following `$ref`s into the definitions.
fn property_mut<'a>(schema: &'a mut Value, key: &str) -> Option<&'a mut Value> {
    let parts: Vec<&str> = key.split('.').collect();
    let (last, tables) = parts.split_last()?;
    // Resolve the table holding `last` to a definition name (or the root).
    let mut definition: Option<String> = None;
    for part in tables {
        let table = match &definition {
            None => &*schema,
            Some(name) => schema.get("definitions")?.get(name)?,
        };
        let property = table.get("properties")?.get(*part)?;
        definition = Some(ref_name(property)?);
    }
    let table = match definition {
        None => schema,
        Some(name) => schema.get_mut("definitions")?.get_mut(&name)?,
    };
    table.get_mut("properties")?.get_mut(*last)
}

/// The definition a property points at (`$ref`, or a one-element `allOf` of one).
fn ref_name(property: &Value) -> Option<String> {
    let reference = property
        .get("$ref")
        .or_else(|| property.get("allOf").and_then(|a| a.get(0)).and_then(|r| r.get("$ref")))?
        .as_str()?;
    reference.rsplit('/').next().map(String::from)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn policy_keys_list_their_registered_ids() {
        let schema = config_schema();
        let gc = &schema["definitions"]["GcConfig"]["properties"];
        assert_eq!(gc["victim"]["enum"], serde_json::json!(["greedy", "fifo", "cost_benefit", "group"]));
        assert!(gc["scheduler"]["description"].as_str().unwrap().contains("`rlgc_qtc`: "));
        let ftl = &schema["definitions"]["FtlConfig"]["properties"];
        assert_eq!(ftl["mapping"]["enum"], serde_json::json!(["page", "dftl", "tpftl", "learned"]));
        for (key, _) in policy_catalog() {
            let mut s = schema.clone();
            assert!(property_mut(&mut s, key).is_some_and(|p| p.get("enum").is_some()), "{key}");
        }
    }

    #[test]
    fn preset_sizes_come_from_each_preset_and_blocks_per_plane_for_is_the_smallest_that_fits() {
        let sizes = preset_sizes();
        assert_eq!(sizes.len(), crate::config::presets::names().len(), "every preset loads alone");
        assert!(sizes.windows(2).all(|w| w[0].used_logical_bytes <= w[1].used_logical_bytes));
        let tiny = sizes.iter().find(|s| s.name == "tiny").unwrap();
        let cfg = load_config(Some("tiny"), &[], &[]).unwrap();
        assert_eq!(tiny.used_logical_bytes, cfg.used_logical_pages() as u64 * cfg.device.page_bytes);
        assert!(tiny.raw_bytes > tiny.logical_bytes && tiny.logical_bytes >= tiny.used_logical_bytes);
        let needed = 3 * cfg.used_logical_pages() as u64 + 1;
        let blocks = crate::config::Capacity::blocks_per_plane_for(&cfg, needed);
        let with = |b: u64| {
            let mut c = cfg.config().clone();
            c.device.blocks_per_plane = b as u32;
            crate::config::Capacity::of(&c).used_pages
        };
        assert!(with(blocks) >= needed && with(blocks - 1) < needed, "{blocks} blocks per plane");
        let half = cfg.logical_pages() as u64 / 2;
        assert_eq!(crate::config::Capacity::utilization_for(&cfg, half), Some(0.5));
        assert_eq!(crate::config::Capacity::utilization_for(&cfg, cfg.logical_pages() as u64 + 1), None);
    }

    #[test]
    fn policy_problems_come_with_every_other_problem() {
        let err = load_config(
            Some("tiny"),
            &[],
            &["gc.victim=lifo".into(), "gc.trigger_free_blocks=-3".into(), "bogus=1".into()],
        )
        .unwrap_err()
        .to_string();
        for key in ["gc.victim", "gc.trigger_free_blocks", "bogus"] {
            assert!(err.contains(key), "{key} missing from {err}");
        }
        assert!(err.contains("expected one of greedy, fifo, cost_benefit"), "{err}");
        assert!(load_config(Some("tiny"), &[], &["gc.victim=fifo".into()]).is_ok());
    }

    #[test]
    fn gc_policy_tables_are_checked_chosen_or_not() {
        let layer = Layer::named("w.toml", "[gc]\nscheduler = \"rlgc_aggressive\"\n[gc.lazy_rtgc]\ncopies_per_step = 0\n[gc.rlgc]\n\
                   intensive_stop_free_blocks = 0\naggressive_trigger_free_blocks = 2\nalpha = 0\nrewards = [1.0, 0.0]\n\
                   reward_window = 0\ncurrent_interval_edges_ns = [5, 5]\n[gc.rlgc_qtc]\ncapacity_per_action = 0\n\
                   [gc.predictor]\nsmoothing = 1.5\nwindow = nan\n"
                );
        let text = load_config(Some("tiny"), &[layer], &[]).unwrap_err().to_string();
        for key in [
            "gc.lazy_rtgc.copies_per_step",
            "gc.rlgc.intensive_stop_free_blocks",
            "gc.rlgc.alpha",
            "gc.rlgc.rewards",
            "gc.rlgc.reward_window",
            "gc.rlgc.current_interval_edges_ns",
            "gc.rlgc.aggressive_trigger_free_blocks",
            "gc.rlgc_qtc.capacity_per_action",
            "gc.predictor.smoothing: must be in (0, 1], got 1.5 (from w.toml:15)",
            "gc.predictor.window: must be a finite number, got nan (from w.toml:16)",
        ] {
            assert!(text.contains(key), "{key} missing from: {text}");
        }
        // Unknown keys inside the policy tables are reported like any other.
        let err =
            load_config(Some("tiny"), &[Layer::inline("[gc.rlgc]\nmax_copy = 3\n[gc.rlgc_qtc]\ncapacity = 5\n")], &[])
                .unwrap_err()
                .to_string();
        assert!(err.contains("gc.rlgc.max_copy") && err.contains("gc.rlgc_qtc.capacity"), "{err}");
        for scheduler in ["lazy_rtgc", "rlgc", "rlgc_aggressive", "rlgc_qtc", "predictor"] {
            assert!(
                load_config(Some("kang-3d-128gb"), &[], &[format!("gc.scheduler={scheduler}")]).is_ok(),
                "{scheduler}"
            );
        }
    }

    #[test]
    fn the_resolved_config_echoes_every_policy_setting_with_its_default() {
        let cfg = load_config(Some("kang-3d-128gb"), &[], &["gc.rlgc_qtc.unseen_copies=1".into()]).unwrap();
        let echoed: toml::Table = toml::from_str(&crate::config::to_toml(cfg.config())).unwrap();
        let gc = &echoed["gc"];
        assert_eq!(gc["rlgc"]["max_copies"].as_integer(), Some(5), "the preset's");
        assert_eq!(gc["rlgc"]["alpha"].as_float(), Some(0.3), "a default");
        assert_eq!(gc["rlgc_qtc"]["unseen_copies"].as_integer(), Some(1), "the override");
        assert_eq!(gc["rlgc_qtc"]["capacity_per_action"].as_integer(), Some(100));
        assert!(gc["predictor"].get("max_copies").is_none(), "an unset option is left out");
    }

    /// A file (or override) that uses an old table name loads to the configuration its new name
    /// gives, with a warning that says where; the echo writes only the new names.
    #[test]
    fn old_table_names_load_as_the_new_ones_with_a_warning() {
        let old = Layer::named(
            "old.toml",
            "seed = 3\n\n[gc.qtc]\nunseen_copies = 1\n\n[cache.fsp]\nalpha = 0.5\n[scheduler]\npolicy = \"priority\"\n",
        );
        let new = Layer::named(
            "new.toml",
            "seed = 3\n\n[gc.rlgc_qtc]\nunseen_copies = 1\n\n[cache.page_type_eviction]\nalpha = 0.5\n\
                   [transaction_scheduler]\npolicy = \"priority\"\n",
        );
        let sets = ["scheduler.max_wait_ns=5".to_string()];
        let from_old = load_config(Some("tiny"), &[old], &sets).unwrap();
        let from_new = load_config(Some("tiny"), &[new], &["transaction_scheduler.max_wait_ns=5".into()]).unwrap();
        assert_eq!(from_old.config(), from_new.config());
        let echoed = crate::config::to_toml(from_old.config());
        assert_eq!(echoed, crate::config::to_toml(from_new.config()));
        assert!(echoed.contains("[gc.rlgc_qtc]") && !echoed.contains("[gc.qtc]") && !echoed.contains("[scheduler]"));
        assert!(from_new.warnings().is_empty());
        let warnings: Vec<String> = from_old.warnings().iter().map(|w| w.to_string()).collect();
        assert_eq!(warnings.len(), 4, "{warnings:#?}");
        for (i, expected) in [
            "old.toml:3: `gc.qtc` is a deprecated name: write `gc.rlgc_qtc`",
            "old.toml:6: `cache.fsp` is a deprecated name: write `cache.page_type_eviction`",
            "old.toml:8: `scheduler` is a deprecated name: write `transaction_scheduler`",
            "--set: `scheduler.max_wait_ns` is a deprecated name: write `transaction_scheduler.max_wait_ns`",
        ]
        .iter()
        .enumerate()
        {
            assert!(warnings.iter().any(|w| w.starts_with(expected)), "{i}: {expected} not in {warnings:#?}");
        }
        let w = &from_old.warnings()[0];
        assert_eq!(
            (w.origin.as_str(), w.line, w.key.as_str(), w.replacement.as_str()),
            ("old.toml", Some(3), "gc.qtc", "gc.rlgc_qtc")
        );
    }

    #[test]
    fn a_table_under_both_its_names_is_refused() {
        let both = Layer::inline("[gc.qtc]\nunseen_copies = 1\n[gc.rlgc_qtc]\nmax_copies = 3\n");
        let err = load_config(Some("tiny"), &[both], &[]).unwrap_err().to_string();
        assert!(
            err.contains("gc.rlgc_qtc: given under its deprecated name `gc.qtc` (<config>:1) and under `gc.rlgc_qtc` (<config>:3): keep only `gc.rlgc_qtc`"),
            "{err}"
        );
        let file = Layer::inline("[transaction_scheduler]\npolicy = \"priority\"\n");
        let err = load_config(Some("tiny"), &[file], &["scheduler.max_wait_ns=5".into()]).unwrap_err().to_string();
        assert!(err.contains("given under its deprecated name `scheduler` (--set)"), "{err}");
    }
}
