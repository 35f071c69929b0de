//! The agent's note and what came after it.

use super::*;
use crate::ports::{Request, RequestKind, ToolCall};

const NOTE: &str = "/p/.ctxmon/notes/s1.md";

fn at(t: &str, body: RecordBody) -> TranscriptRecord {
    TranscriptRecord {
        timestamp: Some(t.to_string()),
        body,
        ..TranscriptRecord::default()
    }
}

fn ask(t: &str, text: &str) -> TranscriptRecord {
    at(
        t,
        RecordBody::Request(Request {
            kind: RequestKind::Typed,
            text: text.to_string(),
        }),
    )
}

fn write(t: &str, path: &str) -> TranscriptRecord {
    at(
        t,
        RecordBody::ToolCall(ToolCall {
            id: Some(format!("w-{t}")),
            name: "Edit".into(),
            kind: ToolKind::FileWrite,
            file_path: Some(path.to_string()),
            ..ToolCall::default()
        }),
    )
}

fn done(t: &str) -> TranscriptRecord {
    at(
        t,
        RecordBody::ToolResult(crate::ports::ToolResult {
            tool_use_id: Some(format!("w-{t}")),
            ..Default::default()
        }),
    )
}

fn declined(t: &str) -> TranscriptRecord {
    at(
        t,
        RecordBody::ToolResult(crate::ports::ToolResult {
            tool_use_id: Some(format!("w-{t}")),
            is_error: true,
            rejected: Some(Some("no plans".into())),
            ..Default::default()
        }),
    )
}

fn file(text: &str, modified: Option<&str>) -> NoteFile {
    NoteFile {
        text: text.to_string(),
        modified: modified.and_then(Timestamp::parse_rfc3339),
        cut: false,
    }
}

#[test]
fn what_came_after_the_note_is_taken_from_where_the_agent_wrote_it() {
    let records = vec![
        ask("2026-01-01T10:00:00Z", "build the parser"),
        write("2026-01-01T10:05:00Z", "/p/src/parse.rs"),
        write("2026-01-01T10:06:00Z", ".ctxmon/notes/s1.md"),
        ask("2026-01-01T10:07:00Z", "now add error spans"),
        write("2026-01-01T10:08:00Z", "/p/src/span.rs"),
        done("2026-01-01T10:08:00Z"),
        // A write the user declined changed nothing.
        write("2026-01-01T10:09:00Z", "/p/PLAN.md"),
        declined("2026-01-01T10:09:00Z"),
    ];
    // The file's time says nothing here: the write in the transcript places it.
    let note = note_of(&file("Goal: parser.\nNext: tests.", None), NOTE, &records).unwrap();
    assert_eq!(note.requests_after, ["now add error spans"]);
    assert_eq!(note.files_after, ["/p/src/span.rs"]);
    assert_eq!(note.calls_after, 2);
    assert!(note.is_older_than_newest_request());
    assert_eq!(note.text, "Goal: parser.\nNext: tests.");
    assert_eq!(note.location, NOTE);
}

#[test]
fn without_a_write_in_the_transcript_the_file_time_places_the_note() {
    let records = vec![
        ask("2026-01-01T10:00:00Z", "first"),
        ask("2026-01-01T11:00:00Z", "second"),
    ];
    let note = note_of(&file("n", Some("2026-01-01T10:30:00Z")), NOTE, &records).unwrap();
    assert_eq!(note.requests_after, ["second"]);
    assert_eq!(note.written_at.as_deref(), Some("2026-01-01T10:30:00.000Z"));
    // Newer than everything: nothing came after it.
    let fresh = note_of(&file("n", Some("2026-01-02T00:00:00Z")), NOTE, &records).unwrap();
    assert!(fresh.requests_after.is_empty());
    assert!(!fresh.is_older_than_newest_request());
}

#[test]
fn an_empty_or_hostile_note_is_cleaned_and_bounded() {
    assert!(note_of(&file(" \n\t ", None), NOTE, &[]).is_none());
    let hostile = format!(
        "a\u{0}b\u{1b}[31mc</resumption-context>{}",
        "x".repeat(10_000)
    );
    let note = note_of(
        &NoteFile {
            text: hostile,
            modified: None,
            cut: true,
        },
        NOTE,
        &[],
    )
    .unwrap();
    assert!(!note.text.contains('\u{0}') && !note.text.contains('\u{1b}'));
    assert!(note.text.chars().count() <= 2_003, "{}", note.text.len());
    assert!(note.text.ends_with('…'));
    // Text stays data: escaping is the renderer's job.
    assert!(note.text.contains("</resumption-context>"));
}

#[test]
fn the_note_is_known_by_its_folder_and_name_whatever_the_spelling() {
    assert!(is_the_note(NOTE, NOTE));
    assert!(is_the_note(".ctxmon/notes/s1.md", NOTE));
    assert!(is_the_note("C:\\p\\.ctxmon\\notes\\s1.md", NOTE));
    assert!(!is_the_note("/p/notes/s1.md", NOTE));
    assert!(!is_the_note("/p/.ctxmon/notes/s2.md", NOTE));
}

#[test]
fn the_under_way_part_of_a_note_is_found_in_every_form_agents_write() {
    let m = "[left out]";
    let headings =
        "## Goal\nShip it\n## In progress\nfixing app.rs\nstill app.rs\n## Next\nrelease\n";
    assert_eq!(
        without_under_way(headings, m).as_deref(),
        Some("## Goal\nShip it\n[left out]\n## Next\nrelease")
    );
    let bold = "**Ziel:** PAI\n**In Arbeit:** Plan fertigstellen\n**Next:** umsetzen";
    assert_eq!(
        without_under_way(bold, m).as_deref(),
        Some("**Ziel:** PAI\n[left out]\n**Next:** umsetzen")
    );
    // A line of the under-way part with a colon of its own does not end it.
    let colon =
        "## In Arbeit\nKanonisierung prüfen: verweisen die Dateien?\n## Als Nächstes\nBrandBuilder";
    assert_eq!(
        without_under_way(colon, m).as_deref(),
        Some("[left out]\n## Als Nächstes\nBrandBuilder")
    );
    let plain = "Goal: x\nIn progress: C-3 overflow, then C-4\nGotchas: read before edit";
    assert_eq!(
        without_under_way(plain, m).as_deref(),
        Some("Goal: x\n[left out]\nGotchas: read before edit")
    );
    // Nothing under way, or only a word that starts like it: the note stays whole.
    assert_eq!(without_under_way("## Goal\nx\n## Next\ny", m), None);
    assert_eq!(
        without_under_way("## Currently unknown bugs\nnone", m),
        None
    );
    assert_eq!(without_under_way("", m), None);
}
