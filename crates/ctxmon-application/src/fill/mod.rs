//! Context fill estimation (spec §2): from a transcript reading or a status-line payload to a
//! `FillEstimate`, failing open to NOMINAL; and a whole session's fill over time (`series`).

mod auto_compact;
mod estimator;
mod series;
mod window;

#[cfg(test)]
mod series_tests;
#[cfg(test)]
mod tests;

pub use auto_compact::{AUTO_COMPACT_WINDOW_MAX, AUTO_COMPACT_WINDOW_MIN, AutoCompactSettings};
pub use estimator::{ContextFillEstimator, EstimateRequest, FillSettings, Measurement};
pub use series::{
    CompactionMark, FillPoint, FillSeries, FillSeriesBuilder, SeriesScope, TierCrossing,
};
pub use window::{WindowChoice, WindowReason, WindowRules};
