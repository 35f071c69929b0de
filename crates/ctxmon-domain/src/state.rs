//! Per-session monitor state: what the prompt-submit hook remembers between prompts.

use serde::{Deserialize, Serialize};

use crate::{ThresholdTier, Timestamp};

/// The state file `.ctxmon/state/<session>.json` (spec §4). Every field has a default so that a
/// state file from an older release (or a hand-edited one) still loads.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(default)]
pub struct SessionState {
    pub schema_version: u32,
    pub last_tier: Option<ThresholdTier>,
    pub last_injected_tier: Option<ThresholdTier>,
    pub last_fill: Option<f64>,
    pub last_tokens: Option<u64>,
    pub compactions_seen: CompactionsSeen,
    pub handoff_complete: bool,
    pub threshold_crossed_at: Option<Timestamp>,
    pub updated_at: Option<Timestamp>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(default)]
pub struct CompactionsSeen {
    pub count: u32,
    pub last_boundary_uuid: Option<String>,
    pub last_boundary_timestamp: Option<String>,
    /// The newest checkpoint whose compaction this session has already reset for (BUG-329).
    pub last_checkpoint_id: Option<String>,
}

impl SessionState {
    pub const SCHEMA_VERSION: u32 = 1;
}
