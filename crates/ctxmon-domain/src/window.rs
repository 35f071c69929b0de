//! The size of a model's context window.

use serde::{Deserialize, Serialize};

use crate::TokenCount;

/// A context window size in tokens; never zero, so ratios against it are always defined.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(try_from = "u64", into = "u64")]
pub struct ContextWindow(u64);

impl ContextWindow {
    /// Claude Code's default window.
    pub const DEFAULT: ContextWindow = ContextWindow(200_000);
    /// The large window of 1M-context models; also the size the estimator moves to when the
    /// measured tokens prove the chosen window too small.
    pub const ONE_MILLION: ContextWindow = ContextWindow(1_000_000);

    /// Returns `None` for zero: a zero window is a configuration mistake, not a size.
    pub fn new(tokens: u64) -> Option<ContextWindow> {
        (tokens > 0).then_some(ContextWindow(tokens))
    }

    /// The window's size as a token count.
    pub fn tokens(self) -> TokenCount {
        TokenCount(self.0)
    }

    /// The window's size in tokens (never 0).
    pub fn get(self) -> u64 {
        self.0
    }

    /// The fill ratio of `used` tokens; not clamped, so an over-full window shows as > 1.
    pub fn ratio(self, used: TokenCount) -> f64 {
        used.get() as f64 / self.0 as f64
    }
}

impl TryFrom<u64> for ContextWindow {
    type Error = String;
    fn try_from(v: u64) -> Result<Self, Self::Error> {
        ContextWindow::new(v).ok_or_else(|| "context window must be greater than 0".to_string())
    }
}

impl From<ContextWindow> for u64 {
    fn from(w: ContextWindow) -> u64 {
        w.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_is_rejected() {
        assert!(ContextWindow::new(0).is_none());
        assert!(serde_json::from_str::<ContextWindow>("0").is_err());
        assert_eq!(
            serde_json::from_str::<ContextWindow>("5").ok(),
            ContextWindow::new(5)
        );
    }

    #[test]
    fn ratio_is_unclamped() {
        let w = ContextWindow::DEFAULT;
        assert_eq!(w.ratio(TokenCount(100_000)), 0.5);
        assert_eq!(w.ratio(TokenCount(300_000)), 1.5);
    }
}
