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
//!
//! Its shape is a template (`ctxmon_domain::status_template`): `--format`, else
//! `statusline.format`, else the default line. A `--format` it cannot use is named on stderr
//! and the line printed as without it: the status line must never break Claude Code's UI.
//! When it shows no figure (`ctx --`), `--json` says why (`reason`, `detail`), and so does
//! `ctxmon doctor`, from the record of the latest troubled run (`FsStatusLineProblems`).

use std::io::Write;
use std::path::Path;
use std::time::Duration;

use ctxmon_application::config::STATUS_LINE_DEADLINE_MS;
use ctxmon_application::monitor::fill::FillSettings;
use ctxmon_application::monitor::pace::turns_left;
use ctxmon_application::monitor::payload_check;
use ctxmon_application::monitor::status_line::{StatusMeasurement, StatusPayload, status_measure};
use ctxmon_application::ports::{Clock, GitInfo, SessionStateStore, TranscriptReader};
use ctxmon_application::run::session_key;
use ctxmon_domain::{
    FillEstimate, FillSource, PayloadCheck, SessionKey, StatusField, StatusTemplate, TokenCount,
};
use ctxmon_infra_fs::{
    FsGitInfo, FsPayloadCheckStore, FsSessionStateStore, FsStatusLineProblems,
    JsonlTranscriptReader, ProjectLayout, StatusLineProblem, SystemClock,
};
use serde_json::{Value, json};

use super::deadline::{self, Outcome, Progress};
use crate::bootstrap;
use crate::cli::{GlobalArgs, RawInvocation, StatuslineArgs};
use crate::diag::diag;
use crate::exit::CmdResult;
use crate::json_out;
use crate::render::{self, LineContext};
use crate::wire::hook_input::read_bounded;
use crate::wire::status_input::StatusInput;

const UNKNOWN: &str = "ctx --";
/// What the line shows while the configuration is invalid (`ctxmon doctor` names the key).
const CONFIG_ERROR: &str = "ctx -- (config error)";

/// Until the configuration is read: Claude Code runs the status line every 300 ms at most and
/// drops a slow one, so it is as short as the prompt's.
const DEFAULT_DEADLINE: Duration = Duration::from_millis(STATUS_LINE_DEADLINE_MS);

/// Why the line shows no figure: a stable code for programs and a sentence for people.
#[derive(Debug, Clone)]
struct NoFigure {
    reason: &'static str,
    detail: String,
}

/// What the status line worked out: the line, and for `--json` what it is made of.
struct Answer {
    line: String,
    estimate: Option<FillEstimate>,
    /// Claude Code's `used_percentage` against ctxmon's figure, when the payload had it.
    check: Option<PayloadCheck>,
    /// Set exactly when the line has no figure.
    no_figure: Option<NoFigure>,
    /// A `--format` that could not be used (the default line was printed instead).
    format_error: Option<String>,
}

impl Answer {
    /// A line without a figure, and why.
    fn blank(line: &str, reason: &'static str, detail: impl Into<String>) -> Answer {
        Answer {
            line: line.to_string(),
            estimate: None,
            check: None,
            no_figure: Some(NoFigure {
                reason,
                detail: detail.into(),
            }),
            format_error: None,
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

    /// `ctxmon --json statusline`: one object; `fill` and `payload_check` null when absent,
    /// `reason` and `detail` null when the line has a figure.
    fn to_json(&self) -> Value {
        let fill = self.estimate.as_ref().map(|e| {
            let mut v = serde_json::to_value(e).unwrap_or(Value::Null);
            if let Some(obj) = v.as_object_mut() {
                obj.insert("percent".into(), e.percent().into());
                // At or past the auto-compact point the room is 0: the line says "compacting
                // soon", and this says so for programs (false when auto-compaction is off).
                let soon = e.tokens_until_auto_compact.is_some_and(|t| t.get() == 0);
                obj.insert("compacting_soon".into(), soon.into());
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
        json!({
            "line": self.line,
            "fill": fill,
            "payload_check": check,
            "reason": self.no_figure.as_ref().map(|n| n.reason),
            "detail": self.no_figure.as_ref().map(|n| n.detail.as_str()),
            "format_error": self.format_error,
        })
    }
}

/// The template `--format` asked for: `Ok(None)` without one; its error, said on stderr, when
/// it cannot be used (the line is printed as without it: `statusline.format`, else the
/// default).
fn flag_template(args: &StatuslineArgs) -> Result<Option<StatusTemplate>, String> {
    let Some(format) = &args.format else {
        return Ok(None);
    };
    StatusTemplate::parse(format).map(Some).map_err(|e| {
        diag!("ctxmon statusline: --format: {e}; printing the line without it");
        format!("--format: {e}")
    })
}

pub fn run(args: &StatuslineArgs, global: &GlobalArgs) -> CmdResult {
    let flag = flag_template(args);
    let json = global.json;
    let outcome = deadline::run(
        DEFAULT_DEADLINE,
        |progress| {
            // As for the hooks: the deadline found without stdin bounds the read of stdin.
            let early = bootstrap::EarlyConfig::load(global);
            if let Some(hooks) = early.hooks() {
                progress.deadline(Duration::from_millis(hooks.status_line_deadline_ms()));
            }
            let answer = match read_bounded(std::io::stdin().lock())
                .ok()
                .and_then(|b| StatusInput::parse(&b))
            {
                Some(input) => answer_with(global, &input, progress, Some(early), &flag),
                None => {
                    let answer = Answer::blank(
                        UNKNOWN,
                        "input",
                        "stdin was not Claude Code's status-line JSON (one JSON object)",
                    );
                    let project_dir = bootstrap::project_dir(global, None);
                    note_for_doctor(&bootstrap::layout_of(&project_dir), None, &answer);
                    answer
                }
            };
            answer.text(global.json)
        },
        // On the watchdog thread: `ctx --` and why, whatever the work is still blocked in
        // (a stdin that never closes), then the process ends.
        move |deadline, _| {
            diag!("ctxmon statusline: deadline of {deadline:?} reached; printing {UNKNOWN}");
            let answer = Answer::blank(
                UNKNOWN,
                "deadline",
                format!("no figure within the status line's deadline of {deadline:?}"),
            );
            print_line(&answer.text(json));
            std::process::exit(0);
        },
    );
    let text = match outcome {
        Outcome::Answer(text) => text,
        Outcome::TimedOut => deadline::wait_for_exit(),
        Outcome::Lost => {
            diag!("ctxmon statusline: internal error (worker stopped)");
            Answer::blank(UNKNOWN, "internal", "internal error (worker stopped)").text(global.json)
        }
    };
    print_line(&text);
    Ok(())
}

/// A command line clap refused (`statusline --fromat …`): said on stderr, then the line as
/// without the flags, exit 0, so a typo in the settings costs the shape, never the line.
pub fn usage_error(error: &clap::Error, raw: &RawInvocation) -> std::process::ExitCode {
    let rendered = error.render().to_string();
    for line in rendered.lines().filter(|l| !l.trim().is_empty()) {
        diag!("ctxmon statusline: {line}");
    }
    let global = GlobalArgs {
        project_dir: raw.project_dir.clone(),
        json: raw.json,
        ..GlobalArgs::default()
    };
    // `run` never fails: whatever happens, a line has been printed.
    let _ = run(&StatuslineArgs::default(), &global);
    std::process::ExitCode::SUCCESS
}

fn print_line(line: &str) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}

/// The line for a parsed input, in-process (the fuzz targets).
#[cfg(test)]
pub(crate) fn render_for(global: &GlobalArgs, input: &StatusInput, progress: &Progress) -> String {
    answer_with(global, input, progress, None, &Ok(None)).line
}

/// The answer for a parsed input, reusing the configuration loaded before stdin when the input
/// names its project; what went wrong, if anything, is kept for doctor.
fn answer_with(
    global: &GlobalArgs,
    input: &StatusInput,
    progress: &Progress,
    early: Option<bootstrap::EarlyConfig>,
    flag: &Result<Option<StatusTemplate>, String>,
) -> Answer {
    let hint = input.project_dir.as_deref().or(input.cwd.as_deref());
    let project_dir = bootstrap::project_dir(global, hint);
    let layout = bootstrap::layout_of(&project_dir);
    let answer = measure(global, input, progress, early, flag, &project_dir, &layout);
    note_for_doctor(&layout, input.session_id.as_deref(), &answer);
    answer
}

fn measure(
    global: &GlobalArgs,
    input: &StatusInput,
    progress: &Progress,
    early: Option<bootstrap::EarlyConfig>,
    flag: &Result<Option<StatusTemplate>, String>,
    project_dir: &Path,
    layout: &ProjectLayout,
) -> Answer {
    // A broken configuration may have set the window or the thresholds: a figure from the
    // defaults could be wrong, so the line says why it shows none (the key on stderr).
    let loaded = match early {
        Some(early) => early.for_project(global, project_dir),
        None => bootstrap::load_config(global, project_dir, &[]),
    };
    let config = match loaded {
        Ok(config) => config,
        Err(e) => {
            let message = format!("{e:#}");
            for line in message.lines() {
                diag!("ctxmon statusline: {line}");
            }
            let first = message.lines().next().unwrap_or_default();
            return Answer::blank(
                CONFIG_ERROR,
                "config",
                format!("the configuration is invalid: {first}"),
            );
        }
    };
    progress.deadline(Duration::from_millis(
        config.hooks.status_line_deadline_ms(),
    ));
    let mut settings = match FillSettings::from_config(&config) {
        Ok(settings) => settings,
        Err(e) => {
            diag!("ctxmon statusline: invalid thresholds: {e}");
            return Answer::blank(CONFIG_ERROR, "config", format!("invalid thresholds: {e}"));
        }
    };
    bootstrap::apply_claude_auto_compact(&mut settings, project_dir, |w| {
        diag!("ctxmon statusline: {w}")
    });
    // Where Claude Code compacts depends on its version (the payload names it) and on where
    // this user's own compactions fired.
    settings = settings.knowing(input.version.as_deref(), input.model_id.as_deref());
    crate::agent::apply_history(
        &mut settings,
        ctxmon_application::ports::AgentKind::ClaudeCode,
        input.transcript_path.as_deref().map(Path::new),
        layout,
        false,
    );
    // The session's state only sharpens the figure right after a compaction; without it the
    // line is still right.
    // Keyed as the hooks key it, so a session without an id finds its transcript's state.
    let transcript = input.transcript_path.as_deref().map(Path::new);
    let key = session_key(input.session_id.as_deref(), transcript);
    let state = key.as_ref().and_then(|key| {
        FsSessionStateStore::new(layout.clone())
            .load(key)
            .ok()
            .flatten()
    });
    let payload = StatusPayload {
        transcript_path: transcript,
        current_usage: input.current_usage.map(TokenCount),
        window: input.window,
        model_id: input.model_id.as_deref(),
    };
    let measured = status_measure(
        &settings,
        &JsonlTranscriptReader::default(),
        state.as_ref(),
        &payload,
    );
    if measured.estimate.source == FillSource::Unavailable {
        return no_figure(&measured, transcript);
    }
    let estimate = measured.estimate;
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
        keep_for_doctor(layout, key, check);
    }
    // The configured template was checked when the configuration was loaded.
    let configured = StatusTemplate::parse(&config.statusline.format).unwrap_or_default();
    let template = match flag {
        Ok(Some(template)) => template,
        Ok(None) | Err(_) => &configured,
    };
    let branch = template
        .uses(StatusField::Branch)
        .then(|| FsGitInfo::new().head(project_dir))
        .flatten()
        .and_then(|head| {
            head.branch
                .or_else(|| head.head.map(|h| h.chars().take(7).collect()))
        });
    // Read back only when the template shows it: most lines never pay for the pace.
    let turns_left = template
        .uses(StatusField::TurnsLeft)
        .then_some(transcript)
        .flatten()
        .and_then(|path| {
            JsonlTranscriptReader::default().recent_context(path, settings.limits.max_scan_bytes, 0)
        })
        .and_then(|recent| {
            turns_left(
                &recent.fills,
                estimate.tokens_until_auto_compact.map(|t| t.get()),
            )
        })
        .map(|t| t.turns);
    let context = LineContext {
        model: input.model_id.as_deref().or(estimate.model.as_deref()),
        branch: branch.as_deref(),
        turns_left,
    };
    let width = bootstrap::env_var("COLUMNS")
        .and_then(|c| c.trim().parse::<usize>().ok())
        .filter(|w| *w > 0)
        .unwrap_or(80);
    // `--json` carries the line for programs: no colour codes in it.
    let color = !global.json && bootstrap::env_var("NO_COLOR").is_none();
    Answer {
        line: render::status_line(&estimate, template, &context, width, color),
        estimate: Some(estimate),
        check,
        no_figure: None,
        format_error: flag.as_ref().err().cloned(),
    }
}

/// `ctx --` and why: the transcript could not be read, there is none, or it has no response
/// yet.
fn no_figure(measured: &StatusMeasurement, transcript: Option<&Path>) -> Answer {
    if let Some(e) = &measured.error {
        diag!("ctxmon statusline: fill not measured: {e}");
    }
    let shown = transcript
        .map(|t| t.display().to_string())
        .unwrap_or_default();
    let (reason, detail) = match (&measured.error, transcript) {
        _ if measured.awaits_first_response => (
            "no-response-yet",
            format!("{shown} has no response yet: the figure comes with the session's first answer"),
        ),
        (Some(e), _) => ("transcript", format!("the transcript cannot be read: {e}")),
        (None, None) => (
            "no-transcript",
            "the status-line JSON has neither a usage figure (context_window.current_usage) nor a transcript_path".to_string(),
        ),
        (None, Some(_)) if measured.hit_scan_limit => (
            "scan-limit",
            format!("no response within context_monitor.max_scan_bytes of the end of {shown}; raise it"),
        ),
        (None, Some(_)) => (
            "no-response-yet",
            format!("{shown} has no response with usage yet"),
        ),
    };
    Answer::blank(UNKNOWN, reason, detail)
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

/// Keeps what went wrong for `ctxmon doctor` (no figure, or a format it could not use), or
/// forgets an earlier problem once a run has none; only inside an existing `.ctxmon`.
fn note_for_doctor(layout: &ProjectLayout, session_id: Option<&str>, answer: &Answer) {
    let store = FsStatusLineProblems::new(layout.clone());
    let problem = match (&answer.no_figure, &answer.format_error) {
        (Some(n), _) => Some((n.reason, n.detail.clone())),
        (None, Some(e)) => Some(("format", e.clone())),
        (None, None) => None,
    };
    let result = match problem {
        Some((reason, detail)) => store.record(&StatusLineProblem {
            schema_version: StatusLineProblem::SCHEMA_VERSION,
            at: SystemClock.now(),
            reason: reason.to_string(),
            detail,
            session_id: session_id.map(str::to_string),
        }),
        None => store.clear(),
    };
    if let Err(e) = result {
        diag!("ctxmon statusline: its problem was not kept for doctor: {e}");
    }
}
