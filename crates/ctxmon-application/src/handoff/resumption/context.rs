//! `<resumption-context>`: what SessionStart (or the prompt-submit fallback) hands back after a
//! compaction (contract C6). At most 760 tokens, filled in priority order (issue 13): the last
//! request, the session's goal, next steps (todos and tasks), the work tree (branch,
//! uncommitted changes, commits), the unresolved failure and the last test or build, files to
//! read, subagents still running, the user's constraints, decisions, then the rest. Each
//! section keeps back the room the later ones need for their minimum — the first entry of a
//! high-priority list (a whole path for files to read), the count of any other list — so every
//! list that is shortened, even to nothing, ends with "+N more … in cx-NNN".

use ctxmon_domain::human::thousands;
use ctxmon_domain::xml::escape_attr;
use ctxmon_domain::{CheckpointData, ResumptionOrigin, ResumptionState};

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
/// The goal: the session's first request, shortened with "…" past this.
const GOAL_CAP: usize = 400;
/// A failure: the command and the lines that say what failed.
const FAILURE_CAP: usize = 700;
/// A command shown with its failure or its outcome.
const COMMAND_CAP: usize = 200;

/// An earlier compaction of the same session, for the history line.
#[derive(Debug, Clone, PartialEq)]
pub struct HistoryEntry {
    /// The earlier checkpoint's id, `cx-NNN`.
    pub checkpoint_id: String,
    /// The fill at that compaction, in whole percent.
    pub fill_percent: u64,
}

/// What [`render_resumption_context`] renders from.
#[derive(Debug, Clone, Copy)]
pub struct ResumptionInput<'a> {
    /// The checkpoint whose resumption state is handed back.
    pub checkpoint: &'a CheckpointData,
    /// Earlier checkpoints of the session, oldest first (the current one excluded).
    pub history: &'a [HistoryEntry],
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
    // The pointer to the full checkpoint is reserved with the closing tag: whatever the lists
    // leave out, the agent can still find it.
    let closing = format!(
        "<read-more>ctxmon checkpoint show {}</read-more>\n{CLOSING}",
        escape_attr(&id)
    );
    let mut w = BudgetWriter::new(RESUMPTION_MAX_TOKENS, &closing);
    w.raw(&format!(
        "<resumption-context checkpoint=\"{}\" sequence=\"{}\" fill-at-compaction=\"{}%\" trigger=\"{}\" created=\"{}\" origin=\"{origin}\">\n",
        escape_attr(&id),
        cp.compaction_sequence,
        fill.percent(),
        cp.trigger.key(),
        // A hand-edited checkpoint could hold anything here; the header must stay small.
        escape_attr(&cp.timestamp.chars().take(40).collect::<String>())
    ));
    let mut recovery = format!(
        "Context was compacted at {}% ({} of {} tokens); this is what you were doing.",
        fill.percent(),
        thousands(fill.input_tokens.get()),
        thousands(fill.context_window_size.get())
    );
    if let Some(summary) = &state.summary {
        recovery.push(' ');
        recovery.push_str(summary);
    }
    // The summary is prose of any length; capped like a list item so the priority sections
    // below always get their share.
    let recovery = fit(&recovery, ITEM_CAP, ItemKind::Text).unwrap_or_default();
    w.raw(&format!("<recovery>{recovery}</recovery>\n"));

    let (next_steps, done) = next_and_done(state);
    let files = files_to_read(state);
    let last_request = state.last_user_requests.last();
    // The goal is worth its room only when it is not the request just shown.
    let goal = state
        .goal
        .as_ref()
        .filter(|g| Some(g.trim()) != last_request.map(|r| r.trim()));
    // Earlier requests leave out the goal: it is shown above, and every token is paid again on
    // every later turn.
    let earlier: Vec<String> = state
        .last_user_requests
        .iter()
        .rev()
        .skip(1)
        .filter(|r| goal.is_none_or(|g| g.trim() != r.trim()))
        .cloned()
        .collect();
    let list = |tag, noun, entries| ListSpec {
        tag,
        noun,
        location: &id,
        entries,
    };
    let failure = state.failure.as_ref().map(|f| {
        let command = cut_raw(&f.command, COMMAND_CAP);
        if command.is_empty() {
            f.excerpt.clone()
        } else {
            format!("$ {command}\n{}", f.excerpt)
        }
    });
    // The last check only when the failure shown is not that same run.
    let check = state
        .last_check
        .as_ref()
        .filter(|c| {
            c.passed
                || state
                    .failure
                    .as_ref()
                    .is_none_or(|f| f.command != c.command)
        })
        .map(|c| {
            let outcome = if c.passed { "passed" } else { "failed" };
            format!("{} — {outcome}", cut_raw(&c.command, COMMAND_CAP))
        });
    let work_tree = work_tree_line(cp, state);
    // One line per decision here; the resume log shows the rationale under its decision.
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

    // Sections in the order a resuming agent needs them (issue 13): what was asked last, what
    // the session is for, what is left to do, the state of the work tree, what is broken, the
    // files, then the rest.
    let mut sections: Vec<Section<'_>> = Vec::new();
    if let Some(text) = last_request {
        sections.push(Section::element("last-request", text, ITEM_CAP, FIRST_CAP));
    }
    if let Some(text) = goal {
        sections.push(Section::element("goal", text, GOAL_CAP, FIRST_CAP));
    }
    sections.push(Section::list(
        list(
            "next-steps",
            ("next step", "next steps"),
            texts(&next_steps),
        ),
        ITEM_CAP,
        FIRST_CAP,
    ));
    if let Some(line) = &work_tree {
        sections.push(Section::element("work-tree", line, ITEM_CAP, FIRST_CAP));
    }
    sections.push(Section::list(
        list("commits", ("commit", "commits"), texts(&state.commits)),
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
    if let Some(text) = &check {
        sections.push(Section::element("last-check", text, ITEM_CAP, FIRST_CAP));
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
            "subagents-running",
            ("subagent", "subagents"),
            texts(&state.subagents_running),
        ),
        ITEM_CAP,
        0,
    ));
    sections.push(Section::list(
        list(
            "user-constraints",
            ("constraint", "constraints"),
            texts(&state.user_constraints),
        ),
        ITEM_CAP,
        FIRST_CAP,
    ));
    sections.push(Section::list(
        list("decisions", ("decision", "decisions"), texts(&decisions)),
        ITEM_CAP,
        FIRST_CAP,
    ));
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
    sections.push(Section::list(
        list("earlier-requests", ("request", "requests"), texts(&earlier)),
        ITEM_CAP,
        0,
    ));
    sections.push(Section::list(
        list(
            "completed",
            ("completed item", "completed items"),
            texts(&done),
        ),
        ITEM_CAP,
        0,
    ));

    // Each section takes what it can while the room the later ones need stays free: the first
    // entry of each high-priority list (or its prose, shortened), the small lines whole, the
    // count of every other list. So a long section never pushes a later one out silently: at
    // worst that one is only its count.
    let reservations: Vec<usize> = sections.iter().map(Section::reservation).collect();
    let reserved = keep_what_fits(&reservations, w.remaining());
    for (i, section) in sections.iter().enumerate() {
        let room = w
            .remaining()
            .saturating_sub(reserved[i + 1..].iter().sum::<usize>());
        section.write(&mut w, room);
    }
    if let Some(text) = &state.last_assistant_text {
        let r = ITEM_CAP + frame("last-response");
        w.element_within("last-response", text, ItemKind::Text, r);
    }
    // No `<abandoned>` line: a compaction does not end the session, and telling the agent it
    // was abandoned is false (the `SessionAbandoned` event stays in the event log only).
    if !input.history.is_empty() {
        let mut line: Vec<String> = input
            .history
            .iter()
            .map(|h| format!("{} at {}%", h.checkpoint_id, h.fill_percent))
            .collect();
        line.push(format!("{id} at {}%", fill.percent()));
        let room = w.remaining().saturating_sub(frame("compaction-history"));
        if let Some(text) = newest_that_fit(&line, room) {
            w.element("compaction-history", &text, ItemKind::Atom);
        }
    }
    if let Some(log) = input.resume_log {
        w.element("resume-log", log, ItemKind::Atom);
    }
    w.finish(&closing)
}

/// One part of the tag, as it reserves room and as it is written.
enum Section<'a> {
    /// A list, its items capped at `cap`, its first item reserved at `first` (0: the count).
    List(ListSpec<'a>, usize, usize),
    /// `<tag>text</tag>`, the text capped at `cap`, reserved at `first`.
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
            Section::List(spec, cap, first) => list_reservation(spec, *cap, *first),
            Section::Element(tag, text, _, first) => {
                fit(text, *first, ItemKind::Text).map_or(0, |t| chars(&t) + frame(tag))
            }
            Section::Raw(markup) => chars(markup),
        }
    }

    fn write(&self, w: &mut BudgetWriter, room: usize) {
        match self {
            Section::List(spec, cap, _) => {
                w.list_within(spec, *cap, room);
            }
            Section::Element(tag, text, cap, _) => {
                w.element_within(tag, text, ItemKind::Text, room.min(cap + frame(tag)));
            }
            Section::Raw(markup) => {
                if chars(markup) <= room {
                    w.raw(markup);
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

/// Next steps and completed work: the source file's `next_steps`, or — derived from the
/// transcript — the open todos and tasks (in progress first) and the completed ones.
fn next_and_done(state: &ResumptionState) -> (Vec<String>, Vec<String>) {
    let mut next = state.next_steps.clone();
    let mut in_progress = Vec::new();
    let mut pending = Vec::new();
    let mut done = Vec::new();
    for todo in state.todos.iter().chain(&state.tasks) {
        match todo.status.as_str() {
            "completed" => done.push(todo.content.clone()),
            "in_progress" => in_progress.push(format!("[in progress] {}", todo.content)),
            _ => pending.push(todo.content.clone()),
        }
    }
    next.extend(in_progress);
    next.extend(pending);
    (next, done)
}

/// What to read, as (path, reason): the source file's `files_to_read` in its order, then the
/// files the session was editing, most recent first.
fn files_to_read(state: &ResumptionState) -> Vec<(String, Option<String>)> {
    let mut files: Vec<(String, Option<String>)> = state
        .files_to_read
        .iter()
        .map(|f| {
            let reason = f.reason.as_deref().map(str::trim).filter(|r| !r.is_empty());
            (f.path.clone(), reason.map(str::to_string))
        })
        .collect();
    for touched in state.files_touched.iter().rev() {
        if !state.files_to_read.iter().any(|f| &f.path == touched) {
            files.push((touched.clone(), None));
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

/// `items` joined with ", " in at most `max` characters: all of them, else the newest that fit
/// after `+N earlier, `. Items are ids and never cut.
fn newest_that_fit(items: &[String], max: usize) -> Option<String> {
    let all = items.join(", ");
    if chars(&all) <= max {
        return Some(all);
    }
    for keep in (1..items.len()).rev() {
        let dropped = items.len() - keep;
        let text = format!(
            "+{} earlier, {}",
            thousands(dropped as u64),
            items[dropped..].join(", ")
        );
        if chars(&text) <= max {
            return Some(text);
        }
    }
    None
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

    #[test]
    fn a_long_history_keeps_the_newest_and_counts_the_rest() {
        let items: Vec<String> = (1..=9).map(|i| format!("cx-00{i} at 85%")).collect();
        assert_eq!(
            newest_that_fit(&items[..2], 100).as_deref(),
            Some("cx-001 at 85%, cx-002 at 85%")
        );
        assert_eq!(
            newest_that_fit(&items, 50).as_deref(),
            Some("+7 earlier, cx-008 at 85%, cx-009 at 85%")
        );
        assert_eq!(newest_that_fit(&items, 10), None);
    }
}
