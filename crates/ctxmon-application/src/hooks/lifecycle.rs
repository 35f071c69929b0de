//! PostCompact and SessionEnd: record what happened; never fail.

use ctxmon_domain::DomainEvent;

use super::pre_compact::{PreCompactInput, pre_compact};
use crate::handoff::resume_log::{AlreadyRead, TriggerKind, generate_for_trigger};
use crate::ports::ResumeLogStore;
use crate::run::{HookContext, HookPorts, HookRun, Warning};

/// Records `CompactionCompleted` (the trigger and the summary's length, never its text).
pub fn post_compact(
    ctx: &HookContext<'_>,
    ports: &HookPorts<'_>,
    trigger: Option<&str>,
    summary: Option<&str>,
) -> Vec<Warning> {
    let mut run = HookRun::new(*ctx, *ports);
    run.record(DomainEvent::CompactionCompleted {
        trigger: trigger.unwrap_or("unknown").chars().take(64).collect(),
        summary_chars: summary.map_or(0, |s| s.chars().count() as u64),
    });
    run.finish()
}

/// Records the end and writes the `session_end` resume log when it is due (the state is saved
/// only then: it records that the trigger fired).
///
/// A session ended by `/clear` is checkpointed first, as PreCompact checkpoints one being
/// compacted: the session that follows is handed the work back at once, without the wait a
/// compaction's summary costs.
pub fn session_end(
    ctx: &HookContext<'_>,
    ports: &HookPorts<'_>,
    logs: &dyn ResumeLogStore,
    reason: Option<&str>,
) -> Vec<Warning> {
    let mut warnings = Vec::new();
    if reason.map(str::trim) == Some("clear") {
        let saved = pre_compact(
            ctx,
            ports,
            logs,
            PreCompactInput {
                trigger: Some("clear"),
                custom_instructions: None,
            },
        );
        warnings = saved.warnings;
    }
    let mut run = HookRun::new(*ctx, *ports);
    generate_for_trigger(
        &mut run,
        logs,
        TriggerKind::SessionEnd,
        AlreadyRead::default(),
    );
    run.record(DomainEvent::SessionEnded {
        reason: reason.unwrap_or("unknown").chars().take(200).collect(),
    });
    warnings.extend(run.finish());
    warnings
}
