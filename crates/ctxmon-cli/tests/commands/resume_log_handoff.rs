//! What the real binary's resume logs hand on (contract C9): an error is the lines that say what
//! failed and its end, never a test runner's banner; a refused tool call is no error; every todo
//! the session completed is an accomplishment; and a log written after the compaction keeps
//! what the PreCompact log said, with figures that say when they are an estimate.

// Test helpers: a panic is how a broken precondition fails the test.
#![allow(clippy::unwrap_used)]

use resume_log::{SESSION, logs_dir, transcript};
use serde_json::{Value, json};

use crate::common::Sandbox;
use crate::common::resume_log;

/// A pytest run whose banner is longer than an error entry, then its one failure.
fn pytest_output() -> String {
    let mut out = String::from("============ test session starts ============\n");
    for i in 0..12 {
        out.push_str(&format!(
            "platform linux -- Python 3.12.{i}, pytest-8.3.{i}, pluggy-1.5.0\n"
        ));
    }
    out.push_str("collected 42 items\ntests/test_tax.py ........F\n");
    out.push_str("FAILED tests/test_tax.py::test_rounding - AssertionError: 0.1 != 0.2\n");
    out.push_str("============ 1 failed, 41 passed in 0.52s ============");
    out
}

fn line(v: &Value) -> String {
    format!("{v}\n")
}

/// The session before its compaction: two todo lists (the second drops the done item), a
/// failing pytest run, a refused `npm install`.
fn before_compaction(sb: &Sandbox) -> std::path::PathBuf {
    let path = transcript(sb, SESSION);
    let mut text = std::fs::read_to_string(&path).unwrap();
    for v in [
        json!({"type": "assistant", "message": {"role": "assistant", "content": [
            {"type": "tool_use", "id": "t2", "name": "TodoWrite", "input": {"todos": [
                {"content": "Write tax.rs", "status": "completed"},
                {"content": "Round per line", "status": "in_progress"}]}},
            {"type": "tool_use", "id": "p1", "name": "Bash", "input": {"command": "pytest tests"}},
            {"type": "tool_use", "id": "n1", "name": "Bash", "input": {"command": "npm install left-pad"}}
        ]}}),
        json!({"type": "user", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "p1", "is_error": true, "content": pytest_output()},
            {"type": "tool_result", "tool_use_id": "n1", "is_error": true, "content":
                "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). The user provided the following reason for the rejection:  use pnpm"}
        ]}}),
        json!({"type": "assistant", "message": {"role": "assistant", "content": [
            {"type": "tool_use", "id": "t3", "name": "TodoWrite", "input": {"todos": [
                {"content": "Round per line", "status": "in_progress"}]}}
        ]}}),
    ] {
        text.push_str(&line(&v));
    }
    std::fs::write(&path, text).unwrap();
    path
}

fn show(sb: &Sandbox) -> (Value, String) {
    let json: Value = serde_json::from_str(
        &sb.run(&["--json", "resume-log", "show", SESSION], "")
            .stdout,
    )
    .unwrap();
    let md = std::fs::read_to_string(logs_dir(sb).join(format!("session-{SESSION}.md"))).unwrap();
    (json, md)
}

#[test]
fn errors_say_what_failed_a_refusal_is_none_and_all_done_work_counts() {
    let sb = Sandbox::new();
    before_compaction(&sb);
    let run = sb.run(&["resume-log", "generate"], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    let (log, md) = show(&sb);
    let errors = log["metadata"]["errors"].as_array().unwrap();
    assert_eq!(errors.len(), 1, "{errors:?}");
    let error = errors[0].as_str().unwrap();
    assert!(
        error.contains("FAILED tests/test_tax.py::test_rounding"),
        "{error}"
    );
    assert!(error.contains("1 failed, 41 passed"), "{error}");
    assert!(!error.contains("platform linux"), "{error}");
    assert!(!md.contains("doesn't want to proceed"), "{md}");
    assert_eq!(
        log["accomplishments"],
        json!(["Split billing.rs", "Write tax.rs"])
    );
}

#[test]
fn a_log_after_the_compaction_keeps_the_precompact_logs_content() {
    let sb = Sandbox::new();
    let path = before_compaction(&sb);
    let input = sb.hook_input("PreCompact", SESSION, &path, json!({"trigger": "auto"}));
    let run = sb.run(&["hooks", "pre-compact"], input);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let (before, _) = show(&sb);
    assert_eq!(before["context_metrics"]["stop_reason"], "pre_compact");
    // After the compaction: a new start of the work in the same file, its usage not yet
    // reported; the tail window sees only what came after.
    sb.write(".ctxmon/config.toml", "[resumption]\ntail_bytes = 4096\n");
    let mut text = std::fs::read_to_string(&path).unwrap();
    text.push_str(&line(
        &json!({"type": "system", "subtype": "compact_boundary",
        "compactMetadata": {"trigger": "auto", "preTokens": 166_000}}),
    ));
    text.push_str(&line(&json!({"type": "user", "message": {"role": "user",
        "content": "Now write the migration"}})));
    for i in 0..30 {
        let said = format!("Migration step {i}: {}", "columns checked ".repeat(12));
        text.push_str(&line(
            &json!({"type": "assistant", "message": {"role": "assistant",
            "content": [{"type": "text", "text": said}]}}),
        ));
    }
    text.push_str(&line(&json!({"type": "assistant", "message": {"role": "assistant", "content": [
        {"type": "tool_use", "id": "m1", "name": "Write", "input": {"file_path": "/w/migrations/1.sql", "content": "x"}}
    ]}})));
    std::fs::write(&path, text).unwrap();
    let run = sb.run(&["resume-log", "generate"], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    let (after, md) = show(&sb);
    assert_eq!(after["context_metrics"]["stop_reason"], "manual");
    // No response since the compaction names the model: the session's last one does, as in
    // `status` and the checkpoint.
    assert_eq!(
        after["context_metrics"]["model"], "claude-sonnet-4-5-20250929",
        "{md}"
    );
    assert!(md.contains("- Model: claude-sonnet-4-5-20250929\n"), "{md}");
    for done in ["Split billing.rs", "Write tax.rs"] {
        assert!(
            after["accomplishments"]
                .as_array()
                .unwrap()
                .contains(&json!(done)),
            "{md}"
        );
    }
    let files = after["metadata"]["files_modified"].as_array().unwrap();
    assert!(files.contains(&json!("/w/src/tax.rs")), "{md}");
    assert!(files.contains(&json!("/w/migrations/1.sql")), "{md}");
    assert!(
        md.contains("FAILED tests/test_tax.py::test_rounding"),
        "{md}"
    );
    assert!(md.contains("context before compaction"), "{md}");
}
