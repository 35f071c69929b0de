//! ctxmon's application layer: the use cases of a context monitor for coding agents (Claude
//! Code, Codex CLI, Gemini CLI) and the ports (traits) they run on.
//!
//! Architecture invariant: nothing here touches a file, the environment, a process, the network
//! or the wall clock. Use cases receive ports and plain values and return plain values, so every
//! one of them runs in tests with in-memory adapters ([`fakes`]). The file-system adapters and
//! the `ctxmon` binary are separate crates; the domain types this crate's API uses are
//! re-exported as [`domain`], so this one dependency is enough.
//!
//! # What is where
//!
//! - [`readers`]: the agents' own files — [`readers::TranscriptFiles`] reads a Claude Code
//!   transcript, a Codex rollout or a Gemini CLI chat (any `Read + Seek` you open for it) and
//!   [`readers::TranscriptFiles::measure`] gives what `ctxmon status` reports of it;
//!   [`readers::settings`] reads the agents' auto-compaction settings.
//! - [`monitor`]: how full the context is — [`monitor::fill::ContextFillEstimator`] turns a
//!   transcript reading into a [`domain::FillEstimate`] (tokens, window, tier, room to
//!   auto-compaction); [`monitor::tag`] renders `<context-monitor>`.
//! - [`handoff`]: what survives a compaction — the resumption state (from a source file or the
//!   transcript's tail) and its `<resumption-context>`, the alert, resume logs.
//! - [`assembly`]: packing goal, files, diffs, memories and events into a context within a hard
//!   token budget (`ctxmon assemble`).
//! - [`config`]: the typed configuration; [`ports`]: the traits adapters implement;
//!   [`fakes`]: an in-memory implementation of each.
//!
//! The hook use cases themselves (`hooks`, one per agent hook event, and `run`, what one
//! invocation knows and collects) are public for the `ctxmon` binary but hidden from these
//! docs: they follow the binary's wire protocol, and no promise is made about them (the
//! README's "What is promised").
//!
//! # A fill estimate and its tier, from a transcript
//!
//! The transcript reader port reports facts (the newest usage record); the estimator decides
//! what they mean. Here the transcript is in memory:
//!
//! ```
//! use std::path::Path;
//!
//! use ctxmon_application::config::Config;
//! use ctxmon_application::domain::{FillSource, ThresholdTier};
//! use ctxmon_application::fakes::{FakeTranscripts, records};
//! use ctxmon_application::monitor::fill::{ContextFillEstimator, EstimateRequest, FillSettings};
//! use ctxmon_application::monitor::tag::render_context_monitor;
//!
//! let transcripts = FakeTranscripts::new();
//! transcripts.insert(
//!     "session.jsonl",
//!     vec![
//!         records::usage(90_000, "claude-sonnet-4-5"),
//!         records::usage(150_000, "claude-sonnet-4-5"),
//!     ],
//! );
//! let settings = FillSettings::from_config(&Config::default())?;
//! let estimate = ContextFillEstimator::new(&transcripts, &settings).estimate(EstimateRequest {
//!     transcript_path: Some(Path::new("session.jsonl")),
//!     ..EstimateRequest::default()
//! });
//!
//! // The newest response counts: 150,000 of a 200,000-token window.
//! assert_eq!(estimate.source, FillSource::Transcript);
//! assert_eq!(estimate.input_tokens.get(), 150_000);
//! assert_eq!(estimate.context_window_size.get(), 200_000);
//! assert_eq!(estimate.percent(), 75);
//! assert_eq!(estimate.threshold_tier, ThresholdTier::Warning);
//! // Claude Code compacts 33,000 tokens before the window's end.
//! assert_eq!(estimate.tokens_until_auto_compact.map(|t| t.get()), Some(17_000));
//!
//! let tag = render_context_monitor(&estimate, &settings.thresholds);
//! assert!(tag.starts_with("<context-monitor fill=\"75%\""), "{tag}");
//! assert!(tag.contains("WARNING"), "{tag}");
//! # Ok::<(), ctxmon_application::domain::ThresholdError>(())
//! ```
//!
//! # A resumption context, from a transcript's tail
//!
//! Before a compaction the tail's records (as the tail port reports them) give the resumption
//! state a checkpoint carries; after it, the state is handed back as `<resumption-context>`,
//! within its token budget:
//!
//! ```
//! use ctxmon_application::domain::{
//!     CheckpointData, CheckpointId, CompactionTrigger, ContextWindow, FillEstimate, FillSource,
//!     Measured, SessionInfo, Thresholds, Timestamp, TokenCount, estimate_tokens,
//! };
//! use ctxmon_application::fakes::records;
//! use ctxmon_application::handoff::resumption::context::{
//!     HandBackMode, RESUMPTION_MAX_TOKENS, ResumptionInput, render_resumption_context,
//! };
//! use ctxmon_application::handoff::resumption::derive_from_tail;
//!
//! let tail = vec![
//!     records::request("Fix the flaky login test"),
//!     records::write("Edit", "src/login.rs"),
//!     records::shell("c1", "cargo test login"),
//!     records::result_record(records::result("c1", true, "test login::retry ... FAILED")),
//! ];
//! let state = derive_from_tail(&tail);
//! assert_eq!(state.files_touched, ["src/login.rs"]);
//!
//! let fill = FillEstimate::measured(Measured {
//!     tokens: TokenCount(166_000),
//!     window: ContextWindow::DEFAULT,
//!     thresholds: &Thresholds::default(),
//!     auto_compact_reserve: TokenCount(33_000),
//!     source: FillSource::Transcript,
//!     model: None,
//! });
//! let checkpoint = CheckpointData {
//!     schema_version: CheckpointData::SCHEMA_VERSION,
//!     checkpoint_id: CheckpointId::FIRST,
//!     timestamp: "2026-03-01T10:00:00Z".into(),
//!     created_at_ms: Timestamp(1_772_359_200_000),
//!     compaction_sequence: 1,
//!     trigger: CompactionTrigger::Auto,
//!     custom_instructions: None,
//!     context_state: fill,
//!     resumption_state: Some(state),
//!     session_info: SessionInfo::default(),
//! };
//! let text = render_resumption_context(ResumptionInput {
//!     checkpoint: &checkpoint,
//!     resume_log: None,
//!     mode: HandBackMode::Alone,
//! });
//!
//! assert!(text.starts_with("<resumption-context checkpoint=\"cx-001\""), "{text}");
//! assert!(text.contains("fill-at-compaction=\"83%\""), "{text}");
//! assert!(text.contains("Fix the flaky login test"), "{text}");
//! assert!(text.contains("src/login.rs"), "{text}");
//! let failure = concat!(
//!     "<unresolved-failure>$ cargo test login\n",
//!     "test login::retry ... FAILED</unresolved-failure>",
//! );
//! assert!(text.contains(failure), "{text}");
//! assert!(text.ends_with("</resumption-context>"), "{text}");
//! assert!(estimate_tokens(&text).get() <= RESUMPTION_MAX_TOKENS);
//! ```
//!
//! # Context assembly within a budget
//!
//! The standard builder ranks the input's sources and packs them into `maxTokens`, system
//! prompt and tools included; what does not fit whole is shortened, visibly, or left out:
//!
//! ```
//! use ctxmon_application::assembly::{ContextBuilderOptions, create_context_builder};
//! use ctxmon_application::domain::assembly::{
//!     AgentCapability, AgentDescriptor, AgentRole, ContextBuildInput, ContextConstraints,
//!     FileDescriptor, RepoSnapshot, UserGoal,
//! };
//!
//! let file = |path: &str, content: String, relevance: f64| FileDescriptor {
//!     path: path.into(),
//!     size: content.len() as u64,
//!     content: Some(content),
//!     relevance_score: Some(relevance),
//!     ..FileDescriptor::default()
//! };
//! let input = ContextBuildInput {
//!     run_id: "run-1".into(),
//!     goal: UserGoal {
//!         raw: "Fix the login bug".into(),
//!         ..UserGoal::default()
//!     },
//!     agent: AgentDescriptor {
//!         id: "agent-1".into(),
//!         role: AgentRole::Coder,
//!         capabilities: vec![AgentCapability::ReadFiles, AgentCapability::WriteFiles],
//!         specializations: Vec::new(),
//!     },
//!     repo: Some(RepoSnapshot {
//!         root: "/work/app".into(),
//!         files: vec![
//!             file("src/login.rs", "fn login() -> bool { true }\n".repeat(2_000), 0.9),
//!             file("README.md", "# App\n".into(), 0.2),
//!         ],
//!         ..RepoSnapshot::default()
//!     }),
//!     memory: None,
//!     recent_events: Vec::new(),
//!     constraints: ContextConstraints {
//!         allow_summarization: true,
//!         now_ms: Some(1_772_359_200_000),
//!         ..ContextConstraints::new(2_000)
//!     },
//! };
//! let bundle = create_context_builder(ContextBuilderOptions::default()).build(&input)?;
//!
//! // A 14,000-token file and a 2,000-token budget: the bundle still fits.
//! assert!(bundle.token_estimate <= 2_000);
//! assert!(bundle.system.contains("Fix the login bug"));
//! let login = bundle
//!     .messages
//!     .iter()
//!     .find(|m| m.content.contains("--- File: src/login.rs ---"))
//!     .expect("the most relevant file is shown");
//! assert!(login.content.contains("[truncated: showing the first"), "{}", login.content);
//! let debug = bundle.debug.expect("the standard builder reports how it packed");
//! assert_eq!(debug.token_breakdown.total, bundle.token_estimate);
//! assert_eq!(debug.strategy_used, "balanced");
//! # Ok::<(), ctxmon_application::assembly::AssemblyError>(())
//! ```

// Production code never unwraps or expects: bad input is data (contract C15), so a failure is
// handled, and a truly infallible case carries an `#[allow]` that says why. Test code (unit
// test modules, integration tests) may panic on a broken precondition; see clippy.toml.
#![deny(clippy::unwrap_used, clippy::expect_used)]
// A library others embed: every public item says what it is, its units and its invariants, so
// an embedder never has to read the source to use it.
#![deny(missing_docs)]

pub mod agents;
pub mod assembly;
pub mod config;
pub mod fakes;
pub mod handoff;
#[doc(hidden)]
pub mod hooks;
pub mod monitor;
pub mod ports;
pub mod readers;
#[doc(hidden)]
pub mod run;

/// The domain crate (`ctxmon-domain`): the values and pure rules this crate's API takes and
/// returns, re-exported so that an embedder needs one dependency.
pub use ctxmon_domain as domain;

// What ctxmon promises, section by section: the page the code answers to, which comments and
// docs here cite as `contract C<n>`. It ships with `ctxmon-domain`, shown here as well.
#[doc(inline)]
pub use ctxmon_domain::contract;

// The README's example is compiled and run with the doc tests, so it cannot go stale.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeExample;
