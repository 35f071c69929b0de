//! `<resumption-context>`: what SessionStart (or the prompt-submit fallback) hands back after a
//! compaction (spec §6). At most 760 tokens, filled in priority order: next steps, files to
//! read, last request, decisions, then the rest. Each section keeps back the room the later
//! ones need for their minimum — the first entry of a high-priority list (a whole path for
//! files to read), the count of any other list — so every list that is shortened, even to
//! nothing, ends with "+N more … in cx-NNN".

use ctxmon_domain::xml::escape_attr;
use ctxmon_domain::{CheckpointData, ResumptionOrigin, ResumptionState};

use crate::budget_writer::{
    BudgetWriter, Entry, ItemKind, ListSpec, chars, fit, frame, list_reservation,
};

pub const RESUMPTION_MAX_TOKENS: u64 = 760;
const CLOSING: &str = "</resumption-context>";
/// A single prose item never takes more than this, so one huge item cannot starve the rest.
const ITEM_CAP: usize = 400;
const PATH_CAP: usize = 300;
/// What the first entry of a high-priority list is shortened to when room is tight.
const FIRST_CAP: usize = 160;

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
        fill.input_tokens,
        fill.context_window_size.get()
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
    let earlier: Vec<String> = state
        .last_user_requests
        .iter()
        .rev()
        .skip(1)
        .cloned()
        .collect();
    let list = |tag, noun, entries| ListSpec {
        tag,
        noun,
        location: &id,
        entries,
    };
    let next_list = list("next-steps", "next steps", texts(&next_steps));
    let files_list = list(
        "files-to-read",
        "files",
        files
            .iter()
            .map(|(path, reason)| match reason {
                Some(reason) => Entry::Annotated(path, reason),
                None => Entry::Atom(path),
            })
            .collect(),
    );
    // One line per decision here; the resume log shows the rationale under its decision.
    let decisions: Vec<String> = state.decisions.iter().map(ToString::to_string).collect();
    let decisions_list = list("decisions", "decisions", texts(&decisions));
    let agents_list = list(
        "agent-summaries",
        "agent summaries",
        texts(&state.agent_summaries),
    );
    let earlier_list = list("earlier-requests", "requests", texts(&earlier));
    let completed_list = list("completed", "completed items", texts(&done));
    let last_request = state.last_user_requests.last();
    let quality = state.quality_trajectory.as_ref().map(|q| {
        let score = q.score.map_or("unknown".to_string(), |s| format!("{s}"));
        let iteration = q.iteration.map_or("unknown".to_string(), |i| i.to_string());
        format!(
            "<quality-trajectory score=\"{}\" iteration=\"{}\"/>\n",
            escape_attr(&score),
            escape_attr(&iteration)
        )
    });

    // Filled in priority order (spec §6), each section taking what it can while the room the
    // later ones need stays free: the first entry of each high-priority list (and the last
    // request, shortened), the quality line, and the count of every other list. So a long
    // list never pushes a later one out silently: at worst that one is only its count.
    let reserved = keep_what_fits(
        &[
            list_reservation(&next_list, ITEM_CAP, FIRST_CAP),
            list_reservation(&files_list, PATH_CAP, PATH_CAP),
            last_request.map_or(0, |text| {
                fit(text, FIRST_CAP, ItemKind::Text)
                    .map_or(0, |t| chars(&t) + frame("last-request"))
            }),
            list_reservation(&decisions_list, ITEM_CAP, FIRST_CAP),
            quality.as_deref().map_or(0, chars),
            list_reservation(&agents_list, ITEM_CAP, 0),
            list_reservation(&earlier_list, ITEM_CAP, 0),
            list_reservation(&completed_list, ITEM_CAP, 0),
        ],
        w.remaining(),
    );
    let room = |w: &BudgetWriter, section: usize| {
        w.remaining()
            .saturating_sub(reserved[section + 1..].iter().sum::<usize>())
    };
    w.list_within(&next_list, ITEM_CAP, room(&w, 0));
    w.list_within(&files_list, PATH_CAP, room(&w, 1));
    if let Some(last) = last_request {
        let r = room(&w, 2).min(ITEM_CAP + frame("last-request"));
        w.element_within("last-request", last, ItemKind::Text, r);
    }
    w.list_within(&decisions_list, ITEM_CAP, room(&w, 3));

    // The rest, in the order an agent resuming would want it.
    if let Some(q) = &quality
        && chars(q) <= room(&w, 4)
    {
        w.raw(q);
    }
    w.list_within(&agents_list, ITEM_CAP, room(&w, 5));
    w.list_within(&earlier_list, ITEM_CAP, room(&w, 6));
    w.list_within(&completed_list, ITEM_CAP, room(&w, 7));
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
        let text = format!("+{dropped} earlier, {}", items[dropped..].join(", "));
        if chars(&text) <= max {
            return Some(text);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

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
