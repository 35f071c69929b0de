//! The two ways a log gets written: a hook's trigger (`generate_for_trigger`, fail-open) and
//! an explicit request (`generate_now`, errors reported). Both gather their inputs through the
//! hook ports, generate, save, apply the retention (`resume_logs.keep`) and record
//! `ResumeLogGenerated`.

use std::path::Path;

use ctxmon_domain::{
    CheckpointData, DomainEvent, EventRecord, FillEstimate, ResumeLog, ResumeLogDraft, SessionKey,
};

use super::generator::{GeneratedLog, ResumeLogGenerator};
use super::providers::{GenerationInputs, GitSnapshot};
use super::trigger::TriggerKind;
use crate::handoff::compaction::note_checkpoint;
use crate::handoff::resumption::{HEAD_BYTES, TailDerivation, TranscriptHead};
use crate::monitor::fill::{ContextFillEstimator, EstimateRequest, reset_if_stale};
use crate::ports::{
    GitHead, PendingDirtyFiles, PortError, ResumeLogStore, SavedResumeLog, TranscriptRecord,
};
use crate::run::{HookContext, HookPorts, HookRun, Warning};

/// What a hook's trigger did. Never an error: problems are the run's warnings.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TriggerOutcome {
    /// The log written, when one was due and saving worked.
    pub saved: Option<SavedResumeLog>,
    /// The trigger keys this call marked as fired in the session state (empty: nothing was
    /// due). Marked before writing, so a failing folder is not retried on every prompt.
    pub fired: Vec<String>,
}

/// What the calling hook has already measured or read, so the log does not do it again.
#[derive(Debug, Clone, Copy, Default)]
pub struct AlreadyRead<'a> {
    /// The hook's fill estimate (otherwise measured here, with the post-compaction reset).
    pub fill: Option<&'a FillEstimate>,
    /// The transcript's tail as the tail port returned it (otherwise read here). PreCompact
    /// derives the checkpoint from the same tail: parsing it twice cost half the hook's time.
    pub tail: Option<&'a [TranscriptRecord]>,
    /// What `tail` alone says (`derive_tail`; otherwise derived here from it).
    pub derived: Option<&'a TailDerivation>,
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
    /// Where the store put the log.
    pub saved: SavedResumeLog,
    /// The log and its rendering.
    pub generated: GeneratedLog,
    /// Sessions whose logs the retention removed afterwards.
    pub removed: Vec<SessionKey>,
    /// Problems met on the way (nothing stopped the log from being written).
    pub warnings: Vec<Warning>,
}

/// Writes a resume log when `trigger` is due for this session: resume logs enabled, the
/// trigger configured (`resume_logs.triggers`) and not yet fired for the session.
///
/// The fired triggers are recorded in the run's session state (`resume_log_triggers`), so the
/// hook's own save persists them and no second read-modify-write can lose them. `already` is
/// what the hook has already measured or read. Costs nothing beyond a comparison when nothing
/// is due.
pub fn generate_for_trigger(
    run: &mut HookRun<'_>,
    store: &dyn ResumeLogStore,
    trigger: TriggerKind,
    already: AlreadyRead<'_>,
) -> TriggerOutcome {
    let generator = ResumeLogGenerator::from_config(&run.ctx.config.resume_logs);
    let state = run.state();
    let due = generator.due(trigger, &state.resume_log_triggers);
    if due.is_empty() {
        return TriggerOutcome::default();
    }
    // Marked first, whatever happens next: a trigger that cannot be served (no session id, a
    // read-only folder) must not cost every following prompt another attempt and warning.
    for key in &due {
        if !state.resume_log_triggers.contains(key) {
            state.resume_log_triggers.push(key.clone());
        }
    }
    let mut outcome = TriggerOutcome {
        saved: None,
        fired: due,
    };
    if run.ctx.session_id.is_none_or(|s| s.trim().is_empty()) {
        run.warn(Warning::ResumeLogWithoutSession);
        return outcome;
    }
    match write(run, store, &generator, trigger, already, None) {
        Ok((saved, _, _)) => outcome.saved = Some(saved),
        Err(error) => run.warn(Warning::ResumeLogNotSaved {
            trigger: trigger.key(),
            error,
        }),
    }
    outcome
}

/// Writes a log now, whatever the triggers say (`ctxmon resume-log generate`). `agent` is the
/// document the agent wrote, the highest-priority source. The session is `ctx.session_id`.
/// Fails only when the log cannot be saved; every other problem is a warning. The session's
/// state is read (for the fill after a compaction), never written.
pub fn generate_now(
    ctx: &HookContext<'_>,
    ports: &HookPorts<'_>,
    store: &dyn ResumeLogStore,
    agent: Option<&ResumeLogDraft>,
) -> Result<GenerateOutcome, PortError> {
    let generator = ResumeLogGenerator::from_config(&ctx.config.resume_logs);
    let mut run = HookRun::new(*ctx, *ports);
    let written = write(
        &mut run,
        store,
        &generator,
        TriggerKind::Manual,
        AlreadyRead::default(),
        agent,
    );
    // The state is unchanged and no event is pending: finishing only hands the warnings over.
    let warnings = run.finish();
    let (saved, generated, removed) = written?;
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
/// baseline, as prompt-submit and the status line do. Measured as `status` measures a
/// session: a compaction no response has measured since names no model in the reading, and
/// the log would say "unknown" where status and the checkpoint name the session's model.
fn measure_after_compactions(
    run: &mut HookRun<'_>,
    checkpoint: Option<&CheckpointData>,
) -> FillEstimate {
    let (ctx, ports) = (run.ctx, run.ports);
    let measurement = ContextFillEstimator::new(ports.transcripts, ctx.settings).measure_session(
        EstimateRequest {
            transcript_path: ctx.transcript_path,
            ..Default::default()
        },
    );
    let mut state = run.state().clone();
    if let Some(cp) = checkpoint {
        note_checkpoint(&mut state, cp);
    }
    reset_if_stale(
        measurement.estimate,
        measurement.reading.as_ref(),
        &state,
        ctx.settings,
    )
}

fn write(
    run: &mut HookRun<'_>,
    store: &dyn ResumeLogStore,
    generator: &ResumeLogGenerator<'_>,
    trigger: TriggerKind,
    already: AlreadyRead<'_>,
    agent: Option<&ResumeLogDraft>,
) -> Result<(SavedResumeLog, GeneratedLog, Vec<SessionKey>), PortError> {
    let (ctx, ports) = (run.ctx, run.ports);
    let session_id = ctx.session_id.unwrap_or_default();
    let checkpoint = match already.checkpoint {
        Some(cp) => Some(cp.clone()),
        None => latest_checkpoint(run, session_id),
    };
    let measured;
    let fill = match already.fill {
        Some(f) => f,
        None => {
            measured = measure_after_compactions(run, checkpoint.as_ref());
            &measured
        }
    };
    let read;
    let tail = match already.tail {
        Some(lines) => Some(lines),
        None => {
            read = read_tail(run);
            read.as_deref()
        }
    };
    // The head only when the tail was readable: an unreadable transcript is one warning.
    let head = match already.head {
        Some(h) => Some(h.clone()),
        None => tail.as_ref().and_then(|_| read_head(run)),
    };
    let git = match already.git {
        Some(g) => Some(g.clone()),
        None => git_snapshot(&ctx, &ports),
    };
    let previous = previous_log(run, store, session_id);
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
        derived: already.derived.filter(|_| already.tail.is_some()),
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
            run.warn(Warning::ResumeLogsNotCleanedUp(e));
            Vec::new()
        }
    };
    // Recorded now, not with the hook's events: the log exists from this moment.
    let event = DomainEvent::ResumeLogGenerated {
        trigger: trigger.key(),
        path: saved.location.clone(),
        tokens: generated.rendered.total_tokens().get(),
    };
    let record = EventRecord::new(now, ctx.session_id.map(str::to_string), event);
    if let Err(e) = ports.events.append(&[record]) {
        run.warn(Warning::EventsNotRecorded(e));
    }
    Ok((saved, generated, removed))
}

/// The session's stored log, which the new one replaces (one small file: a read costs less
/// than losing what it says). Unreadable: a warning, and the new log stands alone.
fn previous_log(
    run: &mut HookRun<'_>,
    store: &dyn ResumeLogStore,
    session_id: &str,
) -> Option<ResumeLog> {
    match store.load(&SessionKey::from_raw(session_id)) {
        Ok(stored) => stored.map(|s| s.log),
        Err(e) => {
            run.warn(Warning::PreviousResumeLogUnreadable(e));
            None
        }
    }
}

/// The newest checkpoint of this session, acknowledged or not: acknowledgement says the agent
/// was told about it, not that its content stopped mattering.
fn latest_checkpoint(run: &mut HookRun<'_>, session_id: &str) -> Option<CheckpointData> {
    match run.ports.checkpoints.of_session(session_id) {
        Ok(own) => own
            .into_iter()
            .max_by_key(|c| c.data.checkpoint_id)
            .map(|c| c.data),
        Err(e) => {
            run.warn(Warning::CheckpointsUnreadable(e));
            None
        }
    }
}

fn read_tail(run: &mut HookRun<'_>) -> Option<Vec<TranscriptRecord>> {
    let ctx = run.ctx;
    let path = ctx.transcript_path?;
    match run
        .ports
        .tail
        .read_tail(path, ctx.config.resumption.tail_bytes)
    {
        Ok(lines) => Some(lines),
        Err(e) => {
            run.warn(Warning::TailUnreadable(e.to_string()));
            None
        }
    }
}

/// The transcript's start, read until its first request (at most [`HEAD_BYTES`]).
pub(crate) fn read_head(run: &mut HookRun<'_>) -> Option<TranscriptHead> {
    let path = run.ctx.transcript_path?;
    let mut head = TranscriptHead::default();
    match run
        .ports
        .tail
        .read_head(path, HEAD_BYTES, &mut |line| head.visit(line))
    {
        Ok(()) => Some(head),
        Err(e) => {
            run.warn(Warning::HeadUnreadable(e.to_string()));
            None
        }
    }
}

/// Git of the session's working directory, else of the project.
pub(crate) fn git_snapshot(ctx: &HookContext<'_>, ports: &HookPorts<'_>) -> Option<GitSnapshot> {
    git_snapshot_started(ctx, ports).map(PendingGit::finish)
}

/// [`git_snapshot`] with git's answer still to come: the head is read at once, the uncommitted
/// changes are asked now ([`GitInfo::dirty_files_started`]) and waited for by
/// [`PendingGit::finish`], so that the caller can do other work while git runs.
///
/// [`GitInfo::dirty_files_started`]: crate::ports::GitInfo::dirty_files_started
pub(crate) fn git_snapshot_started<'a>(
    ctx: &HookContext<'_>,
    ports: &HookPorts<'a>,
) -> Option<PendingGit<'a>> {
    let cwd = ctx.cwd.map(Path::new).filter(|p| !p.as_os_str().is_empty());
    let (dir, head) = match cwd.and_then(|d| Some((d, ports.git.head(d)?))) {
        Some(found) => found,
        None => (ctx.project_dir, ports.git.head(ctx.project_dir)?),
    };
    Some(PendingGit {
        head,
        dirty_files: ports.git.dirty_files_started(dir),
    })
}

/// A [`GitSnapshot`] whose uncommitted changes git is still working out.
pub(crate) struct PendingGit<'a> {
    head: GitHead,
    dirty_files: PendingDirtyFiles<'a>,
}

impl PendingGit<'_> {
    /// Waits for git's answer.
    pub(crate) fn finish(self) -> GitSnapshot {
        GitSnapshot {
            head: self.head,
            dirty_files: (self.dirty_files)(),
        }
    }
}
