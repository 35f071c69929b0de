//! What fills the context, as `status` and `report` name it: the largest tool outputs, file
//! reads and pasted messages since the last compaction, for people and for `--json`.

// Test support: a panic is how a broken precondition fails the test.
#![allow(clippy::unwrap_used)]

use serde_json::{Value, json};

use crate::common::Sandbox;

fn call(id: &str, name: &str, input: Value, tokens: u64) -> String {
    json!({
        "type": "assistant", "cwd": "/work/app", "uuid": format!("a-{id}"),
        "message": {
            "id": format!("m-{id}"), "model": "claude-sonnet-4-5",
            "content": [{"type": "tool_use", "id": id, "name": name, "input": input}],
            "usage": {"input_tokens": 3, "cache_read_input_tokens": tokens},
        },
    })
    .to_string()
}

fn result(id: &str, chars: usize) -> String {
    json!({
        "type": "user", "uuid": format!("r-{id}"),
        "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": id, "content": "x".repeat(chars)}
        ]},
    })
    .to_string()
}

/// A session with a compaction: a huge read before it (gone from the context), then a read,
/// a test run, a pasted log and a damaged line after it.
fn session() -> String {
    let lines = [
        call(
            "old",
            "Read",
            json!({"file_path": "/work/app/old.rs"}),
            90_000,
        ),
        result("old", 400_000),
        json!({"type": "system", "subtype": "compact_boundary",
               "compactMetadata": {"trigger": "auto", "preTokens": 150_000, "postTokens": 12_000}})
        .to_string(),
        call(
            "r",
            "Read",
            json!({"file_path": "/work/app/src/big.rs"}),
            30_000,
        ),
        result("r", 72_000),
        call(
            "b",
            "Bash",
            json!({"command": "cargo test --workspace\nsecond line"}),
            48_000,
        ),
        result("b", 36_000),
        "{\"type\":\"user\",\"message\":{\"content\":[{\"type\":\"tool_res".to_string(),
        json!({"type": "user", "message": {"role": "user", "content": "L".repeat(8_000)}})
            .to_string(),
        call("g", "Grep", json!({"pattern": "fn main"}), 60_000),
        result("g", 4_000),
    ];
    lines.join("\n") + "\n"
}

#[test]
fn status_and_report_name_what_fills_the_context_since_the_compaction() {
    let sb = Sandbox::new();
    let path = sb.dir().join("s.jsonl");
    std::fs::write(&path, session()).unwrap();
    let path = path.to_str().unwrap();
    let run = sb.run(&["status", "--transcript", path], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    let expected = "    largest in context:\n\
                    \x20     18,000 tokens  Read src/big.rs (file read)\n\
                    \x20      9,000 tokens  Bash cargo test --workspace (tool output)\n\
                    \x20      2,000 tokens  a long message (pasted text)\n\
                    \x20      1,000 tokens  Grep fn main (tool output)\n";
    assert!(run.stdout.contains(expected), "{}", run.stdout);
    assert!(!run.stdout.contains("old.rs"), "{}", run.stdout);

    let json: Value = serde_json::from_str(
        &sb.run(&["--json", "status", "--transcript", path], "")
            .stdout,
    )
    .unwrap();
    assert_eq!(json["largest_complete"], true, "{json}");
    assert_eq!(
        json["largest"][0],
        json!({"kind": "file_read", "tool": "Read", "target": "src/big.rs", "tokens": 18_000})
    );
    assert_eq!(json["largest"][2]["kind"], "pasted_text");
    assert_eq!(json["largest"][2]["target"], Value::Null);
    assert_eq!(json["largest"].as_array().map(Vec::len), Some(4));

    let report = sb.run(&["report", "--transcript", path], "");
    assert_eq!(report.code, 0, "{}", report.stderr);
    assert!(report.stdout.contains(expected), "{}", report.stdout);
    let json: Value = serde_json::from_str(
        &sb.run(&["--json", "report", "--transcript", path], "")
            .stdout,
    )
    .unwrap();
    assert_eq!(
        json["largest"][1]["target"], "cargo test --workspace",
        "{json}"
    );
}

#[test]
fn a_session_without_tool_output_lists_nothing_and_bad_lines_cost_nothing() {
    let sb = Sandbox::new();
    let path = sb.dir().join("plain.jsonl");
    let text = [
        "not json at all",
        "{\"type\":\"user\",\"message\":{\"content\":[1,null,{\"type\":\"tool_result\",\"tool_use_id\":[]}]}}",
        "{\"type\":\"assistant\",\"message\":{\"id\":\"m1\",\"model\":\"claude-sonnet-4-5\",\"content\":7,\"usage\":{\"input_tokens\":5000}}}",
    ]
    .join("\n")
        + "\n";
    std::fs::write(&path, text).unwrap();
    let path = path.to_str().unwrap();
    let run = sb.run(&["status", "--transcript", path], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(!run.stdout.contains("largest"), "{}", run.stdout);
    let json: Value = serde_json::from_str(
        &sb.run(&["--json", "status", "--transcript", path], "")
            .stdout,
    )
    .unwrap();
    assert_eq!(json["largest"], json!([]), "{json}");
    assert_eq!(json["input_tokens"], 5000);
}

fn responses(fills: &[u64]) -> String {
    fills
        .iter()
        .enumerate()
        .map(|(i, t)| {
            json!({"type": "assistant", "version": "2.1.42", "message": {
                "id": format!("m{i}"), "model": "claude-sonnet-4-5",
                "usage": {"input_tokens": t}}})
            .to_string()
                + "\n"
        })
        .collect()
}

#[test]
fn status_and_the_status_line_give_the_turns_left_at_the_recent_pace() {
    let sb = Sandbox::new();
    let path = sb.dir().join("pace.jsonl");
    // Twelve responses, the last ten 2,000 tokens apart, ending at 100,000.
    let fills: Vec<u64> = (0..12).map(|i| 78_000 + i * 2_000).collect();
    std::fs::write(&path, responses(&fills)).unwrap();
    let path = path.to_str().unwrap();
    let json: Value = serde_json::from_str(
        &sb.run(&["--json", "status", "--transcript", path], "")
            .stdout,
    )
    .unwrap();
    let until = json["tokens_until_auto_compact"].as_u64().unwrap();
    assert_eq!(json["turns_left"], until / 2_000, "{json}");
    assert_eq!(
        json["pace"],
        json!({"tokens_per_turn": 2_000, "turns_seen": 10})
    );
    let run = sb.run(&["status", "--transcript", path], "");
    let line = format!(
        "    about {} turns left at the recent pace (2,000 tokens a turn, over the last 10)\n",
        until / 2_000
    );
    assert!(run.stdout.contains(&line), "{}", run.stdout);
    let input = json!({"transcript_path": path}).to_string();
    let status = sb.run(
        &[
            "--json",
            "statusline",
            "--format",
            "{percent} · {turns-left}",
        ],
        &input,
    );
    assert_eq!(status.code, 0, "{}", status.stderr);
    let answer: Value = serde_json::from_str(&status.stdout).unwrap();
    assert_eq!(answer["line"], format!("50% · ~{} turns", until / 2_000));
}

#[test]
fn too_few_turns_or_a_shrinking_context_give_no_estimate() {
    let sb = Sandbox::new();
    for (name, fills) in [
        ("few.jsonl", vec![50_000, 52_000, 54_000, 56_000]),
        (
            "shrinking.jsonl",
            vec![60_000, 58_000, 56_000, 54_000, 52_000, 50_000],
        ),
    ] {
        let path = sb.dir().join(name);
        std::fs::write(&path, responses(&fills)).unwrap();
        let path = path.to_str().unwrap();
        let json: Value = serde_json::from_str(
            &sb.run(&["--json", "status", "--transcript", path], "")
                .stdout,
        )
        .unwrap();
        assert_eq!(json["turns_left"], Value::Null, "{name}: {json}");
        assert_eq!(json["pace"], Value::Null, "{name}: {json}");
        let run = sb.run(&["status", "--transcript", path], "");
        assert!(!run.stdout.contains("turns left"), "{}", run.stdout);
        // The field and the text before it go; the line stays.
        let input = json!({"transcript_path": path}).to_string();
        let status = sb.run(
            &[
                "--json",
                "statusline",
                "--format",
                "{percent} · {turns-left}",
            ],
            &input,
        );
        assert_eq!(status.code, 0, "{}", status.stderr);
        let answer: Value = serde_json::from_str(&status.stdout).unwrap();
        let percent = json["percent"].as_u64().unwrap();
        assert_eq!(answer["line"], format!("{percent}%"), "{name}");
    }
}
