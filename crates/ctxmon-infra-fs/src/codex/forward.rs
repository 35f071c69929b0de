//! A rollout read forward for the session report: one usage event per response and one
//! boundary per compaction, by the same line rules as the backward scan (`line`).
//!
//! What a forward read must add to the line rules:
//! - Codex repeats its last count (at the start of the next turn, with rate-limit updates):
//!   a count whose usage equals the previous count's is the same response, not a new point.
//! - A compaction writes a `compacted` line and then an `event_msg` `context_compacted`: the
//!   second marker before any new count is the same compaction. Its size before compaction is
//!   the last count's.
//! - The model is the newest `turn_context` so far; the window the count's own.

use ctxmon_application::ports::{CompactionBoundary, TranscriptEvent, UsageRecord};
use ctxmon_domain::TokenCount;

use super::line::{RolloutLine, classify};

/// The state a forward read carries from line to line.
#[derive(Debug, Default)]
pub struct ForwardEvents {
    model: Option<String>,
    announced_window: Option<u64>,
    last_usage: Option<[u64; 5]>,
    last_tokens: Option<TokenCount>,
    /// A compaction marker was met since the last count.
    compacting: bool,
}

impl ForwardEvents {
    /// The event of one line (its bytes without the newline), if it is one.
    pub fn event(&mut self, line: &[u8]) -> Option<TranscriptEvent> {
        match classify(line) {
            RolloutLine::Count(c) => {
                self.compacting = false;
                if self.last_usage == Some(c.usage) {
                    return None;
                }
                self.last_usage = Some(c.usage);
                self.last_tokens = Some(c.tokens);
                Some(TranscriptEvent::Usage {
                    sidechain: false,
                    record: UsageRecord {
                        tokens: c.tokens,
                        model: self.model.clone(),
                        message_id: None,
                        timestamp: c.timestamp,
                        context_window: c.window.or(self.announced_window),
                    },
                })
            }
            RolloutLine::Compaction { timestamp } => {
                if self.compacting {
                    return None;
                }
                self.compacting = true;
                // The next count is a new context even if it repeats the old figures.
                self.last_usage = None;
                Some(TranscriptEvent::Boundary {
                    sidechain: false,
                    boundary: CompactionBoundary {
                        uuid: None,
                        timestamp,
                        trigger: None,
                        pre_tokens: self.last_tokens,
                        post_tokens: None,
                    },
                })
            }
            RolloutLine::Model(m) => {
                self.model = Some(m);
                None
            }
            RolloutLine::Window(w) => {
                self.announced_window = Some(w);
                None
            }
            RolloutLine::Estimate | RolloutLine::Skip => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn count(input: u64) -> String {
        format!(
            r#"{{"timestamp":"t","type":"event_msg","payload":{{"type":"token_count","info":{{"last_token_usage":{{"input_tokens":{input},"cached_input_tokens":0,"output_tokens":5,"reasoning_output_tokens":0,"total_tokens":{}}},"model_context_window":258400}}}}}}"#,
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
        let (a, b) = (count(100), count(200));
        let lines = [
            turn, &a, &a, turn, &b, estimate, compacted, event, estimate, &b, &a,
        ];
        let mut f = ForwardEvents::default();
        let out: Vec<String> = lines
            .iter()
            .filter_map(|l| f.event(l.as_bytes()))
            .map(|e| match e {
                TranscriptEvent::Usage { record, .. } => {
                    assert_eq!(record.model.as_deref(), Some("gpt-5.3-codex"));
                    assert_eq!(record.context_window, Some(258_400));
                    record.tokens.to_string()
                }
                TranscriptEvent::Boundary { boundary, .. } => format!(
                    "compacted after {}",
                    boundary.pre_tokens.map_or(0, TokenCount::get)
                ),
            })
            .collect();
        assert_eq!(
            out,
            ["105", "205", "compacted after 205", "205", "105"],
            "{out:?}"
        );
    }
}
