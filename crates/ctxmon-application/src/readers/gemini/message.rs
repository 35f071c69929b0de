//! One line of a Gemini CLI chat file, parsed for what the fill and the hand-back read: a
//! message (`id`, `type`, `tokens`, `model`, `timestamp`), a `$set` (its `messages`, when it
//! replaces the list) or a `$rewindTo`. Every other field is skipped unbuilt, so a line with a
//! long tool result costs its scan, not a tree of values; the one `content` read is an `info`
//! message's, where gemini-cli words a compression's result ("Chat history compressed from
//! 77912 to 12040 tokens.").

use serde::Deserialize;
use serde_json::Value;

use ctxmon_domain::TokenCount;

/// What a line of a JSONL chat file is.
#[derive(Debug, Clone, PartialEq)]
pub enum ChatLine {
    /// A message record, upserted by its id.
    Message(Message),
    /// `{"$set": {…, "messages": [...]}}`: the list replaced.
    SetMessages(Vec<Message>),
    /// `{"$set": {…}}` without `messages`: metadata only.
    SetMetadata,
    /// `{"$rewindTo": "<id>"}`: that message and every later one dropped.
    RewindTo(String),
    /// The metadata line (`sessionId`, `projectHash`, …), or a line that is none of the above.
    Other,
}

/// A message as far as the fill reads it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Message {
    /// The message's id; upserts are keyed by it.
    pub id: String,
    /// `user`, `gemini`, `info`, `error`, `warning` (others kept as written).
    pub kind: String,
    /// `tokens.input` when it is a whole number of at least 0; `None` when absent or unusable.
    pub input_tokens: Option<TokenCount>,
    /// `tokens` was present but unusable (null, negative, fractional, a string).
    pub bad_tokens: bool,
    /// The model that answered.
    pub model: Option<String>,
    /// When it was written, as the file spells it.
    pub timestamp: Option<String>,
    /// The size a compression left, when this is the `info` message that reports one.
    pub compressed_to: Option<TokenCount>,
}

impl Message {
    /// A `gemini` message whose `tokens.input` counts: the fill's candidates.
    pub fn counted(&self) -> Option<TokenCount> {
        if self.kind == "gemini" {
            self.input_tokens
        } else {
            None
        }
    }
}

#[derive(Deserialize)]
struct RawLine {
    id: Option<Value>,
    #[serde(rename = "type")]
    kind: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    tokens: Option<Value>,
    model: Option<Value>,
    timestamp: Option<Value>,
    #[serde(rename = "$set")]
    set: Option<RawSet>,
    #[serde(rename = "$rewindTo")]
    rewind: Option<Value>,
    content: Option<Value>,
}

/// A key that is present, `null` included (serde reads `null` as `None` otherwise): a count
/// written as `null` is a broken count, not a missing one.
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

#[derive(Deserialize)]
struct RawSet {
    messages: Option<Value>,
}

/// The meaning of one line; `None` when it is not a JSON object (a line being written).
pub fn parse_line(bytes: &[u8]) -> Option<ChatLine> {
    let raw: RawLine = serde_json::from_slice(bytes).ok()?;
    if let Some(target) = raw.rewind {
        // An id that is not a string names no message: gemini-cli then finds none and drops
        // everything, which is what an unknown id does.
        return Some(ChatLine::RewindTo(match target {
            Value::String(s) => s,
            other => other.to_string(),
        }));
    }
    if let Some(set) = raw.set {
        return Some(match set.messages {
            Some(Value::Array(items)) => {
                ChatLine::SetMessages(items.iter().filter_map(message_of_value).collect())
            }
            _ => ChatLine::SetMetadata,
        });
    }
    let id = match raw.id {
        Some(Value::String(id)) => id,
        _ => return Some(ChatLine::Other),
    };
    let kind = match raw.kind {
        Some(Value::String(kind)) => kind,
        _ => return Some(ChatLine::Other),
    };
    let (input_tokens, bad_tokens) = tokens_input(raw.tokens.as_ref());
    let compressed_to = compressed_to(&kind, raw.content.as_ref());
    Some(ChatLine::Message(Message {
        id,
        kind,
        input_tokens,
        bad_tokens,
        model: text(raw.model),
        timestamp: text(raw.timestamp),
        compressed_to,
    }))
}

/// A message given as a JSON value (inside `$set.messages` or a legacy document).
pub fn message_of_value(value: &Value) -> Option<Message> {
    let id = value.get("id")?.as_str()?.to_string();
    let kind = value.get("type")?.as_str()?.to_string();
    let (input_tokens, bad_tokens) = tokens_input(value.get("tokens"));
    let string = |key: &str| value.get(key).and_then(Value::as_str).map(str::to_string);
    let compressed_to = compressed_to(&kind, value.get("content"));
    Some(Message {
        id,
        kind,
        input_tokens,
        bad_tokens,
        model: string("model"),
        timestamp: string("timestamp"),
        compressed_to,
    })
}

/// The size after a compression an `info` message reports, in gemini-cli's own words
/// ("Chat history compressed from 77912 to 12040 tokens."); its content is a string or a list
/// of parts with `text`. A new size that is not smaller than the old one is no compression
/// (gemini-cli then keeps the history as it was), and 0 is no size.
pub fn compressed_to(kind: &str, content: Option<&Value>) -> Option<TokenCount> {
    if kind != "info" {
        return None;
    }
    let text = match content? {
        Value::String(s) => s.as_str(),
        Value::Array(parts) => parts.iter().find_map(|p| p.get("text")?.as_str())?,
        _ => return None,
    };
    let rest = text.trim().strip_prefix("Chat history compressed from ")?;
    let (from, rest) = rest.split_once(" to ")?;
    let to = rest
        .strip_suffix(" tokens.")
        .or(rest.strip_suffix(" tokens"))?;
    let (from, to) = (
        from.trim().parse::<u64>().ok()?,
        to.trim().parse::<u64>().ok()?,
    );
    (to > 0 && to < from).then_some(TokenCount(to))
}

fn text(value: Option<Value>) -> Option<String> {
    match value {
        Some(Value::String(s)) if !s.is_empty() => Some(s),
        _ => None,
    }
}

/// `tokens.input` as a count, and whether `tokens` was there but unusable: a count that is
/// null, negative, fractional or not a number disqualifies the message rather than counting
/// as 0 (which would under-report the fill). `input` already includes `cached`.
fn tokens_input(tokens: Option<&Value>) -> (Option<TokenCount>, bool) {
    match tokens {
        None | Some(Value::Null) => (None, tokens.is_some()),
        Some(t) => match t.get("input").and_then(Value::as_u64) {
            Some(n) => (Some(TokenCount(n)), false),
            None => (None, true),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_info_message_reports_what_a_compression_left() {
        let line = br#"{"id":"i","type":"info","content":"Chat history compressed from 77912 to 12040 tokens."}"#;
        let Some(ChatLine::Message(m)) = parse_line(line) else {
            panic!("a message")
        };
        assert_eq!(m.compressed_to, Some(TokenCount(12_040)));
        let parts = serde_json::json!({"id": "i", "type": "info",
            "content": [{"text": "Chat history compressed from 900 to 100 tokens."}]});
        assert_eq!(
            message_of_value(&parts).and_then(|m| m.compressed_to),
            Some(TokenCount(100))
        );
        // Not a compression: another kind, other words, no shrink, a zero, a bad number.
        for (kind, content) in [
            ("gemini", "Chat history compressed from 9 to 1 tokens."),
            ("info", "Request cancelled."),
            ("info", "Chat history compressed from 100 to 100 tokens."),
            ("info", "Chat history compressed from 100 to 0 tokens."),
            ("info", "Chat history compressed from x to -1 tokens."),
        ] {
            let v = serde_json::json!(content);
            assert_eq!(compressed_to(kind, Some(&v)), None, "{kind} {content}");
        }
    }

    #[test]
    fn a_gemini_message_counts_its_input_only() {
        let line = br#"{"id":"a","type":"gemini","content":"x","tokens":{"input":13116,"output":89,"cached":8107,"total":13228},"model":"gemini-3-flash-preview"}"#;
        let Some(ChatLine::Message(m)) = parse_line(line) else {
            panic!("a message")
        };
        assert_eq!(m.counted(), Some(TokenCount(13_116)));
        assert_eq!(m.model.as_deref(), Some("gemini-3-flash-preview"));
    }

    #[test]
    fn unusable_tokens_disqualify_the_message() {
        for tokens in [
            "null",
            r#"{"input":-5}"#,
            r#"{"input":12.5}"#,
            r#"{"input":"12"}"#,
            r#"{"output":3}"#,
        ] {
            let line = format!(r#"{{"id":"a","type":"gemini","tokens":{tokens}}}"#);
            let Some(ChatLine::Message(m)) = parse_line(line.as_bytes()) else {
                panic!("a message: {tokens}")
            };
            assert_eq!(m.counted(), None, "{tokens}");
            assert!(m.bad_tokens, "{tokens}");
        }
    }

    #[test]
    fn set_rewind_metadata_and_garbage_are_told_apart() {
        assert_eq!(
            parse_line(br#"{"$set":{"lastUpdated":"t"}}"#),
            Some(ChatLine::SetMetadata)
        );
        assert_eq!(
            parse_line(br#"{"$set":{"messages":"no"}}"#),
            Some(ChatLine::SetMetadata)
        );
        let Some(ChatLine::SetMessages(list)) =
            parse_line(br#"{"$set":{"messages":[{"id":"s","type":"user"},{"bad":1}]}}"#)
        else {
            panic!("a list")
        };
        assert_eq!(list.len(), 1);
        assert_eq!(
            parse_line(br#"{"$rewindTo":"m1"}"#),
            Some(ChatLine::RewindTo("m1".into()))
        );
        assert_eq!(
            parse_line(br#"{"sessionId":"s","projectHash":"h"}"#),
            Some(ChatLine::Other)
        );
        assert_eq!(parse_line(br#"{"id":"a","type":"gemi"#), None);
        assert_eq!(parse_line(b"[1,2]"), None);
        // An unknown type is a message that never counts.
        let Some(ChatLine::Message(m)) =
            parse_line(br#"{"id":"z","type":"plugin","tokens":{"input":5}}"#)
        else {
            panic!("a message")
        };
        assert_eq!(m.counted(), None);
    }
}
