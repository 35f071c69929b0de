//! Claude Code's settings files as ctxmon edits them: which hooks it registers (`table`), how a
//! settings document changes on install and uninstall (`merge`), and the text machinery that
//! keeps every byte of the user's own settings where it was (`jsontext`, `edit`).
//!
//! Everything here is pure (text in, text out) so it is tested without a file system;
//! `commands::install` does the reading, backing up and atomic writing.

pub mod command_line;
pub mod diff;
mod edit;
mod jsontext;
pub mod merge;
pub mod table;

#[cfg(test)]
mod tests;
