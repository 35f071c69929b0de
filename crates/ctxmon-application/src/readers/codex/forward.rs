//! A rollout read forward for the session report: one usage event per response and one
//! boundary per compaction, by the same line rules as the backward scan (`line`), and agreeing
//! with it: the last event of a forward read is what the backward scan reports.
//!
//! What a forward read must add to the line rules:
//! - Codex repeats its last count (at the start of the next turn, with rate-limit updates):
//!   counts with equal usage in a row are one response. The run is reported once it ends, as
//!   its last count (the one a backward scan meets first).
//! - A compaction writes a `compacted` line and then an `event_msg` `context_compacted`: the
//!   second marker before any new count is the same compaction, placed at the first. Its size
//!   before compaction is the last count's.
//! - A count's model is the newest `turn_context` before it; its window its own.

use crate::ports::{CompactionBoundary, TranscriptEvent, UsageRecord};
use ctxmon_domain::TokenCount;

use super::line::{RolloutLine, classify};

/// The state a forward read carries from line to line.
#[derive(Debug, Default)]
pub struct ForwardEvents {
    model: Option<String>,
    /// The newest count, not yet reported: a repeat may follow.
    pending: Option<([u64; 5], UsageRecord)>,
    last_tokens: Option<TokenCount>,
    /// A compaction marker was met since the last count.
    compacting: bool,
}

impl ForwardEvents {
    /// Takes one line (its bytes without the newline) and hands `visit` the events it ends;
    /// `true` when the line meant something (it parsed as a rollout line that matters).
    pub fn line(&mut self, line: &[u8], visit: &mut dyn FnMut(TranscriptEvent)) -> bool {
        match classify(line) {
            RolloutLine::Count(c) => {
                self.compacting = false;
                self.last_tokens = Some(c.tokens);
                let record = UsageRecord {
                    version: None,
                    tokens: c.tokens,
                    model: self.model.clone(),
                    message_id: None,
                    timestamp: c.timestamp,
                    context_window: c.window,
                };
                match &mut self.pending {
                    // A repeat: the same response, reported as its latest copy.
                    Some((usage, pending)) if *usage == c.usage => *pending = record,
                    _ => {
                        self.flush(visit);
                        self.pending = Some((c.usage, record));
                    }
                }
                true
            }
            RolloutLine::Compaction { timestamp } => {
                self.flush(visit);
                if !self.compacting {
                    self.compacting = true;
                    visit(TranscriptEvent::Boundary {
                        sidechain: false,
                        boundary: CompactionBoundary {
                            version: None,
                            uuid: None,
                            timestamp,
                            trigger: None,
                            pre_tokens: self.last_tokens,
                            post_tokens: None,
                        },
                    });
                }
                true
            }
            RolloutLine::Model(m) => {
                self.model = Some(m);
                true
            }
            RolloutLine::Window(_) | RolloutLine::Estimate => true,
            RolloutLine::Skip => false,
        }
    }

    /// Reports the count still held back (at the end of the file).
    pub fn flush(&mut self, visit: &mut dyn FnMut(TranscriptEvent)) {
        if let Some((_, record)) = self.pending.take() {
            visit(TranscriptEvent::Usage {
                sidechain: false,
                record,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn count(input: u64, ts: &str) -> String {
        format!(
            r#"{{"timestamp":"{ts}","type":"event_msg","payload":{{"type":"token_count","info":{{"last_token_usage":{{"input_tokens":{input},"cached_input_tokens":0,"output_tokens":5,"reasoning_output_tokens":0,"total_tokens":{}}},"model_context_window":258400}}}}}}"#,
            input + 5
        )
    }

    #[test]
    fn repeats_and_double_markers_collapse() {
        let turn = r#"{"type":"turn_context","payload":{"model":"gpt-5.3-codex"}}"#;
        let compacted = r#"{"timestamp":"tc","type":"compacted","payload":{}}"#;
        let event =
            r#"{"timestamp":"te","type":"event_msg","payload":{"type":"context_compacted"}}"#;
        let estimate = r#"{"type":"event_msg","payload":{"type":"token_count","info":{"last_token_usage":{"input_tokens":0,"output_tokens":0,"total_tokens":940499}}}}"#;
        let (a1, a2, b1, b2, a3) = (
            count(100, "a1"),
            count(100, "a2"),
            count(200, "b1"),
            count(200, "b2"),
            count(100, "a3"),
        );
        let lines = [
            turn, &a1, &a2, turn, &b1, estimate, compacted, event, estimate, &b2, &a3,
        ];
        let mut f = ForwardEvents::default();
        let mut out = Vec::new();
        let mut visit = |e: TranscriptEvent| {
            out.push(match e {
                TranscriptEvent::Usage { record, .. } => {
                    assert_eq!(record.model.as_deref(), Some("gpt-5.3-codex"));
                    assert_eq!(record.context_window, Some(258_400));
                    format!(
                        "{} at {}",
                        record.tokens,
                        record.timestamp.unwrap_or_default()
                    )
                }
                TranscriptEvent::Boundary { boundary, .. } => format!(
                    "compacted at {} after {}",
                    boundary.timestamp.unwrap_or_default(),
                    boundary.pre_tokens.map_or(0, TokenCount::get)
                ),
            })
        };
        for l in lines {
            f.line(l.as_bytes(), &mut visit);
        }
        f.flush(&mut visit);
        assert_eq!(
            out,
            [
                "105 at a2",
                "205 at b1",
                "compacted at tc after 205",
                "205 at b2",
                "105 at a3"
            ],
            "{out:?}"
        );
    }
}
