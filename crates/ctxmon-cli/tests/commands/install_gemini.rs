//! `ctxmon install --agent gemini`: Gemini CLI's `.gemini/settings.json` (or the user's
//! `~/.gemini/settings.json`) gets its five hooks with timeouts in milliseconds, the user's
//! keys and hooks stay, a second install changes nothing, and `uninstall --agent gemini` gives
//! the file back byte for byte.

// Test support: a panic is how a broken precondition fails the test.
#![allow(clippy::unwrap_used)]

use serde_json::Value;

use crate::common::Sandbox;

const USER_FILE: &str = "{\n  \"model\": {\"compressionThreshold\": 0.6},\n  \"hooks\": {\n    \"BeforeAgent\": [\n      {\"hooks\": [{\"type\": \"command\", \"command\": \"./mine.sh\", \"timeout\": 3000}]}\n    ]\n  }\n}\n";

#[test]
fn install_writes_gemini_hooks_in_milliseconds_and_uninstall_restores_the_file() {
    let sb = Sandbox::new();
    let path = sb.write(".gemini/settings.json", USER_FILE);
    let run = sb.run(&["install", "--agent", "gemini"], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(
        v["model"]["compressionThreshold"], 0.6,
        "the user's keys stay"
    );
    let hooks = &v["hooks"];
    for (event, name, ms) in [
        ("BeforeAgent", "prompt-submit", 5_000),
        ("SessionStart", "session-start", 10_000),
        ("PreCompress", "pre-compact", 10_000),
        ("AfterTool", "post-tool-use", 5_000),
        ("SessionEnd", "session-end", 5_000),
    ] {
        let ours: Vec<&Value> = hooks[event]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|g| g["hooks"].as_array().unwrap())
            .filter(|h| {
                h["command"]
                    .as_str()
                    .unwrap()
                    .ends_with(&format!("hooks {name}"))
            })
            .collect();
        assert_eq!(ours.len(), 1, "{event}: {hooks}");
        assert_eq!(ours[0]["timeout"], ms, "{event}");
    }
    assert!(hooks["BeforeAgent"].to_string().contains("./mine.sh"));
    for claude_only in [
        "UserPromptSubmit",
        "PreCompact",
        "PreToolUse",
        "PostCompact",
    ] {
        assert!(hooks.get(claude_only).is_none(), "{claude_only}");
    }
    let once = std::fs::read(&path).unwrap();
    assert_eq!(sb.run(&["install", "--agent", "gemini"], "").code, 0);
    assert_eq!(std::fs::read(&path).unwrap(), once, "idempotent");

    let out = sb.run(&["uninstall", "--agent", "gemini"], "");
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(std::fs::read_to_string(&path).unwrap(), USER_FILE);
}

#[test]
fn gemini_has_no_local_scope_nor_status_line_and_the_user_scope_is_home() {
    let sb = Sandbox::new();
    let local = sb.run(&["install", "--agent", "gemini", "--scope", "local"], "");
    assert_eq!(local.code, 2, "{}", local.stderr);
    assert!(local.stderr.contains("Gemini CLI"), "{}", local.stderr);
    let line = sb.run(&["install", "--agent", "gemini", "--statusline"], "");
    assert_eq!(line.code, 2, "{}", line.stderr);
    let user = sb.run(&["install", "--agent", "gemini", "--scope", "user"], "");
    assert_eq!(user.code, 0, "{}", user.stderr);
    assert!(sb.home.path().join(".gemini/settings.json").is_file());
    assert!(!sb.path(".gemini").exists());
}

/// Gemini CLI strips comments from its settings before it parses them, so users keep notes in
/// them: install registers around the comments and uninstall gives every byte back, also for a
/// file that holds nothing but comments; doctor reads the file as Gemini CLI does.
#[test]
fn a_settings_file_with_comments_keeps_them_through_install_and_uninstall() {
    const COMMENTED: &str = "{\n  // compress later than the default\n  \"model\": {\"compressionThreshold\": 0.7}, /* tuned */\n  \"hooks\": {\n    \"BeforeAgent\": [\n      {\"hooks\": [{\"type\": \"command\", \"command\": \"./mine.sh\"}]} // mine\n    ]\n  }\n}\n";
    const ONLY_COMMENTS: &str = "{\n  // nothing set yet\n}\n";
    for original in [COMMENTED, ONLY_COMMENTS] {
        let sb = Sandbox::new();
        let path = sb.write(".gemini/settings.json", original);
        let run = sb.run(&["install", "--agent", "gemini"], "");
        assert_eq!(run.code, 0, "{original}: {}", run.stderr);
        let installed = std::fs::read_to_string(&path).unwrap();
        assert!(installed.contains("hooks prompt-submit"), "{installed}");
        for comment in [
            "// compress later",
            "/* tuned */",
            "// mine",
            "// nothing set yet",
        ] {
            assert_eq!(
                installed.contains(comment),
                original.contains(comment),
                "{comment}: {installed}"
            );
        }
        let doctor = sb.run(&["--json", "doctor"], "");
        assert!(
            !doctor.stdout.contains("is not valid JSON"),
            "{}",
            doctor.stdout
        );
        assert!(
            doctor.stdout.contains("gemini hook BeforeAgent"),
            "{}",
            doctor.stdout
        );
        let out = sb.run(&["uninstall", "--agent", "gemini"], "");
        assert_eq!(out.code, 0, "{}", out.stderr);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), original);
    }
}

/// A Gemini CLI settings file with a byte-order mark keeps it, and the note says only that:
/// what Claude Code's desktop app does with such a file is no concern of Gemini CLI's.
#[test]
fn a_byte_order_mark_in_gemini_settings_gets_no_claude_code_note() {
    let sb = Sandbox::new();
    let path = sb.write(".gemini/settings.json", format!("\u{feff}{USER_FILE}"));
    let run = sb.run(&["install", "--agent", "gemini"], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stderr.contains("byte-order mark"), "{}", run.stderr);
    assert!(!run.stderr.contains("Claude"), "{}", run.stderr);
    assert!(
        std::fs::read_to_string(&path)
            .unwrap()
            .starts_with('\u{feff}')
    );
}

/// Gemini CLI runs identical hooks from two files once: the refusal of a second scope says
/// when they would run twice rather than that they always would.
#[test]
fn the_second_scope_refusal_says_how_gemini_cli_runs_duplicates() {
    let sb = Sandbox::new();
    let run = sb.run(&["install", "--agent", "gemini"], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    let second = sb.run(&["install", "--agent", "gemini", "--scope", "user"], "");
    assert_eq!(second.code, 1, "{}", second.stderr);
    assert!(
        second.stderr.contains("runs two identical commands once"),
        "{}",
        second.stderr
    );
    assert!(
        !second
            .stderr
            .contains("would make Gemini CLI run each hook twice"),
        "{}",
        second.stderr
    );
}
