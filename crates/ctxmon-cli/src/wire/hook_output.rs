//! Hook answers (spec §14): `hookSpecificOutput` JSON with the event name, or nothing.

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

/// PreToolUse's answer: always `allow` (ctxmon never blocks a tool) with a warning.
pub fn allow_with_context(text: &str) -> Option<String> {
    if text.is_empty() || text.chars().count() >= MAX_CONTEXT_CHARS {
        return None;
    }
    Some(json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow", "additionalContext": text}}).to_string())
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

    #[test]
    fn oversized_or_empty_context_is_not_sent() {
        assert_eq!(additional_context("UserPromptSubmit", ""), None);
        assert_eq!(
            additional_context("UserPromptSubmit", &"x".repeat(MAX_CONTEXT_CHARS)),
            None
        );
    }
}
