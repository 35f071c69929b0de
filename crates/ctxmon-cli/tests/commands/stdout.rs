//! One rule for stdout (contract C13): when stdout's reader has gone (`ctxmon completions
//! bash | head -1`) every command ends quietly with exit 0, as SIGPIPE ends other tools; when
//! stdout cannot take the text (`>/dev/full`) it is one clear line on stderr and exit 1. Never
//! a panic (exit 101, "panicked at"). Each command runs with its stdout a real pipe whose read
//! end was closed before the process started, so every write fails with EPIPE, and with
//! `/dev/full`, where every write fails with ENOSPC.

// Test support: a panic is how a broken precondition fails the test.
#![allow(clippy::unwrap_used)]

use std::io::Read;
use std::process::Stdio;

use crate::common::{Sandbox, transcript_with};

#[derive(Debug, Clone, Copy)]
enum Stdout {
    /// A pipe whose reader is gone: EPIPE on every write.
    Closed,
    /// `/dev/full`: ENOSPC on every write.
    Full,
}

struct Ended {
    code: Option<i32>,
    stderr: String,
}

fn run(sb: &Sandbox, args: &[&str], stdin: &str, stdout: Stdout) -> Ended {
    let target: Stdio = match stdout {
        Stdout::Closed => {
            let (reader, writer) = std::io::pipe().unwrap();
            drop(reader);
            writer.into()
        }
        Stdout::Full => std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap()
            .into(),
    };
    let mut child = sb
        .command(args)
        .stdin(Stdio::piped())
        .stdout(target)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        let mut input = child.stdin.take().unwrap();
        let _ = input.write_all(stdin.as_bytes());
    }
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    let status = child.wait().unwrap();
    Ended {
        code: status.code(),
        stderr,
    }
}

/// A project with a transcript, a checkpoint and a resume log, so that every listing has rows.
fn project() -> (Sandbox, String) {
    let sb = Sandbox::new();
    let transcript = sb.write("t/session-1.jsonl", transcript_with(&[20_000, 150_000]));
    let transcript = transcript.display().to_string();
    let input = serde_json::json!({
        "session_id": "session-1", "transcript_path": transcript, "cwd": sb.dir(),
        "hook_event_name": "PreCompact", "trigger": "manual", "custom_instructions": "",
    });
    let saved = sb.run(&["hooks", "pre-compact"], input.to_string());
    assert_eq!(saved.code, 0, "{}", saved.stderr);
    assert!(
        sb.path(".ctxmon/checkpoints/cx-001-checkpoint.json")
            .is_file()
    );
    let log = sb.run(&["resume-log", "generate", "--session", "session-1"], "");
    assert_eq!(log.code, 0, "{}", log.stderr);
    (sb, transcript)
}

/// Every command that prints to stdout, as a user would type it.
fn commands(transcript: &str) -> Vec<Vec<String>> {
    let words = |s: &str| s.split(' ').map(String::from).collect::<Vec<_>>();
    let mut all = vec![
        words("completions bash"),
        words("completions zsh"),
        words("config schema"),
        words("config show"),
        words("--json config show"),
        words("config get context_monitor"),
        words("config path"),
        words("checkpoint list"),
        words("--json checkpoint list"),
        words("checkpoint show 1"),
        words("--json checkpoint show cx-001"),
        words("resume-log list"),
        words("resume-log show"),
        words("--json resume-log stats"),
        words("--help"),
        words("checkpoint --help"),
        words("--version"),
    ];
    for rest in [
        "status --transcript",
        "--json status --transcript",
        "report --transcript",
        "--json report --transcript",
    ] {
        let mut args = words(rest);
        args.push(transcript.to_string());
        all.push(args);
    }
    all
}

#[test]
fn a_closed_stdout_ends_every_command_quietly_with_exit_0() {
    let (sb, transcript) = project();
    for args in commands(&transcript) {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let ended = run(&sb, &args, "", Stdout::Closed);
        assert_eq!(ended.code, Some(0), "{args:?}: {}", ended.stderr);
        assert!(ended.stderr.is_empty(), "{args:?}: {}", ended.stderr);
    }
    let ended = run(&sb, &["assemble"], &assemble_input(), Stdout::Closed);
    assert_eq!(ended.code, Some(0), "assemble: {}", ended.stderr);
    assert!(ended.stderr.is_empty(), "assemble: {}", ended.stderr);
}

/// A snapshot for `assemble`, which reads it from stdin and prints a bundle.
fn assemble_input() -> String {
    serde_json::json!({
        "runId": "r", "goal": {"raw": "g"},
        "agent": {"id": "a", "role": "coder", "capabilities": []},
        "repo": {"root": "/w", "files": []},
        "constraints": {"maxTokens": 4000},
    })
    .to_string()
}

#[test]
fn a_full_stdout_is_a_clear_error_and_exit_1_never_a_panic() {
    if !std::path::Path::new("/dev/full").exists() {
        ctxmon_test_support::skip!("no /dev/full on this system; skipping");
        return;
    }
    let (sb, transcript) = project();
    for args in commands(&transcript) {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let ended = run(&sb, &args, "", Stdout::Full);
        assert_eq!(ended.code, Some(1), "{args:?}: {}", ended.stderr);
        assert_eq!(
            ended.stderr.trim(),
            "ctxmon: cannot write to stdout: No space left on device (os error 28)",
            "{args:?}"
        );
    }
    let ended = run(&sb, &["assemble"], &assemble_input(), Stdout::Full);
    assert_eq!(ended.code, Some(1), "assemble: {}", ended.stderr);
    assert!(
        ended.stderr.contains("cannot write to stdout"),
        "{}",
        ended.stderr
    );
}

/// The hooks keep their own rule (contract C14): exit 0 whatever stdout does.
#[test]
fn hooks_still_exit_0_whatever_stdout_does() {
    let (sb, transcript) = project();
    let input = serde_json::json!({
        "session_id": "session-1", "transcript_path": transcript, "cwd": sb.dir(),
        "hook_event_name": "UserPromptSubmit", "prompt": "go on",
    });
    for stdout in [Stdout::Closed, Stdout::Full] {
        let ended = run(&sb, &["hooks", "prompt-submit"], &input.to_string(), stdout);
        assert_eq!(ended.code, Some(0), "{stdout:?}: {}", ended.stderr);
        assert!(!ended.stderr.contains("panicked"), "{}", ended.stderr);
    }
}

/// `hooks` with a help or version request is still a `hooks …` line, which always exits 0
/// (contract C14): `ctxmon hooks --help >/dev/full` exited 1.
#[test]
fn hooks_help_and_version_exit_0_whatever_stdout_does() {
    let sb = Sandbox::new();
    let lines: [&[&str]; 7] = [
        &["hooks", "--help"],
        &["hooks", "-h"],
        &["hooks", "--version"],
        &["hooks", "help"],
        &["hooks", "help", "pre-compact"],
        &["hooks", "prompt-submit", "--help"],
        &["--json", "hooks", "session-start", "-h"],
    ];
    for args in lines {
        for stdout in [Stdout::Closed, Stdout::Full] {
            if matches!(stdout, Stdout::Full) && !std::path::Path::new("/dev/full").exists() {
                continue;
            }
            let ended = run(&sb, args, "", stdout);
            assert_eq!(ended.code, Some(0), "{args:?} {stdout:?}: {}", ended.stderr);
            assert!(!ended.stderr.contains("panicked"), "{}", ended.stderr);
        }
    }
}
