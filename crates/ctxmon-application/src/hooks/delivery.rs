//! Handing a checkpoint's resumption context to the agent (SessionStart, or the prompt-submit
//! fallback) and recording that it happened.

use ctxmon_domain::{CheckpointData, DomainEvent, SessionState, estimate_tokens};

use super::{HookContext, HookPorts};
use crate::resumption_context::{HistoryEntry, ResumptionInput, render_resumption_context};

/// Renders the resumption context for `cp` (empty when it has no resumption state) and, when
/// non-empty, marks it delivered in `state` and returns the event to record.
pub fn deliver(
    ctx: &HookContext<'_>,
    ports: &HookPorts<'_>,
    cp: &CheckpointData,
    state: &mut SessionState,
    via: &str,
    resume_log: Option<&str>,
    warnings: &mut Vec<String>,
) -> (String, Option<DomainEvent>) {
    let history = history_of(ctx, ports, cp, warnings);
    let text = render_resumption_context(ResumptionInput {
        checkpoint: cp,
        history: &history,
        resume_log,
    });
    if text.is_empty() {
        return (text, None);
    }
    state.resumption_delivered = Some(cp.checkpoint_id.to_string());
    let event = DomainEvent::ResumptionDelivered {
        checkpoint_id: cp.checkpoint_id.to_string(),
        via: via.to_string(),
        tokens: estimate_tokens(&text).get(),
    };
    (text, Some(event))
}

/// Earlier checkpoints of the same session, oldest first.
fn history_of(
    ctx: &HookContext<'_>,
    ports: &HookPorts<'_>,
    cp: &CheckpointData,
    warnings: &mut Vec<String>,
) -> Vec<HistoryEntry> {
    let Some(session) = cp.session_info.session_id.as_deref().or(ctx.session_id) else {
        return Vec::new();
    };
    match ports.checkpoints.list() {
        Ok(listing) => listing
            .checkpoints
            .iter()
            .filter(|s| {
                s.data.checkpoint_id < cp.checkpoint_id
                    && s.data.session_info.session_id.as_deref() == Some(session)
            })
            .map(|s| HistoryEntry {
                checkpoint_id: s.data.checkpoint_id.to_string(),
                fill_percent: s.data.context_state.percent(),
            })
            .collect(),
        Err(e) => {
            warnings.push(format!("checkpoint history unavailable: {e}"));
            Vec::new()
        }
    }
}
