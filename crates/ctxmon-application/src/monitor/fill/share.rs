//! Where an agent that compacts at a share of its window does so (Gemini CLI).
//!
//! Gemini CLI compresses the history when the last prompt's token count reaches
//! `model.compressionThreshold` × window (`context/chatCompressionService.ts` at gemini-cli
//! commit 5411f113), half the window by default. The composition root reads the setting from
//! the agent's settings files; a value outside (0, 1] is ignored there with a warning.

use ctxmon_domain::{ContextWindow, TokenCount};

/// The share of the window at which the agent compacts.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct ShareAutoCompact {
    /// The configured share (0 < share ≤ 1); `None` for the agent's default.
    pub share: Option<f64>,
}

impl ShareAutoCompact {
    /// The fill at which the agent compacts on `window`, `default_percent` of it unless a
    /// share is configured.
    pub fn trigger(&self, window: ContextWindow, default_percent: u64) -> TokenCount {
        match self
            .share
            .filter(|s| s.is_finite() && *s > 0.0 && *s <= 1.0)
        {
            Some(share) => {
                // Both factors are positive and the product is at most the window, which
                // fits u64; the cast rounds down, as the agent's own `>=` comparison implies.
                #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
                let tokens = (window.get() as f64 * share) as u64;
                TokenCount(tokens.min(window.get()))
            }
            None => TokenCount(window.get().saturating_mul(default_percent.min(100)) / 100),
        }
    }

    /// The reserve between the window's end and the trigger.
    pub fn reserve(&self, window: ContextWindow, default_percent: u64) -> TokenCount {
        TokenCount(
            window
                .get()
                .saturating_sub(self.trigger(window, default_percent).get()),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(n: u64) -> ContextWindow {
        ContextWindow::new(n).expect("window")
    }

    #[test]
    fn default_is_half_the_window_and_a_share_moves_it() {
        let d = ShareAutoCompact::default();
        assert_eq!(d.trigger(w(1_048_576), 50), TokenCount(524_288));
        assert_eq!(d.reserve(w(1_048_576), 50), TokenCount(524_288));
        let set = ShareAutoCompact { share: Some(0.7) };
        assert_eq!(set.trigger(w(1_000_000), 50), TokenCount(700_000));
    }

    #[test]
    fn a_share_out_of_range_is_the_default() {
        for bad in [0.0, -0.5, 1.5, f64::NAN, f64::INFINITY] {
            let s = ShareAutoCompact { share: Some(bad) };
            assert_eq!(s.trigger(w(1_000_000), 50), TokenCount(500_000), "{bad}");
        }
    }
}
