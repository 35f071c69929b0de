//! The state of the work from the tail's records, beyond requests and todos: the agent's tasks
//! (task tools), commits made, the newest failure nothing has fixed yet, the last test or
//! build and its outcome, subagents still running, what the user said when refusing a call,
//! and the branch the transcript names. Format-free: it reads records, never lines.

use std::collections::HashMap;

use ctxmon_domain::{Check, Failure, ResumptionState, Todo};

use super::commands::{check_family, is_check, program_key};
use super::http_answer::error_answer;
use super::present::is_short_reply;
use super::text::{capped, dedup_keep_last};
use super::{MAX_LIST_ITEMS, MAX_TEXT_CHARS};
use crate::ports::{RecordBody, TaskItem, ToolCall, ToolKind, ToolResult, TranscriptRecord};

/// Longest failure excerpt kept, in characters (the context shows less; the checkpoint all).
pub const MAX_EXCERPT_CHARS: usize = 1_500;
/// Longest line of an excerpt.
const EXCERPT_LINE_CHARS: usize = 200;
/// How many lines that say what failed, and how many last lines, an excerpt keeps.
const SIGNAL_LINES: usize = 6;
const LAST_LINES: usize = 3;

/// Words that mark a line as saying what failed.
const SIGNALS: &[&str] = &[
    "FAILED",
    "FAIL ",
    "error:",
    "error[",
    "Error",
    "ERROR",
    "panicked",
    "Traceback",
    "not found",
    "No such file",
    "Exception",
    "fatal:",
    "failed",
    "assert",
    "cannot",
    "Cannot",
    "denied",
    "nable to",
    "❌",
    "✗",
];

/// Errors about the agent's own use of its tools, not about the task: the agent retries and
/// moves on, and showing one after a compaction sends it after a problem that never was.
const MECHANICS: &[&str] = &[
    "String to replace not found",
    "File has not been read yet",
    "has been modified since read",
    "has been unexpectedly modified",
    "matches of the string to replace",
    "No changes to make: old_string and new_string are exactly the same",
    "InputValidationError",
    "Error: No such tool available",
    "<tool_use_error>Sibling tool call errored",
];

/// Tools whose errors are never failures of the work: a question the user answered (or
/// dismissed) is a conversation, not a fault.
const CONVERSATION_TOOLS: &[&str] = &["AskUserQuestion", "ExitPlanMode", "EnterPlanMode"];

/// Every failure of the records nothing has resolved yet (by the rules of the resumption
/// state's failure), oldest first: what a resume log lists as errors.
pub(crate) fn unresolved_failures(records: &[TranscriptRecord]) -> Vec<Failure> {
    scan(records)
        .open
        .into_iter()
        .map(|f| f.failure())
        .collect()
}

/// Adds what [`derive_from_tail`](super::derive_from_tail) does not cover to `state`, and
/// returns what [`unresolved_failures_at`] would: the records are walked once for both.
pub(crate) fn add_work(
    records: &[TranscriptRecord],
    state: &mut ResumptionState,
) -> Vec<(usize, Failure)> {
    let mut work = scan(records);
    let open = std::mem::take(&mut work.open)
        .into_iter()
        .map(|f| (f.at, f.failure()))
        .collect();
    fill(work, state);
    open
}

/// Each failure nothing has resolved yet, with where it stands in `records`.
pub(crate) fn unresolved_failures_at(records: &[TranscriptRecord]) -> Vec<(usize, Failure)> {
    scan(records)
        .open
        .into_iter()
        .map(|f| (f.at, f.failure()))
        .collect()
}

fn scan(records: &[TranscriptRecord]) -> Work<'_> {
    let mut work = Work::default();
    for (i, record) in records.iter().enumerate() {
        work.at = i;
        if let Some(branch) = &record.git_branch {
            work.branch = Some(branch);
        }
        if record.sidechain {
            continue;
        }
        match &record.body {
            RecordBody::ToolCall(call) => work.call(call),
            RecordBody::ToolResult(result) => work.result(result),
            // A failure from before the user's newest request belongs to earlier work: the
            // agent reported it, and the user has moved on (a short reply may answer it, so
            // that does not count).
            RecordBody::Request(q) if q.kind.is_real() && !is_short_reply(&q.text) => {
                work.failure = None;
                work.open.clear();
                work.silent_declines.clear();
            }
            _ => {}
        }
    }
    work
}

fn fill(work: Work<'_>, state: &mut ResumptionState) {
    state.git_branch = work.branch.and_then(|b| capped(b, 200));
    state.tasks = work
        .tasks
        .into_iter()
        .filter(|t| t.status.as_deref() != Some("deleted"))
        .filter_map(|t| {
            let subject = t.subject.or_else(|| t.id.map(|id| format!("task #{id}")))?;
            Some(Todo {
                content: capped(&subject, MAX_TEXT_CHARS)?,
                status: t.status.and_then(|s| capped(&s, 40)).unwrap_or_default(),
            })
        })
        .take(MAX_LIST_ITEMS)
        .collect();
    state.commits = dedup_keep_last(work.commits, MAX_LIST_ITEMS);
    state.failure = work.failure.map(|f| f.failure());
    state.last_check = work.last_check;
    state.subagents_running = work
        .running
        .into_iter()
        .filter_map(|(_, d)| capped(&d, MAX_TEXT_CHARS))
        .take(MAX_LIST_ITEMS)
        .collect();
    let mut constraints = work.constraints;
    constraints.extend(work.silent_declines);
    state.user_constraints = dedup_keep_last(constraints, MAX_LIST_ITEMS);
}

/// A failure and what would resolve it: a later success of the same command (or of a shell
/// call with the same description), of the same tool on the same file, an edit of that file,
/// or a passing run of the same kind of test or build.
#[derive(Clone)]
struct OpenFailure<'a> {
    key: String,
    description: Option<String>,
    file: Option<String>,
    check: Option<String>,
    program: Option<String>,
    /// The command as shown.
    shown: String,
    /// What the call answered: its excerpt is taken only for the failures handed on.
    output: &'a str,
    /// Where the failure is in the records.
    at: usize,
}

impl OpenFailure<'_> {
    fn failure(&self) -> Failure {
        Failure {
            command: self.shown.clone(),
            excerpt: excerpt(self.output),
        }
    }

    fn resolved_by(&self, done: &Done<'_>) -> bool {
        self.key == done.key
            || (done.kind == ToolKind::Shell
                && self.description.is_some()
                && self.description.as_deref() == done.description)
            || (done.kind == ToolKind::FileWrite
                && self.file.is_some()
                && self.file.as_deref() == done.file)
            || self.program.is_some() && self.program == done.program
            || self.check.is_some() && self.check == done.check
    }
}

/// A call that succeeded, with what an open failure is compared by, worked out once for all
/// of them.
struct Done<'a> {
    kind: ToolKind,
    key: &'a str,
    description: Option<&'a str>,
    file: Option<&'a str>,
    program: Option<String>,
    check: Option<String>,
}

impl<'a> Done<'a> {
    fn of(call: &'a ToolCall, key: &'a str) -> Done<'a> {
        let command = call.command.as_deref();
        Done {
            kind: call.kind,
            key,
            description: call.description.as_deref().map(str::trim),
            file: call.file_path.as_deref(),
            program: command.and_then(program_key),
            check: command.and_then(check_family),
        }
    }
}

/// The most failures kept open at once: each success is compared with every open one, so
/// without a bound a tail of thousands of distinct failures cost time that grew with the
/// square of their number. The newest are kept: a hand-back shows one, a resume log as many as
/// any of its lists holds.
const MAX_OPEN: usize = MAX_LIST_ITEMS;

#[derive(Default)]
struct Work<'a> {
    calls: HashMap<&'a str, &'a ToolCall>,
    tasks: Vec<TaskItem>,
    /// TaskCreate call id → index in `tasks`, until its result names the task's id.
    created: HashMap<&'a str, usize>,
    running: Vec<(&'a str, String)>,
    commits: Vec<String>,
    failure: Option<OpenFailure<'a>>,
    /// Every failure not resolved yet, oldest first (the newest is `failure` while open).
    open: Vec<OpenFailure<'a>>,
    last_check: Option<Check>,
    constraints: Vec<String>,
    silent_declines: Vec<String>,
    branch: Option<&'a str>,
    /// The record being scanned.
    at: usize,
}

impl<'a> Work<'a> {
    fn call(&mut self, call: &'a ToolCall) {
        let Some(id) = call.id.as_deref() else {
            return;
        };
        self.calls.insert(id, call);
        match (call.kind, &call.task) {
            (ToolKind::TaskCreate, Some(task)) => {
                self.created.insert(id, self.tasks.len());
                self.tasks.push(TaskItem {
                    id: None,
                    subject: task.subject.clone(),
                    status: Some("pending".into()),
                });
            }
            (ToolKind::TaskUpdate, Some(change)) => {
                let known = self
                    .tasks
                    .iter_mut()
                    .find(|t| t.id.is_some() && t.id == change.id);
                match known {
                    Some(task) => {
                        if change.status.is_some() {
                            task.status.clone_from(&change.status);
                        }
                        if change.subject.is_some() {
                            task.subject.clone_from(&change.subject);
                        }
                    }
                    None => self.tasks.push(change.clone()),
                }
            }
            (ToolKind::Subagent, _) => {
                let what = call
                    .description
                    .clone()
                    .unwrap_or_else(|| call.name.clone());
                self.running.push((id, what));
            }
            _ => {}
        }
    }

    fn result(&mut self, result: &'a ToolResult) {
        let Some(id) = result.tool_use_id.as_deref() else {
            return;
        };
        let Some(call) = self.calls.get(id).copied() else {
            if let Some(Some(reason)) = &result.rejected
                && let Some(reason) = capped(reason, MAX_TEXT_CHARS)
            {
                self.constraints
                    .push(format!("declined a tool call: \"{reason}\""));
            }
            return;
        };
        match &result.rejected {
            Some(Some(said)) => self.constraints.push(declined(call, Some(said))),
            // Without words a refusal matters only for the work now under way.
            Some(None) => self.silent_declines.push(declined(call, None)),
            None => {}
        }
        match call.kind {
            ToolKind::Subagent => self.running.retain(|(call_id, _)| *call_id != id),
            ToolKind::TaskCreate => {
                if let (Some(&at), Some(task_id)) = (self.created.get(id), &result.created_task)
                    && let Some(task) = self.tasks.get_mut(at)
                {
                    task.id = Some(task_id.clone());
                }
            }
            ToolKind::TaskList => {
                if let Some(list) = &result.task_list {
                    // The list is the tool's own account of every task: it replaces ours.
                    self.tasks.clone_from(list);
                }
            }
            _ => {}
        }
        if result.rejected.is_some() {
            return;
        }
        let command = call
            .command
            .as_deref()
            .filter(|_| call.kind == ToolKind::Shell);
        let failed = result.is_error
            || result.exit_code.is_some_and(|c| c != 0)
            || command.is_some_and(is_check) && says_tests_failed(&result.text);
        // An answer that says the request failed is the failure's text, without the client's
        // progress meter.
        let answer = command.and_then(|c| error_answer(c, &result.text));
        let failed = failed || answer.is_some();
        if let Some(cmd) = command {
            if is_check(cmd) {
                self.last_check = capped(cmd, MAX_TEXT_CHARS).map(|command| Check {
                    command,
                    passed: !failed,
                });
            }
            if !failed && cmd.contains("git commit") {
                self.commits.extend(commit_lines(&result.text));
            }
        }
        let key = match command {
            Some(cmd) => cmd.trim().to_string(),
            // A tool's own argument names what it did: the file it wrote, else (a subagent
            // call, a search) its description, so one Task's success does not resolve another's
            // failure.
            None => format!(
                "{} {}",
                call.name,
                call.file_path
                    .as_deref()
                    .or(call.description.as_deref())
                    .unwrap_or("")
            ),
        };
        let mechanics = CONVERSATION_TOOLS.contains(&call.name.as_str())
            || (result.is_error && MECHANICS.iter().any(|m| result.text.contains(m)));
        if failed && mechanics {
            return;
        }
        if failed {
            let shown = command.map_or_else(
                || key.trim().to_string(),
                |c| capped(c, MAX_TEXT_CHARS).unwrap_or_default(),
            );
            let open = OpenFailure {
                key: key.clone(),
                description: call
                    .description
                    .as_deref()
                    .filter(|_| call.kind == ToolKind::Shell)
                    .map(|d| d.trim().to_string()),
                file: call.file_path.clone(),
                check: command.and_then(check_family),
                program: command.and_then(program_key),
                shown,
                output: answer.unwrap_or(&result.text),
                at: self.at,
            };
            self.open.retain(|f| f.key != open.key);
            if self.open.len() == MAX_OPEN {
                self.open.remove(0);
            }
            self.open.push(open.clone());
            self.failure = Some(open);
        } else {
            let done = Done::of(call, &key);
            if self.failure.as_ref().is_some_and(|f| f.resolved_by(&done)) {
                self.failure = None;
            }
            self.open.retain(|f| !f.resolved_by(&done));
        }
    }
}

/// What a refused call was and what the user said: `declined Bash "rm -rf build": "keep it"`.
fn declined(call: &ToolCall, said: Option<&str>) -> String {
    let target = call
        .command
        .as_deref()
        .or(call.file_path.as_deref())
        .or(call.description.as_deref())
        .map(|t| super::text::cut(t.trim(), 160));
    // Plan and question tools are the agent asking; declining them is the user's answer.
    let what = match (call.name.as_str(), target) {
        // Claude Code records plan feedback as a refusal; the user's words say what changes.
        ("ExitPlanMode", _) => "plan feedback".to_string(),
        ("AskUserQuestion", _) => "declined to answer the question".to_string(),
        (name, Some(t)) => format!("declined {name} {t}"),
        (name, None) => format!("declined {name}"),
    };
    match said.and_then(|s| capped(s, MAX_TEXT_CHARS)) {
        Some(words) => format!("{what}: \"{words}\""),
        None => what,
    }
}

/// A test runner's summary of failures in output whose exit status was not reported.
fn says_tests_failed(text: &str) -> bool {
    text.contains("test result: FAILED")
        || text.lines().any(|l| {
            let l = l.trim();
            l.starts_with("FAILED ") || (l.starts_with('=') && l.contains(" failed"))
        })
}

/// "[main 1a2b3c4] Subject" lines of `git commit` output as "1a2b3c4 Subject".
fn commit_lines(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|line| {
            let rest = line.trim().strip_prefix('[')?;
            let (inside, subject) = rest.split_once(']')?;
            let hash = inside.split_whitespace().last()?;
            let is_hash = hash.len() >= 7 && hash.chars().all(|c| c.is_ascii_hexdigit());
            is_hash.then(|| format!("{hash} {}", subject.trim()))
        })
        .filter_map(|c| capped(&c, 300))
        .collect()
}

/// The lines that say what failed (the newest few), then the last lines, in text order, each
/// line shortened, the whole at most [`MAX_EXCERPT_CHARS`]. Never just the first lines: a test
/// runner's banner says nothing.
pub(crate) fn excerpt(text: &str) -> String {
    excerpt_within(text, MAX_EXCERPT_CHARS)
}

/// [`excerpt`] within `max` characters: when the kept lines do not fit, the oldest go first,
/// so the newest lines that say what failed and the last lines stay. The one rule for every
/// failure ctxmon hands on (the resumption context's, the resume log's errors).
pub(crate) fn excerpt_within(text: &str, max: usize) -> String {
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let signal: Vec<usize> = lines
        .iter()
        .enumerate()
        .filter(|(_, l)| SIGNALS.iter().any(|s| l.contains(s)))
        .map(|(i, _)| i)
        .collect();
    let mut keep: Vec<usize> = signal.iter().rev().take(SIGNAL_LINES).copied().collect();
    // No line says "error": a tool's own message is then its first line (after the exit code).
    if keep.is_empty() {
        let first = usize::from(lines.first().is_some_and(|l| l.starts_with("Exit code ")));
        keep.extend(first..(first + 2).min(lines.len()));
    }
    keep.extend(lines.len().saturating_sub(LAST_LINES)..lines.len());
    keep.sort_unstable();
    keep.dedup();
    let line_chars = EXCERPT_LINE_CHARS.min(max.max(2));
    // Newest first, each with the gap marker before it, until the budget is spent.
    let mut parts: Vec<String> = Vec::new();
    let mut used = 0usize;
    for (n, &i) in keep.iter().enumerate().rev() {
        let Some(line) = lines.get(i) else { continue };
        let mut part = capped(line, line_chars).unwrap_or_default();
        let gap = n > 0 && keep.get(n - 1).is_some_and(|&p| p + 1 != i);
        if gap {
            part.insert_str(0, "…\n");
        }
        let cost = part.chars().count() + 1;
        if used + cost > max && !parts.is_empty() {
            break;
        }
        used += cost;
        parts.push(part);
    }
    parts.reverse();
    parts.join("\n").trim_end().to_string()
}

#[cfg(test)]
#[path = "work_tests.rs"]
mod tests;
