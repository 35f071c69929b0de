//! Codex's own `model_auto_compact_token_limit`, read from its `config.toml` layers as Codex
//! ranks them (Codex's configuration guide, "Configuration precedence"), highest first:
//! 1. the active profile's table, `[profiles.<profile>]` (`profile = "…"` at the top level);
//! 2. the project's `.codex/config.toml`, only when the user's config marks the project
//!    trusted (`[projects."<path>"] trust_level = "trusted"`), as Codex loads project layers
//!    for trusted projects only; ctxmon reads the one in the project folder itself, not those
//!    of folders between the repository root and it;
//! 3. the user's `$CODEX_HOME/config.toml` (`~/.codex/config.toml`);
//! 4. the system's `/etc/codex/config.toml`.
//!
//! Command-line `-c` overrides and `--profile` are the Codex process's own and cannot be seen
//! from a hook. A file or value that cannot be used is a warning, ignored.

use std::path::{Path, PathBuf};

use super::{SettingsSource, read_file};

/// The key ctxmon reads.
pub const AUTO_COMPACT_KEY: &str = "model_auto_compact_token_limit";

/// The system-wide layer, below the user's.
pub const SYSTEM_CONFIG: &str = "/etc/codex/config.toml";

/// What Codex's configuration says about auto-compaction, and what could not be used.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CodexSettings {
    /// `model_auto_compact_token_limit`, when a layer sets it to a positive integer.
    pub auto_compact_token_limit: Option<u64>,
    /// The file (and profile) it came from, for messages.
    pub source: Option<String>,
    /// One line per file or value that was ignored.
    pub warnings: Vec<String>,
}

/// `$CODEX_HOME`, else `~/.codex`; `None` without either variable.
pub fn codex_home(env: &[(String, String)]) -> Option<PathBuf> {
    let var = |name: &str| {
        env.iter()
            .find(|(k, v)| k == name && !v.trim().is_empty())
            .map(|(_, v)| PathBuf::from(v))
    };
    var("CODEX_HOME").or_else(|| var("HOME").map(|h| h.join(".codex")))
}

/// Reads the settings that apply to a Codex session in `project_dir` under `env` (where
/// `CODEX_HOME` or `HOME` says the user's config is), the files through `source`.
pub fn read_auto_compact(
    project_dir: &Path,
    env: &[(String, String)],
    source: &mut dyn SettingsSource,
) -> CodexSettings {
    let mut out = CodexSettings::default();
    let user_path = codex_home(env).map(|h| h.join("config.toml"));
    let user = user_path
        .as_deref()
        .and_then(|p| read_table(source, p, &mut out.warnings));
    let project_path = project_dir.join(".codex").join("config.toml");
    let project = user
        .as_ref()
        .filter(|u| trusted(&*source, u, project_dir))
        .and_then(|_| read_table(source, &project_path, &mut out.warnings));
    let system_path = PathBuf::from(SYSTEM_CONFIG);
    let system = read_table(source, &system_path, &mut out.warnings);
    // Highest first.
    let layers: Vec<(&Path, &toml::Table)> = [
        (project_path.as_path(), project.as_ref()),
        (user_path.as_deref().unwrap_or(Path::new("")), user.as_ref()),
        (system_path.as_path(), system.as_ref()),
    ]
    .into_iter()
    .filter_map(|(p, t)| Some((p, t?)))
    .collect();
    let profile = layers
        .iter()
        .find_map(|(_, t)| t.get("profile").and_then(toml::Value::as_str))
        .map(str::to_string);
    let mut candidates: Vec<(String, Option<&toml::Value>)> = Vec::new();
    if let Some(name) = &profile {
        for (path, table) in &layers {
            let value = table
                .get("profiles")
                .and_then(|p| p.get(name.as_str()))
                .and_then(|p| p.get(AUTO_COMPACT_KEY));
            candidates.push((format!("{} [profiles.{name}]", path.display()), value));
        }
    }
    for (path, table) in &layers {
        candidates.push((path.display().to_string(), table.get(AUTO_COMPACT_KEY)));
    }
    for (from, value) in candidates {
        let Some(value) = value else { continue };
        match value.as_integer().and_then(|n| u64::try_from(n).ok()) {
            Some(n) if n > 0 => {
                out.auto_compact_token_limit = Some(n);
                out.source = Some(from);
                break;
            }
            _ => out.warnings.push(format!(
                "{from}: {AUTO_COMPACT_KEY} = {} is not a positive token count; ignored",
                shown(value)
            )),
        }
    }
    out
}

/// A value as the warning shows it, close to how the file spells it.
fn shown(value: &toml::Value) -> String {
    match value {
        toml::Value::String(s) => format!("{s:?}"),
        toml::Value::Integer(n) => n.to_string(),
        toml::Value::Float(f) => f.to_string(),
        toml::Value::Boolean(b) => b.to_string(),
        toml::Value::Datetime(d) => d.to_string(),
        toml::Value::Array(_) => "an array".to_string(),
        toml::Value::Table(_) => "a table".to_string(),
    }
}

/// Whether the user's config marks `project_dir` trusted (folders compared by `source`).
fn trusted(source: &dyn SettingsSource, user: &toml::Table, project_dir: &Path) -> bool {
    let Some(projects) = user.get("projects").and_then(toml::Value::as_table) else {
        return false;
    };
    projects.iter().any(|(key, entry)| {
        entry.get("trust_level").and_then(toml::Value::as_str) == Some("trusted")
            && source.same_folder(Path::new(key), project_dir)
    })
}

/// A config file as a TOML table; `None` (with a warning unless there is no file) when it
/// cannot be used.
fn read_table(
    source: &mut dyn SettingsSource,
    path: &Path,
    warnings: &mut Vec<String>,
) -> Option<toml::Table> {
    let bytes = read_file(source, path, warnings)?;
    let Ok(text) = String::from_utf8(bytes) else {
        warnings.push(format!(
            "{} cannot be read (stream did not contain valid UTF-8); ignored",
            path.display()
        ));
        return None;
    };
    match toml::from_str::<toml::Table>(&text) {
        Ok(table) => Some(table),
        Err(e) => {
            let first = e.to_string();
            let first = first.lines().next().unwrap_or_default().to_string();
            warnings.push(format!(
                "{} is not valid TOML ({first}); its auto-compact setting is ignored",
                path.display()
            ));
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    fn source(
        files: &[(&str, &[u8])],
    ) -> impl FnMut(&Path) -> Result<Option<Vec<u8>>, String> + use<> {
        let files: BTreeMap<PathBuf, Vec<u8>> = files
            .iter()
            .map(|(p, b)| (PathBuf::from(p), b.to_vec()))
            .collect();
        move |path: &Path| Ok(files.get(path).cloned())
    }

    fn home() -> Vec<(String, String)> {
        vec![("CODEX_HOME".to_string(), "/c".to_string())]
    }

    #[test]
    fn codex_home_is_the_variable_else_the_home_folder() {
        let env = |pairs: &[(&str, &str)]| -> Vec<(String, String)> {
            pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect()
        };
        assert_eq!(
            codex_home(&env(&[("CODEX_HOME", "/c"), ("HOME", "/h")])),
            Some(PathBuf::from("/c"))
        );
        assert_eq!(
            codex_home(&env(&[("CODEX_HOME", " "), ("HOME", "/h")])),
            Some(PathBuf::from("/h/.codex"))
        );
        assert_eq!(codex_home(&env(&[])), None);
    }

    #[test]
    fn user_value_then_trusted_project_then_profile() {
        let user = b"model_auto_compact_token_limit = 200000\n";
        let s = read_auto_compact(
            Path::new("/p"),
            &home(),
            &mut source(&[("/c/config.toml", user)]),
        );
        assert_eq!(s.auto_compact_token_limit, Some(200_000));
        assert!(s.warnings.is_empty(), "{:?}", s.warnings);

        // A project file counts only once the user trusts the project.
        let project: &[u8] = b"model_auto_compact_token_limit = 150000\n";
        let files = [
            ("/c/config.toml", &user[..]),
            ("/p/.codex/config.toml", project),
        ];
        let s = read_auto_compact(Path::new("/p"), &home(), &mut source(&files));
        assert_eq!(s.auto_compact_token_limit, Some(200_000));
        let trusting = b"model_auto_compact_token_limit = 200000\nprofile = \"tight\"\n[projects.\"/p\"]\ntrust_level = \"trusted\"\n";
        let files = [
            ("/c/config.toml", &trusting[..]),
            ("/p/.codex/config.toml", project),
        ];
        let s = read_auto_compact(Path::new("/p"), &home(), &mut source(&files));
        assert_eq!(s.auto_compact_token_limit, Some(150_000));

        // The active profile beats every file's top level.
        let profiled = b"profile = \"tight\"\n[projects.\"/p\"]\ntrust_level = \"trusted\"\n[profiles.tight]\nmodel_auto_compact_token_limit = 100000\n";
        let files = [
            ("/c/config.toml", &profiled[..]),
            ("/p/.codex/config.toml", project),
        ];
        let s = read_auto_compact(Path::new("/p"), &home(), &mut source(&files));
        assert_eq!(s.auto_compact_token_limit, Some(100_000));
        assert!(s.source.is_some_and(|src| src.contains("[profiles.tight]")));
    }

    #[test]
    fn bad_files_and_values_warn_and_are_ignored() {
        for (bytes, says) in [
            (
                &b"model_auto_compact_token_limit = \"lots\"\n"[..],
                "not a positive token count",
            ),
            (
                b"model_auto_compact_token_limit = -5\n",
                "not a positive token count",
            ),
            (b"model_auto_compact_token_limit = [\n", "not valid TOML"),
            (
                b"model_auto_compact_token_limit = 5\xff\n",
                "not contain valid UTF-8",
            ),
        ] {
            let mut files = source(&[("/c/config.toml", bytes)]);
            let s = read_auto_compact(Path::new("/p"), &home(), &mut files);
            assert_eq!(s.auto_compact_token_limit, None);
            assert_eq!(s.warnings.len(), 1, "{:?}", s.warnings);
            assert!(s.warnings[0].contains(says), "{:?}", s.warnings);
        }
        let mut unreadable = |_: &Path| Err::<Option<Vec<u8>>, String>("no access".into());
        let s = read_auto_compact(Path::new("/p"), &home(), &mut unreadable);
        assert_eq!(s.warnings, ["no access", "no access"]);
        // No Codex home at all: only the system file is asked for.
        let s = read_auto_compact(Path::new("/p"), &[], &mut source(&[]));
        assert_eq!(s, CodexSettings::default());
    }
}
