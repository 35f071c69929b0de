//! `ctxmon statusline`: Claude Code's status-line command. Reads the status-line JSON on stdin
//! and prints one line. Like a hook it never fails loudly: unreadable input prints `ctx --`
//! (Claude Code shows whatever is printed, and an empty line would look like a crash), and an
//! invalid configuration prints `ctx -- (config error)` rather than a figure it may get wrong. It runs
//! under its own short deadline (`hooks.deadline_ms` when set, else 1.5 s; never a hook's own,
//! which may be far longer) and prints `ctx --` when that passes.
//!
//! When the payload carries Claude Code's own `context_window.used_percentage`, it is compared
//! with ctxmon's figure (`payload_check` in the application): `--json` reports the comparison,
//! and the session's latest one is kept in `.ctxmon/status-line/` for `ctxmon doctor` — only
//! when it changes or is an hour old, and only in a project whose `.ctxmon` exists (the status
//! line never creates it).

use std::io::Write;
use std::path::Path;
use std::time::Duration;

use ctxmon_application::config::STATUS_LINE_DEADLINE_MS;
use ctxmon_application::fill::FillSettings;
use ctxmon_application::hooks::session_key;
use ctxmon_application::payload_check;
use ctxmon_application::ports::{Clock, SessionStateStore};
use ctxmon_application::status_line::{StatusPayload, status_measure};
use ctxmon_domain::{FillEstimate, FillSource, PayloadCheck, SessionKey, TokenCount};
use ctxmon_infra_fs::{
    FsPayloadCheckStore, FsSessionStateStore, JsonlTranscriptReader, ProjectLayout, SystemClock,
};
use serde_json::{Value, json};

use super::deadline::{self, Outcome, Progress};
use crate::bootstrap;
use crate::cli::GlobalArgs;
use crate::diag::diag;
use crate::exit::CmdResult;
use crate::json_out;
use crate::render;
use crate::wire::hook_input::read_bounded;
use crate::wire::status_input::StatusInput;

const UNKNOWN: &str = "ctx --";
/// What the line shows while the configuration is invalid (`ctxmon doctor` names the key).
const CONFIG_ERROR: &str = "ctx -- (config error)";

/// Until the configuration is read: Claude Code runs the status line every 300 ms at most and
/// drops a slow one, so it is as short as the prompt's.
const DEFAULT_DEADLINE: Duration = Duration::from_millis(STATUS_LINE_DEADLINE_MS);

/// What the status line worked out: the line, and for `--json` what it is made of.
struct Answer {
    line: String,
    estimate: Option<FillEstimate>,
    /// Claude Code's `used_percentage` against ctxmon's figure, when the payload had it.
    check: Option<PayloadCheck>,
}

impl Answer {
    fn line(line: &str) -> Answer {
        Answer {
            line: line.to_string(),
            estimate: None,
            check: None,
        }
    }

    /// What stdout gets: the line, or with `--json` one object.
    fn text(&self, json: bool) -> String {
        if json {
            let value = self.to_json();
            json_out::to_text(&value, json_out::Layout::for_stdout())
                .unwrap_or_else(|_| value.to_string())
        } else {
            self.line.clone()
        }
    }

    /// `ctxmon --json statusline`: one object, `fill` and `payload_check` null when absent.
    fn to_json(&self) -> Value {
        let fill = self.estimate.as_ref().map(|e| {
            let mut v = serde_json::to_value(e).unwrap_or(Value::Null);
            if let Some(obj) = v.as_object_mut() {
                obj.insert("percent".into(), e.percent().into());
            }
            v
        });
        let check = self.check.as_ref().map(|c| {
            let mut v = serde_json::to_value(c).unwrap_or(Value::Null);
            if let Some(obj) = v.as_object_mut() {
                // `since` is the stored record's business (when a verdict began), not this run's.
                obj.remove("schema_version");
                obj.remove("since");
                obj.insert("difference_points".into(), c.difference_points().into());
                obj.insert("max_points".into(), PayloadCheck::MAX_POINTS.into());
            }
            v
        });
        json!({"line": self.line, "fill": fill, "payload_check": check})
    }
}

pub fn run(global: &GlobalArgs) -> CmdResult {
    let worker_global = global.clone();
    let outcome = deadline::run("statusline".into(), DEFAULT_DEADLINE, move |progress| {
        // As for the hooks: the deadline found without stdin bounds the read of stdin.
        let early = bootstrap::EarlyConfig::load(&worker_global);
        if let Some(hooks) = early.hooks() {
            progress.deadline(Duration::from_millis(hooks.status_line_deadline_ms()));
        }
        let answer = match read_bounded(std::io::stdin().lock())
            .ok()
            .and_then(|b| StatusInput::parse(&b))
        {
            Some(input) => answer_with(&worker_global, &input, progress, Some(early)),
            None => Answer::line(UNKNOWN),
        };
        answer.text(worker_global.json)
    });
    let text = match outcome {
        Outcome::Answer(text) => text,
        Outcome::TimedOut { deadline, .. } => {
            diag!("ctxmon statusline: deadline of {deadline:?} reached; printing {UNKNOWN}");
            print_line(&Answer::line(UNKNOWN).text(global.json));
            // The worker may be blocked in a system call (a stdin that never closes); exiting
            // the process ends it.
            std::process::exit(0);
        }
        Outcome::WorkerLost => {
            diag!("ctxmon statusline: internal error (worker stopped)");
            Answer::line(UNKNOWN).text(global.json)
        }
    };
    print_line(&text);
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
    answer_with(global, input, progress, None).line
}

/// The answer for a parsed input, reusing the configuration loaded before stdin when the input
/// names its project.
fn answer_with(
    global: &GlobalArgs,
    input: &StatusInput,
    progress: &Progress,
    early: Option<bootstrap::EarlyConfig>,
) -> Answer {
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
            return Answer::line(CONFIG_ERROR);
        }
    };
    progress.deadline(Duration::from_millis(
        config.hooks.status_line_deadline_ms(),
    ));
    let mut settings = match FillSettings::from_config(&config) {
        Ok(settings) => settings,
        Err(e) => {
            diag!("ctxmon statusline: invalid thresholds: {e}");
            return Answer::line(CONFIG_ERROR);
        }
    };
    bootstrap::apply_claude_auto_compact(&mut settings, &project_dir, |w| {
        diag!("ctxmon statusline: {w}")
    });
    // The session's state only sharpens the figure right after a compaction; without it the
    // line is still right.
    // Keyed as the hooks key it, so a session without an id finds its transcript's state.
    let transcript = input.transcript_path.as_deref().map(Path::new);
    let layout = ProjectLayout::new(&project_dir);
    let key = session_key(input.session_id.as_deref(), transcript);
    let state = key.as_ref().and_then(|key| {
        FsSessionStateStore::new(layout.clone())
            .load(key)
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
        return Answer::line(UNKNOWN);
    }
    let check = input.used_percentage.and_then(|used| {
        payload_check::compare(
            used,
            &estimate,
            input.window,
            input.session_id.as_deref(),
            SystemClock.now(),
        )
    });
    if let (Some(check), Some(key)) = (&check, &key) {
        keep_for_doctor(&layout, key, check);
    }
    let width = bootstrap::env_var("COLUMNS")
        .and_then(|c| c.trim().parse::<usize>().ok())
        .filter(|w| *w > 0)
        .unwrap_or(80);
    // `--json` carries the line for programs: no colour codes in it.
    let color = !global.json && bootstrap::env_var("NO_COLOR").is_none();
    Answer {
        line: render::status_line(&estimate, width, color),
        estimate: Some(estimate),
        check,
    }
}

/// Keeps the session's latest payload comparison for `ctxmon doctor`, in a `.ctxmon` the hooks
/// already made (a status line run in any folder must not leave one behind). A failure only
/// costs doctor's report, never the line.
fn keep_for_doctor(layout: &ProjectLayout, key: &SessionKey, check: &PayloadCheck) {
    if !layout.root().is_dir() {
        return;
    }
    let store = FsPayloadCheckStore::new(layout.clone());
    if let Err(e) = payload_check::record(&store, key, check.clone()) {
        diag!("ctxmon statusline: payload comparison not kept for doctor: {e}");
    }
}
