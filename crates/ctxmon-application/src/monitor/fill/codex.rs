//! Where Codex CLI auto-compacts.
//!
//! Checked against openai/codex `codex-rs` (the repository as indexed at commit
//! 8db0700334e35787030da010475ab211649e6b5d for `protocol/src/openai_models.rs`, and
//! 0666e95234407666790e1d6202d552a124e3f1a3 for `core/src/models_manager/model_info.rs`; the
//! sanitized fixtures were written by Codex 0.104.0-alpha.1):
//! - `ModelInfo::auto_compact_token_limit()`: the configured `model_auto_compact_token_limit`
//!   (`with_config_overrides` copies it from `config.toml`), else `context_window * 9 / 10`;
//!   newer releases also cap a configured limit at that 90%, so a larger value no longer
//!   postpones compaction. We apply the cap either way: warning early is the safe side.
//! - `TurnContext::model_context_window()` is `context_window * effective_context_window_percent
//!   / 100` with the percent defaulting to 95: that is the `model_context_window` every
//!   `token_count` reports (258,400 for the 272,000-token GPT-5 family).
//! - The turn loop compacts when `total_usage_tokens >= auto_compact_limit`, where the usage is
//!   the same `last_token_usage.total_tokens` the fill is measured from.
//!
//! So on the window a rollout reports, the default trigger is 90/95 of it (244,800 of 258,400,
//! 94.7%): Codex compacts later than Claude Code does, relative to the window it shows.

use ctxmon_domain::{ContextWindow, TokenCount};

/// Codex's default share of the raw window at which it compacts, in percent.
pub const CODEX_AUTO_COMPACT_PERCENT: u64 = 90;
/// The share of the raw window Codex reports as `model_context_window`, in percent.
pub const CODEX_EFFECTIVE_WINDOW_PERCENT: u64 = 95;

/// Codex's auto-compaction point, as configured (ctxmon's `codex.auto_compact_token_limit`,
/// else `model_auto_compact_token_limit` from Codex's own `config.toml`, which the composition
/// root reads).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CodexAutoCompact {
    /// The configured limit in tokens; `None` for Codex's default rule.
    pub limit: Option<u64>,
}

impl CodexAutoCompact {
    /// The fill at which Codex compacts on a context whose reported window is `window`.
    pub fn trigger(&self, window: ContextWindow) -> TokenCount {
        // window = raw × 95 / 100, default = raw × 90 / 100: default = window × 90 / 95.
        let default = window.get().saturating_mul(CODEX_AUTO_COMPACT_PERCENT)
            / CODEX_EFFECTIVE_WINDOW_PERCENT;
        let trigger = match self.limit.filter(|l| *l > 0) {
            Some(limit) => limit.min(default),
            None => default,
        };
        TokenCount(trigger)
    }

    /// The reserve between the window's end and the trigger (`window − reserve − tokens` is
    /// the room left), as the estimate's arithmetic wants it.
    pub fn reserve(&self, window: ContextWindow) -> TokenCount {
        TokenCount(window.get().saturating_sub(self.trigger(window).get()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(n: u64) -> ContextWindow {
        ContextWindow::new(n).expect("window")
    }

    #[test]
    fn default_is_ninety_percent_of_the_raw_window() {
        let d = CodexAutoCompact::default();
        // 258,400 is 95% of 272,000; 90% of 272,000 is 244,800.
        assert_eq!(d.trigger(w(258_400)), TokenCount(244_800));
        assert_eq!(d.reserve(w(258_400)), TokenCount(13_600));
    }

    #[test]
    fn a_configured_limit_lowers_the_point_but_cannot_raise_it() {
        let low = CodexAutoCompact {
            limit: Some(200_000),
        };
        assert_eq!(low.trigger(w(258_400)), TokenCount(200_000));
        let high = CodexAutoCompact {
            limit: Some(300_000),
        };
        assert_eq!(high.trigger(w(258_400)), TokenCount(244_800));
        let zero = CodexAutoCompact { limit: Some(0) };
        assert_eq!(zero.trigger(w(258_400)), TokenCount(244_800));
    }
}
