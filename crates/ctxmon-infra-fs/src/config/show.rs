//! Reading the merged configuration back out: `config show` (TOML or JSON, with each key's
//! source), `config get KEY` (a key, or a whole section) and `config schema`.

use std::fmt::Write as _;

use ctxmon_application::config::{FIELDS, FieldKind, json_schema};
use serde_json::json;

use super::error::{ConfigError, ConfigErrorKind};
use super::kinds::{self, KeyRef};
use super::layers::ValueSource;
use super::load::{LoadedConfig, lookup};

/// One key's merged value (`config get`).
#[derive(Debug, Clone, PartialEq)]
pub struct KeyValue {
    pub key: String,
    /// The value as JSON; `null` for an unset optional key.
    pub value: serde_json::Value,
    pub source: ValueSource,
    toml: Option<toml::Value>,
}

impl KeyValue {
    /// The value as TOML (`0.7`, `"ORCHESTRATION.yaml"`, `["a", "b"]`); empty when unset.
    pub fn toml_text(&self) -> String {
        self.toml.as_ref().map(kinds::render).unwrap_or_default()
    }

    /// Like [`KeyValue::toml_text`] but strings unquoted, for shell use
    /// (`$(ctxmon config get resumption.source_file)`).
    pub fn plain_text(&self) -> String {
        match &self.toml {
            Some(toml::Value::String(s)) => s.clone(),
            _ => self.toml_text(),
        }
    }
}

impl LoadedConfig {
    /// The merged value of a dotted key. Unknown keys are an error that suggests the nearest
    /// known key.
    pub fn get(&self, key: &str) -> Result<KeyValue, ConfigError> {
        let Some(key_ref) = KeyRef::resolve(key) else {
            return Err(ConfigError::unknown_key(key, "command line", false));
        };
        let toml = lookup(&self.config, key);
        if toml.is_none() && matches!(key_ref, KeyRef::ModelEntry(_)) {
            return Err(ConfigError::new(
                ConfigErrorKind::UnknownKey,
                Some(key.to_string()),
                "command line",
                format!(
                    "there is no model rule for this prefix; add one with `ctxmon config set {key} <window>`"
                ),
            ));
        }
        Ok(KeyValue {
            key: key.to_string(),
            value: toml
                .as_ref()
                .and_then(|v| serde_json::to_value(v).ok())
                .unwrap_or(serde_json::Value::Null),
            source: self.source_of(key).cloned().unwrap_or(ValueSource::Default),
            toml,
        })
    }

    /// The merged configuration as TOML. With `annotate`, each line ends with a comment naming
    /// the layer that set it and unset optional keys appear as comments; without, the text
    /// parses back to the same configuration.
    pub fn to_toml(&self, annotate: bool) -> String {
        let mut out = String::new();
        for section in sections() {
            if !out.is_empty() {
                out.push('\n');
            }
            self.write_section(&mut out, section, annotate);
        }
        out
    }

    /// One top-level section (`context_monitor`, `hooks`, …) as TOML, like [`LoadedConfig::to_toml`]
    /// (`config get <section>`); `None` when there is no such section.
    pub fn section_toml(&self, section: &str, annotate: bool) -> Option<String> {
        let section = sections().into_iter().find(|s| *s == section)?;
        let mut out = String::new();
        self.write_section(&mut out, section, annotate);
        Some(out)
    }

    /// One top-level section as JSON for `config get <section> --json`:
    /// `{"key": "<section>", "value": {...}, "sources": {"<key>": {"layer", "from"}}}`.
    pub fn section_json(&self, section: &str) -> Option<serde_json::Value> {
        let section = sections().into_iter().find(|s| *s == section)?;
        let value = serde_json::to_value(&self.config)
            .ok()
            .and_then(|mut v| v.get_mut(section).map(serde_json::Value::take))
            .unwrap_or(serde_json::Value::Null);
        let prefix = format!("{section}.");
        let sources: serde_json::Map<String, serde_json::Value> = self
            .sources
            .iter()
            .filter(|(key, _)| key.starts_with(&prefix))
            .map(|(key, source)| (key.clone(), source_json(source)))
            .collect();
        Some(json!({"key": section, "value": value, "sources": sources}))
    }

    fn write_section(&self, out: &mut String, section: &str, annotate: bool) {
        let _ = writeln!(out, "[{section}]");
        let mut maps = Vec::new();
        for spec in FIELDS
            .iter()
            .filter(|f| f.key.starts_with(&format!("{section}.")))
        {
            let name = &spec.key[section.len() + 1..];
            if matches!(spec.kind, FieldKind::IntegerMap) {
                maps.push(spec.key);
                continue;
            }
            match lookup(&self.config, spec.key) {
                Some(value) => self.line(out, name, &value, spec.key, annotate),
                // A hook's deadline key says what stands in for it.
                None if annotate => match spec.kind {
                    FieldKind::Deadline(Some(hook)) => {
                        let fallback = match self.config.hooks.deadline_ms {
                            Some(ms) => format!("hooks.deadline_ms, {ms}"),
                            None => format!("built in, {}", hook.built_in_ms()),
                        };
                        let _ = writeln!(out, "# {name} is not set ({fallback})");
                    }
                    _ => {
                        let _ = writeln!(out, "# {name} is not set");
                    }
                },
                None => {}
            }
        }
        for map_key in maps {
            let entries = match lookup(&self.config, map_key) {
                Some(toml::Value::Table(entries)) => entries,
                _ => toml::Table::new(),
            };
            // Annotated, the model rules are always shown: with none configured, how the
            // window is chosen is still worth knowing.
            if entries.is_empty() && !annotate {
                continue;
            }
            let _ = writeln!(out, "\n[{map_key}]");
            if entries.is_empty() {
                let _ = writeln!(
                    out,
                    "# no model rules; add one with `ctxmon config set {map_key}.<model id prefix> <window>`"
                );
            }
            for (prefix, value) in &entries {
                let key = format!("{map_key}.{prefix}");
                self.line(out, &toml_key(prefix), value, &key, annotate);
            }
            if annotate && map_key == MODELS_KEY {
                out.push_str(WINDOW_RULES);
            }
        }
    }

    fn line(&self, out: &mut String, name: &str, value: &toml::Value, key: &str, annotate: bool) {
        let _ = write!(out, "{name} = {}", kinds::render(value));
        if annotate {
            match self.source_of(key) {
                None | Some(ValueSource::Default) => out.push_str("  # default"),
                Some(source) => {
                    let _ = write!(out, "  # {source}");
                }
            }
        }
        out.push('\n');
    }

    /// `{"config": {...}, "sources": {"<key>": {"layer": "project", "from": "<path>"}}}` for
    /// `config show --json`.
    pub fn to_json(&self) -> serde_json::Value {
        let sources: serde_json::Map<String, serde_json::Value> = self
            .sources
            .iter()
            .map(|(key, source)| (key.clone(), source_json(source)))
            .collect();
        json!({
            "config": serde_json::to_value(&self.config).unwrap_or(serde_json::Value::Null),
            "sources": sources,
        })
    }
}

const MODELS_KEY: &str = "context_monitor.models";

/// How the window is chosen (`fill/window.rs`), beside the model rules in `config show`.
const WINDOW_RULES: &str = "\
# the window: context_window when set, else the status line's, else 1,000,000 for a model id
# ending in [1m], else the longest model rule above that the model id starts with, else 200,000
# (and 1,000,000 once more tokens than the window are measured)
";

/// The top-level sections, in the key table's order.
fn sections() -> Vec<&'static str> {
    let mut sections: Vec<&'static str> = Vec::new();
    for spec in FIELDS {
        let section = spec.key.split_once('.').map_or(spec.key, |(s, _)| s);
        if !sections.contains(&section) {
            sections.push(section);
        }
    }
    sections
}

/// `{"layer": "project", "from": "<path or variable>"}` (`from` is null for defaults and flags).
fn source_json(source: &ValueSource) -> serde_json::Value {
    let from = match source {
        ValueSource::Default | ValueSource::Flag => serde_json::Value::Null,
        ValueSource::File { path, .. } => json!(path.display().to_string()),
        ValueSource::Env { var } => json!(var),
    };
    json!({"layer": source.layer_name(), "from": from})
}

/// A TOML key, quoted unless it is bare (`claude-opus-4` stays, `gpt-4.1` is quoted).
fn toml_key(key: &str) -> String {
    let bare = !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if bare {
        key.to_string()
    } else {
        kinds::render(&toml::Value::String(key.to_string()))
    }
}

/// `config schema`: the JSON Schema of the whole configuration, pretty-printed.
pub fn schema_text() -> String {
    serde_json::to_string_pretty(&json_schema()).unwrap_or_default()
}
