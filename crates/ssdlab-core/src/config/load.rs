//! Layer: config. Reading and merging configuration layers.
//!
//! A run's configuration is the deep merge, in order, of: a preset (compiled in), TOML layers
//! (a workload or config file), and `key=value` overrides. Values of later layers replace
//! earlier ones; tables merge key by key.

use std::collections::BTreeMap;
use std::path::PathBuf;

use crate::config::decode::{concerns_dropped, decode, drop_non_finite, take, Decoded};
use crate::config::origin::{line_at, Source, Sources};
use crate::config::renamed::{ConfigWarning, Renamed, Renaming, RENAMED};
use crate::config::schema::Segment;
use crate::config::{presets, Config, ValidatedConfig};
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
}

/// One TOML document and where it came from (for messages).
#[derive(Debug, Clone)]
pub struct Layer {
    pub origin: Option<PathBuf>,
    pub text: String,
}

impl Layer {
    pub fn file(path: impl Into<PathBuf>) -> Result<Layer> {
        let path = path.into();
        let text = std::fs::read_to_string(&path).map_err(|e| Error::io(&path, e))?;
        Ok(Layer { origin: Some(path), text })
    }
    pub fn inline(text: impl Into<String>) -> Layer {
        Layer { origin: None, text: text.into() }
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
    let value = match toml::from_str::<toml::Table>(&format!("v = {raw}")) {
        Ok(mut t) => t.remove("v").unwrap_or(toml::Value::String(raw.to_string())),
        Err(_) => toml::Value::String(raw.to_string()),
    };
    Ok((path, value))
}

fn origin_label(layer: &Layer) -> String {
    layer.origin.as_ref().map_or_else(|| "<config>".to_string(), |p| p.display().to_string())
}

fn parse_layer(layer: &Layer) -> std::result::Result<toml::Table, ConfigProblem> {
    toml::from_str::<toml::Table>(&layer.text).map_err(|e| {
        let line = e.span().map(|s| line_at(&layer.text, s.start)).unwrap_or(0);
        ConfigProblem { key: format!("{}:{line}", origin_label(layer)), reason: e.message().to_string() }
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
                let layer = Layer { origin: Some(PathBuf::from(format!("preset:{name}"))), text: text.to_string() };
                match parse_layer(&layer) {
                    Ok(mut parsed) => {
                        renaming.apply_to_layer(&mut parsed, &origin_label(&layer), &layer.text, false);
                        merge(&mut table, parsed.clone());
                        sources.push(Source { label: origin_label(&layer), text: Some(layer.text), table: parsed });
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
                sources.push(Source { label: origin_label(layer), text: Some(layer.text.clone()), table: parsed });
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
            Ok(own)
        });
        match applied {
            Ok(own) => sources.push(Source { label: "--set".into(), text: None, table: own }),
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

fn decode_merged(merged: Merged) -> Decoded {
    let Merged { table, sources, .. } = merged;
    decode(table, &|path| sources.origin(path))
}

fn finish(decoded: Decoded) -> Result<Config> {
    match decoded.config {
        Some(config) if decoded.problems.is_empty() => Ok(config),
        _ => Err(Error::Config { path: None, problems: decoded.problems }),
    }
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
    let Decoded { config, problems: more, mut dropped, placeholders } = decode(table, &|path| sources.origin(path));
    dropped.extend(dropped_claimed);
    problems.extend(more);
    let config = config.map(|c| Config { policy_tables: tables, ..c });
    if let (Some(config), false) = (config, placeholders) {
        // The config's own problems first, then the higher layer's (which may follow from them).
        let higher: Vec<ConfigProblem> = extra(&config)
            .into_iter()
            .filter(|p| !concerns_dropped(p, &dropped))
            .map(|p| with_origin(p, &claims.tables, &sources))
            .collect();
        match ValidatedConfig::new(config) {
            Ok(valid) if problems.is_empty() && higher.is_empty() => {
                return Ok(valid.with_warnings(warnings).with_preset(preset))
            }
            Ok(_) => {}
            // A dropped key was checked with its default in place of what the user wrote: only
            // the problem with the written value is reported.
            Err(Error::Config { problems: more, .. }) => {
                problems.extend(more.into_iter().filter(|p| !concerns_dropped(p, &dropped)))
            }
            Err(other) => return Err(other),
        }
        problems.extend(higher);
    }
    Err(Error::Config { path: None, problems })
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
                    out.problems.push(with_origin(ConfigProblem { key, reason }, &claims.tables, &merged.sources));
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

/// A problem of a claimed table with where its key was written (`(from w.toml:3)`), as `decode`
/// words the config's own.
fn with_origin(problem: ConfigProblem, claimed: &[Claim], sources: &Sources) -> ConfigProblem {
    if !claimed.iter().any(|c| problem.key.starts_with(&format!("{}.", c.path))) {
        return problem;
    }
    let path: Vec<Segment> =
        problem.key.split('.').map(|k| Segment::Key(k.split('[').next().unwrap_or(k).to_string())).collect();
    match sources.origin(&path) {
        Some(place) => ConfigProblem { reason: format!("{} (from {place})", problem.reason), ..problem },
        None => problem,
    }
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
    let decoded = decode_merged(merged);
    problems.extend(decoded.problems);
    match decoded.config {
        Some(config) if problems.is_empty() => Ok(Config { policy_tables: tables, ..config }),
        _ => Err(Error::Config { path: None, problems }),
    }
}

/// Preset + layers + overrides -> a typed (not yet validated) configuration.
pub fn load(preset: Option<&str>, layers: &[Layer], overrides: &[String]) -> Result<Config> {
    finish(decode_merged(merge_all(preset, layers, overrides, RENAMED)?))
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

    #[test]
    fn toml_syntax_errors_name_the_line() {
        let layer = Layer { origin: Some("w.toml".into()), text: "[gc]\nvictim = \n".into() };
        let text = load(None, &[layer], &[]).unwrap_err().to_string();
        assert!(text.starts_with("w.toml:2"), "{text}");
    }
}
