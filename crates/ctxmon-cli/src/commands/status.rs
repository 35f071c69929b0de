//! `ctxmon status`: measure a transcript and report it for people or (`--json`) programs.

use std::io::IsTerminal;

use anyhow::anyhow;
use ctxmon_application::monitor::pace::turns_left;
use ctxmon_application::ports::{PathOrigin, TranscriptReader};
use ctxmon_application::readers::FillError;
use ctxmon_infra_fs::transcript::JsonlTranscriptReader;
use serde_json::json;

use crate::bootstrap;
use crate::cli::{GlobalArgs, StatusArgs};
use crate::commands::transcript_target::{self, Pick, TranscriptTarget};
use crate::exit::{CmdResult, Failure};
use crate::json_out::{self, Layout};
use crate::out::out;
use crate::render;

/// How many of the largest items `status --json` lists.
const LARGEST_LISTED: usize = 20;

/// Transcript bytes read back per token of the window when looking for what fills it.
const BYTES_PER_WINDOW_TOKEN: u64 = 12;

pub fn run(args: &StatusArgs, global: &GlobalArgs) -> CmdResult {
    let target = target(args, global)?;
    let frame = frame(&target, args, global, Layout::for_stdout())?;
    out!("{frame}")
}

/// The transcript `status` reports on (and `status --watch` follows): the one named, else the
/// project's newest.
pub fn target(args: &StatusArgs, global: &GlobalArgs) -> Result<TranscriptTarget, Failure> {
    transcript_target::resolve(
        "status",
        global,
        args.window,
        args.transcript.as_deref(),
        Pick::Newest,
    )
}

/// One report of `target`: the text people read, or the JSON (laid out as `layout`), ending
/// with a newline.
pub fn frame(
    target: &TranscriptTarget,
    args: &StatusArgs,
    global: &GlobalArgs,
    layout: Layout,
) -> Result<String, Failure> {
    let TranscriptTarget {
        transcript,
        agent: served,
        settings,
        ..
    } = target;
    let served = *served;
    let reader = JsonlTranscriptReader::default();
    let fill = match reader.measure(transcript, settings, args.model.as_deref()) {
        Ok(fill) => fill,
        Err(FillError::NotATranscript(what)) => {
            return Err(Failure::Other(anyhow!(
                "{} is {what}, not a transcript: pass the transcript_path it names, or pipe it \
                 to `ctxmon statusline`",
                transcript.display()
            )));
        }
        Err(FillError::Unreadable(error)) => {
            let error = error.named_by(PathOrigin::Flag("--transcript"));
            return Err(Failure::Other(anyhow!("{}: {error}", transcript.display())));
        }
        Err(FillError::NothingToMeasure(why)) => {
            return Err(Failure::Other(anyhow!("{}: {why}", transcript.display())));
        }
    };
    let estimate = fill.estimate.clone();
    // What fills the context, read back to the last compaction, over no more of the file than
    // a full window can hold: a token is about four characters of content, and a transcript
    // line carries a tool's output about twice over in JSON, so twelve bytes a token. Further
    // back is summarized or never in the context; past it `largest_complete` says so.
    let bound = estimate
        .context_window_size
        .get()
        .saturating_mul(BYTES_PER_WINDOW_TOKEN)
        .min(settings.limits.max_scan_bytes);
    let recent = reader.recent_context(transcript, bound, LARGEST_LISTED);
    // The turns left at the pace of the last responses, before the point `until` counts to.
    let turns = recent.as_ref().and_then(|r| {
        turns_left(
            &r.fills,
            estimate.tokens_until_auto_compact.map(|t| t.get()),
        )
    });
    let first_response_pending = fill.awaiting_first_response;
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
            // Where the agent compacts, and what that was taken from: Claude Code's point
            // has moved between versions, and this user's own compactions show where.
            obj.insert(
                "auto_compact_point".into(),
                fill.auto_compact_point.map(|t| t.get()).into(),
            );
            obj.insert(
                "auto_compact_point_source".into(),
                fill.point_source.key().into(),
            );
            // `null` where the agent's transcript is not read for it (Codex, Gemini CLI).
            let (largest, complete) = match &recent {
                Some(r) => (serde_json::to_value(&r.largest).ok(), Some(r.complete)),
                None => (None, None),
            };
            obj.insert("largest".into(), largest.into());
            obj.insert("turns_left".into(), turns.map(|t| t.turns).into());
            obj.insert(
                "pace".into(),
                turns
                    .map(|t| json!({"tokens_per_turn": t.pace, "turns_seen": t.turns_seen}))
                    .into(),
            );
            obj.insert("largest_complete".into(), complete.into());
        }
        let mut text = json_out::to_text(&value, layout)?;
        text.push('\n');
        Ok(text)
    } else {
        let color = std::io::stdout().is_terminal() && bootstrap::env_var("NO_COLOR").is_none();
        let mut text = render::status_text(&estimate, color);
        if let Some(turns) = turns {
            text.push_str(&format!("    {}\n", render::turns_text(turns)));
        }
        if let Some(recent) = &recent {
            text.push_str(&render::largest_text(&recent.largest, recent.complete));
        }
        text.push_str(&format!("    session {session}\n"));
        Ok(text)
    }
}
