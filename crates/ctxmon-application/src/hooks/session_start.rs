//! SessionStart: hand the essentials back after a compaction or at the next session (contract C6).
//!
//! Registered without a matcher: Claude Code fires the `compact` matcher unreliably, so the
//! decision is taken here from `source`. With a checkpoint to hand back, the agent gets its
//! resumption context (which names the checkpoint's session's resume log). Without one, a resume
//! log may still say where the work stopped — the session's own on `resume`/`compact`, the
//! project's most recent one on a new session — and the agent gets a short pointer to it.

use ctxmon_domain::{CheckpointData, SessionKey};

use crate::handoff::delivery::{Delivery, deliver};
use crate::handoff::resume_log::pointer::{
    PointerInput, PointerScope, render_resume_log_pointer, worth_pointing_at,
};
use crate::handoff::resumption::context::HandBackMode;
use crate::ports::{ResumeLogStore, StoredResumeLog};
use crate::run::{HookContext, HookPorts, HookRun, Warning};

/// What SessionStart answers.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionStartOutcome {
    /// `<resumption-context>` (or a pointer to a resume log), when there is anything to hand back.
    pub additional_context: Option<String>,
    /// The checkpoint chosen to hand back, `cx-NNN`.
    pub checkpoint_id: Option<String>,
    /// The hand-back to record once the answer is written.
    pub delivery: Option<Delivery>,
    /// Problems that did not stop the hook; for the hook log.
    pub warnings: Vec<Warning>,
}

/// `source` is Claude Code's `startup|resume|clear|compact|fork`; `logs` the project's resume
/// logs, named in the context or pointed at when there is no checkpoint.
pub fn session_start(
    ctx: &HookContext<'_>,
    ports: &HookPorts<'_>,
    logs: &dyn ResumeLogStore,
    source: Option<&str>,
) -> SessionStartOutcome {
    let mut run = HookRun::new(*ctx, *ports);
    let checkpoint = match choose_checkpoint(ctx, ports, source) {
        Ok(cp) => cp,
        Err(e) => {
            run.warn(Warning::CheckpointsUnreadable(e));
            None
        }
    };
    let checkpoint_id = checkpoint.as_ref().map(|cp| cp.checkpoint_id.to_string());
    let mut additional_context = None;
    let mut delivery = None;
    // Only after a compaction does the agent also get its own summary of the work.
    let beside_summary = source.map(str::trim) == Some("compact");
    let handed = checkpoint.is_some();
    if let Some(cp) = checkpoint {
        // The delivery is recorded once the answer is written (see `Delivery`).
        let mode = if beside_summary {
            HandBackMode::BesideSummary
        } else {
            HandBackMode::Alone
        };
        let (text, given) = deliver(&mut run, logs, &cp, "session_start", mode);
        delivery = given;
        additional_context = (!text.is_empty()).then_some(text);
    }
    // A checkpoint without resumption state hands nothing back either: the log may still help.
    // Beside a summary, a checkpoint with nothing the summary lacks needs no pointer either.
    if additional_context.is_none() && !(beside_summary && handed) {
        additional_context = pointer(&mut run, logs, source);
    }
    SessionStartOutcome {
        additional_context,
        checkpoint_id,
        delivery,
        warnings: run.finish(),
    }
}

/// The pointer to the resume log that applies, if any: on `compact`/`resume` the session's own
/// log (however old: it is this work); on a new session the project's most recent log if it is
/// younger than `resumption.max_age_hours`, like a checkpoint.
fn pointer(
    run: &mut HookRun<'_>,
    logs: &dyn ResumeLogStore,
    source: Option<&str>,
) -> Option<String> {
    let (ctx, ports) = (run.ctx, run.ports);
    let found = match source.map(str::trim) {
        Some("compact") | Some("resume") => {
            let session = ctx.session_id.filter(|s| !s.trim().is_empty())?;
            logs.load(&SessionKey::from_raw(session))
                .map(|log| log.map(|l| (l, PointerScope::ThisSession)))
        }
        _ => logs.latest().map(|latest| {
            latest
                .filter(|l| is_recent(&ctx, &ports, l))
                .map(|l| (l, PointerScope::EarlierSession))
        }),
    };
    let (stored, scope) = match found {
        Ok(found) => found?,
        Err(e) => {
            run.warn(Warning::ResumeLogsUnreadable(e));
            return None;
        }
    };
    if !worth_pointing_at(&stored.log) {
        return None;
    }
    // The session may have checkpoints, all handed back already: the pointer says so.
    let handed_back = match (scope, ctx.session_id) {
        (PointerScope::ThisSession, Some(session)) => match ports.checkpoints.of_session(session) {
            Ok(own) => own.last().map(|c| c.data.checkpoint_id.to_string()),
            Err(e) => {
                run.warn(Warning::CheckpointsUnreadable(e));
                None
            }
        },
        _ => None,
    };
    Some(render_resume_log_pointer(PointerInput {
        scope,
        log: &stored.log,
        location: &stored.entry.location,
        handed_back: handed_back.as_deref(),
    }))
}

/// Written within `resumption.max_age_hours`; a log whose time does not parse is not recent.
fn is_recent(ctx: &HookContext<'_>, ports: &HookPorts<'_>, log: &StoredResumeLog) -> bool {
    let Some(at) = log.entry.generated_at else {
        return false;
    };
    ports.clock.now().millis().saturating_sub(at.millis()) <= max_age_ms(ctx)
}

fn max_age_ms(ctx: &HookContext<'_>) -> i64 {
    i64::try_from(
        ctx.config
            .resumption
            .max_age_hours
            .saturating_mul(3_600_000),
    )
    .unwrap_or(i64::MAX)
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
            let now = ports.clock.now().millis();
            Ok(repo
                .latest_unacknowledged(None)?
                .filter(|cp| now.saturating_sub(cp.created_at_ms.millis()) <= max_age_ms(ctx)))
        }
    }
}
