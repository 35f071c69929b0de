//! One use case per Claude Code hook event. Each takes plain inputs and ports and returns what
//! to answer; the wire format (JSON on stdout, exit 0) is the CLI's business.

pub mod prompt_submit;

#[cfg(test)]
mod prompt_submit_tests;
