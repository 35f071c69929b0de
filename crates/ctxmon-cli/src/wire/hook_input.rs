//! Hook input (spec §14): stdin JSON, at most 1 MiB, every field optional and read leniently.
//!
//! Fields are pulled out of a `serde_json::Value` one by one rather than derived: a field of the
//! wrong type (Claude Code's format changes between versions) must cost that field only, never
//! the whole input.

use std::io::Read;

use serde_json::Value;

/// Largest stdin a hook reads; beyond it the input is rejected as not Claude Code's.
pub const MAX_STDIN_BYTES: u64 = 1024 * 1024;

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
                "stdin is larger than {MAX_STDIN_BYTES} bytes; not a hook input"
            ),
            InputError::NotJson(e) => write!(f, "stdin is not JSON: {e}"),
            InputError::NotAnObject => write!(f, "stdin is JSON but not an object"),
            InputError::Io(e) => write!(f, "stdin could not be read: {e}"),
        }
    }
}

/// Reads at most `MAX_STDIN_BYTES` (+1 to detect excess) from `reader`.
pub fn read_bounded(reader: impl Read) -> Result<Vec<u8>, InputError> {
    let mut buf = Vec::with_capacity(4096);
    reader
        .take(MAX_STDIN_BYTES + 1)
        .read_to_end(&mut buf)
        .map_err(|e| InputError::Io(e.to_string()))?;
    if buf.len() as u64 > MAX_STDIN_BYTES {
        return Err(InputError::TooLarge);
    }
    Ok(buf)
}

impl HookInput {
    pub fn parse(bytes: &[u8]) -> Result<HookInput, InputError> {
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return Err(InputError::Empty);
        }
        let value: Value =
            serde_json::from_slice(bytes).map_err(|e| InputError::NotJson(e.to_string()))?;
        let obj = value.as_object().ok_or(InputError::NotAnObject)?;
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
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
