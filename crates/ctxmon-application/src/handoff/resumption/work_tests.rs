//! The work's state from hand-built records: tasks, commits, failures, checks, subagents,
//! constraints, branch.

use super::*;
use crate::fakes::records::{
    call, record, request, result, result_record, shell, task_call, write,
};
use crate::handoff::resumption::derive_from_tail;

fn state(records: &[TranscriptRecord]) -> ResumptionState {
    derive_from_tail(records)
}

fn shell_result(id: &str, is_error: bool, exit: Option<i64>, text: &str) -> TranscriptRecord {
    result_record(ToolResult {
        exit_code: exit,
        ..result(id, is_error, text)
    })
}

#[test]
fn a_failure_shows_what_failed_and_its_end_not_its_banner() {
    let mut out = String::from("============ test session starts ============\nplatform linux\n");
    for i in 0..50 {
        out.push_str(&format!("tests/test_{i}.py . [ {i}%]\n"));
    }
    out.push_str("FAILED tests/test_tax.py::test_rounding - AssertionError: 3 != 4\n");
    out.push_str("========= 1 failed, 49 passed in 2.1s =========\n");
    let s = state(&[
        shell("b1", "pytest -q"),
        shell_result("b1", true, Some(1), &format!("Exit code 1\n{out}")),
    ]);
    let f = s.failure.expect("a failure");
    assert_eq!(f.command, "pytest -q");
    assert!(
        f.excerpt
            .contains("FAILED tests/test_tax.py::test_rounding"),
        "{}",
        f.excerpt
    );
    assert!(f.excerpt.contains("1 failed, 49 passed"), "{}", f.excerpt);
    assert!(!f.excerpt.contains("test session starts"), "{}", f.excerpt);
    assert_eq!(
        s.last_check,
        Some(Check {
            command: "pytest -q".into(),
            passed: false
        })
    );
}

#[test]
fn a_later_success_of_the_same_command_resolves_the_failure() {
    let s = state(&[
        shell("b1", "cargo test"),
        shell_result("b1", true, Some(101), "error[E0308]: mismatched types"),
        shell("b2", "cargo test"),
        shell_result("b2", false, None, "test result: ok. 3 passed"),
    ]);
    assert_eq!(s.failure, None);
    assert_eq!(s.last_check.map(|c| c.passed), Some(true));
    // A success of another command does not.
    let s = state(&[
        shell("b1", "cargo test"),
        shell_result("b1", true, Some(101), "error[E0308]: mismatched types"),
        shell("b2", "ls"),
        shell_result("b2", false, None, "src"),
    ]);
    assert_eq!(s.failure.map(|f| f.command).as_deref(), Some("cargo test"));
}

#[test]
fn a_subagents_failure_is_resolved_only_by_the_same_subagent() {
    let agent = |id: &str, description: &str| {
        record(RecordBody::ToolCall(ToolCall {
            description: Some(description.into()),
            ..call(id, "Task")
        }))
    };
    let failed = [
        agent("t1", "Analyze project structure"),
        result_record(result(
            "t1",
            true,
            "Agent stopped: the build folder could not be read",
        )),
    ];
    // Another subagent succeeding says nothing about the one that failed.
    let other = [agent("t2", "Check package configuration")];
    let mut records = failed.to_vec();
    records.extend(other.clone());
    records.push(result_record(result("t2", false, "package.json is fine")));
    let s = state(&records);
    assert_eq!(
        s.failure.map(|f| f.command).as_deref(),
        Some("Task Analyze project structure")
    );
    // The same subagent run again and succeeding does.
    let mut records = failed.to_vec();
    records.push(agent("t3", "Analyze project structure"));
    records.push(result_record(result("t3", false, "done")));
    assert_eq!(state(&records).failure, None);
}

#[test]
fn commits_tasks_subagents_and_constraints() {
    let task = |subject: Option<&str>, id: Option<&str>, status: Option<&str>| TaskItem {
        id: id.map(Into::into),
        subject: subject.map(Into::into),
        status: status.map(Into::into),
    };
    let s = state(&[
        shell("g1", "git add -A && git commit -m 'Split billing'"),
        shell_result(
            "g1",
            false,
            None,
            "[feature/tax 1a2b3c4] Split billing\n 2 files changed",
        ),
        task_call("c1", "TaskCreate", task(Some("Write tax.rs"), None, None)),
        result_record(ToolResult {
            created_task: Some("1".into()),
            ..result("c1", false, "Task #1 created successfully: Write tax.rs")
        }),
        task_call("c2", "TaskCreate", task(Some("Run the tests"), None, None)),
        result_record(ToolResult {
            created_task: Some("2".into()),
            ..result("c2", false, "Task #2 created successfully: Run the tests")
        }),
        task_call(
            "u1",
            "TaskUpdate",
            task(None, Some("1"), Some("in_progress")),
        ),
        record(RecordBody::ToolCall(ToolCall {
            description: Some("Review the schema".into()),
            ..call("a1", "Task")
        })),
        record(RecordBody::ToolCall(ToolCall {
            description: Some("Search the docs".into()),
            ..call("a2", "Task")
        })),
        result_record(result("a2", false, "found")),
        write("Edit", "/p/a.rs"),
        result_record(ToolResult {
            rejected: Some(Some("keep the old name".into())),
            ..result("w", true, "The user doesn't want to proceed")
        }),
        request("go on").on_branch("feature/tax"),
    ]);
    assert_eq!(s.commits, ["1a2b3c4 Split billing"]);
    assert_eq!(
        s.tasks,
        [
            Todo {
                content: "Write tax.rs".into(),
                status: "in_progress".into()
            },
            Todo {
                content: "Run the tests".into(),
                status: "pending".into()
            }
        ]
    );
    assert_eq!(s.subagents_running, ["Review the schema"]);
    assert_eq!(
        s.user_constraints,
        ["declined Edit /p/a.rs: \"keep the old name\""]
    );
    // A refusal is not a failure.
    assert_eq!(s.failure, None);
    assert_eq!(s.git_branch.as_deref(), Some("feature/tax"));
}

#[test]
fn checks_are_tests_and_builds() {
    for c in [
        "cargo test -p x",
        "cd a && npm run build",
        "uv run pytest tests/",
        "make",
        "cargo xtask ci",
        "go vet ./...",
    ] {
        assert!(is_check(c), "{c}");
    }
    for c in ["ls", "git status", "cat test.txt", "cargo fmt"] {
        assert!(!is_check(c), "{c}");
    }
}

#[test]
fn without_an_error_word_the_message_is_the_first_line() {
    let text = "Exit code 1\nNo PR found for the current branch.\n\nTo use this tool, either:\n  1. Run it from a branch\n  2. Pass a PR\nrun --help";
    let e = excerpt(text);
    assert!(e.starts_with("No PR found for the current branch."), "{e}");
    assert!(e.ends_with("run --help"), "{e}");
    assert!(!e.contains("Exit code"), "{e}");
}

#[test]
fn failures_that_are_not_failures_of_the_work_are_never_shown() {
    let edit_failed = |text: &str| {
        state(&[
            write("Edit", "/w/a.rs"),
            result_record(ToolResult {
                tool_use_id: Some("w".into()),
                ..result("w", true, text)
            }),
        ])
    };
    for mechanics in [
        "<tool_use_error>String to replace not found in file.</tool_use_error>",
        "File has not been read yet. Read it first before writing to it.",
        "File has been modified since read, either by the user or by a linter.",
    ] {
        assert_eq!(edit_failed(mechanics).failure, None, "{mechanics}");
    }
    // A question the user answered is a conversation.
    let s = state(&[
        record(RecordBody::ToolCall(call("q", "AskUserQuestion"))),
        result_record(result("q", true, "Error: the user dismissed the question")),
    ]);
    assert_eq!(s.failure, None);
}

#[test]
fn a_later_success_of_the_same_program_file_or_check_resolves_a_failure() {
    // `cp` retried with the same program; a PowerShell upgrade re-run; a parse error fixed.
    let s = state(&[
        shell("1", "cd /tmp && coderabbit-extract"),
        shell_result("1", true, Some(1), "No PR found for the current branch."),
        shell("2", "coderabbit-extract owner/repo/2 2>&1 | head -5"),
        shell_result("2", false, Some(0), ""),
    ]);
    assert_eq!(s.failure, None);
    let s = state(&[
        shell("1", "cargo test -p billing tax::"),
        shell_result("1", true, Some(101), "test result: FAILED. 1 failed"),
        shell("2", "cargo test"),
        shell_result("2", false, Some(0), "test result: ok"),
    ]);
    assert_eq!(s.failure, None);
    // Another kind of check does not: a build passing says nothing of the tests.
    let s = state(&[
        shell("1", "cargo test"),
        shell_result("1", true, Some(101), "test result: FAILED. 1 failed"),
        shell("2", "cargo build"),
        shell_result("2", false, Some(0), ""),
    ]);
    assert!(s.failure.is_some());
    // A failed write of a file is resolved by a later edit of it.
    let s = state(&[
        write("Write", "/w/a.ps1"),
        result_record(result("w", true, "Permission denied")),
        write("Edit", "/w/a.ps1"),
        result_record(result("w", false, "")),
    ]);
    assert_eq!(s.failure, None);
}

#[test]
fn a_failure_of_earlier_work_is_dropped_once_the_user_asks_for_something_else() {
    let failed = [
        shell("1", "npm run build"),
        shell_result(
            "1",
            true,
            Some(1),
            "error TS2322: Type 'string' is not assignable",
        ),
    ];
    let mut moved_on = failed.to_vec();
    moved_on.push(request("Now write the release notes for version 2"));
    assert_eq!(state(&moved_on).failure, None);
    // A short reply may answer the failure ("yes, fix it"): it stays.
    let mut answered = failed.to_vec();
    answered.push(request("yes, fix it"));
    assert!(state(&answered).failure.is_some());
}

#[test]
fn the_failures_kept_open_are_bounded_and_the_newest() {
    // Each success is compared with every open failure: unbounded, a tail of thousands of
    // distinct failures cost PreCompact past its deadline (the square of their number).
    let mut records = vec![request("Check every module")];
    for i in 0..3 * MAX_OPEN {
        let id = format!("f{i}");
        records.push(shell(&id, &format!("python3 tools/check_{i}.py")));
        records.push(shell_result(&id, true, Some(1), "Traceback: error"));
    }
    let open = unresolved_failures_at(&records);
    assert_eq!(open.len(), MAX_OPEN);
    let newest = format!("python3 tools/check_{}.py", 3 * MAX_OPEN - 1);
    assert_eq!(
        open.last().map(|(_, f)| f.command.as_str()),
        Some(newest.as_str())
    );
    assert_eq!(state(&records).failure.map(|f| f.command), Some(newest));
}

#[test]
fn the_derivation_gives_the_resume_logs_failures_as_walking_them_again_would() {
    use crate::fakes::records::todos;
    use crate::handoff::resumption::{completed_after_failure, derive_tail, errors_seen};
    let records = vec![
        request("Convert the report and fill the tracking table"),
        shell("c1", "pandoc report.md -o report.pdf"),
        shell_result(
            "c1",
            true,
            Some(43),
            "pandoc: report.pdf: error producing PDF",
        ),
        todos(&[
            ("Convert report to PDF", "completed"),
            ("Fill table", "pending"),
        ]),
        shell("t1", "cargo test"),
        shell_result("t1", true, Some(101), "error[E0308]: mismatched types"),
        shell("t2", "cargo test"),
        shell_result("t2", false, Some(0), "test result: ok. 3 passed"),
        shell("l1", "npm run lint"),
        shell_result("l1", true, Some(1), "2 problems (2 errors)"),
    ];
    let derived = derive_tail(&records, &[]);
    // Something to compare: two failures stay open, one item was ticked off after one.
    assert_eq!(derived.errors.len(), 2, "{:?}", derived.errors);
    assert!(derived.unverified.contains("Convert report to PDF"));
    assert_eq!(derived.errors, errors_seen(&records));
    assert_eq!(derived.unverified, completed_after_failure(&records));
    assert_eq!(derived.state, state(&records));
}

#[test]
fn a_request_whose_answer_says_error_failed_though_curl_exited_0() {
    let call = "curl -s -X POST http://localhost:8888/notify -d '{\"message\": \"Hi!\"}'";
    let failed = [
        request("Announce it by voice"),
        shell("n1", call),
        shell_result(
            "n1",
            false,
            Some(0),
            "{\"status\":\"error\",\"message\":\"Failed to parse JSON\"}\n  % Total    % Received % Xferd\n\r100   258  100    51",
        ),
    ];
    let f = state(&failed)
        .failure
        .expect("the error answer is a failure");
    assert_eq!(f.command, call);
    // The answer, without curl's progress meter.
    assert_eq!(
        f.excerpt,
        r#"{"status":"error","message":"Failed to parse JSON"}"#
    );
    // The same request answered with success later resolves it.
    let mut resolved = failed.to_vec();
    resolved.push(shell("n2", call));
    resolved.push(shell_result(
        "n2",
        false,
        Some(0),
        r#"{"status":"success","message":"Notification sent"}"#,
    ));
    assert_eq!(state(&resolved).failure, None);
}
