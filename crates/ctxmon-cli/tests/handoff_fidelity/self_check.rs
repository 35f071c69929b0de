//! The fidelity test's own parser and matcher, checked on hand-written lines: a measurement
//! is only as good as its ruler.

use serde_json::{Value, json};

use super::expect::{expected, typed_request};
use super::matching::read;

fn user(content: Value) -> Value {
    json!({"type": "user", "message": {"role": "user", "content": content}})
}

fn call(id: &str, name: &str, input: Value) -> Value {
    json!({"type": "assistant", "message": {"role": "assistant",
        "content": [{"type": "tool_use", "id": id, "name": name, "input": input}]}})
}

fn result(id: &str, text: &str, is_error: bool, extra: Value) -> Value {
    let mut line = user(json!([{"type": "tool_result", "tool_use_id": id,
        "content": text, "is_error": is_error}]));
    if let (Some(obj), Some(more)) = (line.as_object_mut(), extra.as_object()) {
        obj.extend(more.clone());
    }
    line
}

#[test]
fn only_what_a_person_typed_is_a_request() {
    let slash = "<command-message>o is running…</command-message>\n<command-name>/o</command-name>\n<command-args>create a TODO app</command-args>";
    assert_eq!(
        typed_request(&user(json!(slash))).as_deref(),
        Some("create a TODO app")
    );
    let init = "<command-message>init</command-message>\n<command-name>/init</command-name>";
    assert_eq!(typed_request(&user(json!(init))), None);
    let ide = json!([{"type": "text", "text": "<ide_selection>x</ide_selection>"},
        {"type": "text", "text": "Make it installable"}]);
    assert_eq!(
        typed_request(&user(ide)).as_deref(),
        Some("Make it installable")
    );
    for not_typed in [
        user(json!([{"type": "text", "text": "[Request interrupted by user for tool use]"}])),
        user(json!(
            "<local-command-stdout>See ya!</local-command-stdout>"
        )),
        json!({"type": "user", "isMeta": true, "message": {"content": "Expanded skill body"}}),
        json!({"type": "user", "isSidechain": true, "message": {"content": "An agent's prompt"}}),
        result("t1", "ok", false, json!({})),
    ] {
        assert_eq!(typed_request(&not_typed), None, "{not_typed}");
    }
}

#[test]
fn a_failure_counts_until_the_same_command_succeeds() {
    let failing = [
        call("a", "Bash", json!({"command": "cargo test"})),
        result(
            "a",
            "Exit code 101\nrunning 2 tests\nerror: test failed",
            true,
            json!({}),
        ),
        call("b", "Read", json!({"file_path": "/p/x.rs"})),
        result("b", "fn main() {}", false, json!({})),
        call("c", "Edit", json!({"file_path": "/p/x.rs"})),
        result(
            "c",
            "The user doesn't want to proceed with this tool use.",
            true,
            json!({}),
        ),
    ];
    let f = expected(&failing).failure.unwrap();
    assert_eq!(f.command, "cargo test");
    assert_eq!(f.lines, ["error: test failed"]);
    let mut fixed = failing.to_vec();
    fixed.push(call("d", "Bash", json!({"command": "cargo test"})));
    fixed.push(result("d", "test result: ok. 2 passed", false, json!({})));
    assert!(expected(&fixed).failure.is_none());
    // Exit status 0, yet tests failed.
    let piped = [
        call("e", "Bash", json!({"command": "pytest -q | tail -3"})),
        result("e", "F.\n1 failed, 1 passed in 0.1s", false, json!({})),
    ];
    assert_eq!(
        expected(&piped).failure.unwrap().command,
        "pytest -q | tail -3"
    );
}

#[test]
fn task_tools_replay_to_the_pending_tasks() {
    let create = |id: &str, n: &str, subject: &str| {
        [
            call(id, "TaskCreate", json!({"subject": subject})),
            result(
                id,
                &format!("Task #{n} created successfully: {subject}"),
                false,
                json!({"toolUseResult": {"task": {"id": n, "subject": subject}}}),
            ),
        ]
    };
    let mut lines: Vec<Value> = Vec::new();
    lines.extend(create("a", "1", "Write the parser"));
    lines.extend(create("b", "2", "Wire the parser"));
    lines.push(call(
        "c",
        "TaskUpdate",
        json!({"taskId": "1", "status": "completed"}),
    ));
    lines.push(result("c", "Updated task #1 status", false, json!({})));
    assert_eq!(expected(&lines).tasks, ["Wire the parser"]);
    lines.push(call("d", "TaskList", json!({})));
    let tasks = json!([{"id": "2", "subject": "Wire the parser", "status": "completed"},
        {"id": "3", "subject": "Ship it", "status": "pending"}]);
    lines.push(result(
        "d",
        "…",
        false,
        json!({"toolUseResult": {"tasks": tasks}}),
    ));
    assert_eq!(expected(&lines).tasks, ["Ship it"]);
}

#[test]
fn matching_reads_content_not_layout() {
    let ctx = read(
        "<resumption-context checkpoint=\"cx-007\">\n<a>Fix the &lt;Parser&gt; &amp;\n   lexer so that long texts can be shortened…</a>\n<b>\n- one\n- +2 more next steps in cx-007\n</b>\n<c>on domain</c>\n</resumption-context>",
    );
    assert!(ctx.well_formed);
    assert!(ctx.has_atom("cx-007"));
    assert!(ctx.has_text(
        "Fix the <Parser> & lexer so that long texts can be shortened at the end, whatever"
    ));
    let items = ["one".to_string(), "two".into(), "three".into()];
    assert_eq!(
        ctx.list_found(&items, Some("cx-007"), |c, i| c.has_text(i)),
        [true, true, true]
    );
    let four = [
        "one".to_string(),
        "two".into(),
        "three".into(),
        "four".into(),
    ];
    assert!(
        !ctx.list_found(&four, Some("cx-007"), |c, i| c.has_text(i))[1],
        "+2 does not cover 3 missing items"
    );
    assert!(ctx.has_branch("domain") && !ctx.has_branch("main"));
    assert!(!read("<resumption-context><a></resumption-context>").well_formed);
}

/// The rollout reader of the ruler, on the synthetic Codex session: what it expects is what
/// the session says, read by hand.
#[test]
fn the_codex_ruler_reads_the_synthetic_rollout() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/handoff/codex-plan-patch.jsonl");
    let lines: Vec<Value> = std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let want = expected(&lines);
    assert_eq!(
        want.latest_request.as_deref(),
        Some("Now make the lexer reject unterminated strings with a clear error")
    );
    assert!(
        want.goal
            .as_deref()
            .unwrap()
            .starts_with("Fix the failing parser tests")
    );
    assert_eq!(
        want.todos,
        [
            "Make the lexer reject unterminated strings",
            "Add a test for the unterminated-string error"
        ]
    );
    assert_eq!(want.branch.as_deref(), Some("feature/parser-fix"));
    let files: Vec<&str> = want.files.iter().map(|(p, _)| p.as_str()).collect();
    // Newest first: the files of the last turns.
    assert_eq!(
        files,
        [
            "src/lexer.rs",
            "CHANGELOG.md",
            "tests/escaped_quotes.rs",
            "src/parser.rs"
        ]
    );
    let failure = want.failure.unwrap();
    assert_eq!(failure.command, "cargo test -p lexer");
    assert!(
        failure.lines.iter().any(|l| l.contains("E0599")),
        "{:?}",
        failure.lines
    );
    // Cut after the first test run, the parser failure is the open one.
    let first_run = lines
        .iter()
        .position(|l| {
            l.pointer("/payload/output")
                .and_then(Value::as_str)
                .is_some_and(|o| o.contains("code 101"))
        })
        .unwrap();
    let early = expected(&lines[..=first_run]);
    assert_eq!(early.failure.unwrap().command, "cargo test -p parser");
}
