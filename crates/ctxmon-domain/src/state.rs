//! Per-session monitor state: what the prompt-submit hook remembers between prompts.

use serde::{Deserialize, Serialize};

use crate::{ThresholdTier, Timestamp};

/// The state file `.ctxmon/state/<session>.json` (contract C4). Every field has a default so that a
/// state file from an older release (or a hand-edited one) still loads.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(default)]
pub struct SessionState {
    /// The file format's version; [`SessionState::SCHEMA_VERSION`] when written by this build.
    pub schema_version: u32,
    /// The tier of the newest measurement; a change of tier records `ContextThresholdReached`.
    pub last_tier: Option<ThresholdTier>,
    /// The tier of the last `<context-monitor>` tag injected into this session, by
    /// prompt-submit or post-tool-use (the record both share).
    pub last_injected_tier: Option<ThresholdTier>,
    /// The lowest tier measured since that tag when it is below the tag's tier: the fill fell
    /// (a compaction, a larger window), so a later rise is news again. Cleared by every tag.
    /// See `monitor::tier_record` in the application for the rule.
    pub lowest_tier_since_injection: Option<ThresholdTier>,
    /// The fill the last `<context-monitor>` tag showed, as a ratio of the window (0.55 is
    /// 55%; the `tiered` policy says it again at NOMINAL once the fill has moved far enough
    /// from it).
    pub last_injected_fill: Option<f64>,
    /// The newest measured fill, as a ratio of the window like
    /// [`crate::FillEstimate::fill_percentage`] (0.55 is 55%, never 55.0).
    pub last_fill: Option<f64>,
    /// The newest measured context size, in tokens.
    pub last_tokens: Option<u64>,
    /// The compactions this session has been seen to go through.
    pub compactions_seen: CompactionsSeen,
    /// True once a resume log was written for the current context (cleared by a compaction).
    pub handoff_complete: bool,
    /// When the fill first reached WARNING or above in this context; cleared when it falls
    /// below WARNING or the context is compacted.
    pub threshold_crossed_at: Option<Timestamp>,
    /// The checkpoint whose resumption context was handed to this session (SessionStart or the
    /// prompt-submit fallback), so it is delivered once.
    pub resumption_delivered: Option<String>,
    /// The resume-log triggers (`pre_compact`, `tier:critical`, …) that already fired in this
    /// session's current context: a log is written at most once per trigger per context
    /// (contract C9). A compaction re-arms all but `session_end`, which fires once per session.
    #[serde(default)]
    pub resume_log_triggers: Vec<String>,
    /// The user's standing rules as this session's last checkpoint handed them on, newest
    /// first: a transcript's tail holds only the newest part of a long session, so the rules
    /// said before it are carried from one compaction to the next.
    #[serde(default)]
    pub carried_rules: Vec<String>,
    /// True once prompt-submit has run for this session. Claude Code names a new session's
    /// transcript before it writes the file, so the first prompt finding no file is how a
    /// session starts; from the second prompt on a missing transcript is a problem.
    #[serde(default)]
    pub prompted: bool,
    /// When prompt-submit last ran for this session: a resumption note written after it
    /// describes the present. Kept apart from the state's file by its store: it changes on
    /// every prompt, and rewriting the whole state for it cost each prompt more than the rest
    /// of the hook's own work.
    #[serde(skip)]
    pub last_prompt_at: Option<Timestamp>,
    /// When the state was last saved (the hook's clock).
    pub updated_at: Option<Timestamp>,
}

/// What the monitor knows about a session's compactions.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(default)]
pub struct CompactionsSeen {
    /// How many compaction boundaries were seen in the transcript.
    pub count: u32,
    /// The newest boundary seen: its uuid, else its timestamp (so each is counted once).
    pub last_boundary_uuid: Option<String>,
    /// The newest boundary's timestamp, as the transcript spells it.
    pub last_boundary_timestamp: Option<String>,
    /// The newest checkpoint taken for this session (contract C5): a usage record older than
    /// `last_checkpoint_at` predates the compaction and no longer describes the context.
    pub last_checkpoint_id: Option<String>,
    /// When `last_checkpoint_id` was written.
    pub last_checkpoint_at: Option<Timestamp>,
}

impl SessionState {
    /// The version this build writes.
    pub const SCHEMA_VERSION: u32 = 1;
}
