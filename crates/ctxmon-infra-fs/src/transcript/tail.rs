//! Reads the last bytes of a transcript forward as whole JSON lines, for derivations (resumption
//! state, recent activity) that need more than the newest usage record but must stay bounded;
//! and the first bytes, line by line until the caller has what it needs, for what only the
//! start says (the session's first request).

use std::io::{BufRead, BufReader, Read, Seek, SeekFrom};
use std::ops::ControlFlow;
use std::path::Path;

use ctxmon_application::ports::{AgentKind, TranscriptError, TranscriptRecord};

use super::open::{io_error, open_regular};
use super::records::{RecordParser, is_sidechain_line, records_from_values};
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
    let mut lines = Vec::new();
    let mut skipped_lines = 0;
    let (from_file_start, bytes_read) = for_each_tail_line(path, max_bytes, &mut |line| {
        if !keep(line) {
            return;
        }
        // A lone surrogate escape (Node's cut emoji) would drop the user's request otherwise.
        match json_repair::from_slice_lenient::<serde_json::Value>(line) {
            Ok(value) => lines.push(value),
            Err(_) => skipped_lines += 1,
        }
    })?;
    Ok(TailLines {
        lines,
        skipped_lines,
        from_file_start,
        bytes_read,
    })
}

/// How much of the window [`for_each_tail_line`] holds at once. The window is read in pieces
/// of this size rather than whole: an 8 MiB window read whole cost PreCompact 8 MiB of memory
/// and a page fault per 4 KiB of it, more than a quarter of its time (issue 16).
const TAIL_CHUNK: usize = 256 * 1024;

/// Hands every complete, non-blank line of the last `max_bytes` of `path` to `visit`, oldest
/// first; returns whether the window began at the file start and the bytes read.
///
/// The line cut by the window's start is skipped: one byte more than the window is read when
/// there is one, and everything up to the first newline from there is dropped (just that byte
/// when it is a newline, so a window that starts a line loses nothing). The last line is
/// handed over without its newline, or as it is when the file ends without one. The file is
/// read up to the length it had when opened, in pieces ([`TAIL_CHUNK`]), so memory is one piece
/// plus the longest line; a file that shrank meanwhile is an error, as a whole read would be.
pub(crate) fn for_each_tail_line(
    path: &Path,
    max_bytes: u64,
    visit: &mut dyn FnMut(&[u8]),
) -> Result<(bool, u64), TranscriptError> {
    let (mut file, file_len) = open_regular(path)?;
    let start = file_len.saturating_sub(max_bytes);
    let read_from = start.saturating_sub(1);
    let len = file_len - read_from;
    file.seek(SeekFrom::Start(read_from))
        .map_err(|e| io_error(path, &e))?;
    let mut lines = TailSplitter {
        skipping: start != 0,
        carried: Vec::new(),
    };
    let mut chunk = vec![0u8; usize::try_from(len).map_or(TAIL_CHUNK, |l| l.min(TAIL_CHUNK))];
    let mut left = len;
    while left > 0 {
        let want = usize::try_from(left).map_or(chunk.len(), |l| l.min(chunk.len()));
        let piece = chunk.get_mut(..want).unwrap_or_default();
        file.read_exact(piece).map_err(|e| io_error(path, &e))?;
        lines.push(piece, visit);
        left -= want as u64;
    }
    lines.finish(visit);
    Ok((start == 0, len))
}

/// Splits pieces of a window into lines, carrying a line that spans pieces.
struct TailSplitter {
    /// Still dropping the line cut by the window's start (up to and including its newline).
    skipping: bool,
    /// The start of a line whose newline is in a later piece.
    carried: Vec<u8>,
}

impl TailSplitter {
    fn push(&mut self, piece: &[u8], visit: &mut dyn FnMut(&[u8])) {
        let mut begin = 0;
        // Vectorised newline search: a byte-by-byte split was a tenth of PreCompact's time.
        for end in memchr::memchr_iter(b'\n', piece) {
            let part = piece.get(begin..end).unwrap_or_default();
            begin = end + 1;
            if std::mem::take(&mut self.skipping) {
                continue;
            }
            if self.carried.is_empty() {
                visit_line(part, visit);
            } else {
                self.carried.extend_from_slice(part);
                visit_line(&self.carried, visit);
                self.carried.clear();
            }
        }
        if !self.skipping {
            self.carried
                .extend_from_slice(piece.get(begin..).unwrap_or_default());
        }
    }

    /// The window's last line, which has no newline after it.
    fn finish(self, visit: &mut dyn FnMut(&[u8])) {
        if !self.skipping {
            visit_line(&self.carried, visit);
        }
    }
}

fn visit_line(line: &[u8], visit: &mut dyn FnMut(&[u8])) {
    if !line.iter().all(u8::is_ascii_whitespace) {
        visit(line);
    }
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

/// The transcript-tail port on the same reader: one pass over the tail's lines, each wanted
/// line parsed once and turned into records at once (the `Value` is dropped right away).
/// A Codex rollout (told by its first line) is read by `codex::tail`.
impl ctxmon_application::ports::TranscriptTail for super::JsonlTranscriptReader {
    fn read_tail(
        &self,
        path: &Path,
        max_bytes: u64,
    ) -> Result<Vec<TranscriptRecord>, TranscriptError> {
        match self.agent_of(path)? {
            AgentKind::Codex => return crate::codex::read_tail(path, max_bytes),
            AgentKind::Gemini => return crate::gemini::read_tail(path, max_bytes),
            AgentKind::ClaudeCode => {}
        }
        let mut parser = RecordParser::default();
        let mut records = Vec::new();
        for_each_tail_line(path, max_bytes, &mut |line| {
            // A line not wanted is not parsed: `sort` adds what it says without that.
            if parser.sort(line, &mut records)
                && let Some(value) = super::lean::parse_line(line)
            {
                parser.push(&value, &mut records);
            }
        })?;
        records.extend(records_from_values(&subagent_writes(path)));
        Ok(records)
    }

    fn read_head(
        &self,
        path: &Path,
        max_bytes: u64,
        visit: &mut dyn FnMut(&TranscriptRecord) -> ControlFlow<()>,
    ) -> Result<(), TranscriptError> {
        match self.agent_of(path)? {
            AgentKind::Codex => return crate::codex::read_head(path, max_bytes, visit),
            AgentKind::Gemini => return crate::gemini::read_head(path, max_bytes, visit),
            AgentKind::ClaudeCode => {}
        }
        read_head_records::<RecordParser>(path, max_bytes, visit)
    }
}

/// What turns one agent's lines into the tail port's records: Claude Code's [`RecordParser`]
/// and Codex's `RolloutRecords`. `wants` is the raw-byte filter that spares a parse.
pub(crate) trait LineRecords: Default {
    fn wants(&self, line: &[u8]) -> bool;
    fn push(&mut self, line: &serde_json::Value, out: &mut Vec<TranscriptRecord>);
}

impl LineRecords for RecordParser {
    fn wants(&self, line: &[u8]) -> bool {
        RecordParser::wants(self, line)
    }
    fn push(&mut self, line: &serde_json::Value, out: &mut Vec<TranscriptRecord>) {
        RecordParser::push(self, line, out);
    }
}

/// Hands the records of the file's first `max_bytes` to `visit`, oldest first, until it
/// answers `Break`; only the lines `P` wants are parsed. One reading for either agent's format.
pub(crate) fn read_head_records<P: LineRecords>(
    path: &Path,
    max_bytes: u64,
    visit: &mut dyn FnMut(&TranscriptRecord) -> ControlFlow<()>,
) -> Result<(), TranscriptError> {
    let mut parser = P::default();
    let mut records = Vec::new();
    let wanted = |line: &[u8]| P::default().wants(line);
    read_head_filtered(path, max_bytes, wanted, &mut |value| {
        records.clear();
        parser.push(value, &mut records);
        for record in &records {
            visit(record)?;
        }
        ControlFlow::Continue(())
    })
    .map(|_| ())
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
        let only_writes =
            |line: &[u8]| is_sidechain_line(line) && RecordParser::default().wants(line);
        if let Ok(tail) = read_tail_filtered(&file, window, only_writes) {
            budget = budget.saturating_sub(tail.bytes_read);
            out.extend(tail.lines);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// What the window yields read whole: the old reading, kept as the reference.
    fn whole(buf: &[u8], at_file_start: bool) -> Vec<Vec<u8>> {
        let window: &[u8] = if at_file_start {
            buf
        } else {
            let rest = buf.get(1..).unwrap_or_default();
            if buf.first() == Some(&b'\n') {
                rest
            } else {
                match rest.iter().position(|&b| b == b'\n') {
                    Some(i) => rest.get(i + 1..).unwrap_or_default(),
                    None => &[],
                }
            }
        };
        window
            .split(|&b| b == b'\n')
            .filter(|l| !l.iter().all(u8::is_ascii_whitespace))
            .map(<[u8]>::to_vec)
            .collect()
    }

    fn in_pieces(buf: &[u8], at_file_start: bool, piece: usize) -> Vec<Vec<u8>> {
        let mut lines = Vec::new();
        let mut visit = |l: &[u8]| lines.push(l.to_vec());
        let mut splitter = TailSplitter {
            skipping: !at_file_start,
            carried: Vec::new(),
        };
        for part in buf.chunks(piece.max(1)) {
            splitter.push(part, &mut visit);
        }
        splitter.finish(&mut visit);
        lines
    }

    proptest! {
        /// Pieces of any size, lines of any length (longer than a piece, empty, blank, at the
        /// window's edges): the same lines as the window read whole.
        #[test]
        fn lines_are_the_same_whatever_the_pieces(
            buf in proptest::collection::vec(prop_oneof![Just(b'\n'), Just(b' '), Just(b'x'), Just(b'{')], 0..200),
            at_file_start in any::<bool>(),
            piece in 1usize..40,
        ) {
            prop_assert_eq!(in_pieces(&buf, at_file_start, piece), whole(&buf, at_file_start));
        }
    }

    #[test]
    fn a_window_larger_than_a_piece_is_read_in_pieces() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        let long = format!("{{\"x\":\"{}\"}}", "y".repeat(TAIL_CHUNK + 10));
        let text = format!("cut line\n{{\"a\":1}}\n{long}\n\n  \n{{\"b\":2}}");
        std::fs::write(&path, &text).unwrap();
        let mut seen = Vec::new();
        let window = text.len() as u64 - 2;
        let (from_start, read) =
            for_each_tail_line(&path, window, &mut |l| seen.push(l.len())).unwrap();
        assert!(!from_start);
        assert_eq!(read, window + 1);
        assert_eq!(seen, [7, long.len(), 7]);
        let (from_start, _) = for_each_tail_line(&path, u64::MAX, &mut |_| {}).unwrap();
        assert!(from_start);
    }
}
