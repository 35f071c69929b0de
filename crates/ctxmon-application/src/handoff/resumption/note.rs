//! The agent's own resumption note, as a checkpoint keeps it: its text (trimmed, capped), when
//! it was written, and what the transcript shows happened after that — the user's later
//! requests verbatim and the files edited since. The agent knows best what matters; the
//! transcript knows what the note cannot, so a note never outranks what came after it.
//!
//! Where the note stands in the transcript: the newest write of the note's file the agent
//! made through a file tool; without one (a shell wrote it, or the write is older than the
//! tail), the file's modification time against the records' timestamps.

use std::collections::HashMap;

use ctxmon_domain::{AgentNote, Timestamp, Todo};

use super::text::{capped, dedup_keep_last, path_str};
use crate::ports::{NoteFile, RecordBody, ToolKind, TranscriptRecord};

/// The most of a note file that is read: several times the 150 words asked for, so a long
/// note is cut here rather than read whole.
pub const NOTE_MAX_BYTES: usize = 16 * 1024;
/// The most of a note that is kept.
const NOTE_CHARS: usize = 2_000;
/// Of the requests after the note, the newest this many are kept, each capped.
const REQUESTS_AFTER: usize = 3;
const REQUEST_AFTER_CHARS: usize = 400;
/// The most files edited after the note that are kept.
const FILES_AFTER: usize = 8;

/// The note `file` at `location`, with what `records` (the transcript's tail, oldest first)
/// show after it; `None` when the note says nothing.
pub(crate) fn note_of(
    file: &NoteFile,
    location: &str,
    records: &[TranscriptRecord],
) -> Option<AgentNote> {
    let text = note_text(&file.text, file.cut)?;
    let after = position_after(location, file.modified, records);
    let mut requests_after = Vec::new();
    let mut files_after = Vec::new();
    let mut completed_after = Vec::new();
    let mut calls_after = 0u64;
    if let Some(from) = after {
        let (before, later) = records.split_at(from.min(records.len()));
        // Items already done when the note was written are the note's business.
        let done_then: Vec<&str> = before
            .iter()
            .rev()
            .filter(|r| !r.sidechain)
            .find_map(|r| todo_list(r))
            .map(|list| completed(list).collect())
            .unwrap_or_default();
        let mut writes: HashMap<&str, String> = HashMap::new();
        for record in later.iter().filter(|r| !r.sidechain) {
            if matches!(record.body, RecordBody::ToolCall(_)) {
                calls_after += 1;
            }
            match &record.body {
                RecordBody::Request(q) if q.kind.is_real() => {
                    requests_after.extend(capped(q.text.trim(), REQUEST_AFTER_CHARS));
                }
                RecordBody::ToolCall(c) if c.kind == ToolKind::FileWrite => {
                    if let (Some(id), Some(path)) =
                        (c.id.as_deref(), c.file_path.as_deref().and_then(path_str))
                        && !is_the_note(&path, location)
                    {
                        writes.insert(id, path);
                    }
                }
                // Only a write that happened is an edit: a declined or failed one changed
                // nothing.
                RecordBody::ToolResult(r) => {
                    let done = !r.is_error && r.rejected.is_none();
                    if let Some(path) = r.tool_use_id.as_deref().and_then(|id| writes.remove(id))
                        && done
                    {
                        files_after.push(path);
                    }
                }
                _ => {}
            }
            if let Some(list) = todo_list(record) {
                completed_after = completed(list)
                    .filter(|t| !done_then.contains(t))
                    .filter_map(|t| capped(t, REQUEST_AFTER_CHARS))
                    .collect();
            }
        }
    }
    let over = requests_after.len().saturating_sub(REQUESTS_AFTER);
    requests_after.drain(..over);
    let mut files_after = dedup_keep_last(files_after, FILES_AFTER);
    files_after.reverse();
    Some(AgentNote {
        text,
        location: location.to_string(),
        written_at: file.modified.map(Timestamp::to_rfc3339),
        requests_after,
        files_after,
        completed_after,
        calls_after,
    })
}

/// The todo list a record sets, if it sets one.
fn todo_list(record: &TranscriptRecord) -> Option<&[Todo]> {
    match &record.body {
        RecordBody::ToolCall(c) if c.kind == ToolKind::TodoList => c.todos.as_deref(),
        _ => None,
    }
}

fn completed(list: &[Todo]) -> impl Iterator<Item = &str> {
    list.iter()
        .filter(|t| t.status == "completed")
        .map(|t| t.content.as_str())
}

/// The note's text: trimmed, control characters other than line breaks and tabs dropped (a
/// note is read back to the agent as text), capped at [`NOTE_CHARS`]; a note cut on reading
/// says so.
fn note_text(raw: &str, cut: bool) -> Option<String> {
    let clean: String = raw
        .chars()
        .filter(|c| !c.is_control() || matches!(c, '\n' | '\t'))
        .collect();
    let trimmed = clean.trim();
    if trimmed.is_empty() {
        return None;
    }
    let mut text = capped(trimmed, NOTE_CHARS)?;
    if cut && !text.ends_with('…') {
        text.push_str(" …");
    }
    Some(text)
}

/// The index of the first record after the note was written, or `None` when it cannot be
/// told.
fn position_after(
    location: &str,
    modified: Option<Timestamp>,
    records: &[TranscriptRecord],
) -> Option<usize> {
    let written = records.iter().rposition(|r| {
        !r.sidechain
            && matches!(&r.body, RecordBody::ToolCall(c)
                if c.kind == ToolKind::FileWrite
                    && c.file_path.as_deref().is_some_and(|p| is_the_note(p, location)))
    });
    if let Some(at) = written {
        return Some(at + 1);
    }
    let modified = modified?;
    // The first record written after the file was.
    let first_later = records.iter().position(|r| {
        r.timestamp
            .as_deref()
            .and_then(Timestamp::parse_rfc3339)
            .is_some_and(|t| t > modified)
    });
    // A note newer than everything in the tail has nothing after it.
    Some(first_later.unwrap_or(records.len()))
}

/// Whether `path` (as a tool call wrote it) is the note at `location`: the same path, or one
/// ending in the note's folder and name (a relative path, another spelling of the project).
fn is_the_note(path: &str, location: &str) -> bool {
    if path == location {
        return true;
    }
    let tail = |p: &str| -> Option<String> {
        let mut parts = p.rsplit(['/', '\\']);
        let name = parts.next()?;
        let folder = parts.next()?;
        let root = parts.next()?;
        Some(format!("{root}/{folder}/{name}"))
    };
    tail(path).is_some_and(|t| Some(t) == tail(location))
}

/// Headings of the part of a note that says what is under way, lower-cased, in the languages
/// notes are written in (an agent writes its note in its user's language).
const UNDER_WAY: &[&str] = &[
    "in progress",
    "in-progress",
    "under way",
    "underway",
    "working on",
    "currently",
    "current work",
    "current step",
    "in arbeit",
    "in bearbeitung",
    "laufend",
    "en curso",
    "en progreso",
    "en cours",
    "进行中",
    "正在进行",
];

/// `text` without the parts its headings name as under way (`## In progress`,
/// `**In Arbeit:** …`, `In progress: …`), each replaced by `marker`; `None` when it has none.
///
/// Beside a model's summary, a note written some steps before the compaction said what was
/// under way then: readers took that line for the present, against the summary, which knows
/// where the work stands now. Its other parts (goal, done, decisions, gotchas, next) last.
pub(crate) fn without_under_way(text: &str, marker: &str) -> Option<String> {
    let mut out: Vec<&str> = Vec::new();
    let mut dropping = false;
    let mut dropped = false;
    for line in text.lines() {
        if let Some(label) = heading_label(line) {
            dropping = is_under_way(&label);
            if dropping {
                dropped = true;
                out.push(marker);
                continue;
            }
        }
        if !dropping {
            out.push(line);
        }
    }
    dropped.then(|| out.join("\n"))
}

/// The other parts a note is asked for, as plain labels (`Next: …`) name them: a plain label
/// opens a part only when it is one of these, so a line of the under-way part that happens to
/// hold a colon ("Kanonisierung prüfen: …") is not taken for the next part.
const OTHER_PARTS: &[&str] = &[
    "goal",
    "done",
    "next",
    "next steps",
    "decisions",
    "gotchas",
    "notes",
    "status",
    "ziel",
    "erledigt",
    "als nächstes",
    "nächste schritte",
    "entscheidungen",
    "objetivo",
    "hecho",
    "siguiente",
    "decisiones",
    "objectif",
    "fait",
    "ensuite",
    "目标",
    "已完成",
    "下一步",
];

/// The label of a line that opens a part of a note, lower-cased: a markdown heading, a bold
/// label (`**Next:** …`), or a known label ending in a colon (`Next: …`).
fn heading_label(line: &str) -> Option<String> {
    let t = line.trim();
    let (label, plain) = if let Some(rest) = t.strip_prefix('#') {
        (rest.trim_start_matches('#'), false)
    } else if let Some(rest) = t.strip_prefix("**") {
        (rest.split("**").next()?, false)
    } else {
        (t.split_once([':', '：'])?.0, true)
    };
    let label = label
        .trim()
        .trim_end_matches([':', '：'])
        .trim()
        .to_lowercase();
    if label.is_empty() || label.chars().count() > 40 {
        return None;
    }
    let known = || is_under_way(&label) || OTHER_PARTS.iter().any(|p| label.starts_with(p));
    (!plain || known()).then_some(label)
}

/// The label alone, or followed by an aside (`In progress (C-3)`, `In progress / next`).
fn is_under_way(label: &str) -> bool {
    UNDER_WAY.iter().any(|m| {
        label.strip_prefix(m).is_some_and(|rest| {
            let rest = rest.trim_start();
            rest.is_empty() || rest.starts_with(['(', '/', '-', '–', '&', ',', '+'])
        })
    })
}

#[cfg(test)]
#[path = "note_tests.rs"]
mod tests;
