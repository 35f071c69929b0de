//! The post-compaction reset (spec §5, BUG-329), shared by PreCompact (which knows a compaction
//! is coming) and prompt-submit (which may be the first to notice one).

use ctxmon_domain::{CheckpointData, FillEstimate, FillSource, SessionState, Timestamp};

use crate::monitor::fill::FillSettings;
use crate::ports::TranscriptReading;

/// Records a compaction in the session state: counted once per checkpoint, and the state made
/// to describe the new context ([`start_new_context`]).
pub fn note_checkpoint(state: &mut SessionState, cp: &CheckpointData) -> bool {
    let id = cp.checkpoint_id.to_string();
    if state.compactions_seen.last_checkpoint_id.as_deref() == Some(id.as_str()) {
        return false;
    }
    let seen = &mut state.compactions_seen;
    seen.count = seen.count.saturating_add(1);
    seen.last_checkpoint_id = Some(id);
    seen.last_checkpoint_at = Some(cp.created_at_ms);
    start_new_context(state);
    true
}

/// After a compaction the state describes the new context (spec §5, BUG-329): the time the
/// old one crossed WARNING and its handoff (a resume log written for the old context hands
/// nothing of the new one over) are cleared, and the resume-log triggers that fire once per
/// context are re-armed — `tier:*`, so a context that fills up again gets its own log, and
/// `pre_compact`, which fires once per compaction. Only `session_end` stays fired: a session
/// ends once, however often its context was compacted.
pub fn start_new_context(state: &mut SessionState) {
    state.threshold_crossed_at = None;
    state.handoff_complete = false;
    state
        .resume_log_triggers
        .retain(|key| crate::handoff::resume_log::fires_once_per_session(key));
}

/// After a checkpoint, the newest usage record still shows the pre-compaction size until the
/// next response. When the record is older than the session's last checkpoint, the estimate
/// drops to the post-compaction baseline (`post_compaction_percent` of the window).
pub fn reset_if_stale(
    estimate: FillEstimate,
    reading: Option<&TranscriptReading>,
    state: &SessionState,
    settings: &FillSettings,
) -> FillEstimate {
    if estimate.source != FillSource::Transcript {
        return estimate;
    }
    let Some(checkpoint_at) = state.compactions_seen.last_checkpoint_at else {
        return estimate;
    };
    let usage_at = reading
        .and_then(|r| r.usage.as_ref())
        .and_then(|u| u.timestamp.as_deref())
        .and_then(Timestamp::parse_rfc3339);
    // A record without a timestamp cannot be placed in time; it is taken as current rather
    // than hiding a real fill behind a guess.
    match usage_at {
        Some(at) if at < checkpoint_at => {
            let window = estimate.context_window_size;
            let baseline = settings.post_compaction_baseline(window);
            let id = state
                .compactions_seen
                .last_checkpoint_id
                .clone()
                .unwrap_or_default();
            settings
                .estimate_for(
                    baseline,
                    FillSource::Compaction,
                    Some(window.get()),
                    estimate.model.as_deref(),
                )
                .with_note(format!(
                    "compacted at {id}; assuming {}% of the window until the next response",
                    settings.post_compaction_percent
                ))
        }
        _ => estimate,
    }
}
