//! Layer: config. The keys a later layer set over an earlier layer's value: a config file over a
//! built-in workload pattern (`workload.count = 30000` over randwrite's 200,000), a `--set` over
//! a preset. Merging is "later wins", which is what a user means when they write a key, but a
//! number that changed under them is an experiment other than the one they wrote down unless
//! they are told; the loader returns these with the validated configuration
//! (`ValidatedConfig::overridden`) for the caller to show, and prints nothing itself.
//!
//! Computed from the layers as parsed (`origin::Sources`), on demand: loading pays nothing for
//! it.

use std::collections::BTreeMap;
use std::fmt;

use crate::config::decode::render;
use crate::config::origin::Sources;

/// One value a key took, and where it was written (`preset:tiny:12`, `my.toml:2`, `--set`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OverrideStep {
    /// The value as TOML (`200000`, `"fifo"`); None where a later layer replaced the table that
    /// held the key, which then takes its default.
    pub value: Option<String>,
    pub origin: String,
}

/// A key whose value a later layer changed: every value it took, in layer order. The first is
/// the value overridden, the last the one in force.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigOverride {
    /// The dotted key (`workload.count`).
    pub key: String,
    pub steps: Vec<OverrideStep>,
}

impl fmt::Display for ConfigOverride {
    /// `workload.count: 200000 (from workload:randwrite:6) -> 30000 (from my.toml:2)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: ", self.key)?;
        for (i, step) in self.steps.iter().enumerate() {
            if i > 0 {
                f.write_str(" -> ")?;
            }
            match &step.value {
                Some(value) => write!(f, "{value} (from {})", step.origin)?,
                None => write!(f, "its default (the table replaced by {})", step.origin)?,
            }
        }
        Ok(())
    }
}

/// Every key of a table that holds a value (arrays are values), dotted, with the value.
fn leaves<'t>(table: &'t toml::Table, prefix: &mut Vec<String>, out: &mut Vec<(Vec<String>, &'t toml::Value)>) {
    for (key, value) in table {
        prefix.push(key.clone());
        match value {
            toml::Value::Table(inner) => leaves(inner, prefix, out),
            other => out.push((prefix.clone(), other)),
        }
        prefix.pop();
    }
}

fn starts_with(path: &[String], prefix: &[String]) -> bool {
    path.len() > prefix.len() && path.iter().zip(prefix).all(|(a, b)| a == b)
}

/// (value, layer that wrote it) of a step before its origin is worded.
type Step = (Option<toml::Value>, usize, Vec<String>);

/// The keys that a later layer of `sources` overrode, in key order, each once with every value
/// it took.
pub(crate) fn overridden(sources: &Sources) -> Vec<ConfigOverride> {
    // What the layers so far hold at each key: (value, layer index).
    let mut current: BTreeMap<Vec<String>, (toml::Value, usize)> = BTreeMap::new();
    let mut chains: BTreeMap<Vec<String>, Vec<Step>> = BTreeMap::new();
    let change = |chains: &mut BTreeMap<Vec<String>, Vec<Step>>, key: &Vec<String>, old: Step, new: Step| {
        chains.entry(key.clone()).or_insert_with(|| vec![old]).push(new);
    };
    for (index, source) in sources.0.iter().enumerate() {
        let mut written = Vec::new();
        leaves(&source.table, &mut Vec::new(), &mut written);
        // Keys this layer takes away: everything under an override's key that it does not
        // write again, and a value where this layer writes a table (or the other way round).
        let gone: Vec<Vec<String>> = current
            .keys()
            .filter(|held| {
                let replaced = source.replaces.as_ref().is_some_and(|r| *held == r || starts_with(held, r));
                let shadowed = written.iter().any(|(key, _)| starts_with(held, key) || starts_with(key, held));
                (replaced || shadowed) && !written.iter().any(|(key, _)| key == *held)
            })
            .cloned()
            .collect();
        for key in gone {
            let (value, from) = current.remove(&key).expect("listed above");
            let by = source.replaces.clone().unwrap_or_else(|| {
                let shadowing = written.iter().find(|(w, _)| starts_with(&key, w) || starts_with(w, &key));
                shadowing.map_or_else(|| key.clone(), |(w, _)| w.clone())
            });
            change(&mut chains, &key, (Some(value), from, key.clone()), (None, index, by));
        }
        for (key, value) in written {
            match current.get(&key) {
                Some((old, from)) if old != value => {
                    let old = (Some(old.clone()), *from, key.clone());
                    change(&mut chains, &key, old, (Some(value.clone()), index, key.clone()));
                }
                _ => {}
            }
            current.insert(key, (value.clone(), index));
        }
    }
    chains
        .into_iter()
        .map(|(key, steps)| ConfigOverride {
            key: key.join("."),
            steps: steps
                .into_iter()
                .map(|(value, layer, at)| {
                    let source = &sources.0[layer];
                    let keys: Vec<&str> = at.iter().map(String::as_str).collect();
                    OverrideStep { value: value.as_ref().map(render), origin: source.place(&keys) }
                })
                .collect(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::origin::Source;

    fn file(label: &str, text: &str) -> Source {
        Source { label: label.into(), text: Some(text.into()), table: toml::from_str(text).unwrap(), replaces: None }
    }

    fn set(key: &str, value: &str) -> Source {
        let path: Vec<String> = key.split('.').map(String::from).collect();
        let table = toml::from_str(&format!("{key} = {value}")).unwrap();
        Source { label: "--set".into(), text: None, table, replaces: Some(path) }
    }

    fn lines(sources: Vec<Source>) -> Vec<String> {
        overridden(&Sources(sources)).iter().map(|o| o.to_string()).collect()
    }

    #[test]
    fn a_later_layer_over_an_earlier_one_is_listed_once_with_every_value() {
        let found = lines(vec![
            file("preset:tiny", "seed = 1\n[gc]\nvictim = \"greedy\"\ntrigger_free_blocks = 8\n"),
            file("workload:randwrite", "[workload]\ncount = 200_000\nbs = \"4k\"\n"),
            file("my.toml", "# mine\n[workload]\ncount = 30000\nbs = \"4k\"\n[gc]\nvictim = \"fifo\"\n"),
            set("gc.victim", "\"cost_benefit\""),
        ]);
        assert_eq!(
            found,
            [
                "gc.victim: \"greedy\" (from preset:tiny:3) -> \"fifo\" (from my.toml:6) -> \"cost_benefit\" (from --set)",
                "workload.count: 200000 (from workload:randwrite:2) -> 30000 (from my.toml:3)",
            ],
            "the same value written again is no override"
        );
    }

    #[test]
    fn nothing_overridden_nothing_listed() {
        let found = lines(vec![file("preset:tiny", "seed = 1\n"), file("a.toml", "[gc]\nvictim = \"fifo\"\n")]);
        assert!(found.is_empty(), "{found:?}");
    }

    #[test]
    fn a_table_an_override_replaces_takes_its_other_keys_away() {
        let found = lines(vec![
            file("preset:kang", "[gc.rlgc]\nmax_copies = 5\nalpha = 0.3\n"),
            set("gc.rlgc", "{ alpha = 0.5 }"),
        ]);
        assert_eq!(
            found,
            [
                "gc.rlgc.alpha: 0.3 (from preset:kang:3) -> 0.5 (from --set)",
                "gc.rlgc.max_copies: 5 (from preset:kang:2) -> its default (the table replaced by --set)",
            ]
        );
    }
}
