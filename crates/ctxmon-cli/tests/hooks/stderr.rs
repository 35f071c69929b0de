//! A stderr that cannot be written costs nothing (contract C14): every hook, the status line, the
//! usage-error path and the deadline path exit 0 with their normal answer when stderr is
//! `/dev/full` (ENOSPC) or a pipe whose reader has gone (EPIPE; Rust ignores SIGPIPE, so the
//! write fails instead of killing the process). Each case is made to write a diagnostic: the
//! input has no `hook_event_name` (every hook warns and then runs as usual), the status line
//! reads an invalid configuration, a hook's stdin never closes past its deadline.

// Test support: a panic is how a broken precondition fails the test.
#![allow(clippy::unwrap_used)]

use std::io::{Read, Write};
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::common::{Sandbox, transcript_with};

/// A run still going after this is a hang: it is killed and fails on its exit code.
const KILL_AFTER: Duration = Duration::from_secs(20);

/// What stderr is connected to.
#[derive(Debug, Clone, Copy)]
enum Stderr {
    /// `/dev/full`: every write fails with ENOSPC.
    Full,
    /// A pipe whose read end is closed before the process starts: every write fails with EPIPE.
    Closed,
}

const STDERRS: [Stderr; 2] = [Stderr::Full, Stderr::Closed];

impl Stderr {
    fn stdio(self) -> Stdio {
        match self {
            Stderr::Full => std::fs::OpenOptions::new()
                .write(true)
                .open("/dev/full")
                .unwrap()
                .into(),
            Stderr::Closed => {
                let (reader, writer) = std::io::pipe().unwrap();
                drop(reader);
                writer.into()
            }
        }
    }
}

struct Run {
    code: i32,
    stdout: String,
}

/// Runs `args` with `stdin` (`None`: a stdin held open and never written) and `stderr`; a
/// process still running after [`KILL_AFTER`] is killed (code -1).
fn run_with(sb: &Sandbox, args: &[&str], stdin: Option<&str>, stderr: Stderr) -> Run {
    let mut child = sb
        .command(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(stderr.stdio())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    let held_open = match stdin {
        Some(text) => {
            let bytes = text.as_bytes().to_vec();
            std::thread::spawn(move || {
                let _ = input.write_all(&bytes);
            });
            None
        }
        None => Some(input),
    };
    let mut out = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = out.read_to_string(&mut text);
        text
    });
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break Some(status);
        }
        if started.elapsed() >= KILL_AFTER {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    drop(held_open);
    Run {
        code: status.and_then(|s| s.code()).unwrap_or(-1),
        stdout: reader.join().unwrap(),
    }
}

/// A hook's input without `hook_event_name`, which every hook warns about on stderr before
/// it goes on as usual.
fn unnamed_input(sb: &Sandbox, transcript: &Path, extra: Value) -> String {
    let mut v = json!({"session_id": "s", "transcript_path": transcript, "cwd": sb.dir()});
    if let (Some(obj), Some(more)) = (v.as_object_mut(), extra.as_object()) {
        obj.extend(more.clone());
    }
    v.to_string()
}

/// The one answer object a hook printed.
fn answer(run: &Run, what: &str) -> Value {
    assert_eq!(run.stdout.lines().count(), 1, "{what}: {:?}", run.stdout);
    serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{what} ({e}): {:?}", run.stdout))
}

#[test]
fn every_hook_answers_and_exits_0_when_stderr_cannot_be_written() {
    for stderr in STDERRS {
        let sb = Sandbox::new();
        // 150,000 of 200,000 tokens: WARNING, so prompt-submit injects its tag.
        let t = sb.write("t.jsonl", transcript_with(&[150_000]));
        sb.write(
            "ORCHESTRATION.yaml",
            "resumption:\n  updated_at: 2020-01-01T00:00:00Z\n  next_steps: [ship]\n",
        );
        let hook = |name: &str, extra: Value| {
            let what = format!("{name} with stderr {stderr:?}");
            let run = run_with(
                &sb,
                &["hooks", name],
                Some(&unnamed_input(&sb, &t, extra)),
                stderr,
            );
            assert_eq!(run.code, 0, "{what}: exit code; stdout {:?}", run.stdout);
            (run, what)
        };

        let (run, what) = hook("prompt-submit", json!({"prompt": "continue"}));
        let v = answer(&run, &what);
        let text = v["hookSpecificOutput"]["additionalContext"]
            .as_str()
            .unwrap();
        assert!(text.contains("tier=\"WARNING\""), "{what}: {text}");

        let (run, what) = hook("pre-compact", json!({"trigger": "auto"}));
        let v = answer(&run, &what);
        assert!(
            v["systemMessage"]
                .as_str()
                .unwrap()
                .starts_with("Checkpoint cx-001 saved"),
            "{what}: {v}"
        );
        assert!(
            sb.path(".ctxmon/checkpoints/cx-001-checkpoint.json")
                .is_file()
        );

        // Resumed: the whole state, so there is always an answer to write.
        let (run, what) = hook("session-start", json!({"source": "resume"}));
        let v = answer(&run, &what);
        let text = v["hookSpecificOutput"]["additionalContext"]
            .as_str()
            .unwrap();
        assert!(text.contains("<resumption-context"), "{what}: {text}");

        let (run, what) = hook(
            "pre-tool-use",
            json!({"tool_name": "Edit", "tool_input": {"file_path": sb.path("ORCHESTRATION.yaml")}}),
        );
        let v = answer(&run, &what);
        let text = v["hookSpecificOutput"]["additionalContext"]
            .as_str()
            .unwrap();
        assert!(text.contains("<resumption-staleness"), "{what}: {text}");

        for (name, extra) in [
            (
                "post-compact",
                json!({"trigger": "auto", "compact_summary": "s"}),
            ),
            ("session-end", json!({"reason": "exit"})),
        ] {
            let (run, what) = hook(name, extra);
            assert_eq!(run.stdout, "", "{what}");
        }
        // The lifecycle hooks did their work: each recorded its event.
        let events = std::fs::read_to_string(sb.path(".ctxmon/events.jsonl")).unwrap();
        for event in ["CompactionCompleted", "SessionEnded"] {
            assert!(events.contains(event), "{stderr:?}: {event} in {events}");
        }
    }
}

#[test]
fn the_status_line_usage_errors_and_deadlines_exit_0_when_stderr_cannot_be_written() {
    for stderr in STDERRS {
        // An invalid configuration: the status line names the key on stderr.
        let broken = Sandbox::new();
        broken.write(
            ".ctxmon/config.toml",
            "[context_monitor]\nwarning_threshold = 7\n",
        );
        let input = json!({"session_id": "s", "cwd": broken.dir()}).to_string();
        let run = run_with(&broken, &["statusline"], Some(&input), stderr);
        assert_eq!(
            (run.code, run.stdout.trim()),
            (0, "ctx -- (config error)"),
            "statusline with stderr {stderr:?}"
        );

        // clap's message and ctxmon's own line go to stderr; the hook still exits 0.
        let sb = Sandbox::new();
        for args in [
            &["hooks", "nonsense"][..],
            &["hooks", "prompt-submit", "extra"],
        ] {
            let run = run_with(&sb, args, Some(""), stderr);
            assert_eq!(
                (run.code, run.stdout.as_str()),
                (0, ""),
                "{args:?} with stderr {stderr:?}"
            );
        }

        // A stdin that never closes: the timeout is reported on stderr by the main thread.
        let mut quick = Sandbox::new();
        quick.set_env("CTXMON_HOOKS__DEADLINE_MS", "100");
        let run = run_with(&quick, &["hooks", "prompt-submit"], None, stderr);
        assert_eq!(
            (run.code, run.stdout.as_str()),
            (0, ""),
            "a timed-out hook with stderr {stderr:?}"
        );
        let run = run_with(&quick, &["statusline"], None, stderr);
        assert_eq!(
            (run.code, run.stdout.trim()),
            (0, "ctx --"),
            "a timed-out status line with stderr {stderr:?}"
        );
    }
}
