//! End-to-end tests of the hooks and the status line as Claude Code, Codex CLI and Gemini CLI run them: stdin
//! JSON in, one answer out, what they leave in `.ctxmon/`, and how they fail open on bad
//! input, planted links and odd project places. One test binary, linked once instead of once
//! per file; each module is named for what it tests (`cargo test -p ctxmon-cli --test hooks
//! prompt_submit::`). The process-heavy proofs (concurrency, kills, hostile file systems) keep
//! binaries of their own so they never share a test run with these.

#[path = "../common/mod.rs"]
mod common;

mod auto_compact_settings;
mod checkpoint_attacks;
mod checkpoint_sequence;
mod codex;
mod compaction_triggers;
mod gemini;
mod git_calls;
mod handoff;
mod hook_input;
mod note;
mod planted_links;
mod post_tool_use;
mod project_dir;
mod project_places;
mod prompt_submit;
mod resilience;
mod resilience_bad_input;
mod resumption_source;
mod statusline;
mod statusline_format;
mod statusline_payload_check;
mod stderr;
