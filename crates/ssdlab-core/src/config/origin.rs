//! Layer: config. Where a key's value was written, for messages: the last layer that wrote it
//! and the line (`w.toml:3`, `preset:tiny:12`, `--set`). Layers are kept as parsed; a layer's
//! text is parsed again, with the position of every key, only when a message needs its line.

use crate::config::schema::Segment;

/// 1-based line of a byte offset.
pub(crate) fn line_at(text: &str, offset: usize) -> usize {
    text.as_bytes()[..offset.min(text.len())].iter().filter(|&&b| b == b'\n').count() + 1
}

/// One layer as merged, kept to say where a value came from.
#[derive(Debug)]
pub(crate) struct Source {
    /// `w.toml`, `preset:tiny`, or `--set` for an override.
    pub label: String,
    /// The layer's text, for line numbers (None for an override, and for a layer the caller
    /// generated, whose lines the user never wrote).
    pub text: Option<String>,
    /// The keys the layer wrote (an override: its one key).
    pub table: toml::Table,
    /// An override's key: it replaced whatever was there, a whole table too (a file's table
    /// merges key by key instead).
    pub replaces: Option<Vec<String>>,
}

impl Source {
    /// `label:line` of the last of `keys` in this layer's text, or the label alone.
    pub(crate) fn place(&self, keys: &[&str]) -> String {
        match self.text.as_deref().and_then(|text| key_line(text, keys)) {
            Some(line) => format!("{}:{line}", self.label),
            None => self.label.clone(),
        }
    }

    /// How many leading `keys` this layer wrote a value at (a value above the last key replaces
    /// what is below it); None if the layer does not touch the key.
    pub(crate) fn written_depth(&self, keys: &[&str]) -> Option<usize> {
        if let Some(replaced) = &self.replaces {
            if keys.len() >= replaced.len() && keys.iter().zip(replaced).all(|(k, r)| k == r) {
                return Some(replaced.len());
            }
        }
        written_depth(&self.table, keys)
    }
}

/// The layers of a configuration, in merge order.
#[derive(Debug, Default)]
pub(crate) struct Sources(pub Vec<Source>);

impl Sources {
    /// Where the value at `path` was written: the last layer that wrote the key (`w.toml:3`).
    pub(crate) fn origin(&self, path: &[Segment]) -> Option<String> {
        let keys: Vec<&str> =
            path.iter().map_while(|s| if let Segment::Key(k) = s { Some(k.as_str()) } else { None }).collect();
        self.0.iter().rev().find_map(|source| {
            let depth = source.written_depth(&keys)?;
            Some(source.place(&keys[..depth]))
        })
    }
}

/// How many leading `keys` a layer wrote a value at (a value above the last key replaces what
/// is below it); None if the layer does not touch the key.
fn written_depth(table: &toml::Table, keys: &[&str]) -> Option<usize> {
    let mut current = table;
    for (depth, key) in keys.iter().enumerate() {
        match current.get(*key)? {
            toml::Value::Table(inner) if depth + 1 < keys.len() => current = inner,
            _ => return Some(depth + 1),
        }
    }
    Some(keys.len())
}

/// A TOML document's tables with the position of every key, to point a message at a line.
enum Located {
    Table(Vec<(toml::Spanned<String>, Located)>),
    Other,
}

impl<'de> serde::Deserialize<'de> for Located {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> std::result::Result<Self, D::Error> {
        struct Visit;
        impl<'de> serde::de::Visitor<'de> for Visit {
            type Value = Located;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a TOML value")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> std::result::Result<Located, A::Error> {
                let mut entries = Vec::new();
                while let Some(key) = map.next_key::<toml::Spanned<String>>()? {
                    entries.push((key, map.next_value::<Located>()?));
                }
                Ok(Located::Table(entries))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> std::result::Result<Located, A::Error> {
                while seq.next_element::<serde::de::IgnoredAny>()?.is_some() {}
                Ok(Located::Other)
            }
            fn visit_bool<E>(self, _: bool) -> std::result::Result<Located, E> {
                Ok(Located::Other)
            }
            fn visit_i64<E>(self, _: i64) -> std::result::Result<Located, E> {
                Ok(Located::Other)
            }
            fn visit_u64<E>(self, _: u64) -> std::result::Result<Located, E> {
                Ok(Located::Other)
            }
            fn visit_f64<E>(self, _: f64) -> std::result::Result<Located, E> {
                Ok(Located::Other)
            }
            fn visit_str<E>(self, _: &str) -> std::result::Result<Located, E> {
                Ok(Located::Other)
            }
        }
        deserializer.deserialize_any(Visit)
    }
}

/// The line where the last of `keys` is written in a TOML text (a key set twice cannot be: TOML
/// rejects duplicates).
pub(crate) fn key_line(text: &str, keys: &[&str]) -> Option<usize> {
    let mut current = toml::from_str::<Located>(text).ok()?;
    let mut line = None;
    for key in keys {
        let Located::Table(entries) = current else { return line };
        let (spanned, next) = entries.into_iter().find(|(k, _)| k.get_ref() == key)?;
        line = Some(line_at(text, spanned.span().start));
        current = next;
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_line_of_a_key_however_it_is_written() {
        let text = "seed = 1\n[gc]\nvictim = 'fifo'\n\n[gc.rlgc]\nalpha = 0.5\n[workload]\ntrace.format = 'msr'\n\
                    report = { per_request = true }\n";
        assert_eq!(key_line(text, &["seed"]), Some(1));
        assert_eq!(key_line(text, &["gc", "victim"]), Some(3));
        assert_eq!(key_line(text, &["gc", "rlgc", "alpha"]), Some(6));
        assert_eq!(key_line(text, &["workload", "trace", "format"]), Some(8));
        assert_eq!(key_line(text, &["workload", "report", "per_request"]), Some(9));
        assert_eq!(key_line(text, &["gc", "scheduler"]), None);
    }

    #[test]
    fn the_last_layer_that_wrote_a_key_is_its_origin() {
        let layer = |label: &str, text: &str| Source {
            label: label.into(),
            text: Some(text.into()),
            table: toml::from_str(text).unwrap(),
            replaces: None,
        };
        let sources = Sources(vec![
            layer("a.toml", "[gc]\ntrigger_free_blocks = 3\n"),
            layer("b.toml", "seed = 2\n\n[gc]\nvictim = 'fifo'\ntrigger_free_blocks = 4\n"),
            Source { label: "--set".into(), text: None, table: toml::from_str("seed = 5").unwrap(), replaces: None },
        ]);
        let path = |keys: &[&str]| keys.iter().map(|k| Segment::Key(k.to_string())).collect::<Vec<_>>();
        assert_eq!(sources.origin(&path(&["gc", "trigger_free_blocks"])).as_deref(), Some("b.toml:5"));
        assert_eq!(sources.origin(&path(&["seed"])).as_deref(), Some("--set"));
        assert_eq!(sources.origin(&path(&["gc", "target_free_blocks"])), None);
    }
}
