//! Layer: config. Tables that were renamed: a file or `--set` override that still uses the old
//! name loads as if it used the new one, and the loader says so in a `ConfigWarning` returned
//! with the validated configuration (`ValidatedConfig::warnings`); it prints nothing itself. A
//! configuration that gives both names is refused. The resolved configuration writes only the
//! new names.
//!
//! The config's own renamed tables are `RENAMED`; a policy's settings table that was renamed
//! says so in its registry line (`registry::Settings::formerly`), and the catalog passes both
//! lists to the loader.

use std::fmt;

use crate::config::origin::key_line;
use crate::error::ConfigProblem;

/// A table's former and present dotted paths (`scheduler` -> `transaction_scheduler`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Renamed {
    pub old: &'static str,
    pub new: &'static str,
}

/// The config's own renamed tables. `[scheduler]` read like `gc.scheduler` (which chooses the
/// GC scheduler): the table configures the transaction scheduler (MQSim's TSU), as its new
/// name says.
pub const RENAMED: &[Renamed] = &[Renamed { old: "scheduler", new: "transaction_scheduler" }];

/// A deprecated name in a configuration: where it was written and what to write instead.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigWarning {
    /// The layer that wrote it: a file (`w.toml`), a built-in (`preset:tiny`) or `--set`.
    pub origin: String,
    /// The 1-based line in that layer's text, if it has one.
    pub line: Option<usize>,
    /// The key as written (`cache.fsp`, or `gc.qtc.max_copies` in an override).
    pub key: String,
    /// The same key under the new name.
    pub replacement: String,
}

impl ConfigWarning {
    /// The warning without its place.
    pub fn message(&self) -> String {
        format!(
            "`{}` is a deprecated name: write `{}` (the same settings under their new name; the old one will \
             stop working in a later release)",
            self.key, self.replacement
        )
    }
}

impl fmt::Display for ConfigWarning {
    /// `w.toml:3: ...`, `--set: ...`: the place, then the message.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "{}:{line}: {}", self.origin, self.message()),
            None => write!(f, "{}: {}", self.origin, self.message()),
        }
    }
}

/// Renames applied to a configuration's layers, with what they found: the warnings, and for
/// each rename where its old and its new name were written (to refuse both).
pub(crate) struct Renaming<'a> {
    renamed: &'a [Renamed],
    /// Per rename: the first place the old name was written, the first the new one was.
    seen: Vec<(Option<String>, Option<String>)>,
    pub warnings: Vec<ConfigWarning>,
}

fn place(origin: &str, line: Option<usize>) -> String {
    line.map_or_else(|| origin.to_string(), |line| format!("{origin}:{line}"))
}

impl<'a> Renaming<'a> {
    pub fn new(renamed: &'a [Renamed]) -> Self {
        Renaming { renamed, seen: vec![(None, None); renamed.len()], warnings: Vec::new() }
    }

    /// Move every old-named table of a parsed layer to its new name. `text` gives the lines;
    /// a built-in layer (`counted = false`, the preset) is renamed without taking part in the
    /// both-names check, so a user's file that still uses an old name goes on loading over a
    /// preset that uses the new one.
    pub fn apply_to_layer(&mut self, table: &mut toml::Table, origin: &str, text: &str, counted: bool) {
        let first = self.warnings.len();
        for (i, r) in self.renamed.iter().enumerate() {
            let old: Vec<&str> = r.old.split('.').collect();
            let new: Vec<&str> = r.new.split('.').collect();
            if counted && get(table, &new).is_some() && self.seen[i].1.is_none() {
                self.seen[i].1 = Some(place(origin, key_line(text, &new)));
            }
            let Some(value) = take(table, &old) else { continue };
            let line = key_line(text, &old);
            if counted && self.seen[i].0.is_none() {
                self.seen[i].0 = Some(place(origin, line));
            }
            self.warnings.push(ConfigWarning {
                origin: origin.to_string(),
                line,
                key: r.old.to_string(),
                replacement: r.new.to_string(),
            });
            put(table, &new, value);
        }
        // In the order they are written.
        self.warnings[first..].sort_by_key(|w| w.line);
    }

    /// An override's dotted key under the new name if it starts with an old one.
    pub fn apply_to_key(&mut self, path: &mut Vec<String>) {
        for (i, r) in self.renamed.iter().enumerate() {
            let old: Vec<&str> = r.old.split('.').collect();
            let new: Vec<&str> = r.new.split('.').collect();
            if path.len() >= new.len() && path.iter().zip(&new).all(|(a, b)| a == b) && self.seen[i].1.is_none() {
                self.seen[i].1 = Some("--set".into());
            }
            if path.len() < old.len() || !path.iter().zip(&old).all(|(a, b)| a == b) {
                continue;
            }
            let key = path.join(".");
            let rest = path.split_off(old.len());
            *path = new.iter().map(|s| s.to_string()).chain(rest).collect();
            if self.seen[i].0.is_none() {
                self.seen[i].0 = Some("--set".into());
            }
            self.warnings.push(ConfigWarning { origin: "--set".into(), line: None, replacement: path.join("."), key });
        }
    }

    /// A problem for each table given under both its old and its new name.
    pub fn problems(&self) -> Vec<ConfigProblem> {
        self.renamed
            .iter()
            .zip(&self.seen)
            .filter_map(|(r, seen)| match seen {
                (Some(old), Some(new)) => Some(ConfigProblem {
                    key: r.new.to_string(),
                    reason: format!(
                        "given under its deprecated name `{}` ({old}) and under `{}` ({new}): keep only `{}`",
                        r.old, r.new, r.new
                    ),
                }),
                _ => None,
            })
            .collect()
    }
}

fn get<'t>(table: &'t toml::Table, path: &[&str]) -> Option<&'t toml::Value> {
    let (last, parents) = path.split_last()?;
    let mut t = table;
    for p in parents {
        t = t.get(*p)?.as_table()?;
    }
    t.get(*last)
}

fn take(table: &mut toml::Table, path: &[&str]) -> Option<toml::Value> {
    let (last, parents) = path.split_last()?;
    let mut t = table;
    for p in parents {
        t = t.get_mut(*p)?.as_table_mut()?;
    }
    t.remove(*last)
}

/// Put `value` at `path`, merged into a table already there (its keys win: the new name's).
fn put(table: &mut toml::Table, path: &[&str], value: toml::Value) {
    let Some((last, parents)) = path.split_last() else { return };
    let mut t = table;
    for p in parents {
        let entry = t.entry(p.to_string()).or_insert_with(|| toml::Value::Table(toml::Table::new()));
        if !entry.is_table() {
            *entry = toml::Value::Table(toml::Table::new());
        }
        t = entry.as_table_mut().expect("made a table above");
    }
    match (t.get_mut(*last), value) {
        (Some(toml::Value::Table(present)), toml::Value::Table(old)) => {
            for (k, v) in old {
                present.entry(k).or_insert(v);
            }
        }
        (Some(_), _) => {}
        (None, value) => {
            t.insert(last.to_string(), value);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const R: &[Renamed] = &[Renamed { old: "gc.qtc", new: "gc.rlgc_qtc" }];

    #[test]
    fn an_old_table_moves_to_its_new_name_with_a_warning_that_says_where() {
        let text = "[gc]\nvictim = 'fifo'\n\n[gc.qtc]\nmax_copies = 3\n";
        let mut table: toml::Table = toml::from_str(text).unwrap();
        let mut renaming = Renaming::new(R);
        renaming.apply_to_layer(&mut table, "w.toml", text, true);
        assert_eq!(table["gc"]["rlgc_qtc"]["max_copies"].as_integer(), Some(3));
        assert!(table["gc"].get("qtc").is_none());
        let w = &renaming.warnings[0];
        assert_eq!((w.origin.as_str(), w.line, w.key.as_str()), ("w.toml", Some(4), "gc.qtc"));
        assert!(w.to_string().starts_with("w.toml:4: `gc.qtc` is a deprecated name: write `gc.rlgc_qtc`"), "{w}");
        assert!(renaming.problems().is_empty());

        let mut path: Vec<String> = ["gc", "qtc", "max_copies"].map(String::from).to_vec();
        renaming.apply_to_key(&mut path);
        assert_eq!(path.join("."), "gc.rlgc_qtc.max_copies");
        assert_eq!(renaming.warnings[1].to_string().split(':').next(), Some("--set"));
        let mut other: Vec<String> = ["gc", "qtcx"].map(String::from).to_vec();
        renaming.apply_to_key(&mut other);
        assert_eq!(other.join("."), "gc.qtcx", "a longer name is not the old one");
    }

    #[test]
    fn both_names_are_refused_but_a_preset_with_the_new_one_is_not_counted() {
        let mut renaming = Renaming::new(R);
        let preset = "[gc.rlgc_qtc]\nmax_copies = 2\n";
        renaming.apply_to_layer(&mut toml::from_str(preset).unwrap(), "preset:x", preset, false);
        let old = "[gc.qtc]\nmax_copies = 3\n";
        renaming.apply_to_layer(&mut toml::from_str(old).unwrap(), "a.toml", old, true);
        assert!(renaming.problems().is_empty());
        let mut path: Vec<String> = ["gc", "rlgc_qtc", "unseen_copies"].map(String::from).to_vec();
        renaming.apply_to_key(&mut path);
        let p = renaming.problems();
        assert_eq!(p.len(), 1);
        assert_eq!(p[0].key, "gc.rlgc_qtc");
        assert!(p[0].reason.contains("`gc.qtc` (a.toml:1)") && p[0].reason.contains("(--set)"), "{}", p[0].reason);
    }
}
