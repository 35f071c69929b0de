//! Codex CLI's rollout: what its lines mean for the fill and for a handoff (facts and their
//! sources in docs/codex.md).
//!
//! A rollout is JSONL, one `{"timestamp","type","payload"}` object a line, opened by a
//! `session_meta` line; `detect` recognises it by that line:
//! - `line` classifies a line for the fill: a measured `token_count`, Codex's own estimate
//!   (skipped), a compaction marker, a turn's model or announced window;
//! - `scan` reads backwards from the end within the byte bound (the hooks' reading);
//! - `forward` turns a whole file's lines into events for the session report;
//! - `records` and `tail` turn lines into the tail port's typed records (requests, tool calls
//!   and outputs, plans, patched files, the branch) for checkpoints, resumption and resume logs;
//! - `meta` reads the `session_meta` line (the session's id and folder).

mod forward;
mod line;
mod meta;
mod records;
mod scan;
mod tail;

pub use forward::ForwardEvents;
pub use meta::{SessionMeta, session_meta};
pub use records::RolloutRecords;
pub use scan::scan;
pub use tail::{META_BYTES, tail_records};

use crate::ports::TranscriptRecord;

/// Parses rollout lines already read as JSON into records, oldest first (tests and tools that
/// hold `Value`s; the tail reader filters raw lines first).
pub fn rollout_records_from_values(lines: &[serde_json::Value]) -> Vec<TranscriptRecord> {
    let mut parser = RolloutRecords::default();
    let mut out = Vec::new();
    for line in lines {
        parser.push(line, &mut out);
    }
    out
}
