//! `<resumption-context>`: what SessionStart (or the prompt-submit fallback) hands back after a
//! compaction or a `/clear` (contract C6), at most 760 tokens. Beside the agent's own summary
//! it carries only what summaries lose: the agent's note, the user's standing rules and
//! declines, lessons, the unresolved failure, and checked pointers (files, commands that still
//! work, environment facts, the work tree). Alone it is the whole state, the note first. Each
//! section keeps back the room the later ones need (see `layout`), so what is shortened is
//! named in `<left-out>` with the checkpoint to read it in.

use ctxmon_domain::human::{plural, thousands};
use ctxmon_domain::xml::escape_attr;
use ctxmon_domain::{AgentNote, CheckpointData, ResumptionOrigin, ResumptionState};

use super::context_items::{
    COMMAND_CAP, created_lines, done_tag, failure_text, files_to_read, progress, quality_tag,
    rules_and_declines, todo_noun, work_tree_line,
};
use super::layout::{CLOSING, LEFT_OUT_ROOM, Section, closing, list, texts, write_within_room};
use super::note::without_under_way;
use super::present::AtHand;
use crate::handoff::budget_writer::{BudgetWriter, Entry, ItemKind};

/// The most tokens a `<resumption-context>` may take.
pub const RESUMPTION_MAX_TOKENS: u64 = 760;
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
/// A failure: the command and the lines that say what failed.
const FAILURE_CAP: usize = 700;
/// The agent's note, with the line that says when it was written: about 150 words asked for,
/// room for 250.
const NOTE_CAP: usize = 2_100;

/// What [`render_resumption_context`] renders from.
#[derive(Debug, Clone, Copy)]
pub struct ResumptionInput<'a> {
    /// The checkpoint whose resumption state is handed back.
    pub checkpoint: &'a CheckpointData,
    /// The resume log of the checkpoint's session, when it has one.
    pub resume_log: Option<&'a str>,
    /// Whether the agent also gets its own summary of the work.
    pub mode: HandBackMode,
}

/// Whether the hand-back sits beside the agent's own summary or stands alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum HandBackMode {
    /// After a compaction the agent gets its model's summary, which always restates the
    /// request, the reply, the plan and what was under way. Beside it the hand-back carries
    /// only what such a summary lacks: the agent's own note and facts checked against what
    /// happened after them (rules verbatim, declined calls, commands that work and lessons,
    /// environment, the unresolved failure, the files in use).
    #[default]
    BesideSummary,
    /// A new session (`/clear`, a restart, a resume) gets no summary: the hand-back is all it
    /// has, so it also says what is asked now, what was under way and what comes next.
    Alone,
}

/// Renders the tag, or an empty string when the checkpoint carries no resumption state (or,
/// beside a summary, nothing the summary lacks).
pub fn render_resumption_context(input: ResumptionInput<'_>) -> String {
    let cp = input.checkpoint;
    let Some(state) = cp.resumption_state.as_ref().filter(|s| !s.is_empty()) else {
        return String::new();
    };
    let id = cp.checkpoint_id.to_string();
    // Room is kept back for the line that says what was left out and where to read it: it is
    // written last, once the sections have said how much they dropped.
    let mut w = BudgetWriter::new(RESUMPTION_MAX_TOKENS, &format!("{CLOSING}{LEFT_OUT_ROOM}"));
    w.raw(&opening_tag(cp, state, &id));
    let shown = Shown::of(cp, state, input.mode);
    // The agent's own note leads: it is what the agent itself judged worth keeping.
    let mut sections = the_note(&shown);
    if input.mode == HandBackMode::BesideSummary {
        // Only what a model's summary lacks, checked against what came after it.
        sections.extend(rules_and_decisions(&shown, &id));
        sections.extend(lessons(state, &id));
        sections.extend(what_is_broken(&shown));
        sections.extend(where_things_are(state, &shown, &id));
        let before = w.remaining();
        write_within_room(&mut w, &sections);
        // Nothing the summary lacks: an empty tag would only cost tokens on every later turn.
        if w.remaining() == before {
            return String::new();
        }
        return w.finish(CLOSING);
    }
    // Alone, in the order a resuming agent needs them: what is asked now, the user's rules,
    // what was under way and what comes next, what is broken, where things are, what is done,
    // and last how the session began.
    sections.extend(what_is_asked(state, &shown));
    sections.extend(rules_and_decisions(&shown, &id));
    sections.extend(under_way(&shown, &id));
    sections.extend(what_is_broken(&shown));
    sections.extend(lessons(state, &id));
    sections.extend(where_things_are(state, &shown, &id));
    sections.extend(what_is_done(state, &shown, &id));
    sections.extend(how_it_began(&shown));
    let left_out = write_within_room(&mut w, &sections);
    // The longer handoff of this session, when it has one.
    if let Some(log) = input.resume_log {
        w.element("resume-log", log, ItemKind::Atom);
    }
    let closing = closing(&left_out, &id, w.remaining());
    w.finish(&closing)
}

/// The agent's own note, then what the transcript shows happened after it was written (the
/// user's later requests verbatim, the files edited since): a note older than the newest
/// request never stands alone as the present.
fn the_note<'a>(shown: &'a Shown<'a>) -> Vec<Section<'a>> {
    let Some(note) = &shown.note else {
        return Vec::new();
    };
    let mut sections = vec![Section::element(
        "your-note",
        &note.text,
        NOTE_CAP,
        FIRST_CAP,
    )];
    if !note.since.is_empty() {
        sections.push(Section::list(
            list(
                "since-your-note",
                ("later event", "later events"),
                "",
                texts(&note.since),
            ),
            ITEM_CAP,
            FIRST_CAP,
        ));
    }
    sections
}

/// "use `X`, not `Y`": commands that failed as written and the variant that worked.
fn lessons<'a>(state: &'a ResumptionState, id: &'a str) -> Vec<Section<'a>> {
    vec![Section::list(
        list("lessons", ("lesson", "lessons"), id, texts(&state.lessons)),
        RULE_CAP,
        FIRST_CAP,
    )]
}

/// `<resumption-context checkpoint=… sequence=… fill-at-compaction=… trigger=… created=…
/// origin=…>`.
fn opening_tag(cp: &CheckpointData, state: &ResumptionState, id: &str) -> String {
    let origin = match state.origin {
        ResumptionOrigin::SourceFile => "source-file",
        ResumptionOrigin::Transcript => "transcript",
    };
    format!(
        "<resumption-context checkpoint=\"{}\" sequence=\"{}\" fill-at-compaction=\"{}%\" trigger=\"{}\" created=\"{}\" origin=\"{origin}\">\n",
        escape_attr(id),
        cp.compaction_sequence,
        cp.context_state.percent(),
        cp.trigger.key(),
        // A hand-edited checkpoint could hold anything here; the header must stay small.
        escape_attr(&cp.timestamp.chars().take(40).collect::<String>())
    )
}

/// What the sections show, derived before any is written; the sections borrow from it.
struct Shown<'s> {
    /// The request at hand, and a short reply with what it answers.
    at_hand: AtHand<'s>,
    /// The reply quoted with what it answers.
    latest_reply: Option<String>,
    rules: Vec<String>,
    in_progress: Vec<String>,
    next_steps: Vec<String>,
    done: Vec<String>,
    /// Whose word the done items are (`marked-completed-in-todo-list`).
    done_tag: String,
    failure: Option<String>,
    files: Vec<(String, Option<String>)>,
    work_tree: Option<String>,
    decisions: Vec<String>,
    quality: Option<String>,
    first: Option<&'s str>,
    created: Vec<String>,
    /// The agent's note as shown, and what happened since it was written.
    note: Option<NoteShown>,
}

/// Tool calls after a note past which, beside a summary, its under-way part is left out.
const STALE_AFTER_CALLS: u64 = 5;

/// The note as the hand-back shows it.
struct NoteShown {
    /// A line on when and where it was written, then its text.
    text: String,
    /// The user's requests and the files edited after it.
    since: Vec<String>,
}

impl NoteShown {
    /// The note as shown; a later request that is `current` (shown as the current request when
    /// the hand-back stands alone) is not listed twice.
    fn of(note: &AgentNote, current: Option<&str>, beside: bool) -> Option<NoteShown> {
        let mut body = note.text.trim().to_string();
        if body.is_empty() {
            return None;
        }
        let when = note
            .written_at
            .as_deref()
            .map(|t| format!(" at {}", t.chars().take(40).collect::<String>()))
            .unwrap_or_default();
        // A note written before later work is history: its in-progress and next steps may be
        // done by now, and what follows it (and a summary beside it) is newer.
        let mut may_be_done = "in progress or next";
        let age = if note.is_behind() {
            let mut later = Vec::new();
            if !note.requests_after.is_empty() {
                let n = note.requests_after.len() as u64;
                later.push(format!(
                    "{} {}",
                    n,
                    plural(n, "user request", "user requests")
                ));
            }
            if note.calls_after > 0 {
                let n = note.calls_after;
                later.push(format!(
                    "{} {}",
                    thousands(n),
                    plural(n, "tool call", "tool calls")
                ));
            }
            let later = later.join(" and ");
            // Beside a summary, which knows where the work stands, what a note some steps old
            // calls under way is left out: read as the present, it contradicted the summary.
            let old = !note.requests_after.is_empty() || note.calls_after >= STALE_AFTER_CALLS;
            if beside && old {
                let marker = format!(
                    "(in progress: left out, {later} ran after it; the summary has the present)"
                );
                if let Some(kept) = without_under_way(&body, &marker) {
                    body = kept;
                    may_be_done = "next";
                }
            }
            format!("; since then {later}: what it says is {may_be_done} may be done by now")
        } else {
            String::new()
        };
        let text = format!(
            "({}{when}{age})\n{body}",
            author(&note.location, !when.is_empty())
        );
        let mut since: Vec<String> = note
            .requests_after
            .iter()
            .filter(|r| current.is_none_or(|c| c.trim() != r.trim()))
            .map(|r| format!("the user asked: \"{}\"", r.trim()))
            .collect();
        if !note.completed_after.is_empty() {
            since.push(format!(
                "marked completed since: {}",
                note.completed_after.join("; ")
            ));
        }
        if !note.files_after.is_empty() {
            since.push(format!("edited since: {}", note.files_after.join(", ")));
        }
        Some(NoteShown { text, since })
    }
}

/// Who wrote the note: the agent, in its notes folder, or the project's resumption source
/// file (an orchestrator's or a person's), named by its file name.
fn author(location: &str, dated: bool) -> String {
    let parts: Vec<&str> = location.split(['/', '\\']).collect();
    let in_notes = parts.windows(2).any(|w| w == [".ctxmon", "notes"]);
    match parts.last().filter(|name| !in_notes && !name.is_empty()) {
        Some(name) if dated => format!("from {name}, updated"),
        Some(name) => format!("from {name}"),
        None => "written by you".to_string(),
    }
}

impl<'s> Shown<'s> {
    fn of(cp: &CheckpointData, state: &'s ResumptionState, mode: HandBackMode) -> Shown<'s> {
        // A short reply with the question it answers; the task is then the request before it.
        let at_hand = AtHand::of(&state.last_user_requests, state.request_answers.as_deref());
        let noun = todo_noun(state);
        let (in_progress, next_steps, done) = progress(state, noun);
        Shown {
            at_hand,
            latest_reply: at_hand.reply_line(),
            // A rule the current request shows whole is not repeated, when that request is
            // shown: beside a summary it is not.
            rules: rules_and_declines(
                state,
                at_hand.current.filter(|_| mode == HandBackMode::Alone),
            ),
            in_progress,
            next_steps,
            done,
            done_tag: done_tag(noun),
            failure: failure_text(state),
            files: files_to_read(state),
            work_tree: work_tree_line(cp, state),
            decisions: state.decisions.iter().map(ToString::to_string).collect(),
            quality: quality_tag(state),
            // The first request only when it is not the request shown, nor the start of it:
            // never called the goal, because the work may have moved on since.
            first: state.goal.as_deref().filter(|g| at_hand.is_other(g)),
            created: created_lines(state),
            note: state
                .note
                .as_ref()
                // Alone, the current request is shown in its own element.
                .and_then(|n| {
                    let shown_apart = at_hand.current.or(at_hand.reply);
                    let alone = mode == HandBackMode::Alone;
                    NoteShown::of(n, shown_apart.filter(|_| alone), !alone)
                }),
        }
    }
}

/// What is asked now: the source file's summary, the current request (or the one already
/// answered), a short reply with what it answers, and the answer that ended the turn.
fn what_is_asked<'a>(state: &'a ResumptionState, shown: &'a Shown<'a>) -> Vec<Section<'a>> {
    let mut sections = Vec::new();
    if let Some(summary) = &state.summary {
        sections.push(Section::element("summary", summary, ITEM_CAP, FIRST_CAP));
    }
    let reply = shown.at_hand.reply;
    if let Some(text) = shown.at_hand.current {
        // A request the assistant already answered is not work to do again.
        let tag = if state.request_answered && reply.is_none() {
            "last-request-answered"
        } else {
            "current-request"
        };
        sections.push(Section::element(tag, text, REQUEST_CAP, FIRST_CAP));
    }
    if let Some(text) = &shown.latest_reply {
        // The reply is the request now, read with the proposal it answers.
        let tag = if shown.at_hand.current.is_none() {
            "current-request"
        } else {
            "latest-reply"
        };
        sections.push(Section::element(tag, text, ITEM_CAP + 200, FIRST_CAP));
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
    sections
}

/// The user's rules and declined calls, then the decisions taken.
fn rules_and_decisions<'a>(shown: &'a Shown<'a>, id: &'a str) -> Vec<Section<'a>> {
    vec![
        Section::list(
            list("user-rules", ("rule", "rules"), id, texts(&shown.rules)),
            RULE_CAP,
            FIRST_CAP,
        ),
        Section::list(
            list(
                "decisions",
                ("decision", "decisions"),
                id,
                texts(&shown.decisions),
            ),
            ITEM_CAP,
            FIRST_CAP,
        ),
    ]
}

/// What was under way, and what comes next.
fn under_way<'a>(shown: &'a Shown<'a>, id: &'a str) -> Vec<Section<'a>> {
    vec![
        Section::list(
            list(
                "in-progress",
                ("item in progress", "items in progress"),
                id,
                texts(&shown.in_progress),
            ),
            ITEM_CAP,
            FIRST_CAP,
        ),
        Section::list(
            list(
                "next-steps",
                ("next step", "next steps"),
                id,
                texts(&shown.next_steps),
            ),
            ITEM_CAP,
            FIRST_CAP,
        ),
    ]
}

/// What is broken: the newest failure still unresolved.
fn what_is_broken<'a>(shown: &'a Shown<'a>) -> Vec<Section<'a>> {
    shown
        .failure
        .iter()
        .map(|text| Section::element("unresolved-failure", text, FAILURE_CAP, FIRST_CAP))
        .collect()
}

/// Where things are: the files to read, the commands that worked, environment facts, the work
/// tree, the quality trajectory and the agents' summaries.
fn where_things_are<'a>(
    state: &'a ResumptionState,
    shown: &'a Shown<'a>,
    id: &'a str,
) -> Vec<Section<'a>> {
    let files = shown
        .files
        .iter()
        .map(|(path, reason)| match reason {
            Some(reason) => Entry::Annotated(path, reason),
            None => Entry::Atom(path),
        })
        .collect();
    let mut sections = vec![
        Section::list(
            list("files-to-read", ("file", "files"), id, files),
            PATH_CAP,
            PATH_CAP,
        ),
        Section::list(
            list(
                "commands-that-worked",
                ("command that worked", "commands that worked"),
                id,
                texts(&state.commands_ok),
            ),
            COMMAND_CAP + 4,
            COMMAND_CAP + 4,
        ),
        Section::list(
            list(
                "environment",
                ("environment fact", "environment facts"),
                id,
                texts(&state.environment),
            ),
            ITEM_CAP,
            0,
        ),
    ];
    if let Some(line) = &shown.work_tree {
        sections.push(Section::element("work-tree", line, ITEM_CAP, FIRST_CAP));
    }
    if let Some(q) = &shown.quality {
        sections.push(Section::Raw(q));
    }
    sections.push(Section::list(
        list(
            "agent-summaries",
            ("agent summary", "agent summaries"),
            id,
            texts(&state.agent_summaries),
        ),
        ITEM_CAP,
        0,
    ));
    sections
}

/// What is done: the items the agent marked completed, the commits and the files created.
fn what_is_done<'a>(
    state: &'a ResumptionState,
    shown: &'a Shown<'a>,
    id: &'a str,
) -> Vec<Section<'a>> {
    vec![
        Section::list(
            list(
                &shown.done_tag,
                ("completed item", "completed items"),
                id,
                texts(&shown.done),
            ),
            ITEM_CAP,
            FIRST_CAP,
        ),
        Section::list(
            list("commits", ("commit", "commits"), id, texts(&state.commits)),
            ITEM_CAP,
            0,
        ),
        Section::list(
            list(
                "files-created",
                ("created file", "created files"),
                id,
                texts(&shown.created),
            ),
            PATH_CAP,
            0,
        ),
    ]
}

/// How the session began: its first request, when it differs from the one shown.
fn how_it_began<'a>(shown: &'a Shown<'a>) -> Vec<Section<'a>> {
    shown
        .first
        .iter()
        .map(|text| Section::element("first-request", text, GOAL_CAP, 0))
        .collect()
}
