//! Claude Code's own auto-compaction settings, read from its environment and settings files.
//!
//! Precedence follows Claude Code: for a settings key the most specific file wins
//! (`.claude/settings.local.json` > `.claude/settings.json` > the user's settings), and an
//! environment variable beats every file. Claude Code's documentation names
//! `CLAUDE_CODE_AUTO_COMPACT_WINDOW` beside `/autocompact` (which writes `autoCompactWindow`)
//! without ranking them; ctxmon relies on Claude Code's general rule that the environment
//! overrides settings files, as it does for every other `CLAUDE_CODE_*` knob.
//!
//! Files are parsed as leniently as Claude Code parses them (`json::repair`, `json::depth`),
//! and a broken file or value is a warning and is ignored: the monitor tag is never lost over
//! it. With `DISABLE_AUTO_COMPACT` set no file is read at all: nothing in them could turn
//! auto-compaction back on.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::{SettingsSource, env_var, read_file};
use crate::monitor::fill::{AUTO_COMPACT_WINDOW_MAX, AUTO_COMPACT_WINDOW_MIN, AutoCompactSettings};
use crate::readers::json::{depth, repair};

/// Claude Code's auto-compaction settings, and the warnings about values that were ignored.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReadAutoCompact {
    /// What the environment and files say, validated.
    pub settings: AutoCompactSettings,
    /// One line per value or file that was ignored.
    pub warnings: Vec<String>,
}

/// The settings files Claude Code reads for a session in `project_dir`, most specific first:
/// the project's local and shared settings, then the user's (`CLAUDE_CONFIG_DIR`, else
/// `~/.claude`).
pub fn settings_files(project_dir: &Path, env: &[(String, String)]) -> Vec<PathBuf> {
    let mut paths = vec![
        project_dir.join(".claude/settings.local.json"),
        project_dir.join(".claude/settings.json"),
    ];
    if let Some(dir) = env_var(env, "CLAUDE_CONFIG_DIR") {
        paths.push(Path::new(dir).join("settings.json"));
    } else if let Some(home) = env_var(env, "HOME") {
        paths.push(Path::new(home).join(".claude/settings.json"));
    }
    paths
}

/// Reads the auto-compaction settings that apply to `project_dir` under `env`, the files
/// through `source` (see the module docs).
pub fn read_auto_compact(
    project_dir: &Path,
    env: &[(String, String)],
    source: &mut dyn SettingsSource,
) -> ReadAutoCompact {
    let var = |name: &str| env_var(env, name).map(|v| v.trim().to_string());
    let mut out = ReadAutoCompact::default();
    if var("DISABLE_AUTO_COMPACT").is_some_and(|v| truthy(&v)) {
        out.settings.disabled = true;
        return out;
    }
    // Most specific first: the first file that sets a key decides it.
    let mut window_from_file: Option<u64> = None;
    let mut enabled_from_file: Option<bool> = None;
    for path in settings_files(project_dir, env) {
        let Some(value) = read_json(source, &path, &mut out.warnings) else {
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

/// A settings file's JSON object; `None` (with a warning unless there is no file) when it
/// cannot be used.
fn read_json(
    source: &mut dyn SettingsSource,
    path: &Path,
    warnings: &mut Vec<String>,
) -> Option<Value> {
    let bytes = read_file(source, path, warnings)?;
    let bytes = bytes.strip_prefix("\u{feff}".as_bytes()).unwrap_or(&bytes);
    // As leniently as Claude Code's own JSON.parse reads it: a lone surrogate, a number beyond
    // f64, a byte that is not UTF-8 or deep nesting anywhere in the file must not cost the
    // auto-compact keys beside it.
    match repair::from_slice_lenient::<depth::Bounded>(bytes).map(|b| b.0) {
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
    use std::collections::BTreeMap;

    use super::*;

    fn env(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    /// Files in memory, and the paths asked for.
    #[derive(Default)]
    struct Files {
        files: BTreeMap<PathBuf, Result<Vec<u8>, String>>,
        asked: Vec<PathBuf>,
    }

    impl SettingsSource for Files {
        fn read(&mut self, path: &Path) -> Result<Option<Vec<u8>>, String> {
            self.asked.push(path.to_path_buf());
            self.files.get(path).cloned().transpose()
        }
    }

    fn files(entries: &[(&str, &str)]) -> Files {
        Files {
            files: entries
                .iter()
                .map(|(p, t)| (PathBuf::from(p), Ok(t.as_bytes().to_vec())))
                .collect(),
            asked: Vec::new(),
        }
    }

    #[test]
    fn env_window_beats_files_and_local_beats_project() {
        let mut source = files(&[
            (
                "/p/.claude/settings.json",
                r#"{"autoCompactWindow":300000}"#,
            ),
            (
                "/p/.claude/settings.local.json",
                r#"{"autoCompactWindow":150000}"#,
            ),
        ]);
        let read = read_auto_compact(Path::new("/p"), &env(&[]), &mut source);
        assert_eq!(read.settings.window, Some(150_000));
        let env = env(&[("CLAUDE_CODE_AUTO_COMPACT_WINDOW", "120000")]);
        let read = read_auto_compact(Path::new("/p"), &env, &mut source);
        assert_eq!(read.settings.window, Some(120_000));
        assert!(read.warnings.is_empty(), "{:?}", read.warnings);
    }

    #[test]
    fn the_user_file_follows_the_config_dir_and_can_turn_compaction_off() {
        let mut source = files(&[("/cfg/settings.json", r#"{"autoCompactEnabled":false}"#)]);
        let env = env(&[("CLAUDE_CONFIG_DIR", "/cfg"), ("HOME", "/h")]);
        let read = read_auto_compact(Path::new("/p"), &env, &mut source);
        assert!(read.settings.disabled);
        assert_eq!(
            source.asked.last(),
            Some(&PathBuf::from("/cfg/settings.json"))
        );
    }

    #[test]
    fn disabled_by_the_environment_reads_no_file() {
        let mut source = files(&[]);
        let env = env(&[("DISABLE_AUTO_COMPACT", "Yes")]);
        let read = read_auto_compact(Path::new("/p"), &env, &mut source);
        assert!(read.settings.disabled);
        assert!(source.asked.is_empty());
    }

    #[test]
    fn bad_values_and_files_warn_and_are_ignored() {
        let read = read_auto_compact(
            Path::new("/p"),
            &env(&[
                ("CLAUDE_AUTOCOMPACT_PCT_OVERRIDE", "0"),
                ("CLAUDE_CODE_AUTO_COMPACT_WINDOW", "lots"),
            ]),
            &mut files(&[]),
        );
        assert_eq!(read.settings, AutoCompactSettings::default());
        assert_eq!(read.warnings.len(), 2, "{:?}", read.warnings);

        let mut source = files(&[
            ("/p/.claude/settings.local.json", "[1, 2]"),
            (
                "/p/.claude/settings.json",
                "{\"autoCompactEnabled\": \"no\", oops",
            ),
            (
                "/h/.claude/settings.json",
                "\u{feff}{\"autoCompactWindow\": \"\u{fffd}\"}",
            ),
        ]);
        source.files.insert(
            PathBuf::from("/p/.claude/settings.json"),
            Err("/p/.claude/settings.json cannot be read (denied); ignored".into()),
        );
        let read = read_auto_compact(Path::new("/p"), &env(&[("HOME", "/h")]), &mut source);
        assert_eq!(read.settings, AutoCompactSettings::default());
        assert_eq!(read.warnings.len(), 3, "{:?}", read.warnings);
        assert!(
            read.warnings[0].contains("not a JSON object"),
            "{:?}",
            read.warnings
        );
        assert!(read.warnings[1].contains("denied"), "{:?}", read.warnings);
        assert!(
            read.warnings[2].contains("autoCompactWindow"),
            "{:?}",
            read.warnings
        );
    }

    #[test]
    fn bytes_that_are_not_utf8_or_nested_deep_cost_only_their_own_value() {
        let deep = format!("{}{}", "[".repeat(300), "]".repeat(300));
        let text = format!("{{\"x\":{deep},\"bad\":\"\u{fffd}\",\"autoCompactWindow\":180000}}");
        let mut bytes = text.into_bytes();
        // A byte that is not UTF-8 where the replacement character stood.
        let at = bytes
            .windows(3)
            .position(|w| w == "\u{fffd}".as_bytes())
            .unwrap();
        bytes.splice(at..at + 3, [0xff]);
        let mut source = Files::default();
        source
            .files
            .insert(PathBuf::from("/p/.claude/settings.json"), Ok(bytes));
        let read = read_auto_compact(Path::new("/p"), &env(&[]), &mut source);
        assert_eq!(read.settings.window, Some(180_000), "{:?}", read.warnings);
    }
}
