//! ctxmon's adapters: everything that touches files, configuration, git or the clock, for
//! every agent ctxmon serves (Claude Code's projects folder, Codex CLI's sessions, Gemini
//! CLI's chats).
//!
//! Each module implements ports from `ctxmon-application` (or loads what its use cases need).
//! Architecture invariant: nothing here decides policy; adapters report what they find and the
//! application decides what it means.

// Production code never unwraps or expects: bad input is data (contract C15), so a failure is
// handled, and a truly infallible case carries an `#[allow]` that says why. Test code (unit
// test modules, integration tests) may panic on a broken precondition; see clippy.toml.
#![deny(clippy::unwrap_used, clippy::expect_used)]

pub mod agent_settings;
pub mod checkpoint_repo;
pub mod claude_history;
pub mod claude_paths;
pub mod clock;
pub mod codex;
pub mod config;
pub mod event_log;
pub mod fsutil;
pub mod gemini;
pub mod git_info;
pub mod hook_log;
pub mod layout;
pub mod local_time;
pub mod payload_check_store;
pub mod project_files;
pub mod resume_log_store;
pub mod resumption_source;
pub mod state_store;
pub mod status_line_problem;
pub mod transcript;

pub use agent_settings::AgentSettingsFiles;
pub use checkpoint_repo::FsCheckpointRepository;
pub use clock::SystemClock;
pub use event_log::FsEventLog;
pub use git_info::FsGitInfo;
pub use hook_log::HookLog;
pub use layout::ProjectLayout;
pub use payload_check_store::FsPayloadCheckStore;
pub use project_files::FsProjectFiles;
pub use resume_log_store::FsResumeLogStore;
pub use resumption_source::FsResumptionSource;
pub use state_store::FsSessionStateStore;
pub use status_line_problem::{FsStatusLineProblems, StatusLineProblem};
pub use transcript::{JsonlTranscriptReader, RegularFiles, read_tail_lines};
