//! Domain events: the facts ctxmon records in `.ctxmon/events.jsonl`.

use serde::{Deserialize, Serialize};

use crate::{ThresholdTier, Timestamp};

/// One recorded fact. Serialised as a JSON object with an `event` tag, a timestamp and the
/// session it belongs to, so that the log reads well with `jq` and round-trips exactly.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EventRecord {
    pub timestamp: Timestamp,
    /// RFC 3339 copy of `timestamp` for people reading the log.
    pub time: String,
    pub session_id: Option<String>,
    #[serde(flatten)]
    pub event: DomainEvent,
}

impl EventRecord {
    pub fn new(
        timestamp: Timestamp,
        session_id: Option<String>,
        event: DomainEvent,
    ) -> EventRecord {
        EventRecord {
            timestamp,
            time: timestamp.to_rfc3339(),
            session_id,
            event,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "PascalCase")]
pub enum DomainEvent {
    /// The fill moved into a different tier (either direction).
    ContextThresholdReached {
        previous_tier: ThresholdTier,
        new_tier: ThresholdTier,
        fill_percentage: f64,
        input_tokens: u64,
    },
    /// A compaction is about to happen (PreCompact) or was observed in the transcript.
    CompactionDetected {
        trigger: String,
        fill_percentage: f64,
        compaction_sequence: u32,
    },
    CheckpointCreated {
        checkpoint_id: String,
        compaction_sequence: u32,
    },
    CheckpointAcknowledged {
        checkpoint_id: String,
    },
    ResumptionDelivered {
        checkpoint_id: String,
        via: String,
        tokens: u64,
    },
    SessionAbandoned {
        reason: String,
    },
    ResumeLogGenerated {
        trigger: String,
        path: String,
        tokens: u64,
    },
    /// PostCompact: the compaction finished (the summary's size, not its text, is recorded).
    CompactionCompleted {
        trigger: String,
        summary_chars: u64,
    },
    /// SessionEnd, with Claude Code's reason.
    SessionEnded {
        reason: String,
    },
}

impl DomainEvent {
    pub fn name(&self) -> &'static str {
        match self {
            DomainEvent::ContextThresholdReached { .. } => "ContextThresholdReached",
            DomainEvent::CompactionDetected { .. } => "CompactionDetected",
            DomainEvent::CheckpointCreated { .. } => "CheckpointCreated",
            DomainEvent::CheckpointAcknowledged { .. } => "CheckpointAcknowledged",
            DomainEvent::ResumptionDelivered { .. } => "ResumptionDelivered",
            DomainEvent::SessionAbandoned { .. } => "SessionAbandoned",
            DomainEvent::ResumeLogGenerated { .. } => "ResumeLogGenerated",
            DomainEvent::CompactionCompleted { .. } => "CompactionCompleted",
            DomainEvent::SessionEnded { .. } => "SessionEnded",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_round_trip_as_tagged_json() {
        let rec = EventRecord::new(
            Timestamp(1_776_520_240_622),
            Some("s1".into()),
            DomainEvent::ContextThresholdReached {
                previous_tier: ThresholdTier::Low,
                new_tier: ThresholdTier::Warning,
                fill_percentage: 0.75,
                input_tokens: 150_000,
            },
        );
        let json = serde_json::to_string(&rec).unwrap();
        assert!(
            json.contains(r#""event":"ContextThresholdReached""#),
            "{json}"
        );
        assert!(json.contains(r#""previous_tier":"low""#), "{json}");
        assert!(
            json.contains(r#""time":"2026-04-18T13:50:40.622Z""#),
            "{json}"
        );
        let back: EventRecord = serde_json::from_str(&json).unwrap();
        assert_eq!(back, rec);
        assert_eq!(back.event.name(), "ContextThresholdReached");
    }
}
