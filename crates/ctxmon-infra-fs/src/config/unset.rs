//! `config unset KEY [--scope …]`: remove one key from the file that sets it, so the next layer
//! down (another file, else the built-in default) applies again.
//!
//! The file is the one `--scope` names, else the highest of the local, project and user files
//! that sets the key (the one in effect among the files `config set` writes). The change is
//! checked like `config set` checks one: the file without the key, layered with the others,
//! must still be a valid configuration (removing `low_threshold` can leave a `warning_threshold`
//! below the default `low_threshold`), else nothing is written. Like `config set`, the file is
//! edited in place (`edit.rs`): the key and the comment lines directly above it go, everything
//! else stays as written. A key no file sets is not an error: the result says so and nothing is
//! written.

use std::path::{Path, PathBuf};

use super::edit::{self, Edited, nothing_written};
use super::env::EnvVars;
use super::error::{ConfigError, ConfigErrorKind};
use super::kinds::KeyRef;
use super::layers::ValueSource;
use super::load::load_config;
use super::paths::{ConfigPaths, Scope};
use crate::layout::ProjectLayout;

/// What `config unset` did.
#[derive(Debug, Clone, PartialEq)]
pub struct UnsetOutcome {
    pub key: String,
    /// The file the key was removed from, or the files looked at when none set it.
    pub removed_from: Option<PathBuf>,
    pub looked_in: Vec<PathBuf>,
    /// The key's merged value now, as JSON (`null` for an optional key no layer sets).
    pub value: serde_json::Value,
    /// Where that value comes from now.
    pub source: ValueSource,
}

/// Removes `key` from the file of `scope`, or from the highest file that sets it.
pub fn unset_value_in(
    layout: &ProjectLayout,
    env: &EnvVars,
    explicit_file: Option<&Path>,
    scope: Option<Scope>,
    key: &str,
) -> Result<UnsetOutcome, ConfigError> {
    let project_dir = layout.project_dir();
    let Some(key_ref) = KeyRef::resolve(key) else {
        return Err(ConfigError::unknown_key(key, "command line", false));
    };
    let paths = ConfigPaths::resolve(project_dir, env, explicit_file);
    let asked = scope;
    let scopes = match scope {
        Some(scope) => vec![scope],
        // The highest first: the file whose value is in effect among the three.
        None => vec![Scope::Local, Scope::Project, Scope::User],
    };
    let mut looked_in = Vec::new();
    let mut found = None;
    for scope in scopes {
        let Some(path) = paths.for_scope(scope) else {
            // Only `user` can have no file; asked for by name, that is worth saying.
            if asked.is_some() {
                return Err(no_user_dir());
            }
            continue;
        };
        looked_in.push(path.to_path_buf());
        let Some(mut file) = Edited::read(path).map_err(nothing_written)? else {
            continue;
        };
        if edit::remove(&mut file.doc, &key_ref) {
            found = Some((scope, path.to_path_buf(), file));
            break;
        }
    }
    let Some((scope, target, file)) = found else {
        let (value, source) = current(project_dir, env, explicit_file, key);
        return Ok(UnsetOutcome {
            key: key.to_string(),
            removed_from: None,
            looked_in,
            value,
            source,
        });
    };

    file.check_and_write(layout, &paths, scope, &target, key)?;
    let (value, source) = current(project_dir, env, explicit_file, key);
    Ok(UnsetOutcome {
        key: key.to_string(),
        removed_from: Some(target),
        looked_in,
        value,
        source,
    })
}

/// The key's merged value and its source after the change (the default when the configuration
/// cannot be loaded: a variable may still be broken, which is not this command's business).
fn current(
    project_dir: &Path,
    env: &EnvVars,
    explicit_file: Option<&Path>,
    key: &str,
) -> (serde_json::Value, ValueSource) {
    match load_config(project_dir, env, explicit_file, &[]) {
        Ok(loaded) => match loaded.get(key) {
            Ok(kv) => (kv.value, kv.source),
            Err(_) => (serde_json::Value::Null, ValueSource::Default),
        },
        Err(_) => (serde_json::Value::Null, ValueSource::Default),
    }
}

fn no_user_dir() -> ConfigError {
    ConfigError::new(
        ConfigErrorKind::Io,
        None,
        "",
        "there is no user configuration directory (HOME and XDG_CONFIG_HOME are unset or \
         relative); set one of them or use --scope project",
    )
}
