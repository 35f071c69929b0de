//! The fill estimate: how full the context is, where the figure came from, and what tier it is.

use serde::{Deserialize, Serialize};

use crate::{ContextWindow, ThresholdTier, Thresholds, TokenCount};

/// Where an estimate's token figure came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FillSource {
    /// The newest qualifying usage record of the transcript.
    Transcript,
    /// Claude Code's status-line payload (`context_window.current_usage`).
    Payload,
    /// A compaction happened after the last usage record: post-compaction size or baseline.
    Compaction,
    /// Nothing could be measured; the estimate is the fail-open NOMINAL answer.
    Unavailable,
}

impl FillSource {
    pub fn key(self) -> &'static str {
        match self {
            FillSource::Transcript => "transcript",
            FillSource::Payload => "payload",
            FillSource::Compaction => "compaction",
            FillSource::Unavailable => "unavailable",
        }
    }
}

/// A measured (or fail-open) context fill.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FillEstimate {
    /// Tokens / window as a ratio (0.75 = 75%); not clamped, > 1 means over-full.
    pub fill_percentage: f64,
    pub input_tokens: TokenCount,
    pub context_window_size: ContextWindow,
    pub threshold_tier: ThresholdTier,
    pub source: FillSource,
    pub model: Option<String>,
    pub tokens_until_auto_compact: TokenCount,
    /// Why the estimate is what it is when that is not obvious: a fail-open reason, a window
    /// auto-correction. Human-readable; never parsed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

impl FillEstimate {
    /// Builds an estimate from measured tokens, computing ratio, tier and room to auto-compact.
    pub fn measured(
        tokens: TokenCount,
        window: ContextWindow,
        thresholds: &Thresholds,
        auto_compact_buffer: TokenCount,
        source: FillSource,
        model: Option<String>,
    ) -> FillEstimate {
        let ratio = window.ratio(tokens);
        FillEstimate {
            fill_percentage: ratio,
            input_tokens: tokens,
            context_window_size: window,
            threshold_tier: thresholds.classify(ratio),
            source,
            model,
            tokens_until_auto_compact: window
                .tokens()
                .saturating_sub(auto_compact_buffer)
                .saturating_sub(tokens),
            note: None,
        }
    }

    /// The fail-open answer: NOMINAL, zero tokens, source `unavailable`, with the reason.
    pub fn unavailable(
        window: ContextWindow,
        auto_compact_buffer: TokenCount,
        reason: impl Into<String>,
    ) -> FillEstimate {
        FillEstimate {
            fill_percentage: 0.0,
            input_tokens: TokenCount::ZERO,
            context_window_size: window,
            threshold_tier: ThresholdTier::Nominal,
            source: FillSource::Unavailable,
            model: None,
            tokens_until_auto_compact: window.tokens().saturating_sub(auto_compact_buffer),
            note: Some(reason.into()),
        }
    }

    pub fn with_note(mut self, note: impl Into<String>) -> FillEstimate {
        self.note = Some(note.into());
        self
    }

    /// Whole percent for display (75.4% → 75), rounded half up.
    pub fn percent(&self) -> u64 {
        let p = (self.fill_percentage * 100.0).round();
        if p.is_finite() && p > 0.0 {
            p as u64
        } else {
            0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn measured_computes_tier_and_room() {
        let e = FillEstimate::measured(
            TokenCount(150_000),
            ContextWindow::DEFAULT,
            &Thresholds::default(),
            TokenCount(33_000),
            FillSource::Transcript,
            None,
        );
        assert_eq!(e.fill_percentage, 0.75);
        assert_eq!(e.threshold_tier, ThresholdTier::Warning);
        assert_eq!(e.tokens_until_auto_compact, TokenCount(17_000));
        assert_eq!(e.percent(), 75);
    }

    #[test]
    fn room_floors_at_zero() {
        let e = FillEstimate::measured(
            TokenCount(190_000),
            ContextWindow::DEFAULT,
            &Thresholds::default(),
            TokenCount(33_000),
            FillSource::Transcript,
            None,
        );
        assert_eq!(e.tokens_until_auto_compact, TokenCount(0));
    }

    #[test]
    fn unavailable_is_nominal_with_reason() {
        let e =
            FillEstimate::unavailable(ContextWindow::DEFAULT, TokenCount(33_000), "no transcript");
        assert_eq!(e.threshold_tier, ThresholdTier::Nominal);
        assert_eq!(e.source, FillSource::Unavailable);
        assert_eq!(e.note.as_deref(), Some("no transcript"));
    }
}
