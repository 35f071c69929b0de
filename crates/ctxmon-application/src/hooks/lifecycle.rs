//! PostCompact and SessionEnd: record what happened; never fail.

use ctxmon_domain::DomainEvent;

use super::{HookContext, HookPorts, record};

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

pub fn session_end(
    ctx: &HookContext<'_>,
    ports: &HookPorts<'_>,
    reason: Option<&str>,
) -> Vec<String> {
    let mut warnings = Vec::new();
    let event = DomainEvent::SessionEnded {
        reason: reason.unwrap_or("unknown").chars().take(200).collect(),
    };
    record(ctx, ports, vec![event], &mut warnings);
    warnings
}
