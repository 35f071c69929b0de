//! `ctxmon report` end to end: the SVG of every real transcript is well-formed XML with exactly
//! one point per response (counted independently here), the text and JSON outputs, and bad input.

// Test support: a panic is how a broken precondition fails the test.
#![allow(clippy::unwrap_used)]

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use crate::common;
use crate::common::{Sandbox, repo_fixture, shared_fixtures, transcript_with};

/// Distinct message ids of qualifying assistant lines (contract C2) on one chain, with serde_json
/// alone: the count the chart must match, computed without ctxmon's reader.
fn responses(path: &Path, sidechain: bool) -> usize {
    let text = std::fs::read_to_string(path).unwrap();
    let mut ids = HashSet::new();
    for line in text.lines() {
        let Ok(v) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        let usage = &v["message"]["usage"];
        let sum: u64 = [
            "input_tokens",
            "cache_creation_input_tokens",
            "cache_read_input_tokens",
        ]
        .iter()
        .filter_map(|k| usage[k].as_u64())
        .sum();
        if v["type"] == "assistant"
            && v["isSidechain"].as_bool().unwrap_or(false) == sidechain
            && v["isApiErrorMessage"] != true
            && v["message"]["model"] != "<synthetic>"
            && sum > 0
        {
            ids.insert(v["message"]["id"].as_str().unwrap().to_string());
        }
    }
    ids.len()
}

fn jsonl_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap().flatten() {
            let p = entry.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|e| e == "jsonl") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// Renders `transcript` to an SVG in the sandbox and returns the document's text.
fn svg_of(sb: &Sandbox, transcript: &Path) -> (common::Run, String) {
    let svg = sb.path("chart.svg");
    let _ = std::fs::remove_file(&svg);
    let run = sb.run(
        &[
            "report",
            "--transcript",
            transcript.to_str().unwrap(),
            "--svg",
            svg.to_str().unwrap(),
        ],
        "",
    );
    let text = std::fs::read_to_string(&svg).unwrap_or_default();
    (run, text)
}

fn circles(svg: &str) -> usize {
    let doc = roxmltree::Document::parse(svg).unwrap_or_else(|e| panic!("not XML ({e})"));
    assert_eq!(doc.root_element().tag_name().name(), "svg");
    doc.descendants()
        .filter(|n| n.has_tag_name("circle"))
        .count()
}

#[test]
fn the_svg_of_every_real_transcript_has_one_point_per_response() {
    let Some(dir) = shared_fixtures() else { return };
    let sb = Sandbox::new();
    let mut charted = 0;
    for path in jsonl_files(&dir) {
        let name = path.display().to_string();
        let main = responses(&path, false);
        let expected = if main > 0 {
            main
        } else {
            responses(&path, true)
        };
        let (run, svg) = svg_of(&sb, &path);
        if expected == 0 {
            assert_eq!(run.code, 1, "{name}: nothing to chart");
            assert!(
                run.stderr.contains("no API response with usage"),
                "{name}: {}",
                run.stderr
            );
            continue;
        }
        assert_eq!(run.code, 0, "{name}: {}", run.stderr);
        assert_eq!(circles(&svg), expected, "{name}");
        assert!(
            run.stdout.contains(&format!("{expected} responses")) || expected == 1,
            "{name}: {}",
            run.stdout
        );
        charted += 1;
    }
    assert!(charted >= 9, "only {charted} fixtures charted");
}

#[test]
fn the_streaming_fixture_counts_responses_not_lines() {
    let Some(dir) = shared_fixtures() else { return };
    let path = dir.join("cc-1.0.51-streaming-duplicates.jsonl");
    let (run, svg) = svg_of(&Sandbox::new(), &path);
    assert_eq!(run.code, 0, "{}", run.stderr);
    // 177 assistant lines with usage, 105 API responses.
    assert_eq!(circles(&svg), 105);
    assert!(
        svg.contains("claude-sonnet-4-20250514"),
        "model in the title"
    );
    assert!(run.stdout.contains("max 104,468 (52%"), "{}", run.stdout);
}

#[test]
fn compactions_and_crossings_in_text_json_and_svg() {
    let sb = Sandbox::new();
    let path = repo_fixture("transcripts/session-compactions.jsonl");
    let (run, svg) = svg_of(&sb, &path);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let out = &run.stdout;
    assert!(
        out.contains("46 responses · one column per response"),
        "{out}"
    );
    assert!(out.contains("compactions (2)"), "{out}");
    assert!(
        out.contains(
            "2026-11-20 13:28:18 +00:00  after response 27  auto  165,972 → 31,870 tokens"
        ),
        "{out}"
    );
    assert!(
        // 82.505%, rounded down like every fill ctxmon shows.
        out.contains("response 27  WARNING → CRITICAL  165,010 tokens (82%)"),
        "{out}"
    );
    let spark = out.lines().nth(1).unwrap().trim();
    assert_eq!(spark.chars().count(), 46, "{spark}");
    assert!(spark.chars().all(|c| ('▁'..='█').contains(&c)), "{spark}");
    // Under the first response after each compaction (responses 28 and 41), a mark.
    let marks = out.lines().nth(2).unwrap();
    assert_eq!(
        marks,
        format!("  {}^{}^ compactions", " ".repeat(27), " ".repeat(12))
    );

    let doc = roxmltree::Document::parse(&svg).unwrap();
    let class = |c: &str| {
        doc.descendants()
            .filter(|n| n.attribute("class") == Some(c))
            .count()
    };
    assert_eq!(class("compaction"), 2);
    assert_eq!(class("point crossing"), 6);
    assert_eq!(circles(&svg), 46);

    let json = sb.run(
        &["--json", "report", "--transcript", path.to_str().unwrap()],
        "",
    );
    assert_eq!(json.code, 0, "{}", json.stderr);
    let v: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(v["responses"], 46);
    let points = v["points"].as_array().unwrap();
    assert_eq!(points.len(), 46);
    let p = &points[26];
    assert_eq!(
        (
            p["response"].as_u64(),
            p["tokens"].as_u64(),
            p["tier"].as_str()
        ),
        (Some(27), Some(165_010), Some("critical"))
    );
    assert_eq!(p["message_id"], "msg_main_027");
    assert!(p["timestamp"].is_string() && p["fill"].is_f64());
    assert_eq!(v["compactions"][1]["after_response"], 40);
    assert_eq!(v["compactions"][1]["trigger"], "manual");
    assert_eq!(v["compactions"][1]["post_tokens"], 24_410);
    assert_eq!(v["crossings"].as_array().unwrap().len(), 6);
    assert_eq!(v["crossings"][3]["from"], "critical");
    assert_eq!(v["crossings"][3]["to"], "nominal");
    assert_eq!(v["scope"], "main");
    assert_eq!(v["window"], 200_000);
    assert_eq!(v["max"]["tokens"], 165_010);
}

/// 80 responses in 78 columns used to be "the fullest of ~2 responses" although most columns
/// hold one: the line now says what the sparkline does.
#[test]
fn the_sparkline_says_how_many_responses_a_column_holds() {
    let mut sb = Sandbox::new();
    sb.set_env("COLUMNS", "80");
    sb.set_env("NO_COLOR", "1");
    for (n, share) in [
        (
            80,
            "80 responses · each column the fullest of 1 or 2 responses",
        ),
        (
            156,
            "156 responses · each column the fullest of 2 responses",
        ),
        (78, "78 responses · one column per response"),
    ] {
        let tokens: Vec<u64> = (0..n).map(|i| 2_000 + i * 100).collect();
        let path = sb.write("t.jsonl", common::transcript_with(&tokens));
        let run = sb.run(&["report", "--transcript", path.to_str().unwrap()], "");
        assert_eq!(run.code, 0, "{}", run.stderr);
        let lines: Vec<&str> = run.stdout.lines().collect();
        assert_eq!(lines[1].trim().chars().count(), 78, "{}", run.stdout);
        assert!(lines[2].contains(share), "{}", run.stdout);
    }
}

#[test]
fn window_flags_and_config_drive_tiers() {
    let sb = Sandbox::new();
    let t = sb.write("t.jsonl", transcript_with(&[50_000, 60_000]));
    let run = sb.run(
        &[
            "--json",
            "report",
            "--transcript",
            t.to_str().unwrap(),
            "--window",
            "100000",
        ],
        "",
    );
    let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(v["points"][1]["tier"], "low");
    assert_eq!(v["window"], 100_000);
    sb.write(
        ".ctxmon/config.toml",
        "[context_monitor]\nlow_threshold = 0.2\nwarning_threshold = 0.28\n",
    );
    let run = sb.run(
        &["--json", "report", "--transcript", t.to_str().unwrap()],
        "",
    );
    let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(v["points"][1]["tier"], "warning", "{}", run.stdout);
    let bad = sb.run(
        &[
            "report",
            "--transcript",
            t.to_str().unwrap(),
            "--window",
            "0",
        ],
        "",
    );
    assert_eq!(bad.code, 2, "{}", bad.stderr);
}

#[test]
fn without_a_path_the_projects_newest_transcript_is_charted() {
    let sb = Sandbox::new();
    let canonical = std::fs::canonicalize(sb.dir()).unwrap();
    let slug: String = canonical
        .to_string_lossy()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    let folder = sb.home.path().join(".claude/projects").join(slug);
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(
        folder.join("s.jsonl"),
        transcript_with(&[20_000, 30_000, 40_000]),
    )
    .unwrap();
    let run = sb.run(&["report"], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.starts_with("s.jsonl · "), "{}", run.stdout);
    assert!(run.stdout.contains("3 responses"), "{}", run.stdout);
}

#[test]
fn bad_input_is_one_clear_line_and_exit_1() {
    let sb = Sandbox::new();
    let empty = sb.write("empty.jsonl", "");
    let garbage = sb.write("garbage.jsonl", b"\x00\x9f\xff binary\nnot json at all\n");
    let no_usage = sb.write(
        "no-usage.jsonl",
        "{\"type\":\"user\",\"message\":{\"content\":\"hi\"}}\n{\"type\":\"summary\"}\n",
    );
    let missing = sb.path("missing.jsonl");
    let folder = sb.path("folder.jsonl");
    std::fs::create_dir_all(&folder).unwrap();
    for (path, expected) in [
        (&missing, "not found"),
        (&empty, "is empty"),
        (&garbage, "not a Claude Code transcript"),
        (&no_usage, "no API response with usage"),
        (&folder, "not a regular file"),
    ] {
        let run = sb.run(&["report", "--transcript", path.to_str().unwrap()], "");
        assert_eq!(run.code, 1, "{expected}: {}", run.stderr);
        assert!(run.stdout.is_empty(), "{expected}: {}", run.stdout);
        assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
        assert!(run.stderr.contains(expected), "{expected}: {}", run.stderr);
    }
    let t = sb.write("t.jsonl", transcript_with(&[20_000]));
    let nowhere = sb.path("no/such/folder/chart.svg");
    let run = sb.run(
        &[
            "report",
            "--transcript",
            t.to_str().unwrap(),
            "--svg",
            nowhere.to_str().unwrap(),
        ],
        "",
    );
    assert_eq!(run.code, 1);
    assert!(
        run.stderr.contains("cannot write the SVG chart"),
        "{}",
        run.stderr
    );
}

#[test]
fn a_reader_that_stops_reading_gets_no_panic() {
    // `ctxmon --json report | head -c 100`: before, println! panicked on the closed pipe.
    let sb = Sandbox::new();
    let tokens: Vec<u64> = (1..=3_000).map(|i| 10_000 + i * 10).collect();
    let t = sb.write("t.jsonl", transcript_with(&tokens));
    let mut child = sb
        .command(&["--json", "report", "--transcript", t.to_str().unwrap()])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Far more than a pipe holds is printed, so the write that finds the pipe closed is certain.
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(out.status.code(), Some(0), "{stderr}");
}
