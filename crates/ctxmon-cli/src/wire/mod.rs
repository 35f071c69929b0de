//! Claude Code's wire format: hook input on stdin, hook answers on stdout.

pub mod hook_input;
pub mod hook_output;
pub mod status_input;
