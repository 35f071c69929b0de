//! Reads the last bytes of a transcript forward as whole JSON lines, for derivations (resumption
//! state, recent activity) that need more than the newest usage record but must stay bounded;
//! and the first bytes, line by line until the caller has what it needs, for what only the
//! start says (the session's first request).

use std::io::{BufRead, BufReader, Read, Seek, SeekFrom};
use std::ops::ControlFlow;
use std::path::Path;

use ctxmon_application::ports::TranscriptError;

use super::open::{io_error, open_regular};
use crate::json_repair;

/// The complete lines found in a transcript's tail, oldest first.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TailLines {
    /// Every complete line of the window that parsed as JSON, in file order.
    pub lines: Vec<serde_json::Value>,
    /// Non-blank lines of the window that did not parse (garbage, a line still being written).
    pub skipped_lines: u64,
    /// True when the window began at the start of the file, so nothing older exists.
    pub from_file_start: bool,
    /// Bytes read from the file.
    pub bytes_read: u64,
}

/// Reads at most the last `max_bytes` of `path` and parses its complete lines.
///
/// The line cut by the window's start is dropped (unless the window starts right after a
/// newline or at the file start). The last line is kept if it parses: a line still being
/// written does not, and is counted in `skipped_lines`. Memory is bounded by `max_bytes` plus the
/// parsed values. Errors are those of the reader: `NotFound`, `Empty`, `NotAFile`,
/// `PermissionDenied`, `Io`.
pub fn read_tail_lines(path: &Path, max_bytes: u64) -> Result<TailLines, TranscriptError> {
    read_tail_filtered(path, max_bytes, |_| true)
}

/// Like [`read_tail_lines`], but only lines for which `keep(raw bytes)` holds are parsed: JSON
/// parsing is the cost of a tail read (about 8 ms per MiB into `Value`s), so lines no consumer
/// needs are dropped before it.
pub fn read_tail_filtered(
    path: &Path,
    max_bytes: u64,
    keep: impl Fn(&[u8]) -> bool,
) -> Result<TailLines, TranscriptError> {
    let (mut file, file_len) = open_regular(path)?;
    let start = file_len.saturating_sub(max_bytes);
    // Read one byte more than the window when possible: it tells whether the window's first
    // line is whole without a second read.
    let read_from = start.saturating_sub(1);
    let len = usize::try_from(file_len - read_from).map_err(|_| {
        io_error(
            path,
            &std::io::Error::other("tail window larger than the address space"),
        )
    })?;
    let mut buf = vec![0u8; len];
    file.seek(SeekFrom::Start(read_from))
        .and_then(|_| file.read_exact(&mut buf))
        .map_err(|e| io_error(path, &e))?;

    let window: &[u8] = if start == 0 {
        &buf
    } else {
        // buf[0] is the byte before the window.
        let rest = buf.get(1..).unwrap_or_default();
        if buf.first() == Some(&b'\n') {
            rest
        } else {
            match memchr::memchr(b'\n', rest) {
                Some(i) => rest.get(i + 1..).unwrap_or_default(),
                None => &[],
            }
        }
    };

    let mut out = TailLines {
        from_file_start: start == 0,
        bytes_read: len as u64,
        ..TailLines::default()
    };
    // Vectorised newline search: a byte-by-byte split was a tenth of PreCompact's time.
    let mut begin = 0;
    let ends = memchr::memchr_iter(b'\n', window).chain(std::iter::once(window.len()));
    for end in ends {
        let line = window.get(begin..end).unwrap_or_default();
        begin = end + 1;
        if line.iter().all(u8::is_ascii_whitespace) || !keep(line) {
            continue;
        }
        // A lone surrogate escape (Node's cut emoji) would drop the user's request otherwise.
        match json_repair::from_slice_lenient::<serde_json::Value>(line) {
            Ok(value) => out.lines.push(value),
            Err(_) => out.skipped_lines += 1,
        }
    }
    Ok(out)
}

/// Hands the complete lines of the first `max_bytes` of `path` for which `keep(raw bytes)`
/// holds, parsed, to `visit` until it answers `Break`; returns how many bytes were read.
///
/// A line is complete when its newline is within the window, or when the file ends within the
/// window (the last line of a finished file). Lines that do not parse are skipped. Memory is
/// one line of at most `max_bytes`; reading stops as soon as the visitor has what it needs.
pub fn read_head_filtered(
    path: &Path,
    max_bytes: u64,
    keep: impl Fn(&[u8]) -> bool,
    visit: &mut dyn FnMut(&serde_json::Value) -> ControlFlow<()>,
) -> Result<u64, TranscriptError> {
    let (file, file_len) = open_regular(path)?;
    let window = file_len.min(max_bytes);
    let mut reader = BufReader::with_capacity(64 * 1024, file.take(window));
    let mut line: Vec<u8> = Vec::new();
    let mut read = 0u64;
    loop {
        line.clear();
        let n = reader
            .read_until(b'\n', &mut line)
            .map_err(|e| io_error(path, &e))?;
        if n == 0 {
            break;
        }
        read += n as u64;
        let raw = match line.strip_suffix(b"\n") {
            Some(raw) => raw,
            // Without its newline a line is whole only if the file ends here.
            None if read == file_len => line.as_slice(),
            None => break,
        };
        if raw.iter().all(u8::is_ascii_whitespace) || !keep(raw) {
            continue;
        }
        if let Ok(value) = json_repair::from_slice_lenient::<serde_json::Value>(raw)
            && visit(&value).is_break()
        {
            break;
        }
    }
    Ok(read)
}

/// The transcript-tail port on the same reader: the use cases that derive state from the tail
/// need only the parsed lines; counts of skipped lines are for diagnostics here.
impl ctxmon_application::ports::TranscriptTail for super::JsonlTranscriptReader {
    fn read_tail(
        &self,
        path: &Path,
        max_bytes: u64,
    ) -> Result<Vec<serde_json::Value>, TranscriptError> {
        let mut lines = read_tail_filtered(path, max_bytes, needed_for_derivation)?.lines;
        lines.extend(subagent_writes(path));
        Ok(lines)
    }

    fn read_head(
        &self,
        path: &Path,
        max_bytes: u64,
        visit: &mut dyn FnMut(&serde_json::Value) -> ControlFlow<()>,
    ) -> Result<(), TranscriptError> {
        read_head_filtered(path, max_bytes, needed_for_derivation, visit).map(|_| ())
    }
}

/// Most subagent files read, newest first, and the bytes read from each and from all: a hook
/// must stay fast however many subagents a session ran.
const SUBAGENT_FILES: usize = 32;
const SUBAGENT_FILE_BYTES: u64 = 512 * 1024;
const SUBAGENT_TOTAL_BYTES: u64 = 4 * 1024 * 1024;

/// The file writes of the session's subagents that Claude Code 2.x keeps in files of their own,
/// `<session>/subagents/agent-*.jsonl` beside `<session>.jsonl` (1.x wrote them inline, as
/// `isSidechain` lines the tail filter keeps). Only their sidechain write calls are kept; an
/// unreadable folder or file is skipped: this is a supplement, never a reason to fail.
fn subagent_writes(transcript: &Path) -> Vec<serde_json::Value> {
    let Some(stem) = transcript.file_stem() else {
        return Vec::new();
    };
    let dir = transcript.with_file_name(stem).join("subagents");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Vec::new();
    };
    let mut files: Vec<(std::time::SystemTime, std::path::PathBuf)> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .map(|p| {
            let modified = std::fs::metadata(&p)
                .and_then(|m| m.modified())
                .unwrap_or(std::time::UNIX_EPOCH);
            (modified, p)
        })
        .collect();
    // Newest first; ties by name, so the choice is stable.
    files.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    let mut out = Vec::new();
    let mut budget = SUBAGENT_TOTAL_BYTES;
    for (_, file) in files.into_iter().take(SUBAGENT_FILES) {
        if budget == 0 {
            break;
        }
        let window = budget.min(SUBAGENT_FILE_BYTES);
        let only_writes = |line: &[u8]| {
            memchr::memmem::find(line, br#""isSidechain":true"#).is_some()
                && needed_for_derivation(line)
        };
        if let Ok(tail) = read_tail_filtered(&file, window, only_writes) {
            budget = budget.saturating_sub(tail.bytes_read);
            out.extend(tail.lines);
        }
    }
    out
}

/// Derivations (resumption state, resume logs) read prompts, the agent's text and tool calls,
/// failed tool results, and the files subagents wrote. Successful tool results (file contents,
/// command output) and the rest of the subagent lines are most of a transcript's bytes and none
/// of that, so they are not parsed. Claude Code writes compact JSON, so these tokens appear
/// verbatim; inside a string the quotes would be escaped (`\"`), so a prompt that merely
/// mentions them is never dropped.
fn needed_for_derivation(line: &[u8]) -> bool {
    use memchr::memmem::find;
    if find(line, br#""isSidechain":true"#).is_some() {
        return find(line, br#""type":"tool_use""#).is_some()
            && [
                &br#""name":"Write""#[..],
                br#""name":"Edit""#,
                br#""name":"MultiEdit""#,
                br#""name":"NotebookEdit""#,
            ]
            .iter()
            .any(|name| find(line, name).is_some());
    }
    !(find(line, br#""type":"tool_result""#).is_some()
        && find(line, br#""is_error":true"#).is_none())
}
