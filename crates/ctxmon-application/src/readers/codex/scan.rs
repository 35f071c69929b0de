//! The backward scan of a rollout (the fill measurement of Codex): newest line first, in the same fixed
//! blocks and under the same byte bound as Claude Code's transcripts, so a hook's cost does not
//! grow with the session.
//!
//! The rules:
//! - The fill is the newest measured count (`line::Count`); Codex's estimates are skipped.
//! - A compaction marker newer than that count makes it stale: the reading is the compaction
//!   (usage `None`; its time the first marker after the count, as the forward read places it),
//!   and the older count still gives the window and the size before compaction.
//! - The reading's model is the newest `turn_context`'s; the count's own model is that of the
//!   newest `turn_context` before it (the turn it belongs to, as the forward read sees it). The
//!   scan goes on past the count until it meets one (a turn writes its context before its
//!   counts, so it is close), within the bound.
//! - The window is the count's `model_context_window`, else the newest `task_started`'s.

use std::io::{self, Read, Seek};

use super::line::{Count, RolloutLine, classify};
use crate::ports::{
    AgentKind, ChainScope, CompactionBoundary, ScanLimits, TranscriptReading, UsageRecord,
};
use crate::readers::jsonl::backward::{BackLine, BackwardLines, ScanReport, ScanShape, ScanStats};

/// Scans the rollout `src` (`file_len` bytes long) backwards (see the module docs).
pub fn scan<R: Read + Seek>(
    src: R,
    file_len: u64,
    limits: ScanLimits,
    shape: ScanShape,
) -> io::Result<ScanReport> {
    let mut lines = BackwardLines::new(
        src,
        file_len,
        limits.max_scan_bytes,
        shape.block_size,
        shape.max_line_bytes,
    );
    let mut stats = ScanStats::default();
    let mut found = Found::default();
    loop {
        let line = match lines.next_line()? {
            None => break,
            Some(BackLine::Oversized { .. }) => {
                stats.lines += 1;
                stats.oversized_lines += 1;
                continue;
            }
            Some(BackLine::Line(bytes)) => {
                stats.lines += 1;
                classify(bytes)
            }
        };
        if found.take(line) {
            break;
        }
    }
    let hit_limit = lines.hit_limit();
    let bytes_scanned = lines.bytes_scanned(file_len);
    Ok(ScanReport {
        reading: found.into_reading(hit_limit, bytes_scanned),
        stats,
    })
}

/// What the scan has met so far, newest first.
#[derive(Debug, Default)]
struct Found {
    /// The newest measured count.
    count: Option<Count>,
    /// The oldest compaction marker newer than every count met (the first marker of the
    /// newest compaction: Codex writes `compacted`, then `context_compacted`).
    compaction: Option<Option<String>>,
    /// The newest `turn_context`'s model.
    model: Option<String>,
    /// The model of the newest `turn_context` older than the count.
    count_model: Option<String>,
    /// The newest window a `task_started` announced.
    announced_window: Option<u64>,
}

impl Found {
    /// Takes the next older line; `true` once nothing older can change the reading.
    fn take(&mut self, line: RolloutLine) -> bool {
        match line {
            RolloutLine::Count(c) if self.count.is_none() => self.count = Some(c),
            RolloutLine::Compaction { timestamp } if self.count.is_none() => {
                self.compaction = Some(timestamp);
            }
            RolloutLine::Model(m) => {
                if self.count.is_some() && self.count_model.is_none() {
                    self.count_model = Some(m.clone());
                }
                if self.model.is_none() {
                    self.model = Some(m);
                }
            }
            RolloutLine::Window(w) if self.announced_window.is_none() => {
                self.announced_window = Some(w);
            }
            _ => {}
        }
        self.count.is_some() && self.count_model.is_some()
    }

    fn into_reading(self, hit_limit: bool, bytes_scanned: u64) -> TranscriptReading {
        let window = self
            .count
            .as_ref()
            .and_then(|c| c.window)
            .or(self.announced_window);
        let (usage, boundary) = match (self.compaction, self.count) {
            (Some(timestamp), count) => (
                None,
                Some(CompactionBoundary {
                    version: None,
                    uuid: None,
                    timestamp,
                    trigger: None,
                    pre_tokens: count.map(|c| c.tokens),
                    post_tokens: None,
                }),
            ),
            (None, Some(c)) => (
                Some(UsageRecord {
                    version: None,
                    tokens: c.tokens,
                    model: self.count_model,
                    message_id: None,
                    timestamp: c.timestamp,
                    context_window: c.window,
                }),
                None,
            ),
            (None, None) => (None, None),
        };
        TranscriptReading {
            hit_scan_limit: hit_limit && usage.is_none() && boundary.is_none(),
            usage,
            boundary,
            // Codex writes a subagent's turns to a rollout of its own: every line is main.
            scope: ChainScope::Main,
            bytes_scanned,
            agent: AgentKind::Codex,
            agent_window: window,
            agent_model: self.model,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ctxmon_domain::TokenCount;

    fn count(tokens: u64, ts: &str) -> String {
        format!(
            r#"{{"timestamp":"{ts}","type":"event_msg","payload":{{"type":"token_count","info":{{"last_token_usage":{{"input_tokens":{tokens},"cached_input_tokens":0,"output_tokens":10,"reasoning_output_tokens":0,"total_tokens":{}}},"model_context_window":258400}}}}}}"#,
            tokens + 10
        )
    }
    const META: &str =
        r#"{"timestamp":"t0","type":"session_meta","payload":{"id":"s","cwd":"/p"}}"#;
    const TURN: &str =
        r#"{"timestamp":"t","type":"turn_context","payload":{"model":"gpt-5.3-codex"}}"#;
    const COMPACTED: &str = r#"{"timestamp":"tc","type":"compacted","payload":{"message":""}}"#;

    fn read(lines: &[&str], block: usize) -> TranscriptReading {
        let text = lines.join("\n") + "\n";
        let len = text.len() as u64;
        let shape = ScanShape {
            block_size: block,
            max_line_bytes: 4 * 1024 * 1024,
        };
        scan(
            std::io::Cursor::new(text),
            len,
            ScanLimits::default(),
            shape,
        )
        .expect("in memory")
        .reading
    }

    #[test]
    fn newest_count_with_the_newest_model_and_its_window() {
        let c1 = count(1000, "t1");
        let c2 = count(2000, "t2");
        let next = r#"{"timestamp":"t","type":"turn_context","payload":{"model":"gpt-5.4"}}"#;
        for block in [7, 64, 65_536] {
            let r = read(&[META, TURN, &c1, TURN, &c2], block);
            let usage = r.usage.expect("usage");
            assert_eq!(usage.tokens, TokenCount(2010));
            assert_eq!(usage.model.as_deref(), Some("gpt-5.3-codex"));
            assert_eq!(usage.context_window, Some(258_400));
            assert_eq!(r.agent, AgentKind::Codex);
            assert_eq!(r.agent_window, Some(258_400));
            // A turn started after the count: the reading names its model, the count its own.
            let r = read(&[META, TURN, &c1, TURN, &c2, next], block);
            assert_eq!(r.agent_model.as_deref(), Some("gpt-5.4"));
            assert_eq!(
                r.usage.expect("usage").model.as_deref(),
                Some("gpt-5.3-codex")
            );
        }
    }

    #[test]
    fn a_compaction_after_the_count_makes_it_stale_but_keeps_its_window() {
        let c1 = count(200_000, "t1");
        let event =
            r#"{"timestamp":"te","type":"event_msg","payload":{"type":"context_compacted"}}"#;
        let r = read(&[META, TURN, &c1, COMPACTED, event], 64);
        assert_eq!(r.usage, None);
        let b = r.boundary.expect("boundary");
        // The compaction's time is its first marker's.
        assert_eq!(b.timestamp.as_deref(), Some("tc"));
        assert_eq!(b.pre_tokens, Some(TokenCount(200_010)));
        assert_eq!(r.agent_window, Some(258_400));
        assert_eq!(r.agent_model.as_deref(), Some("gpt-5.3-codex"));
        // A count after the compaction is the fill again.
        let c2 = count(40_000, "t2");
        let r = read(&[META, TURN, &c1, COMPACTED, TURN, &c2], 64);
        assert_eq!(r.usage.expect("usage").tokens, TokenCount(40_010));
        assert_eq!(r.boundary, None);
    }

    #[test]
    fn nothing_to_measure_is_no_usage_and_no_boundary() {
        let null_info =
            r#"{"timestamp":"t","type":"event_msg","payload":{"type":"token_count","info":null}}"#;
        for lines in [
            &[META][..],
            &[META, TURN, null_info],
            &[META, "garbage", "{"],
        ] {
            let r = read(lines, 64);
            assert_eq!((r.usage, r.boundary), (None, None), "{lines:?}");
            assert!(!r.hit_scan_limit);
        }
    }
}
