//! `ctxmon statusline`: Claude Code's status-line command. Reads the status-line JSON on stdin
//! and prints one line. Like a hook it never fails loudly: unreadable input prints `ctx --`
//! (Claude Code shows whatever is printed, and an empty line would look like a crash), and an
//! invalid configuration prints `ctx -- (config error)` rather than a figure it may get wrong. It runs
//! under its own short deadline (`hooks.deadline_ms` when set, else 1.5 s; never a hook's own,
//! which may be far longer) and prints `ctx --` when that passes.

use std::io::Write;
use std::path::Path;
use std::time::Duration;

use ctxmon_application::config::STATUS_LINE_DEADLINE_MS;
use ctxmon_application::fill::FillSettings;
use ctxmon_application::hooks::session_key;
use ctxmon_application::ports::SessionStateStore;
use ctxmon_application::status_line::{StatusPayload, status_measure};
use ctxmon_domain::{FillSource, TokenCount};
use ctxmon_infra_fs::{FsSessionStateStore, JsonlTranscriptReader, ProjectLayout};

use super::deadline::{self, Outcome, Progress};
use crate::bootstrap;
use crate::cli::GlobalArgs;
use crate::diag::diag;
use crate::exit::CmdResult;
use crate::render;
use crate::wire::hook_input::read_bounded;
use crate::wire::status_input::StatusInput;

const UNKNOWN: &str = "ctx --";
/// What the line shows while the configuration is invalid (`ctxmon doctor` names the key).
const CONFIG_ERROR: &str = "ctx -- (config error)";

/// Until the configuration is read: Claude Code runs the status line every 300 ms at most and
/// drops a slow one, so it is as short as the prompt's.
const DEFAULT_DEADLINE: Duration = Duration::from_millis(STATUS_LINE_DEADLINE_MS);

pub fn run(global: &GlobalArgs) -> CmdResult {
    let worker_global = global.clone();
    let outcome = deadline::run("statusline".into(), DEFAULT_DEADLINE, move |progress| {
        // As for the hooks: the deadline found without stdin bounds the read of stdin.
        let early = bootstrap::EarlyConfig::load(&worker_global);
        if let Some(hooks) = early.hooks() {
            progress.deadline(Duration::from_millis(hooks.status_line_deadline_ms()));
        }
        match read_bounded(std::io::stdin().lock())
            .ok()
            .and_then(|b| StatusInput::parse(&b))
        {
            Some(input) => render_with(&worker_global, &input, progress, Some(early)),
            None => UNKNOWN.to_string(),
        }
    });
    let line = match outcome {
        Outcome::Answer(line) => line,
        Outcome::TimedOut { deadline, .. } => {
            diag!("ctxmon statusline: deadline of {deadline:?} reached; printing {UNKNOWN}");
            print_line(UNKNOWN);
            // The worker may be blocked in a system call (a stdin that never closes); exiting
            // the process ends it.
            std::process::exit(0);
        }
        Outcome::WorkerLost => {
            diag!("ctxmon statusline: internal error (worker stopped)");
            UNKNOWN.to_string()
        }
    };
    print_line(&line);
    Ok(())
}

fn print_line(line: &str) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}

/// The line for a parsed input, in-process (the fuzz targets).
#[cfg(test)]
pub(crate) fn render_for(global: &GlobalArgs, input: &StatusInput, progress: &Progress) -> String {
    render_with(global, input, progress, None)
}

/// The line for a parsed input, reusing the configuration loaded before stdin when the input
/// names its project.
fn render_with(
    global: &GlobalArgs,
    input: &StatusInput,
    progress: &Progress,
    early: Option<bootstrap::EarlyConfig>,
) -> String {
    let hint = input.project_dir.as_deref().or(input.cwd.as_deref());
    let project_dir = bootstrap::project_dir(global, hint);
    // A broken configuration may have set the window or the thresholds: a figure from the
    // defaults could be wrong, so the line says why it shows none (the key on stderr).
    let loaded = match early {
        Some(early) => early.for_project(global, &project_dir),
        None => bootstrap::load_config(global, &project_dir, &[]),
    };
    let config = match loaded {
        Ok(config) => config,
        Err(e) => {
            for line in format!("{e:#}").lines() {
                diag!("ctxmon statusline: {line}");
            }
            return CONFIG_ERROR.to_string();
        }
    };
    progress.deadline(Duration::from_millis(
        config.hooks.status_line_deadline_ms(),
    ));
    let mut settings = match FillSettings::from_config(&config) {
        Ok(settings) => settings,
        Err(e) => {
            diag!("ctxmon statusline: invalid thresholds: {e}");
            return CONFIG_ERROR.to_string();
        }
    };
    bootstrap::apply_claude_auto_compact(&mut settings, &project_dir, |w| {
        diag!("ctxmon statusline: {w}")
    });
    // The session's state only sharpens the figure right after a compaction; without it the
    // line is still right.
    // Keyed as the hooks key it, so a session without an id finds its transcript's state.
    let transcript = input.transcript_path.as_deref().map(Path::new);
    let state = session_key(input.session_id.as_deref(), transcript).and_then(|key| {
        FsSessionStateStore::new(ProjectLayout::new(&project_dir))
            .load(&key)
            .ok()
            .flatten()
    });
    let payload = StatusPayload {
        transcript_path: input.transcript_path.as_deref().map(Path::new),
        current_usage: input.current_usage.map(TokenCount),
        window: input.window,
        model_id: input.model_id.as_deref(),
    };
    let measured = status_measure(
        &settings,
        &JsonlTranscriptReader::new(),
        state.as_ref(),
        &payload,
    );
    let estimate = measured.estimate;
    if estimate.source == FillSource::Unavailable {
        if let Some(e) = measured.error {
            diag!("ctxmon statusline: fill not measured: {e}");
        }
        return UNKNOWN.to_string();
    }
    let width = bootstrap::env_var("COLUMNS")
        .and_then(|c| c.trim().parse::<usize>().ok())
        .filter(|w| *w > 0)
        .unwrap_or(80);
    let color = bootstrap::env_var("NO_COLOR").is_none();
    render::status_line(&estimate, width, color)
}
