//! Handing a checkpoint's resumption context to the agent (SessionStart, or the prompt-submit
//! fallback) and recording that it happened.

use ctxmon_domain::{CheckpointData, DomainEvent, SessionKey, estimate_tokens};

use crate::handoff::resumption::context::{
    HistoryEntry, ResumptionInput, render_resumption_context,
};
use crate::ports::ResumeLogStore;
use crate::run::{HookRun, Warning};

/// Renders the resumption context for `cp` (empty when it has no resumption state) and, when
/// non-empty, marks it delivered in the session state and records the delivery. The context
/// names the resume log of the checkpoint's session when there is one.
pub fn deliver(
    run: &mut HookRun<'_>,
    logs: &dyn ResumeLogStore,
    cp: &CheckpointData,
    via: &str,
) -> String {
    let history = history_of(run, cp);
    let resume_log = log_of_checkpoint(run, logs, cp);
    let text = render_resumption_context(ResumptionInput {
        checkpoint: cp,
        history: &history,
        resume_log: resume_log.as_deref(),
    });
    if text.is_empty() {
        return text;
    }
    run.state().resumption_delivered = Some(cp.checkpoint_id.to_string());
    run.record(DomainEvent::ResumptionDelivered {
        checkpoint_id: cp.checkpoint_id.to_string(),
        via: via.to_string(),
        tokens: estimate_tokens(&text).get(),
    });
    text
}

/// Where the resume log of the checkpoint's session is, if it has one.
///
/// Only that session's log is named: in a project where several sessions run, the newest log
/// may be another session's, and pointing the agent at someone else's handoff is worse than
/// saying nothing. A checkpoint without a session id (written by hand, or by an old version)
/// stands for the session now starting, whose log is then the one to name.
fn log_of_checkpoint(
    run: &mut HookRun<'_>,
    logs: &dyn ResumeLogStore,
    cp: &CheckpointData,
) -> Option<String> {
    let session = cp
        .session_info
        .session_id
        .as_deref()
        .or(run.ctx.session_id)
        .filter(|s| !s.trim().is_empty())?;
    match logs.load(&SessionKey::from_raw(session)) {
        Ok(found) => found.map(|stored| stored.entry.location),
        Err(e) => {
            run.warn(Warning::ResumeLogUnreadable(e));
            None
        }
    }
}

/// Earlier checkpoints of the same session, oldest first.
fn history_of(run: &mut HookRun<'_>, cp: &CheckpointData) -> Vec<HistoryEntry> {
    let Some(session) = cp.session_info.session_id.as_deref().or(run.ctx.session_id) else {
        return Vec::new();
    };
    match run.ports.checkpoints.of_session(session) {
        Ok(own) => own
            .iter()
            .filter(|s| s.data.checkpoint_id < cp.checkpoint_id)
            .map(|s| HistoryEntry {
                checkpoint_id: s.data.checkpoint_id.to_string(),
                fill_percent: s.data.context_state.percent(),
            })
            .collect(),
        Err(e) => {
            run.warn(Warning::CheckpointHistoryUnavailable(e));
            Vec::new()
        }
    }
}
