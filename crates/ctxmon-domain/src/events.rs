//! Domain events: the facts ctxmon records in `.ctxmon/events.jsonl`.

use serde::{Deserialize, Serialize};

use crate::{ThresholdTier, Timestamp};

/// One recorded fact. Serialised as a JSON object with an `event` tag, a timestamp and the
/// session it belongs to, so that the log reads well with `jq` and round-trips exactly.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EventRecord {
    /// When the fact was recorded (milliseconds since the Unix epoch, from the caller's clock).
    pub timestamp: Timestamp,
    /// RFC 3339 copy of `timestamp` for people reading the log.
    pub time: String,
    /// The agent's session id, when the hook input carried one.
    pub session_id: Option<String>,
    /// What happened; flattened into the record, so its `event` tag sits beside `timestamp`.
    #[serde(flatten)]
    pub event: DomainEvent,
}

impl EventRecord {
    /// A record of `event` at `timestamp`; `time` is derived from it (RFC 3339, UTC).
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

/// What can happen to a session's context, as written to `events.jsonl` (tag `event`, fields
/// snake_case).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "PascalCase")]
pub enum DomainEvent {
    /// The fill moved into a different tier (either direction).
    ContextThresholdReached {
        /// The tier the fill was in before.
        previous_tier: ThresholdTier,
        /// The tier it is in now.
        new_tier: ThresholdTier,
        /// The fill as a fraction of the window, 0.0 to 1.0 (above 1.0 when over the window).
        fill_percentage: f64,
        /// The measured context size in tokens.
        input_tokens: u64,
    },
    /// A compaction is about to happen (PreCompact) or was observed in the transcript.
    CompactionDetected {
        /// `manual`, `auto` or `unknown` (see [`crate::CompactionTrigger::key`]).
        trigger: String,
        /// The fill at the time, as a fraction of the window (0.0 to 1.0).
        fill_percentage: f64,
        /// 1 for the session's first compaction, 2 for its second, …
        compaction_sequence: u32,
    },
    /// PreCompact wrote a checkpoint.
    CheckpointCreated {
        /// The checkpoint's id, `cx-NNN`.
        checkpoint_id: String,
        /// The compaction it was written for (1 = the session's first).
        compaction_sequence: u32,
    },
    /// A checkpoint was acknowledged (its marker created): by the prompt that alerted the agent,
    /// or by `ctxmon checkpoint ack`.
    CheckpointAcknowledged {
        /// The checkpoint's id, `cx-NNN`.
        checkpoint_id: String,
    },
    /// `<resumption-context>` was injected into the agent's context.
    ResumptionDelivered {
        /// The checkpoint whose state was delivered, `cx-NNN`.
        checkpoint_id: String,
        /// Which hook delivered it: `session_start` or `prompt_submit`.
        via: String,
        /// The injected text's size in estimated tokens (`ceil(chars / 4)`).
        tokens: u64,
    },
    /// The context before a compaction is given up (recorded with every compaction).
    SessionAbandoned {
        /// Why, for people: `compaction at N%`.
        reason: String,
    },
    /// A resume log was written to the resume-log store.
    ResumeLogGenerated {
        /// What caused it: `pre_compact`, `session_end`, `tier:<tier>` or `manual`.
        trigger: String,
        /// Where the store put it, as the store names it.
        path: String,
        /// The rendered log's size in estimated tokens.
        tokens: u64,
    },
    /// PostCompact: the compaction finished (the summary's size, not its text, is recorded).
    CompactionCompleted {
        /// `manual`, `auto` or `unknown`.
        trigger: String,
        /// The summary's length in characters; its text is never recorded.
        summary_chars: u64,
    },
    /// SessionEnd, with Claude Code's reason.
    SessionEnded {
        /// The reason Claude Code gave (`clear`, `logout`, `prompt_input_exit`, `other`, …).
        reason: String,
    },
}

impl DomainEvent {
    /// The variant's name as it appears in the `event` tag.
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
