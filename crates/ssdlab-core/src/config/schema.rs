//! Layer: config. The JSON Schema of a configuration, generated from the config types, and the
//! questions the loader asks it about one key (its type in words, a stand-in value).
//!
//! The schema is derived (`#[derive(JsonSchema)]`), so a new config type appears in it, in
//! `docs/config.schema.json` and in the reference rendered from it (`docs/config.md`) with no
//! other code: its doc comments become the descriptions, serde's defaults the defaults. What the
//! derive cannot see is corrected here, generically, so that the schema describes what
//! `config::load` accepts and editors can validate files with it:
//!
//! * TOML has no null: `Option` keys are optional keys of the inner type, never `null`;
//! * unknown keys are rejected (`additionalProperties: false` on every table);
//! * TOML integers are signed 64-bit: `u64` keys stop at `i64::MAX`, `u32` keys at `u32::MAX`;
//! * whole-table defaults are left to their keys (each key carries its own default), and a test
//!   checks that the two agree;
//! * serde aliases (which schemars ignores) are listed in [`SERDE_ALIASES`].
//!
//! Draft 07 rather than 2020-12: it is the dialect TOML editor tooling (Taplo / Even Better TOML)
//! validates most widely; enum values are written `enum: [v]` rather than `const: v` so that
//! validators of older drafts read them too.

use schemars::generate::SchemaSettings;
use schemars::transform::ReplaceConstValue;
use serde_json::Value;

use crate::config::Config;

/// Variants serde accepts under a second name: (definition, variant, alias). schemars does not
/// read `#[serde(alias)]`, so without this list the schema would reject what `load` accepts.
/// A test checks each entry deserialises to its variant.
pub(crate) const SERDE_ALIASES: &[(&str, &str, &str)] = &[("RwMode", "rw", "readwrite")];

/// The JSON Schema (draft 07) of a configuration file, as a JSON value.
pub fn schema() -> Value {
    let mut settings = SchemaSettings::draft07();
    settings.transforms.push(Box::new(ReplaceConstValue::default()));
    let generator = settings.into_generator();
    let mut root = generator.into_root_schema_for::<Config>().to_value();
    if let Some(object) = root.as_object_mut() {
        object.insert("title".into(), "ssdlab configuration".into());
        let definitions = object.get_mut("definitions").and_then(Value::as_object_mut);
        if let Some(definitions) = definitions {
            for (definition, variant, alias) in SERDE_ALIASES {
                if let Some(variants) = definitions.get_mut(*definition).and_then(|d| d.get_mut("oneOf")) {
                    add_alias(variants, variant, alias);
                }
            }
        }
    }
    fit_to_toml(&mut root);
    root
}

/// The JSON Schema (draft 07) of one settings type, made as `schema` makes the config's: a
/// policy's own settings table (`registry::Settings`), which the catalog puts under its seam's
/// table.
pub fn settings_schema<T: schemars::JsonSchema>() -> Value {
    let mut settings = SchemaSettings::draft07();
    settings.transforms.push(Box::new(ReplaceConstValue::default()));
    let mut root = settings.into_generator().into_root_schema_for::<T>().to_value();
    fit_to_toml(&mut root);
    root
}

/// The JSON Schema as pretty-printed JSON text (what `docs/config.schema.json` holds).
pub fn schema_json() -> String {
    serde_json::to_string_pretty(&schema()).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
}

/// Accept `alias` wherever `variant` is accepted, in a `oneOf` list of string variants.
fn add_alias(variants: &mut Value, variant: &str, alias: &str) {
    let Some(list) = variants.as_array_mut() else { return };
    for option in list {
        let Some(object) = option.as_object_mut() else { continue };
        let values = object.get("enum").and_then(Value::as_array);
        if values.is_some_and(|v| v.iter().any(|v| v == variant)) {
            if let Some(Value::Array(values)) = object.get_mut("enum") {
                values.push(alias.into());
            }
        }
    }
}

/// The corrections listed in the module header, applied to every subschema.
fn fit_to_toml(schema: &mut Value) {
    let Some(object) = schema.as_object_mut() else { return };
    // Option<T>: `type: [T, "null"]` or `anyOf: [T, {type: null}]`.
    if let Some(Value::Array(types)) = object.get_mut("type") {
        types.retain(|t| t != "null");
        if types.len() == 1 {
            let only = types.remove(0);
            object.insert("type".into(), only);
        }
    }
    if let Some(Value::Array(options)) = object.get_mut("anyOf") {
        options.retain(|o| o.get("type").and_then(Value::as_str) != Some("null"));
        if options.len() == 1 {
            // allOf keeps the description and default beside the `$ref` (draft 07 ignores
            // siblings of `$ref`).
            let only = options.remove(0);
            object.remove("anyOf");
            object.insert("allOf".into(), Value::from(vec![only]));
        }
    }
    match object.get("default") {
        Some(Value::Null) | Some(Value::Object(_)) => {
            object.remove("default");
        }
        Some(_) => {
            if let Some(default) = object.get_mut("default") {
                drop_nulls(default);
            }
        }
        None => {}
    }
    if object.contains_key("properties") && !object.contains_key("additionalProperties") {
        object.insert("additionalProperties".into(), false.into());
    }
    if object.get("type").and_then(Value::as_str) == Some("integer") && !object.contains_key("maximum") {
        let maximum = match object.get("format").and_then(Value::as_str) {
            Some("uint32") => Some(u64::from(u32::MAX)),
            Some("uint64" | "uint" | "int64") => Some(i64::MAX as u64),
            _ => None,
        };
        if let Some(maximum) = maximum {
            object.insert("maximum".into(), maximum.into());
        }
    }
    for value in object.values_mut() {
        match value {
            Value::Object(_) => fit_to_toml(value),
            Value::Array(items) => items.iter_mut().for_each(fit_to_toml),
            _ => {}
        }
    }
}

/// TOML cannot write null: a default list or table shows only the entries it can hold.
fn drop_nulls(value: &mut Value) {
    match value {
        Value::Object(map) => {
            map.retain(|_, v| !v.is_null());
            map.values_mut().for_each(drop_nulls);
        }
        Value::Array(items) => items.iter_mut().for_each(drop_nulls),
        _ => {}
    }
}

/// One step of a key path: a table key or an array index.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Segment {
    Key(String),
    Index(usize),
}

/// `gc.rlgc.rewards[1]`.
pub(crate) fn dotted(path: &[Segment]) -> String {
    let mut text = String::new();
    for segment in path {
        match segment {
            Segment::Key(key) => {
                if !text.is_empty() {
                    text.push('.');
                }
                text.push_str(key);
            }
            Segment::Index(index) => text.push_str(&format!("[{index}]")),
        }
    }
    text
}

/// The generated schema, asked about single keys when a configuration has a problem.
pub(crate) struct SchemaView {
    root: Value,
}

impl SchemaView {
    pub(crate) fn new() -> SchemaView {
        SchemaView { root: schema() }
    }

    /// Follow `$ref` and single-element `allOf` wrappers to the schema that says the type.
    fn resolve<'a>(&'a self, mut schema: &'a Value) -> &'a Value {
        for _ in 0..32 {
            if let Some(reference) = schema.get("$ref").and_then(Value::as_str) {
                match reference.strip_prefix('#').and_then(|pointer| self.root.pointer(pointer)) {
                    Some(target) => schema = target,
                    None => return schema,
                }
            } else if let Some([only]) = schema.get("allOf").and_then(Value::as_array).map(Vec::as_slice) {
                schema = only;
            } else {
                break;
            }
        }
        schema
    }

    /// The schema of the value at `path`, or None if no such key exists.
    pub(crate) fn at(&self, path: &[Segment]) -> Option<&Value> {
        let mut schema = &self.root;
        for segment in path {
            let resolved = self.resolve(schema);
            schema = match segment {
                Segment::Key(key) => resolved.get("properties")?.get(key)?,
                Segment::Index(_) => resolved.get("items")?,
            };
        }
        Some(schema)
    }

    /// Every dotted key of the configuration, tables (`gc`) and values (`gc.victim`).
    pub(crate) fn keys(&self) -> Vec<String> {
        fn walk(view: &SchemaView, schema: &Value, prefix: &str, out: &mut Vec<String>) {
            let Some(properties) = view.resolve(schema).get("properties").and_then(Value::as_object) else {
                return;
            };
            for (key, property) in properties {
                let path = if prefix.is_empty() { key.clone() } else { format!("{prefix}.{key}") };
                out.push(path.clone());
                walk(view, property, &path, out);
            }
        }
        let mut out = Vec::new();
        walk(self, &self.root, "", &mut out);
        out
    }

    /// Whether a (floating-point) number is a valid value here.
    pub(crate) fn accepts_number(&self, schema: &Value) -> bool {
        let schema = self.resolve(schema);
        let alternatives = schema.get("anyOf").or_else(|| schema.get("oneOf")).and_then(Value::as_array);
        if let Some(alternatives) = alternatives {
            return alternatives.iter().any(|a| self.accepts_number(a));
        }
        match schema.get("type") {
            Some(Value::String(t)) => t == "number",
            Some(Value::Array(types)) => types.iter().any(|t| t == "number"),
            _ => false,
        }
    }

    /// The accepted values in words, for messages: `a non-negative integer (u32)`.
    pub(crate) fn describe(&self, schema: &Value) -> String {
        self.noun(schema, false)
    }

    fn noun(&self, schema: &Value, plural: bool) -> String {
        let schema = self.resolve(schema);
        let variants = string_variants(schema);
        if !variants.is_empty() {
            let quoted: Vec<String> = variants.iter().map(|v| format!("\"{v}\"")).collect();
            let list = quoted.join(", ");
            return if plural { format!("values among {list}") } else { format!("one of {list}") };
        }
        if let Some(alternatives) = schema.get("anyOf").or_else(|| schema.get("oneOf")).and_then(Value::as_array) {
            let words: Vec<String> = alternatives.iter().map(|a| self.noun(a, plural)).collect();
            return words.join(" or ");
        }
        let examples = || -> String {
            let list: Vec<String> = schema
                .get("examples")
                .and_then(Value::as_array)
                .map(|e| e.iter().filter(|v| v.is_string()).map(Value::to_string).collect())
                .unwrap_or_default();
            if list.is_empty() {
                String::new()
            } else {
                format!(" such as {}", list.join(", "))
            }
        };
        let (singular, many) = match schema.get("type").and_then(Value::as_str) {
            Some("integer") => {
                let format = schema.get("format").and_then(Value::as_str).unwrap_or("");
                let unsigned = schema.get("minimum").and_then(Value::as_i64) == Some(0);
                let width = match format {
                    "uint32" => " (u32)",
                    "uint64" => " (u64)",
                    "int32" => " (i32)",
                    "int64" => " (i64)",
                    _ => "",
                };
                if unsigned {
                    (format!("a non-negative integer{width}"), format!("non-negative integers{width}"))
                } else {
                    (format!("an integer{width}"), format!("integers{width}"))
                }
            }
            Some("number") => ("a finite number".to_string(), "finite numbers".to_string()),
            Some("boolean") => ("true or false".to_string(), "booleans".to_string()),
            Some("string") => (format!("a string{}", examples()), format!("strings{}", examples())),
            Some("array") => {
                let items = schema.get("items").map(|i| self.noun(i, true)).unwrap_or_else(|| "values".into());
                (format!("an array of {items}"), format!("arrays of {items}"))
            }
            Some("object") => ("a table".to_string(), "tables".to_string()),
            _ => ("a value".to_string(), "values".to_string()),
        };
        if plural {
            many
        } else {
            singular
        }
    }

    /// A value of the right type, put in place of a required key that is missing or wrong so
    /// the rest of the configuration can still be checked. Never used to run anything: the
    /// loader reports the key and skips the value checks.
    pub(crate) fn placeholder(&self, schema: &Value) -> Option<toml::Value> {
        let schema = self.resolve(schema);
        if let Some(default) = schema.get("default") {
            if let Some(value) = json_to_toml(default) {
                return Some(value);
            }
        }
        if let Some(first) = string_variants(schema).first() {
            return Some(toml::Value::String(first.clone()));
        }
        if let Some(alternatives) = schema.get("anyOf").or_else(|| schema.get("oneOf")).and_then(Value::as_array) {
            return alternatives.iter().find_map(|a| self.placeholder(a));
        }
        match schema.get("type").and_then(Value::as_str)? {
            "integer" => Some(toml::Value::Integer(schema.get("minimum").and_then(Value::as_i64).unwrap_or(0))),
            "number" => Some(toml::Value::Float(0.0)),
            "boolean" => Some(toml::Value::Boolean(false)),
            "string" => Some(toml::Value::String(String::new())),
            "array" => Some(toml::Value::Array(Vec::new())),
            "object" => {
                let properties = schema.get("properties").and_then(Value::as_object);
                let mut table = toml::Table::new();
                for key in schema.get("required").and_then(Value::as_array).into_iter().flatten() {
                    let key = key.as_str()?;
                    let property = properties?.get(key)?;
                    table.insert(key.to_string(), self.placeholder(property)?);
                }
                Some(toml::Value::Table(table))
            }
            _ => None,
        }
    }
}

/// The string values of an enum schema (`const` / `enum` alone or as `oneOf` alternatives).
fn string_variants(schema: &Value) -> Vec<String> {
    let own = |s: &Value| -> Option<Vec<String>> {
        if let Some(c) = s.get("const").and_then(Value::as_str) {
            return Some(vec![c.to_string()]);
        }
        let list = s.get("enum")?.as_array()?;
        list.iter().map(|v| v.as_str().map(str::to_string)).collect()
    };
    if let Some(values) = own(schema) {
        return values;
    }
    let Some(alternatives) = schema.get("oneOf").and_then(Value::as_array) else { return Vec::new() };
    let mut values = Vec::new();
    for alternative in alternatives {
        match own(alternative) {
            Some(more) => values.extend(more),
            None => return Vec::new(),
        }
    }
    values
}

fn json_to_toml(value: &Value) -> Option<toml::Value> {
    Some(match value {
        Value::Null => return None,
        Value::Bool(b) => toml::Value::Boolean(*b),
        Value::Number(n) => match n.as_i64() {
            Some(i) => toml::Value::Integer(i),
            None => toml::Value::Float(n.as_f64()?),
        },
        Value::String(s) => toml::Value::String(s.clone()),
        Value::Array(items) => toml::Value::Array(items.iter().filter_map(json_to_toml).collect()),
        Value::Object(map) => {
            toml::Value::Table(map.iter().filter_map(|(k, v)| Some((k.clone(), json_to_toml(v)?))).collect())
        }
    })
}

/// Every leaf key of the schema (dotted path, its schema resolved), for tests that must cover
/// every key.
#[cfg(test)]
pub(crate) fn leaves(view: &SchemaView) -> Vec<(String, Value)> {
    fn walk(view: &SchemaView, schema: &Value, prefix: &str, out: &mut Vec<(String, Value)>) {
        let resolved = view.resolve(schema);
        match resolved.get("properties").and_then(Value::as_object) {
            Some(properties) => {
                for (key, property) in properties {
                    let path = if prefix.is_empty() { key.clone() } else { format!("{prefix}.{key}") };
                    walk(view, property, &path, out);
                }
            }
            None => out.push((prefix.to_string(), resolved.clone())),
        }
    }
    let mut out = Vec::new();
    walk(view, &view.root, "", &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(path: &str) -> Vec<Segment> {
        path.split('.').map(|k| Segment::Key(k.to_string())).collect()
    }

    #[test]
    fn describes_keys_as_load_accepts_them() {
        let view = SchemaView::new();
        let describe = |path: &str| view.describe(view.at(&key(path)).unwrap_or_else(|| panic!("{path}")));
        assert_eq!(describe("gc.trigger_free_blocks"), "a non-negative integer (u32)");
        assert_eq!(describe("gc.target_free_blocks"), "a non-negative integer (u32)", "Option is not null");
        assert_eq!(describe("gc.scope"), "one of \"region\", \"plane\"");
        // Policy ids are strings here; the registries check them (`ssdlab_core::load_config`).
        assert_eq!(describe("gc.victim"), "a string");
        assert_eq!(describe("workload.hot_fraction"), "a finite number");
        assert_eq!(describe("verify"), "true or false");
        assert_eq!(
            describe("workload.bs"),
            "a non-negative integer (u64) or a string such as \"4k\", \"128KiB\", \"1m\""
        );
        assert!(describe("workload.rw").contains("\"readwrite\""), "serde alias listed");
        assert!(view.at(&key("gc.no_such_key")).is_none());
    }

    #[test]
    fn schema_fits_toml() {
        let text = schema_json();
        assert!(!text.contains("\"null\""), "TOML has no null: {text}");
        let root = schema();
        let view = SchemaView::new();
        // Unknown keys are rejected like `load` does, on every table.
        for path in ["", "gc", "cache", "workload.trace", "workload.trace.generic", "device.timing"] {
            let schema = if path.is_empty() { &root } else { view.resolve(view.at(&key(path)).unwrap()) };
            assert_eq!(schema.get("additionalProperties"), Some(&Value::Bool(false)), "{path}");
        }
        let trigger = view.resolve(view.at(&key("gc.trigger_free_blocks")).unwrap());
        assert_eq!(trigger.get("maximum"), Some(&Value::from(u32::MAX)));
        let required: Vec<&str> = root["required"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
        assert_eq!(required, ["device"], "every other top-level table has a default");
    }

    /// The reference shows each key's own default; serde uses the whole table's `Default` when
    /// the table is absent. They must agree, or the reference would lie for absent tables.
    #[test]
    fn table_defaults_agree_with_key_defaults() {
        let generator = SchemaSettings::draft07().into_generator();
        let raw = generator.into_root_schema_for::<Config>().to_value();
        let raw_view = SchemaView { root: raw.clone() };
        fn check(view: &SchemaView, schema: &Value, path: &str, checked: &mut usize) {
            let resolved = view.resolve(schema);
            let Some(properties) = resolved.get("properties").and_then(Value::as_object) else { return };
            if let Some(Value::Object(table_default)) = schema.get("default") {
                for (key, property) in properties {
                    let own = view.resolve(property).get("default").or_else(|| property.get("default"));
                    let whole = table_default.get(key);
                    if let (Some(own), Some(whole)) = (own, whole) {
                        assert_eq!(own, whole, "{path}.{key}: key default != table default");
                        *checked += 1;
                    }
                }
            }
            for (key, property) in properties {
                let child = if path.is_empty() { key.clone() } else { format!("{path}.{key}") };
                check(view, property, &child, checked);
            }
        }
        let mut checked = 0;
        check(&raw_view, &raw, "", &mut checked);
        assert!(checked > 50, "only {checked} defaults compared");
    }

    /// Each listed alias loads as its variant, at every key of that type.
    #[test]
    fn aliases_load_as_their_variant() {
        let view = SchemaView::new();
        fn keys_of(view: &SchemaView, schema: &Value, target: &str, path: &str, out: &mut Vec<String>) {
            let refers = |s: &Value| s.get("$ref").and_then(Value::as_str) == Some(target);
            let all_of = schema.get("allOf").and_then(Value::as_array);
            if refers(schema) || all_of.is_some_and(|a| a.iter().any(refers)) {
                out.push(path.to_string());
            }
            for (key, property) in
                view.resolve(schema).get("properties").and_then(Value::as_object).into_iter().flatten()
            {
                let child = if path.is_empty() { key.clone() } else { format!("{path}.{key}") };
                keys_of(view, property, target, &child, out);
            }
        }
        for (definition, variant, alias) in SERDE_ALIASES {
            let mut keys = Vec::new();
            keys_of(&view, &view.root, &format!("#/definitions/{definition}"), "", &mut keys);
            assert!(!keys.is_empty(), "no key has type {definition}");
            for key in keys {
                let load = |value: &str| crate::catalog::load(Some("tiny"), &[], &[format!("{key}={value}")]).unwrap();
                assert_eq!(load(alias), load(variant), "{key}={alias}");
            }
        }
    }

    #[test]
    fn placeholders_deserialise() {
        let view = SchemaView::new();
        let device = view.placeholder(view.at(&key("device")).unwrap()).unwrap();
        let parsed: crate::config::DeviceConfig = device.try_into().unwrap();
        assert_eq!(parsed.channels, 0);
    }
}
