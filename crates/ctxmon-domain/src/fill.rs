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
    /// The lower-case name used in JSON and `status` output.
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
    /// The fill as a ratio of the window, tokens / window: 0.75 is 75% (the name is the
    /// product's JSON field; it is never a percentage). Not clamped: above 1 is over-full.
    /// [`FillEstimate::percent`] is the whole percent shown to people.
    pub fill_percentage: f64,
    /// Every token the context holds: for a transcript, the sum `input_tokens +
    /// cache_creation_input_tokens + cache_read_input_tokens` of the newest usage record, not
    /// the API's `input_tokens` field alone (which counts only the uncached part, often a
    /// handful). The name is the product's JSON field; [`FillEstimate::context_tokens`] reads
    /// it by what it is.
    pub input_tokens: TokenCount,
    /// The window the fill is measured against.
    pub context_window_size: ContextWindow,
    /// The tier `fill_percentage` falls in under the thresholds in force.
    pub threshold_tier: ThresholdTier,
    /// Where `input_tokens` came from.
    pub source: FillSource,
    /// The model the figure belongs to, when known.
    pub model: Option<String>,
    /// Room left before the agent's auto-compaction; `None` (JSON `null`) when the user
    /// turned auto-compaction off (`DISABLE_AUTO_COMPACT`, `autoCompactEnabled: false`).
    pub tokens_until_auto_compact: Option<TokenCount>,
    /// Why the estimate is what it is when that is not obvious: a fail-open reason, a window
    /// auto-correction. Human-readable; never parsed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// What a measured estimate is made of, by name; [`FillEstimate::measured`] derives the
/// ratio, the tier and the room to auto-compaction from it.
#[derive(Debug, Clone, PartialEq)]
pub struct Measured<'a> {
    /// Every token the context holds (see [`FillEstimate::input_tokens`]).
    pub tokens: TokenCount,
    /// The window they are measured against.
    pub window: ContextWindow,
    /// The tier boundaries in force.
    pub thresholds: &'a Thresholds,
    /// Tokens kept free between the window's end and the point where the agent compacts
    /// (Claude Code's default is 33,000 on a 200,000 window); the whole window when
    /// auto-compaction is off.
    pub auto_compact_reserve: TokenCount,
    /// Where `tokens` came from.
    pub source: FillSource,
    /// The model the figure belongs to, when known.
    pub model: Option<String>,
}

impl FillEstimate {
    /// Builds an estimate from measured tokens, computing ratio, tier and room to
    /// auto-compact.
    pub fn measured(m: Measured<'_>) -> FillEstimate {
        let ratio = m.window.ratio(m.tokens);
        FillEstimate {
            fill_percentage: ratio,
            input_tokens: m.tokens,
            context_window_size: m.window,
            threshold_tier: m.thresholds.classify(ratio),
            source: m.source,
            model: m.model,
            tokens_until_auto_compact: Some(
                m.window
                    .tokens()
                    .saturating_sub(m.auto_compact_reserve)
                    .saturating_sub(m.tokens),
            ),
            note: None,
        }
    }

    /// Every token the context holds: [`FillEstimate::input_tokens`] by what it is.
    pub fn context_tokens(&self) -> TokenCount {
        self.input_tokens
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
            tokens_until_auto_compact: Some(window.tokens().saturating_sub(auto_compact_buffer)),
            note: Some(reason.into()),
        }
    }

    /// The same estimate with `note` set.
    pub fn with_note(mut self, note: impl Into<String>) -> FillEstimate {
        self.note = Some(note.into());
        self
    }

    /// Whole percent for display, rounded down (75.9% → 75, 99.9995% → 99): see
    /// [`floor_scaled`].
    pub fn percent(&self) -> u64 {
        floor_scaled(self.fill_percentage, 100.0)
    }
}

/// `ratio × scale` rounded down: how every fill ctxmon shows is rounded (whole percent,
/// tenths, bar cells). A fill is never shown fuller than it is: 199,999 of 200,000 tokens is
/// 99% with nine of ten cells, not 100%, and 159,999 (WARNING) is 79%, not CRITICAL's 80%.
/// A product within a few units of float rounding error of a whole number counts as that
/// number, so 114,000 of 200,000 (0.57 × 100 = 56.999…) is 57%, not 56%; a real fill is never
/// that close below a whole percent (tokens and windows are integers). Negative and non-finite
/// products give 0; huge ones saturate.
pub fn floor_scaled(ratio: f64, scale: f64) -> u64 {
    let x = ratio * scale;
    if !x.is_finite() || x <= 0.0 {
        return 0;
    }
    let nearest = x.round();
    let whole = if (x - nearest).abs() <= 64.0 * f64::EPSILON * nearest.max(1.0) {
        nearest
    } else {
        x.floor()
    };
    // `as` saturates at u64::MAX; `whole` is finite and non-negative here.
    whole as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn measured_computes_tier_and_room() {
        let e = FillEstimate::measured(Measured {
            tokens: TokenCount(150_000),
            window: ContextWindow::DEFAULT,
            thresholds: &Thresholds::default(),
            auto_compact_reserve: TokenCount(33_000),
            source: FillSource::Transcript,
            model: None,
        });
        assert_eq!(e.fill_percentage, 0.75);
        assert_eq!(e.threshold_tier, ThresholdTier::Warning);
        assert_eq!(e.tokens_until_auto_compact, Some(TokenCount(17_000)));
        assert_eq!(e.percent(), 75);
    }

    #[test]
    fn percentages_round_down_and_never_up_across_a_boundary() {
        let pct = |tokens| {
            FillEstimate::measured(Measured {
                tokens: TokenCount(tokens),
                window: ContextWindow::DEFAULT,
                thresholds: &Thresholds::default(),
                auto_compact_reserve: TokenCount(33_000),
                source: FillSource::Transcript,
                model: None,
            })
        };
        assert_eq!(pct(199_999).percent(), 99);
        assert_eq!(pct(200_000).percent(), 100);
        let below_critical = pct(159_999);
        assert_eq!(below_critical.threshold_tier, ThresholdTier::Warning);
        assert_eq!(below_critical.percent(), 79);
        // The same as integer arithmetic for every count, exact multiples included despite
        // float error (0.57 × 100 = 56.99999999999999).
        for window in [200_000u64, 1_000_000, 333_333] {
            let w = ContextWindow::new(window).unwrap();
            for tokens in (0..=window + 2_000).step_by(3) {
                let ratio = w.ratio(TokenCount(tokens));
                assert_eq!(
                    floor_scaled(ratio, 100.0),
                    tokens * 100 / window,
                    "{tokens}/{window}"
                );
                assert_eq!(
                    floor_scaled(ratio, 10.0),
                    tokens * 10 / window,
                    "{tokens}/{window}"
                );
            }
        }
        assert_eq!(floor_scaled(0.999, 10.0), 9);
        assert_eq!(floor_scaled(0.3, 10.0), 3);
        assert_eq!(floor_scaled(-0.5, 100.0), 0);
        assert_eq!(floor_scaled(f64::NAN, 100.0), 0);
        assert_eq!(floor_scaled(f64::MAX, 100.0), 0);
        assert_eq!(floor_scaled(1e30, 100.0), u64::MAX);
        // Large values still round down: the tolerance is relative to float precision only.
        assert_eq!(floor_scaled(99_999_999.95, 100.0), 9_999_999_995);
        assert_eq!(floor_scaled(99_999_999.999, 100.0), 9_999_999_999);
    }

    #[test]
    fn room_floors_at_zero() {
        let e = FillEstimate::measured(Measured {
            tokens: TokenCount(190_000),
            window: ContextWindow::DEFAULT,
            thresholds: &Thresholds::default(),
            auto_compact_reserve: TokenCount(33_000),
            source: FillSource::Transcript,
            model: None,
        });
        assert_eq!(e.tokens_until_auto_compact, Some(TokenCount(0)));
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
