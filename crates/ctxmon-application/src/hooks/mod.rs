//! One use case per hook (Claude Code's events; Codex CLI sends five of them, Gemini CLI five
//! under its own names), and `answer`, the policy that runs one of them for an invocation:
//! the configuration's fallback to the defaults, the event check, the session lock, and
//! post-tool-use's first look (most tool calls are answered from one state read). Each use case runs on a
//! [`crate::run::HookRun`] and returns what to answer with the run's warnings; the wire format
//! (JSON on stdout, exit 0) is the CLI's business. None of them fails.

mod answer;
pub mod lifecycle;
pub mod post_tool_use;
pub mod pre_compact;
pub mod pre_tool_use;
pub mod prompt_submit;
pub mod session_start;

pub use crate::agents::Hook;
pub use answer::{HookAnswer, HookCall, HookFields, HookHost, answer};

#[cfg(test)]
mod answer_tests;
#[cfg(test)]
mod note_tests;
#[cfg(test)]
mod post_tool_use_tests;
#[cfg(test)]
mod pre_compact_tests;
#[cfg(test)]
mod prompt_submit_tests;
#[cfg(test)]
mod repeat_tests;
#[cfg(test)]
mod resilience_tests;
#[cfg(test)]
mod session_start_tests;
#[cfg(test)]
mod test_world;

use ctxmon_domain::{FillEstimate, ThresholdTier, Timestamp};

use crate::handoff::resumption::NOTE_MAX_BYTES;
use crate::monitor::pace::turns_left;
use crate::monitor::tag::{LARGEST_IN_TAG, NoteHint, TagFacts, render_context_monitor_full};
use crate::run::{HookRun, Warning};

/// Where the agent's resumption note is and whether it was written after `since` (the
/// session's previous prompt), for a tag from WARNING up; below that the tag names no note
/// and nothing is read.
fn note_hint(
    run: &mut HookRun<'_>,
    tier: ThresholdTier,
    since: Option<Timestamp>,
) -> Option<(String, bool)> {
    if tier < ThresholdTier::Warning {
        return None;
    }
    let (ctx, ports) = (run.ctx, run.ports);
    let key = ctx.session_key()?;
    let location = ports.files.note_location(ctx.project_dir, &key)?;
    let fresh = match ports.files.read_note(ctx.project_dir, &key, NOTE_MAX_BYTES) {
        Ok(Some(note)) => {
            !note.text.trim().is_empty()
                && matches!((note.modified, since), (Some(at), Some(since)) if at >= since)
        }
        Ok(None) => false,
        Err(e) => {
            run.warn(Warning::NoteUnreadable(e));
            false
        }
    };
    Some((location, fresh))
}

/// The `<context-monitor>` tag for `estimate`, naming the note `hint` gives; at WARNING and
/// CRITICAL the turns left at the recent pace, and from CRITICAL up the largest items in the
/// context. Those are read back from the transcript's end only when a tag is given at such a
/// tier: the pace from the last few responses (the walk ends with them), the items over no
/// more than the tail a handoff reads. A prompt or tool call without such a tag costs nothing
/// more.
fn render_tag(run: &HookRun<'_>, estimate: &FillEstimate, hint: Option<&(String, bool)>) -> String {
    let ctx = run.ctx;
    let tier = estimate.threshold_tier;
    let keep = if tier >= ThresholdTier::Critical {
        LARGEST_IN_TAG
    } else {
        0
    };
    let recent = ctx
        .transcript_path
        .filter(|_| tier >= ThresholdTier::Warning)
        .and_then(|path| {
            run.ports
                .transcripts
                .recent_context(path, ctx.config.resumption.tail_bytes, keep)
        });
    let largest = recent.as_ref().map_or(&[][..], |r| r.largest.as_slice());
    let turns_left = recent.as_ref().and_then(|r| {
        turns_left(
            &r.fills,
            estimate.tokens_until_auto_compact.map(|t| t.get()),
        )
    });
    render_context_monitor_full(
        estimate,
        &ctx.settings.window_thresholds(estimate.context_window_size),
        ctx.settings.agent,
        hint.map(|(location, fresh)| NoteHint {
            location,
            fresh: *fresh,
        }),
        &TagFacts {
            largest,
            turns_left,
        },
    )
}

/// Records a tier change and keeps the session's fill figures (prompt-submit and
/// post-tool-use measure alike).
fn track_tier(run: &mut HookRun<'_>, estimate: &FillEstimate) {
    let clock = run.ports.clock;
    if let Some(change) = crate::monitor::tier_record::track_tier(run.state(), estimate, clock) {
        run.record(change);
    }
}

/// Why parts of the resumption source file were not used (too big, a FIFO, invalid YAML), for
/// the hook log.
fn source_problems(run: &mut HookRun<'_>, doc: &crate::ports::SourceDocument) {
    for problem in &doc.warnings {
        run.warn(crate::run::Warning::SourceProblem {
            path: doc.path.clone(),
            problem: problem.clone(),
        });
    }
}
