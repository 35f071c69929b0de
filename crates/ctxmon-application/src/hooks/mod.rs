//! One use case per Claude Code hook event (Codex CLI sends the same events). Each takes plain inputs and ports and returns what
//! to answer; the wire format (JSON on stdout, exit 0) is the CLI's business. None of them
//! fails: problems come back as warnings beside the answer.

mod delivery;
pub mod lifecycle;
pub mod post_tool_use;
pub mod pre_compact;
pub mod pre_tool_use;
pub mod prompt_submit;
pub mod session_start;

#[cfg(test)]
mod post_tool_use_tests;
#[cfg(test)]
mod pre_compact_tests;
#[cfg(test)]
mod prompt_submit_tests;
#[cfg(test)]
mod repeat_tests;
#[cfg(test)]
mod resilience_tests;
#[cfg(test)]
mod session_start_tests;
#[cfg(test)]
mod test_world;
