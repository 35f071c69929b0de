//! `ctxmon report`: a session's fill over time, as a sparkline, a JSON document or an SVG chart.
//!
//! The reader streams the transcript forward through the hooks' own line rules and the
//! application's series builder de-duplicates, places compactions and marks crossings; this
//! command only picks the file, writes the outputs and maps failures to exit codes.

use std::io::IsTerminal;
use std::path::Path;

use anyhow::anyhow;
use ctxmon_application::monitor::fill::FillSeriesBuilder;
use ctxmon_application::ports::{CheckpointRepository, PathOrigin, TranscriptReader};
use ctxmon_domain::CheckpointData;
use ctxmon_infra_fs::FsCheckpointRepository;
use ctxmon_infra_fs::transcript::JsonlTranscriptReader;

use crate::agent;
use crate::bootstrap;
use crate::cli::{GlobalArgs, ReportArgs};
use crate::commands::transcript_target::{self, Pick, TranscriptTarget};
use crate::exit::{CmdResult, Failure};
use crate::json_out;
use crate::out::{out, outln};
use crate::render;
use crate::report;
use crate::terminal;

/// How many of the largest items `report --json` lists.
const LARGEST_LISTED: usize = 20;

pub fn run(args: &ReportArgs, global: &GlobalArgs) -> CmdResult {
    // The file says which agent wrote it, and so whose auto-compact point the chart marks.
    let TranscriptTarget {
        transcript,
        settings,
        layout,
        ..
    } = transcript_target::resolve(
        "report",
        global,
        args.window,
        args.transcript.as_deref(),
        Pick::NewestAnswered,
    )?;
    let shown = transcript.display().to_string();

    let mut builder = FillSeriesBuilder::new();
    let reader = JsonlTranscriptReader::default();
    let stats = reader
        .read_events(&transcript, |event| builder.push(event))
        .map_err(|e| {
            let e = e.named_by(PathOrigin::Flag("--transcript"));
            Failure::Other(anyhow!("{e}"))
        })?;
    if !stats.any_json {
        return Err(Failure::Other(anyhow!(
            "{shown} is not a Claude Code transcript, Codex rollout or Gemini CLI chat: none of its {} is JSON",
            ctxmon_domain::human::count(stats.lines, "line", "lines")
        )));
    }
    let mut series = builder.finish(&settings, args.model.as_deref());
    // A rollout or a chat does not say who started a compaction; the session's checkpoints,
    // written by the hook that was told, do.
    if series.compactions.iter().any(|c| c.trigger.is_none())
        && let Some(session) = agent::session_of(&transcript)
        && let Ok(stored) = FsCheckpointRepository::new(layout).of_session(&session)
    {
        let checkpoints: Vec<CheckpointData> = stored.into_iter().map(|c| c.data).collect();
        series.take_triggers_from(&checkpoints);
    }
    if series.points.is_empty() {
        let compactions = match series.compactions.len() {
            0 => String::new(),
            1 => " (only a compaction boundary)".to_string(),
            n => format!(" (only {n} compaction boundaries)"),
        };
        return Err(Failure::Other(anyhow!(
            "{shown} has no API response with usage yet{compactions}: nothing to chart; \
             run it again after the session's first answer"
        )));
    }

    let file_name = transcript
        .file_name()
        .map_or_else(|| shown.clone(), |n| n.to_string_lossy().into_owned());
    if let Some(svg_path) = &args.svg {
        write_svg(svg_path, &report::svg::render(&series, &file_name))?;
    }
    // What fills the context at the end, as `status` names it (Claude Code transcripts).
    let recent = reader.recent_context(&transcript, settings.limits.max_scan_bytes, LARGEST_LISTED);
    if global.json {
        let svg = args.svg.as_ref().map(|p| p.display().to_string());
        let mut value = report::json(&series, &shown, svg.as_deref());
        if let Some(obj) = value.as_object_mut() {
            let largest = recent
                .as_ref()
                .and_then(|r| serde_json::to_value(&r.largest).ok());
            obj.insert("largest".into(), largest.into());
        }
        json_out::print(&value)?;
    } else {
        let color = std::io::stdout().is_terminal() && bootstrap::env_var("NO_COLOR").is_none();
        let width = terminal::width();
        out!("{}", report::text(&series, &file_name, width, color))?;
        if let Some(recent) = &recent {
            out!("{}", render::largest_text(&recent.largest, recent.complete))?;
        }
        if let Some(svg_path) = &args.svg {
            outln!("wrote {}", svg_path.display())?;
        }
    }
    Ok(())
}

/// A chart is the user's own output file, not ctxmon state: it is written in place with the
/// user's umask (the private 0600 atomic write is for `.ctxmon/`), and a missing folder is an
/// error rather than something to create.
fn write_svg(path: &Path, svg: &str) -> Result<(), Failure> {
    std::fs::write(path, svg).map_err(|e| {
        Failure::Other(anyhow!(
            "cannot write the SVG chart to {}: {e}",
            path.display()
        ))
    })
}
