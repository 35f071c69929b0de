//! SessionStart and resume logs: the context names the log of the checkpoint's own session,
//! never another session's, and without a checkpoint a short pointer names the log that
//! applies.

use crate::fakes::records;
use crate::ports::TranscriptRecord;
use ctxmon_domain::{ContextMetrics, ResumeLog, SessionKey, Timestamp, estimate_tokens};

use super::pre_compact::{PreCompactInput, pre_compact};
use super::test_world::World;
use crate::config::InjectPolicy;
use crate::handoff::resume_log::pointer::POINTER_MAX_TOKENS;
use crate::ports::ResumeLogStore;

/// The test world's clock: 2026-11-20T10:00Z.
const NOW: i64 = 1_795_168_800_000;
const HOUR: i64 = 3_600_000;

fn tail(request: &str) -> Vec<TranscriptRecord> {
    vec![
        records::request(request),
        records::todos(&[("Write tax.rs", "in_progress")]),
    ]
}

/// A log for `session` written at `at`, with a mission (or none).
fn save_log(w: &World, session: &str, at: i64, mission: &str) {
    let mut log = ResumeLog::new(
        session,
        ContextMetrics::new(200_000, 150_000, "session_end", "m", Timestamp(at)),
    );
    log.mission_summary = mission.into();
    let md = log.to_markdown();
    w.logs.save(&log, &md).unwrap();
}

fn start(w: &World, source: &str) -> Option<String> {
    let out = w.start(Some(source));
    assert!(out.warnings.is_empty(), "{:?}", out.warnings);
    out.additional_context
}

fn parse(text: &str) -> roxmltree::Document<'_> {
    roxmltree::Document::parse(text).unwrap()
}

fn element<'a>(doc: &'a roxmltree::Document<'_>, tag: &str) -> Option<&'a str> {
    doc.descendants()
        .find(|n| n.has_tag_name(tag))
        .and_then(|n| n.text())
}

#[test]
fn the_context_names_the_checkpoints_session_log_not_the_newest() {
    let mut w = World::new(InjectPolicy::Always);
    // Session a compacts: its checkpoint and its pre_compact log.
    w.session = "a".into();
    *w.tail.0.borrow_mut() = tail("Refactor billing");
    w.script.usage(170_000);
    w.with(|c, p| pre_compact(c, p, &w.logs, PreCompactInput::default()));
    // Session b, in the same project, writes a newer log meanwhile.
    save_log(&w, "b", NOW + HOUR, "Something else entirely");
    assert_eq!(w.logs.latest().unwrap().unwrap().log.session_id, "b");

    // A resumed session gets the whole hand-back, its session's log named.
    let text = start(&w, "resume").expect("resumption context");
    assert!(text.starts_with("<resumption-context checkpoint=\"cx-001\""));
    let doc = parse(&text);
    assert_eq!(element(&doc, "resume-log"), Some("memory:session-a.md"));
    // Beside a compaction's summary, ctxmon's own material is not named.
    let text = start(&w, "compact").expect("resumption context");
    assert!(!text.contains("<resume-log>"), "{text}");

    // Without a log of its own, the context names none rather than b's.
    w.logs.delete(&SessionKey::from_raw("a")).unwrap();
    let text = start(&w, "resume").expect("resumption context");
    assert!(!text.contains("<resume-log>"), "{text}");
    assert!(!text.contains("session-b"), "{text}");
}

#[test]
fn the_prompt_fallback_names_no_other_sessions_log() {
    let mut w = World::new(InjectPolicy::Always);
    w.session = "a".into();
    *w.tail.0.borrow_mut() = tail("Refactor billing");
    w.script.usage(170_000);
    w.with(|c, p| pre_compact(c, p, &w.logs, PreCompactInput::default()));
    save_log(&w, "b", NOW + HOUR, "Something else entirely");
    // SessionStart's answer was lost: the next prompt delivers the context.
    w.script.usage(60_000);
    let text = w.prompt().additional_context.unwrap();
    assert!(text.contains("<resumption-context checkpoint="), "{text}");
    // The fallback sits beside the compaction's summary too: the facts, no log pointer.
    assert!(!text.contains("<resume-log>"), "{text}");
    assert!(!text.contains("session-b"), "{text}");
}

#[test]
fn resume_without_a_checkpoint_points_at_the_sessions_log() {
    let w = World::new(InjectPolicy::Always);
    assert_eq!(start(&w, "resume"), None, "no log, no checkpoint: nothing");
    save_log(&w, "other", NOW, "Another session's work");
    assert_eq!(
        start(&w, "resume"),
        None,
        "another session's log is not ours"
    );
    save_log(
        &w,
        "s1",
        NOW - 30 * 24 * HOUR,
        "# Task\nFix <login> & \"logout\"\n## Next Steps\n1. add test",
    );
    let text = start(&w, "resume").expect("a pointer");
    assert!(estimate_tokens(&text).get() <= POINTER_MAX_TOKENS, "{text}");
    let doc = parse(&text);
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "resumption-context");
    assert_eq!(root.attribute("source"), Some("resume-log"));
    assert_eq!(root.attribute("session"), Some("s1"));
    assert_eq!(element(&doc, "resume-log"), Some("memory:session-s1.md"));
    assert_eq!(
        element(&doc, "mission"),
        Some("Task Fix <login> & \"logout\" Next Steps 1. add test")
    );
    assert!(
        element(&doc, "note")
            .unwrap()
            .contains("this session's resume log")
    );
    // `compact` without a checkpoint is the same session too.
    assert_eq!(start(&w, "compact"), Some(text));
}

#[test]
fn a_new_session_is_pointed_at_a_recent_log_of_the_project() {
    let mut w = World::new(InjectPolicy::Always);
    w.session = "new".into();
    save_log(&w, "old", NOW - 25 * HOUR, "Too old to matter");
    assert_eq!(start(&w, "startup"), None, "older than max_age_hours (24)");
    save_log(&w, "previous", NOW - 2 * HOUR, "Ship tax support");
    for source in ["startup", "clear"] {
        let text = start(&w, source).expect("a pointer");
        let doc = parse(&text);
        assert_eq!(
            element(&doc, "resume-log"),
            Some("memory:session-previous.md")
        );
        assert_eq!(element(&doc, "mission"), Some("Ship tax support"));
        assert!(
            element(&doc, "note")
                .unwrap()
                .contains("An earlier session")
        );
    }
    w.config.resumption.max_age_hours = 1;
    assert_eq!(start(&w, "startup"), None);
}

#[test]
fn a_log_with_nothing_to_act_on_gets_no_pointer() {
    let w = World::new(InjectPolicy::Always);
    save_log(&w, "s1", NOW, "  ");
    assert_eq!(start(&w, "resume"), None);
    assert_eq!(start(&w, "startup"), None);
}

#[test]
fn an_unreadable_store_is_a_warning() {
    let w = World::new(InjectPolicy::Always);
    w.logs.fail.set(true);
    let out = w.start(Some("startup"));
    assert_eq!(out.additional_context, None);
    assert_eq!(out.warnings.len(), 1, "{:?}", out.warnings);
}
