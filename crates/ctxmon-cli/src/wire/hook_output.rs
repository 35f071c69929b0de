//! Hook answers (contract C14): `hookSpecificOutput` JSON with the event name, or nothing.

use serde_json::json;

/// Claude Code drops `additionalContext` beyond 10,000 characters.
pub const MAX_CONTEXT_CHARS: usize = 10_000;

/// The JSON answer carrying `additionalContext`, or `None` when the text would exceed Claude
/// Code's cap: cutting it would break the XML, and saying nothing is the fail-open answer.
pub fn additional_context(event_name: &str, text: &str) -> Option<String> {
    if text.is_empty() || text.chars().count() >= MAX_CONTEXT_CHARS {
        return None;
    }
    Some(
        json!({"hookSpecificOutput": {"hookEventName": event_name, "additionalContext": text}})
            .to_string(),
    )
}

/// A `systemMessage` answer (PreCompact's checkpoint notice), capped like every answer.
pub fn system_message(text: &str) -> String {
    let capped: String = text.chars().take(MAX_CONTEXT_CHARS - 1).collect();
    json!({ "systemMessage": capped }).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wraps_the_context_with_its_event_name() {
        let out = additional_context("UserPromptSubmit", "<context-monitor/>").unwrap();
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["hookSpecificOutput"]["hookEventName"], "UserPromptSubmit");
        assert_eq!(
            v["hookSpecificOutput"]["additionalContext"],
            "<context-monitor/>"
        );
    }

    /// PreToolUse's answer adds context and nothing else: a `permissionDecision` (even
    /// `allow`) would change the user's permission flow (Claude Code skips the prompt).
    #[test]
    fn pre_tool_use_answers_with_context_only() {
        let out = additional_context("PreToolUse", "<resumption-staleness/>").unwrap();
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        let keys = |v: &serde_json::Value| {
            let mut keys: Vec<String> = v.as_object().unwrap().keys().cloned().collect();
            keys.sort();
            keys
        };
        assert_eq!(keys(&v), ["hookSpecificOutput"]);
        assert_eq!(
            keys(&v["hookSpecificOutput"]),
            ["additionalContext", "hookEventName"]
        );
    }

    #[test]
    fn oversized_or_empty_context_is_not_sent() {
        assert_eq!(additional_context("UserPromptSubmit", ""), None);
        assert_eq!(
            additional_context("UserPromptSubmit", &"x".repeat(MAX_CONTEXT_CHARS)),
            None
        );
    }
}
