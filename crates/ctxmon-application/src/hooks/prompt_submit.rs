//! UserPromptSubmit: measure the fill, remember it per session, record tier changes, decide
//! whether to inject `<context-monitor>` (contract C3, C4) and, on the first prompt after a
//! checkpoint, add `<compaction-alert>` — with the resumption context when SessionStart's
//! delivery never happened (contract C7).

use ctxmon_domain::{
    CheckpointData, CheckpointId, CompactionTrigger, FillEstimate, FillSource, SessionState,
    ThresholdTier, Timestamp,
};

use super::{note_hint, render_tag, track_tier};
use crate::agents::Hook;
use crate::config::{InjectPolicy, NOMINAL_STEP};
use crate::handoff::alert::render_compaction_alert_for;
use crate::handoff::checkpoint_ack::{AlertGiven, acknowledge_with_older};
use crate::handoff::compaction::{note_boundary, note_checkpoint};
use crate::handoff::delivery::deliver;
use crate::handoff::resume_log::{AlreadyRead, TriggerKind, generate_for_trigger};
use crate::handoff::resumption::context::HandBackMode;
use crate::monitor::fill::{ContextFillEstimator, EstimateRequest, Measurement, reset_if_stale};
use crate::monitor::tier_record::{note_injected, note_measured};
use crate::ports::{ResumeLogStore, TranscriptErrorKind};
use crate::run::{HookContext, HookPorts, HookRun, Warning};

/// What UserPromptSubmit answers and what it measured.
#[derive(Debug, Clone, PartialEq)]
pub struct PromptSubmitOutcome {
    /// The text for `additionalContext`, when anything is to be injected.
    pub additional_context: Option<String>,
    /// The fill measured for this prompt.
    pub estimate: FillEstimate,
    /// The checkpoint acknowledged by this prompt (another session's, handed over at its
    /// start); the alert's checkpoint is acknowledged only once the answer is written.
    pub acknowledged: Option<String>,
    /// The alert this answer carries: acknowledge it once the answer has been written
    /// (`checkpoint_ack::acknowledge_given`).
    pub alert: Option<AlertGiven>,
    /// Problems that did not stop the hook (state unwritable, log unwritable); for the hook log.
    pub warnings: Vec<Warning>,
}

/// `logs` receives the resume log of a `tier:*` trigger (contract C9) when one is due.
pub fn prompt_submit(
    ctx: &HookContext<'_>,
    ports: &HookPorts<'_>,
    logs: &dyn ResumeLogStore,
) -> PromptSubmitOutcome {
    let mut run = HookRun::new(*ctx, *ports);
    let mut outcome = run_prompt_submit(&mut run, logs);
    // A prompt that changes nothing (the same reading again, e.g. while the transcript lags)
    // skips the rewrite: it was the largest single cost of the hook's own work.
    outcome.warnings = run.finish();
    outcome
}

fn run_prompt_submit(run: &mut HookRun<'_>, logs: &dyn ResumeLogStore) -> PromptSubmitOutcome {
    let measurement = measure(run);
    // Before a session's first answer its transcript has no usage record: nothing to measure
    // yet, and nothing wrong (a warning here made `doctor` report every new session).
    let first_response_pending = measurement.awaits_first_response();
    let settings = run.ctx.settings;
    // The state is read before the checkpoints are asked (its warning comes first).
    let first_prompt = !std::mem::replace(&mut run.state().prompted, true);
    // Claude Code writes a new session's transcript after its first prompt: a file not there
    // yet on that prompt is expected too.
    let first_response_pending = first_response_pending
        || (first_prompt
            && measurement
                .error
                .as_ref()
                .is_some_and(|e| e.kind == TranscriptErrorKind::NotFound));
    // The first prompt after a checkpoint of this session: alert (and acknowledge) it. If
    // PreCompact could not record the compaction in the state, it is recorded here.
    let pending = pending_checkpoint(run).filter(|cp| compaction_shown(run, &measurement, cp));
    let state = run.state();
    if let Some(cp) = &pending {
        note_checkpoint(state, cp);
    }
    let reading = measurement.reading.as_ref();
    note_boundary(state, reading);
    let estimate = reset_if_stale(measurement.estimate, reading, state, settings);
    track_tier(run, &estimate);
    let measured = estimate.source != FillSource::Unavailable;
    if measured {
        tier_resume_log(run, logs, &estimate);
    }
    let mut parts: Vec<String> = monitor_tag(run, &estimate).into_iter().collect();
    if !measured
        && !first_response_pending
        && let Some(note) = &estimate.note
    {
        run.warn(Warning::FillNotMeasured(note.clone()));
    }
    let (alert, acknowledged) = match &pending {
        Some(cp) => (alert_once(run, logs, cp, &mut parts), None),
        None => (None, acknowledge_delivered_elsewhere(run)),
    };
    PromptSubmitOutcome {
        additional_context: (!parts.is_empty()).then(|| parts.join("\n")),
        estimate,
        acknowledged,
        alert,
        warnings: Vec::new(),
    }
}

fn measure(run: &HookRun<'_>) -> Measurement {
    let ctx = &run.ctx;
    let estimator = ContextFillEstimator::new(run.ports.transcripts, ctx.settings);
    let request = EstimateRequest {
        transcript_path: ctx.transcript_path,
        ..Default::default()
    };
    match ctx.config_error {
        // The defaults stand in for a configuration that may set another window or other
        // thresholds: no tier rather than a possibly wrong one (the alert still goes).
        Some(_) => estimator.unmeasured(
            request,
            "the configuration is invalid (see the error above), so no <context-monitor> tag is injected until it is fixed",
        ),
        None => estimator.measure(request),
    }
}

/// Whether the transcript shows that the checkpoint's compaction happened. Always for an
/// agent whose pre-compaction hook means a compaction; for one whose hook fires on every
/// attempt (Gemini CLI), only when the transcript shows a compaction written since the
/// checkpoint (for Gemini CLI, the `$set.messages` that opens with the summary turn), or,
/// from a reader that cannot say, a compaction newer than every response. A smaller response
/// alone proves nothing: a `/rewind` makes one too. Until then the checkpoint waits, and
/// nothing is handed back.
fn compaction_shown(run: &HookRun<'_>, measurement: &Measurement, cp: &CheckpointData) -> bool {
    let settings = run.ctx.settings;
    if !settings
        .agent
        .description()
        .hand_back
        .transcript_shows_compaction()
    {
        return true;
    }
    let Some(reading) = &measurement.reading else {
        return false;
    };
    let since = run.ctx.transcript_path.and_then(|path| {
        run.ports
            .transcripts
            .compacted_since(path, settings.limits, cp.created_at_ms.millis())
    });
    since.unwrap_or(reading.boundary.is_some())
}

/// The session's newest unacknowledged checkpoint, if any.
fn pending_checkpoint(run: &mut HookRun<'_>) -> Option<CheckpointData> {
    let session = run.ctx.session_id?;
    match run.ports.checkpoints.latest_unacknowledged(Some(session)) {
        Ok(cp) => cp,
        Err(e) => {
            run.warn(Warning::CheckpointsUnreadable(e));
            None
        }
    }
}

/// The `tier:*` resume log, when one is due.
fn tier_resume_log(run: &mut HookRun<'_>, logs: &dyn ResumeLogStore, estimate: &FillEstimate) {
    let already = AlreadyRead {
        fill: Some(estimate),
        ..AlreadyRead::default()
    };
    let fired = generate_for_trigger(
        run,
        logs,
        TriggerKind::Tier(estimate.threshold_tier),
        already,
    );
    // A handoff document now exists for this context (cleared again by the next compaction).
    if fired.saved.is_some() {
        run.state().handoff_complete = true;
    }
}

/// `<context-monitor>` when the policy wants it for this tier, and the tier record either way.
fn monitor_tag(run: &mut HookRun<'_>, estimate: &FillEstimate) -> Option<String> {
    // The note is fresh when written since the previous prompt; this prompt is the newest.
    let now = run.ports.clock.now();
    let previous_prompt = run.state().last_prompt_at.replace(now);
    if estimate.source == FillSource::Unavailable {
        return None;
    }
    let ctx = run.ctx;
    let tier = estimate.threshold_tier;
    let state = run.state();
    let monitor = &ctx.config.context_monitor;
    if monitor.enabled && should_inject(monitor.inject, state, estimate) {
        note_injected(state, tier, estimate.fill_percentage);
        let hint = note_hint(run, tier, previous_prompt);
        Some(render_tag(run, estimate, hint.as_ref()))
    } else {
        // A fall seen here is one post-tool-use must not wait for (`tier_record`).
        note_measured(state, tier);
        None
    }
}

/// The injection policy of contract C3 (and `tiered`, the default): whether this prompt gets a
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

/// `<compaction-alert>` about `cp` (and its resumption context when SessionStart did not
/// deliver it), unless another prompt is giving it or gave it.
///
/// The newest checkpoint's alert covers the session's older ones: two compactions before this
/// prompt give one alert, and the older one is not alerted (with its stale resumption
/// context) on the next prompt. Nothing is acknowledged here: the alert is acknowledged once
/// the answer carrying it has been written, so an answer lost to the deadline or a closed
/// stdout leaves it to the next prompt. Until then a claim, taken atomically, keeps prompts
/// running at once (hooks that waited past the session lock run unlocked) from alerting
/// twice; it runs out after this hook's deadline, so a prompt that died holding it costs the
/// alert nothing. A claim that cannot be taken still lets the alert go (fail open).
fn alert_once(
    run: &mut HookRun<'_>,
    logs: &dyn ResumeLogStore,
    cp: &CheckpointData,
    parts: &mut Vec<String>,
) -> Option<AlertGiven> {
    let now = run.ports.clock.now();
    let hold_ms = run
        .ctx
        .config
        .hooks
        .deadline_ms(Hook::PromptSubmit)
        .saturating_add(CLAIM_MARGIN_MS);
    let until = Timestamp(
        now.millis()
            .saturating_add(i64::try_from(hold_ms).unwrap_or(i64::MAX)),
    );
    match run
        .ports
        .checkpoints
        .claim_alert(cp.checkpoint_id, now, until)
    {
        Ok(true) => {}
        Ok(false) => return None,
        Err(error) => run.warn(Warning::AlertNotClaimed {
            id: cp.checkpoint_id,
            error,
        }),
    }
    parts.push(render_compaction_alert_for(
        cp,
        &run.ports.checkpoints.location(cp.checkpoint_id),
        run.ctx.settings.agent,
    ));
    let id = cp.checkpoint_id.to_string();
    let mut delivery = None;
    if run.state().resumption_delivered.as_deref() != Some(id.as_str()) {
        // A compaction left the agent its own summary; a cleared session left it nothing.
        let mode = if cp.trigger == CompactionTrigger::Clear {
            HandBackMode::Alone
        } else {
            HandBackMode::BesideSummary
        };
        let (text, given) = deliver(run, logs, cp, "prompt_submit", mode);
        if !text.is_empty() {
            parts.push(text);
        }
        delivery = given;
    }
    Some(AlertGiven {
        checkpoint: cp.clone(),
        session_id: run.ctx.session_id.map(str::to_string),
        delivery,
    })
}

/// How long past its own deadline a prompt's claim on an alert holds: the answer is written
/// and the checkpoint acknowledged just after the work, and a slow disk may stretch that.
const CLAIM_MARGIN_MS: u64 = 2_000;

/// A new session that SessionStart handed another session's checkpoint to: its first prompt
/// completes the handoff, so the checkpoint (and the older ones of its session) is not offered
/// to every later session.
fn acknowledge_delivered_elsewhere(run: &mut HookRun<'_>) -> Option<String> {
    let id = run
        .state()
        .resumption_delivered
        .as_deref()
        .and_then(CheckpointId::parse)?;
    // Once acknowledged (the common case, every prompt after the first), a marker's `stat`
    // says so: the other session's checkpoint is not read again.
    if run.ports.checkpoints.is_acknowledged(id).unwrap_or(false) {
        return None;
    }
    match run.ports.checkpoints.get(id) {
        Ok(Some(stored)) if !stored.acknowledged => {
            let ack = acknowledge_with_older(run, &stored.data);
            for event in ack.events {
                run.record(event);
            }
            ack.acknowledged
        }
        Ok(_) => None,
        Err(error) => {
            run.warn(Warning::CheckpointUnreadable { id, error });
            None
        }
    }
}
