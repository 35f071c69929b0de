//! A rollout's tail as the tail port's records. Same windows, same one-parse-per-wanted-line
//! as Claude Code's (`claude_code::tail`); what differs is the parser (`records`) and one
//! rule: the branch is said once, by the `session_meta` line at the file's start, so a tail
//! that does not reach back to it gets that line read from the head.

use std::io::{self, Read, Seek, SeekFrom};
use std::ops::ControlFlow;

use super::records::RolloutRecords;
use crate::ports::TranscriptRecord;
use crate::readers::json::repair;
use crate::readers::jsonl::head::{LineRecords, for_each_head_line};
use crate::readers::jsonl::tail::for_each_tail_line;

/// Most bytes read from a rollout's start for its `session_meta` line (Codex's base
/// instructions make it tens of kilobytes).
pub const META_BYTES: u64 = 1024 * 1024;

/// The records of the last `max_bytes` of the rollout `src` (`file_len` bytes long), oldest
/// first, behind the session's `session_meta` record when the window does not hold it.
pub fn tail_records<R: Read + Seek>(
    src: &mut R,
    file_len: u64,
    max_bytes: u64,
) -> io::Result<Vec<TranscriptRecord>> {
    let mut parser = RolloutRecords::default();
    let mut records = Vec::new();
    let (from_file_start, _) = for_each_tail_line(src, file_len, max_bytes, &mut |line| {
        if !parser.wants(line) {
            parser.push_unparsed(line, &mut records);
        } else if let Ok(value) = repair::from_slice_lenient::<serde_json::Value>(line) {
            parser.push(&value, &mut records);
        }
    })?;
    if !from_file_start {
        let mut meta = Vec::new();
        let is_meta =
            |line: &[u8]| memchr::memmem::find(line, br#""type":"session_meta""#).is_some();
        // A missing or unreadable first line costs the branch, never the tail.
        if src.seek(SeekFrom::Start(0)).is_ok() {
            let _ = for_each_head_line(&mut *src, file_len, META_BYTES, is_meta, &mut |value| {
                RolloutRecords::default().push(value, &mut meta);
                ControlFlow::Break(())
            });
        }
        meta.extend(records);
        records = meta;
    }
    Ok(records)
}

impl LineRecords for RolloutRecords {
    fn wants(&self, line: &[u8]) -> bool {
        RolloutRecords::wants(self, line)
    }
    fn push(&mut self, line: &serde_json::Value, out: &mut Vec<TranscriptRecord>) {
        RolloutRecords::push(self, line, out);
    }
}
