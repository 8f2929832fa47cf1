//! Layer: above config and ftl. What needs both the configuration and the policy registries:
//! loading a configuration with every problem, its own and its policies', in one error; and the
//! configuration's JSON Schema with each policy key's registered ids as its allowed values.
//!
//! The config layer sits below the FTL and keeps policy ids as strings (so adding a policy
//! touches no config type); these two functions are where the registries meet them.

use serde_json::Value;

use crate::config::{load_validated_with, Layer, ValidatedConfig};
use crate::error::Result;

/// Preset + layers + overrides -> a validated configuration whose policy ids are registered and
/// whose policy combinations work; every problem reported together.
pub fn load_config(preset: Option<&str>, layers: &[Layer], overrides: &[String]) -> Result<ValidatedConfig> {
    load_validated_with(preset, layers, overrides, |cfg| {
        let mut problems = crate::ftl::check_config(cfg);
        problems.extend(crate::device::scheduler::check_config(cfg));
        problems
    })
}

/// Every policy key and its registered (id, summary) pairs: the FTL's seams and the device's
/// transaction scheduler.
pub fn policy_catalog() -> Vec<(&'static str, Vec<(&'static str, &'static str)>)> {
    let mut keys = crate::ftl::policy_catalog();
    keys.push(("scheduler.policy", crate::registry::catalog(crate::device::scheduler::REGISTRY)));
    keys
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
    schema
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
