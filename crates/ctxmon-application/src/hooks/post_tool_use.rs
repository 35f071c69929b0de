//! PostToolUse: warnings inside long tool loops (issue 14 §2). Agents fill their context mostly
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

use super::tier_record::{ToolVerdict, note_injected, note_measured, track_tier, verdict};
use super::{HookContext, HookPorts, load_state, record, reset_if_stale, save_state};
use crate::fill::{ContextFillEstimator, EstimateRequest};
use crate::monitor_tag::render_context_monitor;

#[derive(Debug, Clone, PartialEq)]
pub struct PostToolUseOutcome {
    /// The `<context-monitor>` tag, when the tier rose.
    pub additional_context: Option<String>,
    pub verdict: ToolVerdict,
    /// `None` when the hook is off or nothing could be measured.
    pub estimate: Option<FillEstimate>,
    /// Problems that did not stop the hook; for the hook log.
    pub warnings: Vec<String>,
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

/// The measured fill (post-compaction reset applied from `state`), or `None`.
fn measure(
    ctx: &HookContext<'_>,
    ports: &HookPorts<'_>,
    state: &ctxmon_domain::SessionState,
) -> Option<FillEstimate> {
    let estimator = ContextFillEstimator::new(ports.transcripts, ctx.settings);
    let measurement = estimator.measure(EstimateRequest {
        transcript_path: ctx.transcript_path,
        ..Default::default()
    });
    let estimate = reset_if_stale(
        measurement.estimate,
        measurement.reading.as_ref(),
        state,
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
    let mut ignored = Vec::new();
    let state = load_state(ctx, ports, &mut ignored);
    match measure(ctx, ports, &state) {
        Some(estimate) => verdict(
            &state,
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
    let mut warnings = Vec::new();
    let mut state = load_state(ctx, ports, &mut warnings);
    let Some(estimate) = measure(ctx, ports, &state) else {
        return PostToolUseOutcome {
            warnings,
            ..PostToolUseOutcome::nothing()
        };
    };
    let tier = estimate.threshold_tier;
    let decided = verdict(&state, tier, ctx.config.context_monitor.inject);
    let mut events = Vec::new();
    let mut additional_context = None;
    match decided {
        ToolVerdict::Unchanged => {}
        ToolVerdict::Lower => {
            note_measured(&mut state, tier);
            track_tier(&mut state, &estimate, &mut events, ports);
            save_state(ctx, ports, &mut state, &mut warnings);
        }
        ToolVerdict::Inject => {
            note_injected(&mut state, tier, estimate.fill_percentage);
            track_tier(&mut state, &estimate, &mut events, ports);
            if save_state(ctx, ports, &mut state, &mut warnings) {
                additional_context =
                    Some(render_context_monitor(&estimate, &ctx.settings.thresholds));
            } else {
                warnings.push(
                    "no <context-monitor> tag after this tool call: without its record it would be repeated after every call"
                        .into(),
                );
            }
        }
    }
    record(ctx, ports, events, &mut warnings);
    PostToolUseOutcome {
        additional_context,
        verdict: decided,
        estimate: Some(estimate),
        warnings,
    }
}
