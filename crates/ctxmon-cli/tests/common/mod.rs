//! Test harness: runs the real `ctxmon` binary in a temp project with a cleared environment
//! (only PATH, a temp HOME and what the test sets), like Claude Code would.

// Test support: a panic is how a broken precondition fails the test.
#![allow(dead_code, clippy::unwrap_used)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
    pub elapsed: Duration,
}

pub struct Sandbox {
    pub project: tempfile::TempDir,
    pub home: tempfile::TempDir,
    pub env: Vec<(String, String)>,
}

impl Sandbox {
    pub fn new() -> Sandbox {
        Sandbox {
            project: tempfile::tempdir().unwrap(),
            home: tempfile::tempdir().unwrap(),
            env: Vec::new(),
        }
    }

    pub fn dir(&self) -> &Path {
        self.project.path()
    }

    pub fn path(&self, rel: &str) -> PathBuf {
        self.project.path().join(rel)
    }

    pub fn write(&self, rel: &str, content: impl AsRef<[u8]>) -> PathBuf {
        let p = self.path(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, content).unwrap();
        p
    }

    pub fn set_env(&mut self, k: &str, v: &str) {
        self.env.push((k.into(), v.into()));
    }

    pub fn command(&self, args: &[&str]) -> Command {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_ctxmon"));
        cmd.args(args).current_dir(self.project.path()).env_clear();
        cmd.env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("HOME", self.home.path());
        for (k, v) in &self.env {
            cmd.env(k, v);
        }
        cmd
    }

    pub fn run(&self, args: &[&str], stdin: impl AsRef<[u8]>) -> Run {
        let started = Instant::now();
        let mut child = self
            .command(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut input = child.stdin.take().unwrap();
        let bytes = stdin.as_ref().to_vec();
        // Write from a thread: a child that stops reading early must not deadlock the test.
        let writer = std::thread::spawn(move || {
            let _ = input.write_all(&bytes);
        });
        let out = child.wait_with_output().unwrap();
        let _ = writer.join();
        Run {
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
            elapsed: started.elapsed(),
        }
    }

    /// A UserPromptSubmit input as Claude Code sends it.
    pub fn prompt_input(&self, session: &str, transcript: &Path) -> String {
        serde_json::json!({
            "session_id": session,
            "transcript_path": transcript,
            "cwd": self.project.path(),
            "permission_mode": "default",
            "hook_event_name": "UserPromptSubmit",
            "prompt": "continue",
        })
        .to_string()
    }
}

/// One assistant line with the given context size (spread over the three usage fields).
pub fn assistant_line(id: &str, tokens: u64) -> String {
    serde_json::json!({
        "type": "assistant", "isSidechain": false, "uuid": format!("u-{id}"),
        "timestamp": "2026-11-20T10:00:00.000Z",
        "message": {"model": "claude-sonnet-4-5-20250929", "id": format!("msg_{id}"), "role": "assistant",
            "content": [{"type": "text", "text": "ok"}],
            "usage": {"input_tokens": 3, "cache_creation_input_tokens": 1000, "cache_read_input_tokens": tokens - 1003, "output_tokens": 50}}
    })
    .to_string()
}

pub fn transcript_with(tokens: &[u64]) -> String {
    tokens
        .iter()
        .enumerate()
        .map(|(i, t)| assistant_line(&i.to_string(), *t) + "\n")
        .collect()
}

/// The workspace's `../shared` folder, or `None` (with a notice) in a user's clone.
pub fn shared_fixtures() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/fixtures/claude-code-transcripts");
    if dir.is_dir() {
        Some(dir)
    } else {
        eprintln!("notice: ../shared is absent; skipping tests on real Claude Code transcripts");
        None
    }
}

pub fn repo_fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures")
        .join(rel)
}

/// Parses a hook answer and returns its additionalContext, checking the envelope.
pub fn additional_context(stdout: &str, event: &str) -> String {
    let v: serde_json::Value =
        serde_json::from_str(stdout.trim()).unwrap_or_else(|e| panic!("not JSON ({e}): {stdout}"));
    assert_eq!(v["hookSpecificOutput"]["hookEventName"], event, "{stdout}");
    v["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap()
        .to_string()
}
