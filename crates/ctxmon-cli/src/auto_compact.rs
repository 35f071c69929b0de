//! Claude Code's own auto-compaction settings, read from its env vars and settings files.
//!
//! Precedence follows Claude Code: for a settings key the most specific file wins
//! (`.claude/settings.local.json` > `.claude/settings.json` > the user's settings), and an
//! environment variable beats every file. `../shared/docs/claude-code.md` ("Windows and
//! auto-compaction") names `CLAUDE_CODE_AUTO_COMPACT_WINDOW` beside `/autocompact` (which
//! writes `autoCompactWindow`) without ranking them; we rely on Claude Code's general rule that
//! the environment overrides settings files, as it does for every other `CLAUDE_CODE_*` knob.
//!
//! Reading is bounded and fails open: only regular files (`fsutil::open_regular`, no FIFO
//! hangs), at most [`MAX_SETTINGS_BYTES`] each, parsed as leniently as Claude Code parses them
//! (`json_repair`, `json_depth`), and a broken file or value is a warning and is ignored — the monitor tag is never lost over it. With `DISABLE_AUTO_COMPACT` set no file is
//! read at all: nothing in them could turn auto-compaction back on.

use std::path::{Path, PathBuf};

use ctxmon_application::monitor::fill::{
    AUTO_COMPACT_WINDOW_MAX, AUTO_COMPACT_WINDOW_MIN, AutoCompactSettings,
};
use ctxmon_infra_fs::{fsutil, json_depth, json_repair};
use serde_json::Value;

/// Claude Code's settings files are small; anything larger is not read past this.
const MAX_SETTINGS_BYTES: u64 = 1024 * 1024;

/// The settings and the warnings about values that were ignored.
#[derive(Debug, Default)]
pub struct Loaded {
    pub settings: AutoCompactSettings,
    pub warnings: Vec<String>,
}

/// Reads the auto-compaction settings that apply to `project_dir` under `env`.
pub fn load(project_dir: &Path, env: &[(String, String)]) -> Loaded {
    let var = |name: &str| {
        env.iter()
            .find(|(k, v)| k == name && !v.is_empty())
            .map(|(_, v)| v.trim().to_string())
    };
    let mut out = Loaded::default();
    if var("DISABLE_AUTO_COMPACT").is_some_and(|v| truthy(&v)) {
        out.settings.disabled = true;
        return out;
    }
    // Most specific first: the first file that sets a key decides it.
    let mut window_from_file: Option<u64> = None;
    let mut enabled_from_file: Option<bool> = None;
    for path in settings_paths(project_dir, env) {
        let Some(value) = read_json(&path, &mut out.warnings) else {
            continue;
        };
        if enabled_from_file.is_none() {
            match value.get("autoCompactEnabled") {
                None => {}
                Some(Value::Bool(b)) => enabled_from_file = Some(*b),
                Some(other) => out.warnings.push(format!(
                    "{}: autoCompactEnabled is {other}, not true or false; ignored",
                    path.display()
                )),
            }
        }
        if window_from_file.is_none()
            && let Some(raw) = value.get("autoCompactWindow")
        {
            let text = match raw {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            window_from_file = parse_window(
                &text,
                &format!("{}: autoCompactWindow", path.display()),
                &mut out.warnings,
            );
        }
    }
    if enabled_from_file == Some(false) {
        out.settings.disabled = true;
        return out;
    }
    out.settings.window = match var("CLAUDE_CODE_AUTO_COMPACT_WINDOW") {
        Some(v) => parse_window(&v, "CLAUDE_CODE_AUTO_COMPACT_WINDOW", &mut out.warnings)
            .or(window_from_file),
        None => window_from_file,
    };
    if let Some(v) = var("CLAUDE_AUTOCOMPACT_PCT_OVERRIDE") {
        out.settings.pct_override = match parse_number(&v) {
            Some(p) if (1..=100).contains(&p) => Some(p),
            _ => {
                out.warnings.push(format!(
                    "CLAUDE_AUTOCOMPACT_PCT_OVERRIDE={v} is not a percentage from 1 to 100; ignored"
                ));
                None
            }
        };
    }
    out
}

/// Project-local, project and user settings, most specific first; the user file honours
/// `CLAUDE_CONFIG_DIR` as `doctor` and `install` do.
fn settings_paths(project_dir: &Path, env: &[(String, String)]) -> Vec<PathBuf> {
    let var = |name: &str| {
        env.iter()
            .find(|(k, v)| k == name && !v.is_empty())
            .map(|(_, v)| PathBuf::from(v))
    };
    let mut paths = vec![
        project_dir.join(".claude/settings.local.json"),
        project_dir.join(".claude/settings.json"),
    ];
    if let Some(dir) = var("CLAUDE_CONFIG_DIR") {
        paths.push(dir.join("settings.json"));
    } else if let Some(home) = var("HOME") {
        paths.push(home.join(".claude/settings.json"));
    }
    paths
}

/// A settings file's JSON object; `None` (with a warning unless it simply does not exist) when
/// it cannot be used.
fn read_json(path: &Path, warnings: &mut Vec<String>) -> Option<Value> {
    // No file is the usual case, not a problem worth a warning.
    let absent = [std::io::ErrorKind::NotFound];
    let bytes = fsutil::read_consulted_bytes(path, MAX_SETTINGS_BYTES, &absent, warnings)?;
    let bytes = bytes.strip_prefix("\u{feff}".as_bytes()).unwrap_or(&bytes);
    // As leniently as Claude Code's own JSON.parse reads it: a lone surrogate, a number beyond
    // f64, a byte that is not UTF-8 or deep nesting anywhere in the file must not cost the
    // auto-compact keys beside it.
    match json_repair::from_slice_lenient::<json_depth::Bounded>(bytes).map(|b| b.0) {
        Ok(v @ Value::Object(_)) => Some(v),
        Ok(_) => {
            warnings.push(format!("{} is not a JSON object; ignored", path.display()));
            None
        }
        Err(e) => {
            warnings.push(format!(
                "{} is not valid JSON ({e}); its auto-compact settings are ignored",
                path.display()
            ));
            None
        }
    }
}

fn parse_window(text: &str, what: &str, warnings: &mut Vec<String>) -> Option<u64> {
    match parse_number(text) {
        Some(n) if (AUTO_COMPACT_WINDOW_MIN..=AUTO_COMPACT_WINDOW_MAX).contains(&n) => Some(n),
        _ => {
            warnings.push(format!(
                "{what}={text} is not a token count from {AUTO_COMPACT_WINDOW_MIN} to {AUTO_COMPACT_WINDOW_MAX}; ignored"
            ));
            None
        }
    }
}

fn parse_number(text: &str) -> Option<u64> {
    text.trim().parse::<u64>().ok()
}

/// Claude Code's notion of a set flag: `1`, `true`, `yes`, `on` (any case).
fn truthy(v: &str) -> bool {
    matches!(v.to_ascii_lowercase().as_str(), "1" | "true" | "yes" | "on")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn env_window_beats_files_and_local_beats_project() {
        let dir = tempfile::tempdir().expect("tmp");
        std::fs::create_dir_all(dir.path().join(".claude")).expect("mkdir");
        std::fs::write(
            dir.path().join(".claude/settings.json"),
            r#"{"autoCompactWindow":300000}"#,
        )
        .expect("w");
        std::fs::write(
            dir.path().join(".claude/settings.local.json"),
            r#"{"autoCompactWindow":150000}"#,
        )
        .expect("w");
        let l = load(dir.path(), &env(&[]));
        assert_eq!(l.settings.window, Some(150_000));
        let l = load(
            dir.path(),
            &env(&[("CLAUDE_CODE_AUTO_COMPACT_WINDOW", "120000")]),
        );
        assert_eq!(l.settings.window, Some(120_000));
        assert!(l.warnings.is_empty(), "{:?}", l.warnings);
    }

    #[test]
    fn bad_values_warn_and_are_ignored() {
        let dir = tempfile::tempdir().expect("tmp");
        let l = load(
            dir.path(),
            &env(&[
                ("CLAUDE_AUTOCOMPACT_PCT_OVERRIDE", "0"),
                ("CLAUDE_CODE_AUTO_COMPACT_WINDOW", "lots"),
            ]),
        );
        assert_eq!(l.settings, AutoCompactSettings::default());
        assert_eq!(l.warnings.len(), 2, "{:?}", l.warnings);
    }
}
