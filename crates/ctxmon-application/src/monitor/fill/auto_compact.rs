//! Where Claude Code auto-compacts, honouring the user's own settings (contract C2).
//!
//! Default trigger, as Claude Code's maintainers describe it: window − min(max output, 20,000)
//! − 13,000, i.e. 167,000 on a 200,000 window — the configurable `auto_compact_buffer` (33,000)
//! is that reserve. The user can move the point: `autoCompactWindow` /
//! `CLAUDE_CODE_AUTO_COMPACT_WINDOW` (100K–1M) shrink the window the rule is applied to,
//! `CLAUDE_AUTOCOMPACT_PCT_OVERRIDE` (1–100) caps the trigger at that percentage of the window
//! (it can only lower it), and `DISABLE_AUTO_COMPACT=1` / `autoCompactEnabled: false` turn it
//! off. The CLI reads env and settings files and hands the typed result in here.

use ctxmon_domain::{ContextWindow, TokenCount};

/// Smallest `autoCompactWindow` Claude Code accepts, in tokens.
pub const AUTO_COMPACT_WINDOW_MIN: u64 = 100_000;
/// Largest `autoCompactWindow` Claude Code accepts, in tokens.
pub const AUTO_COMPACT_WINDOW_MAX: u64 = 1_000_000;

/// The user's auto-compaction settings, already validated by the composition root.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct AutoCompactSettings {
    /// `true` when the user turned auto-compaction off.
    pub disabled: bool,
    /// `autoCompactWindow` / `CLAUDE_CODE_AUTO_COMPACT_WINDOW`, within 100K–1M.
    pub window: Option<u64>,
    /// `CLAUDE_AUTOCOMPACT_PCT_OVERRIDE`, within 1–100.
    pub pct_override: Option<u64>,
}

impl AutoCompactSettings {
    /// The fill at which auto-compaction starts on `window` with the default `buffer`, or
    /// `None` when it is off.
    pub fn trigger(&self, window: ContextWindow, buffer: TokenCount) -> Option<TokenCount> {
        if self.disabled {
            return None;
        }
        // A configured compaction window smaller than the model's moves the point down; one
        // larger than the model's cannot let the context grow past the model's window.
        let effective = self.window.map_or(window.get(), |w| w.min(window.get()));
        let mut trigger = effective.saturating_sub(buffer.get());
        if let Some(pct) = self.pct_override {
            trigger = trigger.min(effective.saturating_mul(pct) / 100);
        }
        Some(TokenCount(trigger))
    }

    /// The reserve between the window's end and the trigger, for the estimate's arithmetic
    /// (`window − reserve − tokens`); the whole window when auto-compaction is off.
    pub fn reserve(&self, window: ContextWindow, buffer: TokenCount) -> TokenCount {
        match self.trigger(window, buffer) {
            Some(t) => TokenCount(window.get().saturating_sub(t.get())),
            None => window.tokens(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(n: u64) -> ContextWindow {
        ContextWindow::new(n).expect("window")
    }
    const BUF: TokenCount = TokenCount(33_000);

    #[test]
    fn default_is_window_minus_buffer() {
        let s = AutoCompactSettings::default();
        assert_eq!(s.trigger(w(200_000), BUF), Some(TokenCount(167_000)));
    }

    #[test]
    fn pct_override_only_lowers() {
        let half = AutoCompactSettings {
            pct_override: Some(50),
            ..Default::default()
        };
        assert_eq!(half.trigger(w(200_000), BUF), Some(TokenCount(100_000)));
        let full = AutoCompactSettings {
            pct_override: Some(100),
            ..Default::default()
        };
        assert_eq!(full.trigger(w(200_000), BUF), Some(TokenCount(167_000)));
    }

    #[test]
    fn window_override_shrinks_never_grows() {
        let small = AutoCompactSettings {
            window: Some(150_000),
            ..Default::default()
        };
        assert_eq!(small.trigger(w(200_000), BUF), Some(TokenCount(117_000)));
        let big = AutoCompactSettings {
            window: Some(500_000),
            ..Default::default()
        };
        assert_eq!(big.trigger(w(200_000), BUF), Some(TokenCount(167_000)));
    }

    #[test]
    fn disabled_has_no_trigger() {
        let off = AutoCompactSettings {
            disabled: true,
            pct_override: Some(50),
            ..Default::default()
        };
        assert_eq!(off.trigger(w(200_000), BUF), None);
    }
}
