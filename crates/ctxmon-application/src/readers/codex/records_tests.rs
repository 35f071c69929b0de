//! The rollout parser on hand-written lines in Codex's shapes.

use super::*;
use serde_json::json;

fn line(kind: &str, payload: Value) -> Value {
    json!({"timestamp": "2026-02-23T12:00:00.000Z", "type": kind, "payload": payload})
}

fn records(lines: &[Value]) -> Vec<TranscriptRecord> {
    crate::readers::codex::rollout_records_from_values(lines)
}

fn bodies(lines: &[Value]) -> Vec<RecordBody> {
    records(lines).into_iter().map(|r| r.body).collect()
}

#[test]
fn requests_answers_and_the_branch() {
    let got = records(&[
        line(
            "session_meta",
            json!({"id": "s", "cwd": "/p", "git": {"branch": "feature/x", "commit_hash": "abc"}}),
        ),
        line(
            "response_item",
            json!({"type": "message", "role": "user", "content": [{"type": "input_text", "text": "<environment_context>…"}]}),
        ),
        line(
            "event_msg",
            json!({"type": "user_message", "message": "  Fix the parser  ", "images": []}),
        ),
        line(
            "response_item",
            json!({"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Done."}]}),
        ),
    ]);
    assert_eq!(got[0].git_branch.as_deref(), Some("feature/x"));
    let b: Vec<&RecordBody> = got.iter().map(|r| &r.body).collect();
    assert_eq!(
        b[1..],
        [
            &RecordBody::Request(Request {
                kind: RequestKind::Typed,
                text: "Fix the parser".into()
            }),
            &RecordBody::AssistantText("Done.".into()),
        ]
    );
}

#[test]
fn shell_calls_their_exit_codes_and_output_bodies() {
    let got = bodies(&[
        line(
            "response_item",
            json!({"type": "function_call", "name": "exec_command", "arguments": "{\"cmd\":\"cargo test\",\"workdir\":\"/p\"}", "call_id": "c1"}),
        ),
        line(
            "response_item",
            json!({"type": "function_call_output", "call_id": "c1", "output": "Chunk ID: 1\nWall time: 2.0 seconds\nProcess exited with code 101\nOriginal token count: 9\nOutput:\nerror[E0425]: cannot find value `x`\n"}),
        ),
        line(
            "response_item",
            json!({"type": "function_call", "name": "shell", "arguments": "{\"command\":[\"bash\",\"-lc\",\"ls -la\"]}", "call_id": "c2"}),
        ),
        line(
            "response_item",
            json!({"type": "function_call_output", "call_id": "c2", "output": "{\"output\":\"total 0\\n\",\"metadata\":{\"exit_code\":0,\"duration_seconds\":0.1}}"}),
        ),
    ]);
    let RecordBody::ToolCall(call) = &bodies_at(&got, 0) else {
        panic!("{got:?}")
    };
    assert_eq!(
        (call.kind, call.command.as_deref()),
        (ToolKind::Shell, Some("cargo test"))
    );
    let RecordBody::ToolResult(failed) = &got[1] else {
        panic!("{got:?}")
    };
    assert!(failed.is_error);
    assert_eq!(failed.exit_code, Some(101));
    assert_eq!(failed.text, "error[E0425]: cannot find value `x`");
    let RecordBody::ToolCall(ls) = &got[2] else {
        panic!("{got:?}")
    };
    assert_eq!(ls.command.as_deref(), Some("ls -la"));
    let RecordBody::ToolResult(ok) = &got[3] else {
        panic!("{got:?}")
    };
    assert!(!ok.is_error);
    assert_eq!((ok.exit_code, ok.text.as_str()), (Some(0), "total 0"));
}

fn bodies_at(b: &[RecordBody], i: usize) -> RecordBody {
    b[i].clone()
}

#[test]
fn plans_are_todo_lists_and_patches_write_every_file_they_name() {
    let patch = "*** Begin Patch\n*** Update File: src/lib.rs\n@@\n-a\n+b\n*** Add File: docs/new.md\n+hi\n*** Delete File: old.txt\n*** Update File: src/lib.rs\n*** End Patch";
    let got = bodies(&[
        line(
            "response_item",
            json!({"type": "function_call", "name": "update_plan", "arguments": "{\"explanation\":\"why\",\"plan\":[{\"step\":\"Read the code\",\"status\":\"completed\"},{\"step\":\"Write the fix\",\"status\":\"in_progress\"},{\"step\":\" \",\"status\":\"pending\"}]}", "call_id": "p1"}),
        ),
        line(
            "response_item",
            json!({"type": "custom_tool_call", "status": "completed", "call_id": "a1", "name": "apply_patch", "input": patch}),
        ),
    ]);
    let RecordBody::ToolCall(plan) = &got[0] else {
        panic!("{got:?}")
    };
    assert_eq!(plan.kind, ToolKind::TodoList);
    let todos = plan.todos.clone().unwrap_or_default();
    assert_eq!(
        todos,
        [
            Todo {
                content: "Read the code".into(),
                status: "completed".into()
            },
            Todo {
                content: "Write the fix".into(),
                status: "in_progress".into()
            }
        ]
    );
    let files: Vec<(ToolKind, Option<String>, Option<String>)> = got[1..]
        .iter()
        .map(|b| match b {
            RecordBody::ToolCall(c) => (c.kind, c.file_path.clone(), c.id.clone()),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(
        files,
        ["src/lib.rs", "docs/new.md", "old.txt"].map(|p| (
            ToolKind::FileWrite,
            Some(p.to_string()),
            Some("a1".to_string())
        ))
    );
}

#[test]
fn a_refused_call_is_a_rejection_not_a_failure_and_one_compaction_is_one_boundary() {
    let got = bodies(&[
        line(
            "response_item",
            json!({"type": "function_call_output", "call_id": "c9", "output": "exec command rejected by user"}),
        ),
        line(
            "compacted",
            json!({"message": "", "replacement_history": []}),
        ),
        line("event_msg", json!({"type": "context_compacted"})),
    ]);
    let RecordBody::ToolResult(r) = &got[0] else {
        panic!("{got:?}")
    };
    assert!(!r.is_error);
    assert_eq!(r.rejected, Some(None));
    assert_eq!(got[1..], [RecordBody::CompactionBoundary]);
}

/// A raw line in Codex's own key order (`type` first in the payload), which the raw filter
/// relies on; `serde_json::Value` would sort the keys.
fn raw(kind: &str, payload_type: &str, rest: Value) -> Vec<u8> {
    let rest = rest.to_string();
    let rest = rest.trim_start_matches('{').trim_end_matches('}');
    let sep = if rest.is_empty() { "" } else { "," };
    format!(
        r#"{{"timestamp":"2026-02-23T12:00:00.000Z","type":"{kind}","payload":{{"type":"{payload_type}"{sep}{rest}}}}}"#
    )
    .into_bytes()
}

#[test]
fn the_raw_filter_skips_successes_and_bulk_but_keeps_what_records_need() {
    let mut p = RolloutRecords::default();
    let ok = raw(
        "response_item",
        "function_call_output",
        json!({"call_id": "c1", "output": "Chunk ID: 1\nWall time: 0.1 seconds\nProcess exited with code 0\nOutput:\nProcess exited with code 1\n"}),
    );
    let failed = raw(
        "response_item",
        "function_call_output",
        json!({"call_id": "c1", "output": "Wall time: 0.1 seconds\nProcess exited with code 1\nOutput:\nProcess exited with code 0\n"}),
    );
    let json_ok = raw(
        "response_item",
        "custom_tool_call_output",
        json!({"call_id": "c2", "output": "{\"output\":\"Success.\",\"metadata\":{\"exit_code\":0,\"duration_seconds\":0.0}}"}),
    );
    assert!(!p.wants(&ok));
    assert!(p.wants(&failed));
    assert!(!p.wants(&json_ok));
    let meta =
        br#"{"timestamp":"t","type":"session_meta","payload":{"id":"s","cwd":"/p"}}"#.to_vec();
    let turn = br#"{"timestamp":"t","type":"turn_context","payload":{"model":"m"}}"#.to_vec();
    for skipped in [
        raw("event_msg", "token_count", json!({"info": null})),
        raw("event_msg", "agent_message", json!({"message": "x"})),
        raw(
            "response_item",
            "reasoning",
            json!({"encrypted_content": "x"}),
        ),
        raw(
            "response_item",
            "message",
            json!({"role": "developer", "content": []}),
        ),
    ] {
        assert!(!p.wants(&skipped), "{}", String::from_utf8_lossy(&skipped));
    }
    // A turn's context names the working folder the commands of that turn ran in.
    for kept in [
        meta,
        turn,
        raw("event_msg", "user_message", json!({"message": "hi"})),
        raw(
            "response_item",
            "message",
            json!({"role": "assistant", "content": []}),
        ),
        raw(
            "response_item",
            "function_call",
            json!({"name": "x", "arguments": "{}", "call_id": "c"}),
        ),
    ] {
        assert!(p.wants(&kept), "{}", String::from_utf8_lossy(&kept));
    }
    // A git commit's output is read even when it succeeded: its text names the commit.
    p.push(
        &line(
            "response_item",
            json!({"type": "function_call", "name": "exec_command", "arguments": "{\"cmd\":\"git commit -m x\"}", "call_id": "c1"}),
        ),
        &mut Vec::new(),
    );
    assert!(p.wants(&ok));
    // So is an HTTP request's: its answer may say it failed though curl exited 0.
    p.push(
        &line(
            "response_item",
            json!({"type": "function_call", "name": "exec_command", "arguments": "{\"cmd\":\"curl -s http://x/api\"}", "call_id": "h1"}),
        ),
        &mut Vec::new(),
    );
    let answered = raw(
        "response_item",
        "function_call_output",
        json!({"call_id": "h1", "output": "Process exited with code 0\nOutput:\n{\"status\":\"error\"}\n"}),
    );
    assert!(p.wants(&answered));
    let mut out = Vec::new();
    p.push_unparsed(&json_ok, &mut out);
    assert!(matches!(
        &out[..],
        [TranscriptRecord { body: RecordBody::ToolResult(ToolResult { tool_use_id: Some(id), is_error: false, .. }), .. }] if id == "c2"
    ));
    // A compaction is reported from its raw bytes, once for its two markers.
    let mut out = Vec::new();
    let compacted = br#"{"timestamp":"tc","type":"compacted","payload":{"message":"","replacement_history":[]}}"#;
    for l in [
        &compacted[..],
        &raw("event_msg", "context_compacted", json!({})),
    ] {
        assert!(!p.wants(l));
        p.push_unparsed(l, &mut out);
    }
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].body, RecordBody::CompactionBoundary);
    assert_eq!(out[0].timestamp.as_deref(), Some("tc"));
}

#[test]
fn headers_are_taken_off_only_when_they_are_headers() {
    assert_eq!(
        exit_code_and_body("Exit code: 2\nWall time: 1 seconds\nOutput:\nboom\n"),
        (Some(2), "boom\n".to_string())
    );
    assert_eq!(
        exit_code_and_body("plain text\nOutput:\nx"),
        (None, "plain text\nOutput:\nx".to_string())
    );
    assert_eq!(exit_code_and_body(""), (None, String::new()));
    assert_eq!(
        patch_paths("*** Update File:   \n*** Move to: b.rs"),
        ["b.rs"]
    );
}
