//! State derived from the transcript's tail when the project has no resumption source file
//! (most users): the last requests, the newest todo list, the files touched and the last thing
//! the assistant said. Also what the resume-log generator wants besides: commands run and
//! errors seen.
//!
//! Only main-chain lines count for the state: a subagent's (`isSidechain: true`) todos are its
//! own business, and its prompts were written by the main agent, not the user. The files it
//! wrote are real changes, though: the resume log lists them apart
//! ([`files_written_by_subagents`]). Every field is optional; a line or block of an unexpected
//! shape is skipped.

use std::collections::VecDeque;
use std::ops::ControlFlow;

use ctxmon_domain::resume_log::cut_at_boundary;
use ctxmon_domain::{ResumptionOrigin, ResumptionState, Timestamp, Todo};
use serde_json::Value;

use super::prompt::{prompt_text, request_text};
use super::text::{capped, dedup_keep_last, path_text};
use super::{
    LAST_USER_REQUESTS, MAX_ERROR_CHARS, MAX_LIST_ITEMS, MAX_MISSION_CHARS, MAX_TEXT_CHARS,
};

/// Derives a state with origin `Transcript` from parsed transcript lines, oldest first.
///
/// - `last_user_requests`: the newest [`LAST_USER_REQUESTS`] typed requests, newest last (see
///   `prompt` for what is not one: `isMeta` and `isCompactSummary` lines, tool results, command
///   output, control commands such as `/exit`).
/// - `todos`: the input of the newest `TodoWrite` call, even when that list is empty (the agent
///   cleared it).
/// - `files_touched`: `file_path` of `Write`, `Edit` and `MultiEdit`, and `notebook_path` (or
///   `file_path`) of `NotebookEdit`; each once, at its last use, newest last.
/// - `last_assistant_text`: the newest non-empty text block of a real assistant line (API
///   error placeholders are not what the assistant said).
pub fn derive_from_tail(lines: &[Value]) -> ResumptionState {
    let mut requests: VecDeque<String> = VecDeque::with_capacity(LAST_USER_REQUESTS + 1);
    let mut todos: Option<Vec<Todo>> = None;
    let mut touched: Vec<String> = Vec::new();
    let mut last_text: Option<&str> = None;

    for line in main_chain(lines) {
        match line.get("type").and_then(Value::as_str) {
            Some("user") if is_typed_by_user(line) => {
                if let Some(text) = message_content(line).and_then(prompt_text) {
                    requests.push_back(text);
                    if requests.len() > LAST_USER_REQUESTS {
                        requests.pop_front();
                    }
                }
            }
            Some("assistant") if !flag(line, "isApiErrorMessage") => {
                if let Some(Value::String(s)) = message_content(line)
                    && !s.trim().is_empty()
                {
                    last_text = Some(s);
                }
                for block in blocks(line) {
                    match block.get("type").and_then(Value::as_str) {
                        Some("text") => {
                            if let Some(t) = block.get("text").and_then(Value::as_str)
                                && !t.trim().is_empty()
                            {
                                last_text = Some(t);
                            }
                        }
                        Some("tool_use") => {
                            let input = block.get("input").unwrap_or(&Value::Null);
                            match block.get("name").and_then(Value::as_str) {
                                Some("TodoWrite") => {
                                    if let Some(list) = todo_list(input) {
                                        todos = Some(list);
                                    }
                                }
                                Some(name) => touched.extend(touched_path(name, input)),
                                None => {}
                            }
                        }
                        _ => {}
                    }
                }
            }
            _ => {}
        }
    }

    ResumptionState {
        origin: ResumptionOrigin::Transcript,
        last_user_requests: requests.into(),
        todos: todos.unwrap_or_default(),
        files_touched: dedup_keep_last(touched, MAX_LIST_ITEMS),
        last_assistant_text: last_text.and_then(|t| capped(t, MAX_TEXT_CHARS)),
        ..ResumptionState::default()
    }
}

/// The `command` of every main-chain `Bash` call, each once at its last run, newest last (at
/// most [`MAX_LIST_ITEMS`], each capped at [`MAX_TEXT_CHARS`]).
pub fn commands_run(lines: &[Value]) -> Vec<String> {
    let commands = main_chain(lines)
        .filter(|l| l.get("type").and_then(Value::as_str) == Some("assistant"))
        .flat_map(blocks)
        .filter(|b| b.get("type").and_then(Value::as_str) == Some("tool_use"))
        .filter(|b| b.get("name").and_then(Value::as_str) == Some("Bash"))
        .filter_map(|b| b.pointer("/input/command").and_then(Value::as_str))
        .filter_map(|c| capped(c, MAX_TEXT_CHARS))
        .collect();
    dedup_keep_last(commands, MAX_LIST_ITEMS)
}

/// The newest `timestamp` of the lines (subagents' included: their work is the session's
/// activity), as written; `None` when no line has one that parses.
pub fn last_timestamp(lines: &[Value]) -> Option<String> {
    lines
        .iter()
        .filter_map(|l| l.get("timestamp").and_then(Value::as_str))
        .filter_map(|t| Some((Timestamp::parse_rfc3339(t)?, t)))
        .max_by_key(|(at, _)| *at)
        .and_then(|(_, t)| capped(t, 64))
}

/// The files subagents (`isSidechain: true` lines) wrote, by the same rule as
/// `files_touched`: each once, at its last write, newest last, at most [`MAX_LIST_ITEMS`].
pub fn files_written_by_subagents(lines: &[Value]) -> Vec<String> {
    let paths = lines
        .iter()
        .filter(|l| flag(l, "isSidechain"))
        .filter(|l| l.get("type").and_then(Value::as_str) == Some("assistant"))
        .flat_map(blocks)
        .filter(|b| b.get("type").and_then(Value::as_str) == Some("tool_use"))
        .filter_map(|b| {
            let name = b.get("name").and_then(Value::as_str)?;
            touched_path(name, b.get("input").unwrap_or(&Value::Null))
        })
        .collect();
    dedup_keep_last(paths, MAX_LIST_ITEMS)
}

/// The oldest typed request in the lines (same rules as `last_user_requests`), capped at
/// [`MAX_TEXT_CHARS`].
pub fn first_user_request(lines: &[Value]) -> Option<String> {
    main_chain(lines)
        .filter(|l| is_request_line(l))
        .find_map(|l| message_content(l).and_then(prompt_text))
}

/// The oldest typed request in the lines as a mission: whole up to [`MAX_MISSION_CHARS`], cut
/// only at a sentence or word boundary. In a tail this is a request from the middle of a long
/// session; the transcript's head has the real first one ([`TranscriptHead`]).
pub fn first_request_text(lines: &[Value]) -> Option<String> {
    lines.iter().find_map(mission_text)
}

/// What the start of a transcript says, read line by line from its beginning until the first
/// typed request (the session's mission: in a long session the tail holds only later ones).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TranscriptHead {
    /// The first typed request of the main chain, as [`first_request_text`] keeps it.
    pub first_request: Option<String>,
    /// The `timestamp` of the first line that has one: when the session began.
    pub started_at: Option<String>,
}

impl TranscriptHead {
    /// Takes the next line, oldest first; `Break` once the first request is known.
    pub fn visit(&mut self, line: &Value) -> ControlFlow<()> {
        if self.started_at.is_none() {
            self.started_at = line
                .get("timestamp")
                .and_then(Value::as_str)
                .and_then(|t| capped(t, 64));
        }
        if self.first_request.is_none() {
            self.first_request = mission_text(line);
        }
        if self.first_request.is_some() {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    }
}

/// The request of a typed main-chain user line, whole up to [`MAX_MISSION_CHARS`].
fn mission_text(line: &Value) -> Option<String> {
    if flag(line, "isSidechain") || !is_request_line(line) {
        return None;
    }
    let text = message_content(line).and_then(request_text)?;
    Some(cut_at_boundary(&text, MAX_MISSION_CHARS).to_string())
}

fn is_request_line(line: &Value) -> bool {
    line.get("type").and_then(Value::as_str) == Some("user") && is_typed_by_user(line)
}

/// The text of every main-chain tool result marked `is_error: true` (a failed command, a
/// rejected edit), without Claude Code's `<tool_use_error>` wrapper, capped at
/// [`MAX_ERROR_CHARS`]; each once at its last occurrence, newest last.
pub fn errors_seen(lines: &[Value]) -> Vec<String> {
    let errors = main_chain(lines)
        .filter(|l| l.get("type").and_then(Value::as_str) == Some("user"))
        .flat_map(blocks)
        .filter(|b| b.get("type").and_then(Value::as_str) == Some("tool_result"))
        .filter(|b| b.get("is_error").and_then(Value::as_bool) == Some(true))
        .filter_map(|b| result_text(b.get("content")?))
        .collect();
    dedup_keep_last(errors, MAX_LIST_ITEMS)
}

fn main_chain(lines: &[Value]) -> impl Iterator<Item = &Value> {
    lines.iter().filter(|l| !flag(l, "isSidechain"))
}

fn flag(line: &Value, key: &str) -> bool {
    line.get(key).and_then(Value::as_bool) == Some(true)
}

/// Not an injection by Claude Code (`isMeta`: skill and command bodies, caveats) nor the
/// summary it writes after a compaction.
fn is_typed_by_user(line: &Value) -> bool {
    !flag(line, "isMeta") && !flag(line, "isCompactSummary")
}

fn message_content(line: &Value) -> Option<&Value> {
    line.get("message")?.get("content")
}

fn blocks(line: &Value) -> &[Value] {
    match message_content(line) {
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
                    content: capped(t.get("content")?.as_str()?, MAX_TEXT_CHARS)?,
                    status: t
                        .get("status")
                        .and_then(Value::as_str)
                        .and_then(|s| capped(s, 40))
                        .unwrap_or_default(),
                })
            })
            .take(MAX_LIST_ITEMS)
            .collect(),
    )
}

/// The file a writing tool changed.
fn touched_path(tool: &str, input: &Value) -> Option<String> {
    let key = match tool {
        "Write" | "Edit" | "MultiEdit" => "file_path",
        "NotebookEdit" => {
            return input
                .get("notebook_path")
                .and_then(path_text)
                .or_else(|| input.get("file_path").and_then(path_text));
        }
        _ => return None,
    };
    input.get(key).and_then(path_text)
}

/// A tool result's text: a string, or the text blocks of a list, joined.
fn result_text(content: &Value) -> Option<String> {
    let text = match content {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts
            .iter()
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => return None,
    };
    let t = text.trim();
    let t = t.strip_prefix("<tool_use_error>").map_or(t, |inner| {
        inner.strip_suffix("</tool_use_error>").unwrap_or(inner)
    });
    capped(t, MAX_ERROR_CHARS)
}

#[cfg(test)]
#[path = "tail_tests.rs"]
mod tests;
