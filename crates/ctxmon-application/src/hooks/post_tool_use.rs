//! PostToolUse: warnings inside long tool loops. Agents fill their context mostly
//! in autonomous tool loops, where no prompt is submitted and prompt-submit never runs; this
//! hook runs after every tool call, measures the fill like prompt-submit and injects the same
//! `<context-monitor>` tag only when the tier rose above the session's record (the rule is
//! `tier_record`'s), so a loop of 200 calls gets at most one tag per tier.
//!
//! It runs after every tool call, so its common path is cheap: [`assess`] measures and reads
//! the session's state without writing anything, and when it finds nothing to do the CLI
//! answers at once, without the session lock or Claude Code's settings files. Only a rise or a
//! fall goes on to [`post_tool_use`], under the lock, which measures and decides again (another
//! hook may have changed the record meanwhile) and saves.
//!
//! Without a session key, or when the record cannot be saved, it injects nothing: a tag it
//! cannot remember would be repeated after every tool call. An unmeasurable fill (no
//! transcript yet, Codex's `transcript_path: null`) is silent too, and not logged: it would be
//! a line per tool call, and prompt-submit reports the same problem on the next prompt.

use ctxmon_domain::{FillEstimate, FillSource};

use super::{note_hint, render_tag, track_tier};
use crate::monitor::fill::{ContextFillEstimator, EstimateRequest, reset_if_stale};
use crate::monitor::tier_record::{ToolVerdict, note_injected, note_measured, verdict};
use crate::run::{HookContext, HookPorts, HookRun, Warning};

/// What the post-tool-use hook decided.
#[derive(Debug, Clone, PartialEq)]
pub struct PostToolUseOutcome {
    /// The `<context-monitor>` tag, when the tier rose.
    pub additional_context: Option<String>,
    /// What was done with the tier measured.
    pub verdict: ToolVerdict,
    /// `None` when the hook is off or nothing could be measured.
    pub estimate: Option<FillEstimate>,
    /// Problems that did not stop the hook; for the hook log.
    pub warnings: Vec<Warning>,
}

impl PostToolUseOutcome {
    fn nothing() -> PostToolUseOutcome {
        PostToolUseOutcome {
            additional_context: None,
            verdict: ToolVerdict::Unchanged,
            estimate: None,
            warnings: Vec::new(),
        }
    }
}

/// True when the hook has anything to do at all: the tag is on, post-tool-use is on, the
/// configuration loaded (on the stand-in defaults a tier could be wrong either way, as for
/// prompt-submit) and the input names a session to keep the record in.
fn active(ctx: &HookContext<'_>) -> bool {
    let cm = &ctx.config.context_monitor;
    cm.enabled && cm.post_tool_use && ctx.config_error.is_none() && ctx.session_key().is_some()
}

/// The measured fill (post-compaction reset applied from the run's state), or `None`.
fn measure(run: &mut HookRun<'_>) -> Option<FillEstimate> {
    let (ctx, ports) = (run.ctx, run.ports);
    let measurement =
        ContextFillEstimator::new(ports.transcripts, ctx.settings).measure(EstimateRequest {
            transcript_path: ctx.transcript_path,
            ..Default::default()
        });
    let estimate = reset_if_stale(
        measurement.estimate,
        measurement.reading.as_ref(),
        run.state(),
        ctx.settings,
    );
    (estimate.source != FillSource::Unavailable).then_some(estimate)
}

/// What the hook would do, without writing anything: one state read and the transcript's tail.
/// An unreadable state counts as a fresh one here; [`post_tool_use`] reports it.
pub fn assess(ctx: &HookContext<'_>, ports: &HookPorts<'_>) -> ToolVerdict {
    if !active(ctx) {
        return ToolVerdict::Unchanged;
    }
    // A first look: the run is dropped unfinished, so nothing is saved, recorded or reported.
    let mut look = HookRun::new(*ctx, *ports);
    look.state();
    match measure(&mut look) {
        Some(estimate) => verdict(
            look.state(),
            estimate.threshold_tier,
            ctx.config.context_monitor.inject,
        ),
        None => ToolVerdict::Unchanged,
    }
}

/// The hook: measure, decide by the session's record, and on a rise inject the tag — only
/// once the record of it is saved.
pub fn post_tool_use(ctx: &HookContext<'_>, ports: &HookPorts<'_>) -> PostToolUseOutcome {
    if !active(ctx) {
        return PostToolUseOutcome::nothing();
    }
    let mut run = HookRun::new(*ctx, *ports);
    run.state();
    let mut outcome = PostToolUseOutcome::nothing();
    if let Some(estimate) = measure(&mut run) {
        let tier = estimate.threshold_tier;
        outcome.verdict = verdict(run.state(), tier, ctx.config.context_monitor.inject);
        match outcome.verdict {
            ToolVerdict::Unchanged => {}
            ToolVerdict::Lower => {
                note_measured(run.state(), tier);
                track_tier(&mut run, &estimate);
                run.save_state();
            }
            ToolVerdict::Inject => {
                note_injected(run.state(), tier, estimate.fill_percentage);
                track_tier(&mut run, &estimate);
                if run.save_state() {
                    let since = run.state().last_prompt_at;
                    let hint = note_hint(&mut run, tier, since);
                    outcome.additional_context = Some(render_tag(&run, &estimate, hint.as_ref()));
                } else {
                    run.warn(Warning::TagNotRemembered);
                }
            }
        }
        outcome.estimate = Some(estimate);
    }
    outcome.warnings = run.finish();
    outcome
}
