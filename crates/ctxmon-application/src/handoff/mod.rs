//! Handing the work over across a compaction or to the next session: what a compaction does to
//! the session state (`compaction`), acknowledging checkpoints (`checkpoint_ack`), handing a
//! resumption context back and recording it once the answer is written (`delivery`), the `<compaction-alert>` (`alert`), the resumption state a checkpoint
//! carries and its `<resumption-context>` (`resumption`), the resume log written on triggers
//! and on request (`resume_log`), when the resumption source file is stale (`source_staleness`), and the writer that keeps every injected tag within its
//! token budget (`budget_writer`).
//!
//! `resumption/` builds the state from the source file or the transcript's tail, checks every
//! fact against what came after it (`checked`, `worked`), carries the agent's own note
//! (`note`), and renders `<resumption-context>` in two modes: beside the agent's own summary,
//! or alone. `resume_log/` holds the triggers, the section providers, the generator and the
//! SessionStart `pointer`.
//!
//! Two names, two things: a *resumption* state is the short summary inside a checkpoint,
//! handed back as `<resumption-context>`; a *resume log* is the separate 10,000-token
//! document in `resume-logs/`, to which SessionStart may only point.

pub mod alert;
// The binary's: it keeps every tag a hook injects within its budget, not an embedder's API.
#[doc(hidden)]
pub mod budget_writer;
pub mod checkpoint_ack;
pub mod compaction;
pub mod delivery;
pub mod resume_log;
pub mod resumption;
pub mod source_staleness;
