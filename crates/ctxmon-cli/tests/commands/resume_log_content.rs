//! What a resume log written by `ctxmon resume-log generate` says, end to end: the mission
//! is the request at hand and the session's first request is named apart however long the
//! session, files subagents wrote are there,
//! markdown in a document stays inside its section, a huge document is stored within the
//! budget in both formats, a document with every field loads whole, and a busy session's newest
//! commands and errors are kept while the log has room.

// Test helpers: a panic is how a broken precondition fails the test.
#![allow(clippy::unwrap_used)]

use std::collections::BTreeMap;

use resume_log::{SESSION, logs_dir, transcript};
use serde_json::value::RawValue;
use serde_json::{Value, json};

use crate::common::Sandbox;
use crate::common::resume_log;

#[test]
fn the_mission_is_the_request_at_hand_and_the_first_request_is_found_beyond_the_tail() {
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
    // The work moved on: the mission is what the user asks now, never the first request.
    assert_eq!(log["mission_summary"], "Refactor billing and add tax.rs");
    // The first request, from the transcript's start far before the tail, under its own
    // name: its head and its tail around a marked cut.
    let first_shown = log["critical_context"]["first request"].as_str().unwrap();
    assert!(
        first_shown.starts_with("Migrate the ledger to SQLite."),
        "{first_shown}"
    );
    assert!(
        first_shown.ends_with("Keep the CSV export working."),
        "{first_shown}"
    );
    assert!(first_shown.contains("characters cut …]"), "{first_shown}");
    let md = std::fs::read_to_string(logs_dir(&sb).join(format!("session-{SESSION}.md"))).unwrap();
    assert!(!md.contains("truncated"), "{md}");
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
        "critical_context": {"k": hostile, hostile: {hostile: [hostile, {hostile: hostile}]}},
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
    // Nested keys are one line; nested values stay in their items.
    assert!(
        md.contains("- **# Task Fix the login ## Next Steps 1. add test ---:**\n  - **# Task Fix the login ## Next Steps 1. add test ---:**\n    - # Task\n      Fix the login\n      ## Next Steps\n"),
        "{md}"
    );
    for line in md.lines() {
        for opener in ["Fix the", "1. add"] {
            assert!(
                !line.starts_with(opener),
                "{line:?} is at the top level:\n{md}"
            );
        }
    }
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
        md.contains(&format!(
            "… [truncated: {} omitted]",
            ctxmon_domain::human::tokens(n)
        )),
        "{md}"
    );
    // Rendering the stored JSON again gives the stored markdown.
    std::fs::remove_file(logs_dir(&sb).join("session-big.md")).unwrap();
    let again = sb.run(&["resume-log", "show", "big"], "");
    assert_eq!(again.stdout, md.trim_end().to_string() + "\n");
}

/// An agent's document in the resume log's JSON format, with every section, nested critical
/// context and the agent's own figures.
const EXAMPLE_DOCUMENT: &str = include_str!("../../../../fixtures/resume-logs/agent-document.json");

/// Every leaf of a JSON value (an empty list has none).
fn leaves(value: &Value, out: &mut Vec<Value>) {
    match value {
        Value::Array(items) => items.iter().for_each(|v| leaves(v, out)),
        Value::Object(map) => map.values().for_each(|v| leaves(v, out)),
        leaf => out.push(leaf.clone()),
    }
}

#[test]
fn the_example_document_loads_and_every_field_is_shown() {
    // No transcript and no session variable: the document names its session.
    let sb = Sandbox::new();
    sb.write("agent-document.json", EXAMPLE_DOCUMENT);
    let run = sb.run(
        &["resume-log", "generate", "--from", "agent-document.json"],
        "",
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout
            .starts_with("resume log for session 20251101_115000 written to "),
        "{}",
        run.stdout
    );
    let show = sb.run(&["resume-log", "show", "20251101_115000"], "");
    assert_eq!(show.code, 0, "{}", show.stderr);
    let md = show.stdout;
    let example: Value = serde_json::from_str(EXAMPLE_DOCUMENT).unwrap();
    let mut all = Vec::new();
    leaves(&example, &mut all);
    assert!(all.len() > 25);
    for leaf in all {
        // Numbers as the markdown writes them: 200,000 tokens, 85% (whole percent, rounded
        // down, as every fill ctxmon shows).
        let forms = match &leaf {
            Value::String(s) => vec![s.clone()],
            Value::Number(n) if n.is_f64() => {
                vec![format!("({}%)", n.as_f64().unwrap().floor())]
            }
            Value::Number(n) => {
                let digits = n.to_string();
                let grouped: String = digits
                    .chars()
                    .enumerate()
                    .flat_map(|(i, c)| {
                        let comma = i > 0 && (digits.len() - i) % 3 == 0;
                        comma.then_some(',').into_iter().chain([c])
                    })
                    .collect();
                vec![digits, grouped]
            }
            other => vec![other.to_string()],
        };
        assert!(
            forms.iter().any(|f| md.contains(f.as_str())),
            "{leaf} is not in the markdown:\n{md}"
        );
    }
    assert!(
        md.contains("- **file_paths:**\n  - **auth_service:** src/services/auth.py\n"),
        "{md}"
    );
    // The stored JSON keeps the shapes: the nested context, the agent's own figures.
    let log: Value = serde_json::from_str(
        &sb.run(&["--json", "resume-log", "show", "20251101_115000"], "")
            .stdout,
    )
    .unwrap();
    assert_eq!(log["critical_context"], example["critical_context"]);
    assert_eq!(log["agent_metrics"], example["context_metrics"]);
    assert_eq!(
        log["metadata"]["agents_used"],
        example["metadata"]["agents_used"]
    );
    assert_eq!(log["metadata"]["session_duration_minutes"], 154);
    // ctxmon's own metrics: nothing was measured without a transcript.
    assert_eq!(log["context_metrics"]["used_tokens"], 0);
    assert!(md.contains("- Used: not measured\n"), "{md}");
}

/// A transcript of `runs` failing test runs, each editing a file, newest last.
fn busy_transcript(sb: &Sandbox, runs: usize) {
    let path = transcript(sb, SESSION);
    let mut text =
        json!({"type": "user", "message": {"role": "user", "content": "Make the build green"}})
            .to_string()
            + "\n";
    for i in 0..runs {
        let call = json!({"type": "assistant", "message": {"role": "assistant", "content": [
            {"type": "tool_use", "id": format!("c{i}"), "name": "Bash",
             "input": {"command": format!("cargo test -p billing --test case_{i:03} -- --nocapture  # run {i}")}},
            {"type": "tool_use", "id": format!("w{i}"), "name": "Edit",
             "input": {"file_path": format!("/w/src/mod_{i:03}.rs")}}]}});
        let result = json!({"type": "user", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": format!("c{i}"), "is_error": true,
             "content": format!("error[E0308]: mismatched types in case_{i:03}.rs: expected u64, found i64 in the call to `total` (failure number {i})")}]}});
        text.push_str(&format!("{call}\n{result}\n"));
    }
    std::fs::write(&path, text).unwrap();
}

#[test]
fn a_busy_sessions_commands_and_errors_are_all_kept_while_the_log_has_room() {
    let sb = Sandbox::new();
    busy_transcript(&sb, 60);
    let run = sb.run(&["--json", "resume-log", "generate"], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    let out: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(out["omitted_tokens"], 0, "{out}");
    assert!(out["tokens"].as_u64().unwrap() < 5_000, "{out}");
    let md = std::fs::read_to_string(out["markdown_path"].as_str().unwrap()).unwrap();
    for i in 0..60 {
        for entry in [
            format!("- /w/src/mod_{i:03}.rs\n"),
            format!("# run {i}\n"),
            format!("(failure number {i})\n"),
        ] {
            assert!(md.contains(&entry), "{entry} is missing:\n{md}");
        }
    }
}

#[test]
fn a_full_log_keeps_the_newest_commands_and_errors_and_counts_the_older() {
    let sb = Sandbox::new();
    busy_transcript(&sb, 300);
    let run = sb.run(&["--json", "resume-log", "generate"], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    let out: Value = serde_json::from_str(&run.stdout).unwrap();
    // Cut only because the whole document is full.
    assert!(out["omitted_tokens"].as_u64().unwrap() > 0, "{out}");
    assert!(out["tokens"].as_u64().unwrap() > 9_900, "{out}");
    let md = std::fs::read_to_string(out["markdown_path"].as_str().unwrap()).unwrap();
    for newest in [
        "- /w/src/mod_299.rs\n",
        "# run 299\n",
        "(failure number 299)\n",
    ] {
        assert!(md.contains(newest), "{newest} is missing:\n{md}");
    }
    for oldest in ["mod_000.rs", "case_000.rs", "(failure number 0)"] {
        assert!(!md.contains(oldest), "{oldest} is shown:\n{md}");
    }
    let log: Value = serde_json::from_str(
        &sb.run(&["--json", "resume-log", "show", SESSION], "")
            .stdout,
    )
    .unwrap();
    for (key, label) in [
        ("errors", "Errors/Warnings"),
        ("commands_run", "Commands Run"),
    ] {
        let n = log["metadata"]["older_left_out"][key].as_u64().unwrap();
        assert!(
            md.contains(&format!("**{label} ({n} older left out):**")),
            "{label}: {n}\n{md}"
        );
        let kept = log["metadata"][key].as_array().unwrap();
        assert!(kept.len() > 100, "{key}: {}", kept.len());
    }
}

/// Numbers in the agent's `critical_context` are written back as the tokens the agent wrote,
/// in the stored JSON and in `--json` output, and strings stay strings: read as floats, 2^64
/// became `1.8446744073709552e19`, a 24-digit decimal `1.0`, `-0` became `-0.0`, and `1e400`
/// refused the whole document; kept as their text, they came out as JSON strings, no longer
/// told apart from a string the agent wrote.
#[test]
fn critical_context_numbers_are_kept_exactly_as_written() {
    let sb = Sandbox::new();
    let doc = r#"{"mission_summary": "m", "critical_context": {
        "big": 18446744073709551616, "fine": 1.00000000000000000000001, "neg": -0,
        "huge": 1e400, "cents": 1.50, "int": 42, "negint": -9223372036854775808,
        "seven": 7, "text": "7", "numeric_text": "1.50", "list": [0.1, -7, 1E2, "1E2"],
        "deep": {"pi": 3.14159265358979323846264338327950288}}}"#;
    let run = sb.run(
        &["resume-log", "generate", "--session", "nums", "--from", "-"],
        doc,
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let stored = std::fs::read_to_string(logs_dir(&sb).join("session-nums.json")).unwrap();
    let shown = sb.run(&["--json", "resume-log", "show", "nums"], "");
    assert_eq!(shown.code, 0, "{}", shown.stderr);
    let latest = sb.run(&["--json", "resume-log", "latest"], "");
    assert_eq!(latest.code, 0, "{}", latest.stderr);
    for json in [&stored, &shown.stdout, &latest.stdout] {
        let context = raw_entries(raw_entries(json)["critical_context"].get());
        let token = |key: &str| context[key].get();
        for (key, written) in [
            ("big", "18446744073709551616"),
            ("fine", "1.00000000000000000000001"),
            ("neg", "-0"),
            ("huge", "1e400"),
            ("cents", "1.50"),
            ("int", "42"),
            ("negint", "-9223372036854775808"),
            ("seven", "7"),
            ("text", r#""7""#),
            ("numeric_text", r#""1.50""#),
        ] {
            assert_eq!(token(key), written, "{key} in {json}");
        }
        let list: Vec<&RawValue> = serde_json::from_str(token("list")).unwrap();
        let list: Vec<&str> = list.iter().map(|v| v.get()).collect();
        assert_eq!(list, ["0.1", "-7", "1E2", r#""1E2""#], "{json}");
        assert_eq!(
            raw_entries(token("deep"))["pi"].get(),
            "3.14159265358979323846264338327950288"
        );
    }
    let md = sb.run(&["resume-log", "show", "nums"], "").stdout;
    for line in [
        "- **big:** 18446744073709551616\n",
        "- **fine:** 1.00000000000000000000001\n",
        "- **neg:** -0\n",
        "- **huge:** 1e400\n",
        "- **cents:** 1.50\n",
        "- **seven:** 7\n",
        "- **text:** 7\n",
        "  - 1E2\n",
        "  - **pi:** 3.14159265358979323846264338327950288\n",
    ] {
        assert!(md.contains(line), "{line}: {md}");
    }

    // Hand-edited: a number of another form reads as written; one that is no number is the
    // corrupt log it was before, named with its place.
    let path = logs_dir(&sb).join("session-nums.json");
    std::fs::write(&path, stored.replace("1e400", "-1.5E-400")).unwrap();
    let edited = sb.run(&["--json", "resume-log", "show", "nums"], "");
    assert_eq!(edited.code, 0, "{}", edited.stderr);
    assert!(
        edited.stdout.contains(r#""huge":-1.5E-400,"#),
        "{}",
        edited.stdout
    );
    std::fs::write(&path, stored.replace("1e400", "1e")).unwrap();
    let broken = sb.run(&["--json", "resume-log", "show", "nums"], "");
    assert_eq!(broken.code, 1, "{}", broken.stdout);
    assert!(
        broken
            .stderr
            .contains("session-nums.json: corrupt resume-log JSON (invalid number at line"),
        "{}",
        broken.stderr
    );
}

/// A JSON object's members as their raw text (serde_json's reader keeps no number's text).
fn raw_entries(json: &str) -> BTreeMap<String, &RawValue> {
    serde_json::from_str(json).unwrap()
}
