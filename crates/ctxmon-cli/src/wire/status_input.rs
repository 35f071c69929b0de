//! Claude Code's status-line JSON (contract C2): read leniently, field by field. Older versions
//! (1.0.88) have no `context_window`; `current_usage` is null before the first response and
//! right after `/compact`. `total_input_tokens` is never used: it was cumulative before 2.1.132.

use serde_json::Value;

#[derive(Debug, Clone, Default, PartialEq)]
pub struct StatusInput {
    pub session_id: Option<String>,
    pub transcript_path: Option<String>,
    pub cwd: Option<String>,
    pub project_dir: Option<String>,
    pub model_id: Option<String>,
    pub current_usage: Option<u64>,
    pub window: Option<u64>,
    /// `context_window.used_percentage`: Claude Code's own figure (recent versions; null early
    /// in a session), compared with ctxmon's, never used instead of it.
    pub used_percentage: Option<f64>,
    /// Claude Code's `version`: where it compacts has moved between versions.
    pub version: Option<String>,
}

impl StatusInput {
    /// `None` when the bytes are not a JSON object.
    pub fn parse(bytes: &[u8]) -> Option<StatusInput> {
        // As for hook input: a lone surrogate or a number beyond f64 costs nothing.
        let v: Value = ctxmon_application::readers::json::repair::from_slice_lenient(bytes).ok()?;
        let obj = v.as_object()?;
        let text = |v: Option<&Value>| {
            v.and_then(Value::as_str)
                .filter(|s| !s.is_empty())
                .map(str::to_string)
        };
        let cw = obj.get("context_window");
        Some(StatusInput {
            session_id: text(obj.get("session_id")),
            version: text(obj.get("version")),
            transcript_path: text(obj.get("transcript_path")),
            cwd: text(obj.get("cwd"))
                .or_else(|| text(obj.get("workspace").and_then(|w| w.get("current_dir")))),
            project_dir: text(obj.get("workspace").and_then(|w| w.get("project_dir"))),
            model_id: text(obj.get("model").and_then(|m| m.get("id")))
                .or_else(|| text(obj.get("model"))),
            current_usage: cw.and_then(|c| c.get("current_usage")).and_then(usage_sum),
            window: cw
                .and_then(|c| c.get("context_window_size"))
                .and_then(Value::as_u64)
                .filter(|w| *w > 0),
            used_percentage: cw
                .and_then(|c| c.get("used_percentage"))
                .and_then(Value::as_f64)
                .filter(|p| p.is_finite() && *p >= 0.0),
        })
    }
}

/// input + cache creation (or its nested ephemeral sum) + cache read; `None` for null, a
/// wrong type or a negative figure, so the caller falls back to the transcript.
fn usage_sum(usage: &Value) -> Option<u64> {
    let obj = usage.as_object()?;
    let field = |k: &str| -> Option<u64> {
        match obj.get(k) {
            None | Some(Value::Null) => Some(0),
            Some(v) => v.as_u64(),
        }
    };
    let mut creation = field("cache_creation_input_tokens")?;
    if creation == 0
        && let Some(nested) = obj.get("cache_creation").and_then(Value::as_object)
    {
        creation = nested
            .iter()
            .filter(|(k, _)| k.starts_with("ephemeral_"))
            .filter_map(|(_, v)| v.as_u64())
            .fold(0u64, u64::saturating_add);
    }
    Some(
        field("input_tokens")?
            .saturating_add(creation)
            .saturating_add(field("cache_read_input_tokens")?),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recent_payload() {
        let p = StatusInput::parse(br#"{"session_id":"abc","transcript_path":"/t.jsonl","model":{"id":"claude-opus-4-6[1m]"},"workspace":{"current_dir":"/p","project_dir":"/p"},
            "context_window":{"total_input_tokens":999999,"context_window_size":1000000,"current_usage":{"input_tokens":8500,"output_tokens":1200,"cache_creation_input_tokens":5000,"cache_read_input_tokens":2000}}}"#).unwrap();
        assert_eq!(
            p.current_usage,
            Some(15_500),
            "total_input_tokens is ignored"
        );
        assert_eq!(p.window, Some(1_000_000));
        assert_eq!(p.model_id.as_deref(), Some("claude-opus-4-6[1m]"));
        assert_eq!(p.cwd.as_deref(), Some("/p"));
        assert_eq!(p.used_percentage, None, "not in this payload");
    }

    #[test]
    fn used_percentage_is_read_when_it_is_a_percentage() {
        let p = |v: &str| {
            StatusInput::parse(
                format!(r#"{{"context_window":{{"used_percentage":{v}}}}}"#).as_bytes(),
            )
            .unwrap()
            .used_percentage
        };
        assert_eq!(p("8"), Some(8.0));
        assert_eq!(p("41.5"), Some(41.5));
        assert_eq!(p("null"), None);
        assert_eq!(p("\"8\""), None);
        assert_eq!(p("-3"), None);
    }

    #[test]
    fn null_usage_and_old_payloads_have_no_usage() {
        let p = StatusInput::parse(
            br#"{"context_window":{"context_window_size":200000,"current_usage":null}}"#,
        )
        .unwrap();
        assert_eq!((p.current_usage, p.window), (None, Some(200_000)));
        let old = StatusInput::parse(br#"{"session_id":"x","transcript_path":"/t","model":{"id":"claude-sonnet-4"},"total_input_tokens":5000}"#).unwrap();
        assert_eq!(old.current_usage, None);
        let negative =
            StatusInput::parse(br#"{"context_window":{"current_usage":{"input_tokens":-3}}}"#)
                .unwrap();
        assert_eq!(negative.current_usage, None);
        assert_eq!(StatusInput::parse(b"[]"), None);
        assert_eq!(StatusInput::parse(b""), None);
    }
}
