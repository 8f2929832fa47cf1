//! Layer: above config and ftl. What needs both the configuration and the policy registries:
//! loading a configuration with every problem, its own and its policies', in one error; and the
//! configuration's JSON Schema with each policy key's registered ids as its allowed values.
//!
//! The config layer sits below the FTL and keeps policy ids as strings (so adding a policy
//! touches no config type); these two functions are where the registries meet them.

use serde_json::Value;

use crate::config::{load_validated_claiming, Layer, ValidatedConfig};
use crate::error::Result;
use crate::registry::{Entry, Settings};

/// Preset + layers + overrides -> a validated configuration whose policy ids are registered and
/// whose policy combinations work; every problem reported together.
pub fn load_config(preset: Option<&str>, layers: &[Layer], overrides: &[String]) -> Result<ValidatedConfig> {
    let settings = policy_settings();
    let claimed: Vec<&str> = settings.iter().map(|s| s.table).collect();
    load_validated_claiming(preset, layers, overrides, &claimed, |cfg| {
        let mut problems = crate::ftl::check_config(cfg);
        problems.extend(crate::device::scheduler::check_config(cfg));
        // Every policy's settings table as written, the policy chosen or not (a mistake is
        // caught before a sweep switches to it), as the config's own tables are.
        for s in &settings {
            if let Some(table) = cfg.policy_tables.get(s.table) {
                problems.extend((s.check)(s.table, table));
            }
        }
        problems
    })
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
        registered("scheduler.policy", crate::device::scheduler::REGISTRY),
    ]
}

/// The settings tables every registered policy declares (`registry::Settings`).
pub fn policy_settings() -> Vec<Settings> {
    registries().into_iter().flat_map(|r| r.settings).collect()
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
}
