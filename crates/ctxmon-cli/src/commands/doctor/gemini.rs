//! Doctor's Gemini CLI checks: ctxmon's registrations in Gemini CLI's `settings.json` files
//! (the project's `.gemini/settings.json` and the user's `~/.gemini/settings.json`), judged by
//! the same `event_check` as the other agents' against the table `ctxmon install --agent
//! gemini` writes. Gemini CLI's timeouts are milliseconds; the deadline check takes seconds,
//! so they are converted here.
//!
//! Gemini CLI is optional: with no sign of it (no `.gemini/` in the project or the home folder)
//! doctor prints no Gemini line; where it is present but ctxmon is not registered for it the one
//! line is `skip`. Once any ctxmon hook is registered for it, each hook it should run gets its
//! own line.

use std::path::Path;

use serde_json::Value;

use super::check::{Check, Status};
use super::hooks::{SettingsScan, collect, event_check};
use super::settings_files::read_text;
use crate::cli::Agent;
use crate::install::table::hooks_for;

/// What doctor found in Gemini CLI's files.
#[derive(Debug, Default)]
pub struct GeminiReport {
    /// ctxmon registers at least one hook in a file Gemini CLI reads.
    pub registered: bool,
    /// The files looked in, as shown to the user.
    pub looked: Vec<String>,
    /// The programs ctxmon's Gemini hooks are run by, as written.
    pub programs: Vec<String>,
    /// ctxmon's Gemini registrations with their timeouts in seconds.
    pub timeouts: Vec<(String, String, String, f64)>,
    problems: Vec<Check>,
    hooks: Vec<Check>,
    seen: bool,
}

impl GeminiReport {
    /// The lines to print; `announced` as for Codex's.
    pub fn into_checks(self, announced: bool) -> Vec<Check> {
        let mut checks = self.problems;
        if self.registered {
            checks.extend(self.hooks);
        } else if self.seen && !announced {
            checks.push(
                Check::new(
                    "gemini hooks",
                    Status::Skip,
                    format!(
                        "ctxmon's hooks are not registered for Gemini CLI (looked in {})",
                        self.looked.join(", ")
                    ),
                )
                .with_fix("if you use Gemini CLI here: `ctxmon install --agent gemini`"),
            );
        }
        checks
    }
}

pub fn checks(project_dir: &Path, env: &[(String, String)]) -> GeminiReport {
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
                serde_json::from_str::<Value>(t.trim_start_matches('\u{feff}'))
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
                .with_fix("make it valid JSON"),
            ),
        }
    }
    let timeouts = scan
        .timeouts()
        .into_iter()
        .map(|(file, event, name, ms)| (file, event, name, ms / 1000.0))
        .collect();
    let mut report = GeminiReport {
        registered: scan.has_registrations(),
        looked: files.iter().map(|(l, _)| l.clone()).collect(),
        programs: scan.programs(),
        timeouts,
        seen: in_use || present || !problems.is_empty(),
        problems,
        hooks: Vec::new(),
    };
    if report.registered {
        for reg in &hooks_for(Agent::Gemini) {
            report
                .hooks
                .push(event_check(&scan, reg, Agent::Gemini, project_dir, env));
        }
    }
    report
}
