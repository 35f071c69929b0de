//! Claude Code's JSONL transcript: what its lines mean for the fill and for a handoff.
//!
//! - `line` decides what one line means for the fill: a usage record, a compaction boundary,
//!   or nothing (every field read leniently: Claude Code calls the format internal and changes
//!   it between versions, so a field of the wrong type costs that field, never the line);
//! - `scan` reads backwards from the end to the newest record (the hooks' reading);
//! - `history` finds a transcript's automatic compactions (where this user's really fired);
//! - `records` (with `prompt`) turns lines into the tail port's typed records, `lean` parses a
//!   line for them only, and `tail` reads a transcript's end as records, with the file writes
//!   of the session's subagents kept in files of their own;
//! - `recent` reads back to the last compaction for what fills the context (its largest tool
//!   outputs, file reads and pasted messages) and the fill after each recent response.
//!
//! Decisions behind the reading rules (docs/contract.md, "Fill measurement"):
//! - A usage whose summed fields have the wrong type (a string, a negative number, a float)
//!   does not qualify: the line is skipped and the scan goes on to older lines. Reading such a
//!   field as 0 would under-report the fill; fields outside the formula may hold anything.
//! - A boundary with malformed `compactMetadata` is still a boundary, with the bad figures
//!   `None`.

mod history;
mod lean;
mod line;
mod numbered;
mod prompt;
mod recent;
mod records;
mod scan;
mod tail;

pub use history::CompactionScan;
pub use recent::{MAX_FILLS, PASTED_MIN_CHARS, TARGET_CHARS, recent_context, shorten};
pub use records::{
    RESULT_HEAD_CHARS, RESULT_TAIL_CHARS, RecordParser, records_from_values, tool_kind,
};
pub use scan::{last_model, scan};
pub use tail::{subagent_folder, subagent_writes, tail_records};

use crate::ports::TranscriptEvent;

/// What one line (its bytes, without the newline) means for the fill: a usage record or a
/// compaction boundary, or `None` for every other line (one that does not parse included).
pub fn event_of_line(line: &[u8]) -> Option<TranscriptEvent> {
    line::classify(line).into_transcript_event()
}

/// A line parsed for its records only: the keys [`RecordParser::push`] reads, every other
/// key checked as JSON and skipped. `None` when the line is not JSON. For tests that hold
/// the records of a whole parse and a lean one equal.
#[doc(hidden)]
pub fn lean_line(line: &[u8]) -> Option<serde_json::Value> {
    lean::parse_line(line)
}

pub(crate) use records::head_and_tail;
