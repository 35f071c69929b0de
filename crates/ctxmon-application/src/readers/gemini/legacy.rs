//! The legacy chat file: one `ConversationRecord` JSON document (`sessionId`, …,
//! `messages: [...]`) that gemini-cli before v0.39.0 rewrote whole after each message.
//!
//! A document has no end to read backwards from, so it is parsed whole, and only up to a cap:
//! `context_monitor.max_scan_bytes` (32 MiB by default), the same bound every other reading
//! keeps. A larger file is not measured, and the reason says so. The parse builds only what the
//! fill reads of each message (id, type, count, model, time); contents are skipped unbuilt.

use std::io::Read;

use serde::Deserialize;
use serde_json::Value;

use super::message::{Message, message_of_value};

#[derive(Deserialize)]
struct Document {
    #[serde(default)]
    messages: Vec<LightValue>,
}

/// A message with only the keys the fill reads kept.
struct LightValue(Option<Message>);

impl<'de> Deserialize<'de> for LightValue {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<LightValue, D::Error> {
        #[derive(Deserialize)]
        struct Light {
            id: Option<Value>,
            #[serde(rename = "type")]
            kind: Option<Value>,
            tokens: Option<Value>,
            model: Option<Value>,
            timestamp: Option<Value>,
        }
        let light = Light::deserialize(d)?;
        let mut object = serde_json::Map::new();
        for (key, value) in [
            ("id", light.id),
            ("type", light.kind),
            ("tokens", light.tokens),
            ("model", light.model),
            ("timestamp", light.timestamp),
        ] {
            if let Some(value) = value {
                object.insert(key.to_string(), value);
            }
        }
        Ok(LightValue(message_of_value(&Value::Object(object))))
    }
}

/// Why a legacy document was not read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LegacyProblem {
    /// Larger than the cap (its size, the cap).
    TooLarge(u64, u64),
    /// Not a complete document (being rewritten, or damaged): the parser's message.
    Unreadable(String),
}

impl std::fmt::Display for LegacyProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LegacyProblem::TooLarge(size, cap) => write!(
                f,
                "a legacy Gemini chat file (one JSON document) of {size} bytes is over the \
                 {cap}-byte cap (context_monitor.max_scan_bytes) a reading keeps; not measured"
            ),
            LegacyProblem::Unreadable(e) => write!(
                f,
                "the legacy Gemini chat file is not a complete JSON document ({e}); not measured"
            ),
        }
    }
}

/// The messages of a legacy document of `len` bytes, at most `cap` bytes of it read.
pub fn messages<R: Read>(file: R, len: u64, cap: u64) -> Result<Vec<Message>, LegacyProblem> {
    if len > cap {
        return Err(LegacyProblem::TooLarge(len, cap));
    }
    let mut reader = std::io::BufReader::new(file.take(len));
    // A byte-order mark before the document, as an editor may save one, is no JSON.
    if std::io::BufRead::fill_buf(&mut reader).is_ok_and(|b| b.starts_with(super::BOM)) {
        std::io::BufRead::consume(&mut reader, super::BOM.len());
    }
    let doc: Document =
        serde_json::from_reader(reader).map_err(|e| LegacyProblem::Unreadable(e.to_string()))?;
    Ok(doc.messages.into_iter().filter_map(|m| m.0).collect())
}
