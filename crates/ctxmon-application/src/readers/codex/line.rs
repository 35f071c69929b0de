//! Classifies one rollout line for the fill measurement: a token count, a compaction marker,
//! the model of a turn, the window a turn announced, or nothing.
//!
//! Every field is read leniently (`transcript::lenient`): Codex changes its rollout format
//! between versions, and a field of the wrong type costs that field, never the line. Only the
//! fields below are built; payloads (instructions, replacement history, outputs) are skipped
//! by serde without being kept.

use ctxmon_domain::TokenCount;
use serde::Deserialize;

use crate::readers::json::repair as json_repair;
use crate::readers::jsonl::lenient::{Obj, Scalar};

/// What one rollout line means for the fill.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum RolloutLine {
    Skip,
    /// An `event_msg` `token_count` with a measured `last_token_usage`.
    Count(Count),
    /// A `token_count` whose `last_token_usage` has a total but no input and no output: Codex's
    /// own estimate, written after it rewrote the history (`recompute_token_usage` in codex-rs
    /// around a compaction). It is a guess from the history's byte size, not a measurement:
    /// the sanitized fixture records 940,499 for a context the next response measured at
    /// 48,687. Not a fill, as Claude Code's zero-usage placeholders are not.
    Estimate,
    /// A `compacted` line or an `event_msg` `context_compacted`: the history was replaced.
    Compaction {
        timestamp: Option<String>,
    },
    /// A `turn_context` line naming the model of the turns that follow.
    Model(String),
    /// An `event_msg` `task_started` announcing the turn's window.
    Window(u64),
}

/// A measured count.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Count {
    /// `last_token_usage.total_tokens`: what is in the window now (Codex's own
    /// `tokens_in_context_window()`). Never `total_token_usage`, which is cumulative.
    pub(crate) tokens: TokenCount,
    /// `info.model_context_window`.
    pub(crate) window: Option<u64>,
    pub(crate) timestamp: Option<String>,
    /// The usage's fields (input, cached, output, reasoning, total): Codex repeats its last
    /// count (at a turn's start, with rate-limit updates), and a repeat is not a new response.
    pub(crate) usage: [u64; 5],
}

/// Cheap test before any parsing: only lines naming one of these can matter. Inside a JSON
/// string a quote is escaped, so quoted text that merely mentions the words does not match.
pub(crate) fn may_matter(text: &str) -> bool {
    text.contains("\"token_count\"")
        || text.contains("\"compacted\"")
        || text.contains("\"context_compacted\"")
        || text.contains("\"turn_context\"")
        || text.contains("\"task_started\"")
}

/// Classifies one line's bytes (without its newline). Never panics.
pub(crate) fn classify(bytes: &[u8]) -> RolloutLine {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return RolloutLine::Skip;
    };
    if !may_matter(text) {
        return RolloutLine::Skip;
    }
    match json_repair::from_str_lenient::<RawLine>(text) {
        Ok(raw) => raw.into_line(),
        Err(_) => RolloutLine::Skip,
    }
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct RawLine {
    timestamp: Scalar,
    #[serde(rename = "type")]
    kind: Scalar,
    payload: Obj<RawPayload>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct RawPayload {
    #[serde(rename = "type")]
    kind: Scalar,
    info: Obj<RawInfo>,
    model: Scalar,
    model_context_window: Scalar,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct RawInfo {
    last_token_usage: Obj<RawUsage>,
    model_context_window: Scalar,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct RawUsage {
    input_tokens: Scalar,
    cached_input_tokens: Scalar,
    output_tokens: Scalar,
    reasoning_output_tokens: Scalar,
    total_tokens: Scalar,
}

impl RawLine {
    fn into_line(self) -> RolloutLine {
        let payload = self.payload.0.unwrap_or_default();
        match (self.kind.as_str(), payload.kind.as_str()) {
            (Some("compacted"), _) | (Some("event_msg"), Some("context_compacted")) => {
                RolloutLine::Compaction {
                    timestamp: self.timestamp.into_string(),
                }
            }
            (Some("turn_context"), _) => match payload.model.into_string() {
                Some(model) if !model.trim().is_empty() => RolloutLine::Model(model),
                _ => RolloutLine::Skip,
            },
            (Some("event_msg"), Some("task_started")) => match payload.model_context_window {
                Scalar::Uint(w) if w > 0 => RolloutLine::Window(w),
                _ => RolloutLine::Skip,
            },
            (Some("event_msg"), Some("token_count")) => {
                count(payload.info.0, self.timestamp.into_string())
            }
            _ => RolloutLine::Skip,
        }
    }
}

/// The count of a `token_count` payload's `info`: `None` info (the first count of a session
/// carries rate limits only) and unusable fields say nothing.
fn count(info: Option<RawInfo>, timestamp: Option<String>) -> RolloutLine {
    let Some(info) = info else {
        return RolloutLine::Skip;
    };
    let Some(usage) = info.last_token_usage.0 else {
        return RolloutLine::Skip;
    };
    // Wrong types make the count unusable rather than 0 (as for Claude Code's usage).
    let field = |s: &Scalar| s.token_field();
    let (Some(input), Some(cached), Some(output), Some(reasoning), Some(total)) = (
        field(&usage.input_tokens),
        field(&usage.cached_input_tokens),
        field(&usage.output_tokens),
        field(&usage.reasoning_output_tokens),
        field(&usage.total_tokens),
    ) else {
        return RolloutLine::Skip;
    };
    if total == 0 {
        return RolloutLine::Skip;
    }
    if input == 0 && output == 0 {
        return RolloutLine::Estimate;
    }
    let window = match info.model_context_window {
        Scalar::Uint(w) if w > 0 => Some(w),
        _ => None,
    };
    RolloutLine::Count(Count {
        tokens: TokenCount(total),
        window,
        timestamp,
        usage: [input, cached, output, reasoning, total],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn token_count(info: &str) -> String {
        format!(
            r#"{{"timestamp":"2026-02-24T09:52:00.530Z","type":"event_msg","payload":{{"type":"token_count","info":{info},"rate_limits":{{}}}}}}"#
        )
    }

    #[test]
    fn the_fill_is_the_last_usage_total_never_the_cumulative_one() {
        let line = token_count(
            r#"{"total_token_usage":{"input_tokens":22503290,"cached_input_tokens":21154816,"output_tokens":91246,"reasoning_output_tokens":29256,"total_tokens":22594536},"last_token_usage":{"input_tokens":48297,"cached_input_tokens":22912,"output_tokens":390,"reasoning_output_tokens":95,"total_tokens":48687},"model_context_window":258400}"#,
        );
        match classify(line.as_bytes()) {
            RolloutLine::Count(c) => {
                assert_eq!(c.tokens, TokenCount(48_687));
                assert_eq!(c.window, Some(258_400));
                assert_eq!(c.timestamp.as_deref(), Some("2026-02-24T09:52:00.530Z"));
            }
            other => panic!("expected a count, got {other:?}"),
        }
    }

    #[test]
    fn null_info_and_broken_usage_say_nothing() {
        for info in [
            "null",
            "{}",
            r#"{"last_token_usage":null}"#,
            r#"{"last_token_usage":{"input_tokens":"5","output_tokens":1,"total_tokens":6}}"#,
            r#"{"last_token_usage":{"input_tokens":5,"output_tokens":1,"total_tokens":-6}}"#,
            r#"{"last_token_usage":{"input_tokens":0,"output_tokens":0,"total_tokens":0}}"#,
        ] {
            assert_eq!(
                classify(token_count(info).as_bytes()),
                RolloutLine::Skip,
                "{info}"
            );
        }
    }

    #[test]
    fn a_total_without_input_or_output_is_codexs_estimate() {
        let line = token_count(
            r#"{"last_token_usage":{"input_tokens":0,"cached_input_tokens":0,"output_tokens":0,"reasoning_output_tokens":0,"total_tokens":940499},"model_context_window":258400}"#,
        );
        assert_eq!(classify(line.as_bytes()), RolloutLine::Estimate);
    }

    #[test]
    fn compaction_markers_models_and_windows() {
        let compacted = r#"{"timestamp":"t1","type":"compacted","payload":{"message":"","replacement_history":[]}}"#;
        assert_eq!(
            classify(compacted.as_bytes()),
            RolloutLine::Compaction {
                timestamp: Some("t1".into())
            }
        );
        let event =
            r#"{"timestamp":"t2","type":"event_msg","payload":{"type":"context_compacted"}}"#;
        assert!(matches!(
            classify(event.as_bytes()),
            RolloutLine::Compaction { .. }
        ));
        let turn = r#"{"timestamp":"t","type":"turn_context","payload":{"cwd":"/p","model":"gpt-5.3-codex"}}"#;
        assert_eq!(
            classify(turn.as_bytes()),
            RolloutLine::Model("gpt-5.3-codex".into())
        );
        let started = r#"{"timestamp":"t","type":"event_msg","payload":{"type":"task_started","model_context_window":258400}}"#;
        assert_eq!(classify(started.as_bytes()), RolloutLine::Window(258_400));
    }

    #[test]
    fn text_that_mentions_the_words_is_not_parsed() {
        let msg = r#"{"type":"event_msg","payload":{"type":"user_message","message":"the \"token_count\" event"}}"#;
        assert!(!may_matter(msg));
        assert_eq!(classify(b"\xff\"token_count\""), RolloutLine::Skip);
        assert_eq!(classify(b"{\"type\":\"compacted\""), RolloutLine::Skip);
    }
}
