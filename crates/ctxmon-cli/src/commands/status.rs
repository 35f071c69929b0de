//! `ctxmon status`: measure a transcript and report it for people or (`--json`) programs.

use std::io::IsTerminal;

use anyhow::anyhow;
use ctxmon_application::monitor::fill::{ContextFillEstimator, EstimateRequest, FillSettings};
use ctxmon_application::ports::PathOrigin;
use ctxmon_domain::FillSource;
use ctxmon_infra_fs::transcript::{JsonlTranscriptReader, opens_as_json_lines};

use crate::agent;
use crate::bootstrap;
use crate::cli::{GlobalArgs, StatusArgs};
use crate::diag::diag;
use crate::exit::{CmdResult, Failure};
use crate::json_out;
use crate::out::out;
use crate::render;

/// The note of a session measured before its first answer.
const NO_RESPONSE_YET: &str = "no response yet: the figure starts with the session's first answer";

pub fn run(args: &StatusArgs, global: &GlobalArgs) -> CmdResult {
    let mut flags = Vec::new();
    if let Some(window) = args.window {
        flags.push((
            "context_monitor.context_window".to_string(),
            window.to_string(),
        ));
    }
    let project = bootstrap::project(global, &flags)?;
    let mut settings = FillSettings::from_config(&project.config)
        .map_err(|e| Failure::usage(anyhow!("invalid configuration: {e}")))?;
    let transcript = match &args.transcript {
        Some(path) => path.clone(),
        None => agent::project_transcript(project.layout.project_dir()).ok_or_else(|| {
            Failure::Other(anyhow!(
                "no transcript found for {} under Claude Code's projects folder or Codex's sessions folder; pass --transcript PATH",
                project.layout.project_dir().display()
            ))
        })?,
    };
    // The file says which agent wrote it, and so whose auto-compact point counts.
    let served = agent::of_transcript(&transcript);
    agent::apply_auto_compact(&mut settings, served, project.layout.project_dir(), |w| {
        diag!("ctxmon status: {w}")
    });
    let reader = JsonlTranscriptReader::new();
    let estimator = ContextFillEstimator::new(&reader, &settings);
    let measurement = estimator.measure(EstimateRequest {
        transcript_path: Some(&transcript),
        model_hint: args.model.as_deref(),
        ..Default::default()
    });
    // A session that has had no answer yet (its transcript empty, or holding only the first
    // request) is at 0 with nothing wrong: the figure starts with the first response.
    let first_response_pending =
        measurement.awaits_first_response() && opens_as_json_lines(&transcript);
    let mut estimate = measurement.estimate;
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
        }
        json_out::print(&value)?;
    } else {
        let color = std::io::stdout().is_terminal() && bootstrap::env_var("NO_COLOR").is_none();
        out!("{}", render::status_text(&estimate, color))?;
    }
    Ok(())
}
