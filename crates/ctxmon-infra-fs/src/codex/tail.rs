//! The tail port on a rollout: the last bytes as records, and the first ones until the caller
//! has what it needs. Same windows, same one-parse-per-wanted-line as Claude Code's
//! (`transcript::tail`); what differs is the parser (`records`) and one rule: the branch is
//! said once, by the `session_meta` line at the file's start, so a tail that does not reach
//! back to it gets that line read from the head.

use std::ops::ControlFlow;
use std::path::Path;

use ctxmon_application::ports::{TranscriptError, TranscriptRecord};

use super::records::RolloutRecords;
use crate::json_repair;
use crate::transcript::tail::{
    LineRecords, for_each_tail_line, read_head_filtered, read_head_records,
};

/// Most bytes read from a rollout's start for its `session_meta` line (Codex's base
/// instructions make it tens of kilobytes).
const META_BYTES: u64 = 1024 * 1024;

/// The records of the last `max_bytes` of the rollout at `path`, oldest first, behind the
/// session's `session_meta` record when the window does not hold it.
pub(crate) fn read_tail(
    path: &Path,
    max_bytes: u64,
) -> Result<Vec<TranscriptRecord>, TranscriptError> {
    let mut parser = RolloutRecords::default();
    let mut records = Vec::new();
    let (from_file_start, _) = for_each_tail_line(path, max_bytes, &mut |line| {
        if !parser.wants(line) {
            parser.push_unparsed(line, &mut records);
        } else if let Ok(value) = json_repair::from_slice_lenient::<serde_json::Value>(line) {
            parser.push(&value, &mut records);
        }
    })?;
    if !from_file_start {
        let mut meta = Vec::new();
        let is_meta =
            |line: &[u8]| memchr::memmem::find(line, br#""type":"session_meta""#).is_some();
        // A missing or unreadable first line costs the branch, never the tail.
        let _ = read_head_filtered(path, META_BYTES, is_meta, &mut |value| {
            RolloutRecords::default().push(value, &mut meta);
            ControlFlow::Break(())
        });
        meta.extend(records);
        records = meta;
    }
    Ok(records)
}

/// Hands the records of the rollout's first `max_bytes` to `visit`, oldest first, until it
/// answers `Break`.
pub(crate) fn read_head(
    path: &Path,
    max_bytes: u64,
    visit: &mut dyn FnMut(&TranscriptRecord) -> ControlFlow<()>,
) -> Result<(), TranscriptError> {
    read_head_records::<RolloutRecords>(path, max_bytes, visit)
}

impl LineRecords for RolloutRecords {
    fn wants(&self, line: &[u8]) -> bool {
        RolloutRecords::wants(self, line)
    }
    fn push(&mut self, line: &serde_json::Value, out: &mut Vec<TranscriptRecord>) {
        RolloutRecords::push(self, line, out);
    }
}
