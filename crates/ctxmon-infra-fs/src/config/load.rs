//! Loading: one function builds the whole figment from the layers, extracts the typed
//! [`Config`], validates it, and records which layer set each key.
//!
//! Each layer is merged as its own figment provider whose metadata names it, so figment's
//! `find_metadata` answers "where did this value come from" for sources and error messages.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use ctxmon_application::config::{Config, FIELDS, FieldKind};
use figment::value::{Dict, Map, Value};
use figment::{Figment, Metadata, Profile, Provider};

use super::env::EnvVars;
use super::error::{ConfigError, ConfigErrorKind, Setting};
use super::kinds::{self, MODELS_KEY};
use super::layers::{self, Layer, ValueSource};
use super::paths::{ConfigPaths, FileLayer};

/// The merged configuration and, for each dotted key, the layer that set it.
#[derive(Debug, Clone)]
pub struct LoadedConfig {
    pub config: Config,
    /// Every key of the key table, plus one `context_monitor.models.<prefix>` entry per model
    /// rule. `context_monitor.models` itself is attributed to the highest layer that
    /// contributed an entry (default when there are none).
    pub sources: BTreeMap<String, ValueSource>,
    pub paths: ConfigPaths,
}

impl LoadedConfig {
    pub fn source_of(&self, key: &str) -> Option<&ValueSource> {
        self.sources.get(key)
    }
}

/// Loads the layered configuration: defaults < user < project < local < `explicit_file` <
/// `CTXMON_*` variables from `env` < `flags` (dotted key, raw value). Missing files are skipped,
/// except `explicit_file`, which must exist. Every problem found is reported, not just the first.
pub fn load_config(
    project_dir: &Path,
    env: &EnvVars,
    explicit_file: Option<&Path>,
    flags: &[(String, String)],
) -> Result<LoadedConfig, ConfigError> {
    let paths = ConfigPaths::resolve(project_dir, env, explicit_file);
    let (mut layers, mut errors) = layers::file_layers(&paths, None);
    let (env_layers, env_errors) = layers::env_layers(env);
    let (flag_layers, flag_errors) = layers::flag_layers(flags);
    layers.extend(env_layers.into_iter().chain(flag_layers));
    errors.extend(env_errors.into_iter().chain(flag_errors));
    if let Some(error) = ConfigError::combine(errors) {
        return Err(error);
    }
    if layers.is_empty() {
        return Ok(defaults_only(paths));
    }
    merge(layers, paths)
}

/// What [`merge`] makes of no layer at all, without figment: the built-in defaults, every key
/// from them. Most projects have no configuration file and no `CTXMON_*` variable, and hooks
/// load the configuration on every prompt, where figment's merge and extraction were the
/// largest part of a call's own work. A test holds it equal to `merge`'s answer.
fn defaults_only(paths: ConfigPaths) -> LoadedConfig {
    let mut sources = BTreeMap::new();
    for spec in FIELDS {
        sources.insert(spec.key.to_string(), ValueSource::Default);
    }
    LoadedConfig {
        config: Config::default(),
        sources,
        paths,
    }
}

/// Loads only the persistent layers (defaults and files), with one file's table replaced: the
/// check `config set` runs before it writes.
pub(crate) fn load_files_with(
    paths: &ConfigPaths,
    replace: (FileLayer, &toml::Table),
) -> Result<LoadedConfig, ConfigError> {
    let (layers, errors) = layers::file_layers(paths, Some(replace));
    if let Some(error) = ConfigError::combine(errors) {
        return Err(error);
    }
    merge(layers, paths.clone())
}

/// A layer as a figment provider. Its metadata name is an id we map back to the layer.
struct LayerProvider {
    id: String,
    source: ValueSource,
    dict: Dict,
}

impl Provider for LayerProvider {
    fn metadata(&self) -> Metadata {
        let metadata = Metadata::named(self.id.clone());
        match &self.source {
            ValueSource::File { path, .. } => metadata.source(path.as_path()),
            other => metadata.source(other.to_string()),
        }
    }

    fn data(&self) -> Result<Map<Profile, Dict>, figment::Error> {
        let mut map = Map::new();
        map.insert(Profile::Default, self.dict.clone());
        Ok(map)
    }
}

/// A layer's table as a figment dictionary; the error is a message, since figment's own error
/// type is large and only its text is used.
fn to_dict<T: serde::Serialize>(value: &T) -> Result<Dict, String> {
    Value::serialize(value)
        .map_err(|e| e.to_string())?
        .into_dict()
        .ok_or_else(|| "a configuration layer is not a table".to_string())
}

fn merge(layers: Vec<Layer>, paths: ConfigPaths) -> Result<LoadedConfig, ConfigError> {
    let mut figment = Figment::new();
    let mut by_id: HashMap<String, ValueSource> = HashMap::new();
    let defaults = Layer {
        source: ValueSource::Default,
        table: toml::Table::new(),
    };
    for (i, layer) in std::iter::once(defaults).chain(layers).enumerate() {
        let dict = if layer.source == ValueSource::Default {
            to_dict(&Config::default())
        } else {
            to_dict(&layer.table)
        };
        let dict = dict.map_err(|e| {
            ConfigError::new(
                ConfigErrorKind::InvalidValue,
                None,
                layer.source.to_string(),
                format!("{e}; simplify the value"),
            )
        })?;
        let id = format!("ctxmon layer {i}");
        by_id.insert(id.clone(), layer.source.clone());
        figment = figment.merge(LayerProvider {
            id,
            source: layer.source,
            dict,
        });
    }
    let source_of = |metadata: Option<&Metadata>| {
        metadata
            .and_then(|m| by_id.get(m.name.as_ref()))
            .cloned()
            .unwrap_or(ValueSource::Default)
    };
    let config: Config = figment.extract().map_err(|e| from_figment(e, &source_of))?;
    let sources = collect_sources(&figment, &source_of);
    let loaded = LoadedConfig {
        config,
        sources,
        paths,
    };
    let issues = loaded.config.validate();
    let errors = issues
        .into_iter()
        .map(|issue| {
            let settings: Box<[Setting]> = issue
                .key
                .split(", ")
                .map(|key| Setting {
                    key: key.to_string(),
                    value: value_text(&loaded.config, key),
                    source: loaded
                        .source_of(key)
                        .map_or_else(|| ValueSource::Default.to_string(), ToString::to_string),
                })
                .collect();
            let source = issue
                .key
                .split(", ")
                .filter_map(|k| loaded.source_of(k))
                .max_by_key(|s| s.rank())
                .map_or_else(|| ValueSource::Default.to_string(), ToString::to_string);
            ConfigError {
                kind: ConfigErrorKind::InvalidValue,
                key: Some(issue.key),
                source,
                message: issue.message,
                settings,
                more: Box::default(),
            }
        })
        .collect();
    match ConfigError::combine(errors) {
        Some(error) => Err(error),
        None => Ok(loaded),
    }
}

/// The per-key sources, read from the tags figment keeps on every merged value.
fn collect_sources(
    figment: &Figment,
    source_of: &dyn Fn(Option<&Metadata>) -> ValueSource,
) -> BTreeMap<String, ValueSource> {
    let mut sources = BTreeMap::new();
    for spec in FIELDS {
        if matches!(spec.kind, FieldKind::IntegerMap) {
            let mut highest = ValueSource::Default;
            if let Ok(Value::Dict(_, entries)) = figment.find_value(spec.key) {
                for (prefix, value) in entries {
                    let source = source_of(figment.get_metadata(value.tag()));
                    if source.rank() > highest.rank() {
                        highest = source.clone();
                    }
                    sources.insert(format!("{}.{prefix}", spec.key), source);
                }
            }
            sources.insert(spec.key.to_string(), highest);
        } else {
            sources.insert(
                spec.key.to_string(),
                source_of(figment.find_metadata(spec.key)),
            );
        }
    }
    sources
}

/// Maps figment's extraction errors (a backstop: the layer checks catch unknown keys and bad
/// types first) to ours, naming the key from the error's path and the layer from its metadata.
fn from_figment(
    error: figment::Error,
    source_of: &dyn Fn(Option<&Metadata>) -> ValueSource,
) -> ConfigError {
    let errors = error
        .into_iter()
        .map(|e| {
            let source = source_of(e.metadata.as_ref()).to_string();
            let mut key = e.path.join(".");
            match &e.kind {
                figment::error::Kind::UnknownField(name, _) => {
                    if !key.ends_with(name.as_str()) {
                        key = if key.is_empty() {
                            name.clone()
                        } else {
                            format!("{key}.{name}")
                        };
                    }
                    ConfigError::unknown_key(&key, source, false)
                }
                kind => ConfigError::new(
                    ConfigErrorKind::InvalidValue,
                    (!key.is_empty()).then_some(key),
                    source,
                    kind.to_string(),
                ),
            }
        })
        .collect();
    ConfigError::combine(errors).unwrap_or_else(|| {
        ConfigError::new(
            ConfigErrorKind::InvalidValue,
            None,
            ValueSource::Default.to_string(),
            "the configuration could not be read",
        )
    })
}

/// A key's merged value as TOML; `(not set)` for an unset optional key.
pub(crate) fn value_text(config: &Config, key: &str) -> String {
    lookup(config, key)
        .map(|v| kinds::render(&v))
        .unwrap_or_else(|| "(not set)".into())
}

/// A key's merged value; `None` when unset (or unknown). Model prefixes may contain dots, so
/// `context_monitor.models.<prefix>` is split at the known section, not at every dot.
pub(crate) fn lookup(config: &Config, key: &str) -> Option<toml::Value> {
    let root = toml::Value::try_from(config).ok()?;
    if let Some(prefix) = key
        .strip_prefix(MODELS_KEY)
        .and_then(|rest| rest.strip_prefix('.'))
    {
        return root
            .get("context_monitor")?
            .get("models")?
            .get(prefix)
            .cloned();
    }
    let (section, name) = key.split_once('.')?;
    root.get(section)?.get(name).cloned()
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;

    /// A layer that skipped the per-layer checks, to exercise figment's own errors.
    fn unchecked(text: &str) -> Vec<Layer> {
        vec![Layer {
            source: ValueSource::File {
                layer: FileLayer::Project,
                path: PathBuf::from("/p/.ctxmon/config.toml"),
            },
            table: toml::from_str(text).expect("toml"),
        }]
    }

    fn paths() -> ConfigPaths {
        ConfigPaths::resolve(Path::new("/p"), &EnvVars::new(), None)
    }

    /// The shortcut for no layer answers exactly what the whole merge does: the defaults
    /// (which validate) and every key sourced from them.
    #[test]
    fn no_layer_loads_the_defaults_as_the_merge_would() {
        let merged = merge(Vec::new(), paths()).expect("the defaults are valid");
        let shortcut = defaults_only(paths());
        assert_eq!(shortcut.config, merged.config);
        assert_eq!(shortcut.sources, merged.sources);
        assert_eq!(shortcut.config, Config::default());
        let loaded = load_config(Path::new("/nonexistent/p"), &EnvVars::new(), None, &[]);
        assert_eq!(
            loaded.expect("no file, no variable").sources,
            merged.sources
        );
    }

    #[test]
    fn figment_type_errors_name_key_and_file() {
        let e =
            merge(unchecked("[hooks]\ndeadline_ms = \"x\"\n"), paths()).expect_err("type error");
        assert_eq!(e.kind, ConfigErrorKind::InvalidValue);
        assert_eq!(e.key.as_deref(), Some("hooks.deadline_ms"));
        assert_eq!(e.source, "/p/.ctxmon/config.toml");
    }

    #[test]
    fn figment_unknown_fields_name_the_key() {
        let e = merge(unchecked("[hooks]\nnope = 1\n"), paths()).expect_err("unknown field");
        assert_eq!(e.kind, ConfigErrorKind::UnknownKey);
        assert_eq!(e.key.as_deref(), Some("hooks.nope"));
        assert_eq!(e.source, "/p/.ctxmon/config.toml");
    }
}
