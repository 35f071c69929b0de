//! `<resumption-context>`: what SessionStart (or the prompt-submit fallback) hands back after a
//! compaction (contract C6). At most 760 tokens, filled in priority order (issue 13): the last
//! request, the session's goal, next steps (todos and tasks), the work tree (branch,
//! uncommitted changes, commits), the unresolved failure and the last test or build, files to
//! read, subagents still running, the user's constraints, decisions, then the rest. Each
//! section keeps back the room the later ones need for their minimum — the first entry of a
//! high-priority list (a whole path for files to read), the count of any other list — so every
//! list that is shortened, even to nothing, ends with "+N more … in cx-NNN".

use ctxmon_domain::human::{plural, thousands};
use ctxmon_domain::xml::{escape_attr, escape_text};
use ctxmon_domain::{CheckpointData, ResumptionOrigin, ResumptionState};

use super::present::AtHand;
use crate::handoff::budget_writer::{
    BudgetWriter, Entry, ItemKind, ListSpec, chars, fit, frame, list_reservation,
};

/// The most tokens a `<resumption-context>` may take.
pub const RESUMPTION_MAX_TOKENS: u64 = 760;
const CLOSING: &str = "</resumption-context>";
/// A single prose item never takes more than this, so one huge item cannot starve the rest.
const ITEM_CAP: usize = 400;
const PATH_CAP: usize = 300;
/// What the first entry of a high-priority list is shortened to when room is tight.
const FIRST_CAP: usize = 160;
/// The session's first request, shortened with "…" past this.
const GOAL_CAP: usize = 300;
/// The current request: whole up to the 2,000 characters a state keeps, and its cut marker.
const REQUEST_CAP: usize = 2_100;
/// One rule or declined call.
const RULE_CAP: usize = 320;
/// Files touched listed from a checkpoint written before the newest turns' edits were kept.
const OLD_TOUCHED: usize = 5;
/// Room kept for `<left-out>` (what the sections dropped, and where to read it).
const LEFT_OUT_ROOM: &str = "<left-out>3 items in progress, 12 next steps, 14 more files, 8 completed items, the first request: ctxmon checkpoint show cx-0000000000</left-out>\n";
/// A failure: the command and the lines that say what failed.
const FAILURE_CAP: usize = 700;
/// A command shown with its failure or its outcome.
const COMMAND_CAP: usize = 200;

/// What [`render_resumption_context`] renders from.
#[derive(Debug, Clone, Copy)]
pub struct ResumptionInput<'a> {
    /// The checkpoint whose resumption state is handed back.
    pub checkpoint: &'a CheckpointData,
    /// The resume log of the checkpoint's session, when it has one.
    pub resume_log: Option<&'a str>,
}

/// Renders the tag, or an empty string when the checkpoint carries no resumption state.
pub fn render_resumption_context(input: ResumptionInput<'_>) -> String {
    let cp = input.checkpoint;
    let Some(state) = cp.resumption_state.as_ref().filter(|s| !s.is_empty()) else {
        return String::new();
    };
    let id = cp.checkpoint_id.to_string();
    let fill = &cp.context_state;
    let origin = match state.origin {
        ResumptionOrigin::SourceFile => "source-file",
        ResumptionOrigin::Transcript => "transcript",
    };
    // Room is kept back for the line that says what was left out and where to read it: it is
    // written last, once the sections have said how much they dropped.
    let mut w = BudgetWriter::new(RESUMPTION_MAX_TOKENS, &format!("{CLOSING}{LEFT_OUT_ROOM}"));
    w.raw(&format!(
        "<resumption-context checkpoint=\"{}\" sequence=\"{}\" fill-at-compaction=\"{}%\" trigger=\"{}\" created=\"{}\" origin=\"{origin}\">\n",
        escape_attr(&id),
        cp.compaction_sequence,
        fill.percent(),
        cp.trigger.key(),
        // A hand-edited checkpoint could hold anything here; the header must stay small.
        escape_attr(&cp.timestamp.chars().take(40).collect::<String>())
    ));

    // A short reply with the question it answers; the task is then the request before it.
    let at_hand = AtHand::of(&state.last_user_requests, state.request_answers.as_deref());
    let (current, reply) = (at_hand.current, at_hand.reply);
    let latest_reply = at_hand.reply_line();
    let rules = rules_and_declines(state, current);
    // Only the two nouns the readers write: a hand-edited checkpoint cannot name a tag.
    let noun = match state.todo_noun.as_deref() {
        Some("plan") => "plan",
        _ => "todo list",
    };
    let (in_progress, next_steps, done) = progress(state, noun);
    let failure = state.failure.as_ref().map(|f| {
        let command = cut_raw(&f.command, COMMAND_CAP);
        if command.is_empty() {
            f.excerpt.clone()
        } else {
            format!("$ {command}\n{}", f.excerpt)
        }
    });
    let files = files_to_read(state);
    let work_tree = work_tree_line(cp, state);
    let decisions: Vec<String> = state.decisions.iter().map(ToString::to_string).collect();
    let quality = state.quality_trajectory.as_ref().map(|q| {
        let score = q.score.map_or("unknown".to_string(), score_text);
        let iteration = q.iteration.map_or("unknown".to_string(), |i| i.to_string());
        format!(
            "<quality-trajectory score=\"{}\" iteration=\"{}\"/>\n",
            escape_attr(&score),
            escape_attr(&iteration)
        )
    });
    // The first request only when it is not the request shown, nor the start of it: never
    // called the goal, because the work may have moved on since.
    let first = state.goal.as_deref().filter(|g| at_hand.is_other(g));
    let created: Vec<String> = state
        .files_created
        .iter()
        .map(|f| format!("created {f}"))
        .collect();

    let list = |tag, noun, entries| ListSpec {
        tag,
        noun,
        location: &id,
        entries,
        count_left_out: false,
    };
    // In the order a resuming agent needs them: what is asked now, the user's rules, what was
    // under way and what comes next, what is broken, where things are, what is done, and last
    // how the session began.
    let mut sections: Vec<Section<'_>> = Vec::new();
    if let Some(summary) = &state.summary {
        sections.push(Section::element("summary", summary, ITEM_CAP, FIRST_CAP));
    }
    if let Some(text) = current {
        // A request the assistant already answered is not work to do again.
        let tag = if state.request_answered && reply.is_none() {
            "last-request-answered"
        } else {
            "current-request"
        };
        sections.push(Section::element(tag, text, REQUEST_CAP, FIRST_CAP));
    }
    if let Some(text) = &latest_reply {
        sections.push(Section::element("latest-reply", text, ITEM_CAP, FIRST_CAP));
    }
    let answer = state
        .intent
        .as_deref()
        .filter(|_| state.request_answered && reply.is_none());
    if let Some(text) = answer {
        sections.push(Section::element(
            "your-answer-ended",
            text,
            ITEM_CAP,
            FIRST_CAP,
        ));
    }
    sections.push(Section::list(
        list("user-rules", ("rule", "rules"), texts(&rules)),
        RULE_CAP,
        FIRST_CAP,
    ));
    sections.push(Section::list(
        list("decisions", ("decision", "decisions"), texts(&decisions)),
        ITEM_CAP,
        FIRST_CAP,
    ));
    sections.push(Section::list(
        list(
            "in-progress",
            ("item in progress", "items in progress"),
            texts(&in_progress),
        ),
        ITEM_CAP,
        FIRST_CAP,
    ));
    sections.push(Section::list(
        list(
            "next-steps",
            ("next step", "next steps"),
            texts(&next_steps),
        ),
        ITEM_CAP,
        FIRST_CAP,
    ));
    if let Some(text) = &failure {
        sections.push(Section::element(
            "unresolved-failure",
            text,
            FAILURE_CAP,
            FIRST_CAP,
        ));
    }
    sections.push(Section::list(
        list(
            "files-to-read",
            ("file", "files"),
            files
                .iter()
                .map(|(path, reason)| match reason {
                    Some(reason) => Entry::Annotated(path, reason),
                    None => Entry::Atom(path),
                })
                .collect(),
        ),
        PATH_CAP,
        PATH_CAP,
    ));
    sections.push(Section::list(
        list(
            "commands-that-worked",
            ("command that worked", "commands that worked"),
            texts(&state.commands_ok),
        ),
        COMMAND_CAP + 4,
        COMMAND_CAP + 4,
    ));
    sections.push(Section::list(
        list(
            "environment",
            ("environment fact", "environment facts"),
            texts(&state.environment),
        ),
        ITEM_CAP,
        0,
    ));
    if let Some(line) = &work_tree {
        sections.push(Section::element("work-tree", line, ITEM_CAP, FIRST_CAP));
    }
    if let Some(q) = &quality {
        sections.push(Section::Raw(q));
    }
    sections.push(Section::list(
        list(
            "agent-summaries",
            ("agent summary", "agent summaries"),
            texts(&state.agent_summaries),
        ),
        ITEM_CAP,
        0,
    ));
    let done_tag = done_tag(noun);
    sections.push(Section::list(
        list(
            &done_tag,
            ("completed item", "completed items"),
            texts(&done),
        ),
        ITEM_CAP,
        FIRST_CAP,
    ));
    sections.push(Section::list(
        list("commits", ("commit", "commits"), texts(&state.commits)),
        ITEM_CAP,
        0,
    ));
    sections.push(Section::list(
        list(
            "files-created",
            ("created file", "created files"),
            texts(&created),
        ),
        PATH_CAP,
        0,
    ));
    if let Some(text) = first {
        sections.push(Section::element("first-request", text, GOAL_CAP, 0));
    }

    // Each section takes what it can while the room the later ones need stays free (the first
    // entry of each high-priority list, or its prose shortened), so a long section never
    // pushes a later one out silently: what does not fit is named in `<left-out>`.
    let reservations: Vec<usize> = sections.iter().map(Section::reservation).collect();
    let reserved = keep_what_fits(&reservations, w.remaining());
    let mut left_out: Vec<String> = Vec::new();
    for (i, section) in sections.iter().enumerate() {
        let room = w
            .remaining()
            .saturating_sub(reserved[i + 1..].iter().sum::<usize>());
        if let Some(missing) = section.write(&mut w, room) {
            left_out.push(missing);
        }
    }
    // The longer handoff of this session, when it has one.
    if let Some(log) = input.resume_log {
        w.element("resume-log", log, ItemKind::Atom);
    }
    let mut closing = String::new();
    if !left_out.is_empty() {
        let room = chars(LEFT_OUT_ROOM) + w.remaining();
        let show = format!("ctxmon checkpoint show {}", escape_text(&id));
        // As many of the counts as fit, the most important first.
        let line = (1..=left_out.len())
            .rev()
            .map(|n| {
                let more = if n < left_out.len() { ", more" } else { "" };
                format!(
                    "<left-out>{}{more}: {show}</left-out>\n",
                    left_out[..n].join(", ")
                )
            })
            .chain(std::iter::once(format!(
                "<left-out>more: {show}</left-out>\n"
            )))
            .find(|l| chars(l) <= room);
        closing.push_str(&line.unwrap_or_default());
    }
    closing.push_str(CLOSING);
    w.finish(&closing)
}

/// One part of the tag, as it reserves room and as it is written.
enum Section<'a> {
    /// A list, its items capped at `cap`, its first item reserved at `first` (0: nothing).
    List(ListSpec<'a>, usize, usize),
    /// `<tag>text</tag>`, the text capped at `cap`, reserved at `first` (0: nothing).
    Element(&'static str, &'a str, usize, usize),
    /// Markup written whole or not at all.
    Raw(&'a str),
}

impl<'a> Section<'a> {
    fn list(spec: ListSpec<'a>, cap: usize, first: usize) -> Section<'a> {
        Section::List(spec, cap, first)
    }

    fn element(tag: &'static str, text: &'a str, cap: usize, first: usize) -> Section<'a> {
        Section::Element(tag, text, cap, first)
    }

    fn reservation(&self) -> usize {
        match self {
            Section::List(_, _, 0) | Section::Element(_, _, _, 0) => 0,
            Section::List(spec, cap, first) => list_reservation(spec, *cap, *first),
            Section::Element(tag, text, _, first) => {
                fit(text, *first, ItemKind::Text).map_or(0, |t| chars(&t) + frame(tag))
            }
            Section::Raw(markup) => chars(markup),
        }
    }

    /// Writes what fits in `room`; returns what was left out, as a few words, when anything
    /// was (a request cut short is left out in part).
    fn write(&self, w: &mut BudgetWriter, room: usize) -> Option<String> {
        match self {
            Section::List(spec, cap, _) => {
                let omitted = w.list_within(spec, *cap, room);
                (omitted > 0).then(|| {
                    let n = omitted as u64;
                    let shown = spec.entries.len() > omitted;
                    let (one, many) = spec.noun;
                    let more = if shown { "more " } else { "" };
                    format!("{} {more}{}", thousands(n), plural(n, one, many))
                })
            }
            Section::Element(tag, text, cap, _) => {
                let room = room.min(cap + frame(tag));
                let whole = chars(&escape_text(text.trim())) + frame(tag) <= room;
                let written = w.element_within(tag, text, ItemKind::Text, room);
                match (written, whole) {
                    (true, true) => None,
                    (true, false) => Some(format!("the rest of {}", tag.replace('-', " "))),
                    (false, _) => Some(format!("the {}", tag.replace('-', " "))),
                }
            }
            Section::Raw(markup) => {
                if chars(markup) <= room {
                    w.raw(markup);
                    None
                } else {
                    Some("the quality trajectory".to_string())
                }
            }
        }
    }
}

/// "branch feature/x; 3 uncommitted changes; HEAD 1a2b3c4": the branch from `.git` (else the
/// transcript's), the count from `git status` when it was known.
fn work_tree_line(cp: &CheckpointData, state: &ResumptionState) -> Option<String> {
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
fn progress(state: &ResumptionState, noun: &str) -> (Vec<String>, Vec<String>, Vec<String>) {
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
fn done_tag(noun: &str) -> String {
    format!("marked-completed-in-{}", noun.replace(' ', "-"))
}

/// The user's rules (newest first), then each call they declined with what they said. A rule
/// the current request already shows whole is not repeated.
fn rules_and_declines(state: &ResumptionState, current: Option<&str>) -> Vec<String> {
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
fn files_to_read(state: &ResumptionState) -> Vec<(String, Option<String>)> {
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
    for (path, reason) in named.chain(recent.into_iter().map(|f| (f, Some("edited recently")))) {
        if !files.iter().any(|(p, _)| p == path) {
            files.push((path.clone(), reason.map(str::to_string)));
        }
    }
    files
}

fn texts(items: &[String]) -> Vec<Entry<'_>> {
    items.iter().map(|s| Entry::Text(s)).collect()
}

/// The reservations, highest priority first, that fit in `room` together; the others are 0.
fn keep_what_fits(reservations: &[usize], room: usize) -> Vec<usize> {
    let mut left = room;
    reservations
        .iter()
        .map(|&r| {
            if r <= left {
                left -= r;
                r
            } else {
                0
            }
        })
        .collect()
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
    fn scores_stay_short() {
        assert_eq!(score_text(0.87), "0.87");
        assert_eq!(score_text(12.0), "12");
        assert_eq!(score_text(f64::MAX), "1.7976931348623157e308");
        assert_eq!(score_text(-1e12), "-1e12");
    }
}
