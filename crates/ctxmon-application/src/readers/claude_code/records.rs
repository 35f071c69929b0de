//! Claude Code's JSONL lines as the tail port's typed records: the one place that knows where
//! a prompt, a tool call, a tool result or a todo list sits in a line (`message.content`
//! blocks, `isSidechain`, `isMeta`, `toolUseResult`, `gitBranch`…).
//!
//! Lenient like the rest of the reader: a field of the wrong type is a field not there, never
//! a lost line. Texts are reported whole (tool results keep their start and end); the use
//! cases cap what they keep.

use std::collections::HashMap;
use std::sync::LazyLock;

use crate::ports::{
    RecordBody, RequestKind, TaskItem, ToolCall, ToolKind, ToolResult, TranscriptRecord,
};
use ctxmon_domain::Todo;
use memchr::memmem::Finder;
use serde_json::Value;

use super::numbered::{numbered_lines, numbered_range};
use super::prompt::classify_request;
use crate::readers::shell_output::output_is_read;

/// A tool result longer than head + tail characters keeps its first [`RESULT_HEAD_CHARS`] and
/// its last [`RESULT_TAIL_CHARS`] around a "…" line: what failed is said at the end of a test
/// run as often as at its start.
pub const RESULT_HEAD_CHARS: usize = 2_000;
/// The characters a long tool result keeps from its end (see [`RESULT_HEAD_CHARS`]).
pub const RESULT_TAIL_CHARS: usize = 6_000;

const REJECTED: &str = "The user doesn't want to proceed with this tool use.";
const REJECTION_REASONS: &[&str] = &[
    "The user provided the following reason for the rejection:",
    "the user said:",
];

/// Turns lines into records, in file order. It remembers which tool each call id belongs to,
/// so that a result can be read for what matters (a task id, a listed task) and the bulky
/// successful results nobody needs (file reads, searches) are not parsed at all.
#[derive(Debug, Default)]
pub struct RecordParser {
    /// Each call id seen: its kind, whether its successful result must be read, and whether
    /// the result numbers the file's lines (a read, an edit's snippet).
    calls: HashMap<String, (ToolKind, bool, bool)>,
}

impl RecordParser {
    /// Whether `line` (raw bytes) can yield a record a use case needs; the rest is not parsed.
    ///
    /// - A subagent's line counts only as a file write (its prompts and todos are its own).
    /// - A successful tool result counts only when its text carries a record's data: a task
    ///   created or listed, a `git commit`'s new commit. Other successes (file contents, search
    ///   and command output, a subagent's report) are most of a transcript's bytes; they are
    ///   reported without their text by [`RecordParser::push_unparsed`].
    ///
    /// Claude Code writes compact JSON, so these tokens appear verbatim; inside a string the
    /// quotes would be escaped (`\"`), so a prompt that merely mentions them is never dropped.
    pub fn wants(&self, line: &[u8]) -> bool {
        matches!(self.look(line, false), Some(Look::Wanted))
    }

    /// [`RecordParser::wants`], and when the line is not wanted what
    /// [`RecordParser::push_unparsed`] would add, appended to `out`: one look at the line's
    /// tokens for both (the tail reader asks both of most of a tail's bytes).
    pub fn sort(&self, line: &[u8], out: &mut Vec<TranscriptRecord>) -> bool {
        let Some(look) = self.look(line, false) else {
            return true;
        };
        self.sorted(look, line, out)
    }

    /// [`RecordParser::sort`] for a reader that starts within a window, which cannot read a
    /// result of the main session whose call it has not seen until it knows the calls before:
    /// `None` for such a line, found in the same one look at the line's tokens.
    pub fn sort_seen(&self, line: &[u8], out: &mut Vec<TranscriptRecord>) -> Option<bool> {
        let look = self.look(line, true)?;
        Some(self.sorted(look, line, out))
    }

    fn sorted(&self, look: Look<'_>, line: &[u8], out: &mut Vec<TranscriptRecord>) -> bool {
        match look {
            Look::Wanted => true,
            Look::Unwanted { results } => {
                self.push_known_results(results, line, out);
                false
            }
        }
    }

    /// What the raw tokens of a line say, each searched for once. With `seen_only`, `None`
    /// for a main-session result whose call this parser has not seen; without, never `None`.
    fn look<'l>(&self, line: &'l [u8], seen_only: bool) -> Option<Look<'l>> {
        let n = needles();
        if n.sidechain.find(line).is_some() {
            let write = n.tool_use.find(line).is_some()
                && n.write_names.iter().any(|name| name.find(line).is_some());
            // A subagent's results are its own: none is reported unparsed.
            return Some(if write {
                Look::Wanted
            } else {
                Look::Unwanted {
                    results: Vec::new(),
                }
            });
        }
        if n.tool_result.find(line).is_none() {
            return Some(Look::Wanted);
        }
        // The ids are found only when needed: an error result is parsed whatever its call.
        let ids = || result_ids(line).collect::<Vec<&[u8]>>();
        let results = if seen_only {
            let results = ids();
            if results
                .iter()
                .any(|id| std::str::from_utf8(id).is_ok_and(|id| !self.calls.contains_key(id)))
            {
                return None;
            }
            Some(results)
        } else {
            None
        };
        if n.is_error.find(line).is_some() {
            return Some(Look::Wanted);
        }
        let results = results.unwrap_or_else(ids);
        let read = results.iter().any(|id| {
            std::str::from_utf8(id)
                .ok()
                .and_then(|id| self.calls.get(id))
                .is_some_and(|(_, read, _)| *read)
        });
        Some(if read {
            Look::Wanted
        } else {
            Look::Unwanted { results }
        })
    }

    /// Takes in the calls `later` saw, read after this parser's.
    pub fn extend(&mut self, later: RecordParser) {
        self.calls.extend(later.calls);
    }

    /// One text-less result record for each of `ids` that is a call seen earlier.
    fn push_known_results<'l>(
        &self,
        ids: impl IntoIterator<Item = &'l [u8]>,
        line: &[u8],
        out: &mut Vec<TranscriptRecord>,
    ) {
        let ids: Vec<&[u8]> = ids.into_iter().collect();
        let alone = ids.len() == 1;
        for id in ids {
            let Ok(id) = std::str::from_utf8(id) else {
                continue;
            };
            if let Some(&(_, _, numbered)) = self.calls.get(id) {
                // The lines a read or an edit showed, from the raw bytes: only a line with
                // one result says whose they are.
                let lines = (numbered && alone).then(|| numbered_range(line)).flatten();
                out.push(TranscriptRecord {
                    body: RecordBody::ToolResult(ToolResult {
                        tool_use_id: Some(id.to_string()),
                        lines,
                        ..ToolResult::default()
                    }),
                    ..TranscriptRecord::default()
                });
            }
        }
    }

    /// For a line [`RecordParser::wants`] turned down: when it holds successful results of
    /// calls seen earlier (a file write, a read), one text-less result record each, read from
    /// the raw bytes without parsing, so that a later success can resolve an earlier failure.
    pub fn push_unparsed(&self, line: &[u8], out: &mut Vec<TranscriptRecord>) {
        let n = needles();
        if n.tool_result.find(line).is_none() || n.sidechain.find(line).is_some() {
            return;
        }
        self.push_known_results(result_ids(line), line, out);
    }

    /// The records of one parsed line, appended to `out` (at least one: a line that says
    /// nothing else is [`RecordBody::Other`], for its timestamp and branch).
    pub fn push(&mut self, line: &Value, out: &mut Vec<TranscriptRecord>) {
        let sidechain = flag(line, "isSidechain");
        let timestamp = str_at(line, "timestamp").map(str::to_string);
        let git_branch = str_at(line, "gitBranch")
            .map(str::trim)
            .filter(|b| !b.is_empty())
            .map(str::to_string);
        let cwd = str_at(line, "cwd")
            .map(str::trim)
            .filter(|c| !c.is_empty())
            .map(str::to_string);
        let mut bodies = Vec::new();
        let content = line.get("message").and_then(|m| m.get("content"));
        match str_at(line, "type") {
            Some("user") => {
                if let Some(mut request) = content.and_then(classify_request) {
                    if flag(line, "isCompactSummary") {
                        request.kind = RequestKind::CompactionSummary;
                    } else if flag(line, "isMeta") {
                        request.kind = RequestKind::Meta;
                    }
                    bodies.push(RecordBody::Request(request));
                }
                let results: Vec<&Value> = blocks(content)
                    .iter()
                    .filter(|b| str_at(b, "type") == Some("tool_result"))
                    .collect();
                // `toolUseResult` describes the line's one result; with several it is ambiguous.
                let extra = (results.len() == 1)
                    .then(|| line.get("toolUseResult"))
                    .flatten();
                for block in results {
                    bodies.push(RecordBody::ToolResult(self.result(block, extra)));
                }
            }
            Some("assistant") if !flag(line, "isApiErrorMessage") => {
                if let Some(Value::String(s)) = content
                    && !s.trim().is_empty()
                {
                    bodies.push(RecordBody::AssistantText(s.clone()));
                }
                for block in blocks(content) {
                    match str_at(block, "type") {
                        Some("text") => {
                            if let Some(t) = str_at(block, "text")
                                && !t.trim().is_empty()
                            {
                                bodies.push(RecordBody::AssistantText(t.to_string()));
                            }
                        }
                        Some("tool_use") => bodies.push(RecordBody::ToolCall(self.call(block))),
                        _ => {}
                    }
                }
            }
            Some("system") if str_at(line, "subtype") == Some("compact_boundary") => {
                bodies.push(RecordBody::CompactionBoundary);
            }
            _ => {}
        }
        if bodies.is_empty() {
            bodies.push(RecordBody::Other);
        }
        out.extend(bodies.into_iter().map(|body| TranscriptRecord {
            sidechain,
            timestamp: timestamp.clone(),
            git_branch: git_branch.clone(),
            cwd: cwd.clone(),
            body,
        }));
    }

    fn call(&mut self, block: &Value) -> ToolCall {
        let input = block.get("input").unwrap_or(&Value::Null);
        let name = str_at(block, "name").unwrap_or_default().to_string();
        let kind = tool_kind(&name);
        let id = str_at(block, "id").map(str::to_string);
        let command = str_at(input, "command");
        if let Some(id) = &id {
            let read = match kind {
                ToolKind::TaskCreate | ToolKind::TaskList => true,
                ToolKind::Shell => command.is_some_and(output_is_read),
                // Its result says whether the file was created or updated.
                ToolKind::FileWrite => name == "Write",
                _ => false,
            };
            let numbered = matches!(name.as_str(), "Read" | "Edit" | "MultiEdit" | "Write");
            self.calls.insert(id.clone(), (kind, read, numbered));
        }
        let file_path = if name == "NotebookEdit" {
            str_at(input, "notebook_path").or_else(|| str_at(input, "file_path"))
        } else {
            str_at(input, "file_path")
        };
        let task = match kind {
            ToolKind::TaskCreate | ToolKind::TaskUpdate => Some(TaskItem {
                id: scalar_at(input, "taskId"),
                subject: str_at(input, "subject").map(str::to_string),
                status: str_at(input, "status").map(str::to_string),
            }),
            _ => None,
        };
        ToolCall {
            id,
            kind,
            file_path: file_path.map(str::to_string),
            command: command.map(str::to_string),
            description: str_at(input, "description").map(str::to_string),
            todos: (kind == ToolKind::TodoList)
                .then(|| todo_list(input))
                .flatten(),
            task,
            name,
            creates: false,
        }
    }

    fn result(&self, block: &Value, extra: Option<&Value>) -> ToolResult {
        let tool_use_id = str_at(block, "tool_use_id").map(str::to_string);
        let (kind, read, numbered) = tool_use_id
            .as_deref()
            .and_then(|id| self.calls.get(id))
            .copied()
            .unwrap_or_default();
        let is_error = block.get("is_error").and_then(Value::as_bool) == Some(true);
        // Only the numbers at the two ends are read: the file's text is not copied.
        let lines = (numbered && !is_error)
            .then(|| {
                block
                    .get("content")
                    .and_then(first_text)
                    .and_then(numbered_lines)
            })
            .flatten();
        let text = if is_error || read {
            block.get("content").map(result_text).unwrap_or_default()
        } else {
            String::new()
        };
        let exit_code = exit_code(&text).or_else(|| {
            extra
                .and_then(|x| x.get("exitCode"))
                .and_then(Value::as_i64)
        });
        let rejected = text.starts_with(REJECTED).then(|| {
            REJECTION_REASONS.iter().find_map(|marker| {
                let at = text.find(marker)? + marker.len();
                let reason = text.get(at..)?.trim();
                (!reason.is_empty()).then(|| reason.to_string())
            })
        });
        let created_task = (kind == ToolKind::TaskCreate && !is_error)
            .then(|| {
                extra
                    .and_then(|x| x.get("task"))
                    .and_then(|t| scalar_at(t, "id"))
                    .or_else(|| created_task_id(&text))
            })
            .flatten();
        // The structured form (`toolUseResult.tasks`) when the line has it, else the text's
        // "#1 [status] subject" lines; a list that says nothing we can read is no list.
        let task_list = (kind == ToolKind::TaskList && !is_error)
            .then(|| {
                let structured = extra
                    .and_then(|x| x.get("tasks"))
                    .and_then(Value::as_array)
                    .map(|items| {
                        items
                            .iter()
                            .map(|t| TaskItem {
                                id: scalar_at(t, "id"),
                                subject: str_at(t, "subject").map(str::to_string),
                                status: str_at(t, "status").map(str::to_string),
                            })
                            .collect::<Vec<_>>()
                    });
                let list = structured.unwrap_or_else(|| task_list(&text));
                let says_none = text.trim_start().starts_with("No tasks");
                (!list.is_empty() || says_none).then_some(list)
            })
            .flatten();
        let created_file = kind == ToolKind::FileWrite
            && !is_error
            && (extra.and_then(|x| x.get("type")).and_then(Value::as_str) == Some("create")
                || text.trim_start().starts_with("File created successfully"));
        ToolResult {
            tool_use_id,
            is_error,
            exit_code,
            text,
            rejected,
            created_task,
            task_list,
            created_file,
            lines,
        }
    }
}

/// What a Claude Code tool is for, by its name: the one table of Claude Code's tool names.
pub fn tool_kind(name: &str) -> ToolKind {
    match name {
        "Write" | "Edit" | "MultiEdit" | "NotebookEdit" => ToolKind::FileWrite,
        "Bash" => ToolKind::Shell,
        "TodoWrite" => ToolKind::TodoList,
        "TaskCreate" => ToolKind::TaskCreate,
        "TaskUpdate" => ToolKind::TaskUpdate,
        "TaskList" => ToolKind::TaskList,
        "Task" | "Agent" => ToolKind::Subagent,
        _ => ToolKind::Other,
    }
}

/// Parses lines already read as JSON into records, oldest first (tests and tools that hold
/// `Value`s; the tail reader feeds raw lines through [`RecordParser::wants`] first).
pub fn records_from_values(lines: &[Value]) -> Vec<TranscriptRecord> {
    let mut parser = RecordParser::default();
    let mut out = Vec::new();
    for line in lines {
        parser.push(line, &mut out);
    }
    out
}

/// What [`RecordParser::look`] found.
enum Look<'l> {
    /// Parse the line.
    Wanted,
    /// Leave it unparsed; these are its results' call ids (none for a subagent's line).
    Unwanted { results: Vec<&'l [u8]> },
}

/// The tokens [`RecordParser::wants`] looks for in raw lines, each searcher built once:
/// `memmem::find` builds one per call, and PreCompact asks several questions of every line of
/// an 8 MiB tail (building them was a tenth of its time).
struct Needles {
    sidechain: Finder<'static>,
    tool_use: Finder<'static>,
    write_names: [Finder<'static>; 4],
    tool_result: Finder<'static>,
    is_error: Finder<'static>,
    result_id: Finder<'static>,
}

/// The token that starts a raw line's `tool_use_id` value.
const RESULT_ID_KEY: &[u8] = br#""tool_use_id":""#;

fn needles() -> &'static Needles {
    static NEEDLES: LazyLock<Needles> = LazyLock::new(|| Needles {
        sidechain: Finder::new(br#""isSidechain":true"#),
        tool_use: Finder::new(br#""type":"tool_use""#),
        write_names: [
            Finder::new(br#""name":"Write""#),
            Finder::new(br#""name":"Edit""#),
            Finder::new(br#""name":"MultiEdit""#),
            Finder::new(br#""name":"NotebookEdit""#),
        ],
        tool_result: Finder::new(br#""type":"tool_result""#),
        is_error: Finder::new(br#""is_error":true"#),
        result_id: Finder::new(RESULT_ID_KEY),
    });
    &NEEDLES
}

/// Whether a raw line is a subagent's (`"isSidechain":true`, written compact by Claude Code).
pub(crate) fn is_sidechain_line(line: &[u8]) -> bool {
    needles().sidechain.find(line).is_some()
}

/// The `tool_use_id`s a raw line mentions.
fn result_ids(line: &[u8]) -> impl Iterator<Item = &[u8]> {
    needles().result_id.find_iter(line).filter_map(move |at| {
        let rest = line.get(at + RESULT_ID_KEY.len()..)?;
        let end = memchr::memchr(b'"', rest)?;
        rest.get(..end)
    })
}

fn flag(v: &Value, key: &str) -> bool {
    v.get(key).and_then(Value::as_bool) == Some(true)
}

fn str_at<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

/// A string or a number as text (task ids are strings, but a number is no reason to lose one).
fn scalar_at(v: &Value, key: &str) -> Option<String> {
    match v.get(key)? {
        Value::String(s) if !s.trim().is_empty() => Some(s.trim().to_string()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

fn blocks(content: Option<&Value>) -> &[Value] {
    match content {
        Some(Value::Array(blocks)) => blocks,
        _ => &[],
    }
}

/// TodoWrite's `todos[] {content, status}`; `None` when the input has no list (a malformed
/// call changes nothing). Items without content are skipped; a missing status stays empty
/// rather than being guessed.
fn todo_list(input: &Value) -> Option<Vec<Todo>> {
    let items = input.get("todos")?.as_array()?;
    Some(
        items
            .iter()
            .filter_map(|t| {
                Some(Todo {
                    content: str_at(t, "content")?.to_string(),
                    status: str_at(t, "status").unwrap_or_default().to_string(),
                })
            })
            .collect(),
    )
}

/// A result's text without copying it: the string, or its first text block.
fn first_text(content: &Value) -> Option<&str> {
    match content {
        Value::String(s) => Some(s),
        Value::Array(parts) => parts.iter().find_map(|p| str_at(p, "text")),
        _ => None,
    }
}

/// A tool result's text: a string, or the text blocks of a list, joined; trimmed, without
/// Claude Code's `<tool_use_error>` wrapper, its middle left out when long.
fn result_text(content: &Value) -> String {
    let text = match content {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts
            .iter()
            .filter_map(|p| str_at(p, "text"))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => return String::new(),
    };
    let t = text.trim();
    let t = t.strip_prefix("<tool_use_error>").map_or(t, |inner| {
        inner.strip_suffix("</tool_use_error>").unwrap_or(inner)
    });
    head_and_tail(t.trim(), RESULT_HEAD_CHARS, RESULT_TAIL_CHARS)
}

/// `t` whole when it has at most `head + tail` characters, else its first `head` and last
/// `tail` characters around a "…" line.
pub(crate) fn head_and_tail(t: &str, head: usize, tail: usize) -> String {
    let count = t.chars().count();
    if count <= head + tail {
        return t.to_string();
    }
    let start: String = t.chars().take(head).collect();
    let end: String = t.chars().skip(count - tail).collect();
    format!("{start}\n…\n{end}")
}

/// "Exit code 2" on a failed shell result's first line (Claude Code 2.x).
fn exit_code(text: &str) -> Option<i64> {
    let first = text.lines().next()?.trim();
    first.strip_prefix("Exit code ")?.trim().parse().ok()
}

/// "Task #3 created successfully: …" → "3".
fn created_task_id(text: &str) -> Option<String> {
    let rest = text.trim_start().strip_prefix("Task #")?;
    let id: String = rest.chars().take_while(|c| !c.is_whitespace()).collect();
    (!id.is_empty()).then_some(id)
}

/// TaskList's lines, "#1 [in_progress] Subject …"; other lines are skipped.
fn task_list(text: &str) -> Vec<TaskItem> {
    text.lines()
        .filter_map(|line| {
            let rest = line.trim().strip_prefix('#')?;
            let (id, rest) = rest.split_once(char::is_whitespace)?;
            let rest = rest.trim_start().strip_prefix('[')?;
            let (status, subject) = rest.split_once(']')?;
            Some(TaskItem {
                id: Some(id.trim_end_matches(['.', ':']).to_string()),
                subject: Some(subject.trim().to_string()).filter(|s| !s.is_empty()),
                status: Some(status.trim().to_string()),
            })
        })
        .collect()
}

#[cfg(test)]
#[path = "records_tests.rs"]
mod tests;
