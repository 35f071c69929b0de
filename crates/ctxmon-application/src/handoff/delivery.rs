//! Handing a checkpoint's resumption context to the agent (SessionStart, or the prompt-submit
//! fallback) and recording that it happened, once the answer carrying it is written.

use ctxmon_domain::{
    CheckpointData, DomainEvent, EventRecord, SessionKey, SessionState, estimate_tokens,
};

use crate::handoff::resumption::context::{
    HandBackMode, ResumptionInput, render_resumption_context,
};
use crate::handoff::resumption::script_of_line;
use crate::ports::{Clock, EventLog, ResumeLogStore, SessionStateStore};
use crate::run::{HookRun, Warning};

/// A resumption context given in an answer. It is recorded as delivered (in the session's
/// state and as an event) only once the answer carrying it has been written
/// ([`record_delivery`]): a delivery marked before a SessionStart answer that never reached
/// the agent (its deadline, a closed stdout) kept the next prompt from handing the work back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Delivery {
    /// The checkpoint handed back, `cx-NNN`.
    pub checkpoint_id: String,
    /// The state the delivery is recorded in (the session the answer went to).
    pub session: Option<SessionKey>,
    /// The session id, for the event.
    pub session_id: Option<String>,
    /// Which hook handed it back (`session_start`, `prompt_submit`).
    pub via: String,
    /// The context's size.
    pub tokens: u64,
}

/// Renders the resumption context for `cp` (empty when it has no resumption state) and, when
/// non-empty, what to record once the answer carrying it is written. The context names the
/// resume log of the checkpoint's session when there is one.
pub fn deliver(
    run: &mut HookRun<'_>,
    logs: &dyn ResumeLogStore,
    cp: &CheckpointData,
    via: &str,
    mode: HandBackMode,
) -> (String, Option<Delivery>) {
    let resume_log = log_of_checkpoint(run, logs, cp);
    let present = files_still_there(run, cp);
    let text = render_resumption_context(ResumptionInput {
        checkpoint: &present,
        resume_log: resume_log.as_deref(),
        mode,
    });
    if text.is_empty() {
        return (text, None);
    }
    let delivery = Delivery {
        checkpoint_id: cp.checkpoint_id.to_string(),
        session: run.ctx.session_key(),
        session_id: run.ctx.session_id.map(str::to_string),
        via: via.to_string(),
        tokens: estimate_tokens(&text).get(),
    };
    (text, Some(delivery))
}

/// After the answer carrying `delivery` was written: marks its checkpoint delivered in the
/// session's state (under the session's lock, as every hook changes it) and records
/// `ResumptionDelivered`. Returns the problems, for the hook log; the answer is out either way.
pub fn record_delivery(
    delivery: &Delivery,
    states: &dyn SessionStateStore,
    events: &dyn EventLog,
    clock: &dyn Clock,
) -> Vec<Warning> {
    let mut warnings = Vec::new();
    if let Some(key) = &delivery.session {
        let mut mark = || {
            let mut state = match states.load(key) {
                Ok(state) => state.unwrap_or_default(),
                Err(e) => {
                    warnings.push(Warning::StateUnreadable(e));
                    SessionState::default()
                }
            };
            state.schema_version = SessionState::SCHEMA_VERSION;
            state.resumption_delivered = Some(delivery.checkpoint_id.clone());
            state.updated_at = Some(clock.now());
            if let Err(e) = states.save(key, &state) {
                warnings.push(Warning::StateNotSaved(e));
            }
        };
        if let Err(e) = states.with_lock(key, &mut mark) {
            warnings.push(Warning::StateNotSaved(e));
        }
    }
    let event = DomainEvent::ResumptionDelivered {
        checkpoint_id: delivery.checkpoint_id.clone(),
        via: delivery.via.clone(),
        tokens: delivery.tokens,
    };
    let record = EventRecord::new(clock.now(), delivery.session_id.clone(), event);
    if let Err(e) = events.append(&[record]) {
        warnings.push(Warning::EventNotRecorded(e));
    }
    warnings
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
    let dir_of_project = dir;
    if let Some(state) = cp.resumption_state.as_mut() {
        let keep = |paths: &mut Vec<String>| paths.retain(|p| files.is_file(dir, p));
        keep(&mut state.files_next);
        keep(&mut state.files_recent);
        keep(&mut state.files_read);
        state.line_ranges.retain(|r| files.is_file(dir, &r.path));
        keep(&mut state.files_created);
        // A command that runs a script is shown only while the script is there.
        let cwd = cp.session_info.cwd.clone();
        state.commands_ok.retain(|line| match script_of_line(line) {
            None => true,
            Some((dir, script)) => {
                let base = dir.or_else(|| cwd.clone());
                let path = match base {
                    Some(base) if !is_absolute(&script) => format!("{base}/{script}"),
                    _ => script,
                };
                files.is_file(dir_of_project, &path)
            }
        });
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

/// An absolute path on Unix or Windows (`/x`, `~/x`, `C:\\x`, `C:/x`).
fn is_absolute(path: &str) -> bool {
    path.starts_with(['/', '~', '\\'])
        || path
            .as_bytes()
            .get(1..3)
            .is_some_and(|b| b[0] == b':' && (b[1] == b'\\' || b[1] == b'/'))
}

/// How many of an older checkpoint's files touched are looked at on disk.
const FILES_TOUCHED_LOOKED_AT: usize = 20;
