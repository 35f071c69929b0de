//! The status-line payload's own `context_window.used_percentage` against
//! ctxmon's figure. `ctxmon --json statusline` reports the comparison; the session's latest one
//! is kept in `.ctxmon/status-line/` for `ctxmon doctor` (tested in `commands/doctor.rs`), only
//! when it changes and never in a project without `.ctxmon`.

#![allow(clippy::unwrap_used)]

use serde_json::{Value, json};

use crate::common::{Sandbox, repo_fixture, shared_fixtures};

fn json_line(sb: &Sandbox, stdin: &str) -> Value {
    let run = sb.run(&["--json", "statusline"], stdin);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stdout.lines().count(), 1, "one line: {:?}", run.stdout);
    serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}: {}", run.stdout))
}

/// A payload whose figure comes from `session-warning.jsonl` (150,000 of 200,000: 75%).
fn payload(sb: &Sandbox, used: Value) -> String {
    json!({
        "session_id": "s1",
        "transcript_path": repo_fixture("transcripts/session-warning.jsonl"),
        "cwd": sb.dir(),
        "model": {"id": "claude-sonnet-4-5-20250929"},
        "context_window": {"context_window_size": 200000, "current_usage": null, "used_percentage": used},
    })
    .to_string()
}

/// The example payload Claude Code documents says `used_percentage: 8` beside a
/// `current_usage` of 15,500 tokens in a 1,000,000 window (1.55%): six points apart.
#[test]
fn the_documented_example_payload_disagrees_and_json_says_so() {
    let Some(dir) = shared_fixtures() else { return };
    let sb = Sandbox::new();
    let example = std::fs::read_to_string(dir.join("statusline-payload-1m.example.json")).unwrap();
    let v = json_line(&sb, &example);
    assert_eq!(
        v["line"], "ctx 1% ▱▱▱▱▱▱▱▱▱▱ 15k/1M NOMINAL · 951k to compact",
        "no colour codes in JSON"
    );
    assert_eq!(v["fill"]["input_tokens"], 15_500);
    assert_eq!(v["fill"]["source"], "payload");
    let check = &v["payload_check"];
    assert_eq!(check["used_percentage"], 8.0);
    assert_eq!(check["ctxmon_percentage"], 1.55);
    assert_eq!(check["difference_points"], 6.45);
    assert_eq!(check["disagrees"], true);
    assert_eq!(check["max_points"], 2.0);
    assert_eq!(check["payload_window"], 1_000_000);
    // Its cwd does not exist here, and the sandbox has no .ctxmon: nothing is kept.
    assert!(!sb.path(".ctxmon").exists());
}

#[test]
fn within_two_points_they_agree_and_without_the_field_there_is_no_check() {
    let sb = Sandbox::new();
    for (used, disagrees) in [
        (75, false),
        (77, false),
        (73, false),
        (78, true),
        (70, true),
    ] {
        let v = json_line(&sb, &payload(&sb, json!(used)));
        assert_eq!(v["fill"]["input_tokens"], 150_000);
        assert_eq!(v["payload_check"]["disagrees"], disagrees, "{used}: {v}");
    }
    for absent in [json!(null), json!("75"), json!(-1)] {
        let v = json_line(&sb, &payload(&sb, absent.clone()));
        assert_eq!(v["payload_check"], Value::Null, "{absent}");
        assert_eq!(v["fill"]["percent"], 75);
    }
    // Nothing measured: no figure to compare, and the line says so.
    let unmeasured = json!({"session_id": "s1", "transcript_path": sb.path("missing.jsonl"),
        "context_window": {"used_percentage": 40, "current_usage": null}});
    let v = json_line(&sb, &unmeasured.to_string());
    assert_eq!(
        (v["line"].as_str(), &v["fill"], &v["payload_check"]),
        (Some("ctx --"), &Value::Null, &Value::Null)
    );
    // Bad input: the same fail-open line, as one JSON object.
    let v = json_line(&sb, "not json");
    assert_eq!(v["line"], "ctx --");
}

#[test]
fn the_latest_comparison_is_kept_for_doctor_only_when_it_says_something_new() {
    let sb = Sandbox::new();
    let record = sb.path(".ctxmon/status-line/s1.json");
    json_line(&sb, &payload(&sb, json!(60)));
    assert!(!record.exists(), "the status line never creates .ctxmon");

    std::fs::create_dir_all(sb.path(".ctxmon")).unwrap();
    json_line(&sb, &payload(&sb, json!(60)));
    let first: Value = serde_json::from_slice(&std::fs::read(&record).unwrap()).unwrap();
    assert_eq!(
        (
            first["disagrees"].as_bool(),
            first["used_percentage"].as_f64()
        ),
        (Some(true), Some(60.0))
    );
    // Still disagreeing: the record stays as it was (no write every 300 ms).
    let bytes = std::fs::read(&record).unwrap();
    json_line(&sb, &payload(&sb, json!(61)));
    assert_eq!(std::fs::read(&record).unwrap(), bytes);
    // Agreeing again: written at once.
    json_line(&sb, &payload(&sb, json!(75)));
    let now: Value = serde_json::from_slice(&std::fs::read(&record).unwrap()).unwrap();
    assert_eq!(now["disagrees"], false);
    // The plain line is unchanged by any of it.
    let run = sb.run(&["statusline"], payload(&sb, json!(10)));
    assert!(run.stdout.contains("150k/200k"), "{}", run.stdout);
}
