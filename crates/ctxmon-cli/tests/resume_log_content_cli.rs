//! What a resume log written by `ctxmon resume-log generate` says, end to end: the mission
//! is the session's first request however long the session, files subagents wrote are there,
//! markdown in a document stays inside its section, and a huge document is stored within the
//! budget in both formats.

// Test helpers: a panic is how a broken precondition fails the test.
#![allow(clippy::unwrap_used)]

mod common;
#[path = "common/resume_log.rs"]
mod resume_log;

use common::Sandbox;
use resume_log::{SESSION, logs_dir, transcript};
use serde_json::{Value, json};

#[test]
fn the_mission_is_the_first_request_even_beyond_the_tail() {
    let sb = Sandbox::new();
    // A small tail window stands for 8 MiB: the first request lies far before it.
    sb.write(".ctxmon/config.toml", "[resumption]\ntail_bytes = 4096\n");
    let path = transcript(&sb, SESSION);
    let first = "Migrate the ledger to SQLite. Keep the CSV export working. ".repeat(80);
    let mut text = json!({"type": "user", "timestamp": "2026-11-20T08:00:00.000Z",
        "message": {"role": "user", "content": first}})
    .to_string()
        + "\n";
    for i in 0..200 {
        text.push_str(
            &json!({"type": "assistant", "message": {"role": "assistant",
            "content": [{"type": "text", "text": format!("step {i}: {}", "work ".repeat(20))}]}})
            .to_string(),
        );
        text.push('\n');
    }
    text.push_str(&std::fs::read_to_string(&path).unwrap());
    std::fs::write(&path, text).unwrap();

    let run = sb.run(&["--json", "resume-log", "generate"], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    let log: Value = serde_json::from_str(
        &sb.run(&["--json", "resume-log", "show", SESSION], "")
            .stdout,
    )
    .unwrap();
    let mission = log["mission_summary"].as_str().unwrap();
    // The whole first request up to the section's budget, cut after a sentence.
    assert!(first.starts_with(mission), "{mission}");
    assert!(mission.len() > 2_500 && mission.ends_with('.'), "{mission}");
    assert_eq!(
        log["critical_context"]["latest user request"],
        "Refactor billing and add tax.rs"
    );
    let md = std::fs::read_to_string(logs_dir(&sb).join(format!("session-{SESSION}.md"))).unwrap();
    assert!(md.contains(".\n\n… [truncated: "), "{md}");
}

#[test]
fn files_written_by_a_subagent_are_in_the_log() {
    let sb = Sandbox::new();
    let path = transcript(&sb, SESSION);
    let subagent = json!({"type": "assistant", "isSidechain": true, "message": {"role": "assistant", "content": [
        {"type": "tool_use", "id": "s1", "name": "Write", "input": {"file_path": "/w/src/agent_wrote.rs", "content": "x"}}
    ]}});
    let mut text = std::fs::read_to_string(&path).unwrap();
    text.push_str(&format!("{subagent}\n"));
    std::fs::write(&path, text).unwrap();
    let run = sb.run(&["resume-log", "generate"], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    let md = std::fs::read_to_string(logs_dir(&sb).join(format!("session-{SESSION}.md"))).unwrap();
    assert!(
        md.contains("**Files Modified:**\n\n- /w/src/tax.rs\n\n**Files Modified by Subagents:**\n\n- /w/src/agent_wrote.rs\n"),
        "{md}"
    );
}

#[test]
fn markdown_in_the_document_stays_inside_its_section() {
    let sb = Sandbox::new();
    let hostile = "# Task\nFix the login\n## Next Steps\n1. add test\n---";
    let doc = json!({
        "mission_summary": hostile,
        "key_findings": [hostile],
        "decisions": [{"decision": hostile, "rationale": hostile}],
        "next_steps": [hostile],
        "critical_context": {"k": hostile},
        "metadata": {"notes": {"n": hostile}, "errors": [hostile]}
    });
    let run = sb.run(
        &["resume-log", "generate", "--session", "s", "--from", "-"],
        doc.to_string(),
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let md = std::fs::read_to_string(logs_dir(&sb).join("session-s.md")).unwrap();
    let headings: Vec<&str> = md.lines().filter(|l| l.starts_with('#')).collect();
    assert_eq!(
        headings,
        [
            "# Session Resume Log: s",
            "## Context Metrics",
            "## Mission Summary",
            "## Accomplishments",
            "## Key Findings",
            "## Decisions & Rationale",
            "## Next Steps",
            "## Critical Context",
            "## Session Metadata",
        ],
        "{md}"
    );
    assert!(
        md.contains("> # Task\n> Fix the login\n> ## Next Steps\n"),
        "{md}"
    );
    assert!(!md.lines().any(|l| l.starts_with("---")), "{md}");
}

#[test]
fn a_huge_document_is_stored_within_the_budget_in_both_formats() {
    let sb = Sandbox::new();
    let long = |what: &str| format!("{what} is a sentence that goes on. ").repeat(20);
    let doc = json!({
        "mission_summary": "The mission is long. ".repeat(3_000),
        "accomplishments": (0..300).map(|i| format!("{i}: {}", long("Done"))).collect::<Vec<_>>(),
        "key_findings": (0..300).map(|i| format!("{i}: {}", long("Found"))).collect::<Vec<_>>(),
        "decisions": (0..100).map(|i| json!({"decision": format!("{i}: {}", long("Decided")), "rationale": long("Why")})).collect::<Vec<_>>(),
        "next_steps": (0..300).map(|i| format!("{i}: {}", long("Next"))).collect::<Vec<_>>(),
        "critical_context": (0..300).map(|i| (format!("key {i:03}"), Value::from(long("Value")))).collect::<serde_json::Map<_, _>>(),
        "metadata": {"notes": (0..300).map(|i| (format!("note {i:03}"), Value::from(long("Note")))).collect::<serde_json::Map<_, _>>()}
    });
    let text = doc.to_string();
    assert!(text.len() > 900_000 && text.len() < 2 * 1024 * 1024);
    let run = sb.run(
        &[
            "--json",
            "resume-log",
            "generate",
            "--session",
            "big",
            "--from",
            "-",
        ],
        text,
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let out: Value = serde_json::from_str(&run.stdout).unwrap();
    assert!(out["tokens"].as_u64().unwrap() <= 10_000);
    assert!(out["omitted_tokens"].as_u64().unwrap() > 100_000);
    let md = std::fs::read_to_string(logs_dir(&sb).join("session-big.md")).unwrap();
    let stored = std::fs::read_to_string(logs_dir(&sb).join("session-big.json")).unwrap();
    // The JSON holds what the markdown shows, not the 900 KB behind it.
    assert!(
        stored.len() <= md.len() + 8_000,
        "json {} bytes, markdown {}",
        stored.len(),
        md.len()
    );
    let show = sb.run(&["--json", "resume-log", "show", "big"], "");
    assert_eq!(show.code, 0, "{}", show.stderr);
    assert!(show.stdout.len() <= md.len() + 8_000);
    let log: Value = serde_json::from_str(&show.stdout).unwrap();
    assert_eq!(log, serde_json::from_str::<Value>(&stored).unwrap());
    // Every critical entry kept is shown, and the markdown says what was left out.
    for (k, v) in log["critical_context"].as_object().unwrap() {
        assert!(
            md.contains(&format!("- **{k}:** {}", v.as_str().unwrap())),
            "{k}"
        );
    }
    assert!(log["critical_context"].as_object().unwrap().len() < 300);
    let n = log["omitted_tokens"]["key_findings"].as_u64().unwrap();
    assert!(
        md.contains(&format!("… [truncated: {n} tokens omitted]")),
        "{md}"
    );
    // Rendering the stored JSON again gives the stored markdown.
    std::fs::remove_file(logs_dir(&sb).join("session-big.md")).unwrap();
    let again = sb.run(&["resume-log", "show", "big"], "");
    assert_eq!(again.stdout, md.trim_end().to_string() + "\n");
}
