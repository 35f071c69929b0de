//! `ctxmon config show|get|set|unset|path|schema`. Every configuration problem exits 2; a file
//! that `config set` or `config unset` cannot write (read-only folder, full disk) exits 1, as
//! their `--help` says. Unsetting a key no file sets changes nothing and exits 0.

use anyhow::anyhow;
use ctxmon_application::agents::{AgentKind, Hook};
use ctxmon_application::config::TIMEOUT_MARGIN_MS;
use ctxmon_infra_fs::config::{
    ConfigError, ConfigErrorKind, ConfigPaths, EnvVars, Scope as FileScope, UnsetOutcome,
    ValueSource, schema_text, set_value_in, unset_value_in,
};
use serde_json::json;

use crate::bootstrap;
use crate::cli::{ConfigCommand, GlobalArgs, Scope};
use crate::diag::diag;
use crate::exit::{CmdResult, Failure};
use crate::json_out;
use crate::out::{out, outln};

pub fn run(cmd: ConfigCommand, global: &GlobalArgs) -> CmdResult {
    if let ConfigCommand::Schema = cmd {
        // The schema is JSON with or without --json, laid out by the one rule for JSON.
        let schema: serde_json::Value = serde_json::from_str(&schema_text())
            .map_err(|e| Failure::Other(anyhow!("the built-in schema is not JSON: {e}")))?;
        return json_out::print(&schema);
    }
    let project = bootstrap::existing_project(global)?;
    let project_dir = project.path.clone();
    match cmd {
        ConfigCommand::Show => {
            let loaded =
                bootstrap::load_layers(global, &project_dir, &[]).map_err(Failure::usage)?;
            if global.json {
                json_out::print(&loaded.to_json())?;
            } else {
                out!("{}", loaded.to_toml(true))?;
            }
        }
        ConfigCommand::Get { key } => {
            let loaded =
                bootstrap::load_layers(global, &project_dir, &[]).map_err(Failure::usage)?;
            // A section name (`context_monitor`) prints the whole section.
            if global.json
                && let Some(section) = loaded.section_json(&key)
            {
                return json_out::print(&section);
            }
            if !global.json
                && let Some(section) = loaded.section_toml(&key, false)
            {
                out!("{section}")?;
                return Ok(());
            }
            let kv = loaded
                .get(&key)
                .map_err(|e| Failure::usage(anyhow!("{e}")))?;
            if global.json {
                json_out::print(
                    &json!({"key": kv.key, "value": kv.value, "source": kv.source.to_string()}),
                )?;
            } else {
                outln!("{}", kv.plain_text())?;
            }
        }
        ConfigCommand::Set { key, value, scope } => {
            let scope = file_scope(scope);
            let env = EnvVars::from_process();
            let outcome = set_value_in(
                &project.layout(),
                &env,
                global.config.as_deref(),
                scope,
                &key,
                &value,
            )
            .map_err(config_failure)?;
            if global.json {
                let shadowed = outcome.shadowed_by.as_ref().map(ToString::to_string);
                json_out::print(
                    &json!({"key": outcome.key, "value": outcome.value, "path": outcome.path.display().to_string(), "created": outcome.created, "shadowed_by": shadowed}),
                )?;
            } else {
                outln!(
                    "set {} = {} in {}",
                    outcome.key,
                    outcome.value,
                    outcome.path.display()
                )?;
                if let Some(note) = deadline_note(&outcome.key, &outcome.value.to_string()) {
                    diag!("ctxmon: note: {note}");
                }
                if let Some(higher) = &outcome.shadowed_by {
                    diag!(
                        "ctxmon: note: {} is still overridden by {higher}",
                        outcome.key
                    );
                }
            }
        }
        ConfigCommand::Unset { key, scope } => {
            let outcome = unset_value_in(
                &project.layout(),
                &EnvVars::from_process(),
                global.config.as_deref(),
                scope.map(file_scope),
                &key,
            )
            .map_err(config_failure)?;
            report_unset(&outcome, global.json)?;
        }
        ConfigCommand::Path => {
            let paths = ConfigPaths::resolve(
                &project_dir,
                &EnvVars::from_process(),
                global.config.as_deref(),
            );
            let entries = paths.entries();
            if global.json {
                let list: Vec<_> = entries
                    .iter()
                    .map(|e| json!({"layer": e.layer.name(), "path": e.path.as_ref().map(|p| p.display().to_string()), "exists": e.exists}))
                    .collect();
                json_out::print(&serde_json::Value::Array(list))?;
            } else {
                for e in entries {
                    let path = e.path.as_ref().map_or(
                        "(not available: set HOME or XDG_CONFIG_HOME)".to_string(),
                        |p| p.display().to_string(),
                    );
                    let state = if e.exists { "" } else { "  (absent)" };
                    outln!("{:<8} {path}{state}", e.layer.name())?;
                }
            }
        }
        // Answered above: the schema needs no project.
        ConfigCommand::Schema => {}
    }
    Ok(())
}

/// Said when a deadline just set outlasts the timeout `ctxmon install` registers for a hook
/// it applies to: the agent would stop the hook first, unless that timeout was raised in the
/// settings file (which `ctxmon doctor` checks).
fn deadline_note(key: &str, value: &str) -> Option<String> {
    let ms: u64 = value.trim().parse().ok()?;
    let hooks: Vec<Hook> = Hook::ALL
        .into_iter()
        .filter(|h| key == h.key() || key == "hooks.deadline_ms")
        .filter(|h| ms > h.fits_ms())
        .collect();
    if hooks.is_empty() {
        return None;
    }
    let events: Vec<String> = hooks
        .iter()
        .map(|h| {
            let event = AgentKind::ClaudeCode
                .description()
                .event_of(*h)
                .unwrap_or(h.name());
            format!("{event} ({} s timeout)", h.timeout_secs())
        })
        .collect();
    Some(format!(
        "{ms} ms outlasts the timeout `ctxmon install` registers for {}, less \
         {TIMEOUT_MARGIN_MS} ms for the plugin's wrapper and the process start: the agent stops \
         the hook before it answers unless that timeout is raised in the settings file; `ctxmon \
         doctor` checks the timeouts registered",
        events.join(", ")
    ))
}

fn file_scope(scope: Scope) -> FileScope {
    match scope {
        Scope::Project => FileScope::Project,
        Scope::Local => FileScope::Local,
        Scope::User => FileScope::User,
    }
}

fn config_failure(e: ConfigError) -> Failure {
    match e.kind {
        // Not the user's mistake: the disk or the folder refused.
        ConfigErrorKind::Io => Failure::Other(anyhow!("{e}")),
        _ => Failure::usage(anyhow!("{e}")),
    }
}

/// What `config unset` did and what the key's value is now.
fn report_unset(outcome: &UnsetOutcome, json: bool) -> CmdResult {
    if json {
        let from = match &outcome.source {
            ValueSource::File { path, .. } => json!(path.display().to_string()),
            ValueSource::Env { var } => json!(var),
            ValueSource::Default | ValueSource::Flag => serde_json::Value::Null,
        };
        let looked: Vec<String> = outcome
            .looked_in
            .iter()
            .map(|p| p.display().to_string())
            .collect();
        return json_out::print(&json!({
            "key": outcome.key,
            "removed": outcome.removed_from.is_some(),
            "path": outcome.removed_from.as_ref().map(|p| p.display().to_string()),
            "looked_in": looked,
            "value": outcome.value,
            "source": {"layer": outcome.source.layer_name(), "from": from},
        }));
    }
    let now = match &outcome.value {
        serde_json::Value::Null => "not set".to_string(),
        value => format!("{value}, from {}", outcome.source),
    };
    match &outcome.removed_from {
        Some(path) => outln!(
            "unset {} in {}; it is now {now}",
            outcome.key,
            path.display()
        ),
        None => {
            let mut files: Vec<String> = outcome
                .looked_in
                .iter()
                .map(|p| p.display().to_string())
                .collect();
            let last = files.pop().unwrap_or_default();
            let files = match files.is_empty() {
                true => last,
                false => format!("{} or {last}", files.join(", ")),
            };
            outln!(
                "{} is not set in {files}; nothing changed (it is {now})",
                outcome.key
            )
        }
    }
}
