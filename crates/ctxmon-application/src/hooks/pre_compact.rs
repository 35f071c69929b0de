//! PreCompact: checkpoint the session right before Claude Code compacts it (spec §5).

use std::cell::OnceCell;
use std::collections::BTreeSet;

use ctxmon_domain::{
    CheckpointData, CheckpointId, CompactionTrigger, DomainEvent, FillEstimate, ResumptionState,
    SessionInfo,
};

use crate::handoff::compaction::note_checkpoint;
use crate::handoff::resume_log::{
    AlreadyRead, GitSnapshot, TriggerKind, generate_for_trigger, git_snapshot, read_head,
};
use crate::handoff::resumption::{TranscriptHead, derive_from_tail, from_section};
use crate::monitor::fill::{ContextFillEstimator, EstimateRequest};
use crate::ports::{Allocation, AutoPrune, ResumeLogStore, TranscriptRecord};
use crate::run::{HookContext, HookPorts, load_state, record, save_state};

#[derive(Debug, Clone, Copy, Default)]
pub struct PreCompactInput<'a> {
    pub trigger: Option<&'a str>,
    pub custom_instructions: Option<&'a str>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct PreCompactOutcome {
    pub checkpoint: Option<CheckpointData>,
    /// "Checkpoint cx-004 saved at 83% context fill" (Claude Code ignores it for PreCompact;
    /// `--json` callers and the log see it).
    pub system_message: Option<String>,
    /// Old acknowledged checkpoints deleted after this one was saved (`checkpoints.keep`):
    /// housekeeping for the hook log, not a problem.
    pub pruned: Vec<CheckpointId>,
    pub warnings: Vec<String>,
}

pub fn pre_compact(
    ctx: &HookContext<'_>,
    ports: &HookPorts<'_>,
    logs: &dyn ResumeLogStore,
    input: PreCompactInput<'_>,
) -> PreCompactOutcome {
    let mut warnings = Vec::new();
    let estimate =
        ContextFillEstimator::new(ports.transcripts, ctx.settings).estimate(EstimateRequest {
            transcript_path: ctx.transcript_path,
            ..Default::default()
        });
    // The tail is the hook's costliest read; the checkpoint's derivation and the pre-compact
    // resume log share one reading of it.
    let tail = OnceCell::new();
    let head = OnceCell::new();
    // Branch, head and the uncommitted changes (a bounded `git status`), asked once for the
    // checkpoint and the resume log alike.
    let snapshot = git_snapshot(ctx, ports);
    let resumption = resumption_state(ctx, ports, &tail, &head, snapshot.as_ref(), &mut warnings);
    let git = snapshot.as_ref().map(|g| g.head.clone());
    if git
        .as_ref()
        .is_some_and(|g| g.branch.is_none() && g.head.is_none())
    {
        warnings.push(
            "git HEAD unreadable (not a regular file, or neither a ref nor a commit id); the checkpoint records no branch or commit"
                .to_string(),
        );
    }
    let now = ports.clock.now();
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
    // The sequence is the repository's to allocate, under the same lock as the id: counted
    // here from a listing, it was read outside that lock (concurrent compactions of one
    // session shared numbers), went down after a prune, and cost a read of every checkpoint.
    // A blank session id names no session (as for resume logs): no series to number.
    let session = ctx.session_id.filter(|s| !s.trim().is_empty());
    let checkpoint = match ports.checkpoints.save_new(session, &mut build) {
        Ok(cp) => cp,
        Err(e) => {
            warnings.push(format!("checkpoint not saved: {e}"));
            return PreCompactOutcome {
                checkpoint: None,
                system_message: None,
                pruned: Vec::new(),
                warnings,
            };
        }
    };
    let sequence = checkpoint.compaction_sequence;
    let mut state = load_state(ctx, ports, &mut warnings);
    // From here the state describes the context after the compaction (flags cleared, per-context
    // triggers re-armed, `pre_compact` among them so that every compaction writes its log).
    note_checkpoint(&mut state, &checkpoint);
    // The resume log written now draws on the checkpoint just saved (its resumption state). It
    // hands over the context being compacted, so it does not make the new one's handoff
    // complete: `handoff_complete` stays cleared.
    let fired = generate_for_trigger(
        ctx,
        ports,
        logs,
        &mut state,
        TriggerKind::PreCompact,
        AlreadyRead {
            fill: Some(&estimate),
            tail: tail.get().and_then(|read| read.as_deref().ok()),
            checkpoint: Some(&checkpoint),
            head: head.get().and_then(Option::as_ref),
            git: snapshot.as_ref(),
        },
    );
    warnings.extend(fired.warnings);
    save_state(ctx, ports, &mut state, &mut warnings);
    let id = checkpoint.checkpoint_id.to_string();
    let percent = estimate.percent();
    let events = vec![
        DomainEvent::CompactionDetected {
            trigger: trigger.key().to_string(),
            fill_percentage: estimate.fill_percentage,
            compaction_sequence: sequence,
        },
        DomainEvent::CheckpointCreated {
            checkpoint_id: id.clone(),
            compaction_sequence: sequence,
        },
        DomainEvent::SessionAbandoned {
            reason: abandon_reason(&estimate),
        },
    ];
    record(ctx, ports, events, &mut warnings);
    let pruned = prune_old(ctx, ports, logs, &checkpoint, &mut warnings);
    PreCompactOutcome {
        system_message: Some(format!("Checkpoint {id} saved at {percent}% context fill")),
        checkpoint: Some(checkpoint),
        pruned,
        warnings,
    }
}

/// Automatic pruning removes at most this many checkpoints per compaction, so a folder that
/// grew large (before this existed, or with a larger `checkpoints.keep`) shrinks over several
/// compactions instead of costing one of them its deadline.
const MAX_PRUNED_PER_COMPACTION: usize = 32;

/// Deletes acknowledged checkpoints beyond `checkpoints.keep`, once the new checkpoint is
/// safely written. Spared: the one just saved (the session's newest) and every checkpoint a
/// resume log names. Problems are warnings: the checkpoint is saved either way.
fn prune_old(
    ctx: &HookContext<'_>,
    ports: &HookPorts<'_>,
    logs: &dyn ResumeLogStore,
    saved: &CheckpointData,
    warnings: &mut Vec<String>,
) -> Vec<CheckpointId> {
    let mut spare: BTreeSet<CheckpointId> = match logs.named_checkpoints() {
        Ok(named) => named,
        Err(e) => {
            // Without the logs' names nothing can be pruned safely; next time, perhaps.
            warnings.push(format!(
                "old checkpoints not pruned: resume logs unreadable: {e}"
            ));
            return Vec::new();
        }
    };
    spare.insert(saved.checkpoint_id);
    let policy = AutoPrune {
        keep: usize::try_from(ctx.config.checkpoints.keep.max(1)).unwrap_or(usize::MAX),
        spare: &spare,
        max_removals: MAX_PRUNED_PER_COMPACTION,
    };
    match ports.checkpoints.prune_acknowledged(policy) {
        Ok(outcome) => {
            warnings.extend(outcome.unreadable);
            outcome.pruned
        }
        Err(e) => {
            warnings.push(format!("old checkpoints not pruned: {e}"));
            Vec::new()
        }
    }
}

pub fn abandon_reason(estimate: &FillEstimate) -> String {
    format!("compaction at {}%", estimate.percent())
}

/// The source file's `resumption:` section, else (when allowed) state derived from the
/// transcript tail; `None` when neither yields anything.
fn resumption_state(
    ctx: &HookContext<'_>,
    ports: &HookPorts<'_>,
    tail: &OnceCell<Result<Vec<TranscriptRecord>, String>>,
    head: &OnceCell<Option<TranscriptHead>>,
    git: Option<&GitSnapshot>,
    warnings: &mut Vec<String>,
) -> Option<ResumptionState> {
    match ports.source.read(ctx.project_dir) {
        Ok(Some(doc)) => {
            warnings.extend(doc.warnings.iter().map(|w| format!("{}: {w}", doc.path)));
            if let Some(section) = &doc.section {
                let state = from_section(section);
                if !state.is_empty() {
                    return Some(state);
                }
            }
        }
        Ok(None) => {}
        Err(e) => warnings.push(format!("resumption source unreadable: {e}")),
    }
    if !ctx.config.resumption.derive_from_transcript {
        return None;
    }
    let path = ctx.transcript_path?;
    let read = tail.get_or_init(|| {
        ports
            .tail
            .read_tail(path, ctx.config.resumption.tail_bytes)
            .map_err(|e| e.to_string())
    });
    match read {
        Ok(lines) => {
            let mut state = derive_from_tail(lines);
            // The goal is the session's first typed request: its start has it, the tail only
            // in a short session.
            let start = head.get_or_init(|| read_head(ctx, ports, warnings));
            if let Some(goal) = start.as_ref().and_then(|h| h.goal.clone()) {
                state.goal = Some(goal);
            }
            state.uncommitted_changes = git
                .and_then(|g| g.dirty_files.as_ref())
                .map(|d| d.len() as u64);
            Some(state).filter(|s| !s.is_empty())
        }
        Err(e) => {
            warnings.push(format!("transcript tail unreadable: {e}"));
            None
        }
    }
}
