//! A chat file's messages as the tail port's typed records: the one place that knows where a
//! request, an answer, a tool call and its result sit in a Gemini CLI chat.
//!
//! - A request is a `user` message (its `content` parts' text); a slash command is told from
//!   its first word. The first message of a list a compression wrote is the summary turn.
//! - An answer is a `gemini` message's `content`; its `toolCalls[]` are the calls, each with
//!   `args`, `status` (`success`, `error`, `cancelled`: the user declined it) and `result`
//!   (`[{"functionResponse": {"response": {"output"|"error": …}}}]`).
//! - `write_file` and `replace` write `args.file_path`; `read_file` reads it;
//!   `run_shell_command` runs `args.command`, its output ending in `Exit Code: N`;
//!   `write_todos` keeps the todo list (`todos[] {description, status}`).
//! - `info`, `error` and `warning` messages are the CLI's own notes, kept for their time.
//!
//! The messages are those of the replayed list (upserts, `$rewindTo`, `$set.messages`), so a
//! rewound turn is not handed back.

use ctxmon_domain::Todo;
use serde_json::Value;

use crate::readers::shell_output::output_is_read;

use crate::ports::{
    RecordBody, Request, RequestKind, ToolCall, ToolKind, ToolResult, TranscriptRecord,
};

/// Characters a failed result keeps of its start and of its end.
const RESULT_HEAD_CHARS: usize = 2_000;
const RESULT_TAIL_CHARS: usize = 2_000;

/// Slash commands that steer the CLI itself rather than ask for work.
const CONTROL_COMMANDS: &[&str] = &[
    "about",
    "auth",
    "bug",
    "chat",
    "clear",
    "compress",
    "copy",
    "corgi",
    "directory",
    "docs",
    "editor",
    "extensions",
    "help",
    "hooks",
    "ide",
    "mcp",
    "memory",
    "model",
    "permissions",
    "privacy",
    "quit",
    "exit",
    "restore",
    "rewind",
    "resume",
    "settings",
    "stats",
    "terminal-setup",
    "theme",
    "tools",
    "vim",
];

/// One replayed message in full, with whether it opens a list a compression wrote.
#[derive(Debug, Clone, PartialEq)]
pub struct FullMessage {
    /// The message as the file holds it.
    pub value: Value,
    /// It is the first message of a `$set.messages` that shrank the list.
    pub summary_turn: bool,
}

/// The records of `messages`, in order.
pub fn records_of(messages: &[FullMessage]) -> Vec<TranscriptRecord> {
    let mut out = Vec::new();
    for m in messages {
        let timestamp = m
            .value
            .get("timestamp")
            .and_then(Value::as_str)
            .map(str::to_string);
        let mut push = |body: RecordBody| {
            out.push(TranscriptRecord {
                timestamp: timestamp.clone(),
                body,
                ..TranscriptRecord::default()
            });
        };
        if m.summary_turn {
            push(RecordBody::CompactionBoundary);
        }
        match m.value.get("type").and_then(Value::as_str) {
            Some("user") => {
                let text = content_text(m.value.get("content"));
                if text.is_empty() {
                    push(RecordBody::Other);
                    continue;
                }
                let kind = if m.summary_turn {
                    RequestKind::CompactionSummary
                } else {
                    request_kind(&text)
                };
                push(RecordBody::Request(Request { kind, text }));
            }
            Some("gemini") => {
                let text = content_text(m.value.get("content"));
                if !text.is_empty() {
                    push(RecordBody::AssistantText(text));
                }
                let calls = m.value.get("toolCalls").and_then(Value::as_array);
                for call in calls.into_iter().flatten() {
                    let (call, result) = tool_call(call);
                    push(RecordBody::ToolCall(call));
                    if let Some(result) = result {
                        push(RecordBody::ToolResult(result));
                    }
                }
            }
            _ => push(RecordBody::Other),
        }
    }
    out
}

/// A `content` as text: a string, or parts whose `text` are joined.
fn content_text(content: Option<&Value>) -> String {
    match content {
        Some(Value::String(s)) => s.trim().to_string(),
        Some(Value::Array(parts)) => parts
            .iter()
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n")
            .trim()
            .to_string(),
        _ => String::new(),
    }
}

fn request_kind(text: &str) -> RequestKind {
    let Some(command) = text.strip_prefix('/') else {
        return RequestKind::Typed;
    };
    let word = command.split_whitespace().next().unwrap_or_default();
    if CONTROL_COMMANDS.contains(&word) {
        RequestKind::ControlCommand
    } else {
        RequestKind::SlashCommand
    }
}

/// A `toolCalls[]` entry as a call, and its result when it has run.
fn tool_call(call: &Value) -> (ToolCall, Option<ToolResult>) {
    let text = |v: Option<&Value>| v.and_then(Value::as_str).map(str::to_string);
    let id = text(call.get("id"));
    let name = text(call.get("name")).unwrap_or_default();
    let args = call.get("args");
    let arg = |key: &str| text(args.and_then(|a| a.get(key)));
    let mut out = ToolCall {
        id: id.clone(),
        name: name.clone(),
        description: arg("description"),
        ..ToolCall::default()
    };
    match name.as_str() {
        "write_file" | "replace" => {
            out.kind = ToolKind::FileWrite;
            out.file_path = arg("file_path");
        }
        "read_file" => out.file_path = arg("file_path"),
        "run_shell_command" => {
            out.kind = ToolKind::Shell;
            out.command = arg("command");
        }
        "write_todos" => {
            out.kind = ToolKind::TodoList;
            out.todos = Some(todos(args.and_then(|a| a.get("todos"))));
        }
        _ => {}
    }
    let status = call
        .get("status")
        .and_then(Value::as_str)
        .unwrap_or_default();
    if !matches!(status, "success" | "error" | "cancelled") {
        // Still running, or a status this reader does not know: no result yet.
        return (out, None);
    }
    let (output, error) = response(call.get("result"));
    let exit_code = output.as_deref().and_then(exit_code);
    let failed = status == "error" || error.is_some() || exit_code.is_some_and(|c| c != 0);
    let rejected = (status == "cancelled").then(|| {
        error
            .as_deref()
            .and_then(|e| e.split("Reason:").nth(1))
            .map(|r| r.trim().trim_end_matches('.').to_string())
            .filter(|r| !r.is_empty() && !r.eq_ignore_ascii_case("user denied execution"))
    });
    let read = out.command.as_deref().is_some_and(output_is_read);
    let body = if failed || rejected.is_some() || read {
        let full = error.or(output).unwrap_or_default();
        head_and_tail(full.trim(), RESULT_HEAD_CHARS, RESULT_TAIL_CHARS)
    } else {
        String::new()
    };
    // `read_file` reads `limit` lines from the 0-based line `offset` when it is given them.
    let number = |key: &str| args.and_then(|a| a.get(key)).and_then(Value::as_u64);
    let lines = match (name.as_str(), number("offset"), number("limit")) {
        ("read_file", Some(offset), Some(limit)) if limit > 0 && !failed => {
            Some((offset.saturating_add(1), offset.saturating_add(limit)))
        }
        _ => None,
    };
    let result = ToolResult {
        tool_use_id: id,
        lines,
        is_error: failed && rejected.is_none(),
        exit_code,
        text: body,
        rejected,
        created_file: false,
        ..ToolResult::default()
    };
    (out, Some(result))
}

/// The `output` and the `error` of a call's `functionResponse`s.
fn response(result: Option<&Value>) -> (Option<String>, Option<String>) {
    let mut output = None;
    let mut error = None;
    for part in result.and_then(Value::as_array).into_iter().flatten() {
        let Some(response) = part.get("functionResponse").and_then(|f| f.get("response")) else {
            continue;
        };
        if let Some(o) = response.get("output").and_then(Value::as_str) {
            output = Some(o.to_string());
        }
        if let Some(e) = response.get("error").and_then(Value::as_str) {
            error = Some(e.to_string());
        }
    }
    (output, error)
}

/// `Exit Code: N` on a line of a shell call's output.
fn exit_code(output: &str) -> Option<i64> {
    output
        .lines()
        .rev()
        .find_map(|l| l.trim().strip_prefix("Exit Code:"))
        .and_then(|n| n.trim().parse().ok())
}

fn todos(list: Option<&Value>) -> Vec<Todo> {
    list.and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|t| {
            let content = t
                .get("description")
                .or_else(|| t.get("content"))
                .and_then(Value::as_str)?;
            Some(Todo {
                content: content.to_string(),
                status: t
                    .get("status")
                    .and_then(Value::as_str)
                    .unwrap_or("pending")
                    .to_string(),
            })
        })
        .collect()
}

/// `t` whole when it has at most `head + tail` characters, else its first `head` and last
/// `tail` characters around a "…" line.
fn head_and_tail(t: &str, head: usize, tail: usize) -> String {
    let count = t.chars().count();
    if count <= head + tail {
        return t.to_string();
    }
    let start: String = t.chars().take(head).collect();
    let end: String = t.chars().skip(count - tail).collect();
    format!("{start}\n…\n{end}")
}

/// Replays JSONL chat lines (oldest first) into the list of full messages.
#[derive(Debug, Default)]
pub struct Replay {
    list: Vec<FullMessage>,
}

impl Replay {
    /// Applies one line.
    pub fn line(&mut self, bytes: &[u8]) {
        let Ok(value) = serde_json::from_slice::<Value>(bytes) else {
            return;
        };
        if let Some(target) = value.get("$rewindTo") {
            let at = target
                .as_str()
                .and_then(|id| self.position(id))
                .unwrap_or(0);
            self.list.truncate(at);
            return;
        }
        if let Some(set) = value.get("$set") {
            if let Some(Value::Array(items)) = set.get("messages") {
                let shrank = items.len() < self.list.len();
                self.list = items
                    .iter()
                    .enumerate()
                    .map(|(k, v)| FullMessage {
                        value: v.clone(),
                        summary_turn: shrank && k == 0,
                    })
                    .collect();
            }
            return;
        }
        let Some(id) = value.get("id").and_then(Value::as_str).map(str::to_string) else {
            return;
        };
        if value.get("type").and_then(Value::as_str).is_none() {
            return;
        }
        match self.position(&id) {
            Some(at) => {
                if let Some(slot) = self.list.get_mut(at) {
                    slot.value = value;
                }
            }
            None => self.list.push(FullMessage {
                value,
                summary_turn: false,
            }),
        }
    }

    /// Replaces the list with a legacy document's messages.
    pub fn document(&mut self, doc: &Value) {
        self.list = doc
            .get("messages")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .map(|v| FullMessage {
                value: v.clone(),
                summary_turn: false,
            })
            .collect();
    }

    fn position(&self, id: &str) -> Option<usize> {
        self.list
            .iter()
            .position(|m| m.value.get("id").and_then(Value::as_str) == Some(id))
    }

    /// The replayed messages.
    pub fn messages(&self) -> &[FullMessage] {
        &self.list
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `read_file` with `offset` (0-based) and `limit` read those lines; without them, or
    /// failed, it says nothing of lines.
    #[test]
    fn a_read_file_with_offset_and_limit_gives_its_lines() {
        let read = |args: Value, status: &str| {
            let call = serde_json::json!({"id": "r1", "name": "read_file", "args": args,
                "status": status, "result": [{"functionResponse": {"id": "r1",
                "name": "read_file", "response": {"output": "text"}}}]});
            tool_call(&call).1.and_then(|r| r.lines)
        };
        let path = "src/big.rs";
        let ranged = serde_json::json!({"file_path": path, "offset": 99, "limit": 50});
        assert_eq!(read(ranged.clone(), "success"), Some((100, 149)));
        assert_eq!(read(ranged, "error"), None);
        assert_eq!(
            read(serde_json::json!({"file_path": path}), "success"),
            None
        );
        let zero = serde_json::json!({"file_path": path, "offset": 0, "limit": 0});
        assert_eq!(read(zero, "success"), None);
    }

    /// A successful shell call keeps its output only when it can say what the exit code does
    /// not: an HTTP request's answer, a commit's new id.
    #[test]
    fn a_successful_requests_answer_is_kept_and_other_output_is_not() {
        let text = |command: &str| {
            let call = serde_json::json!({"id": "s1", "name": "run_shell_command",
                "args": {"command": command}, "status": "success", "result": [{"functionResponse":
                {"id": "s1", "name": "run_shell_command", "response": {"output":
                "Output: {\"status\":\"error\"}\nExit Code: 0"}}}]});
            tool_call(&call).1.map(|r| r.text).unwrap_or_default()
        };
        assert!(text("curl -s http://localhost:8888/notify").contains(r#""status":"error""#));
        assert_eq!(text("cat answer.json"), "");
    }
}
