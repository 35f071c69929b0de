//! State derived from the transcript's tail when the project has no resumption source file
//! (most users): the last requests, the newest todo list, the files touched and the last thing
//! the assistant said. Also what the resume-log generator wants besides: commands run and
//! errors seen.
//!
//! It works on the tail port's typed records: what a line of the transcript file looks like is
//! the adapter's business. Only main-chain records count for the state: a subagent's todos are
//! its own business, and its prompts were written by the main agent, not the user. The files it
//! wrote are real changes, though: the resume log lists them apart
//! ([`files_written_by_subagents`]).

use std::collections::{HashSet, VecDeque};
use std::ops::ControlFlow;

use ctxmon_domain::resume_log::cut_at_boundary;
use ctxmon_domain::{Failure, ResumptionOrigin, ResumptionState, Timestamp, Todo};

use super::pointers::{Pointers, pointers};
use super::present::{
    calls_after_newest_text, intent, is_short_reply, request_answered, request_text,
    what_reply_answers,
};
use super::rules::standing_rules;
use super::text::{capped, dedup_keep_last, path_str};
use super::work::{add_work, excerpt_within, unresolved_failures, unresolved_failures_at};
use super::{
    LAST_USER_REQUESTS, MAX_ERROR_CHARS, MAX_LIST_ITEMS, MAX_MISSION_CHARS, MAX_TEXT_CHARS,
};
use crate::ports::{RecordBody, RequestKind, ToolCall, ToolKind, TranscriptRecord};

/// Derives a state with origin `Transcript` from the tail's records, oldest first.
///
/// - `last_user_requests`: the newest [`LAST_USER_REQUESTS`] real requests (typed, or a slash
///   command asking for work), newest last.
/// - `todos`: the newest todo list, even when that list is empty (the agent cleared it).
/// - `files_touched`: the files of file-writing calls; each once, at its last use, newest last.
/// - `last_assistant_text`: the newest non-empty text of a real answer.
pub fn derive_from_tail(records: &[TranscriptRecord]) -> ResumptionState {
    derive_carrying(records, &[])
}

/// [`derive_from_tail`], with the user's rules found after `carried` (newest first, handed on
/// by an earlier compaction of the session: said before the tail).
pub fn derive_carrying(records: &[TranscriptRecord], carried: &[String]) -> ResumptionState {
    derive_tail(records, carried).state
}

/// What the tail says: the state [`derive_carrying`] gives, and what a resume log lists
/// besides from the same failures ([`errors_seen`], [`completed_after_failure`]), worked out in
/// the one walk that finds them: walking the failures again for the log cost PreCompact about
/// a twentieth of its time.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TailDerivation {
    /// The state, as [`derive_carrying`] gives it.
    pub state: ResumptionState,
    /// The failures nothing resolved, as [`errors_seen`] gives them.
    pub errors: Vec<String>,
    /// The items ticked off after such a failure, as [`completed_after_failure`] gives them.
    pub unverified: HashSet<String>,
}

/// Records from which the pointers are found on a second thread: below it, starting a thread
/// costs about what it saves (an 8 MiB tail of real sessions holds a few thousand).
const PARALLEL_FROM: usize = 1_000;

/// [`derive_carrying`] with the failures' answers for a resume log (see [`TailDerivation`]).
pub fn derive_tail(records: &[TranscriptRecord], carried: &[String]) -> TailDerivation {
    derive(records, carried, PARALLEL_FROM)
}

/// [`derive_tail`], the pointers found on a second thread from `parallel_from` records.
fn derive(
    records: &[TranscriptRecord],
    carried: &[String],
    parallel_from: usize,
) -> TailDerivation {
    let mut requests: VecDeque<String> = VecDeque::with_capacity(LAST_USER_REQUESTS + 1);
    let mut todos: Option<Vec<Todo>> = None;
    let mut touched: Vec<String> = Vec::new();
    let mut last_text: Option<&str> = None;
    let mut todo_noun: Option<&str> = None;

    for record in main_chain(records) {
        match &record.body {
            RecordBody::Request(r) if r.kind.is_real() => {
                if let Some(text) = request_text(&r.text) {
                    requests.push_back(text);
                    if requests.len() > LAST_USER_REQUESTS {
                        requests.pop_front();
                    }
                }
            }
            RecordBody::AssistantText(t) if !t.trim().is_empty() => last_text = Some(t),
            RecordBody::ToolCall(call) => match call.kind {
                ToolKind::TodoList => {
                    if let Some(list) = &call.todos {
                        todos = Some(todo_list(list));
                        todo_noun = Some(if call.name == "update_plan" {
                            "plan"
                        } else {
                            "todo list"
                        });
                    }
                }
                _ => touched.extend(written_path(call)),
            },
            _ => {}
        }
    }

    let mut state = ResumptionState {
        origin: ResumptionOrigin::Transcript,
        last_user_requests: requests.into(),
        todos: todos.unwrap_or_default(),
        files_touched: dedup_keep_last(touched, MAX_LIST_ITEMS),
        last_assistant_text: last_text.and_then(|t| capped(t, MAX_TEXT_CHARS)),
        // The tail's oldest request stands in until the transcript's start says better
        // ([`TranscriptHead::goal`]).
        goal: goal_in(records),
        ..ResumptionState::default()
    };
    state.intent = intent(records);
    // The pointers are the largest part of the work and need only the request and the intent
    // (copied, so the state stays free to fill): they are found on a second thread while the
    // rest is derived here.
    let texts: Vec<String> = state
        .last_user_requests
        .iter()
        .rev()
        .find(|r| !is_short_reply(r))
        .into_iter()
        .chain(state.intent.as_ref())
        .cloned()
        .collect();
    let rest = |state: &mut ResumptionState| {
        let open = add_work(records, state);
        let errors = error_lines(open.iter().map(|(_, f)| f));
        // An item ticked off after a failure that nothing resolved is the agent's word, not a
        // result: it stays open.
        let unverified = completed_after(records, open);
        for todo in &mut state.todos {
            if todo.status == "completed" && unverified.contains(&todo.content) {
                todo.status = UNVERIFIED.to_string();
            }
        }
        add_present(records, carried, state);
        (errors, unverified)
    };
    let texts_of = || texts.iter().map(String::as_str).collect::<Vec<&str>>();
    let (found, (errors, unverified)) = if records.len() < parallel_from {
        (pointers(records, &texts_of()), rest(&mut state))
    } else {
        std::thread::scope(|scope| {
            let found = scope.spawn(|| pointers(records, &texts_of()));
            let rest = rest(&mut state);
            // A panic there is a bug; the hand-back goes on without pointers.
            (found.join().unwrap_or_default(), rest)
        })
    };
    set_pointers(&mut state, found);
    state.todo_noun = todo_noun.map(str::to_string);
    TailDerivation {
        state,
        errors,
        unverified,
    }
}

/// The current task and the rules.
fn add_present(records: &[TranscriptRecord], carried: &[String], state: &mut ResumptionState) {
    state.request_answers = what_reply_answers(records);
    state.request_answered = request_answered(records);
    state.calls_since_intent = calls_after_newest_text(records) as u64;
    state.rules = standing_rules(carried, &typed_requests(records));
}

/// The pointers for the next step.
fn set_pointers(state: &mut ResumptionState, found: Pointers) {
    state.files_next = found.files_next;
    state.files_recent = found.files_recent;
    state.files_read = found.files_read;
    state.line_ranges = found.line_ranges;
    state.files_created = found.files_created;
    state.commands_ok = found.commands_ok;
    state.environment = found.environment;
    state.lessons = found.lessons;
}

fn typed_requests(records: &[TranscriptRecord]) -> Vec<&str> {
    main_chain(records)
        .filter_map(|r| match &r.body {
            RecordBody::Request(q) if q.kind == RequestKind::Typed => Some(q.text.as_str()),
            _ => None,
        })
        .collect()
}

/// The first typed request of the records' main chain (slash commands skipped unless there is
/// nothing else), capped at [`MAX_TEXT_CHARS`].
fn goal_in(records: &[TranscriptRecord]) -> Option<String> {
    let typed = main_chain(records).find_map(|r| match &r.body {
        RecordBody::Request(q) if asks_in_words(q) => capped(&q.text, MAX_TEXT_CHARS),
        _ => None,
    });
    typed.or_else(|| first_user_request(records))
}

/// The command of every main-chain shell call, each once at its last run, newest last (at
/// most [`MAX_LIST_ITEMS`], each capped at [`MAX_TEXT_CHARS`]).
pub fn commands_run(records: &[TranscriptRecord]) -> Vec<String> {
    let commands = main_chain(records)
        .filter_map(|r| match &r.body {
            RecordBody::ToolCall(c) if c.kind == ToolKind::Shell => c.command.as_deref(),
            _ => None,
        })
        .filter_map(|c| capped(c, MAX_TEXT_CHARS))
        .collect();
    dedup_keep_last(commands, MAX_LIST_ITEMS)
}

/// The newest timestamp of the records (subagents' included: their work is the session's
/// activity), as written; `None` when none parses.
pub fn last_timestamp(records: &[TranscriptRecord]) -> Option<String> {
    records
        .iter()
        .filter_map(|r| r.timestamp.as_deref())
        .filter_map(|t| Some((Timestamp::parse_rfc3339(t)?, t)))
        .max_by_key(|(at, _)| *at)
        .and_then(|(_, t)| capped(t, 64))
}

/// The files subagents wrote, by the same rule as `files_touched`: each once, at its last
/// write, newest last, at most [`MAX_LIST_ITEMS`].
pub fn files_written_by_subagents(records: &[TranscriptRecord]) -> Vec<String> {
    let paths = records
        .iter()
        .filter(|r| r.sidechain)
        .filter_map(|r| match &r.body {
            RecordBody::ToolCall(c) => written_path(c),
            _ => None,
        })
        .collect();
    dedup_keep_last(paths, MAX_LIST_ITEMS)
}

/// The oldest real request of the main chain, capped at [`MAX_TEXT_CHARS`].
pub fn first_user_request(records: &[TranscriptRecord]) -> Option<String> {
    main_chain(records)
        .filter_map(real_request)
        .find_map(|t| capped(t, MAX_TEXT_CHARS))
}

/// The oldest real request as a mission: whole up to [`MAX_MISSION_CHARS`], cut only at a
/// sentence or word boundary. In a tail this is a request from the middle of a long session;
/// the transcript's head has the real first one ([`TranscriptHead`]).
pub fn first_request_text(records: &[TranscriptRecord]) -> Option<String> {
    // A leading `/init` or `/review` is how the session was started, not what it is for: the
    // first typed request is the mission, a slash command only when nothing was typed.
    records
        .iter()
        .filter(|r| is_typed(r))
        .find_map(mission_text)
        .or_else(|| records.iter().find_map(mission_text))
}

fn is_typed(record: &TranscriptRecord) -> bool {
    !record.sidechain
        && matches!(&record.body, RecordBody::Request(r) if r.kind == RequestKind::Typed)
}

/// What the start of a transcript says, read record by record from its beginning until the
/// first real request (the session's mission: in a long session the tail holds only later
/// ones).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TranscriptHead {
    /// The first typed request of the main chain (a slash command only while none was
    /// typed), as [`first_request_text`] keeps it: the mission.
    pub first_request: Option<String>,
    /// The timestamp of the first record that has one: when the session began.
    pub started_at: Option<String>,
    /// The first request the user typed (leading slash commands such as `/init` skipped),
    /// capped at [`MAX_TEXT_CHARS`]: the session's goal.
    pub goal: Option<String>,
    /// The first request that asks for something in words: typed, or a slash command with
    /// arguments ("/orchestrator build the app"; a bare "/init" is how a session starts, not
    /// what it asks). What the hand-back shows as the first request.
    pub first_asked: Option<String>,
}

impl TranscriptHead {
    /// Takes the next record, oldest first; `Break` once the first request and the goal are
    /// known.
    pub fn visit(&mut self, record: &TranscriptRecord) -> ControlFlow<()> {
        if self.started_at.is_none() {
            self.started_at = record.timestamp.as_deref().and_then(|t| capped(t, 64));
        }
        let first_typed = self.goal.is_none() && is_typed(record);
        // A slash command stands in until the first typed request replaces it.
        if (self.first_request.is_none() || first_typed)
            && let Some(mission) = mission_text(record)
        {
            self.first_request = Some(mission);
        }
        if first_typed && let RecordBody::Request(r) = &record.body {
            self.goal = capped(&r.text, MAX_TEXT_CHARS);
        }
        if self.first_asked.is_none()
            && !record.sidechain
            && let RecordBody::Request(r) = &record.body
            && asks_in_words(r)
        {
            self.first_asked = capped(&r.text, MAX_TEXT_CHARS);
        }
        if self.first_request.is_some() && self.goal.is_some() {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    }
}

fn asks_in_words(r: &crate::ports::Request) -> bool {
    r.kind == RequestKind::Typed
        || (r.kind == RequestKind::SlashCommand && r.text.trim().contains(char::is_whitespace))
}

/// A main-chain real request, whole up to [`MAX_MISSION_CHARS`].
fn mission_text(record: &TranscriptRecord) -> Option<String> {
    if record.sidechain {
        return None;
    }
    let text = real_request(record)?.trim();
    (!text.is_empty()).then(|| cut_at_boundary(text, MAX_MISSION_CHARS).to_string())
}

fn real_request(record: &TranscriptRecord) -> Option<&str> {
    match &record.body {
        RecordBody::Request(r) if r.kind.is_real() => Some(&r.text),
        _ => None,
    }
}

/// The failures nothing has resolved yet, each as its command and the lines that say what
/// failed (at most [`MAX_ERROR_CHARS`]), oldest first: by the rules of the resumption
/// context's failure, so a resume log never lists a failure fixed later, an agent-mechanics
/// error (an edit string not found, a file not read yet), an answered question, or failures
/// of work the user has since moved on from. A call the user refused is not an error either
/// (the reason is a constraint).
pub fn errors_seen(records: &[TranscriptRecord]) -> Vec<String> {
    error_lines(unresolved_failures(records).iter())
}

/// The failures as a resume log lists them: each command with what it said.
fn error_lines<'f>(failures: impl Iterator<Item = &'f Failure>) -> Vec<String> {
    let errors = failures
        .filter_map(|f| {
            let text = if f.command.is_empty() {
                f.excerpt.clone()
            } else {
                format!("$ {}\n{}", f.command, f.excerpt)
            };
            capped(&excerpt_within(&text, MAX_ERROR_CHARS), MAX_ERROR_CHARS)
        })
        .collect();
    dedup_keep_last(errors, MAX_LIST_ITEMS)
}

/// What the session got done: every todo item any list of the session marked completed (a
/// later list may drop it, the work stays done) and every completed task of the task tools,
/// in the order they were first completed, at most the newest [`MAX_LIST_ITEMS`].
pub fn completed_work(records: &[TranscriptRecord], tasks: &[Todo]) -> Vec<String> {
    completed_work_given(records, tasks, &completed_after_failure(records))
}

/// [`completed_work`] with [`completed_after_failure`]'s answer already known.
pub fn completed_work_given(
    records: &[TranscriptRecord],
    tasks: &[Todo],
    unverified: &HashSet<String>,
) -> Vec<String> {
    let todos = main_chain(records)
        .filter_map(|r| match &r.body {
            RecordBody::ToolCall(c) if c.kind == ToolKind::TodoList => c.todos.as_deref(),
            _ => None,
        })
        .flatten()
        .filter(|t| t.status == "completed" && !unverified.contains(&t.content))
        .map(|t| t.content.as_str());
    let tasks = tasks
        .iter()
        .filter(|t| t.status == "completed")
        .map(|t| t.content.as_str());
    let mut seen = std::collections::HashSet::new();
    let done: Vec<String> = todos
        .chain(tasks)
        .filter_map(|t| capped(t, MAX_TEXT_CHARS))
        .filter(|t| seen.insert(t.clone()))
        .collect();
    let over = done.len().saturating_sub(MAX_LIST_ITEMS);
    done.into_iter().skip(over).collect()
}

/// The status a hand-back gives an item marked completed after a failure nothing resolved.
pub const UNVERIFIED: &str = "completed_after_failure";

/// The todo items first marked completed after a failure that is still unresolved and names
/// the same thing (a word of the item in the failed command or its output): the agent ticked
/// them off, but what failed says the work may not be done (a conversion that errored, a
/// table that was never filled).
pub fn completed_after_failure(records: &[TranscriptRecord]) -> HashSet<String> {
    completed_after(records, unresolved_failures_at(records))
}

/// [`completed_after_failure`] with the unresolved failures and where they stand known.
fn completed_after(
    records: &[TranscriptRecord],
    failures: Vec<(usize, Failure)>,
) -> HashSet<String> {
    // Each failure's words once: a todo list is written whole on every change, so its items
    // are met again and again.
    let failures: Vec<(usize, HashSet<String>)> = failures
        .into_iter()
        .map(|(at, f)| (at, item_words(&format!("{} {}", f.command, f.excerpt))))
        .collect();
    if failures.is_empty() {
        return HashSet::new();
    }
    let mut done_before: HashSet<&str> = HashSet::new();
    let mut suspect = HashSet::new();
    for (i, record) in records.iter().enumerate() {
        if record.sidechain {
            continue;
        }
        let RecordBody::ToolCall(call) = &record.body else {
            continue;
        };
        let Some(list) = call
            .todos
            .as_deref()
            .filter(|_| call.kind == ToolKind::TodoList)
        else {
            continue;
        };
        for todo in list.iter().filter(|t| t.status == "completed") {
            // Only where an item is first marked completed does it count.
            if !done_before.insert(&todo.content) {
                continue;
            }
            let words = item_words(&todo.content);
            let failed_on_it = failures
                .iter()
                .any(|(at, failed)| *at < i && !words.is_disjoint(failed));
            if failed_on_it {
                suspect.insert(todo.content.clone());
            }
        }
    }
    suspect
}

/// The words of three letters or more of `text` that are not common ones: an item and a
/// failure that share one name the same thing.
fn item_words(text: &str) -> HashSet<String> {
    const COMMON: &[&str] = &[
        "the", "and", "for", "with", "from", "into", "all", "add", "new", "use", "run", "fix",
        "file", "files", "test", "tests", "make", "update", "create", "check",
    ];
    text.to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.chars().count() >= 3 && !COMMON.contains(w))
        .map(str::to_string)
        .collect()
}

/// How many of the assistant's conclusions a resume log's findings keep.
pub const CONCLUSIONS: usize = 5;
/// Shorter than this, an answer is a step ("Now the tests."), not a conclusion.
const CONCLUSION_MIN_CHARS: usize = 60;
/// Longest earlier conclusion kept; the final answer keeps [`MAX_TEXT_CHARS`].
const CONCLUSION_CHARS: usize = 1_000;

/// The assistant's last few substantive conclusions, oldest first, the final answer last
/// whatever its length: what the session found out, beyond its last words. An answer that
/// announces the next step ("Let me read the file:") or is a few words is not a conclusion.
pub fn conclusions(records: &[TranscriptRecord]) -> Vec<String> {
    let texts: Vec<&str> = main_chain(records)
        .filter_map(|r| match &r.body {
            RecordBody::AssistantText(t) if !t.trim().is_empty() => Some(t.trim()),
            _ => None,
        })
        .collect();
    let Some((last, earlier)) = texts.split_last() else {
        return Vec::new();
    };
    let substantive = |t: &&&str| t.chars().count() >= CONCLUSION_MIN_CHARS && !t.ends_with(':');
    let mut out: Vec<String> = earlier
        .iter()
        .filter(substantive)
        .filter_map(|t| capped(t, CONCLUSION_CHARS))
        .collect();
    out.extend(capped(last, MAX_TEXT_CHARS));
    dedup_keep_last(out, CONCLUSIONS)
}

fn main_chain(records: &[TranscriptRecord]) -> impl Iterator<Item = &TranscriptRecord> {
    records.iter().filter(|r| !r.sidechain)
}

/// A todo list, each item capped; items without content are skipped, at most
/// [`MAX_LIST_ITEMS`].
fn todo_list(items: &[Todo]) -> Vec<Todo> {
    items
        .iter()
        .filter_map(|t| {
            Some(Todo {
                content: capped(&t.content, MAX_TEXT_CHARS)?,
                status: capped(&t.status, 40).unwrap_or_default(),
            })
        })
        .take(MAX_LIST_ITEMS)
        .collect()
}

/// The file a writing call changed.
fn written_path(call: &ToolCall) -> Option<String> {
    if call.kind != ToolKind::FileWrite {
        return None;
    }
    path_str(call.file_path.as_deref()?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fakes::records::{call, record, request, result, result_record, shell, todos};
    use crate::ports::ToolResult;

    /// A long session's tail: requests with a rule, reads with line ranges, edits, commands
    /// that work and fail, todo lists.
    fn long_tail(rounds: usize) -> Vec<TranscriptRecord> {
        let mut records = vec![request(
            "Never push to main. Fix the parser in src/parse.rs",
        )];
        for i in 0..rounds {
            let read = format!("r{i}");
            records.push(record(RecordBody::ToolCall(ToolCall {
                file_path: Some(format!("/w/src/mod_{}.rs", i % 40)),
                ..call(&read, "Read")
            })));
            records.push(result_record(ToolResult {
                lines: Some((1, 50 + i as u64)),
                ..result(&read, false, "fn main() {}")
            }));
            let run = format!("s{i}");
            let command = format!("cargo test -p crate_{}", i % 7);
            records.push(shell(&run, &command));
            let failed = i % 5 == 0;
            records.push(result_record(ToolResult {
                exit_code: Some(if failed { 101 } else { 0 }),
                ..result(&run, failed, if failed { "error[E0308]" } else { "ok" })
            }));
            if i % 50 == 0 {
                records.push(todos(&[("Fix parser", "completed"), ("Docs", "pending")]));
            }
        }
        records.push(shell("last", "npm run lint"));
        records.push(result_record(ToolResult {
            exit_code: Some(1),
            ..result("last", true, "2 problems (2 errors)")
        }));
        records
    }

    #[test]
    fn pointers_found_on_a_second_thread_give_the_same_derivation() {
        let records = long_tail(300);
        assert!(
            records.len() >= PARALLEL_FROM,
            "the shipped path runs two threads here"
        );
        let one = derive(&records, &[], usize::MAX);
        let two = derive(&records, &[], 0);
        // Something to compare: pointers, rules and failures are all there.
        assert!(!one.state.files_read.is_empty() && !one.state.commands_ok.is_empty());
        assert_eq!(one.state.rules, ["Never push to main."]);
        assert!(!one.errors.is_empty());
        assert_eq!(one, two);
        assert_eq!(derive_tail(&records, &[]), one);
    }
}
