//! UserPromptSubmit: measure the fill, remember it per session, record tier changes and decide
//! whether to inject the `<context-monitor>` tag (spec §3, §4).

use std::path::Path;

use ctxmon_domain::{
    DomainEvent, EventRecord, FillEstimate, FillSource, SessionKey, SessionState, ThresholdTier,
};

use crate::config::{Config, InjectPolicy};
use crate::fill::{ContextFillEstimator, EstimateRequest, FillSettings};
use crate::monitor_tag::render_context_monitor;
use crate::ports::{Clock, EventLog, SessionStateStore, TranscriptReader};

/// The ports the use case needs.
#[derive(Clone, Copy)]
pub struct PromptSubmitPorts<'a> {
    pub transcripts: &'a dyn TranscriptReader,
    pub states: &'a dyn SessionStateStore,
    pub events: &'a dyn EventLog,
    pub clock: &'a dyn Clock,
}

impl std::fmt::Debug for PromptSubmitPorts<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("PromptSubmitPorts")
    }
}

#[derive(Debug, Clone, Copy)]
pub struct PromptSubmitInput<'a> {
    /// The raw `session_id` from the hook input (recorded in events as given).
    pub session_id: Option<&'a str>,
    pub transcript_path: Option<&'a Path>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct PromptSubmitOutcome {
    /// The text for `additionalContext`, when anything is to be injected.
    pub additional_context: Option<String>,
    pub estimate: FillEstimate,
    /// Problems that did not stop the hook (state unwritable, log unwritable); for the hook log.
    pub warnings: Vec<String>,
}

/// Runs the use case. Never fails: storage problems become warnings and the answer is still
/// computed from what could be measured.
pub fn prompt_submit(
    config: &Config,
    settings: &FillSettings,
    ports: PromptSubmitPorts<'_>,
    input: PromptSubmitInput<'_>,
) -> PromptSubmitOutcome {
    let estimator = ContextFillEstimator::new(ports.transcripts, settings);
    let measurement = estimator.measure(EstimateRequest {
        transcript_path: input.transcript_path,
        ..Default::default()
    });
    let estimate = measurement.estimate;
    let now = ports.clock.now();
    let mut warnings = Vec::new();
    let key = SessionKey::from_raw(input.session_id.unwrap_or(""));

    let mut state = match ports.states.load(&key) {
        Ok(state) => state.unwrap_or_default(),
        Err(e) => {
            warnings.push(format!("session state unreadable, starting afresh: {e}"));
            SessionState::default()
        }
    };
    state.schema_version = SessionState::SCHEMA_VERSION;
    let mut events = Vec::new();

    // A boundary newer than the last response is a compaction the session has not answered yet:
    // count it once and clear the flags that belong to the pre-compaction context (BUG-329).
    if let Some(boundary) = measurement
        .reading
        .as_ref()
        .and_then(|r| r.boundary.as_ref())
    {
        let seen = &mut state.compactions_seen;
        let id = boundary.uuid.clone().or_else(|| boundary.timestamp.clone());
        if id.is_some() && id != seen.last_boundary_uuid {
            seen.count = seen.count.saturating_add(1);
            seen.last_boundary_uuid = id;
            seen.last_boundary_timestamp = boundary.timestamp.clone();
            state.threshold_crossed_at = None;
            state.handoff_complete = false;
        }
    }

    let measured = estimate.source != FillSource::Unavailable;
    let tier = estimate.threshold_tier;
    if measured {
        let previous = state.last_tier.unwrap_or(ThresholdTier::Nominal);
        if previous != tier {
            events.push(DomainEvent::ContextThresholdReached {
                previous_tier: previous,
                new_tier: tier,
                fill_percentage: estimate.fill_percentage,
                input_tokens: estimate.input_tokens.get(),
            });
        }
        if tier >= ThresholdTier::Warning {
            state.threshold_crossed_at.get_or_insert(now);
        } else {
            state.threshold_crossed_at = None;
        }
        state.last_tier = Some(tier);
        state.last_fill = Some(estimate.fill_percentage);
        state.last_tokens = Some(estimate.input_tokens.get());
    }

    // An unmeasured fill is not injected: a made-up "0%" would be the lying figure ctxmon exists
    // to replace. The reason goes to the hook log instead.
    let inject = measured
        && config.context_monitor.enabled
        && should_inject(
            config.context_monitor.inject,
            state.last_injected_tier,
            tier,
        );
    let additional_context =
        inject.then(|| render_context_monitor(&estimate, &settings.thresholds));
    if inject {
        state.last_injected_tier = Some(tier);
    }
    if !measured && let Some(note) = &estimate.note {
        warnings.push(format!("fill not measured: {note}"));
    }
    state.updated_at = Some(now);

    if let Err(e) = ports.states.save(&key, &state) {
        warnings.push(format!("session state not saved: {e}"));
    }
    if !events.is_empty() {
        let session = input.session_id.map(str::to_string);
        let records: Vec<EventRecord> = events
            .into_iter()
            .map(|e| EventRecord::new(now, session.clone(), e))
            .collect();
        if let Err(e) = ports.events.append(&records) {
            warnings.push(format!("events not recorded: {e}"));
        }
    }
    PromptSubmitOutcome {
        additional_context,
        estimate,
        warnings,
    }
}

/// The injection policy of spec §3.
pub fn should_inject(
    policy: InjectPolicy,
    last_injected: Option<ThresholdTier>,
    tier: ThresholdTier,
) -> bool {
    match policy {
        InjectPolicy::Always => true,
        InjectPolicy::OnChange => last_injected != Some(tier),
        InjectPolicy::WarningAndAbove => tier >= ThresholdTier::Warning,
    }
}
