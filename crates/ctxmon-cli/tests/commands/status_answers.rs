//! Answers of `status`, `report` and the status line that misled a new user: the session
//! measured is named; `report` without a file charts the newest session that has a response;
//! a status-line input given as a transcript is called what it is; a `--window` smaller than
//! the context is refused rather than replaced; the figure assumed after a compaction is marked
//! as such; and the model survives a compaction boundary in `status --json`.

// Test support: a panic is how a broken precondition fails the test.
#![allow(clippy::unwrap_used)]

use std::time::{Duration, SystemTime};

use serde_json::{Value, json};

use crate::common::{Sandbox, transcript_with};

/// A compaction boundary without a size: the fill after it is assumed.
fn boundary() -> String {
    json!({
        "type": "system", "subtype": "compact_boundary", "isSidechain": false,
        "uuid": "cb-1", "timestamp": "2026-11-20T12:00:00.000Z",
        "compactMetadata": {"trigger": "auto", "preTokens": 178_000},
    })
    .to_string()
        + "\n"
}

fn aged(path: &std::path::Path, secs: u64) {
    let file = std::fs::File::options().write(true).open(path).unwrap();
    file.set_modified(SystemTime::now() - Duration::from_secs(secs))
        .unwrap();
}

#[test]
fn status_names_the_session_it_measured() {
    let sb = Sandbox::new();
    let folder = sb.transcripts_folder();
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(folder.join("3f2c-abc.jsonl"), transcript_with(&[90_000])).unwrap();
    let run = sb.run(&["status"], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.contains("session 3f2c-abc"), "{}", run.stdout);
    let json: Value = serde_json::from_str(&sb.run(&["--json", "status"], "").stdout).unwrap();
    assert_eq!(json["session"], "3f2c-abc", "{json}");
}

#[test]
fn report_without_a_file_charts_the_newest_session_with_a_response() {
    let sb = Sandbox::new();
    let folder = sb.transcripts_folder();
    std::fs::create_dir_all(&folder).unwrap();
    let answered = folder.join("answered.jsonl");
    std::fs::write(&answered, transcript_with(&[40_000, 90_000])).unwrap();
    aged(&answered, 3600);
    // A session just started: its transcript holds the first request only.
    std::fs::write(
        folder.join("new.jsonl"),
        "{\"type\":\"user\",\"uuid\":\"u1\",\"message\":{\"role\":\"user\",\"content\":\"hi\"}}\n",
    )
    .unwrap();
    let run = sb.run(&["report"], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.contains("answered.jsonl"), "{}", run.stdout);

    std::fs::remove_file(&answered).unwrap();
    let none = sb.run(&["report"], "");
    assert_eq!(none.code, 1, "{}", none.stdout);
    assert!(
        none.stderr
            .contains("no session of this project has a response yet"),
        "{}",
        none.stderr
    );
}

#[test]
fn a_status_line_input_is_not_taken_for_a_transcript() {
    let sb = Sandbox::new();
    let payload = sb.write(
        "statusline.json",
        json!({"session_id": "s", "transcript_path": "/x/s.jsonl", "model": {"id": "claude-sonnet-4-5"},
               "context_window": {"context_window_size": 200000}})
        .to_string(),
    );
    let run = sb.run(&["status", "--transcript", payload.to_str().unwrap()], "");
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert!(run.stderr.contains("not a transcript"), "{}", run.stderr);
    assert!(run.stderr.contains("status line"), "{}", run.stderr);
}

#[test]
fn a_window_smaller_than_the_context_is_refused() {
    let sb = Sandbox::new();
    let t = sb.write("t.jsonl", transcript_with(&[150_000]));
    let run = sb.run(
        &[
            "status",
            "--transcript",
            t.to_str().unwrap(),
            "--window",
            "1000",
        ],
        "",
    );
    assert_eq!(run.code, 2, "{}", run.stdout);
    assert!(run.stderr.contains("--window 1000"), "{}", run.stderr);
    assert!(run.stderr.contains("150,000"), "{}", run.stderr);
}

#[test]
fn after_a_compaction_the_assumed_figure_is_marked_and_the_model_kept() {
    let mut sb = Sandbox::new();
    sb.set_env("NO_COLOR", "1");
    let t = sb.write(
        "t.jsonl",
        format!("{}{}", transcript_with(&[170_000]), boundary()),
    );
    let line = sb.run(&["statusline"], json!({"transcript_path": t}).to_string());
    assert_eq!(line.code, 0, "{}", line.stderr);
    // 30% of the 178,000 before the compaction, which is less than 30% of the window.
    assert!(line.stdout.starts_with("ctx ~26% "), "{}", line.stdout);

    let status = sb.run(
        &["--json", "status", "--transcript", t.to_str().unwrap()],
        "",
    );
    let v: Value = serde_json::from_str(&status.stdout).unwrap();
    assert_eq!(v["source"], "compaction", "{v}");
    assert_eq!(v["model"], "claude-sonnet-4-5-20250929", "{v}");
}

/// A Claude Code line of `version` answering with `model` at `tokens`.
fn versioned(version: &str, model: &str, tokens: u64) -> String {
    json!({
        "type": "assistant", "version": version, "timestamp": "2025-12-03T10:00:00.000Z",
        "message": {"model": model, "usage": {"input_tokens": tokens}},
    })
    .to_string()
        + "\n"
}

/// Where Claude Code compacts has moved between its versions: `status --json` takes the point
/// from the version and model, prefers this user's own automatic compactions in the project's
/// other transcripts, and says which; a buffer the user configured wins.
#[test]
fn the_auto_compact_point_follows_the_version_and_the_users_own_compactions() {
    let sb = Sandbox::new();
    let folder = sb.home.path().join(".claude/projects/-p");
    std::fs::create_dir_all(&folder).unwrap();
    let opus = "claude-opus-4-5-20251101";
    let t = folder.join("now.jsonl");
    std::fs::write(&t, versioned("2.0.57", opus, 100_000)).unwrap();
    let point = |sb: &Sandbox| {
        let v = status_json(sb, &t);
        (
            v["auto_compact_point"].as_u64().unwrap(),
            v["auto_compact_point_source"].as_str().unwrap().to_string(),
            v["tokens_until_auto_compact"].as_u64().unwrap(),
        )
    };
    // Opus 4.5 on 2.0.57 kept its whole 64,000-token output reserve.
    assert_eq!(point(&sb), (123_000, "version".into(), 23_000));
    // An earlier session of this project compacted automatically at 124,249.
    let boundary = json!({
        "type": "system", "subtype": "compact_boundary", "version": "2.0.57",
        "timestamp": "2025-12-03T09:00:00.000Z",
        "compactMetadata": {"trigger": "auto", "preTokens": 124_249},
    });
    std::fs::write(
        folder.join("before.jsonl"),
        versioned("2.0.57", opus, 120_000) + &boundary.to_string() + "\n",
    )
    .unwrap();
    assert_eq!(point(&sb), (124_249, "history".into(), 24_249));
    // Another version's compactions say nothing about this one: 2.1.22 caps the reserve.
    std::fs::write(&t, versioned("2.1.22", opus, 100_000)).unwrap();
    assert_eq!(point(&sb), (167_000, "version".into(), 67_000));
    sb.write(
        ".ctxmon/config.toml",
        "[context_monitor]\nauto_compact_buffer = 40000\n",
    );
    assert_eq!(point(&sb), (160_000, "configuration".into(), 60_000));
}

fn status_json(sb: &Sandbox, t: &std::path::Path) -> Value {
    let run = sb.run(
        &["--json", "status", "--transcript", t.to_str().unwrap()],
        "",
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    serde_json::from_str(&run.stdout).unwrap()
}
