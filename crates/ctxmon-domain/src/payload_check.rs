//! How Claude Code's own figure (the status-line payload's `context_window.used_percentage`)
//! compared with ctxmon's: the status line works it out on every run and keeps the latest per
//! session, so `ctxmon doctor`, which has no payload of its own, can report a disagreement.

use serde::{Deserialize, Serialize};

use crate::{FillSource, Timestamp};

/// One comparison, as stored in `.ctxmon/status-line/<session>.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PayloadCheck {
    /// The file format's version; [`PayloadCheck::SCHEMA_VERSION`] when written by this build.
    pub schema_version: u32,
    /// The raw session id of the payload, when it had one (shown by doctor).
    #[serde(default)]
    pub session_id: Option<String>,
    /// Claude Code's figure, in percent, as the payload gave it.
    pub used_percentage: f64,
    /// ctxmon's, in percent, unrounded (tokens / window × 100).
    pub ctxmon_percentage: f64,
    /// What ctxmon's figure was made of.
    pub tokens: u64,
    /// The window ctxmon measured against, in tokens.
    pub window: u64,
    /// Where ctxmon's token figure came from.
    pub source: FillSource,
    /// The payload's `context_window_size`, when it had one.
    #[serde(default)]
    pub payload_window: Option<u64>,
    /// More than [`PayloadCheck::MAX_POINTS`] apart.
    pub disagrees: bool,
    /// When the current verdict (agree or disagree) was first seen.
    pub since: Timestamp,
    /// When this comparison was made and written.
    pub checked_at: Timestamp,
}

impl PayloadCheck {
    /// The version this build writes.
    pub const SCHEMA_VERSION: u32 = 1;
    /// Differences up to this many percentage points are rounding (Claude Code shows whole
    /// percents, ctxmon rounds down) and the payload's lag behind the transcript.
    pub const MAX_POINTS: f64 = 2.0;

    /// How far apart the two figures are, in percentage points.
    pub fn difference_points(&self) -> f64 {
        (self.used_percentage - self.ctxmon_percentage).abs()
    }

    /// Whether two figures disagree by more than [`Self::MAX_POINTS`].
    pub fn disagree(used_percentage: f64, ctxmon_percentage: f64) -> bool {
        (used_percentage - ctxmon_percentage).abs() > Self::MAX_POINTS
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn more_than_two_points_apart_is_a_disagreement() {
        assert!(!PayloadCheck::disagree(45.0, 43.0));
        assert!(!PayloadCheck::disagree(45.0, 46.99));
        assert!(PayloadCheck::disagree(45.0, 42.9));
        assert!(PayloadCheck::disagree(8.0, 80.0));
    }
}
