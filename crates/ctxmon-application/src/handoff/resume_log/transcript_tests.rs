//! Resume logs from the transcript: what its tail says, the request at hand as the mission, the
//! first request from its start (named as such), the session's duration, the files subagents
//! wrote.

use super::*;
use crate::ports::RequestKind;

#[test]
fn the_transcript_fills_what_nothing_else_says() {
    let w = World::new();
    let log = w.now(None).generated.log;
    // The work moved on from the first request: the mission is the request at hand.
    assert_eq!(log.mission_summary, "Now wire the CLI");
    assert_eq!(
        log.critical_context["first request"],
        "Add resume logs to ctxmon"
    );
    assert!(!log.critical_context.contains_key("latest user request"));
    assert_eq!(log.accomplishments, ["Domain types"]);
    assert_eq!(log.next_steps, ["(in progress) File store", "CLI"]);
    assert_eq!(log.metadata.files_modified, ["/proj/src/log.rs"]);
    assert_eq!(log.metadata.commands_run, ["cargo test"]);
    assert_eq!(log.metadata.errors, ["$ cargo test\ntest failed: budget"]);
    assert_eq!(log.metadata.git_branch.as_deref(), Some("feature/logs"));
    assert_eq!(
        log.metadata.git_dirty_files,
        [" M src/lib.rs", "?? notes.md"]
    );
    assert_eq!(log.metadata.sources, ["transcript", "git"]);
    assert_eq!(log.metadata.trigger, "manual");
    assert_eq!(log.context_metrics.used_tokens, 170_000);
    assert_eq!(log.context_metrics.percentage_used, 85.0);
    assert_eq!(log.context_metrics.model, "claude-opus-4-6");
}

#[test]
fn the_first_request_is_the_sessions_not_the_tails_and_never_the_mission() {
    let w = World::new();
    // The 8 MiB tail of a long session starts long after its first request.
    *w.tail.head.borrow_mut() = Some(vec![
        records::record(RecordBody::Other).at("2026-11-20T08:00:00.000Z"),
        records::request_of(
            RequestKind::Meta,
            "<local-command-caveat>x</local-command-caveat>",
        ),
        user("A subagent's prompt").by_subagent(),
        user("Build ctxmon's resume logs end to end"),
        user("A second request"),
    ]);
    let log = w.now(None).generated.log;
    assert_eq!(log.mission_summary, "Now wire the CLI");
    assert_eq!(
        log.critical_context["first request"],
        "Build ctxmon's resume logs end to end"
    );
    // Without a readable start, the tail's oldest request stands in.
    *w.tail.head.borrow_mut() = Some(vec![]);
    assert_eq!(
        w.now(None).generated.log.critical_context["first request"],
        "Add resume logs to ctxmon"
    );
}

#[test]
fn the_session_duration_runs_from_the_first_line_to_the_newest() {
    let w = World::new();
    *w.tail.head.borrow_mut() = Some(vec![
        records::record(RecordBody::Other).at("2026-11-20T08:00:00.000Z"),
        user("Build ctxmon's resume logs end to end"),
    ]);
    let mut lines = transcript();
    lines[0].timestamp = Some("2026-11-20T10:00:00.000Z".into());
    lines[2].timestamp = Some("2026-11-20T10:34:00.000Z".into());
    lines[4].timestamp = Some("not a time".into());
    *w.tail.tail.borrow_mut() = lines;
    let generated = w.now(None).generated;
    let m = &generated.log.metadata;
    assert_eq!(m.started_at.as_deref(), Some("2026-11-20T08:00:00.000Z"));
    assert_eq!(
        m.last_activity_at.as_deref(),
        Some("2026-11-20T10:34:00.000Z")
    );
    assert_eq!(m.duration_minutes(), Some(154));
    assert!(
        generated.rendered.markdown().contains(
            "- Session Duration: 2 h 34 min (2026-11-20T08:00:00.000Z to 2026-11-20T10:34:00.000Z)\n"
        ),
        "{}",
        generated.rendered.markdown()
    );
    // Without the transcript's start there is no duration.
    *w.tail.head.borrow_mut() = Some(vec![]);
    let log = w.now(None).generated.log;
    assert_eq!(
        (log.metadata.duration_minutes(), log.metadata.started_at),
        (None, None)
    );
}

#[test]
fn a_long_request_keeps_its_head_and_tail_around_a_marked_cut() {
    let w = World::new();
    let request: String = (0..600)
        .map(|i| format!("Sentence {i} of the task is here. "))
        .collect();
    *w.tail.tail.borrow_mut() = vec![user(&request)];
    let generated = w.now(None).generated;
    let mission = &generated.log.mission_summary;
    // The requirements are as often at a request's end as at its start: both are kept.
    assert!(mission.starts_with("Sentence 0 of the task"), "{mission}");
    assert!(
        mission.ends_with("Sentence 599 of the task is here."),
        "{mission}"
    );
    assert!(mission.contains("characters cut …]"), "{mission}");
    assert!(mission.chars().count() < 2_100, "{}", mission.len());
    let md = generated.rendered.markdown();
    assert!(!md.contains("truncated"), "{md}");
    // The same request as the first one is not repeated as critical context.
    let context = &generated.log.critical_context;
    assert!(!context.contains_key("first request"), "{context:?}");
    assert!(!context.contains_key("current request"), "{context:?}");
}

#[test]
fn a_short_reply_comes_with_what_it_answers_and_the_task_stays_the_request_before() {
    let w = World::new();
    *w.tail.tail.borrow_mut() = vec![
        user("Move the session store to per-session folders"),
        records::text(
            "The index can go in one file or one per session. Shall I use one per session?",
        ),
        user("sí"),
    ];
    let log = w.now(None).generated.log;
    assert_eq!(
        log.mission_summary,
        "Move the session store to per-session folders"
    );
    assert_eq!(
        log.critical_context["latest reply"],
        "\"sí\" — answering: \"The index can go in one file or one per session. Shall I use one per session?\""
    );
    // With no earlier request in the tail, the reply is all that says what is asked.
    *w.tail.tail.borrow_mut() = vec![
        records::text("Shall I use one index per session?"),
        user("yes, do that"),
    ];
    assert_eq!(w.now(None).generated.log.mission_summary, "yes, do that");
}

#[test]
fn a_request_already_answered_says_so() {
    let w = World::new();
    *w.tail.tail.borrow_mut() = vec![
        user("What does the fill line in the status bar count?"),
        records::text(
            "It counts input, cache-creation and cache-read tokens of the newest response.",
        ),
    ];
    let log = w.now(None).generated.log;
    assert_eq!(
        log.mission_summary,
        "What does the fill line in the status bar count?"
    );
    assert_eq!(
        log.critical_context["current request status"],
        "answered in the assistant's last message"
    );
    // Still work to do: no such line.
    *w.tail.tail.borrow_mut() = transcript();
    let log = w.now(None).generated.log;
    assert!(!log.critical_context.contains_key("current request status"));
}

#[test]
fn files_written_by_subagents_are_listed_apart() {
    let w = World::new();
    let mut lines = transcript();
    let by_agent = |name: &str, path: &str| records::write(name, path).by_subagent();
    lines.push(by_agent("Write", "/proj/src/agent.rs"));
    lines.push(by_agent("Edit", "/proj/src/log.rs"));
    lines.push(by_agent("Read", "/proj/src/read_only.rs"));
    *w.tail.tail.borrow_mut() = lines;
    let generated = w.now(None).generated;
    let m = &generated.log.metadata;
    assert_eq!(m.files_modified, ["/proj/src/log.rs"]);
    assert_eq!(m.files_modified_by_subagents, ["/proj/src/agent.rs"]);
    assert!(
        generated
            .rendered
            .markdown()
            .contains("**Files Modified by Subagents:**\n\n- /proj/src/agent.rs\n"),
        "{}",
        generated.rendered.markdown()
    );
}
