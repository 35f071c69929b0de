//! `<resumption-context>`: what SessionStart (or the prompt-submit fallback) hands back after a
//! compaction (spec §6). At most 760 tokens, filled in priority order: next steps, files to
//! read, last request, decisions, then the rest.

use ctxmon_domain::xml::escape_attr;
use ctxmon_domain::{CheckpointData, ResumptionOrigin, ResumptionState};

use crate::budget_writer::{BudgetWriter, ItemKind};

pub const RESUMPTION_MAX_TOKENS: u64 = 760;
const CLOSING: &str = "</resumption-context>";
/// A single prose item never takes more than this, so one huge item cannot starve the rest.
const ITEM_CAP: usize = 400;
const PATH_CAP: usize = 300;

/// An earlier compaction of the same session, for the history line.
#[derive(Debug, Clone, PartialEq)]
pub struct HistoryEntry {
    pub checkpoint_id: String,
    pub fill_percent: u64,
}

#[derive(Debug, Clone, Copy)]
pub struct ResumptionInput<'a> {
    pub checkpoint: &'a CheckpointData,
    /// Earlier checkpoints of the session, oldest first (the current one excluded).
    pub history: &'a [HistoryEntry],
    /// The newest resume log, when one exists.
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
        fill.input_tokens,
        fill.context_window_size.get()
    );
    if let Some(summary) = &state.summary {
        recovery.push(' ');
        recovery.push_str(summary);
    }
    // The summary is prose of any length; capped like a list item so the priority sections
    // below always get their share.
    let recovery =
        crate::budget_writer::fit(&recovery, ITEM_CAP, ItemKind::Text).unwrap_or_default();
    w.raw(&format!("<recovery>{recovery}</recovery>\n"));

    let (next_steps, done) = next_and_done(state);
    w.list(
        "next-steps",
        "next steps",
        &id,
        &next_steps,
        ItemKind::Text,
        ITEM_CAP,
    );
    w.list(
        "files-to-read",
        "files",
        &id,
        &files_to_read(state),
        ItemKind::Atom,
        PATH_CAP,
    );
    if let Some(last) = state.last_user_requests.last() {
        w.element("last-request", last, ItemKind::Text);
    }
    w.list(
        "decisions",
        "decisions",
        &id,
        &state.decisions,
        ItemKind::Text,
        ITEM_CAP,
    );

    // The rest, in the order an agent resuming would want it.
    if let Some(q) = &state.quality_trajectory {
        let score = q.score.map_or("unknown".to_string(), |s| format!("{s}"));
        let iteration = q.iteration.map_or("unknown".to_string(), |i| i.to_string());
        w.raw(&format!(
            "<quality-trajectory score=\"{}\" iteration=\"{}\"/>\n",
            escape_attr(&score),
            escape_attr(&iteration)
        ));
    }
    w.list(
        "agent-summaries",
        "agent summaries",
        &id,
        &state.agent_summaries,
        ItemKind::Text,
        ITEM_CAP,
    );
    let earlier: Vec<String> = state
        .last_user_requests
        .iter()
        .rev()
        .skip(1)
        .cloned()
        .collect();
    w.list(
        "earlier-requests",
        "requests",
        &id,
        &earlier,
        ItemKind::Text,
        ITEM_CAP,
    );
    w.list(
        "completed",
        "completed items",
        &id,
        &done,
        ItemKind::Text,
        ITEM_CAP,
    );
    if let Some(text) = &state.last_assistant_text {
        w.element("last-response", text, ItemKind::Text);
    }
    w.element(
        "abandoned",
        &format!("session abandoned: compaction at {}%", fill.percent()),
        ItemKind::Text,
    );
    if !input.history.is_empty() {
        let mut line: Vec<String> = input
            .history
            .iter()
            .map(|h| format!("{} at {}%", h.checkpoint_id, h.fill_percent))
            .collect();
        line.push(format!("{id} at {}%", fill.percent()));
        w.element("compaction-history", &line.join(", "), ItemKind::Atom);
    }
    if let Some(log) = input.resume_log {
        w.element("resume-log", log, ItemKind::Atom);
    }
    w.finish(&closing)
}

/// Next steps and completed work: the source file's `next_steps`, or — derived from the
/// transcript — the open todos (in progress first) and the completed ones.
fn next_and_done(state: &ResumptionState) -> (Vec<String>, Vec<String>) {
    let mut next = state.next_steps.clone();
    let mut in_progress = Vec::new();
    let mut pending = Vec::new();
    let mut done = Vec::new();
    for todo in &state.todos {
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

fn files_to_read(state: &ResumptionState) -> Vec<String> {
    let mut files: Vec<String> = state
        .files_to_read
        .iter()
        .map(|f| match &f.reason {
            Some(reason) if !reason.trim().is_empty() => format!("{} ({})", f.path, reason.trim()),
            _ => f.path.clone(),
        })
        .collect();
    // Files the session was editing, most recent first, after the ones the source file names.
    for touched in state.files_touched.iter().rev() {
        if !state.files_to_read.iter().any(|f| &f.path == touched) {
            files.push(touched.clone());
        }
    }
    files
}
