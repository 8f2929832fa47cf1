//! Layer: registry (below device and ftl; it names no policy). Policy registries: how a policy
//! id in a config becomes an object.
//!
//! Every pluggable decision has one registry, a `const` slice of `Entry`s, one line per policy,
//! each pointing at the policy file's constructor: the FTL's seams (mapping, placement,
//! write-buffer eviction, region control in `ftl/<seam>/registry.rs`; GC scheduling and victim
//! choice in `ftl/gc/scheduler/mod.rs` and `ftl/gc/victim/mod.rs`, whose traits live in
//! `ftl/gc/mod.rs`) and the device's transaction scheduling (`device/scheduler/registry.rs`,
//! its trait in `device/scheduler/mod.rs`). The trait a policy implements lives apart from the
//! registry that names the policy, so no policy file imports its registry. Adding a policy is one new file and one registry line; a policy with
//! settings of its own declares its table in that line (`Settings`: `[gc.<id>]`, ...). The
//! config layer sits below and keeps ids as strings; `check` turns an unknown id into a config
//! problem that lists the known ones, and the report prints the same ids (`Entry::id`), so every
//! reported id is accepted back.
//!
//! An entry also carries its capabilities (`Entry::caps`, a struct per seam): what the rest of
//! the engine needs to know about a policy (whether it blocks, keeps a fixed region, learns, ...)
//! is asked there (`caps`), never by comparing ids, so a new policy declares it in its line.

use std::collections::BTreeMap;

use crate::config::UNKNOWN_KEY;
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

/// The settings tables of a run's policies by dotted path (`Config::policy_tables`).
pub type PolicyTables = BTreeMap<String, toml::Table>;

/// A policy's own settings table (`[gc.steady]`), declared in its registry line: the loader
/// claims the table (`config::load_validated_claiming`), `check` lists its problems with the
/// others at load, `schema` puts it in the JSON Schema and docs/config.md, and the constructor
/// decodes it (`decode`). The settings are a type in the policy's file (`PolicySettings`).
/// Several entries may declare the same table (the variants of one policy, the policies of one
/// paper): it is claimed and checked once.
#[derive(Clone, Copy)]
pub struct Settings {
    /// The table's dotted path: the seam's table and the policy id (`gc.steady`).
    pub table: &'static str,
    /// The table's former path, still read with a deprecation warning (`formerly`).
    pub formerly: Option<&'static str>,
    /// Every problem of the table as written, keys in full (`gc.steady.copies: ...`).
    pub check: fn(&str, &toml::Table) -> Vec<ConfigProblem>,
    /// Problems between this table and another policy's (`cross_checked`).
    pub cross_check: Option<fn(&PolicyTables) -> Vec<ConfigProblem>>,
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

    /// Every problem, keys in full, for the table at `table`: `problems` under it. A type whose
    /// checks name their keys themselves (the `rl` validators, given the table's path; an
    /// element `rewards[2]`) overrides this instead.
    fn problems_at(&self, table: &str) -> Vec<ConfigProblem> {
        self.problems()
            .into_iter()
            .map(|(key, reason)| ConfigProblem { key: format!("{table}.{key}"), reason })
            .collect()
    }
}

impl Settings {
    /// The settings table at `table`, of type `T`.
    pub const fn of<T: PolicySettings>(table: &'static str) -> Settings {
        Settings { table, formerly: None, check: check_settings::<T>, cross_check: None, schema: schema_of::<T> }
    }

    /// These settings, once written at `old` (`[gc.qtc]`): a file or override that still uses
    /// that name loads as if it used the new one, with a warning (`config::ConfigWarning`).
    pub const fn formerly(self, old: &'static str) -> Settings {
        Settings { formerly: Some(old), ..self }
    }

    /// These settings, with a check against the other policies' tables at load (one table's
    /// limit that depends on another's value: LearnedFTL's cache holds nodes of `[ftl.tpftl]`).
    pub const fn cross_checked(self, check: fn(&PolicyTables) -> Vec<ConfigProblem>) -> Settings {
        Settings { cross_check: Some(check), ..self }
    }

    /// The table as a resolved configuration holds it: every key the schema gives a default
    /// (all but unset options), then what was written over them. A config echo and a report
    /// thus show every setting, as they do the config's own tables.
    pub fn resolved(&self, written: Option<&toml::Table>) -> toml::Table {
        let schema = (self.schema)();
        let mut table = toml::Table::new();
        if let Some(properties) = schema.get("properties").and_then(|p| p.as_object()) {
            for (key, property) in properties {
                let default = property.get("default").filter(|d| !d.is_null());
                if let Some(value) = default.and_then(|d| toml::Value::try_from(d).ok()) {
                    table.insert(key.clone(), value);
                }
            }
        }
        if let Some(written) = written {
            table.extend(written.clone());
        }
        table
    }

    /// Every key of the table, as its schema lists them.
    pub fn keys(&self) -> Vec<String> {
        let schema = (self.schema)();
        schema.get("properties").and_then(|p| p.as_object()).map_or_else(Vec::new, |p| p.keys().cloned().collect())
    }

    /// The policy's settings in a run's config (`Config::policy_tables`): the table as written,
    /// defaults for what it leaves out, all defaults without a table.
    pub fn decode<T: PolicySettings>(&self, tables: &PolicyTables) -> Result<T> {
        match tables.get(self.table) {
            None => Ok(T::default()),
            Some(table) => match decode_settings::<T>(self.table, table) {
                (Some(settings), problems) if problems.is_empty() => Ok(settings),
                (_, problems) => Err(Error::Config { path: None, problems }),
            },
        }
    }
}

impl Settings {
    /// The policy's settings as far as they decode, whatever their values' problems (which
    /// `check` reports): for a check that reads one setting of another table. Defaults if the
    /// table does not decode.
    pub fn values<T: PolicySettings>(&self, tables: &PolicyTables) -> T {
        match tables.get(self.table) {
            None => T::default(),
            Some(table) => decode_settings::<T>(self.table, table).0.unwrap_or_default(),
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
        .map(|key| ConfigProblem { key: format!("{path}.{key}"), reason: UNKNOWN_KEY.into() })
        .collect();
    match decoded {
        Ok(settings) => {
            problems.extend(settings.problems_at(path));
            (Some(settings), problems)
        }
        Err(e) => {
            let at = e.path().to_string();
            let key = if at == "." || at.is_empty() { path.to_string() } else { format!("{path}.{at}") };
            let message = e.into_inner().message().to_string();
            // `deny_unknown_fields`: the loader words it as any unknown key (place, suggestion).
            let reason = if message.starts_with("unknown field `") { UNKNOWN_KEY.to_string() } else { message };
            problems.push(ConfigProblem { key, reason });
            (None, problems)
        }
    }
}

fn schema_of<T: PolicySettings>() -> serde_json::Value {
    crate::config::settings_schema::<T>()
}

/// The entry named `id`, or a config error on `key` listing the known ids.
pub fn find<'a, B, C>(registry: &'a [Entry<B, C>], key: &str, id: &str) -> Result<&'a Entry<B, C>> {
    lookup(registry, key, id).map_err(|problem| Error::Config { path: None, problems: vec![problem] })
}

/// The entry named `id`, or the problem of `key` naming the known ids: the one look-up of an id
/// a config gives (`ftl::Policies`, the device's transaction scheduler).
pub fn lookup<'a, B, C>(
    registry: &'a [Entry<B, C>],
    key: &str,
    id: &str,
) -> std::result::Result<&'a Entry<B, C>, ConfigProblem> {
    registry
        .iter()
        .find(|e| e.id == id)
        .ok_or_else(|| ConfigProblem { key: key.to_string(), reason: unknown(registry, id) })
}

/// A problem for `key` if `id` is not registered.
pub fn check<B, C>(registry: &[Entry<B, C>], key: &str, id: &str) -> Option<ConfigProblem> {
    lookup(registry, key, id).err()
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
