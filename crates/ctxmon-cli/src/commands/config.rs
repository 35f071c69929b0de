//! `ctxmon config show|get|set|path|schema`. Every configuration problem exits 2; a file that
//! `config set` cannot write (read-only folder, full disk) exits 1, as its `--help` says.

use anyhow::anyhow;
use ctxmon_infra_fs::config::{
    ConfigErrorKind, ConfigPaths, EnvVars, Scope as FileScope, schema_text, set_value_in,
};
use serde_json::json;

use crate::bootstrap;
use crate::cli::{ConfigCommand, GlobalArgs, Scope};
use crate::commands::output::pretty;
use crate::diag::diag;
use crate::exit::{CmdResult, Failure};

pub fn run(cmd: ConfigCommand, global: &GlobalArgs) -> CmdResult {
    if let ConfigCommand::Schema = cmd {
        println!("{}", schema_text());
        return Ok(());
    }
    let project = bootstrap::existing_project(global)?;
    let project_dir = project.path.clone();
    match cmd {
        ConfigCommand::Show => {
            let loaded =
                bootstrap::load_layers(global, &project_dir, &[]).map_err(Failure::usage)?;
            if global.json {
                println!("{}", pretty(&loaded.to_json()));
            } else {
                print!("{}", loaded.to_toml(true));
            }
        }
        ConfigCommand::Get { key } => {
            let loaded =
                bootstrap::load_layers(global, &project_dir, &[]).map_err(Failure::usage)?;
            // A section name (`context_monitor`) prints the whole section.
            if global.json
                && let Some(section) = loaded.section_json(&key)
            {
                println!("{}", pretty(&section));
                return Ok(());
            }
            if !global.json
                && let Some(section) = loaded.section_toml(&key, false)
            {
                print!("{section}");
                return Ok(());
            }
            let kv = loaded
                .get(&key)
                .map_err(|e| Failure::usage(anyhow!("{e}")))?;
            if global.json {
                println!(
                    "{}",
                    json!({"key": kv.key, "value": kv.value, "source": kv.source.to_string()})
                );
            } else {
                println!("{}", kv.plain_text());
            }
        }
        ConfigCommand::Set { key, value, scope } => {
            let scope = match scope {
                Scope::Project => FileScope::Project,
                Scope::Local => FileScope::Local,
                Scope::User => FileScope::User,
            };
            let env = EnvVars::from_process();
            let outcome = set_value_in(
                &project.layout(),
                &env,
                global.config.as_deref(),
                scope,
                &key,
                &value,
            )
            .map_err(|e| match e.kind {
                // Not the user's mistake: the disk or the folder refused.
                ConfigErrorKind::Io => Failure::Other(anyhow!("{e}")),
                _ => Failure::usage(anyhow!("{e}")),
            })?;
            if global.json {
                let shadowed = outcome.shadowed_by.as_ref().map(ToString::to_string);
                println!(
                    "{}",
                    json!({"key": outcome.key, "value": outcome.value, "path": outcome.path.display().to_string(), "created": outcome.created, "shadowed_by": shadowed})
                );
            } else {
                println!(
                    "set {} = {} in {}",
                    outcome.key,
                    outcome.value,
                    outcome.path.display()
                );
                if let Some(higher) = &outcome.shadowed_by {
                    diag!(
                        "ctxmon: note: {} is still overridden by {higher}",
                        outcome.key
                    );
                }
            }
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
                println!("{}", pretty(&serde_json::Value::Array(list)));
            } else {
                for e in entries {
                    let path = e.path.as_ref().map_or(
                        "(not available: set HOME or XDG_CONFIG_HOME)".to_string(),
                        |p| p.display().to_string(),
                    );
                    let state = if e.exists { "" } else { "  (absent)" };
                    println!("{:<8} {path}{state}", e.layer.name());
                }
            }
        }
        // Answered above: the schema needs no project.
        ConfigCommand::Schema => {}
    }
    Ok(())
}
