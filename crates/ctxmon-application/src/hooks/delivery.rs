//! Handing a checkpoint's resumption context to the agent (SessionStart, or the prompt-submit
//! fallback) and recording that it happened.

use ctxmon_domain::{CheckpointData, DomainEvent, SessionKey, estimate_tokens};

use crate::handoff::resumption::context::{ResumptionInput, render_resumption_context};
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
    let resume_log = log_of_checkpoint(run, logs, cp);
    let present = files_still_there(run, cp);
    let text = render_resumption_context(ResumptionInput {
        checkpoint: &present,
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

/// The checkpoint with only the files that are still files now: the agent is never pointed
/// at a file deleted or moved since the checkpoint was written (nor at a folder).
fn files_still_there(run: &HookRun<'_>, cp: &CheckpointData) -> CheckpointData {
    let mut cp = cp.clone();
    let (files, dir) = (run.ports.files, run.ctx.project_dir);
    if let Some(state) = cp.resumption_state.as_mut() {
        let keep = |paths: &mut Vec<String>| paths.retain(|p| files.is_file(dir, p));
        keep(&mut state.files_next);
        keep(&mut state.files_recent);
        keep(&mut state.files_created);
        state.files_to_read.retain(|f| files.is_file(dir, &f.path));
        // Only the newest are shown from an older checkpoint; the rest are not looked at.
        let over = state
            .files_touched
            .len()
            .saturating_sub(FILES_TOUCHED_LOOKED_AT);
        state.files_touched.drain(..over);
        keep(&mut state.files_touched);
    }
    cp
}

/// How many of an older checkpoint's files touched are looked at on disk.
const FILES_TOUCHED_LOOKED_AT: usize = 20;
