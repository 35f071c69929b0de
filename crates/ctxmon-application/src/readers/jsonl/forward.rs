//! Reads a whole transcript forward, one line at a time, for the session report: every
//! qualifying line in file order, classified by the same rules as the backward scan (each
//! agent's `line`).
//!
//! Unlike a hook, a report must see the whole file, but it still never holds it: a buffered
//! reader yields one line at a time and a line longer than the cap is skipped without being
//! kept, so memory is the buffer plus one capped line whatever the file's size. Only the bytes
//! present when the file was opened are read, so a session still being written gives a
//! consistent snapshot instead of a read that chases the writer.

use std::io::{self, BufRead, BufReader, Read};

use super::backward::ScanShape;
use crate::ports::{AgentKind, TranscriptEvent};

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
    /// Bytes read from the file.
    pub bytes_read: u64,
    /// Which agent wrote the file (its auto-compaction rule is the chart's).
    pub agent: AgentKind,
}

/// What the line loop hands each line to: it passes the events the line ends to `visit` and
/// says whether the line meant anything (`true` spares the loop a second parse to tell
/// whether the file is JSON at all).
pub type LineEvents<'a> = dyn FnMut(&[u8], &mut dyn FnMut(TranscriptEvent)) -> bool + 'a;

/// The line loop of a forward read: every non-blank line of `src` (read from where it stands
/// up to `file_len` bytes) that fits `max_line_bytes` goes to `line_events`; a longer one is
/// counted and skipped without being kept. A source shorter than `file_len` (the file shrank)
/// just ends sooner.
pub fn for_each_line<R: Read>(
    src: R,
    file_len: u64,
    shape: ScanShape,
    line_events: &mut LineEvents<'_>,
    visit: &mut dyn FnMut(TranscriptEvent),
) -> io::Result<ForwardStats> {
    let mut reader = BufReader::with_capacity(shape.block_size.max(1), src.take(file_len));
    let cap = usize::try_from(shape.max_line_bytes).unwrap_or(usize::MAX);
    let mut stats = ForwardStats::default();
    let mut line: Vec<u8> = Vec::new();
    let mut oversized = false;
    loop {
        let buf = reader.fill_buf()?;
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
    use crate::ports::{CompactionBoundary, UsageRecord};
    use ctxmon_domain::TokenCount;

    /// A line's event, as an agent's rules would give it: `{"t":N}` is a usage record of N
    /// tokens, `{"b":1}` a boundary, anything else nothing.
    fn event_of_line(line: &[u8]) -> Option<TranscriptEvent> {
        let value: serde_json::Value = serde_json::from_slice(line).ok()?;
        if let Some(t) = value.get("t").and_then(serde_json::Value::as_u64) {
            let record = UsageRecord {
                tokens: TokenCount(t),
                ..UsageRecord::default()
            };
            return Some(TranscriptEvent::Usage {
                sidechain: false,
                record,
            });
        }
        value.get("b").map(|_| TranscriptEvent::Boundary {
            sidechain: false,
            boundary: CompactionBoundary::default(),
        })
    }

    fn events(content: &[u8], shape: ScanShape) -> (Vec<u64>, ForwardStats) {
        let mut tokens = Vec::new();
        let mut claude = |line: &[u8], v: &mut dyn FnMut(TranscriptEvent)| match event_of_line(line)
        {
            Some(event) => {
                v(event);
                true
            }
            None => false,
        };
        let stats = for_each_line(
            content,
            content.len() as u64,
            shape,
            &mut claude,
            &mut |e| match e {
                TranscriptEvent::Usage { record, .. } => tokens.push(record.tokens.get()),
                TranscriptEvent::Boundary { .. } => tokens.push(0),
            },
        )
        .expect("readable");
        (tokens, stats)
    }

    fn shape(block_size: usize, max_line_bytes: u64) -> ScanShape {
        ScanShape {
            block_size,
            max_line_bytes,
        }
    }

    const A: &str = r#"{"t":7}"#;
    const B: &str = r#"{"b":1}"#;

    #[test]
    fn reports_every_qualifying_line_in_order_across_small_blocks() {
        let content = format!("{A}\n{{\"x\":1}}\n\n{B}\r\n{A}");
        for block in [1, 2, 7, 64 * 1024] {
            let (tokens, stats) = events(content.as_bytes(), shape(block, 1 << 20));
            assert_eq!(tokens, [7, 0, 7], "block {block}");
            assert_eq!(stats.lines, 4);
            assert!(stats.any_json);
            assert_eq!(stats.bytes_read, content.len() as u64);
        }
    }

    #[test]
    fn oversized_lines_are_skipped_and_the_next_line_still_counts() {
        let long = format!(r#"{{"x":"{}"}}"#, "a".repeat(5_000));
        let content = format!("{A}\n{long}\n{A}\n");
        let (tokens, stats) = events(content.as_bytes(), shape(100, 1_000));
        assert_eq!(tokens, [7, 7]);
        assert_eq!(stats.oversized_lines, 1);
        assert_eq!(stats.lines, 3);
    }

    #[test]
    fn garbage_is_not_json() {
        let (tokens, stats) = events(b"\x00\x01binary\xff\nnot json\n", ScanShape::default());
        assert!(tokens.is_empty());
        assert!(!stats.any_json);
        assert_eq!(stats.lines, 2);
        let (_, stats) = events(b"{\"type\":\"user\"}\n", ScanShape::default());
        assert!(stats.any_json, "JSON without usage is still a transcript");
    }
}
