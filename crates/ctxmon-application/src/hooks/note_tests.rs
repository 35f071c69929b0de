//! The agent's own note through the hooks: the tag names it, PreCompact copies it, the hand-back
//! puts it first; `/clear` checkpoints the ending session and the next one gets it all; a stale
//! source file never takes the transcript's place.

use ctxmon_domain::{CompactionTrigger, ResumptionOrigin, Timestamp};

use super::lifecycle::session_end;
use super::pre_compact::{PreCompactInput, pre_compact};
use super::pre_tool_use::pre_tool_use;
use super::test_world::World;
use crate::config::InjectPolicy;
use crate::fakes::records;
use crate::ports::{CheckpointRepository, NoteFile, SourceDocument};

const NOTE_PATH: &str = "/proj/.ctxmon/notes/s1.md";

fn note(text: &str, at: &str) -> NoteFile {
    NoteFile {
        text: text.to_string(),
        modified: Timestamp::parse_rfc3339(at),
        cut: false,
    }
}

fn world() -> World {
    let w = World::new(InjectPolicy::Always);
    *w.tail.0.borrow_mut() = vec![
        records::request("Port the parser").at("2026-11-20T09:00:00Z"),
        records::write("Edit", "/proj/src/parser.rs").at("2026-11-20T09:10:00Z"),
        records::request("now add error spans").at("2026-11-20T09:40:00Z"),
        records::write("Edit", "/proj/src/span.rs").at("2026-11-20T09:50:00Z"),
        records::result_record(records::result("w", false, "")).at("2026-11-20T09:50:00Z"),
    ];
    w
}

#[test]
fn the_tag_names_the_note_from_warning_up_and_asks_for_it_now_at_critical() {
    let w = world();
    w.script.usage(100_000);
    let nominal = w.prompt().additional_context.unwrap_or_default();
    assert!(!nominal.contains(".ctxmon/notes"), "{nominal}");
    w.script.usage(145_000);
    let warning = w.prompt().additional_context.unwrap();
    assert!(
        warning.contains(&format!("Keep your resumption note current in {NOTE_PATH}")),
        "{warning}"
    );
    assert!(
        warning.contains("goal, done, in progress, next, decisions, gotchas"),
        "{warning}"
    );
    w.script.usage(162_000);
    let critical = w.prompt().additional_context.unwrap();
    assert!(
        critical.contains(&format!("Update your resumption note now: {NOTE_PATH}")),
        "{critical}"
    );
    // No note written since the last prompt: nothing about /clear.
    assert!(!critical.contains("/clear"), "{critical}");
    roxmltree::Document::parse(&critical).unwrap();
}

#[test]
fn a_note_written_since_the_last_prompt_lets_the_critical_tag_offer_clear() {
    let w = world();
    w.script.usage(162_000);
    w.prompt();
    // Written after that prompt (the world's clock started at 10:00).
    *w.files.note.borrow_mut() = Some(note("Goal: parser.", "2026-11-20T10:05:00Z"));
    let tag = w.prompt().additional_context.unwrap();
    assert!(
        tag.contains("the user can /clear instead of waiting for a compaction"),
        "{tag}"
    );
}

#[test]
fn precompact_keeps_the_note_and_what_came_after_it_and_the_hand_back_leads_with_it() {
    let w = world();
    *w.files.note.borrow_mut() = Some(note(
        "Goal: strict parser.\nGotcha: run `py -m pytest`.",
        "2026-11-20T09:20:00Z",
    ));
    w.script.usage(170_000);
    let cp = w
        .with(|c, p| pre_compact(c, p, &w.logs, PreCompactInput::default()))
        .checkpoint
        .unwrap();
    let kept = cp.resumption_state.unwrap().note.unwrap();
    assert_eq!(kept.location, NOTE_PATH);
    assert_eq!(kept.requests_after, ["now add error spans"]);
    assert_eq!(kept.files_after, ["/proj/src/span.rs"]);
    let text = w.start(Some("compact")).additional_context.unwrap();
    assert!(text.contains("<your-note>(written by you at 2026-11-20T09:20:00.000Z; since then 1 user request and 1 tool call"), "{text}");
    assert!(
        text.find("<your-note>") < text.find("<since-your-note>"),
        "{text}"
    );
    assert!(!text.contains("<current-request>"), "{text}");
}

#[test]
fn clear_checkpoints_the_ending_session_and_the_next_one_gets_the_whole_hand_back() {
    let mut w = world();
    *w.files.note.borrow_mut() = Some(note("Goal: strict parser.", "2026-11-20T09:55:00Z"));
    w.script.usage(120_000);
    let warnings = w.with(|c, p| session_end(c, p, &w.logs, Some("clear")));
    assert!(warnings.is_empty(), "{warnings:?}");
    let saved = w.checkpoints.latest_unacknowledged(None).unwrap().unwrap();
    assert_eq!(saved.trigger, CompactionTrigger::Clear);
    // A clear is not a compaction: the events say so.
    assert!(
        !w.event_names().contains(&"compaction_detected"),
        "{:?}",
        w.event_names()
    );
    // The session after the clear has a new id.
    w.session = "s2".into();
    let text = w.start(Some("clear")).additional_context.unwrap();
    assert!(text.contains("trigger=\"clear\""), "{text}");
    assert!(text.contains("Goal: strict parser."), "{text}");
    assert!(
        text.contains("<current-request>now add error spans</current-request>"),
        "{text}"
    );
    // Any other end of a session saves nothing.
    let before = w.checkpoints.list().unwrap().checkpoints.len();
    w.with(|c, p| session_end(c, p, &w.logs, Some("prompt_input_exit")));
    assert_eq!(w.checkpoints.list().unwrap().checkpoints.len(), before);
}

#[test]
fn a_stale_source_file_never_replaces_the_transcript_on_a_first_compaction() {
    let w = world();
    *w.source.0.borrow_mut() = Some(SourceDocument {
        path: "ORCHESTRATION.yaml".into(),
        section: Some(serde_json::json!({
            "summary": "Old plan: build the lexer",
            "decisions": ["Hand-written lexer"],
            "updated_at": "2020-01-01T00:00:00Z",
        })),
        warnings: vec![],
    });
    w.script.usage(170_000);
    let state = w
        .with(|c, p| pre_compact(c, p, &w.logs, PreCompactInput::default()))
        .checkpoint
        .unwrap()
        .resumption_state
        .unwrap();
    // No checkpoint existed: the file is still older than the session's latest activity.
    assert_eq!(state.origin, ResumptionOrigin::Transcript);
    assert_eq!(state.decisions, ["Hand-written lexer"]);
    // Its summary comes back as the account it was, with what happened after it.
    let old = state.note.unwrap();
    assert_eq!(old.text, "Old plan: build the lexer");
    assert_eq!(old.requests_after.len(), 2);
    let text = w.start(Some("compact")).additional_context.unwrap();
    assert!(text.contains("origin=\"transcript\""), "{text}");
}

#[test]
fn editing_part_of_a_stale_note_asks_for_the_whole_note() {
    let w = world();
    *w.files.note.borrow_mut() = Some(note("Goal: parser.", "2026-11-20T06:00:00Z"));
    let edit = w.with(|c, p| pre_tool_use(c, p, Some("Edit"), Some(".ctxmon/notes/s1.md")));
    let text = edit.additional_context.unwrap();
    assert!(text.contains("Rewrite the whole note"), "{text}");
    // Written whole, it needs no reminder; a fresh note none either.
    let write = w.with(|c, p| pre_tool_use(c, p, Some("Write"), Some(NOTE_PATH)));
    assert_eq!(write.additional_context, None);
    *w.files.note.borrow_mut() = Some(note("Goal: parser.", "2026-11-20T09:59:00Z"));
    let fresh = w.with(|c, p| pre_tool_use(c, p, Some("Edit"), Some(NOTE_PATH)));
    assert_eq!(fresh.additional_context, None);
}

#[test]
fn beside_a_summary_an_old_notes_under_way_part_is_left_out_and_alone_it_stays() {
    // Read beside the summary, a note's "in progress" from steps before the compaction was
    // taken for the present, against the summary that knew better.
    let text =
        "## Goal\nstrict parser\n## In progress\nporting parser.rs\n## Gotchas\nrun `py -m pytest`";
    let w = world();
    *w.files.note.borrow_mut() = Some(note(text, "2026-11-20T09:20:00Z"));
    w.script.usage(170_000);
    w.with(|c, p| pre_compact(c, p, &w.logs, PreCompactInput::default()));
    let beside = w.start(Some("compact")).additional_context.unwrap();
    assert!(!beside.contains("porting parser.rs"), "{beside}");
    assert!(beside.contains("(in progress: left out, 1 user request and 1 tool call ran after it; the summary has the present)"), "{beside}");
    assert!(
        beside.contains("strict parser") && beside.contains("py -m pytest"),
        "{beside}"
    );
    assert!(
        beside.contains("what it says is next may be done by now"),
        "{beside}"
    );
    roxmltree::Document::parse(&beside).unwrap();
    // Alone there is no summary: the note is shown whole, with its age.
    let mut w = world();
    *w.files.note.borrow_mut() = Some(note(text, "2026-11-20T09:20:00Z"));
    w.script.usage(120_000);
    w.with(|c, p| session_end(c, p, &w.logs, Some("clear")));
    w.session = "s2".into();
    let alone = w.start(Some("clear")).additional_context.unwrap();
    assert!(alone.contains("porting parser.rs"), "{alone}");
}
