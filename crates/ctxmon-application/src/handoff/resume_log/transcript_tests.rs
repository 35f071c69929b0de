//! Resume logs from the transcript: what its tail says, the mission from its start, the
//! session's duration, the files subagents wrote.

use super::*;
use crate::ports::RequestKind;

#[test]
fn the_transcript_fills_what_nothing_else_says() {
    let w = World::new();
    let log = w.now(None).generated.log;
    assert_eq!(log.mission_summary, "Add resume logs to ctxmon");
    assert_eq!(log.accomplishments, ["Domain types"]);
    assert_eq!(log.next_steps, ["(in progress) File store", "CLI"]);
    assert_eq!(
        log.critical_context["latest user request"],
        "Now wire the CLI"
    );
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
fn the_mission_is_the_sessions_first_request_not_the_tails() {
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
    assert_eq!(log.mission_summary, "Build ctxmon's resume logs end to end");
    assert_eq!(
        log.critical_context["latest user request"],
        "Now wire the CLI"
    );
    // Without a readable start, the tail's oldest request stands in.
    *w.tail.head.borrow_mut() = Some(vec![]);
    assert_eq!(
        w.now(None).generated.log.mission_summary,
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
fn a_long_first_request_is_cut_at_a_sentence_and_takes_the_room_left() {
    let w = World::new();
    let request: String = (0..600)
        .map(|i| format!("Sentence {i} of the task is here. "))
        .collect();
    *w.tail.tail.borrow_mut() = vec![user(&request)];
    let generated = w.now(None).generated;
    let mission = &generated.log.mission_summary;
    // Derivation keeps up to 16,000 characters, cut at a sentence; the mission's own share is
    // 1,000 tokens, but the other sections leave theirs unused, so none of it is left out.
    assert!(mission.chars().count() > 15_000, "{}", mission.len());
    assert!(mission.ends_with("is here."), "{mission}");
    assert!(request.starts_with(mission.as_str()));
    let md = generated.rendered.markdown();
    assert!(!md.contains("truncated"), "{md}");
    assert!(md.contains(&format!("> {mission}\n")));
    // The same request as the latest one is not repeated as critical context.
    assert!(
        !generated
            .log
            .critical_context
            .contains_key("latest user request")
    );
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
