//! The resumption source file through the real hooks: with the default setting a project may
//! keep `ORCHESTRATION.json` (or `.yml`) instead of `ORCHESTRATION.yaml` (contract C5), and the
//! PreToolUse staleness check follows the file in use.

// Test helpers: a panic is how a broken precondition fails the test.
#![allow(clippy::unwrap_used)]

use std::path::Path;

use serde_json::{Value, json};

use crate::common::{Sandbox, additional_context, transcript_with};

fn hook(sb: &Sandbox, name: &str, event: &str, t: &Path, extra: Value) -> String {
    let mut v =
        json!({"session_id":"s1","transcript_path":t,"cwd":sb.dir(),"hook_event_name":event});
    v.as_object_mut()
        .unwrap()
        .extend(extra.as_object().unwrap().clone());
    let run = sb.run(&["hooks", name], v.to_string());
    assert_eq!(run.code, 0, "{name}: {}", run.stderr);
    run.stdout
}

fn edit(sb: &Sandbox, t: &Path, file: &str) -> String {
    hook(
        sb,
        "pre-tool-use",
        "PreToolUse",
        t,
        json!({"tool_name":"Write","tool_input":{"file_path":file,"content":"x"},"tool_use_id":"toolu_1"}),
    )
}

#[test]
fn orchestration_json_is_the_source_when_it_is_the_one_there() {
    let sb = Sandbox::new();
    let t = sb.write("t.jsonl", transcript_with(&[170_000]));
    sb.write(
        "ORCHESTRATION.json",
        r#"{"resumption": {"summary": "Phase 2 of 3", "next_steps": ["Port the orders endpoint"], "updated_at": "2020-01-01T00:00:00Z"}}"#,
    );
    hook(
        &sb,
        "pre-compact",
        "PreCompact",
        &t,
        json!({"trigger":"auto"}),
    );
    let start = hook(
        &sb,
        "session-start",
        "SessionStart",
        &t,
        json!({"source":"compact"}),
    );
    let ctx = additional_context(&start, "SessionStart");
    // Written long before the session: the transcript leads, the file's summary is kept
    // under its own name and date, not as the agent's own.
    assert!(ctx.contains("origin=\"transcript\""), "{ctx}");
    assert!(
        ctx.contains("(from ORCHESTRATION.json, updated at 2020-01-01"),
        "{ctx}"
    );
    assert!(ctx.contains("Phase 2 of 3"), "{ctx}");
    assert!(!ctx.contains("written by you"), "{ctx}");

    let warned = edit(&sb, &t, "ORCHESTRATION.json");
    let v: Value = serde_json::from_str(&warned).unwrap();
    assert_eq!(
        v["hookSpecificOutput"]["permissionDecision"],
        Value::Null,
        "{v}"
    );
    let note = v["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap();
    assert!(
        note.contains("file=\"ORCHESTRATION.json\"")
            && note.contains("older than checkpoint cx-001"),
        "{note}"
    );
    assert_eq!(
        edit(&sb, &t, "ORCHESTRATION.yaml"),
        "",
        "not the file in use"
    );

    // Once ORCHESTRATION.yaml exists it is the source, and the .json file is just a file.
    sb.write(
        "ORCHESTRATION.yaml",
        "resumption:\n  next_steps: [from yaml]\n",
    );
    assert_eq!(
        edit(
            &sb,
            &t,
            &sb.path("ORCHESTRATION.json").display().to_string()
        ),
        ""
    );
    assert!(edit(&sb, &t, "ORCHESTRATION.yaml").contains("resumption.updated_at is missing"));
}

#[test]
fn a_configured_name_has_no_alternatives() {
    let sb = Sandbox::new();
    let t = sb.write("t.jsonl", transcript_with(&[170_000]));
    sb.write(
        ".ctxmon/config.toml",
        "[resumption]\nsource_file = \"plan.yaml\"\n",
    );
    sb.write(
        "ORCHESTRATION.json",
        r#"{"resumption": {"next_steps": ["not this"]}}"#,
    );
    hook(
        &sb,
        "pre-compact",
        "PreCompact",
        &t,
        json!({"trigger":"auto"}),
    );
    let cp: Value = serde_json::from_slice(
        &std::fs::read(sb.path(".ctxmon/checkpoints/cx-001-checkpoint.json")).unwrap(),
    )
    .unwrap();
    assert_ne!(cp["resumption_state"]["origin"], "source_file", "{cp}");
    assert_eq!(edit(&sb, &t, "ORCHESTRATION.json"), "");
    assert!(!edit(&sb, &t, "plan.yaml").is_empty());
}
