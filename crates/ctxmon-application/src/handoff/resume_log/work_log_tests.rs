//! Resume logs tell the work as it went: errors by what failed (a refusal is no error), every
//! todo and task the session completed, the assistant's last few conclusions, and a mission
//! that is what the user typed, not the slash command that opened the session.

use super::*;
use crate::ports::{RecordBody, RequestKind, TaskItem, ToolResult};

/// A pytest run: a banner longer than an error entry, one failure, the summary.
fn pytest_output() -> String {
    let mut out = String::from(
        "============================= test session starts ==============================\n",
    );
    for i in 0..12 {
        out.push_str(&format!(
            "platform linux -- Python 3.12.{i}, pytest-8.3.{i}, pluggy-1.5.0 -- /usr/bin/python3\n"
        ));
    }
    out.push_str("collected 42 items\n\ntests/test_tax.py ........F.........\n");
    out.push_str("FAILED tests/test_tax.py::test_rounding - AssertionError: 0.1 != 0.10000001\n");
    out.push_str(
        "========================= 1 failed, 41 passed in 0.52s =========================\n",
    );
    out
}

#[test]
fn error_entries_say_what_failed_and_how_it_ended_not_the_banner() {
    let w = World::new();
    let mut lines = transcript();
    lines.push(records::shell("p", "pytest tests"));
    lines.push(records::result_record(records::result(
        "p",
        true,
        &pytest_output(),
    )));
    *w.tail.tail.borrow_mut() = lines;
    let log = w.now(None).generated.log;
    let error = log.metadata.errors.last().unwrap();
    assert!(
        error.contains("FAILED tests/test_tax.py::test_rounding - AssertionError"),
        "{error}"
    );
    assert!(error.contains("1 failed, 41 passed in 0.52s"), "{error}");
    assert!(!error.contains("platform linux"), "{error}");
    assert!(error.chars().count() <= crate::handoff::resumption::MAX_ERROR_CHARS);
}

#[test]
fn a_refused_tool_call_is_not_an_error() {
    let w = World::new();
    let mut lines = transcript();
    lines.push(records::shell("n", "npm install left-pad"));
    lines.push(records::result_record(ToolResult {
        rejected: Some(Some("use pnpm, never npm".into())),
        ..records::result(
            "n",
            true,
            "The user doesn't want to proceed with this tool use. use pnpm, never npm",
        )
    }));
    lines.push(records::shell("r", "rm -rf build"));
    lines.push(records::result_record(ToolResult {
        rejected: Some(None),
        ..records::result(
            "r",
            true,
            "The user doesn't want to proceed with this tool use.",
        )
    }));
    *w.tail.tail.borrow_mut() = lines;
    let log = w.now(None).generated.log;
    assert_eq!(log.metadata.errors, ["$ cargo test\ntest failed: budget"]);
}

#[test]
fn accomplishments_are_everything_completed_not_only_the_newest_list() {
    let w = World::new();
    let task = |id: Option<&str>, subject: Option<&str>, status: Option<&str>| TaskItem {
        id: id.map(String::from),
        subject: subject.map(String::from),
        status: status.map(String::from),
    };
    *w.tail.tail.borrow_mut() = vec![
        user("Add tax support"),
        records::todos(&[
            ("Parse rates", "completed"),
            ("Wire billing", "in_progress"),
        ]),
        records::todos(&[("Parse rates", "completed"), ("Wire billing", "completed")]),
        // A new list for the next phase: the earlier work is done, not forgotten.
        records::todos(&[("Write docs", "pending")]),
        records::task_call("c1", "TaskCreate", task(None, Some("Release 1.2"), None)),
        records::result_record(ToolResult {
            created_task: Some("1".into()),
            ..records::result("c1", false, "Task #1 created successfully: Release 1.2")
        }),
        records::task_call("u1", "TaskUpdate", task(Some("1"), None, Some("completed"))),
        records::result_record(records::result("u1", false, "Updated task #1 status")),
        records::task_call("c2", "TaskCreate", task(None, Some("Announce it"), None)),
        records::result_record(ToolResult {
            created_task: Some("2".into()),
            ..records::result("c2", false, "Task #2 created successfully: Announce it")
        }),
    ];
    let log = w.now(None).generated.log;
    assert_eq!(
        log.accomplishments,
        ["Parse rates", "Wire billing", "Release 1.2"]
    );
    assert_eq!(log.next_steps, ["Write docs", "Announce it"]);
}

#[test]
fn key_findings_are_the_last_few_conclusions_not_only_the_final_words() {
    let w = World::new();
    let finding = "The budget overflow comes from fit.rs: the mission's share was counted twice.";
    *w.tail.tail.borrow_mut() = vec![
        user("Find why the log overflows"),
        records::text("I'll look at the fitting code first:"),
        records::text(finding),
        records::text("Let me run the tests."),
        records::text("Fixed; all 42 tests pass."),
    ];
    let log = w.now(None).generated.log;
    assert_eq!(log.key_findings, [finding, "Fixed; all 42 tests pass."]);
    // At most a few: the newest.
    let mut lines = vec![user("Go")];
    lines.extend((0..20).map(|i| {
        records::text(&format!(
            "Conclusion {i}: the cache was cold because its key changed on every build."
        ))
    }));
    *w.tail.tail.borrow_mut() = lines;
    let findings = w.now(None).generated.log.key_findings;
    assert!((2..=5).contains(&findings.len()), "{findings:?}");
    assert!(findings.last().unwrap().starts_with("Conclusion 19:"));
}

#[test]
fn the_first_request_skips_slash_commands() {
    let w = World::new();
    *w.tail.head.borrow_mut() = Some(vec![
        records::request_of(RequestKind::SlashCommand, "/init"),
        records::record(RecordBody::Other),
        user("Build ctxmon's resume logs end to end"),
    ]);
    let first = |w: &World| {
        let log = w.now(None).generated.log;
        assert_eq!(log.mission_summary, "Now wire the CLI");
        log.critical_context["first request"].clone()
    };
    assert_eq!(first(&w), "Build ctxmon's resume logs end to end");
    // Without a readable start, the tail's first typed request, past its slash commands.
    *w.tail.head.borrow_mut() = Some(vec![]);
    let mut lines = transcript();
    lines.insert(
        0,
        records::request_of(RequestKind::SlashCommand, "/review src"),
    );
    *w.tail.tail.borrow_mut() = lines;
    assert_eq!(first(&w), "Add resume logs to ctxmon");
    // A session of slash commands only: the first one is all there is.
    *w.tail.head.borrow_mut() = Some(vec![records::request_of(
        RequestKind::SlashCommand,
        "/review src",
    )]);
    assert_eq!(first(&w), "/review src");
}
