//! Codex rollout lines as the tail port's typed records: the one place that knows where a
//! request, a tool call, its output, a plan or a file edit sits in a rollout.
//!
//! - A request is an `event_msg` `user_message` (the `response_item` user messages also hold
//!   the environment context and instructions Codex injects, which nobody typed).
//! - An answer is a `response_item` `message` of role `assistant` (its `output_text` parts).
//! - A tool call is a `response_item` `function_call` (`arguments` is a JSON string) or
//!   `custom_tool_call` (`input` is free text); its output is the `*_output` item with the same
//!   `call_id`. Shell calls (`exec_command`, `shell`, `shell_command`, `local_shell_call`) are
//!   shell commands; `update_plan` is the todo list (`plan[] {step, status}`); `apply_patch`
//!   writes the files its patch names (`*** Add File:`, `*** Update File:`, `*** Delete File:`,
//!   `*** Move to:`), one file-write record per file, all with the call's id.
//! - An output's exit code is in its header (`Process exited with code N` before `Output:`,
//!   `Exit code: N`) or in its JSON `metadata.exit_code`; a non-zero one is a failure.
//! - `session_meta.payload.git.branch` is the branch; a `compacted` line is a compaction.
//!
//! Like Claude Code's parser (`claude_code::records`) it parses only lines a record needs:
//! instructions, reasoning, counts and successful outputs (told from their raw header) are
//! never built into JSON values.

use std::collections::HashMap;

use crate::ports::{
    RecordBody, Request, RequestKind, ToolCall, ToolKind, ToolResult, TranscriptRecord,
};
use ctxmon_domain::Todo;
use serde_json::Value;

use crate::readers::claude_code::{RESULT_HEAD_CHARS, RESULT_TAIL_CHARS, head_and_tail};
use crate::readers::shell_output::output_is_read;

/// The tool names that run a shell command.
const SHELL_TOOLS: &[&str] = &["exec_command", "shell", "shell_command", "container.exec"];

/// Output texts that say the user refused the call (Codex's approval prompt).
const REJECTIONS: &[&str] = &["exec command rejected by user", "patch rejected by user"];

/// Output texts of a call that failed before it ran (no exit code to read).
const FAILED_BEFORE_RUNNING: &[&str] = &[
    "execution error",
    "apply_patch verification failed",
    "failed to parse function arguments",
    "unsupported call",
];

/// Turns rollout lines into records, in file order; remembers which call each `call_id`
/// belongs to, so an output is read only when its text matters.
#[derive(Debug, Default)]
pub struct RolloutRecords {
    /// Each call id seen: whether its successful output must be read (a `git commit`).
    calls: HashMap<String, bool>,
    /// The previous record was a compaction: Codex writes `compacted` then
    /// `context_compacted` for one compaction.
    after_compaction: bool,
    /// The working folder the newest `session_meta` or `turn_context` line named.
    cwd: Option<String>,
}

impl RolloutRecords {
    /// Whether `line` (raw bytes) can yield a record; the rest is not parsed (see
    /// [`RolloutRecords::push_unparsed`] for what is reported without parsing).
    pub fn wants(&self, line: &[u8]) -> bool {
        match payload_type(line) {
            Some(
                b"user_message" | b"function_call" | b"custom_tool_call" | b"local_shell_call",
            ) => true,
            Some(b"message") => find(head(line), br#""role":"assistant""#),
            Some(b"function_call_output" | b"custom_tool_call_output") => {
                let read = call_id(line)
                    .and_then(|id| std::str::from_utf8(id).ok())
                    .and_then(|id| self.calls.get(id))
                    .copied()
                    .unwrap_or(false);
                read || !succeeded_raw(line)
            }
            _ => {
                find(head(line), br#""type":"session_meta""#)
                    || find(head(line), br#""type":"turn_context""#)
            }
        }
    }

    /// For a line [`RolloutRecords::wants`] turned down: a successful output becomes a
    /// text-less success (so it can resolve an earlier failure of the same command), a
    /// compaction a boundary; both read from the raw bytes.
    pub fn push_unparsed(&mut self, line: &[u8], out: &mut Vec<TranscriptRecord>) {
        let body = match payload_type(line) {
            Some(b"function_call_output" | b"custom_tool_call_output") => {
                let Some(id) = call_id(line).and_then(|id| std::str::from_utf8(id).ok()) else {
                    return;
                };
                RecordBody::ToolResult(ToolResult {
                    tool_use_id: Some(id.to_string()),
                    exit_code: Some(0),
                    ..ToolResult::default()
                })
            }
            Some(b"context_compacted") if !self.after_compaction => RecordBody::CompactionBoundary,
            _ if top_type(line) == Some(b"compacted") && !self.after_compaction => {
                RecordBody::CompactionBoundary
            }
            _ => return,
        };
        self.emit(raw_timestamp(line), None, body, out);
    }

    /// The records of one parsed line, appended to `out` (nothing for a line that says
    /// nothing a record holds).
    pub fn push(&mut self, line: &Value, out: &mut Vec<TranscriptRecord>) {
        let timestamp = str_at(line, "timestamp").map(str::to_string);
        let payload = line.get("payload").unwrap_or(&Value::Null);
        let mut branch = None;
        let mut bodies = Vec::new();
        // Codex names the working folder in the session's meta line and each turn's context.
        if matches!(str_at(line, "type"), Some("session_meta" | "turn_context"))
            && let Some(cwd) = str_at(payload, "cwd")
                .map(str::trim)
                .filter(|c| !c.is_empty())
        {
            self.cwd = Some(cwd.to_string());
        }
        match (str_at(line, "type"), str_at(payload, "type")) {
            (Some("session_meta"), _) => {
                branch = payload
                    .pointer("/git/branch")
                    .and_then(Value::as_str)
                    .map(str::trim)
                    .filter(|b| !b.is_empty())
                    .map(str::to_string);
                bodies.push(RecordBody::Other);
            }
            (Some("event_msg"), Some("user_message")) => {
                if let Some(text) = str_at(payload, "message").map(str::trim)
                    && !text.is_empty()
                {
                    bodies.push(RecordBody::Request(Request {
                        kind: RequestKind::Typed,
                        text: text.to_string(),
                    }));
                }
            }
            (Some("response_item"), Some("message"))
                if str_at(payload, "role") == Some("assistant") =>
            {
                let text = content_text(payload.get("content"));
                if !text.trim().is_empty() {
                    bodies.push(RecordBody::AssistantText(text));
                }
            }
            (
                Some("response_item"),
                Some("function_call" | "custom_tool_call" | "local_shell_call"),
            ) => {
                bodies.extend(self.calls_of(payload).into_iter().map(RecordBody::ToolCall));
            }
            (Some("response_item"), Some("function_call_output" | "custom_tool_call_output")) => {
                bodies.push(RecordBody::ToolResult(result(payload)));
            }
            (Some("compacted"), _) | (Some("event_msg"), Some("context_compacted"))
                if !self.after_compaction =>
            {
                bodies.push(RecordBody::CompactionBoundary);
            }
            _ => {}
        }
        for body in bodies {
            self.emit(timestamp.clone(), branch.clone(), body, out);
        }
    }

    fn emit(
        &mut self,
        timestamp: Option<String>,
        git_branch: Option<String>,
        body: RecordBody,
        out: &mut Vec<TranscriptRecord>,
    ) {
        self.after_compaction = body == RecordBody::CompactionBoundary;
        out.push(TranscriptRecord {
            sidechain: false,
            timestamp,
            git_branch,
            cwd: self.cwd.clone(),
            body,
        });
    }

    /// The tool calls of a call item (several for a patch that touches several files).
    fn calls_of(&mut self, payload: &Value) -> Vec<ToolCall> {
        let id = str_at(payload, "call_id")
            .or_else(|| str_at(payload, "id"))
            .map(str::to_string);
        let name = str_at(payload, "name")
            .unwrap_or(if str_at(payload, "type") == Some("local_shell_call") {
                "local_shell"
            } else {
                ""
            })
            .to_string();
        // A function call's arguments are a JSON document in a string; a custom call's input
        // is the tool's own text (a patch).
        let args: Value = str_at(payload, "arguments")
            .and_then(|a| serde_json::from_str(a).ok())
            .unwrap_or(Value::Null);
        let base = ToolCall {
            id: id.clone(),
            name: name.clone(),
            ..ToolCall::default()
        };
        let calls = if name == "apply_patch" {
            let patch = str_at(payload, "input")
                .or_else(|| str_at(&args, "input"))
                .or_else(|| str_at(&args, "patch"))
                .unwrap_or_default();
            let paths = patch_paths(patch);
            if paths.is_empty() {
                vec![base]
            } else {
                let added = added_paths(patch);
                paths
                    .into_iter()
                    .map(|path| ToolCall {
                        kind: ToolKind::FileWrite,
                        creates: added.contains(&path),
                        file_path: Some(path),
                        ..base.clone()
                    })
                    .collect()
            }
        } else if name == "update_plan" {
            vec![ToolCall {
                kind: ToolKind::TodoList,
                todos: plan(&args),
                description: str_at(&args, "explanation").map(str::to_string),
                ..base
            }]
        } else if let Some(command) = shell_command(&name, payload, &args) {
            vec![ToolCall {
                kind: ToolKind::Shell,
                command: Some(command),
                ..base
            }]
        } else {
            vec![base]
        };
        if let Some(id) = id {
            let read = calls
                .iter()
                .any(|c| c.command.as_deref().is_some_and(output_is_read));
            self.calls.insert(id, read);
        }
        calls
    }
}

/// The command a shell call runs: `cmd` (exec_command) or `command` as a string, or an argv
/// (`shell`, `local_shell_call`) whose `bash -lc <script>` is shown as the script.
fn shell_command(name: &str, payload: &Value, args: &Value) -> Option<String> {
    let is_local = str_at(payload, "type") == Some("local_shell_call");
    if !is_local && !SHELL_TOOLS.contains(&name) {
        return None;
    }
    let command = if is_local {
        payload.pointer("/action/command")
    } else {
        args.get("cmd").or_else(|| args.get("command"))
    }?;
    let text = match command {
        Value::String(s) => s.clone(),
        Value::Array(argv) => {
            let words: Vec<&str> = argv.iter().filter_map(Value::as_str).collect();
            match words.as_slice() {
                [shell, flag, script]
                    if matches!(*flag, "-c" | "-lc" | "-ic")
                        && shell.rsplit('/').next().is_some_and(|s| s.ends_with("sh")) =>
                {
                    (*script).to_string()
                }
                _ => words.join(" "),
            }
        }
        _ => return None,
    };
    let text = text.trim();
    (!text.is_empty()).then(|| text.to_string())
}

/// `update_plan`'s steps as a todo list; `None` when the call has no plan.
fn plan(args: &Value) -> Option<Vec<Todo>> {
    let steps = args.get("plan")?.as_array()?;
    Some(
        steps
            .iter()
            .filter_map(|s| {
                Some(Todo {
                    content: str_at(s, "step")?.trim().to_string(),
                    status: str_at(s, "status").unwrap_or_default().to_string(),
                })
            })
            .filter(|t| !t.content.is_empty())
            .collect(),
    )
}

/// The files a patch touches, in order, each once.
pub(crate) fn patch_paths(patch: &str) -> Vec<String> {
    const MARKERS: &[&str] = &[
        "*** Add File:",
        "*** Update File:",
        "*** Delete File:",
        "*** Move to:",
    ];
    let mut out: Vec<String> = Vec::new();
    for line in patch.lines() {
        let line = line.trim_start();
        let Some(path) = MARKERS.iter().find_map(|m| line.strip_prefix(m)) else {
            continue;
        };
        let path = path.trim();
        if !path.is_empty() && !out.iter().any(|p| p == path) {
            out.push(path.to_string());
        }
    }
    out
}

/// The files a patch adds.
fn added_paths(patch: &str) -> Vec<String> {
    patch
        .lines()
        .filter_map(|l| l.trim_start().strip_prefix("*** Add File:"))
        .map(|p| p.trim().to_string())
        .filter(|p| !p.is_empty())
        .collect()
}

/// A call's output as a result.
fn result(payload: &Value) -> ToolResult {
    let tool_use_id = str_at(payload, "call_id").map(str::to_string);
    let raw = output_text(payload.get("output"));
    let (exit_code, body) = exit_code_and_body(&raw);
    let trimmed = body.trim();
    let lower = trimmed.to_ascii_lowercase();
    let rejected = REJECTIONS
        .iter()
        .any(|r| lower.starts_with(r))
        .then_some(None);
    let failed_early =
        exit_code.is_none() && FAILED_BEFORE_RUNNING.iter().any(|p| lower.starts_with(p));
    ToolResult {
        tool_use_id,
        is_error: rejected.is_none() && (exit_code.is_some_and(|c| c != 0) || failed_early),
        exit_code,
        text: head_and_tail(trimmed, RESULT_HEAD_CHARS, RESULT_TAIL_CHARS),
        rejected,
        ..ToolResult::default()
    }
}

/// An output as text: a string, or the text parts of a list of content items.
fn output_text(output: Option<&Value>) -> String {
    match output {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(items)) => content_text(Some(&Value::Array(items.clone()))),
        Some(Value::Object(o)) => o
            .get("content")
            .map(|c| output_text(Some(c)))
            .unwrap_or_default(),
        _ => String::new(),
    }
}

/// The text parts (`output_text`, `input_text`, `text`) of a content list, joined.
fn content_text(content: Option<&Value>) -> String {
    match content {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(parts)) => parts
            .iter()
            .filter_map(|p| str_at(p, "text"))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// The exit code an output reports and the output without Codex's header: the unified exec
/// header (`Chunk ID`, `Wall time`, `Process exited with code N`, `Output:`), the shell
/// header (`Exit code: N`, `Wall time`, `Output:`), or the JSON form
/// `{"output": …, "metadata": {"exit_code": N}}`.
pub(crate) fn exit_code_and_body(raw: &str) -> (Option<i64>, String) {
    let t = raw.trim_start();
    if t.starts_with('{')
        && let Ok(v) = serde_json::from_str::<Value>(t)
        && let Some(meta) = v.get("metadata")
    {
        let code = meta.get("exit_code").and_then(Value::as_i64);
        let body = str_at(&v, "output").unwrap_or_default().to_string();
        return (code, body);
    }
    let mut code = None;
    let mut offset = 0;
    for line in t.split_inclusive('\n') {
        let l = line.trim();
        if let Some(n) = l
            .strip_prefix("Process exited with code ")
            .or_else(|| l.strip_prefix("Exit code: "))
        {
            code = n.trim().parse().ok();
        }
        offset += line.len();
        if l == "Output:" {
            return (code, t.get(offset..).unwrap_or_default().to_string());
        }
        let header = [
            "Chunk ID:",
            "Wall time:",
            "Process ",
            "Exit code:",
            "Original token count:",
            "Total output lines:",
        ];
        if !header.iter().any(|h| l.starts_with(h)) {
            break;
        }
    }
    // No header: the text is the output itself.
    (code, t.to_string())
}

/// How much of a line's start holds what the raw filter reads: Codex writes
/// `{"timestamp":"…","type":"…","payload":{"type":"…","call_id":"…"` (or `"role":"…"`)
/// first, so the filter never scans a line's bulk (every line of an 8 MiB tail passes it).
const HEAD_BYTES: usize = 256;
/// How much of a line's end holds a JSON output's `metadata`, which Codex writes last.
const TAIL_BYTES: usize = 256;
/// How much of an output's text holds its header (`Chunk ID`, `Wall time`, the exit code,
/// `Original token count`, `Output:`).
const HEADER_BYTES: usize = 640;

fn head(line: &[u8]) -> &[u8] {
    line.get(..HEAD_BYTES).unwrap_or(line)
}

/// The payload's `type` from the raw line: Codex writes `"payload":{"type":"…"` with the tag
/// first.
fn payload_type(line: &[u8]) -> Option<&[u8]> {
    value_after(head(line), br#""payload":{"type":""#)
}

/// The line's own `type` (after `timestamp`, before `payload`).
fn top_type(line: &[u8]) -> Option<&[u8]> {
    let line = head(line);
    let end = memchr::memmem::find(line, br#""payload""#).unwrap_or(line.len());
    value_after(line.get(..end)?, br#""type":""#)
}

fn raw_timestamp(line: &[u8]) -> Option<String> {
    let v = value_after(head(line), br#""timestamp":""#)?;
    std::str::from_utf8(v).ok().map(str::to_string)
}

fn call_id(line: &[u8]) -> Option<&[u8]> {
    value_after(head(line), br#""call_id":""#)
}

/// The string right after the first `key` (which ends with its opening quote), up to its
/// closing quote; ids, types and timestamps hold no escapes.
fn value_after<'a>(line: &'a [u8], key: &[u8]) -> Option<&'a [u8]> {
    let at = memchr::memmem::find(line, key)? + key.len();
    let rest = line.get(at..)?;
    let end = memchr::memchr(b'"', rest)?;
    rest.get(..end)
}

fn find(line: &[u8], needle: &[u8]) -> bool {
    memchr::memmem::find(line, needle).is_some()
}

/// Whether a raw output line reports exit code 0 in its header (or its JSON metadata), so
/// it need not be parsed. The header comes before `Output:`; a command's own output that
/// happens to print the same words comes after it and does not count.
fn succeeded_raw(line: &[u8]) -> bool {
    let start = line.get(..HEADER_BYTES).unwrap_or(line);
    if let Some(output_at) = memchr::memmem::find(start, b"Output:") {
        let header = start.get(..output_at).unwrap_or_default();
        if find(header, br"Process exited with code 0\n") || find(header, br"Exit code: 0\n") {
            return true;
        }
    }
    // The JSON form, as a string in the line: its quotes are escaped once. Output text quoted
    // inside it would be escaped twice, so this key is the real one. Codex writes it last.
    let end = line
        .get(line.len().saturating_sub(TAIL_BYTES)..)
        .unwrap_or(line);
    find(end, br#"\"metadata\":{\"exit_code\":0,"#)
        || find(end, br#"\"metadata\":{\"exit_code\":0}"#)
}

fn str_at<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

#[cfg(test)]
#[path = "records_tests.rs"]
mod tests;
