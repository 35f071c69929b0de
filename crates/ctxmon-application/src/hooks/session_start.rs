//! SessionStart: hand the essentials back after a compaction or at the next session (spec §6).
//!
//! Registered without a matcher: Claude Code fires the `compact` matcher unreliably, so the
//! decision is taken here from `source`.

use ctxmon_domain::{CheckpointData, DomainEvent};

use super::delivery::deliver;
use super::{HookContext, HookPorts, load_state, record, save_state};
use crate::ports::ResumeLogStore;

#[derive(Debug, Clone, PartialEq)]
pub struct SessionStartOutcome {
    pub additional_context: Option<String>,
    pub checkpoint_id: Option<String>,
    pub warnings: Vec<String>,
}

/// `source` is Claude Code's `startup|resume|clear|compact|fork`; `resume_log` the newest
/// resume log's path, mentioned in the context when present.
pub fn session_start(
    ctx: &HookContext<'_>,
    ports: &HookPorts<'_>,
    logs: &dyn ResumeLogStore,
    source: Option<&str>,
) -> SessionStartOutcome {
    let mut warnings = Vec::new();
    let checkpoint = match choose_checkpoint(ctx, ports, source) {
        Ok(cp) => cp,
        Err(e) => {
            warnings.push(format!("checkpoints unreadable: {e}"));
            None
        }
    };
    let Some(cp) = checkpoint else {
        return SessionStartOutcome {
            additional_context: None,
            checkpoint_id: None,
            warnings,
        };
    };
    let mut state = load_state(ctx, ports, &mut warnings);
    // The newest resume log, when one exists, is named so the agent can open the full handoff.
    let resume_log = match logs.list() {
        Ok(listing) => listing.entries.into_iter().next().map(|e| e.location),
        Err(e) => {
            warnings.push(format!("resume logs unreadable: {e}"));
            None
        }
    };
    let (text, event) = deliver(
        ctx,
        ports,
        &cp,
        &mut state,
        "session_start",
        resume_log.as_deref(),
        &mut warnings,
    );
    let mut events: Vec<DomainEvent> = event.into_iter().collect();
    if text.is_empty() {
        events.clear();
    }
    save_state(ctx, ports, &mut state, &mut warnings);
    record(ctx, ports, events, &mut warnings);
    SessionStartOutcome {
        additional_context: (!text.is_empty()).then_some(text),
        checkpoint_id: Some(cp.checkpoint_id.to_string()),
        warnings,
    }
}

/// `compact`/`resume`: the newest unacknowledged checkpoint (this session's first). Any other
/// source (a new session): the project's newest unacknowledged one if it is recent enough.
fn choose_checkpoint(
    ctx: &HookContext<'_>,
    ports: &HookPorts<'_>,
    source: Option<&str>,
) -> Result<Option<CheckpointData>, crate::ports::PortError> {
    let repo = ports.checkpoints;
    match source.map(str::trim) {
        Some("compact") | Some("resume") => {
            if ctx.session_id.is_some()
                && let Some(cp) = repo.latest_unacknowledged(ctx.session_id)?
            {
                return Ok(Some(cp));
            }
            repo.latest_unacknowledged(None)
        }
        _ => {
            let max_age_ms = i64::try_from(
                ctx.config
                    .resumption
                    .max_age_hours
                    .saturating_mul(3_600_000),
            )
            .unwrap_or(i64::MAX);
            let now = ports.clock.now().millis();
            Ok(repo
                .latest_unacknowledged(None)?
                .filter(|cp| now.saturating_sub(cp.created_at_ms.millis()) <= max_age_ms))
        }
    }
}
