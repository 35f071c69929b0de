//! PreCompact: checkpoint the session right before Claude Code compacts it (contract C5).

use std::cell::{Cell, OnceCell};
use std::collections::BTreeSet;

use ctxmon_domain::{
    CheckpointData, CheckpointId, CompactionTrigger, DomainEvent, FillEstimate, ResumptionOrigin,
    ResumptionState, SessionInfo, Timestamp,
};

use super::source_problems;
use crate::handoff::compaction::note_checkpoint;
use crate::handoff::resume_log::{
    AlreadyRead, GitSnapshot, PendingGit, TriggerKind, generate_for_trigger, git_snapshot_started,
    read_head,
};
use crate::handoff::resumption::{
    NOTE_MAX_BYTES, TailDerivation, TranscriptHead, derive_tail, from_section, last_timestamp,
    note_of,
};
use crate::handoff::source_staleness::older_than_newest_checkpoint;
use crate::monitor::fill::{ContextFillEstimator, EstimateRequest};
use crate::ports::{Allocation, AutoPrune, NoteFile, ResumeLogStore, TranscriptRecord};
use crate::run::{HookContext, HookPorts, HookRun, Warning};

/// What PreCompact reads of its input.
#[derive(Debug, Clone, Copy, Default)]
pub struct PreCompactInput<'a> {
    /// `manual` or `auto`.
    pub trigger: Option<&'a str>,
    /// What the user gave `/compact`, kept in the checkpoint.
    pub custom_instructions: Option<&'a str>,
}

/// What PreCompact did.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PreCompactOutcome {
    /// The checkpoint written; `None` when it could not be.
    pub checkpoint: Option<CheckpointData>,
    /// "Checkpoint cx-004 saved at 83% context fill" (Claude Code ignores it for PreCompact;
    /// `--json` callers and the log see it).
    pub system_message: Option<String>,
    /// Old acknowledged checkpoints deleted after this one was saved (`checkpoints.keep`):
    /// housekeeping for the hook log, not a problem.
    pub pruned: Vec<CheckpointId>,
    /// Problems that did not stop the hook; for the hook log.
    pub warnings: Vec<Warning>,
}

/// Writes the checkpoint (fill, resumption state, session facts), records the compaction,
/// writes the `pre_compact` resume log when due and prunes old checkpoints. Never fails:
/// problems come back in `warnings`.
pub fn pre_compact(
    ctx: &HookContext<'_>,
    ports: &HookPorts<'_>,
    logs: &dyn ResumeLogStore,
    input: PreCompactInput<'_>,
) -> PreCompactOutcome {
    let mut run = HookRun::new(*ctx, *ports);
    let mut outcome = run_pre_compact(&mut run, logs, input);
    outcome.warnings = run.finish();
    outcome
}

/// What the transcript and git said, read once for the checkpoint and the resume log alike:
/// the tail is the hook's costliest read (parsing it twice cost half the hook's time), and
/// `git status` is bounded but not free. git is asked first and its answer taken when first
/// needed, after the tail is parsed: git runs meanwhile, and the hook waits for the slower of
/// the two rather than for both.
struct Reads<'a> {
    tail: OnceCell<Result<Vec<TranscriptRecord>, String>>,
    /// What the tail alone says (`derive_from_tail`), before the hook adds the session's start,
    /// git and carried rules: the resume log draws on it too, and deriving it was a fifth of
    /// the hook's time.
    derived: OnceCell<TailDerivation>,
    head: OnceCell<Option<TranscriptHead>>,
    pending_git: Cell<Option<PendingGit<'a>>>,
    git: OnceCell<Option<GitSnapshot>>,
}

impl<'a> Reads<'a> {
    fn new(pending_git: Option<PendingGit<'a>>) -> Reads<'a> {
        Reads {
            tail: OnceCell::new(),
            derived: OnceCell::new(),
            head: OnceCell::new(),
            pending_git: Cell::new(pending_git),
            git: OnceCell::new(),
        }
    }

    /// git's snapshot, waited for on first use.
    fn git(&self) -> Option<&GitSnapshot> {
        self.git
            .get_or_init(|| self.pending_git.take().map(PendingGit::finish))
            .as_ref()
    }
}

fn run_pre_compact(
    run: &mut HookRun<'_>,
    logs: &dyn ResumeLogStore,
    input: PreCompactInput<'_>,
) -> PreCompactOutcome {
    let (ctx, ports) = (run.ctx, run.ports);
    // git first: its start (a process) overlaps the fill's read rather than the tail's parse.
    let reads = Reads::new(git_snapshot_started(&ctx, &ports));
    let estimate =
        ContextFillEstimator::new(ports.transcripts, ctx.settings).estimate(EstimateRequest {
            transcript_path: ctx.transcript_path,
            ..Default::default()
        });
    let resumption = resumption_state(run, &reads);
    let resumption = with_note(run, &reads, resumption);
    let Some(checkpoint) = save_checkpoint(run, &estimate, resumption, &reads, input) else {
        return PreCompactOutcome::default();
    };
    // From here the state describes the context after the compaction (flags cleared, per-context
    // triggers re-armed, `pre_compact` among them so that every compaction writes its log).
    note_checkpoint(run.state(), &checkpoint);
    // The resume log written now draws on the checkpoint just saved (its resumption state). It
    // hands over the context being compacted, so it does not make the new one's handoff
    // complete: `handoff_complete` stays cleared.
    let already = AlreadyRead {
        fill: Some(&estimate),
        tail: reads.tail.get().and_then(|read| read.as_deref().ok()),
        derived: reads.derived.get(),
        checkpoint: Some(&checkpoint),
        head: reads.head.get().and_then(Option::as_ref),
        git: reads.git(),
    };
    generate_for_trigger(run, logs, TriggerKind::PreCompact, already);
    run.save_state();
    record_compaction(run, &estimate, &checkpoint);
    // Recorded before pruning, which may take a while and is only housekeeping.
    run.record_events();
    let pruned = prune_old(run, logs, &checkpoint);
    PreCompactOutcome {
        system_message: Some(format!(
            "Checkpoint {} saved at {}% context fill",
            checkpoint.checkpoint_id,
            estimate.percent()
        )),
        checkpoint: Some(checkpoint),
        pruned,
        warnings: Vec::new(),
    }
}

/// Saves the checkpoint: its id and the session's compaction sequence are the repository's to
/// allocate, under the same lock (counted here from a listing, they were read outside that
/// lock: concurrent compactions of one session shared numbers, went down after a prune, and
/// cost a read of every checkpoint). `None`, with a warning, when it could not be saved.
fn save_checkpoint(
    run: &mut HookRun<'_>,
    estimate: &FillEstimate,
    resumption: Option<ResumptionState>,
    reads: &Reads<'_>,
    input: PreCompactInput<'_>,
) -> Option<CheckpointData> {
    let ctx = run.ctx;
    let git = reads.git().map(|g| g.head.clone());
    if git
        .as_ref()
        .is_some_and(|g| g.branch.is_none() && g.head.is_none())
    {
        run.warn(Warning::GitHeadUnreadable);
    }
    let now = run.ports.clock.now();
    let trigger = CompactionTrigger::parse(input.trigger);
    let session_info = SessionInfo {
        session_id: ctx.session_id.map(str::to_string),
        project_dir: Some(ctx.project_dir.display().to_string()),
        cwd: ctx.cwd.map(str::to_string),
        transcript_path: ctx.transcript_path.map(|p| p.display().to_string()),
        git_branch: git.as_ref().and_then(|g| g.branch.clone()),
        git_head: git.and_then(|g| g.head),
    };
    let custom_instructions = input
        .custom_instructions
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string);
    // Runs under the repository's lock: it only stamps the allocation onto what is ready.
    let mut build = |given: Allocation| CheckpointData {
        schema_version: CheckpointData::SCHEMA_VERSION,
        checkpoint_id: given.id,
        timestamp: now.to_rfc3339(),
        created_at_ms: now,
        compaction_sequence: given.compaction_sequence,
        trigger,
        custom_instructions: custom_instructions.clone(),
        context_state: estimate.clone(),
        resumption_state: resumption.clone(),
        session_info: session_info.clone(),
    };
    // A blank session id names no session (as for resume logs): no series to number.
    let session = ctx.session_id.filter(|s| !s.trim().is_empty());
    match run.ports.checkpoints.save_new(session, &mut build) {
        Ok(cp) => Some(cp),
        Err(e) => {
            run.warn(Warning::CheckpointNotSaved(e));
            None
        }
    }
}

/// The compaction, the checkpoint and the end of the context being compacted, as events.
fn record_compaction(run: &mut HookRun<'_>, estimate: &FillEstimate, checkpoint: &CheckpointData) {
    let sequence = checkpoint.compaction_sequence;
    // A cleared session was not compacted: its checkpoint is a handoff, not a compaction.
    if checkpoint.trigger != CompactionTrigger::Clear {
        run.record(DomainEvent::CompactionDetected {
            trigger: checkpoint.trigger.key().to_string(),
            fill_percentage: estimate.fill_percentage,
            compaction_sequence: sequence,
        });
    }
    run.record(DomainEvent::CheckpointCreated {
        checkpoint_id: checkpoint.checkpoint_id.to_string(),
        compaction_sequence: sequence,
    });
    run.record(DomainEvent::SessionAbandoned {
        reason: abandon_reason(estimate),
    });
}

/// Automatic pruning removes at most this many checkpoints per compaction, so a folder that
/// grew large (before this existed, or with a larger `checkpoints.keep`) shrinks over several
/// compactions instead of costing one of them its deadline.
const MAX_PRUNED_PER_COMPACTION: usize = 32;

/// Deletes checkpoints beyond `checkpoints.keep` that the agent no longer needs (acknowledged,
/// or superseded by a newer one of their session), once the new checkpoint is safely written. Spared: the one just saved (the session's newest) and every checkpoint a
/// resume log names. Problems are warnings: the checkpoint is saved either way.
fn prune_old(
    run: &mut HookRun<'_>,
    logs: &dyn ResumeLogStore,
    saved: &CheckpointData,
) -> Vec<CheckpointId> {
    let mut spare: BTreeSet<CheckpointId> = match logs.named_checkpoints() {
        Ok(named) => named,
        Err(e) => {
            // Without the logs' names nothing can be pruned safely; next time, perhaps.
            run.warn(Warning::PruneWithoutResumeLogs(e));
            return Vec::new();
        }
    };
    spare.insert(saved.checkpoint_id);
    let policy = AutoPrune {
        keep: usize::try_from(run.ctx.config.checkpoints.keep.max(1)).unwrap_or(usize::MAX),
        spare: &spare,
        max_removals: MAX_PRUNED_PER_COMPACTION,
    };
    match run.ports.checkpoints.prune_automatic(policy) {
        Ok(outcome) => {
            for kept in outcome.unreadable {
                run.warn(Warning::PruneKept(kept));
            }
            outcome.pruned
        }
        Err(e) => {
            run.warn(Warning::PruneFailed(e));
            Vec::new()
        }
    }
}

/// The `SessionAbandoned` reason: `compaction at N%`.
pub fn abandon_reason(estimate: &FillEstimate) -> String {
    format!("compaction at {}%", estimate.percent())
}

/// The source file's `resumption:` section while it is current; else (when allowed) state
/// derived from the transcript tail, with a stale source file's items that cannot contradict
/// the transcript added (its decisions, files, quality and agents; its next steps only when
/// the transcript has none). `None` when neither yields anything.
fn resumption_state(run: &mut HookRun<'_>, reads: &Reads<'_>) -> Option<ResumptionState> {
    let (ctx, ports) = (run.ctx, run.ports);
    let mut from_file: Option<ResumptionState> = None;
    match ports.source.read(ctx.project_dir) {
        Ok(Some(doc)) => {
            source_problems(run, &doc);
            if let Some(section) = &doc.section {
                let state = from_section(section);
                if !state.is_empty() {
                    let updated_at = state.updated_at.clone();
                    if !older_than_newest_checkpoint(run, updated_at.as_deref())
                        && !older_than_session(run, reads, updated_at.as_deref())
                    {
                        return Some(state);
                    }
                    from_file = Some(state);
                }
            }
        }
        Ok(None) => {}
        Err(e) => run.warn(Warning::SourceUnreadable(e)),
    }
    let derived = if ctx.config.resumption.derive_from_transcript {
        transcript_state(run, reads)
    } else {
        None
    };
    match (derived, from_file) {
        (Some(mut state), Some(file)) => {
            let records = tail_records(run, reads).unwrap_or_default();
            let location = ports
                .source
                .locate(ctx.project_dir)
                .map(|p| p.display().to_string())
                .unwrap_or_default();
            add_what_cannot_contradict(&mut state, file, records, &location);
            Some(state)
        }
        (derived, file) => derived.or(file),
    }
}

/// Whether the source file was written before the session's latest activity (the newest
/// record of the transcript's tail), or says no time it was written: then the transcript
/// knows better, and the file is merged under its facts rather than put in their place. A
/// file on a project's first compaction is judged by this too, where no checkpoint is.
fn older_than_session(run: &mut HookRun<'_>, reads: &Reads<'_>, updated_at: Option<&str>) -> bool {
    let Some(records) = tail_records(run, reads) else {
        // No transcript to compare with: the file is all there is.
        return false;
    };
    let Some(latest) = last_timestamp(records)
        .as_deref()
        .and_then(Timestamp::parse_rfc3339)
    else {
        return false;
    };
    updated_at
        .and_then(Timestamp::parse_rfc3339)
        .is_none_or(|at| at < latest)
}

/// State derived from the transcript tail, with the rules carried from this session's earlier
/// compactions; `None` when the tail cannot be read or says nothing.
fn transcript_state(run: &mut HookRun<'_>, reads: &Reads<'_>) -> Option<ResumptionState> {
    let read = tail_records(run, reads);
    match read {
        Some(lines) => {
            // Rules said before the tail were handed on by the last compaction: found with the
            // tail's own in one pass over its requests.
            let carried = std::mem::take(&mut run.state().carried_rules);
            let mut state = reads
                .derived
                .get_or_init(|| derive_tail(lines, &carried))
                .state
                .clone();
            // The first request is the session's first typed one: its start has it, the tail
            // only in a short session.
            let start = reads.head.get_or_init(|| read_head(run));
            if let Some(goal) = start.as_ref().and_then(|h| h.first_asked.clone()) {
                state.goal = Some(goal);
            }
            state.uncommitted_changes = reads
                .git()
                .and_then(|g| g.dirty_files.as_ref())
                .map(|d| d.len() as u64);
            run.state().carried_rules = state.rules.clone();
            Some(state).filter(|s| !s.is_empty())
        }
        None => None,
    }
}

/// The state with the agent's own note of this session, when it keeps one: its text, when it
/// was written and what the transcript shows happened after it.
fn with_note(
    run: &mut HookRun<'_>,
    reads: &Reads<'_>,
    state: Option<ResumptionState>,
) -> Option<ResumptionState> {
    let (ctx, ports) = (run.ctx, run.ports);
    let Some(key) = ctx.session_key() else {
        return state;
    };
    let Some(location) = ports.files.note_location(ctx.project_dir, &key) else {
        return state;
    };
    let file = match ports.files.read_note(ctx.project_dir, &key, NOTE_MAX_BYTES) {
        Ok(Some(file)) => file,
        Ok(None) => return state,
        Err(e) => {
            run.warn(Warning::NoteUnreadable(e));
            return state;
        }
    };
    let records = tail_records(run, reads).unwrap_or_default();
    let Some(note) = note_of(&file, &location, records) else {
        return state;
    };
    let mut state = state.unwrap_or_else(|| ResumptionState {
        origin: ResumptionOrigin::Transcript,
        ..ResumptionState::default()
    });
    state.note = Some(note);
    Some(state)
}

/// The transcript's tail, read once for the whole hook; `None` (with a warning the first
/// time) when it cannot be read.
fn tail_records<'r>(run: &mut HookRun<'_>, reads: &'r Reads<'_>) -> Option<&'r [TranscriptRecord]> {
    let (ctx, ports) = (run.ctx, run.ports);
    let path = ctx.transcript_path?;
    let first = reads.tail.get().is_none();
    let read = reads.tail.get_or_init(|| {
        ports
            .tail
            .read_tail(path, ctx.config.resumption.tail_bytes)
            .map_err(|e| e.to_string())
    });
    match read {
        Ok(lines) => Some(lines),
        Err(e) => {
            if first {
                run.warn(Warning::TailUnreadable(e.clone()));
            }
            None
        }
    }
}

/// A stale source file's items that describe no present state: decisions and their reasons,
/// files to read (checked on disk when handed back), the quality trajectory and the agents'
/// summaries; its next steps only when the transcript has no open items. Its summary describes
/// the state it was written in, so it is left out.
fn add_what_cannot_contradict(
    state: &mut ResumptionState,
    file: ResumptionState,
    records: &[TranscriptRecord],
    location: &str,
) {
    // The file's summary is the agent's own account as of the file's time: shown as its note,
    // with what happened after it, unless the agent keeps a note of its own.
    if state.note.is_none()
        && let Some(summary) = file.summary.as_deref()
    {
        let modified = file
            .updated_at
            .as_deref()
            .and_then(Timestamp::parse_rfc3339);
        let source = NoteFile {
            text: summary.to_string(),
            modified,
            cut: false,
        };
        state.note = note_of(&source, location, records);
    }
    state.decisions = file.decisions;
    state.files_to_read = file.files_to_read;
    state.quality_trajectory = file.quality_trajectory;
    state.agent_summaries = file.agent_summaries;
    state.updated_at = file.updated_at;
    let open = state
        .todos
        .iter()
        .chain(&state.tasks)
        .any(|t| t.status != "completed");
    if !open {
        state.next_steps = file.next_steps;
    }
}
