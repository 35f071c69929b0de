//! ctxmon's domain: value objects, domain events and the pure rules over them, the same for
//! every coding agent ctxmon serves (Claude Code, Codex CLI, Gemini CLI).
//!
//! Architecture invariant: this crate performs no I/O, reads no clock and no environment, and
//! depends on nothing but `serde`. Everything here is a total function of its inputs, so it
//! cannot fail for reasons outside the caller's data.
//!
//! Docs and comments cite the [`contract`], what ctxmon promises, by section: `contract C2`.

// Production code never unwraps or expects: bad input is data (contract C15), so a failure is
// handled, and a truly infallible case carries an `#[allow]` that says why. Test code (unit
// test modules, integration tests) may panic on a broken precondition; see clippy.toml.
#![deny(clippy::unwrap_used, clippy::expect_used)]
// The domain is a library others embed: every public item says what it is, its units and its
// invariants, so an embedder never has to read the source to use it.
#![deny(missing_docs)]

pub mod assembly;
pub mod checkpoint;
// The contract ships with the crate (the file is the repository's `docs/contract.md`), so the
// `contract C<n>` a comment or doc cites is a section a reader of the crate has.
#[doc = include_str!("../contract.md")]
pub mod contract {}
pub mod events;
pub mod fill;
pub mod hash;
pub mod human;
pub mod payload_check;
pub mod resume_log;
pub mod resumption;
pub mod session;
pub mod state;
pub mod status_template;
pub mod tier;
pub mod time;
pub mod tokens;
pub mod window;
pub mod xml;

pub use checkpoint::{CheckpointData, CheckpointId, CompactionTrigger, ContextState, SessionInfo};
pub use events::{DomainEvent, EventRecord};
pub use fill::{FillEstimate, FillSource, Measured};
pub use payload_check::PayloadCheck;
pub use resume_log::{
    ContextMetrics, ContextValue, Decision, JsonNumber, ResumeLog, ResumeLogDraft,
    ResumeLogSection, SessionMetadata,
};
pub use resumption::{
    AgentNote, Check, Failure, FileToRead, KeyDecision, LineRange, QualityTrajectory,
    ResumptionOrigin, ResumptionState, Todo,
};
pub use session::SessionKey;
pub use state::{CompactionsSeen, SessionState};
pub use status_template::{
    DEFAULT_STATUS_FORMAT, FieldText, StatusField, StatusTemplate, TemplateError,
};
pub use tier::{ThresholdError, ThresholdTier, Thresholds};
pub use time::Timestamp;
pub use tokens::{TokenCount, estimate_tokens};
pub use window::ContextWindow;

// The README's example is compiled and run with the doc tests, so it cannot go stale.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeExample;
