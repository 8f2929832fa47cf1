//! Layer: ftl. Policy registries: how a policy id in a config becomes an object.
//!
//! Every pluggable decision (mapping, placement, write-buffer eviction, region control, GC
//! scheduling, victim choice) has one registry: a `const` slice of `Entry`s in its module's
//! `mod.rs`, one line per policy, each pointing at the policy file's constructor. Adding a policy
//! is one new file and one registry line; a policy with settings of its own also adds its table
//! to the config (`[gc.<id>]`, `[ftl.<id>]`, ...). The config layer sits below the FTL and keeps
//! ids as strings; `check` turns an unknown id into a config problem that lists the known ones,
//! and the report prints the same ids (`Entry::id`), so every reported id is accepted back.

use crate::error::{ConfigProblem, Error, Result};

/// One registered policy: its id (config value, report value, file name), a one-line summary
/// for the generated docs, and its constructor.
pub struct Entry<B> {
    pub id: &'static str,
    pub summary: &'static str,
    pub build: B,
}

/// The entry named `id`, or a config error on `key` listing the known ids.
pub fn find<'a, B>(registry: &'a [Entry<B>], key: &str, id: &str) -> Result<&'a Entry<B>> {
    registry.iter().find(|e| e.id == id).ok_or_else(|| Error::config(key, unknown(registry, id)))
}

/// A problem for `key` if `id` is not registered.
pub fn check<B>(registry: &[Entry<B>], key: &str, id: &str) -> Option<ConfigProblem> {
    (!registry.iter().any(|e| e.id == id))
        .then(|| ConfigProblem { key: key.to_string(), reason: unknown(registry, id) })
}

fn unknown<B>(registry: &[Entry<B>], id: &str) -> String {
    let ids: Vec<&str> = registry.iter().map(|e| e.id).collect();
    format!("unknown policy {id:?}; expected one of {}", ids.join(", "))
}

/// (id, summary) of every entry, in registry order.
pub fn catalog<B>(registry: &[Entry<B>]) -> Vec<(&'static str, &'static str)> {
    registry.iter().map(|e| (e.id, e.summary)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const REG: &[Entry<fn() -> u32>] =
        &[Entry { id: "one", summary: "1", build: || 1 }, Entry { id: "two", summary: "2", build: || 2 }];

    #[test]
    fn finds_by_id_and_names_the_known_ones() {
        assert_eq!((find(REG, "k", "two").unwrap().build)(), 2);
        let err = find(REG, "ftl.thing", "three").err().unwrap().to_string();
        assert!(err.contains("ftl.thing") && err.contains("\"three\"") && err.contains("one, two"), "{err}");
        assert!(check(REG, "k", "one").is_none());
        assert_eq!(check(REG, "k", "x").unwrap().key, "k");
        assert_eq!(catalog(REG), vec![("one", "1"), ("two", "2")]);
    }
}
