//! A Claude Code transcript's tail as the tail port's records: one pass over the window's
//! lines, each wanted line parsed once (`lean`) and turned into records at once; plus the file
//! writes of the session's subagents that Claude Code 2.x keeps in files of their own,
//! `<session>/subagents/agent-*.jsonl` beside `<session>.jsonl` (1.x wrote them inline, as
//! `isSidechain` lines the tail filter keeps).

use std::io::{self, Read, Seek};
use std::path::{Path, PathBuf};

use super::records::{RecordParser, is_sidechain_line, records_from_values};
use crate::ports::TranscriptRecord;
use crate::readers::access::{FileAccess, SendReader, open_sized};
use crate::readers::jsonl::head::LineRecords;
use crate::readers::jsonl::tail::{for_each_line_between, for_each_tail_line, tail_lines};

/// Most subagent files read, newest first, and the bytes read from each and from all: a hook
/// must stay fast however many subagents a session ran.
const SUBAGENT_FILES: usize = 32;
const SUBAGENT_FILE_BYTES: u64 = 512 * 1024;
const SUBAGENT_TOTAL_BYTES: u64 = 4 * 1024 * 1024;

/// Below this many bytes a window is read by one thread: a second costs more than it saves.
const SPLIT_FROM_BYTES: u64 = 1024 * 1024;

/// About the fewest bytes a record takes in a transcript (an 8 MiB tail of real and generated
/// sessions holds one per 2 to 3 KiB): the records of a window are given room for this many
/// at once. Grown as they came, the vector was copied a dozen times, a twentieth of the read.
const BYTES_PER_RECORD: u64 = 1024;

/// Room for the records of `bytes` of transcript (see [`BYTES_PER_RECORD`]).
fn room_for(bytes: u64) -> Vec<TranscriptRecord> {
    Vec::with_capacity(usize::try_from(bytes / BYTES_PER_RECORD).unwrap_or(0))
}

/// The records of the last `max_bytes` of `src` (`file_len` bytes long), oldest first.
///
/// With `second`, another reader of the same file, a window of 1 MiB or more
/// is read in two halves at once, the newer half on a thread of its own: parsing the window
/// is most of PreCompact's time. The newer half's reader does not know the calls made in the
/// older half, so a result of one of them is put aside where it stands and read once both
/// halves are done, with every call known: the records are the ones one reader would give.
pub fn tail_records<R: Read + Seek>(
    src: &mut R,
    second: Option<Box<dyn SendReader>>,
    file_len: u64,
    max_bytes: u64,
) -> io::Result<Vec<TranscriptRecord>> {
    let start = file_len.saturating_sub(max_bytes);
    let window = file_len - start;
    let Some(second) = second.filter(|_| window >= SPLIT_FROM_BYTES) else {
        let mut parser = RecordParser::default();
        let mut records = room_for(window);
        for_each_tail_line(src, file_len, max_bytes, &mut |line| {
            read_line(&mut parser, line, &mut records);
        })?;
        return Ok(records);
    };
    in_halves(src, second, file_len, start, start + window / 2)
}

/// The records of the lines of `src` from `start` to `file_len`: those that start before
/// `middle` read here, the rest on another thread through `second`.
fn in_halves<R: Read + Seek>(
    src: &mut R,
    mut second: Box<dyn SendReader>,
    file_len: u64,
    start: u64,
    middle: u64,
) -> io::Result<Vec<TranscriptRecord>> {
    let (older, newer) = std::thread::scope(|scope| {
        let newer =
            scope.spawn(move || {
                let mut parser = RecordParser::default();
                let mut records = room_for(file_len.saturating_sub(middle));
                let mut aside: Vec<(usize, Vec<u8>)> = Vec::new();
                for_each_line_between(&mut second, file_len, middle, file_len, &mut |line| {
                    match parser.sort_seen(line, &mut records) {
                        None => aside.push((records.len(), line.to_vec())),
                        Some(wanted) => parse_wanted(&mut parser, wanted, line, &mut records),
                    }
                })
                .map(|_| (parser, records, aside))
            });
        let mut parser = RecordParser::default();
        let mut records = room_for(file_len.saturating_sub(start));
        let older = for_each_line_between(src, file_len, start, middle, &mut |line| {
            read_line(&mut parser, line, &mut records);
        })
        .map(|_| (parser, records));
        let newer = newer
            .join()
            .unwrap_or_else(|_| Err(io::Error::other("the tail's reader stopped")));
        (older, newer)
    });
    let (mut parser, mut records) = older?;
    let (later, newer, aside) = newer?;
    parser.extend(later);
    let mut newer = newer.into_iter();
    let mut taken = 0;
    for (at, line) in aside {
        records.extend(newer.by_ref().take(at - taken));
        taken = at;
        read_line(&mut parser, &line, &mut records);
    }
    records.extend(newer);
    Ok(records)
}

/// One line's records, appended to `records`.
fn read_line(parser: &mut RecordParser, line: &[u8], records: &mut Vec<TranscriptRecord>) {
    // A line not wanted is not parsed: `sort` adds what it says without that.
    let wanted = parser.sort(line, records);
    parse_wanted(parser, wanted, line, records);
}

/// A sorted line's records: parsed when `wanted` (`sort` added the others' already).
fn parse_wanted(
    parser: &mut RecordParser,
    wanted: bool,
    line: &[u8],
    records: &mut Vec<TranscriptRecord>,
) {
    if wanted && let Some(value) = super::lean::parse_line(line) {
        parser.push(&value, records);
    }
}

/// The folder where Claude Code 2.x keeps the subagent transcripts of the session whose
/// transcript is `transcript`.
pub fn subagent_folder(transcript: &Path) -> Option<PathBuf> {
    let stem = transcript.file_stem()?;
    Some(transcript.with_file_name(stem).join("subagents"))
}

/// The file-write records of the session's subagents kept apart from `transcript`, newest
/// files first within their bounds. Only their sidechain write calls are kept; a folder or
/// file that cannot be read is skipped: this is a supplement, never a reason to fail.
pub fn subagent_writes<A: FileAccess + ?Sized>(
    access: &A,
    transcript: &Path,
) -> Vec<TranscriptRecord> {
    let Some(dir) = subagent_folder(transcript) else {
        return Vec::new();
    };
    let mut files: Vec<(std::time::SystemTime, PathBuf)> = access
        .list(&dir)
        .into_iter()
        .filter(|(_, p)| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    // Newest first; ties by name, so the choice is stable.
    files.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    let mut values = Vec::new();
    let mut budget = SUBAGENT_TOTAL_BYTES;
    for (_, file) in files.into_iter().take(SUBAGENT_FILES) {
        if budget == 0 {
            break;
        }
        let window = budget.min(SUBAGENT_FILE_BYTES);
        let only_writes =
            |line: &[u8]| is_sidechain_line(line) && RecordParser::default().wants(line);
        let Ok((mut src, len)) = open_sized(access, &file) else {
            continue;
        };
        if let Ok(tail) = tail_lines(&mut src, len, window, only_writes) {
            budget = budget.saturating_sub(tail.bytes_read);
            values.extend(tail.lines);
        }
    }
    records_from_values(&values)
}

impl LineRecords for RecordParser {
    fn wants(&self, line: &[u8]) -> bool {
        RecordParser::wants(self, line)
    }
    fn push(&mut self, line: &serde_json::Value, out: &mut Vec<TranscriptRecord>) {
        RecordParser::push(self, line, out);
    }
}

#[cfg(test)]
#[path = "tail_tests.rs"]
mod tests;
