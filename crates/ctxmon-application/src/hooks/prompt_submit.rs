//! UserPromptSubmit: measure the fill, remember it per session, record tier changes, decide
//! whether to inject `<context-monitor>` (spec §3, §4) and, on the first prompt after a
//! checkpoint, add `<compaction-alert>` — with the resumption context when SessionStart's
//! delivery never happened (spec §7).

use std::path::Path;

use ctxmon_domain::{
    CheckpointData, DomainEvent, FillEstimate, FillSource, SessionState, ThresholdTier,
};

use super::compaction::{note_checkpoint, reset_if_stale, start_new_context};
use super::delivery::deliver;
use super::tier_record::{note_injected, note_measured, track_tier};
use super::{HookContext, HookPorts, load_state, record, save_state};
use crate::checkpoint_ack::acknowledge_with_older;
use crate::compaction_alert::render_compaction_alert;
use crate::config::{InjectPolicy, NOMINAL_STEP};
use crate::fill::{ContextFillEstimator, EstimateRequest};
use crate::monitor_tag::render_context_monitor;
use crate::ports::ResumeLogStore;
use crate::resume_log::{AlreadyRead, TriggerKind, generate_for_trigger};

#[derive(Debug, Clone, PartialEq)]
pub struct PromptSubmitOutcome {
    /// The text for `additionalContext`, when anything is to be injected.
    pub additional_context: Option<String>,
    pub estimate: FillEstimate,
    /// The checkpoint acknowledged by this prompt's alert.
    pub acknowledged: Option<String>,
    /// Problems that did not stop the hook (state unwritable, log unwritable); for the hook log.
    pub warnings: Vec<String>,
}

/// `logs` receives the resume log of a `tier:*` trigger (spec §9) when one is due.
pub fn prompt_submit(
    ctx: &HookContext<'_>,
    ports: &HookPorts<'_>,
    logs: &dyn ResumeLogStore,
) -> PromptSubmitOutcome {
    let mut warnings = Vec::new();
    let mut events = Vec::new();
    let estimator = ContextFillEstimator::new(ports.transcripts, ctx.settings);
    let request = EstimateRequest {
        transcript_path: ctx.transcript_path,
        ..Default::default()
    };
    let measurement = match ctx.config_error {
        // The defaults stand in for a configuration that may set another window or other
        // thresholds: no tier rather than a possibly wrong one (the alert below still goes).
        Some(_) => estimator.unmeasured(
            request,
            "the configuration is invalid (see the error above), so no <context-monitor> tag is injected until it is fixed",
        ),
        None => estimator.measure(request),
    };
    // Before a session's first answer its transcript has no usage record: nothing to measure
    // yet, and nothing wrong (a warning here made `doctor` report every new session).
    let first_response_pending = measurement.awaits_first_response();
    let mut state = load_state(ctx, ports, &mut warnings);
    let loaded = state.clone();

    // The first prompt after a checkpoint of this session: alert (and acknowledge) it. If
    // PreCompact could not record the compaction in the state, it is recorded here.
    let pending = match ctx
        .session_id
        .map(|s| ports.checkpoints.latest_unacknowledged(Some(s)))
    {
        Some(Ok(cp)) => cp,
        Some(Err(e)) => {
            warnings.push(format!("checkpoints unreadable: {e}"));
            None
        }
        None => None,
    };
    if let Some(cp) = &pending {
        note_checkpoint(&mut state, cp);
    }
    note_boundary(&mut state, measurement.reading.as_ref());
    let estimate = reset_if_stale(
        measurement.estimate,
        measurement.reading.as_ref(),
        &state,
        ctx.settings,
    );
    track_tier(&mut state, &estimate, &mut events, ports);
    if estimate.source != FillSource::Unavailable {
        let fired = generate_for_trigger(
            ctx,
            ports,
            logs,
            &mut state,
            TriggerKind::Tier(estimate.threshold_tier),
            AlreadyRead {
                fill: Some(&estimate),
                ..AlreadyRead::default()
            },
        );
        warnings.extend(fired.warnings);
        // A handoff document now exists for this context (cleared again by the next compaction).
        if fired.saved.is_some() {
            state.handoff_complete = true;
        }
    }

    let measured = estimate.source != FillSource::Unavailable;
    let tier = estimate.threshold_tier;
    let inject_monitor = measured
        && ctx.config.context_monitor.enabled
        && should_inject(ctx.config.context_monitor.inject, &state, &estimate);
    let mut parts: Vec<String> = Vec::new();
    if inject_monitor {
        parts.push(render_context_monitor(&estimate, &ctx.settings.thresholds));
        note_injected(&mut state, tier, estimate.fill_percentage);
    } else if measured {
        // A fall seen here is one post-tool-use must not wait for (`tier_record`).
        note_measured(&mut state, tier);
    }
    if !measured
        && !first_response_pending
        && let Some(note) = &estimate.note
    {
        warnings.push(format!("fill not measured: {note}"));
    }
    let acknowledged = if let Some(cp) = &pending {
        // The newest checkpoint's alert covers the session's older ones: two compactions
        // before this prompt give one alert, and the older one is not alerted (with its stale
        // resumption context) on the next prompt. Acknowledged before the alert is written:
        // creating the marker is atomic, so when two prompts saw the same pending checkpoint
        // (hooks that waited past the session lock run unlocked), only the one that created
        // it alerts. A marker that cannot be written still lets the alert go (fail open: the
        // next prompt alerts again).
        let ack = acknowledge_with_older(ports.checkpoints, cp, &mut warnings);
        if ack.already_acknowledged {
            None
        } else {
            alert(
                ctx,
                ports,
                logs,
                cp,
                &mut state,
                &mut parts,
                &mut events,
                &mut warnings,
            );
            events.extend(ack.events);
            ack.acknowledged
        }
    } else {
        acknowledge_delivered_elsewhere(ports, &state, &mut events, &mut warnings)
    };

    // A prompt that changes nothing (the same reading again, e.g. while the transcript lags)
    // skips the rewrite: it was the largest single cost of the hook's own work.
    if state != loaded {
        save_state(ctx, ports, &mut state, &mut warnings);
    }
    record(ctx, ports, events, &mut warnings);
    let additional_context = (!parts.is_empty()).then(|| parts.join("\n"));
    PromptSubmitOutcome {
        additional_context,
        estimate,
        acknowledged,
        warnings,
    }
}

/// The injection policy of spec §3 (and `tiered`, the default): whether this prompt gets a
/// `<context-monitor>` tag, given the session's last tag and this prompt's estimate.
pub fn should_inject(policy: InjectPolicy, state: &SessionState, estimate: &FillEstimate) -> bool {
    let tier = estimate.threshold_tier;
    let changed = state.last_injected_tier != Some(tier);
    match policy {
        InjectPolicy::Always => true,
        InjectPolicy::OnChange => changed,
        InjectPolicy::WarningAndAbove => tier >= ThresholdTier::Warning,
        InjectPolicy::Tiered => {
            // A tag from before this field existed has no fill: say it again once. The
            // tolerance keeps 30% − 20% (0.0999… in floating point) a step of ten points.
            let moved = state
                .last_injected_fill
                .is_none_or(|f| (estimate.fill_percentage - f).abs() >= NOMINAL_STEP - 1e-9);
            tier >= ThresholdTier::Low || changed || moved
        }
    }
}

/// A boundary newer than the last response is a compaction the session has not answered yet:
/// count it once and make the state describe the new context (BUG-329).
fn note_boundary(state: &mut SessionState, reading: Option<&crate::ports::TranscriptReading>) {
    let Some(boundary) = reading.and_then(|r| r.boundary.as_ref()) else {
        return;
    };
    let seen = &mut state.compactions_seen;
    let id = boundary.uuid.clone().or_else(|| boundary.timestamp.clone());
    if id.is_some() && id != seen.last_boundary_uuid {
        seen.count = seen.count.saturating_add(1);
        seen.last_boundary_uuid = id;
        seen.last_boundary_timestamp = boundary.timestamp.clone();
        start_new_context(state);
    }
}

/// `<compaction-alert>` about `cp`, and its resumption context when SessionStart did not
/// deliver it.
#[allow(clippy::too_many_arguments)]
fn alert(
    ctx: &HookContext<'_>,
    ports: &HookPorts<'_>,
    logs: &dyn ResumeLogStore,
    cp: &CheckpointData,
    state: &mut SessionState,
    parts: &mut Vec<String>,
    events: &mut Vec<DomainEvent>,
    warnings: &mut Vec<String>,
) {
    parts.push(render_compaction_alert(
        cp,
        &checkpoint_path(ctx.project_dir, cp),
    ));
    if state.resumption_delivered.as_deref() != Some(cp.checkpoint_id.to_string().as_str()) {
        let (text, event) = deliver(ctx, ports, logs, cp, state, "prompt_submit", warnings);
        if !text.is_empty() {
            parts.push(text);
            events.extend(event);
        }
    }
}

fn checkpoint_path(project_dir: &Path, cp: &CheckpointData) -> String {
    project_dir
        .join(".ctxmon")
        .join("checkpoints")
        .join(cp.checkpoint_id.file_name())
        .display()
        .to_string()
}

/// A new session that SessionStart handed another session's checkpoint to: its first prompt
/// completes the handoff, so the checkpoint (and the older ones of its session) is not offered
/// to every later session.
fn acknowledge_delivered_elsewhere(
    ports: &HookPorts<'_>,
    state: &SessionState,
    events: &mut Vec<DomainEvent>,
    warnings: &mut Vec<String>,
) -> Option<String> {
    let id = state
        .resumption_delivered
        .as_deref()
        .and_then(ctxmon_domain::CheckpointId::parse)?;
    match ports.checkpoints.get(id) {
        Ok(Some(stored)) if !stored.acknowledged => {
            let ack = acknowledge_with_older(ports.checkpoints, &stored.data, warnings);
            events.extend(ack.events);
            ack.acknowledged
        }
        Ok(_) => None,
        Err(e) => {
            warnings.push(format!("checkpoint {id} unreadable: {e}"));
            None
        }
    }
}
