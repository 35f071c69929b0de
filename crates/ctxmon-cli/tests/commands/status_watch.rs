//! `ctxmon status --watch` end to end: the real binary redraws when the transcript grows,
//! prints one JSON line per change with `--json`, and ends with exit 0 on SIGINT or when its
//! input closes; a transcript it cannot measure at the start fails it as `status` would.

// Test support: a panic is how a broken precondition fails the test.
#![allow(clippy::unwrap_used)]

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdout, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::common::Sandbox;

fn response(id: &str, tokens: u64) -> String {
    json!({"type": "assistant", "message": {"id": id, "model": "claude-sonnet-4-5",
        "usage": {"input_tokens": tokens}}})
    .to_string()
        + "\n"
}

fn append(path: &std::path::Path, text: &str) {
    let mut file = std::fs::OpenOptions::new().append(true).open(path).unwrap();
    file.write_all(text.as_bytes()).unwrap();
}

/// The watch's stdout, a line at a time, read on a thread so that a test never hangs on it.
fn lines(stdout: ChildStdout) -> mpsc::Receiver<String> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    rx
}

fn next(rx: &mpsc::Receiver<String>) -> String {
    rx.recv_timeout(Duration::from_secs(15))
        .expect("a frame within 15 s")
}

/// The exit code, waiting at most 10 s (then the child is killed and the test fails).
fn exit_code(child: &mut Child) -> Option<i32> {
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(10) {
        if let Some(status) = child.try_wait().unwrap() {
            return status.code();
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = child.kill();
    panic!("the watch did not end within 10 s");
}

fn spawn(sb: &Sandbox, args: &[&str]) -> Child {
    sb.command(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

#[test]
fn json_frames_follow_the_transcript_and_sigint_ends_the_watch_with_0() {
    let sb = Sandbox::new();
    let path = sb.dir().join("s.jsonl");
    std::fs::write(&path, response("m1", 40_000)).unwrap();
    let mut child = spawn(
        &sb,
        &[
            "--json",
            "status",
            "--watch",
            "--transcript",
            path.to_str().unwrap(),
        ],
    );
    let rx = lines(child.stdout.take().unwrap());
    let first: Value = serde_json::from_str(&next(&rx)).unwrap();
    assert_eq!(first["input_tokens"], 40_000, "{first}");
    append(&path, &response("m2", 90_000));
    let second: Value = serde_json::from_str(&next(&rx)).unwrap();
    assert_eq!(second["input_tokens"], 90_000, "{second}");
    // Nothing changes: no frame.
    assert!(rx.recv_timeout(Duration::from_millis(2_500)).is_err());
    let kill = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(kill.success());
    assert_eq!(exit_code(&mut child), Some(0));
}

#[test]
fn people_s_frames_in_a_pipe_and_the_end_of_input_ends_the_watch_with_0() {
    let sb = Sandbox::new();
    let path = sb.dir().join("s.jsonl");
    std::fs::write(&path, response("m1", 100_000)).unwrap();
    let mut child = spawn(
        &sb,
        &["status", "--watch", "--transcript", path.to_str().unwrap()],
    );
    let rx = lines(child.stdout.take().unwrap());
    assert!(next(&rx).starts_with("ctx 50%"));
    // The rest of the first frame, then the second after a blank line.
    while !next(&rx).starts_with("    session s") {}
    append(&path, &response("m2", 150_000));
    assert_eq!(next(&rx), "");
    assert!(next(&rx).starts_with("ctx 75%"));
    drop(child.stdin.take());
    assert_eq!(exit_code(&mut child), Some(0));
}

#[test]
fn a_transcript_that_cannot_be_measured_fails_the_watch_at_once() {
    let sb = Sandbox::new();
    let missing = sb.dir().join("missing.jsonl");
    let run = sb.run(
        &[
            "status",
            "--watch",
            "--transcript",
            missing.to_str().unwrap(),
        ],
        "",
    );
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert!(run.stderr.contains("missing.jsonl"), "{}", run.stderr);
    let input = sb.dir().join("input.json");
    std::fs::write(&input, "{\"session_id\":\"x\",\"transcript_path\":\"/t.jsonl\",\"hook_event_name\":\"UserPromptSubmit\",\"prompt\":\"hi\"}\n").unwrap();
    let run = sb.run(
        &[
            "--json",
            "status",
            "--watch",
            "--transcript",
            input.to_str().unwrap(),
        ],
        "",
    );
    assert_eq!(run.code, 1, "{}", run.stdout);
    let json: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(json["exit_code"], 1, "{json}");
}
