//! Layer: config. Reading and merging configuration layers.
//!
//! A run's configuration is the deep merge, in order, of: a preset (compiled in), TOML layers
//! (a workload or config file), and `key=value` overrides. Values of later layers replace
//! earlier ones; tables merge key by key.

use std::path::PathBuf;

use crate::config::{presets, Config, ValidatedConfig};
use crate::error::{ConfigProblem, Error, Result};

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

fn parse_layer(layer: &Layer) -> Result<toml::Table> {
    toml::from_str::<toml::Table>(&layer.text).map_err(|e| {
        let origin = layer.origin.clone().unwrap_or_else(|| PathBuf::from("<config>"));
        let line = e.span().map(|s| layer.text[..s.start.min(layer.text.len())].lines().count().max(1)).unwrap_or(0);
        Error::Config {
            path: None,
            problems: vec![ConfigProblem {
                key: format!("{}:{line}", origin.display()),
                reason: e.message().to_string(),
            }],
        }
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

/// Merge the layers and overrides over the preset (if any) into the raw TOML table.
pub fn merged_table(preset: Option<&str>, layers: &[Layer], overrides: &[String]) -> Result<toml::Table> {
    let mut table = toml::Table::new();
    if let Some(name) = preset {
        let text = presets::device_preset(name).ok_or_else(|| {
            Error::config("preset", format!("unknown preset '{name}'; known: {}", presets::names().join(", ")))
        })?;
        table = parse_layer(&Layer { origin: Some(PathBuf::from(format!("preset:{name}"))), text: text.to_string() })?;
    }
    for layer in layers {
        merge(&mut table, parse_layer(layer)?);
    }
    for o in overrides {
        let (path, value) = parse_override(o)?;
        set_path(&mut table, &path, value)?;
    }
    Ok(table)
}

fn unknown_problems(unknown: Vec<String>) -> Vec<ConfigProblem> {
    unknown
        .into_iter()
        .map(|key| ConfigProblem { key, reason: "unknown key (see `ssdlab config show` for every key)".into() })
        .collect()
}

/// Deserialise a merged table, listing every unknown key at once.
pub fn from_table(table: toml::Table) -> Result<Config> {
    let mut unknown = Vec::new();
    let result: Result<Config, toml::de::Error> =
        serde_ignored::deserialize(toml::Value::Table(table), |path| unknown.push(path.to_string()));
    if !unknown.is_empty() {
        return Err(Error::Config { path: None, problems: unknown_problems(unknown) });
    }
    result.map_err(|e| Error::config("config", e.message().to_string()))
}

/// Preset + layers + overrides -> a validated configuration, with unknown keys and every
/// validation problem reported together in one error.
pub fn load_validated(preset: Option<&str>, layers: &[Layer], overrides: &[String]) -> Result<ValidatedConfig> {
    let table = merged_table(preset, layers, overrides)?;
    let mut unknown = Vec::new();
    let result: Result<Config, toml::de::Error> =
        serde_ignored::deserialize(toml::Value::Table(table), |path| unknown.push(path.to_string()));
    let mut problems = unknown_problems(unknown);
    match result {
        Err(e) => problems.push(ConfigProblem { key: "config".into(), reason: e.message().to_string() }),
        Ok(cfg) => match ValidatedConfig::new(cfg) {
            Ok(valid) if problems.is_empty() => return Ok(valid),
            Ok(_) => {}
            Err(Error::Config { problems: more, .. }) => problems.extend(more),
            Err(other) => return Err(other),
        },
    }
    Err(Error::Config { path: None, problems })
}

/// The resolved configuration as TOML, every key with its value (defaults included).
pub fn to_toml(cfg: &Config) -> String {
    toml::to_string_pretty(cfg).unwrap_or_else(|e| format!("# could not render the configuration: {e}\n"))
}

/// Preset + layers + overrides -> a typed (not yet validated) configuration.
pub fn load(preset: Option<&str>, layers: &[Layer], overrides: &[String]) -> Result<Config> {
    from_table(merged_table(preset, layers, overrides)?)
}

#[cfg(test)]
mod tests {
    use super::*;

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
