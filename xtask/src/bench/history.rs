//! A project with history: what a project that ctxmon has served for a while holds besides the
//! session being measured — other sessions' checkpoints, some handed back and some never
//! (a session that ended without a prompt after its compaction), and their state files. A
//! per-call hook must not pay for any of it: it reads its own session's files only.
//!
//! The history is made by ctxmon itself (its own hooks, run in the case's project before the
//! first measured round), so it has the layout and indexes ctxmon really writes.

use std::io::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};

use anyhow::{Context, Result, bail};
use serde_json::json;

use super::cases::SetupRun;
use super::measure::Sandbox;

/// Other sessions with a checkpoint each; the first half are handed back (acknowledged), the
/// rest never are. The attack on the per-session lookup used up to 200 unacknowledged ones.
pub const OTHER_SESSIONS: usize = 400;

/// What names a row measured in such a project.
pub const LABEL: &str = "project with history";

/// The runs that make the history: a PreCompact for each other session (on `transcript`, a
/// small one, so the setup stays quick), then a prompt for the first half, which hands their
/// checkpoints back.
pub fn runs(transcript: &Path) -> Vec<SetupRun> {
    let session = |i: usize| format!("other-{i:04}");
    let mut runs: Vec<SetupRun> = (0..OTHER_SESSIONS)
        .map(|i| SetupRun {
            args: vec!["hooks".into(), "pre-compact".into()],
            stdin: json!({"session_id": session(i), "transcript_path": transcript,
                "hook_event_name": "PreCompact", "trigger": "auto", "custom_instructions": null})
            .to_string(),
        })
        .collect();
    runs.extend((0..OTHER_SESSIONS / 2).map(|i| {
        SetupRun {
            args: vec!["hooks".into(), "prompt-submit".into()],
            stdin: json!({"session_id": session(i), "transcript_path": transcript,
            "hook_event_name": "UserPromptSubmit", "prompt": "go on"})
            .to_string(),
        }
    }));
    runs
}

/// Runs `setup` with `program` in the sandbox's project, as the measured runs are run (a clean
/// environment with the sandbox's home); each must exit 0.
pub fn make(sandbox: &Sandbox, program: &Path, setup: &[SetupRun]) -> Result<()> {
    for run in setup {
        let mut command = Command::new(program);
        command
            .args(&run.args)
            .env_clear()
            .env("HOME", &sandbox.home)
            .env("CLAUDE_PROJECT_DIR", &sandbox.project)
            .current_dir(&sandbox.project)
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        if let Some(path) = std::env::var_os("PATH") {
            command.env("PATH", path);
        }
        let mut child = command
            .spawn()
            .with_context(|| format!("starting {}", program.display()))?;
        if let Some(mut stdin) = child.stdin.take() {
            stdin
                .write_all(run.stdin.as_bytes())
                .context("writing a setup run's stdin")?;
        }
        let output = child
            .wait_with_output()
            .context("waiting for a setup run")?;
        if !output.status.success() {
            bail!(
                "`{} {}` exited {} in the setup: {}",
                program.display(),
                run.args.join(" "),
                output.status,
                String::from_utf8_lossy(&output.stderr).trim_end()
            );
        }
    }
    Ok(())
}
