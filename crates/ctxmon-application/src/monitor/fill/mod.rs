//! Context fill estimation (contract C2): from a transcript reading or a status-line payload to a
//! `FillEstimate`, failing open to NOMINAL; and a whole session's fill over time (`series`).
//! Auto-compaction follows the agent that wrote the transcript: Claude Code's rule and the
//! user's Claude Code settings (`auto_compact`) and where its version and the user's own
//! compactions put the point (`claude_point`), or Codex's (`codex`).

mod auto_compact;
mod claude_point;
mod codex;
mod estimator;
mod reset;
mod series;
mod series_triggers;
mod share;
mod window;

#[cfg(test)]
mod series_tests;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tier_basis_tests;

pub use auto_compact::{AUTO_COMPACT_WINDOW_MAX, AUTO_COMPACT_WINDOW_MIN, AutoCompactSettings};
pub use claude_point::{
    HISTORY_RECENT, PastCompaction, PointSource, history_reserve, version_reserve,
};
pub use codex::{CODEX_AUTO_COMPACT_PERCENT, CODEX_EFFECTIVE_WINDOW_PERCENT, CodexAutoCompact};
pub use estimator::{ContextFillEstimator, EstimateRequest, FillSettings, Measurement};
pub use reset::reset_if_stale;
pub use series::{
    CompactionMark, FillPoint, FillSeries, FillSeriesBuilder, FinalFill, SeriesScope, TierCrossing,
};
pub use share::ShareAutoCompact;
pub use window::{WindowChoice, WindowReason, WindowRules};
