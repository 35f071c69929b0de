//! A rollout's first line, `session_meta`: the session's id (the one hooks receive) and the
//! folder it ran in, which is how a project's rollouts are told from other projects'.

use serde_json::Value;

use crate::readers::json::repair;

/// What a `session_meta` line says about its session.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SessionMeta {
    /// `payload.id`: the session id hooks receive.
    pub id: Option<String>,
    /// `payload.cwd`: the folder the session ran in.
    pub cwd: Option<String>,
}

/// The session a rollout's first line describes (`line`, its bytes with or without the
/// newline); `None` when the line is not a `session_meta` line, so the file is no rollout.
pub fn session_meta(line: &[u8]) -> Option<SessionMeta> {
    let value: Value = repair::from_slice_lenient(line).ok()?;
    if value.get("type").and_then(Value::as_str) != Some("session_meta") {
        return None;
    }
    let text = |pointer: &str| {
        value
            .pointer(pointer)
            .and_then(Value::as_str)
            .map(str::to_string)
    };
    Some(SessionMeta {
        id: text("/payload/id"),
        cwd: text("/payload/cwd"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_session_meta_line_describes_a_session() {
        let line = br#"{"timestamp":"t","type":"session_meta","payload":{"id":"s-1","cwd":"/p"}}"#;
        let meta = session_meta(line).expect("a session_meta line");
        assert_eq!(meta.id.as_deref(), Some("s-1"));
        assert_eq!(meta.cwd.as_deref(), Some("/p"));
        assert_eq!(session_meta(br#"{"type":"turn_context"}"#), None);
        assert_eq!(session_meta(b"not json"), None);
        assert_eq!(session_meta(b"\xff\xfe"), None);
        let odd = session_meta(br#"{"type":"session_meta","payload":{"id":7}}"#);
        assert_eq!(odd, Some(SessionMeta::default()));
    }
}
