//! The recent-context reading over small transcripts written line by line.

use std::io::Cursor;

use super::*;

fn call(id: &str, name: &str, input: &str) -> String {
    format!(
        r#"{{"type":"assistant","cwd":"/p","message":{{"id":"m-{id}","model":"m","content":[{{"type":"tool_use","id":"{id}","name":"{name}","input":{input}}}],"usage":{{"input_tokens":1,"cache_read_input_tokens":{}}}}}}}"#,
        1000 + id.len() * 100
    )
}

fn result(id: &str, chars: usize) -> String {
    format!(
        r#"{{"type":"user","message":{{"content":[{{"type":"tool_result","tool_use_id":"{id}","content":"{}"}}]}}}}"#,
        "x".repeat(chars)
    )
}

fn read(lines: &[String], max_bytes: u64, keep: usize) -> RecentContext {
    let text = lines.join("\n") + "\n";
    let len = text.len() as u64;
    recent_context(
        Cursor::new(text),
        len,
        max_bytes,
        ScanShape::default(),
        keep,
    )
    .expect("memory")
}

#[test]
fn the_largest_items_name_their_tool_and_target_and_stop_at_the_compaction() {
    let lines = vec![
        call("old", "Read", r#"{"file_path":"/p/old.rs"}"#),
        result("old", 90_000),
        r#"{"type":"system","subtype":"compact_boundary","compactMetadata":{"trigger":"auto","preTokens":150000}}"#.to_string(),
        call("a", "Read", r#"{"file_path":"/p/src/big.rs"}"#),
        result("a", 72_000),
        call("b", "Bash", r#"{"command":"cargo test\n--quiet"}"#),
        // Array content: only its text blocks count.
        r#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"b","content":[{"type":"text","text":"12345678"},{"type":"image","source":{}}]}]}}"#.to_string(),
        format!(
            r#"{{"type":"user","message":{{"content":"{}"}}}}"#,
            "p".repeat(4_000)
        ),
        call("c", "Grep", r#"{"pattern":"fn main"}"#),
        result("c", 400),
    ];
    let ctx = read(&lines, u64::MAX, 3);
    assert!(ctx.complete);
    let shown: Vec<(ItemKind, &str, Option<&str>, u64)> = ctx
        .largest
        .iter()
        .map(|i| (i.kind, i.tool.as_str(), i.target.as_deref(), i.tokens))
        .collect();
    assert_eq!(
        shown,
        vec![
            (ItemKind::FileRead, "Read", Some("src/big.rs"), 18_000),
            (ItemKind::PastedText, "prompt", None, 1_000),
            (ItemKind::ToolOutput, "Grep", Some("fn main"), 100),
        ]
    );
    // One fill per response since the compaction, oldest first.
    assert_eq!(ctx.fills.len(), 3);
    let all = read(&lines, u64::MAX, 10);
    let bash = all.largest.iter().find(|i| i.tool == "Bash").expect("bash");
    assert_eq!(
        (bash.target.as_deref(), bash.tokens),
        (Some("cargo test"), 2)
    );
}

#[test]
fn subagents_meta_lines_and_short_prompts_are_left_out() {
    let lines = vec![
        r#"{"type":"assistant","isSidechain":true,"message":{"content":[{"type":"tool_use","id":"s","name":"Read","input":{"file_path":"/x"}}]}}"#.to_string(),
        r#"{"type":"user","isSidechain":true,"message":{"content":[{"type":"tool_result","tool_use_id":"s","content":"yyyyyyyyyyyy"}]}}"#.to_string(),
        format!(r#"{{"type":"user","isMeta":true,"message":{{"content":"{}"}}}}"#, "m".repeat(9_000)),
        format!(r#"{{"type":"user","isCompactSummary":true,"message":{{"content":"{}"}}}}"#, "s".repeat(9_000)),
        r#"{"type":"user","message":{"content":"fix the bug"}}"#.to_string(),
    ];
    let ctx = read(&lines, u64::MAX, 5);
    assert_eq!(ctx.largest, Vec::new());
    assert!(ctx.complete);
}

#[test]
fn bad_lines_cost_nothing_and_a_cut_reading_says_so() {
    let lines = vec![
        call("a", "Read", r#"{"file_path":"/p/a.rs"}"#),
        result("a", 8_000),
        "{not json".to_string(),
        r#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":7,"content":{"x":1}}, 5, null]}}"#.to_string(),
        r#"{"type":"user","message":{"content":42}}"#.to_string(),
        r#"{"type":"assistant","message":"nope"}"#.to_string(),
        "\u{fffd}\u{0}".to_string(),
        call("b", "Read", r#"{"file_path":5}"#),
        result("b", 4),
    ];
    let ctx = read(&lines, u64::MAX, 5);
    let sizes: Vec<u64> = ctx.largest.iter().map(|i| i.tokens).collect();
    assert_eq!(sizes, vec![2_000, 1]);
    assert_eq!(ctx.largest[1].target, None);
    // A bound that leaves the first call out: the result is still counted, its tool unknown.
    let tail = result("a", 8_000).len() as u64
        + 1
        + lines[2..].iter().map(|l| l.len() as u64 + 1).sum::<u64>();
    let cut = read(&lines, tail, 5);
    assert!(!cut.complete);
    assert_eq!(cut.largest[0].tool, "tool");
    assert_eq!(cut.largest[0].tokens, 2_000);
    // Nothing at all.
    let empty = read(&[], u64::MAX, 5);
    assert!(empty.complete && empty.largest.is_empty() && empty.fills.is_empty());
}

#[test]
fn targets_are_shortened_at_the_end_that_names_them() {
    let long_path = format!("/elsewhere/{}/main.rs", "d".repeat(60));
    let short = shorten(&long_path, true);
    assert_eq!(short.chars().count(), TARGET_CHARS);
    assert!(
        short.starts_with('…') && short.ends_with("/main.rs"),
        "{short}"
    );
    let long_cmd = format!("cargo test {}", "é".repeat(60));
    let short = shorten(&long_cmd, false);
    assert_eq!(short.chars().count(), TARGET_CHARS);
    assert!(short.starts_with("cargo test") && short.ends_with('…'));
    assert_eq!(
        relative("C:\\Users\\tvi\\a.rs", Some("C:\\Users\\tvi")),
        "a.rs"
    );
    assert_eq!(relative("/p2/a.rs", Some("/p")), "/p2/a.rs");
    assert_eq!(relative("/p/", Some("/p")), "/p/");
}

#[test]
fn a_response_written_as_several_lines_is_one_fill() {
    let usage = |tokens: u64| {
        format!(
            r#"{{"type":"assistant","message":{{"id":"same","model":"m","usage":{{"input_tokens":{tokens}}}}}}}"#
        )
    };
    let ctx = read(&[usage(10), usage(10), usage(10)], u64::MAX, 5);
    assert_eq!(ctx.fills, vec![10]);
}

#[test]
fn without_items_the_walk_ends_at_the_responses_the_pace_needs() {
    let usage = |i: usize| {
        format!(
            r#"{{"type":"assistant","message":{{"id":"m{i}","model":"m","usage":{{"input_tokens":{}}}}}}}"#,
            1000 * i
        )
    };
    let mut lines: Vec<String> = vec![
        call("a", "Read", r#"{"file_path":"/p/a.rs"}"#),
        result("a", 8_000),
    ];
    lines.extend((1..=30).map(usage));
    let ctx = read(&lines, u64::MAX, 0);
    assert!(ctx.largest.is_empty());
    assert!(!ctx.complete);
    let expected: Vec<u64> = (20..=30).map(|i| 1000 * i).collect();
    assert_eq!(ctx.fills, expected);
    // With items asked for, the walk goes on to the start; the fills are the newest still.
    let full = read(&lines, u64::MAX, 5);
    assert!(full.complete);
    assert_eq!(full.fills, expected);
    assert_eq!(full.largest.len(), 1);
}
