//! `ctxmon resume-log …` end to end: the real binary in a temp project whose transcripts sit
//! where Claude Code keeps them, every bad `--from` input, bad files in the folder, and a
//! folder that cannot be written. What a log says is in `commands/resume_log_content.rs`.

// Test helpers: a panic is how a broken precondition fails the test.
#![allow(clippy::unwrap_used)]

use std::path::Path;

use resume_log::{SESSION, logs_dir, one_line_error, snapshot, transcript};
use serde_json::{Value, json};

use crate::common::Sandbox;
use crate::common::resume_log;

#[test]
fn generate_list_show_stats_and_cleanup() {
    let sb = Sandbox::new();
    transcript(&sb, SESSION);
    let run = sb.run(&["resume-log", "generate"], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout
            .starts_with(&format!("resume log for session {SESSION} written to ")),
        "{}",
        run.stdout
    );
    let md_path = logs_dir(&sb).join(format!("session-{SESSION}.md"));
    let md = std::fs::read_to_string(&md_path).unwrap();
    assert!(
        md.contains("## Mission Summary\n\n> Refactor billing and add tax.rs\n"),
        "{md}"
    );
    assert!(md.contains("- [x] Split billing.rs"));
    assert!(md.contains("- [ ] (in progress) Write tax.rs"));
    assert!(md.contains("- /w/src/tax.rs"));
    assert!(md.contains("- cargo test -p billing"));
    assert!(md.contains("- Used: 166,000 tokens (83%)"), "{md}");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(
            std::fs::metadata(&md_path).unwrap().permissions().mode() & 0o777,
            0o600
        );
        assert_eq!(
            std::fs::metadata(logs_dir(&sb))
                .unwrap()
                .permissions()
                .mode()
                & 0o777,
            0o700
        );
    }

    let list = sb.run(&["resume-log", "list"], "");
    assert_eq!(list.code, 0, "{}", list.stderr);
    assert!(list.stdout.starts_with("SESSION"), "{}", list.stdout);
    assert!(list.stdout.contains(SESSION) && list.stdout.contains("manual"));
    let list: Value =
        serde_json::from_str(&sb.run(&["--json", "resume-log", "list"], "").stdout).unwrap();
    assert_eq!(list[0]["session_id"], SESSION);
    assert_eq!(list[0]["markdown_path"], md_path.display().to_string());

    let show = sb.run(&["resume-log", "show", SESSION], "");
    assert_eq!(show.code, 0, "{}", show.stderr);
    assert_eq!(show.stdout, md.trim_end().to_string() + "\n");
    assert_eq!(sb.run(&["resume-log", "latest"], "").stdout, show.stdout);
    assert_eq!(sb.run(&["resume-log", "show"], "").stdout, show.stdout);
    let json = sb.run(&["--json", "resume-log", "latest"], "");
    let log: Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(log["session_id"], SESSION);
    assert_eq!(log["context_metrics"]["used_tokens"], 166_000);
    assert_eq!(log["metadata"]["trigger"], "manual");

    let stats: Value =
        serde_json::from_str(&sb.run(&["--json", "resume-log", "stats"], "").stdout).unwrap();
    assert_eq!(stats["count"], 1);
    assert!(stats["bytes"].as_u64().unwrap() > 500);
    assert_eq!(stats["oldest"], stats["newest"]);
    let text = sb.run(&["resume-log", "stats"], "").stdout;
    assert!(text.starts_with("1 resume log in "), "{text}");

    let cleanup = sb.run(&["resume-log", "cleanup", "--keep", "1"], "");
    assert_eq!(cleanup.code, 0, "{}", cleanup.stderr);
    assert_eq!(cleanup.stdout, "nothing to clean up (kept the newest 1)\n");
    let newer = sb.run(
        &[
            "resume-log",
            "generate",
            "--session",
            "newer",
            "--from",
            "-",
        ],
        r#"{"mission_summary":"m"}"#,
    );
    assert_eq!(newer.code, 0, "{}", newer.stderr);
    let cleanup = sb.run(&["resume-log", "cleanup", "--keep", "1"], "");
    assert_eq!(cleanup.code, 0, "{}", cleanup.stderr);
    assert!(
        cleanup
            .stdout
            .contains(&format!("removed the resume log of {SESSION}")),
        "{}",
        cleanup.stdout
    );
    assert!(!md_path.exists());
    assert_eq!(
        sb.run(&["--json", "resume-log", "latest"], "").stdout,
        sb.run(&["--json", "resume-log", "show", "newer"], "")
            .stdout
    );
}

#[test]
fn cleanup_keeps_the_configured_number_and_refuses_zero() {
    let sb = Sandbox::new();
    for s in ["one", "two", "three"] {
        let run = sb.run(
            &["resume-log", "generate", "--session", s, "--from", "-"],
            r#"{"mission_summary":"m"}"#,
        );
        assert_eq!(run.code, 0, "{}", run.stderr);
    }
    // Without --keep: `resume_logs.keep`, 10 by default.
    let default = sb.run(&["--json", "resume-log", "cleanup"], "");
    assert_eq!(default.code, 0, "{}", default.stderr);
    assert_eq!(
        serde_json::from_str::<Value>(&default.stdout).unwrap(),
        json!({"removed": [], "keep": 10})
    );
    sb.write(".ctxmon/config.toml", "[resume_logs]\nkeep = 2\n");
    let configured = sb.run(&["--json", "resume-log", "cleanup"], "");
    assert_eq!(configured.code, 0, "{}", configured.stderr);
    assert_eq!(
        serde_json::from_str::<Value>(&configured.stdout).unwrap(),
        json!({"removed": ["one"], "keep": 2})
    );
    let before = snapshot(&logs_dir(&sb));
    let zero = sb.run(&["resume-log", "cleanup", "--keep", "0"], "");
    assert_eq!(zero.code, 2, "{}", zero.stderr);
    assert!(
        one_line_error(&zero.stderr).starts_with("ctxmon: --keep 0: keep at least 1 resume log"),
        "{}",
        zero.stderr
    );
    // A bad configuration is a configuration error when it is needed, not a silent default.
    sb.write(".ctxmon/config.toml", "[resume_logs]\nkeep = 0\n");
    let bad = sb.run(&["resume-log", "cleanup"], "");
    assert_eq!(bad.code, 2, "{}", bad.stderr);
    assert!(bad.stderr.contains("resume_logs.keep"), "{}", bad.stderr);
    assert_eq!(snapshot(&logs_dir(&sb)), before);
}

#[test]
fn the_agent_document_and_the_session_variable_are_used() {
    let mut sb = Sandbox::new();
    transcript(&sb, "older-session");
    transcript(&sb, SESSION);
    sb.set_env("CLAUDE_CODE_SESSION_ID", "older-session");
    let doc = json!({
        "mission_summary": "Ship tax support.",
        "key_findings": ["VAT rounding is per line."],
        "decisions": [{"decision": "Round per line", "rationale": "Matches the ledger"}],
        "critical_context": {"ledger": "/w/ledger.csv"}
    });
    sb.write("doc.json", doc.to_string());
    let run = sb.run(
        &["--json", "resume-log", "generate", "--from", "doc.json"],
        "",
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let out: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(out["session_id"], "older-session");
    assert_eq!(out["sources"], json!(["agent document", "transcript"]));
    assert!(out["tokens"].as_u64().unwrap() <= 10_000);
    let md = std::fs::read_to_string(out["markdown_path"].as_str().unwrap()).unwrap();
    assert!(md.contains("Ship tax support."));
    assert!(md.contains("1. Round per line\n   - Rationale: Matches the ledger"));
    assert!(md.contains("- **ledger:** /w/ledger.csv"));
    // Stdin works too, and --session beats the variable.
    let run = sb.run(
        &[
            "resume-log",
            "generate",
            "--session",
            SESSION,
            "--from",
            "-",
        ],
        doc.to_string(),
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        logs_dir(&sb)
            .join(format!("session-{SESSION}.json"))
            .exists()
    );
}

#[test]
fn every_bad_document_is_a_one_line_usage_error_and_damages_nothing() {
    let sb = Sandbox::new();
    transcript(&sb, SESSION);
    assert_eq!(sb.run(&["resume-log", "generate"], "").code, 0);
    let before = snapshot(&logs_dir(&sb));
    let mut huge = String::from("{\"mission_summary\":\"");
    huge.push_str(&"x".repeat(20 * 1024 * 1024));
    huge.push_str("\"}");
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        (
            "invalid JSON",
            b"{\"mission_summary\": ".to_vec(),
            "stdin: not valid JSON at mission_summary (line 1, column 20): EOF while parsing",
        ),
        (
            "unknown field",
            br#"{"next_step": ["x"]}"#.to_vec(),
            "stdin: next_step: unknown field `next_step`",
        ),
        ("20 MB", huge.into_bytes(), "stdin: larger than 2 MiB"),
        (
            "non-UTF-8",
            b"{\"mission_summary\": \"\xff\xfe\"}".to_vec(),
            "stdin: not valid UTF-8 (the first bad byte is at offset 21)",
        ),
        (
            "wrong type",
            br#"{"next_steps": "all of it"}"#.to_vec(),
            "stdin: next_steps: invalid type: string \"all of it\", expected an array",
        ),
        (
            "wrong item type",
            br#"{"decisions": ["just text"]}"#.to_vec(),
            "stdin: decisions[0]: invalid type: string \"just text\", expected an object",
        ),
        ("empty", b"".to_vec(), "stdin: empty document"),
        (
            "unknown top-level field beside known ones",
            br#"{"session_id": "s", "context_metrics": {}, "contxt": {}}"#.to_vec(),
            "stdin: contxt: unknown field `contxt`",
        ),
        (
            "unknown metric",
            br#"{"context_metrics": {"used": 5}}"#.to_vec(),
            "stdin: context_metrics.used: unknown field `used`",
        ),
        (
            "a document's session id that is a path",
            br#"{"session_id": "../../etc"}"#.to_vec(),
            "the --from document's session_id ../../etc: not a session id",
        ),
    ];
    for (what, input, expected) in cases {
        let run = sb.run(&["resume-log", "generate", "--from", "-"], input);
        assert_eq!(run.code, 2, "{what}: {}", run.stderr);
        let line = one_line_error(&run.stderr);
        assert!(
            line.starts_with(&format!("ctxmon: {expected}")),
            "{what}: {line}"
        );
        assert!(run.stdout.is_empty(), "{what}");
    }
    let missing = sb.run(&["resume-log", "generate", "--from", "nope.json"], "");
    assert_eq!(missing.code, 2);
    assert!(
        missing.stderr.contains("--from nope.json: cannot open it"),
        "{}",
        missing.stderr
    );
    assert_eq!(snapshot(&logs_dir(&sb)), before);
}

#[test]
fn a_corrupt_json_beside_its_markdown_is_reported_and_skipped() {
    let sb = Sandbox::new();
    for s in ["good", "broken"] {
        let run = sb.run(
            &["resume-log", "generate", "--session", s, "--from", "-"],
            r#"{"mission_summary":"m"}"#,
        );
        assert_eq!(run.code, 0, "{}", run.stderr);
    }
    std::fs::write(
        logs_dir(&sb).join("session-broken.json"),
        "{\"schema_version\":",
    )
    .unwrap();
    let md = std::fs::read_to_string(logs_dir(&sb).join("session-broken.md")).unwrap();

    let list = sb.run(&["resume-log", "list"], "");
    assert_eq!(list.code, 0, "{}", list.stderr);
    assert!(
        list.stdout.contains("good") && !list.stdout.contains("broken"),
        "{}",
        list.stdout
    );
    assert!(
        list.stderr
            .contains("session-broken.json: corrupt resume-log JSON"),
        "{}",
        list.stderr
    );
    let latest = sb.run(&["--json", "resume-log", "latest"], "");
    assert_eq!(latest.code, 0, "{}", latest.stderr);
    assert!(latest.stdout.contains("\"session_id\":\"good\""));

    let show = sb.run(&["resume-log", "show", "broken"], "");
    assert_eq!(show.code, 0, "{}", show.stderr);
    assert_eq!(show.stdout, md.trim_end().to_string() + "\n");
    assert!(
        show.stderr.contains("showing the stored markdown"),
        "{}",
        show.stderr
    );
    let show_json = sb.run(&["--json", "resume-log", "show", "broken"], "");
    assert_eq!(show_json.code, 1);
    assert!(show_json.stderr.contains("corrupt resume-log JSON"));

    // Cleanup never deletes what it cannot identify, and generating again repairs the pair.
    assert_eq!(
        sb.run(&["resume-log", "cleanup", "--keep", "1"], "").code,
        0
    );
    assert_eq!(
        std::fs::read_to_string(logs_dir(&sb).join("session-broken.md")).unwrap(),
        md
    );
    let again = sb.run(&["resume-log", "generate", "--session", "broken"], "");
    assert_eq!(again.code, 0, "{}", again.stderr);
    assert!(sb.run(&["resume-log", "list"], "").stderr.is_empty());
}

#[test]
fn an_invalid_session_id_is_a_usage_error_and_touches_nothing() {
    let sb = Sandbox::new();
    // Retention of one: any write would delete the other session's log.
    sb.write(".ctxmon/config.toml", "[resume_logs]\nkeep = 1\n");
    transcript(&sb, SESSION);
    assert_eq!(sb.run(&["resume-log", "generate"], "").code, 0);
    let before = snapshot(&logs_dir(&sb));
    for bad in [
        "../../outside/x",
        "a/b",
        "x.y",
        "tab\there",
        &"s".repeat(129),
    ] {
        let run = sb.run(
            &["resume-log", "generate", "--session", bad, "--from", "-"],
            r#"{"mission_summary":"m"}"#,
        );
        assert_eq!(run.code, 2, "{bad}: {}", run.stderr);
        let line = one_line_error(&run.stderr);
        assert!(
            line.starts_with("ctxmon: --session ") && line.contains(": not a session id"),
            "{line}"
        );
        assert!(run.stdout.is_empty());
    }
    let empty = sb.run(&["resume-log", "generate", "--session", " "], "");
    assert_eq!(empty.code, 2);
    assert!(
        empty.stderr.contains("--session is empty"),
        "{}",
        empty.stderr
    );
    let mut env_sb = Sandbox::new();
    env_sb.set_env("CLAUDE_CODE_SESSION_ID", "../x");
    let env = env_sb.run(&["resume-log", "generate"], "");
    assert_eq!(env.code, 2, "{}", env.stderr);
    assert!(
        env.stderr
            .contains("CLAUDE_CODE_SESSION_ID ../x: not a session id")
    );
    assert!(!env_sb.path(".ctxmon/resume-logs").exists());
    assert_eq!(snapshot(&logs_dir(&sb)), before);
    assert!(!sb.dir().parent().unwrap().join("outside").exists());
}

#[test]
fn a_hook_session_id_with_path_separators_stays_in_the_folder() {
    let sb = Sandbox::new();
    // Hooks answer whatever Claude Code sends: an unsafe id is hashed into the file name.
    let input =
        json!({"session_id": "../../outside/x", "cwd": sb.dir(), "hook_event_name": "SessionEnd"});
    let run = sb.run(&["hooks", "session-end"], input.to_string());
    assert_eq!(run.code, 0, "{}", run.stderr);
    let names: Vec<String> = snapshot(&logs_dir(&sb))
        .into_iter()
        .map(|(n, _)| n)
        .collect();
    assert!(
        names
            .iter()
            .any(|n| n.starts_with("session-h-") && n.ends_with(".md")),
        "{names:?}"
    );
    assert!(!sb.dir().parent().unwrap().join("outside").exists());
    let show = sb.run(&["--json", "resume-log", "show", "../../outside/x"], "");
    assert_eq!(show.code, 0, "{}", show.stderr);
    assert!(show.stdout.contains(r#""session_id":"../../outside/x""#));
    let missing = sb.run(&["resume-log", "show", "nobody"], "");
    assert_eq!(missing.code, 1);
    assert!(missing.stderr.contains("no resume log for session nobody"));
}

/// Makes `dir` unwritable: mode 0500, or (for root, whom modes do not stop) the immutable
/// attribute. `None` when neither works here.
#[cfg(unix)]
fn lock_folder(dir: &Path) -> Option<Box<dyn FnOnce()>> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o500)).unwrap();
    let probe = dir.join(".probe");
    if std::fs::write(&probe, b"").is_err() {
        let d = dir.to_path_buf();
        return Some(Box::new(move || {
            std::fs::set_permissions(&d, std::fs::Permissions::from_mode(0o700)).unwrap();
        }));
    }
    let _ = std::fs::remove_file(&probe);
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700)).unwrap();
    let chattr = |flag: &str| {
        std::process::Command::new("chattr")
            .arg(flag)
            .arg(dir)
            .stderr(std::process::Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    };
    if chattr("+i") && std::fs::write(&probe, b"").is_err() {
        let d = dir.to_path_buf();
        return Some(Box::new(move || {
            let _ = std::process::Command::new("chattr")
                .arg("-i")
                .arg(&d)
                .status();
        }));
    }
    chattr("-i");
    None
}

#[cfg(unix)]
#[test]
fn a_folder_that_cannot_be_written_fails_cleanly_and_keeps_its_logs() {
    let sb = Sandbox::new();
    transcript(&sb, SESSION);
    assert_eq!(sb.run(&["resume-log", "generate"], "").code, 0);
    let other = sb.run(
        &[
            "resume-log",
            "generate",
            "--session",
            "other",
            "--from",
            "-",
        ],
        r#"{"mission_summary":"m"}"#,
    );
    assert_eq!(other.code, 0, "{}", other.stderr);
    let before = snapshot(&logs_dir(&sb));
    let Some(unlock) = lock_folder(&logs_dir(&sb)) else {
        ctxmon_test_support::skip!("cannot make a folder read-only here; read-only test skipped");
        return;
    };
    let run = sb.run(
        &["resume-log", "generate", "--from", "-"],
        r#"{"mission_summary":"new"}"#,
    );
    let cleanup = sb.run(&["resume-log", "cleanup", "--keep", "1"], "");
    let list = sb.run(&["resume-log", "list"], "");
    unlock();
    assert_eq!(run.code, 1, "{}", run.stderr);
    let line = one_line_error(&run.stderr.replace(
        &format!("ctxmon: warning: no Claude Code transcript, Codex rollout or Gemini CLI chat found for session {SESSION}; the log holds only what --from, checkpoints and git say\n"),
        "",
    ))
    .to_string();
    assert!(
        line.starts_with("ctxmon: cannot save the resume log: "),
        "{line}"
    );
    assert!(line.contains("resume-logs"), "{line}");
    assert_eq!(cleanup.code, 1, "{}", cleanup.stderr);
    assert_eq!(list.code, 0, "{}", list.stderr);
    assert!(list.stdout.contains(SESSION));
    assert_eq!(snapshot(&logs_dir(&sb)), before);
}
