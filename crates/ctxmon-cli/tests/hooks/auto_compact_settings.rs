//! Claude Code's own auto-compaction settings end to end (contract C2): env vars and settings
//! files move or switch off "tokens until auto-compact" in `status --json`, the
//! `<context-monitor>` tag and the status line; bad values are warnings, never a lost answer.

#![allow(clippy::unwrap_used)] // a panic fails the test, as it should

use serde_json::{Value, json};

use crate::common::{Sandbox, additional_context, transcript_with};

/// `status --json` on a 60,000-token transcript (200,000 window); stdout parsed, stderr kept.
fn status(sb: &Sandbox) -> (Value, String) {
    let t = sb.write("t.jsonl", transcript_with(&[60_000]));
    let run = sb.run(
        &["--json", "status", "--transcript", t.to_str().unwrap()],
        "",
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let v: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(v["input_tokens"], 60_000);
    assert_eq!(v["context_window_size"], 200_000);
    (v, run.stderr)
}

fn with_env(pairs: &[(&str, &str)]) -> Sandbox {
    let mut sb = Sandbox::new();
    for (k, v) in pairs {
        sb.set_env(k, v);
    }
    sb
}

#[test]
fn default_trigger_is_window_minus_33000() {
    let (v, _) = status(&Sandbox::new());
    assert_eq!(v["tokens_until_auto_compact"], 200_000 - 33_000 - 60_000);
}

#[test]
fn pct_override_50_gives_40000_until_auto_compact() {
    let (v, stderr) = status(&with_env(&[("CLAUDE_AUTOCOMPACT_PCT_OVERRIDE", "50")]));
    assert_eq!(v["tokens_until_auto_compact"], 40_000);
    assert!(stderr.is_empty(), "{stderr}");
}

#[test]
fn pct_override_never_raises_the_trigger() {
    let (v, _) = status(&with_env(&[("CLAUDE_AUTOCOMPACT_PCT_OVERRIDE", "95")]));
    assert_eq!(v["tokens_until_auto_compact"], 107_000);
}

#[test]
fn disable_auto_compact_gives_null() {
    let (v, _) = status(&with_env(&[("DISABLE_AUTO_COMPACT", "1")]));
    assert!(v["tokens_until_auto_compact"].is_null(), "{v}");
    assert_eq!(v["threshold_tier"], "nominal");
}

#[test]
fn auto_compact_enabled_false_in_settings_gives_null() {
    let sb = Sandbox::new();
    sb.write(".claude/settings.json", r#"{"autoCompactEnabled": false}"#);
    let (v, _) = status(&sb);
    assert!(v["tokens_until_auto_compact"].is_null(), "{v}");
}

#[test]
fn user_settings_apply_and_local_beats_them() {
    let sb = Sandbox::new();
    let user = sb.home.path().join(".claude/settings.json");
    std::fs::create_dir_all(user.parent().unwrap()).unwrap();
    std::fs::write(&user, r#"{"autoCompactEnabled": false}"#).unwrap();
    let (v, _) = status(&sb);
    assert!(v["tokens_until_auto_compact"].is_null(), "{v}");
    sb.write(
        ".claude/settings.local.json",
        r#"{"autoCompactEnabled": true}"#,
    );
    let (v, _) = status(&sb);
    assert_eq!(v["tokens_until_auto_compact"], 107_000);
}

#[test]
fn auto_compact_window_from_settings_and_env_wins() {
    let mut sb = Sandbox::new();
    sb.write(".claude/settings.json", r#"{"autoCompactWindow": 150000}"#);
    let (v, _) = status(&sb);
    // 150,000 − 33,000 − 60,000
    assert_eq!(v["tokens_until_auto_compact"], 57_000);
    sb.set_env("CLAUDE_CODE_AUTO_COMPACT_WINDOW", "120000");
    let (v, _) = status(&sb);
    assert_eq!(v["tokens_until_auto_compact"], 27_000);
}

#[test]
fn bad_values_are_warned_about_and_ignored() {
    for (k, v) in [
        ("CLAUDE_AUTOCOMPACT_PCT_OVERRIDE", "half"),
        ("CLAUDE_AUTOCOMPACT_PCT_OVERRIDE", "0"),
        ("CLAUDE_AUTOCOMPACT_PCT_OVERRIDE", "101"),
        ("CLAUDE_CODE_AUTO_COMPACT_WINDOW", "50000"),
        ("CLAUDE_CODE_AUTO_COMPACT_WINDOW", "big"),
    ] {
        let (json, stderr) = status(&with_env(&[(k, v)]));
        assert_eq!(json["tokens_until_auto_compact"], 107_000, "{k}={v}");
        assert!(stderr.contains(k), "{k}={v}: {stderr}");
    }
}

#[test]
fn broken_settings_json_is_a_warning_not_a_lost_answer() {
    let sb = Sandbox::new();
    sb.write(".claude/settings.json", r#"{"autoCompactEnabled": false"#);
    let (v, stderr) = status(&sb);
    assert_eq!(v["tokens_until_auto_compact"], 107_000);
    assert!(stderr.contains("not valid JSON"), "{stderr}");
    sb.write(".claude/settings.json", r#"{"autoCompactWindow": "lots"}"#);
    let (v, stderr) = status(&sb);
    assert_eq!(v["tokens_until_auto_compact"], 107_000);
    assert!(stderr.contains("autoCompactWindow"), "{stderr}");
}

#[cfg(unix)]
#[test]
fn a_fifo_settings_file_does_not_hang() {
    let sb = Sandbox::new();
    std::fs::create_dir_all(sb.path(".claude")).unwrap();
    let Some(_) = sb.mkfifo(".claude/settings.json") else {
        return;
    };
    let (v, stderr) = status(&sb);
    assert_eq!(v["tokens_until_auto_compact"], 107_000);
    assert!(stderr.contains("not a file"), "{stderr}");
}

#[test]
fn prompt_submit_tag_follows_the_settings() {
    let mut sb = Sandbox::new();
    let t = sb.write("t.jsonl", transcript_with(&[165_000]));
    sb.set_env("CLAUDE_AUTOCOMPACT_PCT_OVERRIDE", "50");
    let run = sb.run(&["hooks", "prompt-submit"], sb.prompt_input("s1", &t));
    assert_eq!(run.code, 0, "{}", run.stderr);
    let tag = additional_context(&run.stdout, "UserPromptSubmit");
    assert!(tag.contains("until-auto-compact=\"0\""), "{tag}");
    assert!(tag.contains("can start at any moment"), "{tag}");

    sb.set_env("DISABLE_AUTO_COMPACT", "1");
    let run = sb.run(&["hooks", "prompt-submit"], sb.prompt_input("s2", &t));
    assert_eq!(run.code, 0, "{}", run.stderr);
    let tag = additional_context(&run.stdout, "UserPromptSubmit");
    assert!(tag.contains("until-auto-compact=\"off\""), "{tag}");
    assert!(tag.contains("Auto-compaction is off"), "{tag}");
}

#[test]
fn prompt_submit_keeps_its_tag_with_a_broken_settings_file() {
    let sb = Sandbox::new();
    let t = sb.write("t.jsonl", transcript_with(&[60_000]));
    sb.write(".claude/settings.local.json", "{not json");
    let run = sb.run(&["hooks", "prompt-submit"], sb.prompt_input("s1", &t));
    assert_eq!(run.code, 0, "{}", run.stderr);
    let tag = additional_context(&run.stdout, "UserPromptSubmit");
    assert!(tag.contains("until-auto-compact=\"107000\""), "{tag}");
}

#[test]
fn status_line_says_auto_compact_is_off() {
    let mut sb = Sandbox::new();
    sb.set_env("NO_COLOR", "1");
    let t = sb.write("t.jsonl", transcript_with(&[60_000]));
    let payload =
        json!({"transcript_path": t, "cwd": sb.dir(), "model": {"id": "claude-sonnet-4-5"},
        "context_window": {"context_window_size": 200000, "current_usage": null}})
        .to_string();
    let run = sb.run(&["statusline"], &payload);
    assert!(run.stdout.contains("107k to compact"), "{}", run.stdout);
    sb.set_env("DISABLE_AUTO_COMPACT", "1");
    let run = sb.run(&["statusline"], &payload);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.contains("auto-compact off"), "{}", run.stdout);
    assert!(!run.stdout.contains("to compact"), "{}", run.stdout);
}

/// Claude Code (JavaScript's `JSON.parse`) accepts a lone surrogate escape, a number beyond
/// f64, a byte that is not UTF-8 and deep nesting anywhere in its settings; serde_json refused
/// the whole file, and the `autoCompactWindow` beside them was lost. They cost nothing now, in
/// `status` and in the prompt's tag alike.
#[test]
fn a_settings_file_claude_code_accepts_keeps_its_auto_compact_window() {
    let deep = format!("{}1{}", "[".repeat(300), "]".repeat(300));
    let texts: [Vec<u8>; 4] = [
        br#"{"autoCompactWindow": 150000, "note": "cut \ud800 here"}"#.to_vec(),
        br#"{"permissions": {"big": 1e400}, "autoCompactWindow": 150000}"#.to_vec(),
        b"{\"note\": \"caf\xe9\", \"autoCompactWindow\": 150000}".to_vec(),
        format!(r#"{{"autoCompactWindow": 150000, "deep": {deep}}}"#).into_bytes(),
    ];
    for text in texts {
        let shown = String::from_utf8_lossy(&text).into_owned();
        let sb = Sandbox::new();
        sb.write(".claude/settings.json", &text);
        let (v, stderr) = status(&sb);
        // 150,000 − 33,000 − 60,000
        assert_eq!(v["tokens_until_auto_compact"], 57_000, "{shown}: {stderr}");
        assert!(!stderr.contains("not valid JSON"), "{shown}: {stderr}");
        let t = sb.path("t.jsonl");
        let run = sb.run(&["hooks", "prompt-submit"], sb.prompt_input("s1", &t));
        let tag = additional_context(&run.stdout, "UserPromptSubmit");
        assert!(
            tag.contains("until-auto-compact=\"57000\""),
            "{shown}: {tag}"
        );
    }
}
