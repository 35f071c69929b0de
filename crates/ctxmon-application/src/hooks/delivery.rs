//! Handing a checkpoint's resumption context to the agent (SessionStart, or the prompt-submit
//! fallback) and recording that it happened.

use ctxmon_domain::{CheckpointData, DomainEvent, SessionKey, SessionState, estimate_tokens};

use crate::handoff::resumption::context::{
    HistoryEntry, ResumptionInput, render_resumption_context,
};
use crate::ports::ResumeLogStore;
use crate::run::{HookContext, HookPorts};

/// Renders the resumption context for `cp` (empty when it has no resumption state) and, when
/// non-empty, marks it delivered in `state` and returns the event to record. The context names
/// the resume log of the checkpoint's session when there is one.
pub fn deliver(
    ctx: &HookContext<'_>,
    ports: &HookPorts<'_>,
    logs: &dyn ResumeLogStore,
    cp: &CheckpointData,
    state: &mut SessionState,
    via: &str,
    warnings: &mut Vec<String>,
) -> (String, Option<DomainEvent>) {
    let history = history_of(ctx, ports, cp, warnings);
    let resume_log = log_of_checkpoint(ctx, logs, cp, warnings);
    let text = render_resumption_context(ResumptionInput {
        checkpoint: cp,
        history: &history,
        resume_log: resume_log.as_deref(),
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

/// Where the resume log of the checkpoint's session is, if it has one.
///
/// Only that session's log is named: in a project where several sessions run, the newest log
/// may be another session's, and pointing the agent at someone else's handoff is worse than
/// saying nothing. A checkpoint without a session id (written by hand, or by an old version)
/// stands for the session now starting, whose log is then the one to name.
fn log_of_checkpoint(
    ctx: &HookContext<'_>,
    logs: &dyn ResumeLogStore,
    cp: &CheckpointData,
    warnings: &mut Vec<String>,
) -> Option<String> {
    let session = cp
        .session_info
        .session_id
        .as_deref()
        .or(ctx.session_id)
        .filter(|s| !s.trim().is_empty())?;
    match logs.load(&SessionKey::from_raw(session)) {
        Ok(found) => found.map(|stored| stored.entry.location),
        Err(e) => {
            warnings.push(format!("resume log unreadable: {e}"));
            None
        }
    }
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
