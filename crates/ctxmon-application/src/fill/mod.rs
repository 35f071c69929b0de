//! Context fill estimation (spec §2): from a transcript reading or a status-line payload to a
//! `FillEstimate`, failing open to NOMINAL.

mod estimator;
mod window;

#[cfg(test)]
mod tests;

pub use estimator::{ContextFillEstimator, EstimateRequest, FillSettings, Measurement};
pub use window::{WindowChoice, WindowReason, WindowRules};
