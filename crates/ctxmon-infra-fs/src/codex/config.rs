//! Codex's own `model_auto_compact_token_limit`, read from its `config.toml` layers as Codex
//! ranks them (developers.openai.com/codex/config-basic, "Configuration precedence"), highest
//! first:
//! 1. the active profile's table, `[profiles.<profile>]` (`profile = "…"` at the top level);
//! 2. the project's `.codex/config.toml` — only when the user's config marks the project
//!    trusted (`[projects."<path>"] trust_level = "trusted"`), as Codex loads project layers
//!    for trusted projects only; ctxmon reads the one in the project folder itself, not those
//!    of folders between the repository root and it;
//! 3. the user's `$CODEX_HOME/config.toml` (`~/.codex/config.toml`);
//! 4. the system's `/etc/codex/config.toml`.
//!
//! Command-line `-c` overrides and `--profile` are the Codex process's own and cannot be seen
//! from a hook. Reading is bounded and fails open: regular files only, at most
//! [`MAX_CONFIG_BYTES`] each, and a file or value that cannot be used is a warning, ignored.

use std::path::{Path, PathBuf};

use crate::fsutil;

/// Codex's config files are small; anything larger is not read past this.
const MAX_CONFIG_BYTES: u64 = 1024 * 1024;

/// The key ctxmon reads.
pub const AUTO_COMPACT_KEY: &str = "model_auto_compact_token_limit";

/// What Codex's configuration says about auto-compaction, and what could not be used.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CodexSettings {
    /// `model_auto_compact_token_limit`, when a layer sets it to a positive integer.
    pub auto_compact_token_limit: Option<u64>,
    /// The file (and profile) it came from, for messages.
    pub source: Option<String>,
    pub warnings: Vec<String>,
}

/// Reads the settings that apply to a Codex session in `project_dir`.
pub fn load_codex_settings(codex_home: Option<&Path>, project_dir: &Path) -> CodexSettings {
    let mut out = CodexSettings::default();
    let user_path = codex_home.map(|h| h.join("config.toml"));
    let user = user_path
        .as_deref()
        .and_then(|p| read_table(p, &mut out.warnings));
    let project_path = project_dir.join(".codex").join("config.toml");
    let project = user
        .as_ref()
        .filter(|u| trusted(u, project_dir))
        .and_then(|_| read_table(&project_path, &mut out.warnings));
    let system_path = PathBuf::from("/etc/codex/config.toml");
    let system = read_table(&system_path, &mut out.warnings);
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
    for (source, value) in candidates {
        let Some(value) = value else { continue };
        match value.as_integer().and_then(|n| u64::try_from(n).ok()) {
            Some(n) if n > 0 => {
                out.auto_compact_token_limit = Some(n);
                out.source = Some(source);
                break;
            }
            _ => out.warnings.push(format!(
                "{source}: {AUTO_COMPACT_KEY} = {value} is not a positive token count; ignored"
            )),
        }
    }
    out
}

/// Whether the user's config marks `project_dir` trusted (keys compared canonicalized).
fn trusted(user: &toml::Table, project_dir: &Path) -> bool {
    let Some(projects) = user.get("projects").and_then(toml::Value::as_table) else {
        return false;
    };
    let canonical = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let project = canonical(project_dir);
    projects.iter().any(|(key, entry)| {
        entry.get("trust_level").and_then(toml::Value::as_str) == Some("trusted")
            && canonical(Path::new(key)) == project
    })
}

/// A config file as a TOML table; `None` (with a warning unless it simply does not exist)
/// when it cannot be used.
fn read_table(path: &Path, warnings: &mut Vec<String>) -> Option<toml::Table> {
    // No file (or a path through a file) is the usual case, not a problem worth a warning.
    let absent = [
        std::io::ErrorKind::NotFound,
        std::io::ErrorKind::NotADirectory,
    ];
    let text = fsutil::read_consulted(path, MAX_CONFIG_BYTES, &absent, warnings)?;
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
    use super::*;

    fn write(path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(path, text).expect("write");
    }

    #[test]
    fn user_value_then_trusted_project_then_profile() {
        let home = tempfile::tempdir().expect("tmp");
        let project = tempfile::tempdir().expect("tmp");
        let user = home.path().join("config.toml");
        write(&user, "model_auto_compact_token_limit = 200000\n");
        let s = load_codex_settings(Some(home.path()), project.path());
        assert_eq!(s.auto_compact_token_limit, Some(200_000));
        assert!(s.warnings.is_empty(), "{:?}", s.warnings);

        // A project file counts only once the user trusts the project.
        write(
            &project.path().join(".codex/config.toml"),
            "model_auto_compact_token_limit = 150000\n",
        );
        let s = load_codex_settings(Some(home.path()), project.path());
        assert_eq!(s.auto_compact_token_limit, Some(200_000));
        let key = project.path().display().to_string();
        write(
            &user,
            &format!(
                "model_auto_compact_token_limit = 200000\nprofile = \"tight\"\n[projects.{key:?}]\ntrust_level = \"trusted\"\n"
            ),
        );
        let s = load_codex_settings(Some(home.path()), project.path());
        assert_eq!(s.auto_compact_token_limit, Some(150_000));

        // The active profile beats every file's top level.
        write(
            &user,
            &format!(
                "profile = \"tight\"\n[projects.{key:?}]\ntrust_level = \"trusted\"\n[profiles.tight]\nmodel_auto_compact_token_limit = 100000\n"
            ),
        );
        let s = load_codex_settings(Some(home.path()), project.path());
        assert_eq!(s.auto_compact_token_limit, Some(100_000));
        assert!(s.source.is_some_and(|src| src.contains("[profiles.tight]")));
    }

    #[test]
    fn bad_files_and_values_warn_and_are_ignored() {
        let home = tempfile::tempdir().expect("tmp");
        let project = tempfile::tempdir().expect("tmp");
        write(
            &home.path().join("config.toml"),
            "model_auto_compact_token_limit = \"lots\"\n",
        );
        let s = load_codex_settings(Some(home.path()), project.path());
        assert_eq!(s.auto_compact_token_limit, None);
        assert_eq!(s.warnings.len(), 1, "{:?}", s.warnings);
        write(
            &home.path().join("config.toml"),
            "model_auto_compact_token_limit = [\n",
        );
        let s = load_codex_settings(Some(home.path()), project.path());
        assert_eq!(s.auto_compact_token_limit, None);
        assert!(s.warnings[0].contains("not valid TOML"), "{:?}", s.warnings);
        // No Codex home at all: nothing to read, nothing to say.
        let s = load_codex_settings(None, project.path());
        assert_eq!(s, CodexSettings::default());
    }
}
