//! `ctxmon assemble` end to end: the real binary, a cleared environment, a temp project.
//! JSON in (stdin or `--input`), bundle JSON out, exit 0; bad input exits 2 naming where the
//! problem is; a missing file exits 1.

#![allow(clippy::unwrap_used)] // a panic fails the test, as it should

use serde_json::{Value, json};

use crate::common;
use crate::common::Sandbox;

/// A small input (contract C10): three files, memory, a call with its result.
fn input(max_tokens: u64, strategy: &str) -> Value {
    json!({
        "runId": "cli-test",
        "goal": {"raw": "Fix the login bug"},
        "agent": {"id": "coder-1", "role": "coder", "capabilities": ["read_files", "write_files", "search"]},
        "repo": {
            "root": "/workspace/project",
            "files": [
                {"path": "src/index.ts", "size": 24, "content": "export const foo = \"bar\"", "relevanceScore": 0.9},
                {"path": "src/utils.ts", "size": 40, "content": "export function helper() { return true }", "relevanceScore": 0.7},
                {"path": "README.md", "size": 22, "content": "# Project\n\nDescription", "relevanceScore": 0.3}
            ],
            "metadata": {"branch": "main", "commit": "abc123def456"}
        },
        "memory": {"pinned": [{"id": "mem-1", "content": "User prefers TypeScript", "importance": 0.9}]},
        "recentEvents": [
            {"type": "tool_call", "payload": {"toolName": "read_files", "toolCallId": "c1", "args": {"path": "src/index.ts"}}, "timestamp": 1767225300000_i64, "eventId": "e1"},
            {"type": "tool_result", "payload": {"toolName": "read_files", "toolCallId": "c1", "result": "ok"}, "timestamp": 1767225305000_i64, "eventId": "e2"}
        ],
        "constraints": {"maxTokens": max_tokens, "strategy": strategy, "allowSummarization": true, "nowMs": 1767225600000_u64}
    })
}

fn bundle(stdout: &str) -> Value {
    serde_json::from_str(stdout).unwrap_or_else(|e| panic!("stdout is not JSON ({e}): {stdout}"))
}

#[test]
fn stdin_in_bundle_out() {
    let sb = Sandbox::new();
    let run = sb.run(&["assemble"], input(5000, "balanced").to_string());
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stderr, "");
    let b = bundle(&run.stdout);
    assert!(b["tokenEstimate"].as_u64().unwrap() <= 5000);
    assert_eq!(b["debug"]["strategyUsed"], "balanced");
    assert!(b["system"].as_str().unwrap().contains("Fix the login bug"));
    let roles: Vec<_> = b["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert!(roles.ends_with(&["assistant", "tool"]), "{roles:?}");
}

#[test]
fn file_and_stdin_give_the_same_bytes_every_time() {
    let sb = Sandbox::new();
    let text = input(5000, "greedy").to_string();
    let path = sb.write("input.json", &text);
    let from_file = sb.run(&["assemble", "--input", path.to_str().unwrap()], "");
    let from_dash = sb.run(&["assemble", "--input", "-"], &text);
    let again = sb.run(&["assemble"], &text);
    assert_eq!(from_file.code, 0, "{}", from_file.stderr);
    assert_eq!(from_file.stdout, from_dash.stdout);
    assert_eq!(from_file.stdout, again.stdout);
}

#[test]
fn flags_override_the_input() {
    let sb = Sandbox::new();
    let run = sb.run(
        &[
            "assemble",
            "--strategy",
            "conservative",
            "--max-tokens",
            "3000",
        ],
        input(5000, "greedy").to_string(),
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let b = bundle(&run.stdout);
    assert_eq!(b["debug"]["strategyUsed"], "conservative");
    assert_eq!(b["debug"]["tokenBreakdown"]["maxTokens"], 3000);
    // The flag may supply what the input leaves out.
    let mut bare = input(1, "greedy");
    bare["constraints"]
        .as_object_mut()
        .unwrap()
        .remove("maxTokens");
    let run = sb.run(&["assemble", "--max-tokens", "4000"], bare.to_string());
    assert_eq!(run.code, 0, "{}", run.stderr);
}

fn assert_usage_error(run: &common::Run, expected: &str) {
    assert_eq!(
        run.code, 2,
        "stdout: {}\nstderr: {}",
        run.stdout, run.stderr
    );
    assert!(
        run.stderr.contains(expected),
        "{expected:?} not in {}",
        run.stderr
    );
    assert_eq!(run.stdout, "");
}

#[test]
fn an_unknown_strategy_flag_is_a_usage_error() {
    let sb = Sandbox::new();
    let run = sb.run(
        &["assemble", "--strategy", "fast"],
        input(5000, "greedy").to_string(),
    );
    assert_usage_error(
        &run,
        "--strategy \"fast\" is not a strategy; use greedy, balanced or conservative",
    );
}

#[test]
fn a_zero_or_too_small_budget_is_a_usage_error() {
    let sb = Sandbox::new();
    let run = sb.run(
        &["assemble", "--max-tokens", "0"],
        input(5000, "greedy").to_string(),
    );
    assert_usage_error(&run, "stdin: constraints.maxTokens is 0");
    let run = sb.run(&["assemble"], input(50, "greedy").to_string());
    assert_usage_error(&run, "raise maxTokens to at least");
}

#[test]
fn invalid_utf8_is_a_usage_error() {
    let sb = Sandbox::new();
    let mut bytes = input(5000, "greedy").to_string().into_bytes();
    let at = bytes.iter().position(|&b| b == b'F').unwrap();
    bytes[at] = 0xff;
    let path = sb.write("bad.json", &bytes);
    let run = sb.run(&["assemble", "--input", path.to_str().unwrap()], "");
    assert_usage_error(
        &run,
        &format!("not valid UTF-8 (the first bad byte is at offset {at})"),
    );
}

/// A byte-order mark (Windows editors write one) is not part of the document.
#[test]
fn a_byte_order_mark_is_ignored() {
    let sb = Sandbox::new();
    let plain = input(2000, "balanced").to_string();
    let with_bom = format!("\u{feff}{plain}");
    let a = sb.run(&["assemble"], &plain);
    let b = sb.run(&["assemble"], &with_bom);
    assert_eq!(b.code, 0, "{}", b.stderr);
    assert_eq!(a.stdout, b.stdout);
}

#[test]
fn invalid_json_and_empty_input_are_usage_errors() {
    let sb = Sandbox::new();
    assert_usage_error(
        &sb.run(&["assemble"], "{\"runId\": "),
        "stdin: not valid JSON at runId (line 1, column 10): EOF while parsing",
    );
    assert_usage_error(&sb.run(&["assemble"], ""), "stdin: empty input");
    // What Python's json.dumps writes for float('nan'): not JSON, so named by its path.
    let nan = r#"{"runId":"r","repo":{"root":"/r","files":[{"path":"a.rs","size":1,"relevanceScore":NaN}]}}"#;
    assert_usage_error(
        &sb.run(&["assemble"], nan),
        "stdin: not valid JSON at repo.files[0].relevanceScore (line 1, column 84): expected value; NaN and Infinity are not JSON numbers: write a number or null",
    );
    let huge = r#"{"runId":"r","memory":{"pinned":[{"id":"m","content":"c","importance":1e400}]}}"#;
    assert_usage_error(
        &sb.run(&["assemble"], huge),
        "stdin: not valid JSON at memory.pinned[0].importance (line 1, column 75): number out of range",
    );
    assert_usage_error(
        &sb.run(&["assemble"], "[1, 2]"),
        "stdin: top level: invalid type: array, expected an object",
    );
}

#[test]
fn a_bad_value_is_named_by_its_json_path() {
    let sb = Sandbox::new();
    let mut value = input(5000, "greedy");
    value["repo"]["files"]
        .as_array_mut()
        .unwrap()
        .push(json!({"path": "x.ts", "size": 1, "content": "x", "relevanceScore": "high"}));
    assert_usage_error(
        &sb.run(&["assemble"], value.to_string()),
        "stdin: repo.files[3].relevanceScore: invalid type: string \"high\", expected a number",
    );
    let mut value = input(5000, "greedy");
    value["recentEvents"][1]["timestamp"] = json!("yesterday");
    assert_usage_error(
        &sb.run(&["assemble"], value.to_string()),
        "stdin: recentEvents[1].timestamp: invalid type: string \"yesterday\", expected an integer",
    );
    let mut value = input(5000, "greedy");
    value["memory"]["pinned"][0]
        .as_object_mut()
        .unwrap()
        .remove("importance");
    assert_usage_error(
        &sb.run(&["assemble"], value.to_string()),
        "stdin: memory.pinned[0]: missing field `importance`",
    );
    let mut value = input(5000, "greedy");
    value["constraints"]["maxTokenz"] = json!(5);
    assert_usage_error(
        &sb.run(&["assemble"], value.to_string()),
        "stdin: constraints.maxTokenz: unknown field `maxTokenz`",
    );
}

#[test]
fn a_missing_input_file_exits_1() {
    let sb = Sandbox::new();
    let run = sb.run(&["assemble", "--input", "nope.json"], "");
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(run.stderr.contains("reading nope.json"), "{}", run.stderr);
}

#[test]
fn odd_values_are_read_and_noted() {
    let sb = Sandbox::new();
    let mut value = input(5000, "greedy");
    value["repo"]["files"][0]["relevanceScore"] = json!(-0.5);
    value["repo"]["files"][1]["path"] = json!("src/index.ts");
    value["agent"]["role"] = json!("wizard");
    value["agent"]["capabilities"] = json!(["teleport"]);
    value["recentEvents"][1]["timestamp"] = json!(1767229200000_u64);
    let run = sb.run(&["assemble"], value.to_string());
    assert_eq!(run.code, 0, "{}", run.stderr);
    let notes = bundle(&run.stdout)["debug"]["notes"].to_string();
    for expected in [
        "repo.files[0].relevanceScore: -0.5 is outside 0-1",
        "repo.files[1].path: \\\"src/index.ts\\\" repeats repo.files[0]",
        "agent.role: unknown role \\\"wizard\\\"",
        "agent.capabilities[0]: unknown capability \\\"teleport\\\"",
        "recentEvents[1].timestamp: 1767229200000 is after nowMs",
    ] {
        assert!(notes.contains(expected), "{expected} not in {notes}");
    }
}

#[test]
fn a_fifty_megabyte_file_is_shortened_within_budget() {
    let sb = Sandbox::new();
    let mut value = input(20_000, "greedy");
    value["repo"]["files"][0]["content"] = json!("x = 1\n".repeat(50 * 1024 * 1024 / 6));
    let run = sb.run(&["assemble"], value.to_string());
    assert_eq!(run.code, 0, "{}", run.stderr);
    let b = bundle(&run.stdout);
    assert!(b["tokenEstimate"].as_u64().unwrap() <= 20_000);
    assert!(run.stdout.contains("[truncated: showing the first"));
}

#[test]
fn a_hundred_thousand_files_fit_the_budget() {
    let sb = Sandbox::new();
    let mut value = input(30_000, "balanced");
    value["repo"]["files"] = (0..100_000)
        .map(|i| json!({"path": format!("src/m{i}.rs"), "size": 20, "content": format!("fn f{i}() {{}}\n"), "relevanceScore": (i % 100) as f64 / 100.0}))
        .collect();
    let path = sb.write("big.json", value.to_string());
    let run = sb.run(&["assemble", "--input", path.to_str().unwrap()], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    let b = bundle(&run.stdout);
    assert!(b["tokenEstimate"].as_u64().unwrap() <= 30_000);
    assert_eq!(b["debug"]["excludedFiles"].as_array().unwrap().len(), 100);
}

/// The README's example input stays valid and shows every source the engine packs.
#[test]
fn the_readme_example_packs_every_source_within_budget() {
    let sb = Sandbox::new();
    let path = common::repo_fixture("assembly/login-bug.json");
    let run = sb.run(&["assemble", "--input", path.to_str().unwrap()], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    let b = bundle(&run.stdout);
    let breakdown = &b["debug"]["tokenBreakdown"];
    assert!(b["tokenEstimate"].as_u64().unwrap() <= 1500);
    assert_eq!(breakdown["total"], b["tokenEstimate"]);
    for source in [
        "files",
        "diffs",
        "symbols",
        "events",
        "memory_pinned",
        "memory_recent",
        "memory_summaries",
    ] {
        assert!(
            breakdown["bySource"][source].as_u64().unwrap_or(0) > 0,
            "{source} missing from {breakdown}"
        );
    }
    assert!(
        b["debug"].get("notes").is_none(),
        "the example should need no notes: {}",
        b["debug"]["notes"]
    );
}

/// Human text counts right: one tool is "1 tool definition", and a
/// shortened file says how much it shows with thousands separators.
#[test]
fn messages_count_their_nouns_right() {
    let sb = Sandbox::new();
    let one_tool = json!({
        "runId": "r", "goal": {"raw": "g"},
        "agent": {"id": "a", "role": "coder", "capabilities": ["search"]},
        "repo": {"root": "/w", "files": []},
        "constraints": {"maxTokens": 10},
    });
    let run = sb.run(&["assemble"], one_tool.to_string());
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains(" tokens) and the 1 tool definition ("),
        "{}",
        run.stderr
    );
    let mut big = input(2_000, "greedy");
    big["repo"]["files"] = json!([{"path": "big.rs", "size": 40_000,
        "content": "fn f() {}\n".repeat(4_000), "relevanceScore": 1.0}]);
    let run = sb.run(&["assemble"], big.to_string());
    assert_eq!(run.code, 0, "{}", run.stderr);
    let b = bundle(&run.stdout);
    let shown = b["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|m| m["content"].as_str())
        .find(|c| c.contains("--- File: big.rs"))
        .unwrap();
    assert!(shown.contains(" of 40,000 characters]"), "{shown}");
}
