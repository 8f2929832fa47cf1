//! Layer: config. The resolved configuration as TOML with where each value came from, as a
//! comment beside it (`ssdlab config show`): `channels = 2  # preset:tiny:5`, `count = 30000  #
//! my.toml:2`, `victim = "fifo"  # --set`, `seed = 0  # default`. The text stays a valid config
//! file; `toml_edit` keeps `to_toml`'s layout and adds the comments.

use crate::config::{to_toml, ValidatedConfig};

/// Widest `key = value` a table's comments are aligned after; a longer line gets its comment
/// right after it.
const ALIGN_MAX: usize = 40;

/// `to_toml` of `cfg`, each value followed by `# <origin>`: the layer that wrote it, with its
/// line (`preset:tiny:5`, `my.toml:2`), `--set`, or `default`.
pub fn to_toml_with_origins(cfg: &ValidatedConfig) -> String {
    let text = to_toml(cfg.config());
    let Ok(mut document) = text.parse::<toml_edit::DocumentMut>() else { return text };
    annotate(document.as_table_mut(), &mut Vec::new(), cfg);
    document.to_string()
}

fn annotate(table: &mut toml_edit::Table, path: &mut Vec<String>, cfg: &ValidatedConfig) {
    let widths: Vec<usize> = table
        .iter()
        .filter_map(|(key, item)| item.as_value().map(|v| key.len() + 3 + v.to_string().trim().len()))
        .filter(|w| *w <= ALIGN_MAX)
        .collect();
    let column = widths.into_iter().max().unwrap_or(0);
    for (mut key, item) in table.iter_mut() {
        path.push(key.get().to_string());
        match item {
            toml_edit::Item::Table(inner) => annotate(inner, path, cfg),
            toml_edit::Item::Value(value) => {
                let origin = cfg.origin(&path.join(".")).unwrap_or_else(|| "default".to_string());
                let width = key.get().len() + 3 + value.to_string().trim().len();
                let pad = if width <= ALIGN_MAX { column - width } else { 0 };
                value.decor_mut().set_suffix(format!("{}  # {origin}", " ".repeat(pad)));
                key.leaf_decor_mut().set_suffix(" ");
            }
            _ => {}
        }
        path.pop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::load_config;
    use crate::config::Layer;

    #[test]
    fn every_value_says_where_it_came_from_and_the_text_still_loads() {
        let file = Layer::named("my.toml", "# mine\n[workload]\ncount = 30000\n");
        let cfg = load_config(Some("tiny"), &[file], &["gc.victim=fifo".into()]).unwrap();
        let text = to_toml_with_origins(&cfg);
        let line = |key: &str| text.lines().find(|l| l.starts_with(&format!("{key} ="))).unwrap().to_string();
        assert!(line("count").ends_with("# my.toml:3"), "{text}");
        assert!(line("victim").ends_with("# --set"), "{text}");
        assert!(line("channels").ends_with("# preset:tiny:5"), "{text}");
        assert!(line("seed").ends_with("# default"), "{text}");
        let reread: toml::Table = toml::from_str(&text).unwrap();
        assert_eq!(reread, toml::from_str::<toml::Table>(&to_toml(cfg.config())).unwrap());
    }
}
