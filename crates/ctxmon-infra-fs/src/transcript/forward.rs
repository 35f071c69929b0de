//! Reads a whole transcript forward, one line at a time, for the session report: every
//! qualifying line in file order, classified by the same rules as the backward scan (`line`).
//!
//! Unlike a hook, a report must see the whole file, but it still never holds it: a buffered
//! reader yields one line at a time and a line longer than the cap is skipped without being
//! kept, so memory is the buffer plus one capped line whatever the file's size. Only the bytes
//! present when the file was opened are read, so a session still being written gives a
//! consistent snapshot instead of a read that chases the writer.

use std::io::{BufRead, BufReader, Read};
use std::path::Path;

use ctxmon_application::ports::{AgentKind, TranscriptError, TranscriptEvent};

use super::JsonlTranscriptReader;
use super::line::classify;
use super::open::{io_error, open_regular};

/// What a forward read met besides the events it reported.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ForwardStats {
    /// Non-blank lines, including oversized ones.
    pub lines: u64,
    /// Lines longer than the line cap, skipped unparsed.
    pub oversized_lines: u64,
    /// Qualifying lines reported to the visitor (before any de-duplication).
    pub events: u64,
    /// True once any line parsed as JSON: a file without one is not a transcript at all, which a
    /// caller reports differently from a transcript without usage.
    pub any_json: bool,
    pub bytes_read: u64,
    /// Which agent wrote the file (its auto-compaction rule is the chart's).
    pub agent: AgentKind,
}

/// What the line loop hands each line to: it passes the events the line ends to `visit` and
/// says whether the line meant anything (`true` spares the loop a second parse to tell
/// whether the file is JSON at all).
pub(crate) type LineEvents<'a> = dyn FnMut(&[u8], &mut dyn FnMut(TranscriptEvent)) -> bool + 'a;

impl JsonlTranscriptReader {
    /// Reads `path` from start to end and hands every usage record and compaction boundary to
    /// `visit`, in file order. A Codex rollout (told by its content, `format`) is read by its
    /// own rules (`codex::ForwardEvents`). Errors are the reader's (`NotFound`, `Empty`,
    /// `NotAFile`, `PermissionDenied`, `Io`); a line that does not parse is skipped, as in the
    /// backward scan.
    pub fn read_events(
        &self,
        path: &Path,
        mut visit: impl FnMut(TranscriptEvent),
    ) -> Result<ForwardStats, TranscriptError> {
        let agent = self.agent_of(path)?;
        let mut events = 0u64;
        let mut counted = |e: TranscriptEvent| {
            events += 1;
            visit(e);
        };
        let mut stats = match agent {
            AgentKind::Codex => {
                let mut rollout = crate::codex::ForwardEvents::default();
                let stats =
                    self.read_lines_forward(path, &mut |l, v| rollout.line(l, v), &mut counted)?;
                rollout.flush(&mut counted);
                stats
            }
            AgentKind::Gemini => crate::gemini::read_events(
                path,
                ctxmon_application::ports::ScanLimits::default(),
                &mut counted,
            )?,
            AgentKind::ClaudeCode => {
                let mut claude =
                    |line: &[u8], v: &mut dyn FnMut(TranscriptEvent)| match classify(line)
                        .into_transcript_event()
                    {
                        Some(event) => {
                            v(event);
                            true
                        }
                        None => false,
                    };
                self.read_lines_forward(path, &mut claude, &mut counted)?
            }
        };
        stats.events = events;
        stats.agent = agent;
        Ok(stats)
    }

    /// The line loop of [`read_events`](Self::read_events): every non-blank line that fits the
    /// cap goes to `line_events`.
    pub(crate) fn read_lines_forward(
        &self,
        path: &Path,
        line_events: &mut LineEvents<'_>,
        visit: &mut dyn FnMut(TranscriptEvent),
    ) -> Result<ForwardStats, TranscriptError> {
        let (file, file_len) = open_regular(path)?;
        let mut reader = BufReader::with_capacity(self.block_size, file.take(file_len));
        let cap = usize::try_from(self.max_line_bytes).unwrap_or(usize::MAX);
        let mut stats = ForwardStats::default();
        let mut line: Vec<u8> = Vec::new();
        let mut oversized = false;
        loop {
            let buf = reader.fill_buf().map_err(|e| io_error(path, &e))?;
            if buf.is_empty() {
                // The last line has no newline: still a line (it parses if it is complete).
                finish_line(&line, oversized, &mut stats, line_events, visit);
                break;
            }
            let (chunk, ends_line) = match memchr::memchr(b'\n', buf) {
                Some(i) => (buf.get(..i).unwrap_or_default(), true),
                None => (buf, false),
            };
            if !oversized {
                if line.len().saturating_add(chunk.len()) > cap {
                    // Drop what was kept: the rest of this line is skipped, not stored.
                    oversized = true;
                    line = Vec::new();
                } else {
                    line.extend_from_slice(chunk);
                }
            }
            let used = chunk.len() + usize::from(ends_line);
            stats.bytes_read += used as u64;
            reader.consume(used);
            if ends_line {
                finish_line(&line, oversized, &mut stats, line_events, visit);
                line.clear();
                oversized = false;
            }
        }
        Ok(stats)
    }
}

fn finish_line(
    line: &[u8],
    oversized: bool,
    stats: &mut ForwardStats,
    line_events: &mut LineEvents<'_>,
    visit: &mut dyn FnMut(TranscriptEvent),
) {
    if oversized {
        stats.lines += 1;
        stats.oversized_lines += 1;
        return;
    }
    if line.iter().all(u8::is_ascii_whitespace) {
        return;
    }
    stats.lines += 1;
    let meant = line_events(line, visit);
    // Whether the file is JSON at all is settled by its first JSON line, so only lines up to
    // that one pay for a second parse.
    if !stats.any_json {
        stats.any_json = meant || serde_json::from_slice::<serde::de::IgnoredAny>(line).is_ok();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn events(content: &[u8], reader: JsonlTranscriptReader) -> (Vec<u64>, ForwardStats) {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("t.jsonl");
        std::fs::write(&path, content).expect("write");
        let mut tokens = Vec::new();
        let stats = reader
            .read_events(&path, |e| match e {
                TranscriptEvent::Usage { record, .. } => tokens.push(record.tokens.get()),
                TranscriptEvent::Boundary { .. } => tokens.push(0),
            })
            .expect("readable");
        (tokens, stats)
    }

    const A: &str =
        r#"{"type":"assistant","message":{"id":"m1","model":"x","usage":{"input_tokens":7}}}"#;
    const B: &str =
        r#"{"type":"system","subtype":"compact_boundary","compactMetadata":{"postTokens":3}}"#;

    #[test]
    fn reports_every_qualifying_line_in_order_across_small_blocks() {
        let content = format!("{A}\n{{\"type\":\"user\"}}\n\n{B}\r\n{A}");
        for block in [1, 2, 7, 64 * 1024] {
            let reader = JsonlTranscriptReader::new().with_block_size(block);
            let (tokens, stats) = events(content.as_bytes(), reader);
            assert_eq!(tokens, [7, 0, 7], "block {block}");
            assert_eq!((stats.lines, stats.events), (4, 3));
            assert!(stats.any_json);
            assert_eq!(stats.bytes_read, content.len() as u64);
        }
    }

    #[test]
    fn oversized_lines_are_skipped_and_the_next_line_still_counts() {
        let long = format!(r#"{{"type":"user","x":"{}"}}"#, "a".repeat(5_000));
        let content = format!("{A}\n{long}\n{A}\n");
        let reader = JsonlTranscriptReader::new()
            .with_block_size(100)
            .with_max_line_bytes(1_000);
        let (tokens, stats) = events(content.as_bytes(), reader);
        assert_eq!(tokens, [7, 7]);
        assert_eq!(stats.oversized_lines, 1);
        assert_eq!(stats.lines, 3);
    }

    #[test]
    fn garbage_is_not_json() {
        let (tokens, stats) = events(
            b"\x00\x01binary\xff\nnot json\n",
            JsonlTranscriptReader::new(),
        );
        assert!(tokens.is_empty());
        assert!(!stats.any_json);
        assert_eq!(stats.lines, 2);
        let (_, stats) = events(b"{\"type\":\"user\"}\n", JsonlTranscriptReader::new());
        assert!(stats.any_json, "JSON without usage is still a transcript");
    }
}
