//! Acknowledging checkpoints (contract C5, C7): the marker the repository keeps and one
//! `CheckpointAcknowledged` event per marker created, whoever acknowledges — the prompt that
//! alerted the agent, or a person running `ctxmon checkpoint ack`.
//!
//! The alert is about a session's newest checkpoint, and it covers the older ones of that
//! session too: after two compactions before the next prompt, the agent is told once, about
//! the newest, and the older checkpoint must not come back as a second alert (with its stale
//! resumption context) on the prompt after.

use ctxmon_domain::{CheckpointData, CheckpointId, DomainEvent, EventRecord};

use crate::ports::{CheckpointRepository, Clock, EventLog, PortError, PortErrorKind};
use crate::run::{HookRun, Warning};

/// What acknowledging a session's newest checkpoint did.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SessionAck {
    /// The newest checkpoint's id, when its acknowledgement worked (created now or before).
    pub acknowledged: Option<String>,
    /// One `CheckpointAcknowledged` per marker this call created, the newest first.
    pub events: Vec<DomainEvent>,
    /// The newest was acknowledged before this call (by a concurrent prompt, or by hand): the
    /// alert about it is someone else's to give.
    pub already_acknowledged: bool,
    /// What went wrong on the way (a marker not written, the session's checkpoints unreadable).
    pub warnings: Vec<Warning>,
}

/// Acknowledges `newest`, then every older unacknowledged checkpoint of the same session
/// (the checkpoint's own session id). Problems are the run's warnings: a hook never fails. A
/// checkpoint newer than `newest` is left alone: the agent has not been told about it yet.
pub fn acknowledge_with_older(run: &mut HookRun<'_>, newest: &CheckpointData) -> SessionAck {
    let mut ack = acknowledge_session(run.ports.checkpoints, newest);
    for warning in std::mem::take(&mut ack.warnings) {
        run.warn(warning);
    }
    ack
}

/// [`acknowledge_with_older`] outside a run: for the step after a hook's answer was written,
/// when the run that decided the alert is over. The session's older checkpoints are found
/// through the repository's per-session lookup, never by listing every checkpoint.
pub fn acknowledge_session(repo: &dyn CheckpointRepository, newest: &CheckpointData) -> SessionAck {
    let mut ack = SessionAck::default();
    match repo.acknowledge(newest.checkpoint_id) {
        Ok(created) => {
            if created {
                ack.events.push(acknowledged_event(newest.checkpoint_id));
            }
            ack.already_acknowledged = !created;
            ack.acknowledged = Some(newest.checkpoint_id.to_string());
        }
        Err(e) => {
            ack.warnings.push(Warning::CheckpointNotAcknowledged {
                id: newest.checkpoint_id,
                error: e,
            });
            // The next prompt alerts about the newest again; the older ones wait for it.
            return ack;
        }
    }
    let Some(session) = newest.session_info.session_id.as_deref() else {
        return ack;
    };
    let older: Vec<CheckpointId> = match repo.of_session(session) {
        Ok(own) => own
            .iter()
            .rev()
            .filter(|c| !c.acknowledged && c.data.checkpoint_id < newest.checkpoint_id)
            .map(|c| c.data.checkpoint_id)
            .collect(),
        Err(e) => {
            ack.warnings
                .push(Warning::OlderCheckpointsNotAcknowledged(e));
            Vec::new()
        }
    };
    for id in older {
        match repo.acknowledge(id) {
            Ok(true) => ack.events.push(acknowledged_event(id)),
            Ok(false) => {}
            // Pruned in the meantime: nothing left to acknowledge.
            Err(e) if e.kind == PortErrorKind::NotFound => {}
            Err(e) => ack
                .warnings
                .push(Warning::CheckpointNotAcknowledged { id, error: e }),
        }
    }
    ack
}

/// An alert an answer carries: its checkpoint is acknowledged once the answer has been
/// written, never before (an answer lost to a deadline or a closed stdout must leave the
/// alert to the next prompt).
#[derive(Debug, Clone, PartialEq)]
pub struct AlertGiven {
    /// The checkpoint the alert is about (its session's older ones go with it).
    pub checkpoint: CheckpointData,
    /// The session whose prompt gave it, for the events.
    pub session_id: Option<String>,
    /// The resumption context given with it, when SessionStart had not given it already.
    pub delivery: Option<super::delivery::Delivery>,
}

/// After the answer carrying `given` was written: acknowledges its checkpoint (and the older
/// ones of its session) and records a `CheckpointAcknowledged` per marker created. Returns
/// the problems, for the hook log; the answer is out either way.
pub fn acknowledge_given(
    given: &AlertGiven,
    repo: &dyn CheckpointRepository,
    events: &dyn EventLog,
    clock: &dyn Clock,
) -> SessionAck {
    let mut ack = acknowledge_session(repo, &given.checkpoint);
    if !ack.events.is_empty() {
        let at = clock.now();
        let records: Vec<EventRecord> = ack
            .events
            .iter()
            .map(|e| EventRecord::new(at, given.session_id.clone(), e.clone()))
            .collect();
        if let Err(e) = events.append(&records) {
            ack.warnings.push(Warning::EventNotRecorded(e));
        }
    }
    ack
}

/// After the answer carrying `given` could not be written: gives up the claim on its alert,
/// so the next prompt gives it at once. Best effort: a claim left behind runs out by itself.
pub fn release_given(given: &AlertGiven, repo: &dyn CheckpointRepository) {
    let _ = repo.release_alert(given.checkpoint.checkpoint_id);
}

/// What `ctxmon checkpoint ack` did.
#[derive(Debug, Clone, PartialEq)]
pub struct ManualAck {
    /// False when the checkpoint was already acknowledged.
    pub created: bool,
    /// The event could not be recorded (the marker was written all the same).
    pub warnings: Vec<Warning>,
}

/// Acknowledges one checkpoint by hand and records `CheckpointAcknowledged` (with the
/// checkpoint's session) when the marker is new. A missing checkpoint is `NotFound`; one the
/// repository cannot read (corrupt, future schema) is refused with its reason and no marker.
pub fn acknowledge_checkpoint(
    repo: &dyn CheckpointRepository,
    events: &dyn EventLog,
    clock: &dyn Clock,
    id: CheckpointId,
) -> Result<ManualAck, PortError> {
    let stored = repo
        .get(id)?
        .ok_or_else(|| PortError::new(PortErrorKind::NotFound, format!("no checkpoint {id}")))?;
    let created = repo.acknowledge(id)?;
    let mut warnings = Vec::new();
    if created {
        let record = EventRecord::new(
            clock.now(),
            stored.data.session_info.session_id.clone(),
            acknowledged_event(id),
        );
        if let Err(e) = events.append(&[record]) {
            warnings.push(Warning::EventNotRecorded(e));
        }
    }
    Ok(ManualAck { created, warnings })
}

fn acknowledged_event(id: CheckpointId) -> DomainEvent {
    DomainEvent::CheckpointAcknowledged {
        checkpoint_id: id.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use ctxmon_domain::{
        CompactionTrigger, ContextWindow, FillEstimate, FillSource, Measured, SessionInfo,
        Thresholds, Timestamp, TokenCount,
    };

    use super::*;
    use crate::fakes::{FakeCheckpoints, FakeEvents, FixedClock};

    fn save(repo: &FakeCheckpoints, session: &str) -> CheckpointData {
        repo.save_new(Some(session), &mut |given| CheckpointData {
            schema_version: CheckpointData::SCHEMA_VERSION,
            checkpoint_id: given.id,
            timestamp: Timestamp(1_795_000_000_000).to_rfc3339(),
            created_at_ms: Timestamp(1_795_000_000_000),
            compaction_sequence: 1,
            trigger: CompactionTrigger::Auto,
            custom_instructions: None,
            context_state: FillEstimate::measured(Measured {
                tokens: TokenCount(170_000),
                window: ContextWindow::DEFAULT,
                thresholds: &Thresholds::default(),
                auto_compact_reserve: TokenCount(33_000),
                source: FillSource::Transcript,
                model: None,
            }),
            resumption_state: None,
            session_info: SessionInfo {
                session_id: Some(session.into()),
                ..Default::default()
            },
        })
        .unwrap()
    }

    #[test]
    fn a_manual_ack_records_one_event_with_the_checkpoints_session() {
        let repo = FakeCheckpoints::default();
        let events = FakeEvents::default();
        let clock = FixedClock::new(Timestamp(1_795_000_000_000), 1);
        let id = save(&repo, "alpha").checkpoint_id;
        let first = acknowledge_checkpoint(&repo, &events, &clock, id).unwrap();
        let again = acknowledge_checkpoint(&repo, &events, &clock, id).unwrap();
        assert!(first.created && !again.created);
        let records = events.records.borrow();
        assert_eq!(records.len(), 1);
        assert_eq!(records[0].session_id.as_deref(), Some("alpha"));
        assert_eq!(records[0].event, acknowledged_event(id));
        let missing = CheckpointId::new(9).unwrap();
        assert_eq!(
            acknowledge_checkpoint(&repo, &events, &clock, missing)
                .unwrap_err()
                .kind,
            PortErrorKind::NotFound
        );
    }
}
