//! Every hook and the status line finish within their internal deadline (each hook its own,
//! `hooks.<hook>_deadline_ms`; contract C14) whatever blocks or bloats their inputs: a
//! transcript, resumption file, `.git/HEAD` or `.ctxmon/config.toml` that is a FIFO without a writer, a 200 MB
//! resumption file, a stdin that never closes. Each run must exit 0, print a valid fail-open
//! answer and say what was wrong on stderr and in `.ctxmon/logs/hooks.log`. The commands that
//! also read transcripts and settings (status, report, doctor) must give a clear error instead
//! of hanging.
//!
//! Timing assertions are "within the deadline plus a generous margin" so a loaded 2-core
//! machine does not flake them; a process that hangs is killed after [`KILL_AFTER`] and fails
//! on its exit code and time.

// Test support: a panic is how a broken precondition fails the test.
#![allow(clippy::unwrap_used)]

use std::path::Path;
use std::time::Duration;

use serde_json::{Value, json};

use crate::common::{Run, Sandbox, transcript_with};

/// The shortest built-in deadline (prompt-submit's, and the status line's): a run that waits
/// for nothing finishes within it, whatever the hook.
const DEADLINE: Duration = Duration::from_millis(1_500);
/// Process start-up, a loaded machine, the bounded timeout log write.
const MARGIN: Duration = Duration::from_secs(2);
/// A run still going after this is a hang: it is killed and fails its assertions.
const KILL_AFTER: Duration = Duration::from_secs(20);

/// A hook with an input that makes it do its real work (a source-file write for PreToolUse, a
/// compaction for SessionStart).
struct Hook {
    name: &'static str,
    event: &'static str,
    extra: Value,
    /// Its built-in deadline.
    deadline: Duration,
}

fn hooks() -> Vec<Hook> {
    vec![
        Hook {
            name: "prompt-submit",
            event: "UserPromptSubmit",
            extra: json!({"prompt": "continue", "permission_mode": "default"}),
            deadline: Duration::from_millis(1_500),
        },
        Hook {
            name: "pre-compact",
            event: "PreCompact",
            extra: json!({"trigger": "auto", "custom_instructions": ""}),
            deadline: Duration::from_millis(7_000),
        },
        Hook {
            name: "session-start",
            event: "SessionStart",
            extra: json!({"source": "compact"}),
            deadline: Duration::from_millis(7_000),
        },
        Hook {
            name: "pre-tool-use",
            event: "PreToolUse",
            extra: json!({"tool_name": "Write", "tool_input": {"file_path": "ORCHESTRATION.yaml", "content": "x"}}),
            deadline: Duration::from_millis(1_500),
        },
        Hook {
            name: "post-tool-use",
            event: "PostToolUse",
            extra: json!({"tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_response": {"stdout": "x"}}),
            deadline: Duration::from_millis(1_500),
        },
        Hook {
            name: "post-compact",
            event: "PostCompact",
            extra: json!({"trigger": "auto", "compact_summary": "summary"}),
            deadline: Duration::from_millis(2_000),
        },
        Hook {
            name: "session-end",
            event: "SessionEnd",
            extra: json!({"reason": "exit"}),
            deadline: Duration::from_millis(2_000),
        },
    ]
}

fn hook(name: &str) -> Hook {
    hooks().into_iter().find(|h| h.name == name).unwrap()
}

/// Runs `hook` with its input for `transcript` (session `s`).
fn run_hook(sb: &Sandbox, hook: &Hook, transcript: &Path) -> Run {
    let input = sb.hook_input(hook.event, "s", transcript, hook.extra.clone());
    sb.run_limited(&["hooks", hook.name], Some(input.as_bytes()), KILL_AFTER)
}

fn assert_in_time(run: &Run, deadline: Duration, what: &str) {
    assert_eq!(run.code, 0, "{what}: exit code; stderr: {}", run.stderr);
    assert!(
        run.elapsed < deadline + MARGIN,
        "{what}: took {:?} (deadline {deadline:?}); stderr: {}",
        run.elapsed,
        run.stderr
    );
}

/// Nothing, or exactly one line holding the answer this hook may give (contract C14).
fn assert_valid_answer(run: &Run, hook: &Hook, what: &str) {
    let out = run.stdout.trim();
    if out.is_empty() {
        return;
    }
    assert_eq!(out.lines().count(), 1, "{what}: one answer line: {out}");
    let v: Value =
        serde_json::from_str(out).unwrap_or_else(|e| panic!("{what}: not JSON ({e}): {out}"));
    match hook.name {
        "pre-compact" => assert!(v["systemMessage"].is_string(), "{what}: {out}"),
        "prompt-submit" | "session-start" | "pre-tool-use" | "post-tool-use" => {
            let specific = &v["hookSpecificOutput"];
            assert_eq!(specific["hookEventName"], hook.event, "{what}: {out}");
            assert!(specific["additionalContext"].is_string(), "{what}: {out}");
            // Context only, never a permission decision (contract C8).
            assert_eq!(specific.as_object().unwrap().len(), 2, "{what}: {out}");
        }
        _ => panic!("{what}: {} answers nothing, got {out}", hook.name),
    }
}

fn hooks_log(sb: &Sandbox) -> String {
    std::fs::read_to_string(sb.path(".ctxmon/logs/hooks.log")).unwrap_or_default()
}

/// `needle` is on stderr and in the hook log, on a line of this hook.
fn assert_diagnosed(sb: &Sandbox, run: &Run, hook: &str, needle: &str) {
    assert!(
        run.stderr.contains(needle),
        "{hook}: stderr lacks {needle:?}: {}",
        run.stderr
    );
    let log = hooks_log(sb);
    assert!(
        log.lines()
            .any(|l| l.contains(&format!(" {hook}: ")) && l.contains(needle)),
        "{hook}: hooks.log lacks {needle:?}:\n{log}"
    );
}

/// The status line with `transcript`, in the sandbox's project.
fn run_statusline(sb: &Sandbox, transcript: &Path, stdin_open: bool) -> Run {
    let input = json!({
        "session_id": "s",
        "transcript_path": transcript,
        "cwd": sb.dir(),
        "model": {"id": "claude-sonnet-4-5-20250929", "display_name": "Sonnet"},
        "workspace": {"current_dir": sb.dir(), "project_dir": sb.dir()},
    })
    .to_string();
    let stdin = (!stdin_open).then_some(input.as_bytes());
    sb.run_limited(&["statusline"], stdin, KILL_AFTER)
}

#[cfg(unix)]
#[test]
fn a_fifo_transcript_stalls_no_hook_and_no_command() {
    let sb = Sandbox::new();
    let Some(fifo) = sb.mkfifo("pipe.jsonl") else {
        return;
    };
    for hook in hooks() {
        let run = run_hook(&sb, &hook, &fifo);
        let what = format!("{} with a FIFO transcript", hook.name);
        assert_in_time(&run, DEADLINE, &what);
        assert_valid_answer(&run, &hook, &what);
        // Only these read transcript_path; the others never open it.
        if matches!(hook.name, "prompt-submit" | "pre-compact" | "session-end") {
            assert_diagnosed(&sb, &run, hook.name, "is not a regular file (a FIFO)");
        }
        if hook.name == "prompt-submit" {
            assert_eq!(run.stdout.trim(), "", "nothing measured, nothing injected");
        }
        if hook.name == "pre-compact" {
            // The checkpoint is saved anyway, without a fill.
            assert!(
                run.stdout.contains("Checkpoint cx-001 saved"),
                "{}",
                run.stdout
            );
        }
    }

    let run = run_statusline(&sb, &fifo, false);
    assert_in_time(&run, DEADLINE, "statusline with a FIFO transcript");
    assert_eq!(run.stdout.trim(), "ctx --");
    assert!(run.stderr.contains("(a FIFO)"), "{}", run.stderr);

    // Commands without a deadline must refuse it, not wait for a writer.
    let shown = fifo.display().to_string();
    for args in [
        vec!["status", "--transcript", &shown],
        vec!["report", "--transcript", &shown],
    ] {
        let run = sb.run_limited(&args, Some(b""), KILL_AFTER);
        assert_eq!(run.code, 1, "{args:?}: {}", run.stderr);
        assert!(
            run.stderr.contains("is not a regular file (a FIFO)"),
            "{args:?}: {}",
            run.stderr
        );
        assert!(run.elapsed < KILL_AFTER, "{args:?}");
    }

    // doctor finds transcripts itself: a FIFO named like the newest session is passed over
    // and the real transcript measured.
    let folder = sb.transcripts_folder();
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(folder.join("real.jsonl"), transcript_with(&[90_000])).unwrap();
    let made = std::process::Command::new("mkfifo")
        .arg(folder.join("zz-newest.jsonl"))
        .status()
        .unwrap();
    assert!(made.success());
    let run = sb.run_limited(&["--json", "doctor"], Some(b""), KILL_AFTER);
    let checks: Value = serde_json::from_str(&run.stdout)
        .unwrap_or_else(|e| panic!("doctor --json ({e}): {}\n{}", run.stdout, run.stderr));
    let transcript = checks
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["check"] == "transcript")
        .unwrap();
    assert_eq!(transcript["status"], "ok", "{transcript}");
    assert!(
        transcript["message"]
            .as_str()
            .unwrap()
            .contains("real.jsonl measures 45%"),
        "{transcript}"
    );
}

#[test]
fn a_stdin_that_never_closes_ends_at_the_deadline() {
    let sb = Sandbox::new();
    let t = sb.write("t.jsonl", transcript_with(&[150_000]));
    let runs: Vec<(String, Run)> = std::thread::scope(|s| {
        let mut handles = Vec::new();
        for hook in hooks() {
            let sb = &sb;
            handles.push(s.spawn(move || {
                let run = sb.run_limited(&["hooks", hook.name], None, KILL_AFTER);
                (hook.name.to_string(), run)
            }));
        }
        let sb = &sb;
        let t = &t;
        handles.push(s.spawn(move || ("statusline".into(), run_statusline(sb, t, true))));
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let log = hooks_log(&sb);
    for (name, run) in &runs {
        // Each its own: the status line and the prompt short, PreCompact and SessionStart long.
        let deadline = hooks()
            .into_iter()
            .find(|h| h.name == name)
            .map_or(DEADLINE, |h| h.deadline);
        assert_in_time(run, deadline, &format!("{name} with an open stdin"));
        // It did wait for its input, up to the deadline (the clock may run a little early).
        assert!(
            run.elapsed >= deadline - Duration::from_millis(100),
            "{name}: {:?}",
            run.elapsed
        );
        let reached = format!("deadline of {deadline:?} reached");
        assert!(run.stderr.contains(&reached), "{name}: {}", run.stderr);
        if name == "statusline" {
            assert_eq!(run.stdout.trim(), "ctx --");
        } else {
            assert_eq!(run.stdout.trim(), "", "{name}: no answer");
            assert!(
                log.lines()
                    .any(|l| l.contains(&format!(" warn {name}: {reached}"))),
                "{name}: the timeout is in hooks.log:\n{log}"
            );
        }
    }
}

/// The configured deadline is in force while stdin is read, not only once the input names the
/// project: found without stdin (a `CTXMON_` variable; the config of the project named by
/// --project-dir, CLAUDE_PROJECT_DIR or the current directory), it ends a stdin that never
/// closes long before the built-in one. A hook's own key wins over `hooks.deadline_ms`.
#[cfg(unix)]
#[test]
fn the_configured_deadline_bounds_the_stdin_read() {
    let mut by_env = Sandbox::new();
    by_env.set_env("CTXMON_HOOKS__DEADLINE_MS", "100");
    let mut own_key = Sandbox::new();
    own_key.set_env("CTXMON_HOOKS__DEADLINE_MS", "60000");
    own_key.set_env("CTXMON_HOOKS__PRE_COMPACT_DEADLINE_MS", "100");
    let by_file = Sandbox::new();
    by_file.write(".ctxmon/config.toml", "[hooks]\ndeadline_ms = 100\n");
    let elsewhere = Sandbox::new();
    let project = by_file.dir().to_str().unwrap();
    let mut by_claude_dir = Sandbox::new();
    by_claude_dir.set_env("CLAUDE_PROJECT_DIR", project);
    let cases: [(&str, &Sandbox, &[&str]); 7] = [
        ("variable", &by_env, &["hooks", "prompt-submit"]),
        ("variable", &by_env, &["statusline"]),
        ("own key", &own_key, &["hooks", "pre-compact"]),
        ("current directory", &by_file, &["hooks", "pre-compact"]),
        ("current directory", &by_file, &["statusline"]),
        (
            "--project-dir",
            &elsewhere,
            &["--project-dir", project, "hooks", "session-start"],
        ),
        (
            "CLAUDE_PROJECT_DIR",
            &by_claude_dir,
            &["hooks", "prompt-submit"],
        ),
    ];
    for (what, sb, args) in cases {
        let run = sb.run_limited(args, None, KILL_AFTER);
        assert_eq!(run.code, 0, "{what} {args:?}: {}", run.stderr);
        // Well under the default: only "not the 1.5 s one" matters on a loaded machine.
        assert!(
            run.elapsed < Duration::from_millis(1_200),
            "{what} {args:?}: took {:?}",
            run.elapsed
        );
        assert!(
            run.stderr.contains("deadline of 100ms reached"),
            "{what} {args:?}: {}",
            run.stderr
        );
    }
}

/// A valid resumption source header padded to `len` bytes without writing them (sparse).
fn sparse_source(sb: &Sandbox, len: u64) {
    let p = sb.write(
        "ORCHESTRATION.yaml",
        "resumption:\n  recovery_state: huge\n  updated_at: 2026-11-20T10:00:00Z\n",
    );
    std::fs::OpenOptions::new()
        .write(true)
        .open(p)
        .unwrap()
        .set_len(len)
        .unwrap();
}

/// PreCompact, SessionStart after it, and PreToolUse on the source file, each in time with a
/// valid answer; PreCompact saves its checkpoint from the transcript tail, SessionStart hands it
/// back, and the hooks that read the source name `why`.
fn resumption_cycle(sb: &Sandbox, deadline: Duration, why: &str) {
    let t = sb.write("t.jsonl", transcript_with(&[150_000]));
    // The agent's note: beside a compaction's summary, what the hand-back carries.
    sb.write(".ctxmon/notes/s.md", "Next: the VAT table.");
    let pre = hook("pre-compact");
    let run = run_hook(sb, &pre, &t);
    assert_in_time(&run, deadline, "pre-compact");
    assert_valid_answer(&run, &pre, "pre-compact");
    assert!(
        run.stdout
            .contains("Checkpoint cx-001 saved at 75% context fill"),
        "{}\n{}",
        run.stdout,
        run.stderr
    );
    assert_diagnosed(sb, &run, "pre-compact", why);

    let start = hook("session-start");
    let run = run_hook(sb, &start, &t);
    assert_in_time(&run, deadline, "session-start");
    assert_valid_answer(&run, &start, "session-start");
    assert!(
        run.stdout.contains("cx-001"),
        "the checkpoint is handed back: {}",
        run.stdout
    );

    let tool = hook("pre-tool-use");
    let run = run_hook(sb, &tool, &t);
    assert_in_time(&run, deadline, "pre-tool-use");
    assert_valid_answer(&run, &tool, "pre-tool-use");
    assert!(
        run.stdout.contains("resumption.updated_at is missing"),
        "{}",
        run.stdout
    );
    assert_diagnosed(sb, &run, "pre-tool-use", why);
}

#[test]
fn a_200_mb_resumption_file_is_not_read() {
    let sb = Sandbox::new();
    sparse_source(&sb, 200 * 1024 * 1024);
    resumption_cycle(
        &sb,
        DEADLINE,
        "ignored: 209,715,200 bytes, over the 1 MiB cap",
    );
}

#[cfg(unix)]
#[test]
fn a_fifo_resumption_file_is_not_opened() {
    let sb = Sandbox::new();
    if sb.mkfifo("ORCHESTRATION.yaml").is_none() {
        return;
    }
    resumption_cycle(&sb, DEADLINE, "ignored: not a regular file (a FIFO)");
}

#[test]
fn a_resumption_file_at_the_size_cap_cannot_cost_the_checkpoint() {
    let sb = Sandbox::new();
    // The largest cap allowed, and a valid document under it that takes seconds to parse:
    // the hooks stop waiting for it after a quarter of their deadline and go on without it.
    let deadline = Duration::from_secs(4);
    sb.write(
        ".ctxmon/config.toml",
        "[hooks]\ndeadline_ms = 4000\n[resumption]\nmax_source_bytes = 67108864\n",
    );
    let mut yaml = String::from("resumption:\n  recovery_state: big\n  items:\n");
    let item = "  - xxxxxxxxxx\n";
    yaml.reserve(48 * 1024 * 1024);
    while yaml.len() < 48 * 1024 * 1024 {
        yaml.push_str(item);
    }
    sb.write("ORCHESTRATION.yaml", yaml);
    resumption_cycle(&sb, deadline, "ignored: not read within 1,000 ms");
}

#[cfg(unix)]
#[test]
fn a_fifo_git_head_stalls_no_hook() {
    let sb = Sandbox::new();
    if sb.mkfifo(".git/HEAD").is_none() {
        return;
    }
    std::fs::create_dir_all(sb.path(".git/refs/heads")).unwrap();
    let t = sb.write("t.jsonl", transcript_with(&[150_000]));
    for hook in hooks() {
        let run = run_hook(&sb, &hook, &t);
        let what = format!("{} with a FIFO .git/HEAD", hook.name);
        assert_in_time(&run, DEADLINE, &what);
        assert_valid_answer(&run, &hook, &what);
        match hook.name {
            // Only PreCompact records branch and commit.
            "pre-compact" => {
                assert!(
                    run.stdout.contains("Checkpoint cx-001 saved"),
                    "{}",
                    run.stdout
                );
                assert_diagnosed(&sb, &run, "pre-compact", "git HEAD unreadable");
            }
            "prompt-submit" => assert!(run.stdout.contains("<context-monitor"), "{}", run.stdout),
            _ => {}
        }
    }
    // The checkpoint says nothing about git rather than something wrong.
    let cp: Value = serde_json::from_str(
        &std::fs::read_to_string(sb.path(".ctxmon/checkpoints/cx-001-checkpoint.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(cp["session_info"]["git_branch"], Value::Null, "{cp}");
    assert_eq!(cp["session_info"]["git_head"], Value::Null, "{cp}");
}

#[cfg(unix)]
#[test]
fn a_fifo_config_file_is_refused_and_hooks_run_on_defaults_without_a_tier() {
    let sb = Sandbox::new();
    if sb.mkfifo(".ctxmon/config.toml").is_none() {
        return;
    }
    let t = sb.write("t.jsonl", transcript_with(&[150_000]));
    let why = "it is a FIFO, not a regular file; replace it with a TOML file";
    for hook in hooks() {
        let run = run_hook(&sb, &hook, &t);
        let what = format!("{} with a FIFO config", hook.name);
        assert_in_time(&run, DEADLINE, &what);
        assert_valid_answer(&run, &hook, &what);
        // Not the deadline: the file was refused, not waited on.
        assert!(!run.stderr.contains("deadline"), "{what}: {}", run.stderr);
        assert_diagnosed(&sb, &run, hook.name, why);
        // The unread file may set the window: no tier from the defaults.
        if hook.name == "prompt-submit" {
            assert_eq!(run.stdout.trim(), "", "{what}");
        }
    }
    // PreCompact checkpointed on the defaults all the same.
    assert!(
        sb.path(".ctxmon/checkpoints/cx-001-checkpoint.json")
            .is_file()
    );
    let run = run_statusline(&sb, &t, false);
    assert_in_time(&run, DEADLINE, "statusline with a FIFO config");
    assert_eq!(run.stdout.trim(), "ctx -- (config error)");
    assert!(run.stderr.contains(why), "{}", run.stderr);

    let shown = t.display().to_string();
    let run = sb.run_limited(&["status", "--transcript", &shown], Some(b""), KILL_AFTER);
    assert_eq!(run.code, 2, "a configuration error: {}", run.stderr);
    assert!(run.stderr.contains(why), "{}", run.stderr);
}

#[cfg(unix)]
#[test]
fn doctor_names_fifo_settings_config_and_hook_log_instead_of_hanging() {
    let sb = Sandbox::new();
    for rel in [
        ".claude/settings.json",
        ".ctxmon/config.toml",
        ".ctxmon/logs/hooks.log",
    ] {
        if sb.mkfifo(rel).is_none() {
            return;
        }
    }
    let run = sb.run_limited(&["doctor"], Some(b""), KILL_AFTER);
    assert_eq!(
        run.code, 1,
        "problems found: {}\n{}",
        run.stdout, run.stderr
    );
    assert!(run.elapsed < KILL_AFTER);
    for line in [
        ".claude/settings.json cannot be read (it is a FIFO, not a file)",
        "config.toml: it is a FIFO, not a regular file",
        "hooks.log is a FIFO, not a file",
    ] {
        assert!(run.stdout.contains(line), "{line:?} in:\n{}", run.stdout);
    }
    // install and uninstall refuse the settings file rather than wait on it.
    for cmd in ["install", "uninstall"] {
        let run = sb.run_limited(&[cmd], Some(b""), KILL_AFTER);
        assert_eq!(run.code, 1, "{cmd}: {}", run.stderr);
        assert!(
            run.stderr
                .contains("settings.json is a FIFO, not a settings file; nothing was changed"),
            "{cmd}: {}",
            run.stderr
        );
    }
}
