//! Resume logs (contract C9): the handoff document written when a session is compacted, ends or
//! turns critical, and on request.
//!
//! - `trigger`: when a log is due ([`TriggerKind`], the [`TriggerCondition`] extension point,
//!   the configured `resume_logs.triggers`); at most once per trigger per context (a
//!   compaction re-arms `tier:*` and `pre_compact`), `session_end` once per session.
//! - `providers`: where content comes from, in priority order — the agent's document, the
//!   session's latest checkpoint, the transcript tail, git ([`SectionProvider`] extension
//!   point); `carry`: the session's previous log, when a compaction came since.
//! - `generator`: [`ResumeLogGenerator`] combines them into a budgeted [`ctxmon_domain::ResumeLog`].
//! - `entry`: what hooks ([`generate_for_trigger`], fail-open) and the CLI ([`generate_now`])
//!   call; they gather inputs through the hook ports and save through a
//!   [`crate::ports::ResumeLogStore`] (the storage-backend extension point;
//!   [`crate::fakes::FakeResumeLogs`] in memory, the file store in `ctxmon-infra-fs`).
//! - `stored_json`: the log's JSON as stores write and read it ([`ExactJson`], [`from_json`]),
//!   the critical context's numbers as the agent wrote them.
//! - `pointer`: the short tag SessionStart injects instead of a log when it has no checkpoint
//!   to hand back.

mod carry;
mod entry;
mod generator;
pub mod pointer;
mod providers;
pub mod stored_json;
mod trigger;

pub use crate::config::fires_once_per_session;
pub use carry::BeforeCompaction;
pub use entry::{AlreadyRead, GenerateOutcome, TriggerOutcome, generate_for_trigger, generate_now};
pub(crate) use entry::{PendingGit, git_snapshot_started, read_head};
pub use generator::{GeneratedLog, ResumeLogGenerator};
pub use providers::{
    AgentDocument, GenerationInputs, Git, GitSnapshot, LatestCheckpoint, SectionProvider,
    SessionTranscript, add_context, fill_list, fill_text,
};
pub use stored_json::{ExactJson, from_json};
pub use trigger::{ConfiguredTrigger, TriggerCondition, TriggerKind, configured};

#[cfg(test)]
mod tests;
