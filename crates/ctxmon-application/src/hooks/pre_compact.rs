//! PreCompact: checkpoint the session right before Claude Code compacts it (spec §5).

use std::cell::OnceCell;

use ctxmon_domain::{
    CheckpointData, CompactionTrigger, DomainEvent, FillEstimate, ResumptionState, SessionInfo,
};

use super::compaction::note_checkpoint;
use super::{HookContext, HookPorts, load_state, record, save_state};
use crate::fill::{ContextFillEstimator, EstimateRequest};
use crate::ports::{ResumeLogStore, TranscriptRecord};
use crate::resume_log::{
    AlreadyRead, GitSnapshot, TriggerKind, generate_for_trigger, git_snapshot, read_head,
};
use crate::resumption::{TranscriptHead, derive_from_tail, from_section};

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
    let sequence = next_sequence(ctx, ports, &mut warnings);
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
    let mut build = |id| CheckpointData {
        schema_version: CheckpointData::SCHEMA_VERSION,
        checkpoint_id: id,
        timestamp: now.to_rfc3339(),
        created_at_ms: now,
        compaction_sequence: sequence,
        trigger,
        custom_instructions: custom_instructions.clone(),
        context_state: estimate.clone(),
        resumption_state: resumption.clone(),
        session_info: session_info.clone(),
    };
    let checkpoint = match ports.checkpoints.save_new(&mut build) {
        Ok(cp) => cp,
        Err(e) => {
            warnings.push(format!("checkpoint not saved: {e}"));
            return PreCompactOutcome {
                checkpoint: None,
                system_message: None,
                warnings,
            };
        }
    };
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
    PreCompactOutcome {
        system_message: Some(format!("Checkpoint {id} saved at {percent}% context fill")),
        checkpoint: Some(checkpoint),
        warnings,
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

/// 1 + the number of this session's earlier checkpoints.
fn next_sequence(ctx: &HookContext<'_>, ports: &HookPorts<'_>, warnings: &mut Vec<String>) -> u32 {
    match ports.checkpoints.list() {
        Ok(listing) => {
            warnings.extend(
                listing
                    .problems
                    .iter()
                    .map(|p| format!("checkpoint skipped: {p}")),
            );
            let earlier = listing
                .checkpoints
                .iter()
                .filter(|c| {
                    c.data.session_info.session_id.as_deref() == ctx.session_id
                        && ctx.session_id.is_some()
                })
                .count();
            u32::try_from(earlier)
                .unwrap_or(u32::MAX - 1)
                .saturating_add(1)
        }
        Err(e) => {
            warnings.push(format!("checkpoints unreadable: {e}"));
            1
        }
    }
}
