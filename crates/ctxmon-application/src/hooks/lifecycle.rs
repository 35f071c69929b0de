//! PostCompact and SessionEnd: record what happened; never fail.

use ctxmon_domain::DomainEvent;

use crate::handoff::resume_log::{AlreadyRead, TriggerKind, generate_for_trigger};
use crate::ports::ResumeLogStore;
use crate::run::{HookContext, HookPorts, load_state, record, save_state};

pub fn post_compact(
    ctx: &HookContext<'_>,
    ports: &HookPorts<'_>,
    trigger: Option<&str>,
    summary: Option<&str>,
) -> Vec<String> {
    let mut warnings = Vec::new();
    let event = DomainEvent::CompactionCompleted {
        trigger: trigger.unwrap_or("unknown").chars().take(64).collect(),
        summary_chars: summary.map_or(0, |s| s.chars().count() as u64),
    };
    record(ctx, ports, vec![event], &mut warnings);
    warnings
}

/// Records the end and writes the `session_end` resume log when it is due.
pub fn session_end(
    ctx: &HookContext<'_>,
    ports: &HookPorts<'_>,
    logs: &dyn ResumeLogStore,
    reason: Option<&str>,
) -> Vec<String> {
    let mut warnings = Vec::new();
    let mut state = load_state(ctx, ports, &mut warnings);
    let fired = generate_for_trigger(
        ctx,
        ports,
        logs,
        &mut state,
        TriggerKind::SessionEnd,
        AlreadyRead::default(),
    );
    warnings.extend(fired.warnings);
    if !fired.fired.is_empty() {
        save_state(ctx, ports, &mut state, &mut warnings);
    }
    let event = DomainEvent::SessionEnded {
        reason: reason.unwrap_or("unknown").chars().take(200).collect(),
    };
    record(ctx, ports, vec![event], &mut warnings);
    warnings
}
