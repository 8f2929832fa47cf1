//! Layer: registry (below device and ftl; it names no policy). Policy registries: how a policy
//! id in a config becomes an object.
//!
//! Every pluggable decision has one registry, a `const` slice of `Entry`s, one line per policy,
//! each pointing at the policy file's constructor: the FTL's seams (mapping, placement,
//! write-buffer eviction, region control in `ftl/<seam>/registry.rs`; GC scheduling and victim
//! choice in `ftl/gc/scheduler/mod.rs` and `ftl/gc/victim/mod.rs`, whose traits live in
//! `ftl/gc/mod.rs`) and the device's transaction scheduling (`device/scheduler.rs`). The trait a
//! policy implements lives apart from the registry that names the policy, so no policy file
//! imports its registry. Adding a policy is one new file and one registry line; a policy with
//! settings of its own also adds its table to the config (`[gc.<id>]`, `[ftl.<id>]`, ...). The
//! config layer sits below and keeps ids as strings; `check` turns an unknown id into a config
//! problem that lists the known ones, and the report prints the same ids (`Entry::id`), so every
//! reported id is accepted back.
//!
//! An entry also carries its capabilities (`Entry::caps`, a struct per seam): what the rest of
//! the engine needs to know about a policy (whether it blocks, keeps a fixed region, learns, ...)
//! is asked there (`caps`), never by comparing ids, so a new policy declares it in its line.

use std::collections::BTreeMap;

use crate::error::{ConfigProblem, Error, Result};

/// One registered policy: its id (config value, report value, file name), a one-line summary
/// for the generated docs, its constructor, its capabilities (`()` where a seam asks none) and
/// its own settings table, if it has one.
pub struct Entry<B, C = ()> {
    pub id: &'static str,
    pub summary: &'static str,
    pub build: B,
    pub caps: C,
    pub settings: Option<Settings>,
}

/// A policy's own settings table (`[gc.steady]`), declared in its registry line: the loader
/// claims the table (`config::load_validated_claiming`), `check` lists its problems with the
/// others at load, `schema` puts it in the JSON Schema and docs/config.md, and the constructor
/// decodes it (`decode`). The settings are a type in the policy's file (`PolicySettings`).
#[derive(Clone, Copy)]
pub struct Settings {
    /// The table's dotted path: the seam's table and the policy id (`gc.steady`).
    pub table: &'static str,
    /// Every problem of the table as written, keys in full (`gc.steady.copies: ...`).
    pub check: fn(&str, &toml::Table) -> Vec<ConfigProblem>,
    /// The table's JSON Schema (draft 07): its keys, types, defaults and doc comments.
    pub schema: fn() -> serde_json::Value,
}

/// A policy's settings: serde decodes them (`#[serde(default, deny_unknown_fields)]`, so a
/// table may leave keys out and an unknown key is a problem), schemars documents them from their
/// doc comments, and `problems` checks their values.
pub trait PolicySettings: serde::de::DeserializeOwned + schemars::JsonSchema + Default {
    /// Values out of range: (key within the table, reason).
    fn problems(&self) -> Vec<(&'static str, String)> {
        Vec::new()
    }
}

impl Settings {
    /// The settings table at `table`, of type `T`.
    pub const fn of<T: PolicySettings>(table: &'static str) -> Settings {
        Settings { table, check: check_settings::<T>, schema: schema_of::<T> }
    }

    /// The policy's settings in a run's config (`Config::policy_tables`): the table as written,
    /// defaults for what it leaves out, all defaults without a table.
    pub fn decode<T: PolicySettings>(&self, tables: &BTreeMap<String, toml::Table>) -> Result<T> {
        match tables.get(self.table) {
            None => Ok(T::default()),
            Some(table) => match decode_settings::<T>(self.table, table) {
                (Some(settings), problems) if problems.is_empty() => Ok(settings),
                (_, problems) => Err(Error::Config { path: None, problems }),
            },
        }
    }
}

fn check_settings<T: PolicySettings>(path: &str, table: &toml::Table) -> Vec<ConfigProblem> {
    decode_settings::<T>(path, table).1
}

/// The table decoded (None if it could not be) and every problem of it, keys in full.
fn decode_settings<T: PolicySettings>(path: &str, table: &toml::Table) -> (Option<T>, Vec<ConfigProblem>) {
    let mut unknown = Vec::new();
    let mut note = |p: serde_ignored::Path<'_>| unknown.push(p.to_string());
    let deserializer = serde_ignored::Deserializer::new(toml::Value::Table(table.clone()), &mut note);
    let decoded: std::result::Result<T, _> = serde_path_to_error::deserialize(deserializer);
    let mut problems: Vec<ConfigProblem> = unknown
        .into_iter()
        .map(|key| ConfigProblem { key: format!("{path}.{key}"), reason: "unknown key".into() })
        .collect();
    match decoded {
        Ok(settings) => {
            problems.extend(
                settings
                    .problems()
                    .into_iter()
                    .map(|(key, reason)| ConfigProblem { key: format!("{path}.{key}"), reason }),
            );
            (Some(settings), problems)
        }
        Err(e) => {
            let at = e.path().to_string();
            let key = if at == "." || at.is_empty() { path.to_string() } else { format!("{path}.{at}") };
            problems.push(ConfigProblem { key, reason: e.into_inner().message().to_string() });
            (None, problems)
        }
    }
}

fn schema_of<T: PolicySettings>() -> serde_json::Value {
    crate::config::settings_schema::<T>()
}

/// The entry named `id`, or a config error on `key` listing the known ids.
pub fn find<'a, B, C>(registry: &'a [Entry<B, C>], key: &str, id: &str) -> Result<&'a Entry<B, C>> {
    registry.iter().find(|e| e.id == id).ok_or_else(|| Error::config(key, unknown(registry, id)))
}

/// A problem for `key` if `id` is not registered.
pub fn check<B, C>(registry: &[Entry<B, C>], key: &str, id: &str) -> Option<ConfigProblem> {
    (!registry.iter().any(|e| e.id == id))
        .then(|| ConfigProblem { key: key.to_string(), reason: unknown(registry, id) })
}

fn unknown<B, C>(registry: &[Entry<B, C>], id: &str) -> String {
    let ids: Vec<&str> = registry.iter().map(|e| e.id).collect();
    format!("unknown policy {id:?}; expected one of {}", ids.join(", "))
}

/// (id, summary) of every entry, in registry order.
pub fn catalog<B, C>(registry: &[Entry<B, C>]) -> Vec<(&'static str, &'static str)> {
    registry.iter().map(|e| (e.id, e.summary)).collect()
}

/// The capabilities of the entry named `id` (None if unregistered: `check` reports that).
pub fn caps<'a, B, C>(registry: &'a [Entry<B, C>], id: &str) -> Option<&'a C> {
    registry.iter().find(|e| e.id == id).map(|e| &e.caps)
}

/// The ids of the entries whose capabilities pass `keep`, joined for a message ("a, b").
pub fn ids_where<B, C>(registry: &[Entry<B, C>], keep: impl Fn(&C) -> bool) -> String {
    let ids: Vec<&str> = registry.iter().filter(|e| keep(&e.caps)).map(|e| e.id).collect();
    ids.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    type Build = fn() -> u32;

    const REG: &[Entry<Build, bool>] = &[
        Entry { id: "one", summary: "1", build: || 1, caps: true, settings: None },
        Entry { id: "two", summary: "2", build: || 2, caps: false, settings: None },
    ];

    #[test]
    fn finds_by_id_and_names_the_known_ones() {
        assert_eq!((find(REG, "k", "two").unwrap().build)(), 2);
        let err = find(REG, "ftl.thing", "three").err().unwrap().to_string();
        assert!(err.contains("ftl.thing") && err.contains("\"three\"") && err.contains("one, two"), "{err}");
        assert!(check(REG, "k", "one").is_none());
        assert_eq!(check(REG, "k", "x").unwrap().key, "k");
        assert_eq!(catalog(REG), vec![("one", "1"), ("two", "2")]);
        assert_eq!((caps(REG, "two"), caps(REG, "three")), (Some(&false), None));
        assert_eq!((ids_where(REG, |&c| c), ids_where(REG, |_| true)), ("one".into(), "one, two".into()));
    }
}
