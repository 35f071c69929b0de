//! `ctxmon report` agrees with `status` and with itself, against the real binary:
//! the last figure follows a compaction after the last response, the sparkline marks every
//! compaction also when it folds responses into columns, the text and the JSON number responses
//! alike, and the width comes from the terminal when `COLUMNS` does not say.

// Test support: a panic is how a broken precondition fails the test.
#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::common;
use crate::common::{Sandbox, repo_fixture, transcript_with};

fn parse(stdout: &str) -> Value {
    serde_json::from_str(stdout).unwrap_or_else(|e| panic!("{e}: {stdout}"))
}

fn boundary(post_tokens: Option<u64>) -> String {
    let mut meta = json!({"trigger": "auto", "preTokens": 178_000});
    if let Some(post) = post_tokens {
        meta["postTokens"] = post.into();
    }
    json!({
        "type": "system", "subtype": "compact_boundary", "isSidechain": false,
        "uuid": "cb-end", "timestamp": "2026-11-20T12:00:00.000Z", "compactMetadata": meta,
    })
    .to_string()
        + "\n"
}

fn report_json(sb: &Sandbox, t: &Path) -> Value {
    let run = sb.run(
        &["--json", "report", "--transcript", t.to_str().unwrap()],
        "",
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    parse(&run.stdout)
}

fn status_json(sb: &Sandbox, t: &Path) -> Value {
    let run = sb.run(
        &["--json", "status", "--transcript", t.to_str().unwrap()],
        "",
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    parse(&run.stdout)
}

/// The issue's case: the session ends at 178,000 (EMERGENCY), then compacts. `report` said
/// "last 178,000 (89%, EMERGENCY)" while `status` said what the compaction left.
#[test]
fn the_last_figure_is_what_status_says() {
    let sb = Sandbox::new();
    let session = transcript_with(&[100_000, 178_000]);
    let before = sb.write("before.jsonl", &session);
    let text = sb.run(&["report", "--transcript", before.to_str().unwrap()], "");
    assert!(
        text.stdout.contains("last 178,000 (89%, EMERGENCY)\n"),
        "{}",
        text.stdout
    );
    for (name, post, tokens, percent, note) in [
        // 30% of the 178,000 before it, less than 30% of the window.
        ("baseline", None, 53_400, 26, "assuming 30% of the"),
        ("post-tokens", Some(31_000), 31_000, 15, "recorded"),
        // A recorded 0 is no size: the estimate, never "0 tokens".
        ("post-tokens-0", Some(0), 53_400, 26, "assuming 30% of the"),
    ] {
        let t = sb.write(
            &format!("{name}.jsonl"),
            format!("{session}{}", boundary(post)),
        );
        let status = status_json(&sb, &t);
        let report = report_json(&sb, &t);
        let last = &report["last"];
        assert_eq!(
            (
                &last["tokens"],
                &last["percent"],
                &last["tier"],
                &last["source"]
            ),
            (
                &status["input_tokens"],
                &status["percent"],
                &status["threshold_tier"],
                &status["source"]
            ),
            "{name}: {last} / {status}"
        );
        assert_eq!(
            (&last["tokens"], &last["source"], &last["after_response"]),
            (&tokens.into(), &"compaction".into(), &2.into()),
            "{name}"
        );
        assert!(last["note"].as_str().unwrap().contains(note), "{last}");
        // The chart still ends at the response; `max` is still the peak.
        assert_eq!(report["max"]["tokens"], 178_000);
        let text = sb.run(&["report", "--transcript", t.to_str().unwrap()], "");
        let expected = format!(
            "last {} ({percent}%, NOMINAL, after the compaction)\n  note: compacted;",
            thousands(tokens)
        );
        assert!(text.stdout.contains(&expected), "{name}: {}", text.stdout);
        // The compaction's own line gives the recorded size only when there is one.
        let sizes = match post {
            Some(p) if p > 0 => format!("178,000 → {} tokens\n", thousands(p)),
            _ => "178,000 tokens before\n".to_string(),
        };
        assert!(text.stdout.contains(&sizes), "{name}: {}", text.stdout);
        assert_eq!(
            report["compactions"][0]["post_tokens"],
            post.filter(|p| *p > 0).map_or(Value::Null, Value::from),
            "{name}"
        );
        let shown = sb.run(&["status", "--transcript", t.to_str().unwrap()], "");
        assert!(
            shown.stdout.starts_with(&format!("ctx {percent}% ")),
            "{}",
            shown.stdout
        );
    }
}

/// Codex rollouts keep working: the shared compacted rollout, cut right after its compaction,
/// ends where `status` says (the post-compaction baseline).
#[test]
fn a_codex_rollout_ending_in_a_compaction_agrees_with_status() {
    let Some(dir) = common::codex_fixtures() else {
        return;
    };
    let sb = Sandbox::new();
    let rollout =
        dir.join("rollout-2026-02-23T12-54-34-019c8a59-e9dd-71f0-9ae3-4079fe9726a9.jsonl");
    let text = std::fs::read_to_string(rollout).unwrap();
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let compacted = lines
        .iter()
        .position(|l| l.contains(r#""type":"compacted""#))
        .unwrap();
    let cut = sb.write("cut.jsonl", lines[..compacted + 4].concat());
    let status = status_json(&sb, &cut);
    let report = report_json(&sb, &cut);
    assert_eq!(status["source"], "compaction");
    assert_eq!(
        (&report["last"]["tokens"], &report["last"]["tier"]),
        (&status["input_tokens"], &status["threshold_tier"]),
        "{} / {status}",
        report["last"]
    );
    // 30% of the size before the compaction, less than 30% of Codex's window.
    assert_eq!(report["last"]["tokens"], 63_640);
    assert_eq!(report["responses"], 184);
    assert_eq!(report["compactions"][0]["after_response"], 184);
    // The whole rollout: measured again after the compaction, as status says.
    let whole = dir.join("rollout-2026-02-23T12-54-34-019c8a59-e9dd-71f0-9ae3-4079fe9726a9.jsonl");
    let report = report_json(&sb, &whole);
    assert_eq!(
        (&report["last"]["tokens"], &report["last"]["source"]),
        (
            &status_json(&sb, &whole)["input_tokens"],
            &"transcript".into()
        )
    );
}

/// 100 responses in 10 columns: the compaction after response 37 falls in a column whose
/// fullest response (the climb back to 95% two responses later) would hide the drop. The line
/// under the sparkline marks that column.
#[test]
fn a_folded_column_never_hides_a_compaction() {
    let mut sb = Sandbox::new();
    sb.set_env("COLUMNS", "12");
    let mut tokens: Vec<u64> = vec![20_000; 100];
    tokens[35] = 180_000;
    tokens[36] = 184_000;
    tokens[37] = 10_000;
    tokens[39] = 190_000;
    let lines: Vec<String> = transcript_with(&tokens)
        .lines()
        .map(str::to_string)
        .collect();
    let mut text = String::new();
    for (i, line) in lines.iter().enumerate() {
        if i == 37 {
            text.push_str(&boundary(Some(9_000)));
        }
        text.push_str(line);
        text.push('\n');
    }
    let t = sb.write("t.jsonl", &text);
    let run = sb.run(&["report", "--transcript", t.to_str().unwrap()], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    let out: Vec<&str> = run.stdout.lines().collect();
    let spark: Vec<char> = out[1].trim().chars().collect();
    assert_eq!(spark.len(), 10, "{}", run.stdout);
    // Column 3 holds responses 31 to 40: its block is the 95% peak, no drop to see.
    assert_eq!(spark[3], '█', "{}", run.stdout);
    assert_eq!(out[2], "     ^", "{}", run.stdout);
    assert!(out[3].contains("each column the fullest of 10 responses"));
    assert!(
        run.stdout.contains("after response 37  auto"),
        "{}",
        run.stdout
    );
    let v = report_json(&sb, &t);
    assert_eq!(v["compactions"][0]["after_response"], 37);
}

/// What the text calls "response N" is `"response": N` in the JSON, for the peak, every tier
/// crossing and every compaction ("after response K" is `after_response: K`).
#[test]
fn text_and_json_number_responses_alike() {
    let sb = Sandbox::new();
    let path = repo_fixture("transcripts/session-compactions.jsonl");
    let text = sb
        .run(&["report", "--transcript", path.to_str().unwrap()], "")
        .stdout;
    let v = report_json(&sb, &path);
    let max = &v["max"];
    assert!(
        text.contains(&format!(
            "max {} (82%, response {})",
            thousands(max["tokens"].as_u64().unwrap()),
            max["response"]
        )),
        "{text}"
    );
    assert_eq!(max["response"], 27);
    // (The text shows times in local time, the JSON in UTC: matched by what follows them.)
    let upper = |v: &Value| v.as_str().unwrap().to_uppercase();
    for c in v["crossings"].as_array().unwrap() {
        let line = format!(
            "  response {}  {} → {}  ",
            c["response"],
            upper(&c["from"]),
            upper(&c["to"])
        );
        assert!(text.contains(&line), "{line}\n{text}");
    }
    for c in v["compactions"].as_array().unwrap() {
        let line = format!(
            "  after response {}  {}  ",
            c["after_response"],
            c["trigger"].as_str().unwrap()
        );
        assert!(text.contains(&line), "{line}\n{text}");
    }
    let points = v["points"].as_array().unwrap();
    let numbers: Vec<u64> = points
        .iter()
        .map(|p| p["response"].as_u64().unwrap())
        .collect();
    assert_eq!(numbers, (1..=46).collect::<Vec<u64>>());
    assert!(points.iter().all(|p| p.get("index").is_none()));
    assert_eq!(v["last"]["response"], 46);
    assert_eq!(v["last"]["source"], "transcript");
}

fn long_session(sb: &Sandbox) -> PathBuf {
    let tokens: Vec<u64> = (0..300).map(|i| 2_000 + i * 500).collect();
    sb.write("long.jsonl", transcript_with(&tokens))
}

fn sparkline_width(stdout: &str) -> usize {
    stdout.lines().nth(1).unwrap().trim().chars().count()
}

/// Without `COLUMNS`, the sparkline fits the terminal: stdout's, else stderr's (`| less`);
/// `COLUMNS` still wins; with neither, 80 columns.
#[test]
fn the_width_comes_from_the_terminal() {
    let mut sb = Sandbox::new();
    // A terminal gets tier colours otherwise: count blocks, not escape codes.
    sb.set_env("NO_COLOR", "1");
    let t = long_session(&sb);
    let args = ["report", "--transcript", t.to_str().unwrap()];
    let Some(on_terminal) = sb.run_on_terminal(&args, 50, true) else {
        return;
    };
    assert_eq!(on_terminal.code, 0, "{}", on_terminal.stderr);
    assert_eq!(
        sparkline_width(&on_terminal.stdout),
        48,
        "{}",
        on_terminal.stdout
    );
    let piped = sb.run_on_terminal(&args, 64, false).unwrap();
    assert_eq!(piped.code, 0, "{}", piped.stderr);
    assert_eq!(sparkline_width(&piped.stdout), 62, "{}", piped.stdout);
    assert_eq!(sparkline_width(&sb.run(&args, "").stdout), 78);
    sb.set_env("COLUMNS", "30");
    let told = sb.run_on_terminal(&args, 50, true).unwrap();
    assert_eq!(sparkline_width(&told.stdout), 28, "{}", told.stdout);
}

fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}
