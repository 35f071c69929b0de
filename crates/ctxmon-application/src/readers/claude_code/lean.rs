//! A Claude Code line parsed for its records only: the keys [`RecordParser::push`] reads are
//! built into a `serde_json::Value`, every other key is checked as JSON and skipped.
//!
//! PreCompact parses the lines of an 8 MiB tail, and building each whole line as a `Value`
//! (every id, usage figure, model name and file content as its own allocation) was most of its
//! time. The keys kept are listed here beside the reader ([`LINE`]); a test holds the records
//! of every fixture line equal whether the line is parsed whole or lean, so a key `push`
//! starts reading must be added here first.
//!
//! The line must still be valid JSON throughout, as it had to be whole: a syntax error in a
//! skipped key fails the line the same way, and [`parse_line`] repairs it the same way
//! (`json_repair`). A line that is not UTF-8 is parsed whole, as before, so it fails as before.
//!
//! [`RecordParser::push`]: super::records::RecordParser::push

use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

use crate::readers::json::repair as json_repair;

/// What of a value is kept.
#[derive(Debug, Clone, Copy)]
enum Shape {
    /// The value whole.
    Whole,
    /// Of an object, only these keys, each with its shape; of an array, each element with
    /// this shape; any other value whole.
    Keys(&'static [(&'static str, Shape)]),
}

use Shape::{Keys, Whole};

/// A tool call's input: what `RecordParser::call` reads (not the file contents of a write).
const INPUT: Shape = Keys(&[
    ("file_path", Whole),
    ("notebook_path", Whole),
    ("command", Whole),
    ("description", Whole),
    ("todos", Whole),
    ("taskId", Whole),
    ("subject", Whole),
    ("status", Whole),
]);

/// A content block: text, a tool call, a tool result.
const BLOCK: Shape = Keys(&[
    ("type", Whole),
    ("text", Whole),
    ("id", Whole),
    ("name", Whole),
    ("input", INPUT),
    ("tool_use_id", Whole),
    ("is_error", Whole),
    ("content", Whole),
]);

/// A line: its kind and flags, `message.content` (a string, or blocks) and `toolUseResult`'s
/// exit code and tasks.
const LINE: Shape = Keys(&[
    ("type", Whole),
    ("subtype", Whole),
    ("timestamp", Whole),
    ("gitBranch", Whole),
    ("cwd", Whole),
    ("isSidechain", Whole),
    ("isMeta", Whole),
    ("isCompactSummary", Whole),
    ("isApiErrorMessage", Whole),
    ("message", Keys(&[("content", BLOCK)])),
    (
        "toolUseResult",
        Keys(&[
            ("exitCode", Whole),
            ("task", Whole),
            ("tasks", Whole),
            ("type", Whole),
        ]),
    ),
]);

/// The line as `RecordParser::push` needs it, or `None` when it is not JSON (after the same
/// repair as a whole parse).
pub fn parse_line(line: &[u8]) -> Option<Value> {
    match std::str::from_utf8(line) {
        // Known to be UTF-8: serde_json does not check it again.
        Ok(text) => json_repair::from_str_lenient::<LeanLine>(text)
            .ok()
            .map(|l| l.0),
        Err(_) => json_repair::from_slice_lenient::<Value>(line).ok(),
    }
}

/// A line parsed to [`LINE`]'s shape.
struct LeanLine(Value);

impl<'de> de::Deserialize<'de> for LeanLine {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<LeanLine, D::Error> {
        Kept(LINE).deserialize(d).map(LeanLine)
    }
}

/// An object's key, borrowed from the line unless it holds an escape: serde's own `Cow<str>`
/// always copies, and every key of every wanted line (most of them skipped) was an allocation
/// and a free.
struct Key<'de>(std::borrow::Cow<'de, str>);

impl<'de> de::Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Key<'de>, D::Error> {
        d.deserialize_str(KeyVisitor)
    }
}

struct KeyVisitor;

impl<'de> Visitor<'de> for KeyVisitor {
    type Value = Key<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object key")
    }

    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Key<'de>, E> {
        Ok(Key(std::borrow::Cow::Borrowed(v)))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Key<'de>, E> {
        Ok(Key(std::borrow::Cow::Owned(v.to_string())))
    }
}

/// Deserializes one value to its shape.
#[derive(Clone, Copy)]
struct Kept(Shape);

impl<'de> DeserializeSeed<'de> for Kept {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        match self.0 {
            Whole => de::Deserialize::deserialize(d),
            Keys(_) => d.deserialize_any(self),
        }
    }
}

impl<'de> Visitor<'de> for Kept {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let Keys(keys) = self.0 else {
            return Err(de::Error::custom("a whole value is not visited"));
        };
        let mut kept = Map::new();
        while let Some(Key(key)) = map.next_key::<Key<'de>>()? {
            match keys.iter().find(|(name, _)| *name == key) {
                // A repeated key replaces the earlier value, as in a whole parse.
                Some((name, shape)) => {
                    let value = map.next_value_seed(Kept(*shape))?;
                    kept.insert((*name).to_string(), value);
                }
                None => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(Value::Object(kept))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element_seed(self)? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    // Anything else is kept whole, as `Value` would read it.

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        Ok(serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_string()))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_none<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::readers::claude_code::RecordParser;

    /// Every line of the transcripts at hand, whole and lean, through one parser each: the
    /// same records, in the same order. On the way, `sort` is checked against `wants` and
    /// `push_unparsed`.
    fn same_records(lines: &[&[u8]]) {
        let (mut whole, mut lean) = (RecordParser::default(), RecordParser::default());
        let (mut from_whole, mut from_lean) = (Vec::new(), Vec::new());
        for line in lines {
            // `sort` answers as `wants` does and adds what `push_unparsed` would.
            let (mut sorted, mut unparsed) = (Vec::new(), Vec::new());
            let wanted = whole.sort(line, &mut sorted);
            assert_eq!(wanted, whole.wants(line));
            if !wanted {
                whole.push_unparsed(line, &mut unparsed);
            }
            assert_eq!(sorted, unparsed);
            let full = json_repair::from_slice_lenient::<Value>(line).ok();
            let pruned = parse_line(line);
            assert_eq!(
                full.is_some(),
                pruned.is_some(),
                "{}",
                String::from_utf8_lossy(line)
            );
            if let (Some(full), Some(pruned)) = (full, pruned) {
                whole.push(&full, &mut from_whole);
                lean.push(&pruned, &mut from_lean);
            }
        }
        assert_eq!(from_lean, from_whole);
    }

    #[test]
    fn odd_lines_fail_or_repair_as_whole_ones_do() {
        let lines: [&[u8]; 12] = [
            br#"{"type":"user","message":{"content":"hi"},"uuid":"x","uuid":"y"}"#,
            br#"{"type":"user","type":"assistant","message":{"content":[{"type":"text","text":"a"}]}}"#,
            br#"{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t","name":"Write","input":{"file_path":"/a","content":"big"}}]}}"#,
            br#"{"type":"user","message":{"content":"\ud800 cut emoji"},"cost":1e999}"#,
            br#"{"type":"user","message":{"content":"ok"},"cost":1e999}"#,
            br#"{"type":"user","message":"not an object","toolUseResult":[1,2]}"#,
            br#"[{"type":"user"}]"#,
            br#""just a string""#,
            br#"{"type":"user","message":{"content":"ok"},"junk":[1,}"#,
            b"{\"type\":\"user\",\"message\":{\"content\":\"\xff\"}}",
            b"{\"type\":\"user\",\"skipped\":\"\xff\",\"message\":{\"content\":\"x\"}}",
            br#"{"type":"user","message":{"content":"cut"#,
        ];
        for line in lines {
            same_records(&[line]);
        }
        let pruned = parse_line(br#"{"type":"assistant","uuid":"u","message":{"id":"m","usage":{"input_tokens":1},"content":[{"type":"tool_use","id":"t","name":"Edit","input":{"file_path":"/a","old_string":"o","new_string":"n"}}]}}"#).unwrap();
        assert_eq!(
            pruned,
            serde_json::json!({"type":"assistant","message":{"content":[{"type":"tool_use","id":"t","name":"Edit","input":{"file_path":"/a"}}]}})
        );
    }
}
