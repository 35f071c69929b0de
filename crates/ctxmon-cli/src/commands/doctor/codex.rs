//! Doctor's Codex checks: ctxmon's registrations in Codex's hook files, judged by the same
//! `event_check` as Claude Code's (registered, missing, stale command path), against the
//! table `ctxmon install --agent codex` writes.
//!
//! Codex reads hooks from `hooks.json` and from `[hooks]` tables in `config.toml`, in its user
//! folder (`$CODEX_HOME`, default `~/.codex`) and in the project's `.codex/`, and runs every
//! one it finds: a ctxmon hook in two of them runs twice (openai/codex codex-rs at 0082977,
//! `hooks/src/engine/discovery.rs` loads both files of a layer and only warns; its dispatcher
//! keeps duplicate handlers). All four are read.
//!
//! Codex is optional: with no sign of it (no `.codex/` in the project, no Codex folder, no
//! `CODEX_HOME`) doctor prints no Codex line, and where Codex is present but ctxmon is not
//! registered for it the one line is `skip`, not a problem (and none at all when ctxmon is
//! registered for no agent: the `hooks` line says so for both). Once any ctxmon hook is registered
//! for Codex, each hook Codex should run gets its own line, as Claude Code's do. Whether the
//! user trusted the hooks in Codex's `/hooks` is Codex's record (a hash of each definition in
//! its `config.toml`), which doctor does not reproduce; the fixes say where to look.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::agent_report::{AgentReport, Found};
use super::check::{Check, Status};
use super::hooks::{SettingsScan, collect};
use super::settings_files::read_text;
use crate::cli::Agent;

/// One of Codex's files that can register hooks.
#[derive(Debug, Clone)]
struct CodexFile {
    label: String,
    path: PathBuf,
    toml: bool,
}

/// Codex's four hook files for this project and user, and whether Codex shows signs of use.
fn codex_files(project_dir: &Path, env: &[(String, String)]) -> (Vec<CodexFile>, bool) {
    let var = |name: &str| {
        env.iter()
            .find(|(k, v)| k == name && !v.is_empty())
            .map(|(_, v)| PathBuf::from(v))
    };
    let project = project_dir.join(".codex");
    let (home, home_label) = match var("CODEX_HOME") {
        Some(dir) => (Some(dir.clone()), dir.display().to_string()),
        None => (
            var("HOME").map(|h| h.join(".codex")),
            "~/.codex".to_string(),
        ),
    };
    let mut files = Vec::new();
    let mut add = |dir: &Path, label: &str| {
        for (name, toml) in [("hooks.json", false), ("config.toml", true)] {
            files.push(CodexFile {
                label: format!("{label}/{name}"),
                path: dir.join(name),
                toml,
            });
        }
    };
    add(&project, ".codex");
    if let Some(home) = &home {
        add(home, &home_label);
    }
    let in_use = project.is_dir()
        || var("CODEX_HOME").is_some()
        || home.as_deref().is_some_and(Path::is_dir);
    (files, in_use)
}

/// `text` of `file` as the JSON value Codex would read hooks from.
fn parse(file: &CodexFile, text: &str) -> Result<Value, String> {
    if file.toml {
        let table: toml::Table = text.parse().map_err(|e: toml::de::Error| {
            // A check is one line; the parser's message can take several.
            let message: Vec<&str> = e.message().lines().collect();
            format!("is not valid TOML ({})", message.join("; "))
        })?;
        return serde_json::to_value(table).map_err(|e| format!("cannot be read ({e})"));
    }
    if text.starts_with('\u{feff}') {
        // Codex parses hooks.json with serde_json, which refuses the mark.
        return Err("starts with a UTF-8 byte-order mark, which Codex cannot read".into());
    }
    serde_json::from_str(text).map_err(|e| format!("is not valid JSON ({e})"))
}

pub fn checks(project_dir: &Path, env: &[(String, String)]) -> AgentReport {
    let (files, in_use) = codex_files(project_dir, env);
    let mut scan = SettingsScan::default();
    let mut problems = Vec::new();
    let mut present = Vec::new();
    for file in &files {
        let value = match read_text(&file.path).and_then(|t| t.map(|t| parse(file, &t)).transpose())
        {
            Ok(None) => continue,
            Ok(Some(value)) => value,
            Err(why) => {
                // Codex skips a hooks.json it cannot parse (with a warning) and runs none of its
                // hooks; a config.toml it cannot parse stops Codex itself, and doctor merely
                // could not look inside.
                let (status, consequence, fix) = if file.toml {
                    (
                        Status::Warn,
                        "doctor could not look for ctxmon's hooks in it",
                        "fix the TOML syntax (Codex refuses to start with it)",
                    )
                } else {
                    (
                        Status::Fail,
                        "Codex runs none of the hooks in it",
                        "make it strict JSON in UTF-8 without a byte-order mark",
                    )
                };
                problems.push(
                    Check::new(
                        format!("codex {}", file.label),
                        status,
                        format!("{} {why}; {consequence}", file.label),
                    )
                    .with_fix(fix),
                );
                continue;
            }
        };
        present.push(file.label.clone());
        // A config.toml registers hooks under its `hooks` key, a hooks.json too: `collect`
        // reads either.
        collect(&file.label, &value, &mut scan);
    }
    let looked = files
        .iter()
        .filter(|f| !f.toml)
        .map(|f| f.label.clone())
        .collect();
    let found = Found {
        scan,
        looked,
        seen: in_use || !present.is_empty(),
        problems,
    };
    AgentReport::new(Agent::Codex, found, project_dir, env)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(toml: bool) -> CodexFile {
        CodexFile {
            label: "f".into(),
            path: PathBuf::from("f"),
            toml,
        }
    }

    #[test]
    fn config_toml_hooks_read_like_hooks_json() {
        let toml = r#"
model = "gpt-5.3-codex"

[[hooks.UserPromptSubmit]]
[[hooks.UserPromptSubmit.hooks]]
type = "command"
command = "/opt/bin/ctxmon hooks prompt-submit"
timeout = 5

[hooks.state."/home/u/.codex/hooks.json:user_prompt_submit:0:0"]
trusted_hash = "sha256:abc"
"#;
        let value = parse(&file(true), toml).unwrap_or_default();
        let mut scan = SettingsScan::default();
        collect("config.toml", &value, &mut scan);
        assert!(scan.has_registrations());
        assert!(parse(&file(true), "[hooks").is_err());
    }

    #[test]
    fn a_byte_order_mark_is_what_codex_cannot_read() {
        let why = parse(&file(false), "\u{feff}{}").unwrap_err();
        assert!(why.contains("byte-order mark"), "{why}");
        assert!(parse(&file(false), "{\"hooks\": {}}").is_ok());
    }
}
