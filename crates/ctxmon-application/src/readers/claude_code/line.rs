//! Classifies one transcript line: a usage record, a compaction boundary, or nothing (contract C2).
//!
//! Claude Code calls its transcript format internal and changes it between versions, so every
//! field is optional and every field we read is *lenient* (see `lenient`): a value of the wrong
//! type never makes the parser reject the whole line. Instead each field records what it saw and
//! the rules below decide. Only the fields the rules need are deserialized; everything else
//! (message content above all, which can be megabytes) is skipped by serde without being built.

use crate::ports::{CompactionBoundary, TranscriptEvent, UsageRecord};
use ctxmon_domain::TokenCount;
use serde::Deserialize;

use crate::readers::json::repair as json_repair;
use crate::readers::jsonl::lenient::{EphemeralSum, Obj, Scalar};

/// What one line means for the fill measurement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum LineEvent {
    /// The line does not parse, or parses but does not qualify.
    Skip,
    Usage {
        sidechain: bool,
        record: UsageRecord,
    },
    Boundary {
        sidechain: bool,
        boundary: CompactionBoundary,
    },
}

impl LineEvent {
    /// The port's form of a qualifying line; `None` for [`LineEvent::Skip`].
    pub(crate) fn into_transcript_event(self) -> Option<TranscriptEvent> {
        match self {
            LineEvent::Skip => None,
            LineEvent::Usage { sidechain, record } => {
                Some(TranscriptEvent::Usage { sidechain, record })
            }
            LineEvent::Boundary {
                sidechain,
                boundary,
            } => Some(TranscriptEvent::Boundary {
                sidechain,
                boundary,
            }),
        }
    }
}

/// Cheap pre-filter run before any JSON parsing: a line can only matter if it mentions a token
/// count key or a compaction boundary. Most lines of a real transcript (tool results, user
/// prompts, snapshots) fail this test and are never parsed.
///
/// `input_tokens"` (with the closing quote, without the opening one) matches `input_tokens`,
/// `cache_creation_input_tokens` and `cache_read_input_tokens` as *keys*; inside a JSON string
/// value the quote would be escaped (`input_tokens\"`), so quoted text mentioning the key does not
/// match. Keys spelled with `\u` escapes are not recognised; Claude Code never writes them.
pub(crate) fn may_qualify(text: &str) -> bool {
    text.contains("input_tokens\"") || text.contains("compact_boundary")
}

/// Classifies one line's bytes (without its trailing newline; a trailing `\r` is JSON whitespace
/// and harmless). Never panics; anything unexpected is [`LineEvent::Skip`].
pub(crate) fn classify(bytes: &[u8]) -> LineEvent {
    // Non-UTF-8 bytes cannot be valid JSON text; serde_json would reject them too, but checking
    // first lets the pre-filter use the fast `str::contains`.
    let Ok(text) = std::str::from_utf8(bytes) else {
        return LineEvent::Skip;
    };
    if !may_qualify(text) {
        return LineEvent::Skip;
    }
    // A lone surrogate escape or a number beyond f64 in a field read here (`postTokens: 1e999`)
    // costs that field, not the line (`json_repair`).
    match json_repair::from_str_lenient::<RawLine>(text) {
        Ok(raw) => raw.into_event(),
        // Truncated (still being written), garbage, nested deeper than serde_json's recursion
        // limit, duplicate keys: all mean "this line says nothing".
        Err(_) => LineEvent::Skip,
    }
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct RawUsage {
    input_tokens: Scalar,
    cache_creation_input_tokens: Scalar,
    cache_read_input_tokens: Scalar,
    cache_creation: Obj<EphemeralSum>,
}

impl RawUsage {
    /// input + cache creation + cache read; cache creation falls back to the nested ephemeral
    /// sum when it is 0 or missing (Claude Code before 2.1.152 sometimes filled only the nested
    /// form). `None` when a field that enters the sum has the wrong type.
    fn context_tokens(&self) -> Option<u64> {
        let input = self.input_tokens.token_field()?;
        let read = self.cache_read_input_tokens.token_field()?;
        let mut creation = self.cache_creation_input_tokens.token_field()?;
        if creation == 0
            && let Some(nested) = &self.cache_creation.0
        {
            if nested.invalid {
                return None;
            }
            creation = nested.sum;
        }
        Some(input.saturating_add(creation).saturating_add(read))
    }
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct RawMessage {
    model: Scalar,
    id: Scalar,
    usage: Obj<RawUsage>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct RawCompact {
    trigger: Scalar,
    #[serde(rename = "preTokens")]
    pre_tokens: Scalar,
    #[serde(rename = "postTokens")]
    post_tokens: Scalar,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct RawLine {
    #[serde(rename = "type")]
    kind: Scalar,
    subtype: Scalar,
    #[serde(rename = "isSidechain")]
    is_sidechain: Scalar,
    #[serde(rename = "isApiErrorMessage")]
    is_api_error: Scalar,
    message: Obj<RawMessage>,
    #[serde(rename = "compactMetadata")]
    compact: Obj<RawCompact>,
    uuid: Scalar,
    timestamp: Scalar,
    /// The simple format other tools write: `{"input_tokens": 1234, ...}` with no `type`.
    input_tokens: Scalar,
    /// Read only for the simple format, which may name its model at the top level.
    model: Scalar,
    /// The Claude Code version that wrote the line: it decides where auto-compaction fires.
    version: Scalar,
}

impl RawLine {
    fn into_event(self) -> LineEvent {
        let sidechain = self.is_sidechain.is_true();
        match (&self.kind, self.subtype.as_str()) {
            (Scalar::Str(kind), Some("compact_boundary")) if kind == "system" => {
                let meta = self.compact.0.unwrap_or_default();
                LineEvent::Boundary {
                    sidechain,
                    boundary: CompactionBoundary {
                        version: self.version.into_string(),
                        uuid: self.uuid.into_string(),
                        timestamp: self.timestamp.into_string(),
                        trigger: meta.trigger.into_string(),
                        pre_tokens: meta.pre_tokens.as_count(),
                        // Some versions write `postTokens: 0`: no context is empty after a
                        // compaction, so 0 says the size is unknown.
                        post_tokens: meta.post_tokens.as_count().filter(|t| t.get() > 0),
                    },
                }
            }
            (Scalar::Str(kind), _) if kind == "assistant" => self.assistant_event(sidechain),
            // "Without `type`": a JSON null is treated like a missing key.
            (Scalar::Absent | Scalar::Null, _) => match self.input_tokens {
                // Contract C2: the simple format qualifies with its value, so unlike an
                // assistant record a zero here is a real (empty) reading, not a placeholder.
                Scalar::Uint(n) => LineEvent::Usage {
                    sidechain,
                    record: UsageRecord {
                        version: None,
                        tokens: TokenCount(n),
                        model: self.model.into_string(),
                        message_id: None,
                        timestamp: self.timestamp.into_string(),
                        context_window: None,
                    },
                },
                _ => LineEvent::Skip,
            },
            _ => LineEvent::Skip,
        }
    }

    fn assistant_event(self, sidechain: bool) -> LineEvent {
        if self.is_api_error.is_true() {
            return LineEvent::Skip;
        }
        let Some(message) = self.message.0 else {
            return LineEvent::Skip;
        };
        if message.model.as_str() == Some("<synthetic>") {
            return LineEvent::Skip;
        }
        let Some(usage) = message.usage.0 else {
            return LineEvent::Skip;
        };
        match usage.context_tokens() {
            // Zero usage marks a placeholder (errors, interrupted requests), not an empty context.
            None | Some(0) => LineEvent::Skip,
            Some(tokens) => LineEvent::Usage {
                sidechain,
                record: UsageRecord {
                    version: self.version.into_string(),
                    tokens: TokenCount(tokens),
                    model: message.model.into_string(),
                    message_id: message.id.into_string(),
                    timestamp: self.timestamp.into_string(),
                    context_window: None,
                },
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(line: &str) -> Option<u64> {
        match classify(line.as_bytes()) {
            LineEvent::Usage { record, .. } => Some(record.tokens.get()),
            _ => None,
        }
    }

    fn assistant(usage: &str) -> String {
        format!(r#"{{"type":"assistant","message":{{"model":"m","id":"msg","usage":{usage}}}}}"#)
    }

    #[test]
    fn formula_adds_input_creation_and_read() {
        let line = assistant(
            r#"{"input_tokens":1,"cache_creation_input_tokens":920,"cache_read_input_tokens":65682,"output_tokens":506}"#,
        );
        assert_eq!(tokens(&line), Some(66_603));
    }

    #[test]
    fn nested_cache_creation_is_used_when_flat_is_zero_or_missing() {
        let zero = assistant(
            r#"{"input_tokens":5,"cache_creation_input_tokens":0,"cache_read_input_tokens":100,"cache_creation":{"ephemeral_5m_input_tokens":30,"ephemeral_1h_input_tokens":40,"ephemeral_2d_input_tokens":1}}"#,
        );
        assert_eq!(tokens(&zero), Some(176));
        let missing = assistant(
            r#"{"input_tokens":5,"cache_creation":{"ephemeral_1h_input_tokens":40,"other":"x"}}"#,
        );
        assert_eq!(tokens(&missing), Some(45));
        // The flat figure wins when it is non-zero: the nested form is a breakdown of it.
        let both = assistant(
            r#"{"input_tokens":5,"cache_creation_input_tokens":70,"cache_creation":{"ephemeral_1h_input_tokens":40}}"#,
        );
        assert_eq!(tokens(&both), Some(75));
    }

    #[test]
    fn wrong_types_make_the_record_unusable_not_zero() {
        for usage in [
            r#"{"input_tokens":"5"}"#,
            r#"{"input_tokens":-5}"#,
            r#"{"input_tokens":5.5}"#,
            r#"{"input_tokens":5,"cache_read_input_tokens":[1]}"#,
            r#"{"input_tokens":5,"cache_creation_input_tokens":true}"#,
            r#"{"input_tokens":5,"cache_creation":{"ephemeral_5m_input_tokens":"9"}}"#,
            r#"{"input_tokens":99999999999999999999999}"#,
        ] {
            assert_eq!(tokens(&assistant(usage)), None, "{usage}");
        }
        // Fields outside the formula may have any type.
        let odd_output = assistant(r#"{"input_tokens":5,"output_tokens":"lots"}"#);
        assert_eq!(tokens(&odd_output), Some(5));
    }

    #[test]
    fn sums_saturate() {
        let line = assistant(
            r#"{"input_tokens":18446744073709551615,"cache_read_input_tokens":18446744073709551615}"#,
        );
        assert_eq!(tokens(&line), Some(u64::MAX));
    }

    #[test]
    fn boundary_with_malformed_metadata_is_still_a_boundary() {
        let line = r#"{"type":"system","subtype":"compact_boundary","compactMetadata":{"trigger":7,"preTokens":"x","postTokens":-1}}"#;
        match classify(line.as_bytes()) {
            LineEvent::Boundary { boundary, .. } => {
                assert_eq!(boundary.trigger, None);
                assert_eq!(boundary.pre_tokens, None);
                assert_eq!(boundary.post_tokens, None);
            }
            other => panic!("expected a boundary, got {other:?}"),
        }
        let zero = r#"{"type":"system","subtype":"compact_boundary","compactMetadata":{"preTokens":170000,"postTokens":0}}"#;
        match classify(zero.as_bytes()) {
            LineEvent::Boundary { boundary, .. } => {
                assert_eq!(boundary.post_tokens, None, "0 is not a size");
            }
            other => panic!("expected a boundary, got {other:?}"),
        }
        let no_meta = r#"{"type":"system","subtype":"compact_boundary","compactMetadata":"?"}"#;
        assert!(matches!(
            classify(no_meta.as_bytes()),
            LineEvent::Boundary { .. }
        ));
    }

    #[test]
    fn generic_format_needs_no_type_and_an_integer() {
        assert_eq!(tokens(r#"{"input_tokens":1234}"#), Some(1234));
        assert_eq!(tokens(r#"{"type":null,"input_tokens":0}"#), Some(0));
        assert_eq!(tokens(r#"{"type":"user","input_tokens":1234}"#), None);
        assert_eq!(tokens(r#"{"input_tokens":"1234"}"#), None);
    }

    #[test]
    fn odd_shapes_are_skipped_without_panicking() {
        for line in [
            "",
            "[]",
            "42",
            "null",
            r#"{"type":"assistant","message":"input_tokens\""}"#,
            r#"{"type":"assistant","message":{"usage":null},"x":"input_tokens\""}"#,
            r#"{"type":"assistant","message":{"usage":[1,2]},"x":"input_tokens\""}"#,
            r#"{"type":["assistant"],"message":{"usage":{"input_tokens":5}}}"#,
            r#"{"type":"assistant","type":"assistant","message":{"usage":{"input_tokens":5}}}"#,
        ] {
            assert_eq!(classify(line.as_bytes()), LineEvent::Skip, "{line}");
        }
    }

    #[test]
    fn deep_nesting_neither_overflows_the_stack_nor_hides_the_record() {
        // serde_json skips ignored values iteratively, so depth costs memory bounded by the line
        // length, never stack; a well-formed deep line still qualifies.
        let deep = format!(
            r#"{{"input_tokens":1,"x":{}{}}}"#,
            "[".repeat(200_000),
            "]".repeat(200_000)
        );
        assert_eq!(tokens(&deep), Some(1));
        let in_a_read_field = format!(
            r#"{{"input_tokens":{}{}}}"#,
            "[".repeat(200_000),
            "]".repeat(200_000)
        );
        assert_eq!(tokens(&in_a_read_field), None);
        let unclosed = format!(r#"{{"input_tokens":1,"x":{}"#, "{\"a\":".repeat(100_000));
        assert_eq!(classify(unclosed.as_bytes()), LineEvent::Skip);
    }
}
