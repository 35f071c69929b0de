//! `config set KEY VALUE --scope …`: edit one file, but only if the result is valid.
//!
//! Order matters: parse the value by its key's type, read and parse the target file, apply the
//! change to it in place (`edit.rs`: the file's comments, order and layout stay), re-load every
//! file layer with the changed file, and only then write it, atomically and privately. A refused
//! change leaves the file exactly as it was.

use crate::layout::ProjectLayout;
use std::path::{Path, PathBuf};

use super::edit::{self, Edited, SET_SOURCE, nothing_written};
use super::env::EnvVars;
use super::error::{ConfigError, ConfigErrorKind, Setting};
use super::kinds::{self, KeyRef, Parsed};
use super::layers::ValueSource;
use super::load::load_config;
use super::paths::{ConfigPaths, Scope};

/// What `config set` did.
#[derive(Debug, Clone, PartialEq)]
pub struct SetOutcome {
    /// The file written.
    pub path: PathBuf,
    pub key: String,
    /// The value written, as JSON; `null` when the key was removed (`none` for an optional key).
    pub value: serde_json::Value,
    /// Whether the file was created.
    pub created: bool,
    /// A higher layer (file, variable) that still overrides the key, so the change has no effect
    /// yet; worth telling the user.
    pub shadowed_by: Option<ValueSource>,
}

/// Sets `key` to `raw` in the file of `scope`. The value is typed by the key (`true`, `0.72`,
/// `a,b` or `["a", "b"]`, `{ opus = 1000000 }`); `none` (or empty) removes an optional key.
///
/// The change is checked against the files it will be layered with (defaults, user, project,
/// local and `explicit_file`), not against `CTXMON_*` variables or flags: files persist, and a
/// variable in today's shell should neither block nor excuse an invalid file.
pub fn set_value(
    project_dir: &Path,
    env: &EnvVars,
    explicit_file: Option<&Path>,
    scope: Scope,
    key: &str,
    raw: &str,
) -> Result<SetOutcome, ConfigError> {
    let layout = ProjectLayout::new(project_dir);
    set_value_in(&layout, env, explicit_file, scope, key, raw)
}

/// `raw` as the value it reads as, for a message: `0` and `0.9` are numbers and `true` a
/// boolean, so they are shown as such, not quoted like the string `"high"`.
fn as_typed(raw: &str) -> toml::Value {
    let raw = raw.trim();
    if let Ok(n) = raw.parse::<i64>() {
        toml::Value::Integer(n)
    } else if let Some(x) = raw.parse::<f64>().ok().filter(|x| x.is_finite()) {
        toml::Value::Float(x)
    } else if let Ok(b) = raw.parse::<bool>() {
        toml::Value::Boolean(b)
    } else {
        toml::Value::String(raw.to_string())
    }
}

/// [`set_value`] in a given layout: the project and local files are written in its `.ctxmon`,
/// which [`ProjectLayout::ensure_dir`] creates (with its `.gitignore`) or checks, and never
/// through a symbolic link; only the user's own file is written through one.
pub fn set_value_in(
    layout: &ProjectLayout,
    env: &EnvVars,
    explicit_file: Option<&Path>,
    scope: Scope,
    key: &str,
    raw: &str,
) -> Result<SetOutcome, ConfigError> {
    let project_dir = layout.project_dir();
    let Some(key_ref) = KeyRef::resolve(key) else {
        return Err(ConfigError::unknown_key(key, SET_SOURCE, false));
    };
    let parsed = kinds::parse(&key_ref, raw).map_err(|message| {
        let setting = Setting {
            key: key.to_string(),
            value: kinds::render(&as_typed(raw)),
            source: SET_SOURCE.into(),
        };
        ConfigError::invalid(setting, message)
    })?;
    let value = match parsed {
        Parsed::Set(v) => Some(v),
        Parsed::Unset => None,
    };

    let paths = ConfigPaths::resolve(project_dir, env, explicit_file);
    let Some(target) = paths.for_scope(scope).map(Path::to_path_buf) else {
        return Err(ConfigError::new(
            ConfigErrorKind::Io,
            None,
            "",
            "there is no user configuration directory (HOME and XDG_CONFIG_HOME are unset or \
             relative); set one of them or use --scope project",
        ));
    };
    let existing = Edited::read(&target).map_err(nothing_written)?;
    let created = existing.is_none();
    let mut file = existing.unwrap_or_else(Edited::new);
    let edited = match &value {
        Some(value) => {
            edit::to_edit_value(value).and_then(|v| edit::set(&mut file.doc, &key_ref, v))
        }
        None => {
            edit::remove(&mut file.doc, &key_ref);
            Ok(())
        }
    };
    edited.map_err(|message| {
        ConfigError::new(
            ConfigErrorKind::InvalidValue,
            Some(key.to_string()),
            target.display().to_string(),
            format!("{message}; nothing was written"),
        )
    })?;
    file.check_and_write(layout, &paths, scope, &target, key)?;

    let shadowed_by = match value {
        None => None,
        Some(_) => load_config(project_dir, env, explicit_file, &[])
            .ok()
            .and_then(|loaded| loaded.source_of(key).cloned())
            .filter(|source| {
                !matches!(source, ValueSource::File { layer, .. } if *layer == scope.layer())
            }),
    };
    Ok(SetOutcome {
        path: target,
        key: key.to_string(),
        value: value
            .as_ref()
            .and_then(|v| serde_json::to_value(v).ok())
            .unwrap_or(serde_json::Value::Null),
        created,
        shadowed_by,
    })
}
