//! `report` names who started a compaction for every agent: Claude Code writes it into the
//! transcript, while Codex and Gemini CLI tell only the pre-compaction hook, whose checkpoint
//! keeps it. The report takes the trigger from the session's checkpoint written in the
//! compaction's span, and still says `?` where no hook ran.

// Test helpers: a panic is how a broken precondition fails the test.
#![allow(clippy::unwrap_used)]

use std::path::Path;

use serde_json::{Value, json};

use crate::common::{self, Sandbox};

fn report(sb: &Sandbox, transcript: &Path) -> (Value, String) {
    let path = transcript.to_str().unwrap();
    let json = sb.run(&["--json", "report", "--transcript", path], "");
    assert_eq!(json.code, 0, "{}", json.stderr);
    let text = sb.run(&["report", "--transcript", path], "");
    assert_eq!(text.code, 0, "{}", text.stderr);
    (serde_json::from_str(&json.stdout).unwrap(), text.stdout)
}

fn compaction_line(text: &str) -> &str {
    let after = text.split("compactions (1)\n").nth(1).unwrap_or_default();
    after.lines().next().unwrap_or_default()
}

#[test]
fn a_codex_compaction_is_named_as_its_checkpoint_names_it() {
    const SESSION: &str = "019c8bfe-0000-7000-8000-00000000c0de";
    let sb = Sandbox::new();
    let rollout = sb.write(
        "rollout.jsonl",
        common::codex_rollout(SESSION, sb.dir(), &[200_000]),
    );
    let compacted = |rollout: &Path| {
        let now = common::now_rfc3339();
        let mut text = std::fs::read_to_string(rollout).unwrap();
        text.push_str(&format!(
            "{}\n{}\n",
            json!({"timestamp": now, "type": "compacted", "payload": {"message": ""}}),
            json!({"timestamp": now, "type": "event_msg", "payload": {"type": "context_compacted"}}),
        ));
        std::fs::write(rollout, text).unwrap();
    };
    // No hook ran: nothing says who started it.
    let unhooked = sb.write(
        "unhooked.jsonl",
        common::codex_rollout("019c8bfe-0000-7000-8000-0000000000aa", sb.dir(), &[200_000]),
    );
    compacted(&unhooked);
    let (v, text) = report(&sb, &unhooked);
    assert_eq!(v["compactions"][0]["trigger"], Value::Null, "{v}");
    assert!(
        compaction_line(&text).ends_with("?  200,000 tokens before"),
        "{text}"
    );
    let input = json!({
        "session_id": SESSION, "transcript_path": rollout, "cwd": sb.dir(),
        "hook_event_name": "PreCompact", "model": "gpt-5.3-codex", "turn_id": "t9",
        "trigger": "manual",
    });
    let pre = sb.run(&["hooks", "pre-compact"], input.to_string());
    assert_eq!(pre.code, 0, "{}", pre.stderr);
    compacted(&rollout);
    let (v, text) = report(&sb, &rollout);
    assert_eq!(v["compactions"][0]["trigger"], "manual", "{v}");
    assert!(
        compaction_line(&text).ends_with("manual  200,000 tokens before"),
        "{text}"
    );
}

#[test]
fn a_gemini_compression_is_named_as_its_checkpoint_names_it() {
    const SESSION: &str = "abc12345-6789-4def-8000-0000000000c1";
    let sb = Sandbox::new();
    let now = common::now_rfc3339;
    let mut text = [
        json!({"sessionId": SESSION, "projectHash": "h", "startTime": "2026-04-25T08:00:00.000Z", "lastUpdated": "2026-04-25T08:00:00.000Z", "kind": "main"}),
        json!({"id": "u1", "timestamp": "2026-04-25T08:01:00.000Z", "type": "user", "content": [{"text": "Refactor the parser"}]}),
        json!({"id": "g1", "timestamp": "2026-04-25T08:02:00.000Z", "type": "gemini", "content": "Working.", "tokens": {"input": 530_000}, "model": "gemini-2.5-pro"}),
    ]
    .iter()
    .map(|l| format!("{l}\n"))
    .collect::<String>();
    let path = sb.write("chat.jsonl", &text);
    let input = json!({
        "session_id": SESSION, "transcript_path": path, "cwd": sb.dir(),
        "hook_event_name": "PreCompress", "timestamp": now(), "trigger": "auto",
    });
    let pre = sb.run(&["hooks", "pre-compact"], input.to_string());
    assert_eq!(pre.code, 0, "{}", pre.stderr);
    text.push_str(&format!(
        "{}\n{}\n",
        json!({"$set": {"messages": [
            {"id": "sum", "timestamp": "2026-04-25T08:04:00.000Z", "type": "user", "content": [{"text": "<state_snapshot>parser</state_snapshot>"}]},
        ]}}),
        json!({"id": "g9", "timestamp": now(), "type": "gemini", "content": "Continuing.", "tokens": {"input": 150_000}, "model": "gemini-2.5-pro"})
    ));
    std::fs::write(&path, text).unwrap();
    let (v, text) = report(&sb, &path);
    assert_eq!(v["compactions"][0]["trigger"], "auto", "{v}");
    assert!(compaction_line(&text).contains("  auto  "), "{text}");
}
