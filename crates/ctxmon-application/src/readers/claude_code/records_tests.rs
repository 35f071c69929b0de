//! Claude Code lines as records: request kinds, tool calls, results and what they carry.

use serde_json::json;

use super::*;

fn bodies(lines: &[Value]) -> Vec<RecordBody> {
    records_from_values(lines)
        .into_iter()
        .map(|r| r.body)
        .collect()
}

fn user(content: Value) -> Value {
    json!({"type": "user", "gitBranch": "feat/x", "timestamp": "2026-11-20T10:00:00Z",
           "message": {"role": "user", "content": content}})
}

fn calls(blocks: Value) -> Value {
    json!({"type": "assistant", "message": {"role": "assistant", "content": blocks}})
}

fn result(id: &str, is_error: bool, content: &str) -> Value {
    user(
        json!([{"type": "tool_result", "tool_use_id": id, "is_error": is_error, "content": content}]),
    )
}

#[test]
fn requests_carry_their_kind() {
    let kinds: Vec<(RequestKind, String)> = bodies(&[
        user(json!("fix the build")),
        user(json!(
            "<command-name>/review</command-name><command-args>src</command-args>"
        )),
        user(json!("<command-name>/exit</command-name>")),
        json!({"type": "user", "isMeta": true, "message": {"content": "skill body"}}),
        json!({"type": "user", "isCompactSummary": true, "message": {"content": "summary"}}),
        user(json!([{"type": "text", "text": "[Request interrupted by user for tool use]"}])),
        user(json!("<local-command-stdout>ok</local-command-stdout>")),
    ])
    .into_iter()
    .filter_map(|b| match b {
        RecordBody::Request(r) => Some((r.kind, r.text)),
        _ => None,
    })
    .collect();
    let only_kinds: Vec<RequestKind> = kinds.iter().map(|k| k.0).collect();
    assert_eq!(
        only_kinds,
        [
            RequestKind::Typed,
            RequestKind::SlashCommand,
            RequestKind::ControlCommand,
            RequestKind::Meta,
            RequestKind::CompactionSummary,
            RequestKind::Interrupt,
            RequestKind::CommandOutput,
        ]
    );
    assert_eq!(kinds[1].1, "/review src");
}

#[test]
fn a_line_keeps_its_branch_timestamp_and_chain() {
    let recs = records_from_values(&[
        user(json!("go")),
        json!({"type": "summary", "timestamp": "t0", "isSidechain": true}),
    ]);
    assert_eq!(recs[0].git_branch.as_deref(), Some("feat/x"));
    assert_eq!(recs[0].timestamp.as_deref(), Some("2026-11-20T10:00:00Z"));
    assert!(!recs[0].sidechain);
    assert_eq!(recs[1].body, RecordBody::Other);
    assert!(recs[1].sidechain);
}

#[test]
fn shell_results_carry_exit_codes_and_rejections_their_reason() {
    let recs = bodies(&[
        calls(json!([
            {"type": "tool_use", "id": "b1", "name": "Bash", "input": {"command": "cargo test", "description": "Run tests"}},
            {"type": "tool_use", "id": "e1", "name": "Edit", "input": {"file_path": "/p/a.rs"}},
            {"type": "tool_use", "id": "r1", "name": "Read", "input": {"file_path": "/p/b.rs"}}
        ])),
        result("b1", true, "Exit code 101\nerror: test failed"),
        result(
            "e1",
            true,
            "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). The user provided the following reason for the rejection:  keep the old name",
        ),
        result("r1", false, "file contents"),
    ]);
    let RecordBody::ToolCall(bash) = &recs[0] else {
        panic!("{recs:?}")
    };
    assert_eq!(
        (
            bash.kind,
            bash.command.as_deref(),
            bash.description.as_deref()
        ),
        (ToolKind::Shell, Some("cargo test"), Some("Run tests"))
    );
    let RecordBody::ToolCall(edit) = &recs[1] else {
        panic!()
    };
    assert_eq!(
        (edit.kind, edit.file_path.as_deref()),
        (ToolKind::FileWrite, Some("/p/a.rs"))
    );
    let RecordBody::ToolResult(failed) = &recs[3] else {
        panic!("{recs:?}")
    };
    assert_eq!((failed.is_error, failed.exit_code), (true, Some(101)));
    let RecordBody::ToolResult(rejected) = &recs[4] else {
        panic!()
    };
    assert_eq!(rejected.rejected, Some(Some("keep the old name".into())));
    // A successful read's content is not needed: not kept.
    let RecordBody::ToolResult(read) = &recs[5] else {
        panic!()
    };
    assert_eq!((read.is_error, read.text.as_str()), (false, ""));
}

#[test]
fn task_tools_yield_their_tasks() {
    let recs = bodies(&[
        calls(json!([
            {"type": "tool_use", "id": "c1", "name": "TaskCreate", "input": {"subject": "Write tax.rs", "description": "d", "activeForm": "Writing"}},
            {"type": "tool_use", "id": "u1", "name": "TaskUpdate", "input": {"taskId": "1", "status": "in_progress"}},
            {"type": "tool_use", "id": "l1", "name": "TaskList", "input": {}}
        ])),
        result("c1", false, "Task #1 created successfully: Write tax.rs"),
        result(
            "l1",
            false,
            "#1 [in_progress] Write tax.rs\n#2 [pending] Run the tests [blocked by #1]\nnoise",
        ),
    ]);
    let RecordBody::ToolCall(update) = &recs[1] else {
        panic!()
    };
    assert_eq!(
        update.task,
        Some(TaskItem {
            id: Some("1".into()),
            subject: None,
            status: Some("in_progress".into())
        })
    );
    let RecordBody::ToolResult(created) = &recs[3] else {
        panic!("{recs:?}")
    };
    assert_eq!(created.created_task.as_deref(), Some("1"));
    let RecordBody::ToolResult(listed) = &recs[4] else {
        panic!()
    };
    let list = listed.task_list.clone().unwrap_or_default();
    assert_eq!(list.len(), 2);
    assert_eq!(list[1].status.as_deref(), Some("pending"));
    assert_eq!(
        list[1].subject.as_deref(),
        Some("Run the tests [blocked by #1]")
    );
}

#[test]
fn successful_results_are_parsed_only_for_calls_that_need_them() {
    let mut parser = RecordParser::default();
    let mut out = Vec::new();
    parser.push(
        &calls(json!([
            {"type": "tool_use", "id": "g1", "name": "Bash", "input": {"command": "git commit -m x"}},
            {"type": "tool_use", "id": "b1", "name": "Bash", "input": {"command": "cat big.log"}},
            {"type": "tool_use", "id": "c1", "name": "TaskCreate", "input": {"subject": "s"}},
            {"type": "tool_use", "id": "r1", "name": "Read", "input": {"file_path": "/p/b.rs"}},
            {"type": "tool_use", "id": "h1", "name": "Bash", "input": {"command": "curl -s http://x/api"}}
        ])),
        &mut out,
    );
    let line = |id: &str| result(id, false, "x").to_string();
    assert!(parser.wants(line("g1").as_bytes()));
    // An HTTP request's answer may say it failed though curl exited 0.
    assert!(parser.wants(line("h1").as_bytes()));
    assert!(parser.wants(line("c1").as_bytes()));
    assert!(!parser.wants(line("b1").as_bytes()));
    assert!(!parser.wants(line("r1").as_bytes()));
    assert!(!parser.wants(line("unknown").as_bytes()));
    assert!(parser.wants(result("r1", true, "x").to_string().as_bytes()));
}

#[test]
fn a_long_result_keeps_its_start_and_its_end() {
    let long: String = (0..5_000).map(|i| format!("line {i}\n")).collect();
    let kept = head_and_tail(&long, RESULT_HEAD_CHARS, RESULT_TAIL_CHARS);
    assert!(kept.starts_with("line 0\n"));
    assert!(kept.trim_end().ends_with("line 4999"));
    assert!(kept.contains("\n…\n"));
    assert!(kept.chars().count() <= RESULT_HEAD_CHARS + RESULT_TAIL_CHARS + 3);
}

#[test]
fn a_result_not_parsed_still_says_it_succeeded() {
    let mut parser = RecordParser::default();
    let mut out = Vec::new();
    parser.push(
        &calls(json!([{"type": "tool_use", "id": "e1", "name": "Edit", "input": {"file_path": "/p/a.rs"}}])),
        &mut out,
    );
    let line = result("e1", false, "The file /p/a.rs has been updated").to_string();
    assert!(!parser.wants(line.as_bytes()));
    out.clear();
    parser.push_unparsed(line.as_bytes(), &mut out);
    assert_eq!(out.len(), 1);
    let RecordBody::ToolResult(r) = &out[0].body else {
        panic!("{out:?}")
    };
    assert_eq!((r.tool_use_id.as_deref(), r.is_error), (Some("e1"), false));
    // Unknown calls and subagents' results add nothing.
    out.clear();
    parser.push_unparsed(result("zz", false, "x").to_string().as_bytes(), &mut out);
    assert!(out.is_empty());
}

#[test]
fn a_task_list_in_an_unknown_shape_is_no_list_and_the_structured_one_wins() {
    let list = |content: &str, extra: Option<Value>| {
        let mut line = result("l1", false, content);
        if let Some(x) = extra {
            line["toolUseResult"] = x;
        }
        let recs = bodies(&[
            calls(json!([{"type": "tool_use", "id": "l1", "name": "TaskList", "input": {}}])),
            line,
        ]);
        match &recs[1] {
            RecordBody::ToolResult(r) => r.task_list.clone(),
            other => panic!("{other:?}"),
        }
    };
    assert_eq!(list("Tasks: something new", None), None);
    assert_eq!(list("No tasks found", None), Some(vec![]));
    let structured = list(
        "whatever",
        Some(json!({"tasks": [{"id": "3", "subject": "Ship it", "status": "pending"}]})),
    );
    assert_eq!(
        structured,
        Some(vec![TaskItem {
            id: Some("3".into()),
            subject: Some("Ship it".into()),
            status: Some("pending".into())
        }])
    );
}
