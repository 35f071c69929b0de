//! The two ways a log gets written: a hook's trigger (`generate_for_trigger`, fail-open) and
//! an explicit request (`generate_now`, errors reported). Both gather their inputs through the
//! hook ports, generate, save, apply the retention (`resume_logs.keep`) and record
//! `ResumeLogGenerated`.

use std::path::Path;

use ctxmon_domain::{
    CheckpointData, DomainEvent, EventRecord, FillEstimate, ResumeLog, ResumeLogDraft, SessionKey,
    SessionState,
};

use super::generator::{GeneratedLog, ResumeLogGenerator};
use super::providers::{GenerationInputs, GitSnapshot};
use super::trigger::TriggerKind;
use crate::handoff::resumption::{HEAD_BYTES, TranscriptHead};
use crate::monitor::fill::{ContextFillEstimator, EstimateRequest};
use crate::ports::{PortError, ResumeLogStore, SavedResumeLog, TranscriptRecord};
use crate::run::{HookContext, HookPorts};

/// What a hook's trigger did. Never an error: problems are warnings for the hook log.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TriggerOutcome {
    /// The log written, when one was due and saving worked.
    pub saved: Option<SavedResumeLog>,
    /// The trigger keys this call marked as fired in the session state (empty: nothing was
    /// due). Marked before writing, so a failing folder is not retried on every prompt.
    pub fired: Vec<String>,
    pub warnings: Vec<String>,
}

/// What the calling hook has already measured or read, so the log does not do it again.
#[derive(Debug, Clone, Copy, Default)]
pub struct AlreadyRead<'a> {
    /// The hook's fill estimate (otherwise measured here, with the post-compaction reset).
    pub fill: Option<&'a FillEstimate>,
    /// The transcript's tail as the tail port returned it (otherwise read here). PreCompact
    /// derives the checkpoint from the same tail: parsing it twice cost half the hook's time.
    pub tail: Option<&'a [TranscriptRecord]>,
    /// The transcript's start (otherwise read here when the tail is readable).
    pub head: Option<&'a TranscriptHead>,
    /// Git as the hook found it (otherwise asked here): `git status` runs once per hook.
    pub git: Option<&'a GitSnapshot>,
    /// The session's newest checkpoint (otherwise found by listing every checkpoint, whose
    /// cost grows with the folder: PreCompact hands over the one it just saved).
    pub checkpoint: Option<&'a CheckpointData>,
}

/// What an explicit request wrote.
#[derive(Debug, Clone, PartialEq)]
pub struct GenerateOutcome {
    pub saved: SavedResumeLog,
    pub generated: GeneratedLog,
    /// Sessions whose logs the retention removed afterwards.
    pub removed: Vec<SessionKey>,
    pub warnings: Vec<String>,
}

/// Writes a resume log when `trigger` is due for this session: resume logs enabled, the
/// trigger configured (`resume_logs.triggers`) and not yet fired for the session.
///
/// `state` is the session state the calling hook loaded and will save: the fired triggers are
/// recorded there (`resume_log_triggers`), so the hook's own save persists them and no second
/// read-modify-write can lose them. `already` is what the hook has already measured or read.
/// Costs nothing beyond a comparison when nothing is due.
pub fn generate_for_trigger(
    ctx: &HookContext<'_>,
    ports: &HookPorts<'_>,
    store: &dyn ResumeLogStore,
    state: &mut SessionState,
    trigger: TriggerKind,
    already: AlreadyRead<'_>,
) -> TriggerOutcome {
    let generator = ResumeLogGenerator::from_config(&ctx.config.resume_logs);
    let due = generator.due(trigger, &state.resume_log_triggers);
    if due.is_empty() {
        return TriggerOutcome::default();
    }
    let mut outcome = TriggerOutcome::default();
    // Marked first, whatever happens next: a trigger that cannot be served (no session id, a
    // read-only folder) must not cost every following prompt another attempt and warning.
    for key in &due {
        if !state.resume_log_triggers.contains(key) {
            state.resume_log_triggers.push(key.clone());
        }
    }
    outcome.fired = due;
    if ctx.session_id.is_none_or(|s| s.trim().is_empty()) {
        outcome
            .warnings
            .push("resume log not written: the hook input has no session_id".into());
        return outcome;
    }
    match write(
        ctx,
        ports,
        store,
        &generator,
        trigger,
        already,
        None,
        &mut outcome.warnings,
    ) {
        Ok((saved, _, _)) => outcome.saved = Some(saved),
        Err(e) => outcome
            .warnings
            .push(format!("resume log not saved ({}): {e}", trigger.key())),
    }
    outcome
}

/// Writes a log now, whatever the triggers say (`ctxmon resume-log generate`). `agent` is the
/// document the agent wrote, the highest-priority source. The session is `ctx.session_id`.
/// Fails only when the log cannot be saved; every other problem is a warning.
pub fn generate_now(
    ctx: &HookContext<'_>,
    ports: &HookPorts<'_>,
    store: &dyn ResumeLogStore,
    agent: Option<&ResumeLogDraft>,
) -> Result<GenerateOutcome, PortError> {
    let generator = ResumeLogGenerator::from_config(&ctx.config.resume_logs);
    let mut warnings = Vec::new();
    let (saved, generated, removed) = write(
        ctx,
        ports,
        store,
        &generator,
        TriggerKind::Manual,
        AlreadyRead::default(),
        agent,
        &mut warnings,
    )?;
    Ok(GenerateOutcome {
        saved,
        generated,
        removed,
        warnings,
    })
}

/// The fill as the hooks report it: after a compaction the transcript's newest usage still
/// shows the old context until the next response, so the session's state (and the newest
/// checkpoint, in case PreCompact could not record it there) drop it to the post-compaction
/// baseline, as prompt-submit and the status line do.
fn measure_after_compactions(
    ctx: &HookContext<'_>,
    ports: &HookPorts<'_>,
    checkpoint: Option<&CheckpointData>,
    warnings: &mut Vec<String>,
) -> FillEstimate {
    let measurement =
        ContextFillEstimator::new(ports.transcripts, ctx.settings).measure(EstimateRequest {
            transcript_path: ctx.transcript_path,
            ..Default::default()
        });
    let mut state = crate::run::load_state(ctx, ports, warnings);
    if let Some(cp) = checkpoint {
        crate::handoff::compaction::note_checkpoint(&mut state, cp);
    }
    crate::monitor::fill::reset_if_stale(
        measurement.estimate,
        measurement.reading.as_ref(),
        &state,
        ctx.settings,
    )
}

#[allow(clippy::too_many_arguments)]
fn write(
    ctx: &HookContext<'_>,
    ports: &HookPorts<'_>,
    store: &dyn ResumeLogStore,
    generator: &ResumeLogGenerator<'_>,
    trigger: TriggerKind,
    already: AlreadyRead<'_>,
    agent: Option<&ResumeLogDraft>,
    warnings: &mut Vec<String>,
) -> Result<(SavedResumeLog, GeneratedLog, Vec<SessionKey>), PortError> {
    let session_id = ctx.session_id.unwrap_or_default();
    let checkpoint = match already.checkpoint {
        Some(cp) => Some(cp.clone()),
        None => latest_checkpoint(ports, session_id, warnings),
    };
    let measured;
    let fill = match already.fill {
        Some(f) => f,
        None => {
            measured = measure_after_compactions(ctx, ports, checkpoint.as_ref(), warnings);
            &measured
        }
    };
    let read;
    let tail = match already.tail {
        Some(lines) => Some(lines),
        None => {
            read = read_tail(ctx, ports, warnings);
            read.as_deref()
        }
    };
    // The head only when the tail was readable: an unreadable transcript is one warning.
    let head = match already.head {
        Some(h) => Some(h.clone()),
        None => tail.as_ref().and_then(|_| read_head(ctx, ports, warnings)),
    };
    let git = match already.git {
        Some(g) => Some(g.clone()),
        None => git_snapshot(ctx, ports),
    };
    let previous = previous_log(store, session_id, warnings);
    let transcript = ctx.transcript_path.map(|p| p.display().to_string());
    let now = ports.clock.now();
    let generated = generator.generate(&GenerationInputs {
        session_id,
        trigger,
        now,
        fill: Some(fill),
        agent,
        checkpoint: checkpoint.as_ref(),
        tail,
        head: head.as_ref(),
        git: git.as_ref(),
        transcript_path: transcript.as_deref(),
        previous: previous.as_ref(),
    });
    let saved = store.save(&generated.log, &generated.rendered.markdown())?;
    let keep = usize::try_from(ctx.config.resume_logs.keep.max(1)).unwrap_or(usize::MAX);
    let removed = match store.cleanup(keep) {
        Ok(removed) => removed,
        Err(e) => {
            warnings.push(format!("old resume logs not cleaned up: {e}"));
            Vec::new()
        }
    };
    let event = DomainEvent::ResumeLogGenerated {
        trigger: trigger.key(),
        path: saved.location.clone(),
        tokens: generated.rendered.total_tokens().get(),
    };
    let record = EventRecord::new(now, ctx.session_id.map(str::to_string), event);
    if let Err(e) = ports.events.append(&[record]) {
        warnings.push(format!("events not recorded: {e}"));
    }
    Ok((saved, generated, removed))
}

/// The session's stored log, which the new one replaces (one small file: a read costs less
/// than losing what it says). Unreadable: a warning, and the new log stands alone.
fn previous_log(
    store: &dyn ResumeLogStore,
    session_id: &str,
    warnings: &mut Vec<String>,
) -> Option<ResumeLog> {
    match store.load(&SessionKey::from_raw(session_id)) {
        Ok(stored) => stored.map(|s| s.log),
        Err(e) => {
            warnings.push(format!("previous resume log unreadable: {e}"));
            None
        }
    }
}

/// The newest checkpoint of this session, acknowledged or not: acknowledgement says the agent
/// was told about it, not that its content stopped mattering.
fn latest_checkpoint(
    ports: &HookPorts<'_>,
    session_id: &str,
    warnings: &mut Vec<String>,
) -> Option<CheckpointData> {
    match ports.checkpoints.list() {
        Ok(listing) => listing
            .checkpoints
            .into_iter()
            .filter(|c| c.data.session_info.session_id.as_deref() == Some(session_id))
            .max_by_key(|c| c.data.checkpoint_id)
            .map(|c| c.data),
        Err(e) => {
            warnings.push(format!("checkpoints unreadable: {e}"));
            None
        }
    }
}

fn read_tail(
    ctx: &HookContext<'_>,
    ports: &HookPorts<'_>,
    warnings: &mut Vec<String>,
) -> Option<Vec<TranscriptRecord>> {
    let path = ctx.transcript_path?;
    match ports.tail.read_tail(path, ctx.config.resumption.tail_bytes) {
        Ok(lines) => Some(lines),
        Err(e) => {
            warnings.push(format!("transcript tail unreadable: {e}"));
            None
        }
    }
}

/// The transcript's start, read until its first request (at most [`HEAD_BYTES`]).
pub(crate) fn read_head(
    ctx: &HookContext<'_>,
    ports: &HookPorts<'_>,
    warnings: &mut Vec<String>,
) -> Option<TranscriptHead> {
    let path = ctx.transcript_path?;
    let mut head = TranscriptHead::default();
    match ports
        .tail
        .read_head(path, HEAD_BYTES, &mut |line| head.visit(line))
    {
        Ok(()) => Some(head),
        Err(e) => {
            warnings.push(format!("transcript start unreadable: {e}"));
            None
        }
    }
}

/// Git of the session's working directory, else of the project.
pub(crate) fn git_snapshot(ctx: &HookContext<'_>, ports: &HookPorts<'_>) -> Option<GitSnapshot> {
    let cwd = ctx.cwd.map(Path::new).filter(|p| !p.as_os_str().is_empty());
    let (dir, head) = match cwd.and_then(|d| Some((d, ports.git.head(d)?))) {
        Some(found) => found,
        None => (ctx.project_dir, ports.git.head(ctx.project_dir)?),
    };
    Some(GitSnapshot {
        head,
        dirty_files: ports.git.dirty_files(dir),
    })
}
