//! Doctor's Gemini CLI checks: ctxmon's registrations in Gemini CLI's `settings.json` files
//! (the project's `.gemini/settings.json` and the user's `~/.gemini/settings.json`), judged by
//! the same `event_check` as the other agents' against the table `ctxmon install --agent
//! gemini` writes, in an `AgentReport` (which also converts Gemini CLI's millisecond timeouts
//! to the seconds the deadline check takes).
//!
//! Gemini CLI is optional: with no sign of it (no `.gemini/` in the project or the home folder)
//! doctor prints no Gemini line; where it is present but ctxmon is not registered for it the one
//! line is `skip`. Once any ctxmon hook is registered for it, each hook it should run gets its
//! own line.

use std::path::Path;

use ctxmon_application::readers::json::comments::blank_comments;
use serde_json::Value;

use super::agent_report::{AgentReport, Found};
use super::check::{Check, Status};
use super::hooks::{SettingsScan, collect};
use super::settings_files::read_text;
use crate::cli::Agent;

pub fn checks(project_dir: &Path, env: &[(String, String)]) -> AgentReport {
    let home = env
        .iter()
        .find(|(k, v)| k == "HOME" && !v.is_empty())
        .map(|(_, v)| Path::new(v).join(".gemini"));
    let mut files = vec![(
        ".gemini/settings.json".to_string(),
        project_dir.join(".gemini/settings.json"),
    )];
    if let Some(home) = &home {
        files.push((
            "~/.gemini/settings.json".to_string(),
            home.join("settings.json"),
        ));
    }
    let in_use = project_dir.join(".gemini").is_dir() || home.as_deref().is_some_and(Path::is_dir);
    let mut scan = SettingsScan::default();
    let mut problems = Vec::new();
    let mut present = false;
    for (label, path) in &files {
        let parsed = read_text(path).and_then(|t| {
            t.map(|t| {
                // Gemini CLI strips comments before it parses its settings.
                serde_json::from_str::<Value>(&blank_comments(t.trim_start_matches('\u{feff}')))
                    .map_err(|e| format!("is not valid JSON ({e})"))
            })
            .transpose()
        });
        match parsed {
            Ok(None) => {}
            Ok(Some(value)) => {
                present = true;
                collect(label, &value, &mut scan);
            }
            Err(why) => problems.push(
                Check::new(
                    format!("gemini {label}"),
                    Status::Fail,
                    format!("{label} {why}; Gemini CLI runs none of the hooks in it"),
                )
                .with_fix("make it valid JSON (comments are allowed)"),
            ),
        }
    }
    let found = Found {
        scan,
        looked: files.iter().map(|(l, _)| l.clone()).collect(),
        seen: in_use || present,
        problems,
    };
    AgentReport::new(Agent::Gemini, found, project_dir, env)
}
