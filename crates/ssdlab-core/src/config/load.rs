//! Layer: config. Reading and merging configuration layers.
//!
//! A run's configuration is the deep merge, in order, of: a preset (compiled in), TOML layers,
//! and `key=value` overrides. Values of later layers replace earlier ones; tables merge key by
//! key. The caller puts the layers in order (the Python layer: built-in workload patterns and
//! the trace to replay before the user's files, so a file never loses to a built-in); every key
//! a later layer changed is returned with the validated configuration
//! (`ValidatedConfig::overridden`), and so is where each value came from
//! (`ValidatedConfig::origin`).

use std::collections::BTreeMap;
use std::path::PathBuf;

use crate::config::decode::{concerns_dropped, decode, drop_non_finite, take, Decoded, UNKNOWN_KEY};
use crate::config::origin::{line_at, Source, Sources};
use crate::config::renamed::{ConfigWarning, Renamed, Renaming, RENAMED};
use crate::config::schema::{SchemaView, Segment};
use crate::config::suggest::{did_you_mean, suggest};
use crate::config::{geometry_problems, presets, Config, ValidatedConfig, GEOMETRY_KEYS};
use crate::error::{ConfigProblem, Error, Result};

/// What a higher layer (the catalog, from the policy registries) adds to loading: the tables it
/// claims and the tables renamed besides the config's own (`RENAMED`).
#[derive(Debug, Clone, Default)]
pub struct Claims {
    pub tables: Vec<Claim>,
    pub renamed: Vec<Renamed>,
}

/// A table taken out of the merged configuration before decoding (a policy's settings,
/// `registry::Settings`): its dotted path and what it holds where nothing was written (its
/// defaults), so the resolved configuration shows every setting.
#[derive(Debug, Clone)]
pub struct Claim {
    pub path: String,
    pub defaults: toml::Table,
    /// Every key the table may hold (for "did you mean" when one is misspelt).
    pub keys: Vec<String>,
}

/// One TOML document and where it came from (for messages).
#[derive(Debug, Clone)]
pub struct Layer {
    pub origin: Option<PathBuf>,
    pub text: String,
    /// Made by the caller from its arguments (the trace to replay, a spec to draw), not written
    /// by the user: messages name it without a line, which would point into text nobody wrote.
    pub generated: bool,
}

impl Layer {
    pub fn file(path: impl Into<PathBuf>) -> Result<Layer> {
        let path = path.into();
        let bytes = std::fs::read(&path).map_err(|e| Error::io(&path, e))?;
        let text = String::from_utf8(bytes).map_err(|e| not_utf8(&path, e.as_bytes(), e.utf8_error()))?;
        Ok(Layer { origin: Some(path), text, generated: false })
    }
    pub fn inline(text: impl Into<String>) -> Layer {
        Layer { origin: None, text: text.into(), generated: false }
    }
    /// A text the user wrote, from `origin` (a file's path, for messages).
    pub fn named(origin: impl Into<PathBuf>, text: impl Into<String>) -> Layer {
        Layer { origin: Some(origin.into()), text: text.into(), generated: false }
    }
    /// A text the caller made (`trace:T`): messages name it without a line.
    pub fn generated(origin: impl Into<PathBuf>, text: impl Into<String>) -> Layer {
        Layer { origin: Some(origin.into()), text: text.into(), generated: true }
    }
}

/// Parse `a.b.c=value`. The value is read as a TOML value (`7`, `0.85`, `true`, `"x"`,
/// `[1, 2]`); anything that is not valid TOML is taken as a bare string (`gc.victim=fifo`).
pub fn parse_override(text: &str) -> Result<(Vec<String>, toml::Value)> {
    let Some((key, raw)) = text.split_once('=') else {
        return Err(Error::config(text, "an override must look like key=value, e.g. gc.victim=fifo"));
    };
    let key = key.trim();
    let path: Vec<String> = key.split('.').map(|s| s.trim().to_string()).collect();
    if path.iter().any(|p| p.is_empty()) {
        return Err(Error::config(key, "empty segment in dotted key"));
    }
    let raw = raw.trim();
    if let Some(reason) = integer_out_of_range(raw) {
        return Err(Error::config(key, format!("{reason} (from --set)")));
    }
    let value = match toml::from_str::<toml::Table>(&format!("v = {raw}")) {
        Ok(mut t) => t.remove("v").unwrap_or(toml::Value::String(raw.to_string())),
        Err(_) => toml::Value::String(raw.to_string()),
    };
    Ok((path, value))
}

/// A TOML file that is not UTF-8 (TOML's only encoding), at the line and column of its first
/// bad byte.
fn not_utf8(path: &std::path::Path, bytes: &[u8], error: std::str::Utf8Error) -> Error {
    let at = error.valid_up_to();
    let line = bytes[..at].iter().filter(|&&b| b == b'\n').count() + 1;
    let column = at - bytes[..at].iter().rposition(|&b| b == b'\n').map_or(0, |end| end + 1) + 1;
    let problem = ConfigProblem {
        key: format!("{}:{line}", path.display()),
        reason: format!(
            "not UTF-8 text (byte {:#04x} at column {column}); TOML files must be UTF-8: save the file as UTF-8",
            bytes[at]
        ),
    };
    Error::Config { path: None, problems: vec![problem] }
}

fn origin_label(layer: &Layer) -> String {
    layer.origin.as_ref().map_or_else(|| "<config>".to_string(), |p| p.display().to_string())
}

fn parse_layer(layer: &Layer) -> std::result::Result<toml::Table, ConfigProblem> {
    toml::from_str::<toml::Table>(&layer.text).map_err(|e| {
        let line = e.span().map(|s| line_at(&layer.text, s.start)).unwrap_or(0);
        // The span of a too-large integer does not always cover just the number: look for it
        // on the error's line.
        let at_line = e.span().and_then(|s| layer.text.get(..s.start)).map(|before| {
            let start = before.rfind('\n').map_or(0, |i| i + 1);
            layer.text[start..].lines().next().unwrap_or("")
        });
        let found = at_line.and_then(|line| {
            line.split(|c: char| !(c.is_ascii_digit() || "+-_".contains(c))).find_map(integer_out_of_range)
        });
        let reason = found.unwrap_or_else(|| e.message().to_string());
        ConfigProblem { key: format!("{}:{line}", origin_label(layer)), reason }
    })
}

/// Why `text` is an integer TOML cannot hold: TOML integers are 64-bit signed, so one from 2^63
/// up is refused by the parser ("number too large to fit in target type", or taken as a string
/// by `--set`), though every u64 key's own range is far below it. `None` for anything else.
fn integer_out_of_range(text: &str) -> Option<String> {
    let digits = text.trim().trim_start_matches('+').replace('_', "");
    let (negative, magnitude) = match digits.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, digits.as_str()),
    };
    if magnitude.is_empty() || !magnitude.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let fits = match negative {
        true => format!("-{magnitude}").parse::<i64>().is_ok(),
        false => magnitude.parse::<i64>().is_ok(),
    };
    (!fits).then(|| {
        format!(
            "{} is outside TOML's integers, which are 64-bit signed ({} to {}): no key takes a value that large",
            text.trim(),
            i64::MIN,
            i64::MAX
        )
    })
}

fn merge(base: &mut toml::Table, over: toml::Table) {
    for (k, v) in over {
        match (base.get_mut(&k), v) {
            (Some(toml::Value::Table(b)), toml::Value::Table(o)) => merge(b, o),
            (_, v) => {
                base.insert(k, v);
            }
        }
    }
}

fn set_path(table: &mut toml::Table, path: &[String], value: toml::Value) -> Result<()> {
    let (last, parents) = path.split_last().expect("parse_override rejects empty keys");
    let mut t = table;
    for (i, p) in parents.iter().enumerate() {
        let entry = t.entry(p.clone()).or_insert_with(|| toml::Value::Table(toml::Table::new()));
        t = match entry {
            toml::Value::Table(inner) => inner,
            _ => return Err(Error::config(path[..=i].join("."), "is a value, not a table")),
        };
    }
    t.insert(last.clone(), value);
    Ok(())
}

/// The merged table, the layers it was merged from and the deprecated names they used.
struct Merged {
    table: toml::Table,
    sources: Sources,
    warnings: Vec<ConfigWarning>,
}

/// Merge the layers and overrides over the preset (if any), each renamed table under its new
/// name (`renamed.rs`). Syntax errors of every layer and override, and tables given under both
/// names, are reported together.
fn merge_all(preset: Option<&str>, layers: &[Layer], overrides: &[String], renamed: &[Renamed]) -> Result<Merged> {
    let mut renaming = Renaming::new(renamed);
    let mut problems = Vec::new();
    let mut sources = Vec::new();
    let mut table = toml::Table::new();
    if let Some(name) = preset {
        match presets::device_preset(name) {
            None => problems.push(ConfigProblem {
                key: "preset".into(),
                reason: format!("unknown preset '{name}'; known: {}", presets::names().join(", ")),
            }),
            Some(text) => {
                let layer = Layer {
                    origin: Some(PathBuf::from(format!("preset:{name}"))),
                    text: text.to_string(),
                    generated: false,
                };
                match parse_layer(&layer) {
                    Ok(mut parsed) => {
                        renaming.apply_to_layer(&mut parsed, &origin_label(&layer), &layer.text, false);
                        merge(&mut table, parsed.clone());
                        let label = origin_label(&layer);
                        sources.push(Source { label, text: Some(layer.text), table: parsed, replaces: None });
                    }
                    Err(problem) => problems.push(problem),
                }
            }
        }
    }
    for layer in layers {
        match parse_layer(layer) {
            Ok(mut parsed) => {
                renaming.apply_to_layer(&mut parsed, &origin_label(layer), &layer.text, true);
                merge(&mut table, parsed.clone());
                let text = (!layer.generated).then(|| layer.text.clone());
                sources.push(Source { label: origin_label(layer), text, table: parsed, replaces: None });
            }
            Err(problem) => problems.push(problem),
        }
    }
    for o in overrides {
        // An override replaces the value at its key, whatever was there (a table too).
        let applied = parse_override(o).and_then(|(mut path, value)| {
            renaming.apply_to_key(&mut path);
            set_path(&mut table, &path, value.clone())?;
            let mut own = toml::Table::new();
            set_path(&mut own, &path, value)?;
            Ok((own, path))
        });
        match applied {
            Ok((own, path)) => {
                sources.push(Source { label: "--set".into(), text: None, table: own, replaces: Some(path) })
            }
            Err(Error::Config { problems: more, .. }) => problems.extend(more),
            Err(other) => return Err(other),
        }
    }
    problems.extend(renaming.problems());
    if !problems.is_empty() {
        return Err(Error::Config { path: None, problems });
    }
    Ok(Merged { table, sources: Sources(sources), warnings: renaming.warnings })
}

/// Every renamed table: the config's own and `more`.
fn all_renamed(more: &[Renamed]) -> Vec<Renamed> {
    RENAMED.iter().chain(more).copied().collect()
}

/// Preset + layers + overrides -> a validated configuration, with unknown keys, wrong types,
/// non-finite numbers and every validation problem reported together in one error.
pub fn load_validated(preset: Option<&str>, layers: &[Layer], overrides: &[String]) -> Result<ValidatedConfig> {
    load_validated_with(preset, layers, overrides, |_| Vec::new())
}

/// `load_validated`, plus checks of a higher layer (the FTL's policy ids and combinations,
/// `ssdlab_core::load_config`), reported in the same error as everything else.
pub fn load_validated_with(
    preset: Option<&str>,
    layers: &[Layer],
    overrides: &[String],
    extra: impl Fn(&Config) -> Vec<ConfigProblem>,
) -> Result<ValidatedConfig> {
    load_validated_claiming(preset, layers, overrides, &Claims::default(), extra)
}

/// `load_validated_with`, the tables `claims` names (the settings tables of registered
/// policies, `registry::Settings`) taken out of the merged table before decoding and kept in
/// `Config::policy_tables`, what was written over their defaults, for `extra` to check and the
/// policies to decode; the tables `claims` renamed read under their old names too, with a
/// warning (`ValidatedConfig::warnings`). A problem of a claimed table says where it was
/// written, as the config's own do.
pub fn load_validated_claiming(
    preset: Option<&str>,
    layers: &[Layer],
    overrides: &[String],
    claims: &Claims,
    extra: impl Fn(&Config) -> Vec<ConfigProblem>,
) -> Result<ValidatedConfig> {
    let mut merged = merge_all(preset, layers, overrides, &all_renamed(&claims.renamed))?;
    let Claimed { tables, mut problems, dropped: dropped_claimed } = claim(&mut merged, claims);
    let Merged { table, sources, warnings } = merged;
    let Decoded { config, problems: more, mut dropped, filled } = decode(table, &|path| sources.origin(path));
    dropped.extend(dropped_claimed);
    // A placeholder stands in for a value nobody wrote: what the checks say of it is no problem
    // of the user's, as with a dropped key.
    dropped.extend(filled);
    problems.extend(more);
    if let Some(config) = config.map(|c| Config { policy_tables: tables, ..c }) {
        match judge(config, &dropped, &extra) {
            Ok(valid) if problems.is_empty() => {
                return Ok(valid.with_warnings(warnings).with_sources(sources).with_preset(preset))
            }
            Ok(_) => {}
            Err(found) => problems.extend(found),
        }
    }
    Err(Error::Config { path: None, problems: worded(problems, &sources, claims) })
}

/// The value checks of a decoded configuration (its own, then the higher layer's `extra`), less
/// their consequences: a problem of a dropped key's default or placeholder (`concerns_dropped`),
/// and, where a geometry key is wrong (`channels = 0`, or dropped), whatever depends on the
/// device's size: the problems that the same configuration with a sound stand-in at those keys
/// does not have too (the spare blocks of a device of 0 blocks are not a second mistake).
fn judge(
    config: Config,
    dropped: &[String],
    extra: &impl Fn(&Config) -> Vec<ConfigProblem>,
) -> std::result::Result<ValidatedConfig, Vec<ConfigProblem>> {
    let wrong: Vec<ConfigProblem> = geometry_problems(&config.device);
    let broken: Vec<&str> = GEOMETRY_KEYS
        .iter()
        .copied()
        .filter(|key| dropped.iter().any(|d| d == key) || wrong.iter().any(|p| p.key == *key))
        .collect();
    let all = |config: Config| -> Vec<ConfigProblem> {
        let higher = extra(&config);
        let mut found = match ValidatedConfig::new(config) {
            Ok(_) => Vec::new(),
            Err(Error::Config { problems, .. }) => problems,
            Err(other) => vec![ConfigProblem { key: "config".into(), reason: other.to_string() }],
        };
        found.extend(higher);
        found
    };
    let stand_in = (!broken.is_empty()).then(|| all(with_stand_ins(config.clone(), &broken)));
    let higher = extra(&config);
    let mut found = match ValidatedConfig::new(config) {
        Ok(valid) if higher.is_empty() => return Ok(valid),
        Ok(_) => Vec::new(),
        Err(Error::Config { problems, .. }) => problems,
        Err(other) => vec![ConfigProblem { key: "config".into(), reason: other.to_string() }],
    };
    found.extend(higher);
    found.retain(|p| !concerns_dropped(p, dropped));
    if let Some(stand_in) = stand_in {
        found.retain(|p| wrong.contains(p) || stand_in.contains(p));
    }
    Err(found)
}

/// `config` with a sound value at each of the `broken` geometry keys: a small device any check
/// accepts, so that what its checks still find does not follow from those keys.
fn with_stand_ins(mut config: Config, broken: &[&str]) -> Config {
    let d = &mut config.device;
    let bits = d.cell.bits_per_cell();
    for key in broken {
        match *key {
            "device.channels" => d.channels = 2,
            "device.chips_per_channel" => d.chips_per_channel = 2,
            "device.dies_per_chip" => d.dies_per_chip = 1,
            "device.planes_per_die" => d.planes_per_die = 1,
            "device.blocks_per_plane" => d.blocks_per_plane = 1024,
            "device.pages_per_block" => d.pages_per_block = 64 * bits,
            "device.page_bytes" => d.page_bytes = 4096,
            "device.overprovisioning" => d.overprovisioning = 0.125,
            "device.utilization" => d.utilization = 1.0,
            _ => {}
        }
    }
    config
}

/// Every problem as the user reads it: an unknown key with where it was written and the keys
/// it may have meant, any other key's problem with where its value was written (if a layer
/// wrote it and the reason does not say so already).
fn worded(problems: Vec<ConfigProblem>, sources: &Sources, claims: &Claims) -> Vec<ConfigProblem> {
    let mut known: Option<Vec<String>> = None;
    problems
        .into_iter()
        .map(|problem| {
            if problem.reason == UNKNOWN_KEY {
                let known = known.get_or_insert_with(|| known_keys(claims));
                let place =
                    written_at(&problem.key, sources, false).map(|p| format!(" (from {p})")).unwrap_or_default();
                let close = suggest(&problem.key, known.iter().map(String::as_str));
                let advice = if close.is_empty() {
                    "; docs/config.md lists every key, `ssdlab config show` prints them resolved".to_string()
                } else {
                    did_you_mean(&close)
                };
                return ConfigProblem { reason: format!("{UNKNOWN_KEY}{place}{advice}"), ..problem };
            }
            if problem.reason.contains("(from ") {
                return problem;
            }
            match written_at(&problem.key, sources, true) {
                Some(place) => ConfigProblem { reason: format!("{} (from {place})", problem.reason), ..problem },
                None => problem,
            }
        })
        .collect()
}

/// Where the value at dotted `key` (`rewards[2]`: its key) was written, if a layer wrote it;
/// `leaf`: only a value, not a table (a problem of a whole table is no one line's).
fn written_at(key: &str, sources: &Sources, leaf: bool) -> Option<String> {
    let keys: Vec<&str> = key.split('.').map(|k| k.split('[').next().unwrap_or(k)).collect();
    let source = sources.0.iter().rev().find(|s| s.written_depth(&keys) == Some(keys.len()))?;
    if leaf && source.replaces.is_none() && value_in(&source.table, &keys).is_none_or(toml::Value::is_table) {
        return None;
    }
    Some(source.place(&keys))
}

fn value_in<'t>(table: &'t toml::Table, keys: &[&str]) -> Option<&'t toml::Value> {
    let (first, rest) = keys.split_first()?;
    rest.iter().try_fold(table.get(*first)?, |value, key| value.as_table()?.get(*key))
}

/// Every key a configuration may hold: the config's own (from its schema) and the claimed
/// policy tables' with theirs.
pub fn known_keys(claims: &Claims) -> Vec<String> {
    let mut keys = SchemaView::new().keys();
    for claim in &claims.tables {
        keys.push(claim.path.clone());
        keys.extend(claim.keys.iter().map(|k| format!("{}.{k}", claim.path)));
    }
    keys
}

/// The claimed tables of a merged configuration, their defaults under what was written, and
/// their problems so far (NaN and infinity, a value where a table belongs).
struct Claimed {
    tables: BTreeMap<String, toml::Table>,
    problems: Vec<ConfigProblem>,
    /// Keys whose value was dropped (as `Decoded::dropped`).
    dropped: Vec<String>,
}

fn claim(merged: &mut Merged, claims: &Claims) -> Claimed {
    let mut out = Claimed { tables: BTreeMap::new(), problems: Vec::new(), dropped: Vec::new() };
    for claim in &claims.tables {
        let segments: Vec<Segment> = claim.path.split('.').map(|k| Segment::Key(k.to_string())).collect();
        let mut table = claim.defaults.clone();
        match take(&mut merged.table, &segments) {
            Some(toml::Value::Table(mut written)) => {
                // As `decode` does at the config's own number keys.
                for (key, shown) in drop_non_finite(&mut written) {
                    let key = format!("{}.{key}", claim.path);
                    let base = key.split('[').next().unwrap_or(&key).to_string();
                    let reason = format!("must be a finite number, got {shown}");
                    out.problems.push(ConfigProblem { key, reason });
                    out.dropped.push(base);
                }
                table.extend(written)
            }
            Some(other) => out.problems.push(ConfigProblem {
                key: claim.path.clone(),
                reason: format!("must be a table of the policy's settings, got {}", other.type_str()),
            }),
            None => {}
        }
        out.tables.insert(claim.path.clone(), table);
    }
    out
}

/// The resolved configuration as TOML, every key with its value (defaults included), the
/// policies' own settings tables at their paths.
pub fn to_toml(cfg: &Config) -> String {
    let failed = |e: &dyn std::fmt::Display| format!("# could not render the configuration: {e}\n");
    if cfg.policy_tables.is_empty() {
        return toml::to_string_pretty(cfg).unwrap_or_else(|e| failed(&e));
    }
    let mut table = match toml::Table::try_from(cfg) {
        Ok(t) => t,
        Err(e) => return failed(&e),
    };
    // Written at their own paths, not under the field's name (which no config file may use).
    table.remove("policy_tables");
    for (path, settings) in &cfg.policy_tables {
        let segments: Vec<String> = path.split('.').map(String::from).collect();
        if let Err(e) = set_path(&mut table, &segments, toml::Value::Table(settings.clone())) {
            return failed(&e);
        }
    }
    toml::to_string_pretty(&table).unwrap_or_else(|e| failed(&e))
}

/// The resolved configuration as JSON (what a report embeds): the config's own keys as serde
/// writes them, the policies' settings tables at their paths, as `to_toml` puts them.
pub fn to_json(cfg: &Config) -> serde_json::Value {
    let mut value = serde_json::to_value(cfg).unwrap_or(serde_json::Value::Null);
    let Some(root) = value.as_object_mut() else { return value };
    root.remove("policy_tables");
    for (path, settings) in &cfg.policy_tables {
        let Ok(settings) = serde_json::to_value(settings) else { continue };
        let segments: Vec<&str> = path.split('.').collect();
        let Some((last, parents)) = segments.split_last() else { continue };
        let mut at = Some(&mut *root);
        for p in parents {
            at = at.and_then(|t| t.entry(p.to_string()).or_insert_with(|| serde_json::json!({})).as_object_mut());
        }
        if let Some(table) = at {
            table.insert(last.to_string(), settings);
        }
    }
    value
}

/// `load` with the tables `claims` names taken out into `Config::policy_tables` (as
/// `load_validated_claiming` does), not yet validated.
pub fn load_claiming(preset: Option<&str>, layers: &[Layer], overrides: &[String], claims: &Claims) -> Result<Config> {
    let mut merged = merge_all(preset, layers, overrides, &all_renamed(&claims.renamed))?;
    let Claimed { tables, mut problems, .. } = claim(&mut merged, claims);
    let Merged { table, sources, .. } = merged;
    let decoded = decode(table, &|path| sources.origin(path));
    problems.extend(decoded.problems);
    match decoded.config {
        Some(config) if problems.is_empty() => Ok(Config { policy_tables: tables, ..config }),
        _ => Err(Error::Config { path: None, problems: worded(problems, &sources, claims) }),
    }
}

/// Preset + layers + overrides -> a typed (not yet validated) configuration.
pub fn load(preset: Option<&str>, layers: &[Layer], overrides: &[String]) -> Result<Config> {
    load_claiming(preset, layers, overrides, &Claims::default())
}

#[cfg(test)]
mod tests {
    use super::*;
    // The catalog's loaders: a preset may hold policy settings tables, which they claim.
    use crate::catalog::{load, load_config as load_validated};

    #[test]
    fn overrides_parse_toml_values_or_strings() {
        assert_eq!(parse_override("seed=7").unwrap().1, toml::Value::Integer(7));
        assert_eq!(parse_override("device.utilization = 0.85").unwrap().1, toml::Value::Float(0.85));
        assert_eq!(parse_override("gc.victim=fifo").unwrap().1, toml::Value::String("fifo".into()));
        assert!(parse_override("novalue").is_err());
        assert!(parse_override("a..b=1").is_err());
    }

    #[test]
    fn integers_from_2_pow_63_up_are_named_as_beyond_toml_not_as_a_type() {
        let two_pow_63 = "9223372036854775808";
        let message = parse_override(&format!("workload.count={two_pow_63}")).unwrap_err().to_string();
        assert!(message.contains(&format!("workload.count: {two_pow_63} is outside TOML's integers")), "{message}");
        assert!(message.contains("9223372036854775807") && !message.contains("u64"), "{message}");
        assert_eq!(parse_override("seed=9223372036854775807").unwrap().1, toml::Value::Integer(i64::MAX));
        let layer = Layer::named("w.toml", "[workload]\ncount = 18446744073709551616\n");
        let message = load(Some("tiny"), &[layer], &[]).unwrap_err().to_string();
        assert!(message.contains("w.toml:2: 18446744073709551616 is outside TOML's integers"), "{message}");
        assert!(!message.contains("too large to fit"), "{message}");
        assert!(integer_out_of_range("-9223372036854775809").is_some());
        assert_eq!(integer_out_of_range("12"), None);
        assert_eq!(integer_out_of_range("fifo"), None);
    }

    #[test]
    fn a_file_that_is_not_utf8_is_named_at_its_line_and_column() {
        let path = std::env::temp_dir().join(format!("ssdlab-latin1-{}.toml", std::process::id()));
        std::fs::write(&path, b"seed = 1\n# caf\xe9\n").unwrap();
        let message = Layer::file(&path).unwrap_err().to_string();
        std::fs::remove_file(&path).unwrap();
        assert!(
            message.contains(&format!("{}:2: not UTF-8 text (byte 0xe9 at column 6)", path.display())),
            "{message}"
        );
    }

    #[test]
    fn every_unknown_key_is_reported_at_once() {
        let layer = Layer::inline("bogus = 1\n[gc]\nvictimm = 'fifo'\n");
        let err = load(Some("tiny"), &[layer], &["device.colour=3".into()]).unwrap_err();
        let text = err.to_string();
        assert!(text.contains("bogus") && text.contains("gc.victimm") && text.contains("device.colour"), "{text}");
    }

    #[test]
    fn unknown_keys_and_invalid_values_are_reported_together() {
        let err = load_validated(Some("tiny"), &[], &["gc.victimm=fifo".into(), "device.utilization=2".into()]);
        let text = err.unwrap_err().to_string();
        assert!(text.contains("gc.victimm") && text.contains("device.utilization"), "{text}");
    }

    #[test]
    fn later_layers_win_and_tables_merge() {
        let cfg = load(Some("tiny"), &[Layer::inline("[gc]\nvictim = 'fifo'\n")], &["seed=9".into()]).unwrap();
        assert_eq!(cfg.seed, 9);
        assert_eq!(cfg.gc.victim, "fifo");
        assert_eq!(cfg.device.channels, 2, "preset value kept");
    }

    fn problems(result: Result<impl std::fmt::Debug>) -> Vec<ConfigProblem> {
        match result {
            Err(Error::Config { problems, .. }) => problems,
            other => panic!("expected a configuration error, got {other:?}"),
        }
    }

    #[test]
    fn an_unknown_key_says_where_it_was_written_and_what_was_meant() {
        let file = Layer::named("my.toml", "seed = 1\n[gc]\nvictimm = 'fifo'\ncount = 3\n[gc.rlgc]\nalpah = 0.5\n");
        let found = problems(load_validated(Some("tiny"), &[file], &["device.colour=3".into()]));
        let reasons: Vec<String> = found.iter().map(|p| format!("{}: {}", p.key, p.reason)).collect();
        for expected in [
            "gc.victimm: unknown key (from my.toml:3); did you mean `gc.victim`?",
            "gc.count: unknown key (from my.toml:4); did you mean `workload.count`?",
            "gc.rlgc.alpah: unknown key (from my.toml:6); did you mean `gc.rlgc.alpha`?",
            "device.colour: unknown key (from --set); docs/config.md lists every key",
        ] {
            assert!(reasons.iter().any(|r| r.starts_with(expected)), "{expected} not in {reasons:#?}");
        }
    }

    #[test]
    fn a_geometry_key_of_zero_is_one_problem_not_its_consequences() {
        for (key, value) in [("channels", "0"), ("blocks_per_plane", "0"), ("pages_per_block", "0")] {
            let file = Layer::named("d.toml", format!("[device]\n{key} = {value}\n"));
            let found = problems(load_validated(Some("tiny"), &[file], &[]));
            assert_eq!(found.len(), 1, "{key}: {found:#?}");
            assert_eq!(found[0].key, format!("device.{key}"));
            assert_eq!(found[0].reason, "must be at least 1 (from d.toml:2)");
        }
        // A mistake elsewhere is still reported beside it.
        let found = problems(load_validated(Some("tiny"), &[], &["device.channels=0".into(), "gc.victim=lifo".into()]));
        assert_eq!(found.len(), 2, "{found:#?}");
    }

    #[test]
    fn a_page_no_nand_has_is_refused_with_the_range() {
        for bytes in ["1099511627776", "1000", "256", "131072"] {
            let found = problems(load_validated(Some("tiny"), &[], &[format!("device.page_bytes={bytes}")]));
            assert_eq!(found.len(), 1, "{bytes}: {found:#?}");
            assert_eq!(found[0].key, "device.page_bytes");
            assert!(
                found[0]
                    .reason
                    .starts_with(&format!("{bytes} is not a NAND page: a multiple of 512 from 512 to 65536")),
                "{}",
                found[0].reason
            );
            assert!(found[0].reason.ends_with("(from --set)"), "{}", found[0].reason);
        }
        for bytes in ["512", "16384", "65536"] {
            load_validated(Some("tiny"), &[], &[format!("device.page_bytes={bytes}")]).unwrap();
        }
    }

    #[test]
    fn value_checks_run_beside_a_type_error_of_a_required_key() {
        // `channels` has no default: dropped for its type, a placeholder stands in, and the
        // other keys' value checks still run (without judging the placeholder).
        let found =
            problems(load_validated(Some("tiny"), &[], &["device.channels=two".into(), "device.utilization=2".into()]));
        let keys: Vec<&str> = found.iter().map(|p| p.key.as_str()).collect();
        assert_eq!(keys, ["device.channels", "device.utilization"], "{found:#?}");
        assert!(found[1].reason.starts_with("2 is outside (0, 1]") && found[1].reason.ends_with("(from --set)"));
    }

    #[test]
    fn the_overridden_keys_come_with_the_validated_config() {
        let pattern = Layer::named("workload:randwrite", crate::config::presets::workload_preset("randwrite").unwrap());
        let file = Layer::named("my.toml", "[workload]\ncount = 30000\n");
        let cfg = load_validated(Some("tiny"), &[pattern, file], &["gc.trigger_free_blocks=5".into()]).unwrap();
        assert_eq!(cfg.workload.count, Some(30000));
        let lines: Vec<String> = cfg.overridden().iter().map(|o| o.to_string()).collect();
        assert_eq!(
            lines,
            [
                "gc.trigger_free_blocks: 4 (from preset:tiny:25) -> 5 (from --set)",
                "workload.count: 200000 (from workload:randwrite:6) -> 30000 (from my.toml:2)",
            ]
        );
        assert_eq!(cfg.origin("workload.count").as_deref(), Some("my.toml:2"));
        assert_eq!(cfg.origin("workload.bs").as_deref(), Some("workload:randwrite:4"));
        assert_eq!(cfg.origin("seed"), None);
        // A generated layer (a trace to replay) is named without a line.
        let trace = Layer::generated("trace:t.csv", "[workload]\nkind = \"trace\"\n");
        let cfg = crate::catalog::load(Some("tiny"), &[trace], &[]).unwrap();
        assert_eq!(cfg.workload.kind, crate::workload::config::WorkloadKind::Trace);
    }

    #[test]
    fn toml_syntax_errors_name_the_line() {
        let layer = Layer::named("w.toml", "[gc]\nvictim = \n");
        let text = load(None, &[layer], &[]).unwrap_err().to_string();
        assert!(text.starts_with("w.toml:2"), "{text}");
    }
}
