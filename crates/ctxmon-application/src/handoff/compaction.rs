//! What a compaction does to the session state (contract C5): PreCompact knows one is
//! coming (`note_checkpoint`); prompt-submit may be the first to notice one, from the
//! checkpoint or from the transcript's boundary (`note_boundary`). Either way the state then
//! describes the new context (`start_new_context`). The fill's own reset after a compaction is
//! `crate::monitor::fill::reset_if_stale`.

use ctxmon_domain::{CheckpointData, CheckpointId, SessionState};

use crate::config::fires_once_per_session;
use crate::ports::TranscriptReading;

/// Records a compaction in the session state: counted once per checkpoint, and the state made
/// to describe the new context ([`start_new_context`]).
pub fn note_checkpoint(state: &mut SessionState, cp: &CheckpointData) -> bool {
    let id = cp.checkpoint_id.to_string();
    // Ids grow per project: a checkpoint older than the one noted last was counted then (a
    // prompt that found it pending while PreCompact saved and noted a newer one).
    let last = state
        .compactions_seen
        .last_checkpoint_id
        .as_deref()
        .and_then(CheckpointId::parse);
    if last.is_some_and(|last| cp.checkpoint_id <= last) {
        return false;
    }
    let seen = &mut state.compactions_seen;
    seen.count = seen.count.saturating_add(1);
    seen.last_checkpoint_id = Some(id);
    seen.last_checkpoint_at = Some(cp.created_at_ms);
    start_new_context(state);
    true
}

/// After a compaction the state describes the new context (contract C5): the time the
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
        .retain(|key| fires_once_per_session(key));
}

/// A boundary newer than the last response is a compaction the session has not answered yet:
/// count it once and make the state describe the new context. Until the next response the
/// transcript's newest usage still shows the old context, so the state must say it is gone.
pub fn note_boundary(state: &mut SessionState, reading: Option<&TranscriptReading>) {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn checkpoint(n: u32) -> CheckpointData {
        CheckpointData {
            schema_version: CheckpointData::SCHEMA_VERSION,
            checkpoint_id: CheckpointId::new(n).expect("an id"),
            timestamp: String::new(),
            created_at_ms: ctxmon_domain::Timestamp(0),
            compaction_sequence: n,
            trigger: ctxmon_domain::CompactionTrigger::Auto,
            custom_instructions: None,
            context_state: ctxmon_domain::FillEstimate::unavailable(
                ctxmon_domain::ContextWindow::DEFAULT,
                ctxmon_domain::TokenCount::ZERO,
                "test",
            ),
            resumption_state: None,
            session_info: ctxmon_domain::SessionInfo::default(),
        }
    }

    /// A prompt that found an older checkpoint pending while PreCompact noted a newer one
    /// counts no second compaction.
    #[test]
    fn a_checkpoint_older_than_the_last_noted_is_not_counted_again() {
        let mut state = SessionState::default();
        assert!(note_checkpoint(&mut state, &checkpoint(5)));
        assert!(note_checkpoint(&mut state, &checkpoint(6)));
        assert!(!note_checkpoint(&mut state, &checkpoint(5)));
        assert!(!note_checkpoint(&mut state, &checkpoint(6)));
        assert_eq!(state.compactions_seen.count, 2);
        assert!(note_checkpoint(&mut state, &checkpoint(7)));
        assert_eq!(state.compactions_seen.count, 3);
    }
}
