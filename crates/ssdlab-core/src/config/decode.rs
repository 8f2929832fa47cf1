//! Layer: config. The merged TOML table -> a typed `Config`, with every problem of the table
//! listed at once: wrong types (`gc.trigger_free_blocks: expected a non-negative integer (u32),
//! got -3`), missing required keys, NaN or infinite numbers and unknown keys.
//!
//! serde stops at the first type error, so this module deserialises in rounds:
//! `serde_path_to_error` names the key that failed, the problem is recorded with the bad value
//! and what the key accepts, the key is removed from the table (so its default applies; a bad
//! array element removes the whole array), and
//! the table is deserialised again, until it succeeds. Each round removes a key or fills a
//! missing one, so the rounds end. serde itself stays the one judge of what is accepted (aliases,
//! sizes written as strings, custom `Deserialize` impls); the JSON Schema is only asked to word
//! the message. Unknown keys come from `serde_ignored` in every round. The alternative,
//! checking the table against the schema, would be a second definition of the config format
//! that could drift from serde's.
//!
//! A required key that is missing, or removed for a bad value, is filled with a placeholder of
//! the right type so the other keys are still checked; the value checks of `ValidatedConfig`
//! still run, and the loader leaves out what they say about the placeholder (`Decoded::filled`)
//! and what follows from it (`load.rs`).

use crate::config::schema::{dotted, SchemaView, Segment};
use crate::config::Config;
use crate::error::ConfigProblem;

/// More rounds than a configuration has keys: a safety net, never reached in practice.
const MAX_ROUNDS: usize = 10_000;

/// What deserialising a merged table found.
pub(crate) struct Decoded {
    /// The configuration, with defaults in place of bad keys (None if it could not be built).
    pub config: Option<Config>,
    /// Every problem, in the order found.
    pub problems: Vec<ConfigProblem>,
    /// Keys whose value was dropped (wrong type, not finite): a value check of these, or one
    /// that names them, would judge the default instead of what the user wrote.
    pub dropped: Vec<String>,
    /// Required keys filled with a placeholder: a value check of these judges the placeholder.
    pub filled: Vec<String>,
}

/// The reason of every unknown key until the loader words it with where it was written and the
/// keys it may have meant (`load.rs`); the policies' settings tables use it too.
pub const UNKNOWN_KEY: &str = "unknown key";

/// Whether a value-check problem concerns a dropped key (its key, a key inside it, or a reason
/// that names it), and so judged the default rather than what the user wrote.
pub(crate) fn concerns_dropped(problem: &ConfigProblem, dropped: &[String]) -> bool {
    dropped.iter().any(|key| {
        problem.key == *key
            || problem.key.starts_with(&format!("{key}."))
            || problem.key.starts_with(&format!("{key}["))
            || problem.reason.contains(key.as_str())
    })
}

/// Deserialise `table`, listing every problem. `origin` says where a key's value was written
/// (`w.toml:3`), for messages.
pub(crate) fn decode(mut table: toml::Table, origin: &dyn Fn(&[Segment]) -> Option<String>) -> Decoded {
    let mut out = Decoded { config: None, problems: Vec::new(), dropped: Vec::new(), filled: Vec::new() };
    let mut unknown: Vec<String> = Vec::new();
    let mut schema: Option<SchemaView> = None;
    let mut filled: Vec<String> = Vec::new();
    let with_origin = |reason: String, path: &[Segment]| match origin(path) {
        Some(place) => format!("{reason} (from {place})"),
        None => reason,
    };

    // NaN and infinity are valid TOML but never a valid setting: reject them at every number
    // key, used by this run or not. At an unknown key they are left for the unknown-key report,
    // at a non-number key for the type error.
    let mut non_finite = Vec::new();
    find_non_finite(&table, &mut Vec::new(), &mut non_finite);
    if !non_finite.is_empty() {
        let view = schema.get_or_insert_with(SchemaView::new);
        for (path, value) in non_finite {
            if view.at(&path).is_some_and(|s| view.accepts_number(s)) {
                let reason = with_origin(format!("must be a finite number, got {}", render(&value)), &path);
                out.problems.push(ConfigProblem { key: dotted(&path), reason });
                let key = base_key(&path);
                remove(&mut table, &key);
                out.dropped.push(dotted(&key));
            }
        }
    }

    for _ in 0..MAX_ROUNDS {
        let mut ignored = Vec::new();
        let result: Result<Config, serde_path_to_error::Error<toml::de::Error>> = {
            let mut note = |path: serde_ignored::Path<'_>| ignored.push(path.to_string());
            let deserializer = serde_ignored::Deserializer::new(toml::Value::Table(table.clone()), &mut note);
            serde_path_to_error::deserialize(deserializer)
        };
        for key in ignored {
            if !unknown.contains(&key) {
                unknown.push(key);
            }
        }
        let error = match result {
            Ok(config) => {
                out.config = Some(config);
                break;
            }
            Err(error) => error,
        };
        let path = segments(error.path());
        let message = error.inner().message().to_string();
        let view = schema.get_or_insert_with(SchemaView::new);

        if let Some(field) = missing_field(&message) {
            let mut key_path = path.clone();
            key_path.push(Segment::Key(field.to_string()));
            let key = dotted(&key_path);
            if filled.contains(&key) {
                out.problems.push(ConfigProblem { key, reason: message });
                break;
            }
            if !out.dropped.contains(&key) {
                out.problems.push(ConfigProblem {
                    key: key.clone(),
                    reason: "required key is missing (it has no default)".into(),
                });
            }
            let placeholder = view.at(&key_path).and_then(|s| view.placeholder(s));
            if !placeholder.is_some_and(|value| insert(&mut table, &key_path, value)) {
                break;
            }
            filled.push(key);
            continue;
        }

        // `deny_unknown_fields` types (`device.timing`) fail on an unknown key: list it with
        // the others and go on without it.
        if message.starts_with("unknown field `") {
            let key = dotted(&path);
            if !remove(&mut table, &path) {
                out.problems.push(ConfigProblem { key, reason: message });
                break;
            }
            if !unknown.contains(&key) {
                unknown.push(key);
            }
            continue;
        }

        let Some(value) = value_at(&table, &path).cloned() else {
            // Not a key of the table (cannot happen with serde's errors today): report it as is.
            let key = if path.is_empty() { "config".to_string() } else { dotted(&path) };
            out.problems.push(ConfigProblem { key, reason: message });
            break;
        };
        let expected = match view.at(&path) {
            Some(s) => format!("expected {}, got {}", view.describe(s), render(&value)),
            None => message.clone(),
        };
        let reason = match detail(&message) {
            Some(detail) if !expected.contains(detail) => format!("{expected}: {detail}"),
            _ => expected,
        };
        out.problems.push(ConfigProblem { key: dotted(&path), reason: with_origin(reason, &path) });
        // The whole key goes, not one array element: the key then falls back to its default
        // and stays consistent with its neighbours (rewards and reward percentiles).
        let key = base_key(&path);
        if filled.contains(&dotted(&key)) || !remove(&mut table, &key) {
            break;
        }
        out.dropped.push(dotted(&key));
    }

    if out.config.is_none() && out.problems.is_empty() {
        out.problems.push(ConfigProblem { key: "config".into(), reason: "could not be read".into() });
    }
    out.filled = filled;
    let unknown = unknown.into_iter().map(|key| ConfigProblem { key, reason: UNKNOWN_KEY.into() });
    // Unknown keys first: a misspelt key is the likeliest cause of the other problems.
    out.problems = unknown.chain(out.problems).collect();
    out
}

fn segments(path: &serde_path_to_error::Path) -> Vec<Segment> {
    let mut out = Vec::new();
    for segment in path.iter() {
        match segment {
            serde_path_to_error::Segment::Map { key } => out.push(Segment::Key(key.clone())),
            serde_path_to_error::Segment::Seq { index } => out.push(Segment::Index(*index)),
            _ => break,
        }
    }
    out
}

/// `missing field `channels`` -> `channels` (serde's wording, stable since serde 1.0).
fn missing_field(message: &str) -> Option<&str> {
    message.strip_prefix("missing field `")?.strip_suffix('`')
}

/// A reason worth keeping from serde's message: a custom one (`unknown size suffix 'q'`), not
/// the standard type wording that `expected ..., got ...` already says better.
fn detail(message: &str) -> Option<&str> {
    let standard = ["invalid type:", "invalid value:", "invalid length", "unknown variant", "data did not match"];
    (!standard.iter().any(|s| message.starts_with(s))).then_some(message)
}

/// The key holding the value at `path` (array indices dropped): what a default replaces.
/// Take NaN and infinite numbers out of a table the config's types do not hold (a policy's
/// settings, claimed before decoding): (the key within the table, the value shown) of each.
pub(crate) fn drop_non_finite(table: &mut toml::Table) -> Vec<(String, String)> {
    let mut found = Vec::new();
    find_non_finite(table, &mut Vec::new(), &mut found);
    found
        .into_iter()
        .map(|(path, value)| {
            remove(table, &base_key(&path));
            (dotted(&path), render(&value))
        })
        .collect()
}

fn base_key(path: &[Segment]) -> Vec<Segment> {
    let end = path.iter().rposition(|s| matches!(s, Segment::Key(_))).map_or(0, |i| i + 1);
    path[..end].to_vec()
}

/// A value as written in TOML, shortened: `-3`, `"fast"`, `nan`, `[1, 2]`.
pub(crate) fn render(value: &toml::Value) -> String {
    let text = match value {
        toml::Value::Float(f) if f.is_nan() => "nan".to_string(),
        toml::Value::Float(f) if f.is_infinite() => if *f > 0.0 { "inf" } else { "-inf" }.to_string(),
        toml::Value::Table(_) => "a table".to_string(),
        other => other.to_string(),
    };
    if text.chars().count() > 60 {
        format!("{}...", text.chars().take(57).collect::<String>())
    } else {
        text
    }
}

fn find_non_finite(table: &toml::Table, path: &mut Vec<Segment>, out: &mut Vec<(Vec<Segment>, toml::Value)>) {
    for (key, value) in table {
        path.push(Segment::Key(key.clone()));
        non_finite_in(value, path, out);
        path.pop();
    }
}

fn non_finite_in(value: &toml::Value, path: &mut Vec<Segment>, out: &mut Vec<(Vec<Segment>, toml::Value)>) {
    match value {
        toml::Value::Float(f) if !f.is_finite() => out.push((path.clone(), value.clone())),
        toml::Value::Table(inner) => find_non_finite(inner, path, out),
        toml::Value::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                path.push(Segment::Index(index));
                non_finite_in(item, path, out);
                path.pop();
            }
        }
        _ => {}
    }
}

fn value_at<'a>(table: &'a toml::Table, path: &[Segment]) -> Option<&'a toml::Value> {
    let (first, rest) = path.split_first()?;
    let Segment::Key(key) = first else { return None };
    let mut value = table.get(key)?;
    for segment in rest {
        value = match (segment, value) {
            (Segment::Key(key), toml::Value::Table(t)) => t.get(key)?,
            (Segment::Index(i), toml::Value::Array(a)) => a.get(*i)?,
            _ => return None,
        };
    }
    Some(value)
}

fn value_at_mut<'a>(table: &'a mut toml::Table, path: &[Segment]) -> Option<&'a mut toml::Value> {
    let (first, rest) = path.split_first()?;
    let Segment::Key(key) = first else { return None };
    let mut value = table.get_mut(key)?;
    for segment in rest {
        value = match (segment, value) {
            (Segment::Key(key), toml::Value::Table(t)) => t.get_mut(key)?,
            (Segment::Index(i), toml::Value::Array(a)) => a.get_mut(*i)?,
            _ => return None,
        };
    }
    Some(value)
}

/// Remove the key at `path`. False if it is not there.
fn remove(table: &mut toml::Table, path: &[Segment]) -> bool {
    take(table, path).is_some()
}

/// Remove the value at the key `path` and hand it back (None if there is none).
pub(crate) fn take(table: &mut toml::Table, path: &[Segment]) -> Option<toml::Value> {
    let Some((Segment::Key(last), parents)) = path.split_last() else { return None };
    let parent = if parents.is_empty() {
        Some(table)
    } else {
        match value_at_mut(table, parents) {
            Some(toml::Value::Table(inner)) => Some(inner),
            _ => None,
        }
    };
    parent.and_then(|t| t.remove(last))
}

/// Put `value` at the key `path`, creating tables on the way. False if a non-table is in the way.
fn insert(table: &mut toml::Table, path: &[Segment], value: toml::Value) -> bool {
    let Some((Segment::Key(last), parents)) = path.split_last() else { return false };
    let mut current = table;
    for segment in parents {
        let Segment::Key(key) = segment else { return false };
        let entry = current.entry(key.clone()).or_insert_with(|| toml::Value::Table(toml::Table::new()));
        current = match entry {
            toml::Value::Table(inner) => inner,
            _ => return false,
        };
    }
    current.insert(last.clone(), value);
    true
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use crate::config::schema::{leaves, SchemaView};
    // The catalog's loaders: a preset may hold policy settings tables, which they claim.
    use crate::catalog::{load, load_config as load_validated};
    use crate::config::Layer;
    use crate::error::{ConfigProblem, Error};

    fn problems(result: crate::Result<impl std::fmt::Debug>) -> Vec<ConfigProblem> {
        match result {
            Err(Error::Config { problems, .. }) => problems,
            other => panic!("expected a configuration error, got {other:?}"),
        }
    }

    fn reason<'a>(problems: &'a [ConfigProblem], key: &str) -> &'a str {
        match problems.iter().find(|p| p.key == key) {
            Some(p) => &p.reason,
            None => panic!("no problem for {key} in {problems:#?}"),
        }
    }

    fn overrides(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn a_type_error_names_the_key_the_type_and_the_value() {
        let found = problems(load_validated(Some("tiny"), &[], &overrides(&["gc.trigger_free_blocks=-3"])));
        assert_eq!(
            found,
            [ConfigProblem {
                key: "gc.trigger_free_blocks".into(),
                reason: "expected a non-negative integer (u32), got -3 (from --set)".into()
            }]
        );
    }

    #[test]
    fn type_errors_unknown_keys_and_value_checks_are_reported_together() {
        let layer = Layer::named("w.toml", "[gc]\nvictimm = 'fifo'\n");
        let found = problems(load_validated(
            Some("tiny"),
            &[layer],
            &overrides(&[
                "gc.trigger_free_blocks=-3",
                "workload.iodepth=deep",
                "cache.high_watermark=true",
                "gc.scope=chip",
                "device.utilization=2",
            ]),
        ));
        assert!(reason(&found, "gc.victimm").starts_with("unknown key"));
        assert!(reason(&found, "gc.trigger_free_blocks").starts_with("expected a non-negative integer (u32), got -3"));
        assert!(reason(&found, "workload.iodepth").starts_with("expected a non-negative integer (u32), got \"deep\""));
        assert!(reason(&found, "cache.high_watermark").starts_with("expected a finite number, got true"));
        assert!(reason(&found, "gc.scope").starts_with("expected one of \"region\", \"plane\""));
        assert!(reason(&found, "device.utilization").contains("outside (0, 1]"), "value checks still run");
        assert_eq!(found.len(), 6, "one problem per mistake: {found:#?}");
    }

    #[test]
    fn value_checks_of_a_dropped_key_are_not_reported() {
        // With the bad trigger dropped, its default (8) would make `target_free_blocks = 5`
        // look wrong: that check judged a value the user did not write.
        let found = problems(load_validated(
            Some("tiny"),
            &[],
            &overrides(&["gc.trigger_free_blocks=\"x\"", "gc.target_free_blocks=5"]),
        ));
        assert_eq!(found.len(), 1, "{found:#?}");
        assert_eq!(found[0].key, "gc.trigger_free_blocks");
    }

    #[test]
    fn a_bad_value_from_a_file_names_the_file_and_line() {
        let file =
            Layer::named("conf/w.toml", "# comment\n[gc]\n\ntrigger_free_blocks = -3\n[workload]\nbs = \"4q\"\n");
        let found = problems(load(Some("tiny"), std::slice::from_ref(&file), &[]));
        assert!(reason(&found, "gc.trigger_free_blocks").ends_with("got -3 (from conf/w.toml:4)"), "{found:#?}");
        let bs = reason(&found, "workload.bs");
        assert!(
            bs.contains("got \"4q\"") && bs.contains("unknown size suffix") && bs.ends_with("(from conf/w.toml:6)")
        );
        // A later override is where the value comes from.
        let found = problems(load(Some("tiny"), &[file], &overrides(&["gc.trigger_free_blocks=-4"])));
        assert!(reason(&found, "gc.trigger_free_blocks").ends_with("got -4 (from --set)"));
        // Dotted keys and inline tables are located too.
        let dotted = Layer::named("d.toml", "seed = 1\ngc.x = { y = 1 }\ncache = { high_watermark = \"hi\" }\n");
        let found = problems(load(Some("tiny"), &[dotted], &[]));
        assert!(reason(&found, "cache.high_watermark").ends_with("(from d.toml:3)"), "{found:#?}");
    }

    #[test]
    fn array_elements_are_named_by_index() {
        let found = problems(load(Some("tiny"), &[], &overrides(&["device.timing.read_ns=[50000, -2]"])));
        assert!(reason(&found, "device.timing.read_ns[1]").starts_with("expected a non-negative integer (u64), got -2"));
    }

    #[test]
    fn missing_required_keys_are_listed_and_the_rest_still_checked() {
        let layer = Layer::inline("[device]\nchannels = -1\npages_per_block = 64\n[workload]\nbs = true\n");
        let found = problems(load_validated(None, &[layer], &[]));
        assert!(reason(&found, "device.channels").starts_with("expected a non-negative integer (u32), got -1"));
        for key in ["device.chips_per_channel", "device.cell", "device.overprovisioning", "device.timing"] {
            assert!(reason(&found, key).contains("required key is missing"), "{key}");
        }
        assert!(reason(&found, "workload.bs").contains("got true"), "keys after a missing one are checked");
        // Only what was written is judged: no value check ran on the stand-ins.
        assert!(!found.iter().any(|p| p.key == "device.pages_per_block" || p.key == "device"), "{found:#?}");
    }

    #[test]
    fn unknown_keys_of_strict_tables_are_unknown_keys() {
        // `device.timing` denies unknown fields itself; the key is listed like any other.
        let found = problems(load(Some("tiny"), &[], &overrides(&["device.timing.tprog=5", "device.colour=3"])));
        assert!(reason(&found, "device.timing.tprog").starts_with("unknown key"));
        assert!(reason(&found, "device.colour").starts_with("unknown key"));
        assert_eq!(found.len(), 2, "{found:#?}");
    }

    #[test]
    fn non_finite_numbers_at_unknown_or_integer_keys() {
        let found =
            problems(load(Some("tiny"), &[], &overrides(&["workload.hot_fractio=nan", "gc.trigger_free_blocks=inf"])));
        assert!(reason(&found, "workload.hot_fractio").starts_with("unknown key"));
        assert!(reason(&found, "gc.trigger_free_blocks").starts_with("expected a non-negative integer (u32), got inf"));
    }

    /// Every float key of the schema, with whether it holds a list of floats.
    fn float_keys() -> Vec<(String, bool)> {
        let view = SchemaView::new();
        let keys: Vec<(String, bool)> = leaves(&view)
            .into_iter()
            .filter_map(|(key, schema)| {
                if view.accepts_number(&schema) {
                    Some((key, false))
                } else {
                    schema.get("items").filter(|items| view.accepts_number(items)).map(|_| (key, true))
                }
            })
            .collect();
        for expected in
            ["device.overprovisioning", "workload.hot_fraction", "cache.high_watermark", "warmup.random_writes"]
        {
            assert!(keys.iter().any(|(k, _)| k == expected), "{expected} not among {keys:?}");
        }
        keys
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// NaN and infinity are rejected at every float key, each problem naming its key and
        /// value, whether or not the run would use the key; nothing else is reported.
        #[test]
        fn non_finite_numbers_are_rejected_at_every_float_key(
            chosen in proptest::sample::subsequence(float_keys(), 1..=6),
            values in proptest::collection::vec(prop_oneof![Just("nan"), Just("inf"), Just("-inf"), Just("+nan")], 6),
        ) {
            let mut sets = Vec::new();
            let mut expected = Vec::new();
            for ((key, list), value) in chosen.iter().zip(&values) {
                if *list {
                    sets.push(format!("{key}=[0.5, {value}]"));
                    expected.push(format!("{key}[1]"));
                } else {
                    sets.push(format!("{key}={value}"));
                    expected.push(key.clone());
                }
            }
            let found = problems(load_validated(Some("tiny"), &[], &sets));
            let mut keys: Vec<&str> = found.iter().map(|p| p.key.as_str()).collect();
            keys.sort_unstable();
            let mut want: Vec<&str> = expected.iter().map(String::as_str).collect();
            want.sort_unstable();
            prop_assert_eq!(keys, want, "{:#?}", found);
            for (problem, value) in expected.iter().zip(&values) {
                let shown = value.trim_start_matches('+');
                let text = reason(&found, problem);
                prop_assert!(text.starts_with(&format!("must be a finite number, got {shown}")), "{}", text);
            }
        }

        /// A wrong-typed value at any subset of keys: every one is reported, by name.
        #[test]
        fn every_type_error_is_reported(chosen in proptest::sample::subsequence(leaves_with_wrong_values(), 1..=12)) {
            let sets: Vec<String> = chosen.iter().map(|(key, value)| format!("{key}={value}")).collect();
            let found = problems(load_validated(Some("tiny"), &[], &sets));
            for (key, value) in &chosen {
                let text = reason(&found, key);
                prop_assert!(text.starts_with("expected ") && text.contains(&format!("got {value}")), "{}: {}", key, text);
            }
        }
    }

    /// Every leaf key with a value of a type it does not accept.
    fn leaves_with_wrong_values() -> Vec<(String, &'static str)> {
        let view = SchemaView::new();
        let keys: Vec<(String, &'static str)> = leaves(&view)
            .into_iter()
            .map(|(key, schema)| {
                let takes_string =
                    view.describe(&schema).contains("string") || view.describe(&schema).starts_with("one of");
                (key, if takes_string { "true" } else { "\"zz\"" })
            })
            .collect();
        assert!(keys.len() > 80, "only {} keys", keys.len());
        keys
    }
}
