//! Tells a Claude Code transcript from a Codex CLI rollout by its content: a rollout's first
//! line is `{"timestamp":…,"type":"session_meta","payload":…}`. The path says nothing reliable
//! (a copied file, `--transcript` on any name), so it is never consulted.
//!
//! Only the first line's top-level `type` is read, from at most [`SNIFF_BYTES`]: a session_meta
//! line carries Codex's base instructions (tens of kilobytes), but `type` comes right after
//! `timestamp`, so the key is found long before the line ends and the rest is never parsed.

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, Visitor};

use crate::ports::AgentKind;
use crate::readers::jsonl::backward::first_newline;

/// Bytes of a file's start read to tell its format.
pub const SNIFF_BYTES: u64 = 16 * 1024;

/// True when a file starting with `head` starts like a JSON-lines file (its first non-blank
/// byte opens an object) or is empty: a session's transcript before its first answer, as
/// opposed to a file that is no transcript at all.
pub fn opens_as_json_lines(head: &[u8]) -> bool {
    head.iter()
        .find(|b| !b.is_ascii_whitespace())
        .is_none_or(|b| *b == b'{')
}

/// What a JSON document given in place of a transcript is, when its first line (in `head`) is
/// one of the inputs the agents send to ctxmon rather than a transcript line: every transcript
/// line has a top-level `type`, a hook's or the status line's input has none and names a
/// transcript instead. `None` for anything else (a transcript, or bytes that are not JSON).
pub fn input_in_place_of_transcript(head: &[u8]) -> Option<&'static str> {
    let line = match first_newline(head) {
        Some(end) => head.get(..end)?,
        None => head,
    };
    let value: serde_json::Value = serde_json::from_slice(line).ok()?;
    let object = value.as_object()?;
    if object.contains_key("type") {
        return None;
    }
    if object.contains_key("hook_event_name") {
        Some("a hook's input (the JSON the agent sends a hook)")
    } else if object.contains_key("transcript_path") || object.contains_key("context_window") {
        Some("a status-line input (the JSON Claude Code sends its status line)")
    } else {
        None
    }
}

/// The agent that wrote a file starting with `bytes` (its first line may be cut).
pub fn agent_of_prefix(bytes: &[u8]) -> AgentKind {
    let bytes = bytes
        .strip_prefix(crate::readers::gemini::BOM)
        .unwrap_or(bytes);
    let start = bytes
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(bytes.len());
    let rest = bytes.get(start..).unwrap_or_default();
    let line = match first_newline(rest) {
        Some(end) => rest.get(..end).unwrap_or_default(),
        None => rest,
    };
    if crate::readers::gemini::format_of(rest).is_some() {
        AgentKind::Gemini
    } else if could_name_session_meta(line)
        && top_level_type(line).as_deref() == Some("session_meta")
    {
        AgentKind::Codex
    } else {
        AgentKind::ClaudeCode
    }
}

/// False when no key of `line` can have the value `session_meta`: the bytes `"session_meta"`
/// are not there and no `\u` escape could spell them. Then the line is not parsed at all, which
/// matters beyond the parse: stopping the parser early is an error, and serde_json locates an
/// error with memchr, whose first use asks the CPU for its features (see
/// `jsonl::backward::last_newline`): that cost every Claude Code hook about 0.1 ms.
fn could_name_session_meta(line: &[u8]) -> bool {
    contains(line, b"\"session_meta\"") || contains(line, b"\\u")
}

/// Whether `needle` (not empty) occurs in `haystack`.
fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    let Some((&first, rest)) = needle.split_first() else {
        return true;
    };
    let starts = memchr::arch::all::memchr::One::new(first);
    let mut from = 0;
    while let Some(at) = haystack.get(from..).and_then(|h| starts.find(h)) {
        let next = from + at + 1;
        if haystack.get(next..).is_some_and(|h| h.starts_with(rest)) {
            return true;
        }
        from = next;
    }
    false
}

/// The string value of the object's top-level `type` key, read up to that key only: the line
/// may be cut by the sniff window, so the parser's complaint about what follows is ignored.
fn top_level_type(line: &[u8]) -> Option<String> {
    let mut found = None;
    let mut de = serde_json::Deserializer::from_slice(line);
    // The error (truncated line, trailing content after the early return) carries nothing:
    // what was found before it is the answer.
    let _ = TypeSeed(&mut found).deserialize(&mut de);
    found
}

/// Visits a JSON object's keys in order and stops at `type`.
struct TypeSeed<'a>(&'a mut Option<String>);

impl<'de> DeserializeSeed<'de> for TypeSeed<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for TypeSeed<'_> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            if key == "type" {
                *self.0 = map.next_value::<String>().ok();
                // Stop here: the payload after it may be cut or large.
                return Err(de::Error::custom("done"));
            }
            map.next_value::<IgnoredAny>()?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_session_meta_first_line_is_a_codex_rollout_even_when_cut() {
        let line = br#"{"timestamp":"2026-02-23T19:34:26.098Z","type":"session_meta","payload":{"id":"x","base_instructions":{"text":"very long"#;
        assert_eq!(agent_of_prefix(line), AgentKind::Codex);
        let whole = b"\n  {\"type\":\"session_meta\",\"payload\":{}}\n{\"type\":\"event_msg\"}\n";
        assert_eq!(agent_of_prefix(whole), AgentKind::Codex);
    }

    /// A chat saved by an editor with a byte-order mark is still Gemini CLI's.
    #[test]
    fn a_byte_order_mark_does_not_hide_a_gemini_chat() {
        let chat = b"\xEF\xBB\xBF{\"sessionId\":\"s\",\"projectHash\":\"h\"}\n";
        assert_eq!(agent_of_prefix(chat), AgentKind::Gemini);
    }

    #[test]
    fn a_session_meta_spelled_with_escapes_is_still_found() {
        let escaped = br#"{"timestamp":"t","type":"session\u005fmeta","payload":{}}"#;
        assert_eq!(agent_of_prefix(escaped), AgentKind::Codex);
        let key_escaped = br#"{"typ\u0065":"session_meta"}"#;
        assert_eq!(agent_of_prefix(key_escaped), AgentKind::Codex);
        assert!(!could_name_session_meta(
            br#"{"type":"user","x":"session meta"}"#
        ));
        assert!(could_name_session_meta(br#"{"type":"user","x":"\u0041"}"#));
        assert!(contains(b"abcabd", b"abd") && !contains(b"abcab", b"abd"));
        assert!(contains(b"aab", b"ab") && !contains(b"", b"a"));
    }

    #[test]
    fn json_lines_are_told_from_other_files() {
        let cases: [(&[u8], bool); 5] = [
            (b"{\"type\":\"user\"}\n", true),
            (b"\n \n{\"type\":\"user\"}", true),
            (b"", true),
            (b"not json\n{\"type\":\"user\"}\n", false),
            (b"\xff\xfe\n", false),
        ];
        for (bytes, expected) in cases {
            assert_eq!(opens_as_json_lines(bytes), expected, "{bytes:?}");
        }
    }

    #[test]
    fn an_agents_input_is_told_from_a_transcript() {
        let hook = br#"{"hook_event_name":"Stop","transcript_path":"/t.jsonl"}"#;
        assert!(input_in_place_of_transcript(hook).is_some_and(|w| w.contains("hook")));
        let status = b"{\"context_window\":{}}\n";
        assert!(input_in_place_of_transcript(status).is_some_and(|w| w.contains("status")));
        for other in [&b"{\"type\":\"user\"}"[..], b"{}", b"[1]", b"\xff", b""] {
            assert_eq!(input_in_place_of_transcript(other), None, "{other:?}");
        }
    }

    #[test]
    fn anything_else_is_claude_code() {
        for prefix in [
            &br#"{"type":"user","message":{"content":"type session_meta"}}"#[..],
            br#"{"parentUuid":null,"payload":{"type":"session_meta"}}"#,
            br#"{"type":["session_meta"]}"#,
            br#"{"type":"summary"}"#,
            b"not json at all",
            b"",
            b"\xff\xfe",
            br#"{"x":"#,
        ] {
            assert_eq!(agent_of_prefix(prefix), AgentKind::ClaudeCode, "{prefix:?}");
        }
        // Only the first line decides: a later session_meta does not make a rollout.
        let later = b"{\"type\":\"user\"}\n{\"type\":\"session_meta\"}\n";
        assert_eq!(agent_of_prefix(later), AgentKind::ClaudeCode);
    }
}
