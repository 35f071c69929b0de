//! `ctxmon statusline` end to end with Claude Code's status-line JSON.

#![allow(clippy::unwrap_used)]

use serde_json::{Value, json};

use crate::common;
use crate::common::{Sandbox, repo_fixture, shared_fixtures};

fn line(sb: &Sandbox, stdin: &str) -> String {
    let run = sb.run(&["statusline"], stdin);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stdout.lines().count(), 1, "one line: {:?}", run.stdout);
    run.stdout.trim_end().to_string()
}

fn plain() -> Sandbox {
    let mut sb = Sandbox::new();
    sb.set_env("NO_COLOR", "1");
    sb
}

#[test]
fn payload_usage_and_window_are_used() {
    let Some(dir) = shared_fixtures() else { return };
    let sb = plain();
    let payload = std::fs::read_to_string(dir.join("statusline-payload-1m.example.json")).unwrap();
    assert_eq!(
        line(&sb, &payload),
        // 15,500 of 1,000,000 is 1.55%: shown rounded down, like every fill.
        "ctx 1% ▱▱▱▱▱▱▱▱▱▱ 15k/1M NOMINAL · 951k to compact"
    );
}

#[test]
fn an_old_payload_falls_back_to_the_transcript_never_to_total_input_tokens() {
    let Some(dir) = shared_fixtures() else { return };
    let sb = plain();
    let mut payload: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("statusline-payload-1.0.88.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(
        line(&sb, &payload.to_string()),
        "ctx --",
        "the transcript is on another machine: no guess"
    );
    payload["transcript_path"] = json!(repo_fixture("transcripts/session-warning.jsonl"));
    assert_eq!(
        line(&sb, &payload.to_string()),
        "ctx 75% ▰▰▰▰▰▰▰▱▱▱ 150k/200k WARNING · 17k to compact"
    );
}

/// 199,000 of 200,000 showed `100%` beside a nine-cell bar: percentages are rounded down, so
/// the line never claims a full window, or a tier boundary the fill has not reached.
#[test]
fn percentages_never_round_up_to_a_full_window_or_across_a_boundary() {
    let sb = plain();
    let usage = |tokens: u64| {
        json!({"context_window": {"context_window_size": 200000,
            "current_usage": {"input_tokens": tokens, "output_tokens": 10}}})
        .to_string()
    };
    assert_eq!(
        line(&sb, &usage(199_000)),
        "ctx 99% ▰▰▰▰▰▰▰▰▰▱ 199k/200k EMERGENCY · compacting soon"
    );
    assert!(
        line(&sb, &usage(159_999)).starts_with("ctx 79% ▰▰▰▰▰▰▰▱▱▱ 159k/200k WARNING"),
        "CRITICAL begins at 80%"
    );
    assert!(line(&sb, &usage(200_000)).starts_with("ctx 100% ▰▰▰▰▰▰▰▰▰▰ "));
}

#[test]
fn null_current_usage_reads_the_transcript() {
    let sb = plain();
    let t = repo_fixture("transcripts/session-warning.jsonl");
    let payload = json!({"transcript_path": t, "model": {"id": "claude-sonnet-4-5"}, "context_window": {"context_window_size": 200000, "current_usage": null}});
    assert!(line(&sb, &payload.to_string()).starts_with("ctx 75% "));
}

#[test]
fn colour_follows_no_color_and_width_follows_columns() {
    let mut sb = Sandbox::new();
    let t = repo_fixture("transcripts/session-warning.jsonl");
    let payload = json!({"transcript_path": t}).to_string();
    assert!(
        line(&sb, &payload).contains("\x1b[33m"),
        "WARNING is yellow"
    );
    sb.set_env("COLUMNS", "24");
    let narrow = line(&sb, &payload);
    let visible: String = narrow.replace("\x1b[33m", "").replace("\x1b[0m", "");
    assert_eq!(visible, "ctx 75% WARNING");
    sb.set_env("NO_COLOR", "1");
    assert!(!line(&sb, &payload).contains('\x1b'));
}

#[test]
fn bad_stdin_prints_a_placeholder_and_exits_0() {
    let sb = plain();
    for stdin in ["", "not json", "[]", "{}", &"x".repeat(2 * 1024 * 1024)] {
        assert_eq!(line(&sb, stdin), "ctx --");
    }
}

#[test]
fn a_compaction_drops_the_line_before_the_next_response() {
    let sb = plain();
    let t = repo_fixture("transcripts/session-warning.jsonl");
    let pre = sb.run(&["hooks", "pre-compact"], json!({"session_id":"s1","transcript_path":t,"cwd":sb.dir(),"hook_event_name":"PreCompact","trigger":"manual"}).to_string());
    assert_eq!(pre.code, 0);
    let payload = json!({"session_id":"s1","transcript_path":t,"workspace":{"project_dir":sb.dir()},"context_window":{"current_usage":null}});
    // `~`: assumed after the compaction, not measured.
    assert_eq!(
        line(&sb, &payload.to_string()),
        "ctx ~22% ▰▰▱▱▱▱▱▱▱▱ 45k/200k NOMINAL · 122k to compact"
    );
}

#[test]
fn hostile_columns_and_payload_numbers_never_break_the_line() {
    let t = repo_fixture("transcripts/session-warning.jsonl");
    let full = "ctx 75% ▰▰▰▰▰▰▰▱▱▱ 150k/200k WARNING · 17k to compact";
    let payload = json!({"transcript_path": t}).to_string();
    // Zero, negative, non-numeric or beyond usize: the default width (80), which fits it all.
    for columns in [
        "0",
        "-5",
        "abc",
        " 80 ",
        "99999999999999999999999",
        "18446744073709551615",
    ] {
        let mut sb = plain();
        sb.set_env("COLUMNS", columns);
        assert_eq!(line(&sb, &payload), full, "COLUMNS={columns:?}");
    }
    let mut sb = plain();
    sb.set_env("COLUMNS", "1");
    assert_eq!(line(&sb, &payload), "ctx", "narrower than anything");

    // A window that is zero, negative, fractional, a string or absurd is ignored (no division
    // by zero): the transcript's model decides, as without one.
    let sb = plain();
    for window in [
        json!(0),
        json!(-1),
        json!(1.5),
        json!("200000"),
        json!(1e300),
    ] {
        let payload = json!({"transcript_path": t, "context_window": {"context_window_size": window, "current_usage": null}});
        assert_eq!(line(&sb, &payload.to_string()), full, "window {window}");
    }
    // Usage fields at u64::MAX saturate instead of overflowing; a 1-token window is taken as
    // given and the line still renders.
    let payload = json!({"transcript_path": t, "context_window": {"context_window_size": 1, "current_usage": {"input_tokens": u64::MAX, "cache_read_input_tokens": u64::MAX, "cache_creation_input_tokens": u64::MAX}}});
    let out = line(&sb, &payload.to_string());
    assert!(
        out.contains("EMERGENCY") && out.contains("18446744073709551k/1"),
        "{out}"
    );
}

/// The status line shows no figure from a window the configuration may have changed: one bad
/// value drops every layer (a configured 1M window among them), so it says why instead.
#[test]
fn an_invalid_config_shows_a_config_error_not_a_figure() {
    let sb = plain();
    sb.write(
        ".ctxmon/config.toml",
        "[context_monitor]\ncontext_window = 1000000\n",
    );
    sb.write(".ctxmon/config.local.toml", "[hooks]\ndeadline_ms = 20\n");
    let t = sb.write("t.jsonl", common::transcript_with(&[180_000]));
    let stdin = json!({"session_id": "s", "transcript_path": t, "cwd": sb.dir()}).to_string();
    let run = sb.run(&["statusline"], &stdin);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stdout.trim_end(), "ctx -- (config error)");
    assert!(
        run.stderr.contains("hooks.deadline_ms = 20")
            && run.stderr.contains(".ctxmon/config.local.toml"),
        "{}",
        run.stderr
    );
}
