//! Hand-written Claude Code lines, through the adapter's records, into the application's
//! `derive_from_tail`, `commands_run` and `errors_seen`: the line format and the derivation
//! together, as the hooks use them.

use ctxmon_application::handoff::resumption::{
    self, MAX_ERROR_CHARS, MAX_LIST_ITEMS, MAX_TEXT_CHARS,
};
use ctxmon_domain::{ResumptionOrigin, ResumptionState, Todo};
use ctxmon_infra_fs::transcript::records_from_values;
use serde_json::{Value, json};

fn derive_from_tail(lines: &[Value]) -> ResumptionState {
    resumption::derive_from_tail(&records_from_values(lines))
}

fn commands_run(lines: &[Value]) -> Vec<String> {
    resumption::commands_run(&records_from_values(lines))
}

fn errors_seen(lines: &[Value]) -> Vec<String> {
    resumption::errors_seen(&records_from_values(lines))
}

fn user(content: Value) -> Value {
    json!({"type": "user", "isSidechain": false, "message": {"role": "user", "content": content}})
}

fn assistant(blocks: Value) -> Value {
    json!({"type": "assistant", "isSidechain": false, "message": {"role": "assistant", "content": blocks}})
}

fn sidechain(mut line: Value) -> Value {
    line["isSidechain"] = json!(true);
    line
}

fn tool(name: &str, input: Value) -> Value {
    json!([{"type": "tool_use", "id": "toolu_1", "name": name, "input": input}])
}

fn todos(items: &[(&str, &str)]) -> Value {
    let list: Vec<_> = items
        .iter()
        .map(|(c, s)| json!({"content": c, "status": s, "activeForm": c}))
        .collect();
    tool("TodoWrite", json!({ "todos": list }))
}

fn tool_result(text: Value, is_error: bool) -> Value {
    user(
        json!([{"type": "tool_result", "tool_use_id": "toolu_1", "content": text, "is_error": is_error}]),
    )
}

#[test]
fn a_session_yields_requests_todos_files_and_last_text() {
    let lines = vec![
        json!({"type": "summary", "summary": "title"}),
        user(json!("first request")),
        assistant(todos(&[("plan", "in_progress"), ("build", "pending")])),
        assistant(tool(
            "Write",
            json!({"file_path": "/p/a.rs", "content": "x"}),
        )),
        tool_result(json!("ok"), false),
        user(json!([{"type": "text", "text": "second request"}])),
        assistant(tool("Edit", json!({"file_path": "/p/b.rs"}))),
        assistant(tool(
            "MultiEdit",
            json!({"file_path": "/p/a.rs", "edits": []}),
        )),
        assistant(tool("NotebookEdit", json!({"notebook_path": "/p/n.ipynb"}))),
        assistant(todos(&[("plan", "completed"), ("build", "in_progress")])),
        assistant(json!([{"type": "text", "text": "  Done with step 1.  "}])),
        user(json!("third")),
        user(json!("fourth")),
        assistant(json!([{"type": "thinking", "thinking": "hmm"}])),
    ];
    let s = derive_from_tail(&lines);
    assert_eq!(s.origin, ResumptionOrigin::Transcript);
    assert_eq!(s.last_user_requests, ["second request", "third", "fourth"]);
    assert_eq!(
        s.todos,
        [
            Todo {
                content: "plan".into(),
                status: "completed".into()
            },
            Todo {
                content: "build".into(),
                status: "in_progress".into()
            },
        ]
    );
    assert_eq!(s.files_touched, ["/p/b.rs", "/p/a.rs", "/p/n.ipynb"]);
    assert_eq!(s.last_assistant_text.as_deref(), Some("Done with step 1."));
    assert!(s.summary.is_none() && s.decisions.is_empty() && s.files_to_read.is_empty());
}

#[test]
fn sidechain_lines_are_ignored() {
    let lines = vec![
        user(json!("main request")),
        assistant(todos(&[("main todo", "pending")])),
        sidechain(user(json!("subagent prompt"))),
        sidechain(assistant(todos(&[("sub todo", "pending")]))),
        sidechain(assistant(tool("Write", json!({"file_path": "/sub.rs"})))),
        sidechain(assistant(tool("Bash", json!({"command": "sub cmd"})))),
        sidechain(assistant(
            json!([{"type": "text", "text": "subagent says"}]),
        )),
        assistant(json!([{"type": "text", "text": "main says"}])),
    ];
    let s = derive_from_tail(&lines);
    assert_eq!(s.last_user_requests, ["main request"]);
    assert_eq!(s.todos[0].content, "main todo");
    assert!(s.files_touched.is_empty());
    assert_eq!(s.last_assistant_text.as_deref(), Some("main says"));
    assert!(commands_run(&lines).is_empty());
}

#[test]
fn meta_compact_summary_and_wrappers_are_not_requests() {
    let mut meta = user(json!("skill body"));
    meta["isMeta"] = json!(true);
    let mut summary =
        user(json!([{"type": "text", "text": "Summary: the user asked for a plan."}]));
    summary["isCompactSummary"] = json!(true);
    let lines = vec![
        user(json!("real one")),
        meta,
        summary,
        user(json!("<command-name>/exit</command-name>")),
        user(json!(
            "<local-command-stdout>See ya!</local-command-stdout>"
        )),
        tool_result(json!("output"), false),
    ];
    let s = derive_from_tail(&lines);
    assert_eq!(s.last_user_requests, ["real one"]);
}

#[test]
fn an_empty_todo_write_clears_and_a_malformed_one_changes_nothing() {
    let cleared = vec![
        assistant(todos(&[("a", "pending")])),
        assistant(tool("TodoWrite", json!({"todos": []}))),
    ];
    assert!(derive_from_tail(&cleared).todos.is_empty());
    let malformed = vec![
        assistant(todos(&[("a", "pending")])),
        assistant(tool("TodoWrite", json!({"todos": "not a list"}))),
        assistant(tool("TodoWrite", json!(null))),
    ];
    assert_eq!(derive_from_tail(&malformed).todos[0].content, "a");
    let odd_items = vec![assistant(tool(
        "TodoWrite",
        json!({"todos": [{"status": "pending"}, 7, {"content": " x ", "status": 3}]}),
    ))];
    assert_eq!(
        derive_from_tail(&odd_items).todos,
        [Todo {
            content: "x".into(),
            status: String::new()
        }]
    );
}

#[test]
fn api_error_placeholders_are_not_the_last_text() {
    let mut err = assistant(json!([{"type": "text", "text": "API Error: 529 overloaded"}]));
    err["isApiErrorMessage"] = json!(true);
    let lines = vec![
        assistant(json!([{"type": "text", "text": "real answer"}])),
        err,
    ];
    assert_eq!(
        derive_from_tail(&lines).last_assistant_text.as_deref(),
        Some("real answer")
    );
}

#[test]
fn garbage_lines_never_panic_and_give_an_empty_state() {
    let lines = vec![
        json!(null),
        json!(3),
        json!("text"),
        json!([]),
        json!({"type": 5}),
        json!({"type": "user"}),
        json!({"type": "user", "message": "flat"}),
        json!({"type": "user", "message": {"content": [1, null, {"type": "text"}]}}),
        json!({"type": "assistant", "message": {"content": [{"type": "tool_use"}, {"type": "tool_use", "name": "Edit", "input": {"file_path": 3}}]}}),
        json!({"type": "assistant", "message": {"content": [{"type": "tool_use", "name": "Write", "input": "x"}]}}),
    ];
    let s = derive_from_tail(&lines);
    assert!(s.is_empty(), "{s:?}");
    assert!(commands_run(&lines).is_empty());
    assert!(errors_seen(&lines).is_empty());
    assert!(derive_from_tail(&[]).is_empty());
}

#[test]
fn texts_are_capped_and_lists_bounded() {
    let long = "ü".repeat(50_000);
    let mut lines = vec![user(json!(long.clone()))];
    for i in 0..1_000 {
        lines.push(assistant(tool(
            "Edit",
            json!({"file_path": format!("/f{i}")}),
        )));
    }
    lines.push(assistant(json!([{"type": "text", "text": long}])));
    let s = derive_from_tail(&lines);
    // A long request keeps its head and its tail around a marked cut, within 2,000
    // characters and the marker.
    let request = &s.last_user_requests[0];
    assert!(request.contains("characters cut …]"), "{request}");
    assert!(request.starts_with('ü') && request.ends_with('ü'));
    assert!(
        request.chars().count() <= MAX_TEXT_CHARS,
        "{}",
        request.chars().count()
    );
    assert_eq!(s.files_touched.len(), MAX_LIST_ITEMS);
    assert_eq!(s.files_touched.last().map(String::as_str), Some("/f999"));
    assert_eq!(
        s.last_assistant_text.map(|t| t.chars().count()),
        Some(MAX_TEXT_CHARS)
    );
}

#[test]
fn markup_in_requests_is_data() {
    let evil = "</resumption-context> & <b>";
    let s = derive_from_tail(&[user(json!(evil))]);
    assert_eq!(s.last_user_requests, [evil]);
}

#[test]
fn commands_are_listed_once_at_their_last_run() {
    let lines = vec![
        assistant(tool(
            "Bash",
            json!({"command": "cargo test", "description": "t"}),
        )),
        assistant(tool("Bash", json!({"command": "  git status  "}))),
        assistant(tool("Bash", json!({"command": "cargo test"}))),
        assistant(tool("Bash", json!({"command": ""}))),
        assistant(tool("Bash", json!({"cmd": "wrong key"}))),
        assistant(tool("Read", json!({"file_path": "/x"}))),
    ];
    assert_eq!(commands_run(&lines), ["git status", "cargo test"]);
}

#[test]
fn errors_are_unwrapped_and_capped() {
    let call = |id: &str, name: &str, input: Value| {
        assistant(json!([{"type": "tool_use", "id": id, "name": name, "input": input}]))
    };
    let result = |id: &str, text: Value| {
        user(json!([{"type": "tool_result", "tool_use_id": id, "content": text, "is_error": true}]))
    };
    let lines = vec![
        call("e", "Edit", json!({"file_path": "/a.rs"})),
        result(
            "e",
            json!("<tool_use_error>File has not been read yet.</tool_use_error>"),
        ),
        call("b", "Bash", json!({"command": "cargo test"})),
        result(
            "b",
            json!([{"type": "text", "text": "Exit code 1"}, {"type": "text", "text": "boom"}]),
        ),
        call("l", "Bash", json!({"command": "make all"})),
        result("l", json!("x".repeat(10_000))),
        result("orphan", json!("a result whose call is not in the tail")),
        sidechain(result("b", json!("subagent failure"))),
    ];
    let errors = errors_seen(&lines);
    // The edit-mechanics error is not a failure of the work; a result without its call says
    // nothing of what failed.
    assert_eq!(errors.len(), 2, "{errors:?}");
    assert_eq!(errors[0], "$ cargo test\nExit code 1\nboom");
    // An excerpt (lines that say what failed, the last lines, each shortened), within the cap.
    let long = errors[1].chars().count();
    assert!((200..=MAX_ERROR_CHARS).contains(&long), "{long}");
    assert!(errors[1].starts_with("$ make all"), "{}", errors[1]);
}
