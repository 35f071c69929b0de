//! `ctxmon status`: measure a transcript and report it for people or (`--json`) programs.

use std::io::IsTerminal;

use anyhow::anyhow;
use ctxmon_application::monitor::fill::{ContextFillEstimator, EstimateRequest};
use ctxmon_application::ports::PathOrigin;
use ctxmon_domain::FillSource;
use ctxmon_infra_fs::transcript::{
    JsonlTranscriptReader, input_in_place_of_transcript, opens_as_json_lines,
};

use crate::bootstrap;
use crate::cli::{GlobalArgs, StatusArgs};
use crate::commands::transcript_target::{self, Pick, TranscriptTarget};
use crate::exit::{CmdResult, Failure};
use crate::json_out;
use crate::out::{out, outln};
use crate::render;

/// The note of a session measured before its first answer.
const NO_RESPONSE_YET: &str = "no response yet: the figure starts with the session's first answer";

pub fn run(args: &StatusArgs, global: &GlobalArgs) -> CmdResult {
    let TranscriptTarget {
        transcript,
        agent: served,
        settings,
    } = transcript_target::resolve(
        "status",
        global,
        args.window,
        args.transcript.as_deref(),
        Pick::Newest,
    )?;
    let reader = JsonlTranscriptReader::default();
    let estimator = ContextFillEstimator::new(&reader, &settings);
    let request = EstimateRequest {
        transcript_path: Some(&transcript),
        model_hint: args.model.as_deref(),
        ..Default::default()
    };
    // After a compaction the newest reading holds no response, so no model: the session's
    // model is the one it last answered with, which also decides the window.
    let measurement = estimator.measure_session(request);
    // A session that has had no answer yet (its transcript empty, or holding only the first
    // request) is at 0 with nothing wrong: the figure starts with the first response.
    let first_response_pending =
        measurement.awaits_first_response() && opens_as_json_lines(&transcript);
    let mut estimate = measurement.estimate;
    if first_response_pending && let Some(what) = input_in_place_of_transcript(&transcript) {
        return Err(Failure::Other(anyhow!(
            "{} is {what}, not a transcript: pass the transcript_path it names, or pipe it to \
             `ctxmon statusline`",
            transcript.display()
        )));
    }
    // A window given on the command line is taken as given: one smaller than what the context
    // already holds is a mistake (1000 for 1,000,000, say), not something to replace quietly.
    if let Some(window) = args.window
        && estimate.context_window_size.get() != window
    {
        return Err(Failure::usage(anyhow!(
            "--window {window} is smaller than the {} this context already holds; give the \
             window in tokens (e.g. --window 200000, or 1000000 for a 1M window)",
            ctxmon_domain::human::tokens(estimate.input_tokens.get())
        )));
    }
    if first_response_pending {
        estimate.note = Some(NO_RESPONSE_YET.to_string());
    } else {
        if let Some(error) = measurement.error {
            let error = error.named_by(PathOrigin::Flag("--transcript"));
            return Err(Failure::Other(anyhow!("{}: {error}", transcript.display())));
        }
        if estimate.source == FillSource::Unavailable {
            let why = estimate.note.as_deref().unwrap_or("nothing to measure");
            return Err(Failure::Other(anyhow!("{}: {why}", transcript.display())));
        }
    }
    // The file's name is the session's id (Claude Code's uuid, Codex's rollout name).
    let session = transcript
        .file_stem()
        .map_or_else(String::new, |s| s.to_string_lossy().into_owned());
    if global.json {
        let mut value = serde_json::to_value(&estimate).map_err(|e| Failure::Other(e.into()))?;
        if let Some(obj) = value.as_object_mut() {
            obj.insert("percent".into(), estimate.percent().into());
            obj.insert("agent".into(), served.key().into());
            obj.insert(
                "awaiting_first_response".into(),
                first_response_pending.into(),
            );
            obj.insert(
                "transcript_path".into(),
                transcript.display().to_string().into(),
            );
            obj.insert("session".into(), session.clone().into());
        }
        json_out::print(&value)?;
    } else {
        let color = std::io::stdout().is_terminal() && bootstrap::env_var("NO_COLOR").is_none();
        out!("{}", render::status_text(&estimate, color))?;
        outln!("    session {session}")?;
    }
    Ok(())
}
