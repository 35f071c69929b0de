//! What the `<resumption-context>` sections show, derived from the resumption state before any
//! of it is written: the user's rules, progress (in progress, next, done), the failure, the
//! files to read, the work tree and the quality trajectory. The request at hand is
//! `present::AtHand`'s; the layout and the budget are `context`'s.

use ctxmon_domain::human::thousands;
use ctxmon_domain::xml::escape_attr;
use ctxmon_domain::{CheckpointData, ResumptionState};

/// Files touched listed from a checkpoint written before the newest turns' edits were kept.
const OLD_TOUCHED: usize = 5;
/// A command shown with its failure or its outcome.
pub(super) const COMMAND_CAP: usize = 200;

/// What the agent calls its list of steps. Only the two nouns the readers write: a
/// hand-edited checkpoint cannot name a tag.
pub(super) fn todo_noun(state: &ResumptionState) -> &'static str {
    match state.todo_noun.as_deref() {
        Some("plan") => "plan",
        _ => "todo list",
    }
}

/// The unresolved failure: the command that failed, then the lines that say what failed.
pub(super) fn failure_text(state: &ResumptionState) -> Option<String> {
    state.failure.as_ref().map(|f| {
        let command = cut_raw(&f.command, COMMAND_CAP);
        if command.is_empty() {
            f.excerpt.clone()
        } else {
            format!("$ {command}\n{}", f.excerpt)
        }
    })
}

/// `<quality-trajectory score=… iteration=…/>`, when the source file gave one.
pub(super) fn quality_tag(state: &ResumptionState) -> Option<String> {
    state.quality_trajectory.as_ref().map(|q| {
        let score = q.score.map_or("unknown".to_string(), score_text);
        let iteration = q.iteration.map_or("unknown".to_string(), |i| i.to_string());
        format!(
            "<quality-trajectory score=\"{}\" iteration=\"{}\"/>\n",
            escape_attr(&score),
            escape_attr(&iteration)
        )
    })
}

/// The files created, each as `created PATH`.
pub(super) fn created_lines(state: &ResumptionState) -> Vec<String> {
    state
        .files_created
        .iter()
        .map(|f| format!("created {f}"))
        .collect()
}

/// "branch feature/x; 3 uncommitted changes; HEAD 1a2b3c4": the branch from `.git` (else the
/// transcript's), the count from `git status` when it was known.
pub(super) fn work_tree_line(cp: &CheckpointData, state: &ResumptionState) -> Option<String> {
    let branch = cp
        .session_info
        .git_branch
        .as_deref()
        .or(state.git_branch.as_deref())
        .map(|b| cut_raw(b, 80));
    let mut parts = Vec::new();
    if let Some(b) = branch {
        parts.push(format!("branch {b}"));
    }
    match state.uncommitted_changes {
        Some(0) => parts.push("no uncommitted changes".into()),
        Some(1) => parts.push("1 uncommitted change".into()),
        Some(n) => parts.push(format!("{n} uncommitted changes")),
        None => {}
    }
    if let Some(head) = cp.session_info.git_head.as_deref() {
        let short: String = head.chars().take(7).collect();
        if !short.is_empty() && short.chars().all(|c| c.is_ascii_hexdigit()) {
            parts.push(format!("HEAD {short}"));
        }
    }
    (!parts.is_empty()).then(|| parts.join("; "))
}

/// `text` trimmed and, past `max` characters, cut with "…" (raw: the writer escapes).
fn cut_raw(text: &str, max: usize) -> String {
    let t = text.trim();
    if t.chars().count() <= max {
        return t.to_string();
    }
    let mut out: String = t.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

/// What was under way, what comes next and what is done. In progress: the open items marked
/// so, the subagents still running, and the assistant's last statement of what it does next,
/// in its own words. Next: the source file's `next_steps`, then the pending items. Done: the
/// items the agent marked completed (its own marks: a reader should know it is the agent's
/// word, not a check).
pub(super) fn progress(
    state: &ResumptionState,
    noun: &str,
) -> (Vec<String>, Vec<String>, Vec<String>) {
    let mut in_progress = Vec::new();
    // The assistant's own words say most precisely where it was.
    // An answer that ended the turn is not work in progress: it is shown on its own. (The
    // last answer of any time, `last_assistant_text`, is not used: it may come from before the
    // newest request, or from a plan the user stopped.)
    if let Some(intent) = state.intent.as_ref()
        && !state.request_answered
    {
        let then = match state.calls_since_intent {
            0 => String::new(),
            1 => " (then 1 tool call)".to_string(),
            n => format!(" (then {} tool calls)", thousands(n)),
        };
        in_progress.push(format!("you last said: \"{}\"{then}", intent.trim()));
    }
    let mut next = state.next_steps.clone();
    let mut done = Vec::new();
    let mut covered = vec![false; state.subagents_running.len()];
    for todo in state.todos.iter().chain(&state.tasks) {
        // An open item a running subagent is doing is not the agent's next step: it waits for
        // that subagent's result.
        let by = state
            .subagents_running
            .iter()
            .position(|a| todo.status != "completed" && same_work(&todo.content, a));
        if let Some(i) = by {
            covered[i] = true;
            in_progress.push(format!(
                "{} ({noun}; a subagent is on it: {})",
                todo.content, state.subagents_running[i]
            ));
            continue;
        }
        match todo.status.as_str() {
            "completed" => done.push(todo.content.clone()),
            super::tail::UNVERIFIED => in_progress.push(format!(
                "{} ({noun}: marked completed after a failure that nothing resolved)",
                todo.content
            )),
            "in_progress" => in_progress.push(format!("{} ({noun})", todo.content)),
            _ => next.push(todo.content.clone()),
        }
    }
    for (agent, covered) in state.subagents_running.iter().zip(covered) {
        if !covered {
            in_progress.push(format!("subagent still running: {agent}"));
        }
    }
    (in_progress, next, done)
}

/// Whether a todo item and a subagent's description name the same work: most of the
/// description's words of four letters or more are in the item.
fn same_work(item: &str, agent: &str) -> bool {
    let words = |s: &str| -> Vec<String> {
        s.to_lowercase()
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| w.chars().count() >= 4)
            .map(str::to_string)
            .collect()
    };
    let (item, agent) = (words(item), words(agent));
    let shared = agent.iter().filter(|w| item.contains(w)).count();
    !agent.is_empty() && shared * 2 >= agent.len() && shared >= 2
}

/// `done` with whose word it is: `marked-completed-in-plan` for Codex,
/// `marked-completed-in-todo-list`
/// else.
pub(super) fn done_tag(noun: &str) -> String {
    format!("marked-completed-in-{}", noun.replace(' ', "-"))
}

/// The user's rules (newest first), then each call they declined with what they said. A rule
/// the current request already shows whole is not repeated.
pub(super) fn rules_and_declines(state: &ResumptionState, current: Option<&str>) -> Vec<String> {
    state
        .rules
        .iter()
        .filter(|r| current.is_none_or(|c| !c.contains(r.trim())))
        .chain(state.user_constraints.iter().rev())
        .cloned()
        .collect()
}

/// What to read, as (path, reason): the source file's `files_to_read` in its order, the
/// files the next step names, then those edited in the newest turns (for a checkpoint written
/// before those were kept, the newest files touched).
pub(super) fn files_to_read(state: &ResumptionState) -> Vec<(String, Option<String>)> {
    let mut files: Vec<(String, Option<String>)> = state
        .files_to_read
        .iter()
        .map(|f| {
            let reason = f.reason.as_deref().map(str::trim).filter(|r| !r.is_empty());
            (f.path.clone(), reason.map(str::to_string))
        })
        .collect();
    let recent: Vec<&String> = if state.files_recent.is_empty() && state.files_next.is_empty() {
        state.files_touched.iter().rev().take(OLD_TOUCHED).collect()
    } else {
        state.files_recent.iter().collect()
    };
    let named = state
        .files_next
        .iter()
        .map(|f| (f, Some("named for the next step")));
    let read = state.files_read.iter().map(|f| (f, Some("read recently")));
    let listed = named
        .chain(recent.into_iter().map(|f| (f, Some("edited recently"))))
        .chain(read);
    for (path, reason) in listed {
        if !files.iter().any(|(p, _)| p == path) {
            // Where the newest read or edit looked: the lines to read again first.
            let lines = state.line_ranges.iter().find(|r| &r.path == path).map(|r| {
                if r.first == r.last {
                    format!("line {}", r.first)
                } else {
                    format!("lines {}-{}", r.first, r.last)
                }
            });
            let reason = match (reason, lines) {
                (Some(why), Some(lines)) => Some(format!("{why}, {lines}")),
                (why, None) => why.map(str::to_string),
                (None, lines) => lines,
            };
            files.push((path.clone(), reason));
        }
    }
    files
}

/// A score as written: a small number as it is; a huge one (a hand-edited file) in scientific
/// notation rather than its 309 digits, so it cannot take the room of the lists after it.
fn score_text(score: f64) -> String {
    if score.abs() < 1e9 {
        format!("{score}")
    } else {
        format!("{score:e}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_to_read_say_why_and_where() {
        let range = |path: &str, first, last| ctxmon_domain::LineRange {
            path: path.to_string(),
            first,
            last,
        };
        let state = ResumptionState {
            files_next: vec!["/w/a.rs".into()],
            files_recent: vec!["/w/b.rs".into()],
            files_read: vec!["/w/c.rs".into(), "/w/b.rs".into()],
            line_ranges: vec![range("/w/b.rs", 45, 52), range("/w/c.rs", 7, 7)],
            ..ResumptionState::default()
        };
        let files = files_to_read(&state);
        let shown: Vec<(&str, Option<&str>)> = files
            .iter()
            .map(|(p, why)| (p.as_str(), why.as_deref()))
            .collect();
        assert_eq!(
            shown,
            [
                ("/w/a.rs", Some("named for the next step")),
                ("/w/b.rs", Some("edited recently, lines 45-52")),
                ("/w/c.rs", Some("read recently, line 7")),
            ]
        );
    }

    #[test]
    fn scores_stay_short() {
        assert_eq!(score_text(0.87), "0.87");
        assert_eq!(score_text(12.0), "12");
        assert_eq!(score_text(f64::MAX), "1.7976931348623157e308");
        assert_eq!(score_text(-1e12), "-1e12");
    }
}
