//! Hook input (contract C14): stdin JSON, at most 1 MiB parsed, every field optional and read
//! leniently.
//!
//! Fields are pulled out of a `serde_json::Value` one by one rather than derived: a field of the
//! wrong type (Claude Code's format changes between versions) must cost that field only, never
//! the whole input. For the same reason a lone surrogate escape, a number beyond f64 or a byte
//! that is not UTF-8, which serde_json refuses, is repaired rather than refused (`json_repair`),
//! nesting beyond serde_json's limit is skipped where no hook reads it (`json_depth`), and an
//! input over the cap is read to its end with its long strings shortened (a 2 MB pasted prompt
//! still gets its answer, and Claude Code never writes into a closed pipe).

use std::io::Read;

use ctxmon_application::readers::json::depth as json_depth;
use ctxmon_application::readers::json::repair::{self as json_repair, Shrinker};
use serde_json::Value;

/// Most stdin a hook parses. A longer input is read to its end, but only a copy with every long
/// string shortened is kept ([`MAX_KEPT_STRING`]); one that does not fit even so is refused.
pub const MAX_STDIN_BYTES: u64 = 1024 * 1024;

/// Bytes of JSON text kept of each string of an input over the cap: far more than any path,
/// name or id a hook reads, and 32 such strings still fit the cap. The prompt (which no hook
/// reads) and a Write call's content are what it shortens.
pub const MAX_KEPT_STRING: usize = 32 * 1024;

/// Read size for the part of an input beyond the cap.
const DRAIN_CHUNK: usize = 64 * 1024;

#[derive(Debug, Clone, Default, PartialEq)]
pub struct HookInput {
    pub session_id: Option<String>,
    pub transcript_path: Option<String>,
    pub cwd: Option<String>,
    pub hook_event_name: Option<String>,
    pub prompt: Option<String>,
    pub source: Option<String>,
    pub trigger: Option<String>,
    pub custom_instructions: Option<String>,
    pub tool_name: Option<String>,
    pub tool_input: Option<Value>,
    pub reason: Option<String>,
    pub model: Option<String>,
    /// PostCompact's summary of the compacted conversation.
    pub compact_summary: Option<String>,
    /// Codex CLI's turn id (Claude Code sends none).
    pub turn_id: Option<String>,
    /// `transcript_path` was sent as JSON `null`: Codex does that when the session has no
    /// rollout path to give; Claude Code always sends a path.
    pub transcript_path_null: bool,
}

impl HookInput {
    /// Whether the input has Codex CLI's shape: a `turn_id`, or a `transcript_path` sent as
    /// null. (The transcript's own format decides when there is a transcript to read.)
    pub fn codex_shaped(&self) -> bool {
        self.turn_id.is_some() || self.transcript_path_null
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InputError {
    Empty,
    TooLarge,
    NotJson(String),
    NotAnObject,
    Io(String),
}

impl std::fmt::Display for InputError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            InputError::Empty => write!(f, "stdin is empty; expected Claude Code's hook JSON"),
            InputError::TooLarge => write!(
                f,
                "stdin is larger than {MAX_STDIN_BYTES} bytes even with its long strings shortened; not a hook input"
            ),
            InputError::NotJson(e) => write!(f, "stdin is not JSON: {e}"),
            InputError::NotAnObject => write!(f, "stdin is JSON but not an object"),
            InputError::Io(e) => write!(f, "stdin could not be read: {e}"),
        }
    }
}

/// Reads `reader` to its end: the bytes themselves when they fit `MAX_STDIN_BYTES`, else a
/// copy with every string longer than [`MAX_KEPT_STRING`] shortened (`json_repair::Shrinker`).
///
/// The rest of a long input is read and discarded rather than left unread: closing the pipe
/// early would fail the writer (EPIPE). The read has no bound of its own; the caller's deadline
/// (`commands::deadline`, the read runs on its worker thread) ends a stdin that never closes.
pub fn read_bounded(mut reader: impl Read) -> Result<Vec<u8>, InputError> {
    let io = |e: std::io::Error| InputError::Io(e.to_string());
    let mut buf = Vec::with_capacity(4096);
    (&mut reader)
        .take(MAX_STDIN_BYTES + 1)
        .read_to_end(&mut buf)
        .map_err(io)?;
    if buf.len() as u64 <= MAX_STDIN_BYTES {
        return Ok(buf);
    }
    let cap = usize::try_from(MAX_STDIN_BYTES).unwrap_or(usize::MAX);
    let mut shrinker = Shrinker::new(cap, MAX_KEPT_STRING);
    shrinker.push(&buf);
    drop(buf);
    let mut chunk = vec![0u8; DRAIN_CHUNK];
    loop {
        match reader.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => shrinker.push(chunk.get(..n).unwrap_or_default()),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(io(e)),
        }
    }
    shrinker.finish().ok_or(InputError::TooLarge)
}

impl HookInput {
    pub fn parse(bytes: &[u8]) -> Result<HookInput, InputError> {
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return Err(InputError::Empty);
        }
        let obj = match json_repair::from_slice_lenient::<Skimmed>(bytes) {
            Ok(skimmed) => skimmed.0,
            // Not an object, or not JSON: parsed again, only to say which.
            Err(_) => {
                let value: Value = json_repair::from_slice_lenient(bytes)
                    .map_err(|e| InputError::NotJson(e.to_string()))?;
                return Err(match value {
                    Value::Object(_) => {
                        InputError::NotJson("an object that could not be read".into())
                    }
                    _ => InputError::NotAnObject,
                });
            }
        };
        let obj = &obj;
        let text = |key: &str| obj.get(key).and_then(Value::as_str).map(str::to_string);
        // SessionStart sends `model` as a string; the status line sends `{id, display_name}`.
        let model = text("model").or_else(|| {
            obj.get("model")
                .and_then(|m| m.get("id"))
                .and_then(Value::as_str)
                .map(str::to_string)
        });
        Ok(HookInput {
            session_id: text("session_id"),
            transcript_path: text("transcript_path").filter(|p| !p.is_empty()),
            cwd: text("cwd").filter(|p| !p.is_empty()),
            hook_event_name: text("hook_event_name"),
            prompt: text("prompt"),
            source: text("source"),
            trigger: text("trigger"),
            custom_instructions: text("custom_instructions"),
            tool_name: text("tool_name"),
            tool_input: obj.get("tool_input").cloned(),
            reason: text("reason"),
            model,
            compact_summary: text("compact_summary"),
            turn_id: text("turn_id").filter(|t| !t.is_empty()),
            transcript_path_null: obj.get("transcript_path").is_some_and(Value::is_null),
        })
    }
}

/// The keys [`HookInput::parse`] reads. Only these are built into values: every other key
/// (PostToolUse's `tool_response`, a file read or a command's output of hundreds of kilobytes
/// after every tool call, and whatever a newer agent adds) is checked as JSON but skipped, at
/// any depth. A key a hook starts reading is added here.
const READ_KEYS: [&str; 14] = [
    "session_id",
    "transcript_path",
    "cwd",
    "hook_event_name",
    "prompt",
    "source",
    "trigger",
    "custom_instructions",
    "tool_name",
    "tool_input",
    "reason",
    "model",
    "compact_summary",
    "turn_id",
];

/// The input's top-level object with only the [`READ_KEYS`]. Their values are read with their
/// subtrees beyond `json_depth::MAX_DEPTH` skipped: serde_json refuses nesting deeper than
/// 128 levels anywhere in a document, and a deep value under a key no hook reads (or deep in a
/// tool's arguments, of which a hook reads one path) must not cost the input. Only an object
/// deserializes.
struct Skimmed(serde_json::Map<String, Value>);

impl<'de> serde::Deserialize<'de> for Skimmed {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Skimmed, D::Error> {
        struct Visit;
        impl<'de> serde::de::Visitor<'de> for Visit {
            type Value = Skimmed;

            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a JSON object")
            }

            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<Skimmed, A::Error> {
                let mut kept = serde_json::Map::new();
                let seed = json_depth::Seed {
                    left: json_depth::MAX_DEPTH,
                };
                while let Some(key) = map.next_key::<String>()? {
                    if READ_KEYS.contains(&key.as_str()) {
                        // A repeated key: the last one counts, as in a `Value`.
                        kept.insert(key, map.next_value_seed(seed)?);
                    } else {
                        map.next_value::<serde::de::IgnoredAny>()?;
                    }
                }
                Ok(Skimmed(kept))
            }
        }
        deserializer.deserialize_map(Visit)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the hooks read is the same whether the bulky keys are skipped or not.
    #[test]
    fn skipping_the_tool_response_changes_nothing_a_hook_reads() {
        let inputs: [&[u8]; 5] = [
            br#"{"session_id":"s","transcript_path":"/t.jsonl","cwd":"/p","hook_event_name":"PostToolUse","tool_name":"Read","tool_input":{"file_path":"/p/a.rs"},"tool_response":{"file":{"content":"fn main() {}\n","numLines":1}},"tool_use_id":"toolu_1"}"#,
            br#"{"session_id":"019a","transcript_path":null,"cwd":"/p","hook_event_name":"PostToolUse","model":"gpt-5-codex","turn_id":"t","tool_name":"shell","tool_input":{"command":["ls"]},"tool_response":"ok"}"#,
            br#"{"tool_response":[1,{"deep":[[[["x"]]]]}],"session_id":"s","session_id":"t"}"#,
            br#"{"session_id":"s","tool_response":"\ud83d cut","hook_event_name":"PostToolUse"}"#,
            br#"{"hook_event_name":"UserPromptSubmit","prompt":"hi","model":{"id":"m"}}"#,
        ];
        for bytes in inputs {
            let full: Value = json_repair::from_slice_lenient(bytes).unwrap();
            let mut without = full.as_object().unwrap().clone();
            without.remove("tool_response");
            let expected = HookInput::parse(&serde_json::to_vec(&without).unwrap()).unwrap();
            let skimmed = HookInput::parse(bytes).unwrap();
            assert_eq!(skimmed, expected, "{}", String::from_utf8_lossy(bytes));
        }
        let last = HookInput::parse(inputs[2]).unwrap();
        assert_eq!(
            last.session_id.as_deref(),
            Some("t"),
            "the last repeated key counts"
        );
        // Broken inside the skipped value is still broken JSON.
        assert!(matches!(
            HookInput::parse(br#"{"tool_response":{"a":}, "session_id":"s"}"#),
            Err(InputError::NotJson(_))
        ));
    }

    #[test]
    fn reads_claude_codes_prompt_submit_input() {
        let input = HookInput::parse(br#"{"session_id":"abc123","transcript_path":"/t.jsonl","cwd":"/p","permission_mode":"default","hook_event_name":"UserPromptSubmit","prompt":"hi","future_field":{"x":1}}"#).unwrap();
        assert_eq!(input.session_id.as_deref(), Some("abc123"));
        assert_eq!(input.transcript_path.as_deref(), Some("/t.jsonl"));
        assert_eq!(input.hook_event_name.as_deref(), Some("UserPromptSubmit"));
    }

    #[test]
    fn a_wrong_typed_field_costs_only_that_field() {
        let input = HookInput::parse(br#"{"session_id":5,"transcript_path":"/t.jsonl","hook_event_name":"UserPromptSubmit"}"#).unwrap();
        assert_eq!(input.session_id, None);
        assert_eq!(input.transcript_path.as_deref(), Some("/t.jsonl"));
    }

    #[test]
    fn bad_stdin_is_classified() {
        assert_eq!(HookInput::parse(b"  \n"), Err(InputError::Empty));
        assert!(matches!(
            HookInput::parse(b"{not json"),
            Err(InputError::NotJson(_))
        ));
        assert_eq!(HookInput::parse(b"[1,2]"), Err(InputError::NotAnObject));
        let big = vec![b' '; (MAX_STDIN_BYTES + 10) as usize];
        assert_eq!(read_bounded(&big[..]), Err(InputError::TooLarge));
    }

    /// Node's `JSON.stringify` of a string cut inside an emoji writes `"\ud83d"`, which
    /// serde_json refuses; the whole input used to be lost. It is U+FFFD now, and a number beyond
    /// f64 costs nothing either.
    #[test]
    fn lone_surrogates_and_huge_numbers_cost_nothing() {
        let input = HookInput::parse(
            br#"{"session_id":"s","hook_event_name":"PreCompact","custom_instructions":"keep the \ud83d notes","tool_input":{"n":1e999,"file_path":"/p/\udc00.rs"}}"#,
        )
        .unwrap();
        assert_eq!(input.session_id.as_deref(), Some("s"));
        assert_eq!(
            input.custom_instructions.as_deref(),
            Some("keep the \u{fffd} notes")
        );
        let tool = input.tool_input.unwrap();
        assert_eq!(tool["file_path"], "/p/\u{fffd}.rs");
        assert!(tool["n"].is_number());
    }

    /// A reader that counts what was taken from it.
    struct Counting<R> {
        inner: R,
        read: usize,
    }

    impl<R: Read> Read for Counting<R> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = self.inner.read(buf)?;
            self.read += n;
            Ok(n)
        }
    }

    /// A 2 MB pasted prompt once made the hook stop reading (the writer got EPIPE) and answer
    /// nothing. The whole input is read; what is kept fits the cap and keeps every field
    /// a hook reads, the prompt shortened with a note of its length.
    #[test]
    fn an_input_over_the_cap_is_read_to_its_end_and_kept_shortened() {
        let prompt = "x".repeat(20 * 1024 * 1024);
        let text = format!(
            r#"{{"session_id":"s","transcript_path":"/t.jsonl","cwd":"/p","hook_event_name":"UserPromptSubmit","prompt":"{prompt}"}}"#
        );
        let mut reader = Counting {
            inner: text.as_bytes(),
            read: 0,
        };
        let kept = read_bounded(&mut reader).unwrap();
        assert_eq!(reader.read, text.len(), "read to the end");
        assert!(kept.len() as u64 <= MAX_STDIN_BYTES);
        let input = HookInput::parse(&kept).unwrap();
        assert_eq!(input.transcript_path.as_deref(), Some("/t.jsonl"));
        assert_eq!(input.cwd.as_deref(), Some("/p"));
        let shown = input.prompt.unwrap();
        assert!(shown.starts_with(&prompt[..MAX_KEPT_STRING]), "a prefix");
        assert!(
            shown.ends_with(&format!(
                "[ctxmon kept {} of {} bytes]",
                ctxmon_domain::human::thousands(MAX_KEPT_STRING as u64),
                ctxmon_domain::human::thousands(prompt.len() as u64)
            )),
            "{}",
            &shown[MAX_KEPT_STRING..]
        );
    }

    #[test]
    fn an_input_that_cannot_be_shortened_enough_is_refused_after_reading_it_all() {
        let many = format!("[{}1]", "1,".repeat(600_000));
        let mut reader = Counting {
            inner: many.as_bytes(),
            read: 0,
        };
        assert_eq!(read_bounded(&mut reader), Err(InputError::TooLarge));
        assert_eq!(reader.read, many.len());
        // Within the cap nothing is changed, whatever it holds.
        let small = br#"{"prompt":"\ud83d"}"#;
        assert_eq!(read_bounded(&small[..]).unwrap(), small);
    }

    #[test]
    fn codex_inputs_are_told_by_turn_id_or_a_null_transcript_path() {
        let codex = HookInput::parse(br#"{"session_id":"019c","transcript_path":null,"cwd":"/p","hook_event_name":"UserPromptSubmit","model":"gpt-5.3-codex","turn_id":"t1","permission_mode":"default","prompt":"hi"}"#).unwrap();
        assert!(codex.codex_shaped());
        assert_eq!(codex.transcript_path, None);
        assert_eq!(codex.model.as_deref(), Some("gpt-5.3-codex"));
        let start = HookInput::parse(br#"{"session_id":"s","transcript_path":null,"hook_event_name":"SessionStart","source":"startup"}"#).unwrap();
        assert!(start.codex_shaped());
        let claude = HookInput::parse(br#"{"session_id":"s","transcript_path":"/t.jsonl","hook_event_name":"SessionStart","model":"claude-sonnet-5"}"#).unwrap();
        assert!(!claude.codex_shaped());
        let none = HookInput::parse(br#"{"hook_event_name":"SessionStart"}"#).unwrap();
        assert!(!none.codex_shaped());
    }

    #[test]
    fn model_may_be_a_string_or_an_object() {
        let a = HookInput::parse(br#"{"model":"claude-sonnet-5"}"#).unwrap();
        let b =
            HookInput::parse(br#"{"model":{"id":"claude-opus-4-6[1m]","display_name":"Opus"}}"#)
                .unwrap();
        assert_eq!(a.model.as_deref(), Some("claude-sonnet-5"));
        assert_eq!(b.model.as_deref(), Some("claude-opus-4-6[1m]"));
    }
}
