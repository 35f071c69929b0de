//! `.ctxmon/` on a full and on a read-only file system (contract C14, C15). Every hook and
//! the status line still exit 0 in time with a valid (possibly empty) answer and say what went
//! wrong on stderr (and in `hooks.log` where it can still be written); the commands that write
//! (`checkpoint ack`, `resume-log generate`, `config set`) fail with a clear message and exit 1;
//! and the checkpoint, resume log, state, events and configuration written before are left
//! byte for byte as they were.
//!
//! The file systems are real: a 64 KiB tmpfs filled to its last block and inode, or remounted
//! read-only (see `common/mounts.rs` for the fallbacks where mounting is not permitted).
#![cfg(unix)]
// Test helpers: a panic is how a broken precondition fails the test.
#![allow(clippy::unwrap_used)]

mod common;

use std::path::{Path, PathBuf};
use std::time::Duration;

use ctxmon_domain::{DomainEvent, EventRecord, Timestamp};
use mounts::{Built, Hostile, HostileProject};
use serde_json::{Value, json};

use crate::common::disk;
use crate::common::mounts;
use crate::common::{Run, Sandbox, transcript_with};

/// Claude Code's shortest hook timeout (prompt-submit, pre-tool-use, …): whatever the disk
/// does, a hook must be done well before it.
const CLAUDE_TIMEOUT: Duration = Duration::from_secs(5);

/// The seven hooks: command, event name, extra input fields.
fn hooks() -> Vec<(&'static str, &'static str, Value)> {
    vec![
        (
            "prompt-submit",
            "UserPromptSubmit",
            json!({"prompt": "go on"}),
        ),
        (
            "session-start",
            "SessionStart",
            json!({"source": "compact"}),
        ),
        ("pre-compact", "PreCompact", json!({"trigger": "auto"})),
        (
            "pre-tool-use",
            "PreToolUse",
            json!({"tool_name": "Edit", "tool_input": {"file_path": "ORCHESTRATION.yaml", "old_string": "a", "new_string": "b"}}),
        ),
        (
            "post-tool-use",
            "PostToolUse",
            json!({"tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_response": {"stdout": "a"}}),
        ),
        ("post-compact", "PostCompact", json!({"trigger": "auto"})),
        ("session-end", "SessionEnd", json!({"reason": "logout"})),
    ]
}

/// Exit 0 and, on stdout, nothing or exactly one answer of the hook's shape.
fn assert_valid_answer(hook: &str, event: &str, run: &Run) {
    assert_eq!(run.code, 0, "{hook}: {}", run.stderr);
    assert!(
        run.elapsed < CLAUDE_TIMEOUT,
        "{hook} took {:?}",
        run.elapsed
    );
    assert!(!run.stderr.contains("panicked"), "{hook}: {}", run.stderr);
    if run.stdout.is_empty() {
        return;
    }
    assert_eq!(run.stdout.lines().count(), 1, "{hook}: {:?}", run.stdout);
    let v: Value = serde_json::from_str(&run.stdout)
        .unwrap_or_else(|e| panic!("{hook}: not JSON ({e}): {:?}", run.stdout));
    if hook == "pre-compact" {
        assert!(v["systemMessage"].is_string(), "{v}");
        return;
    }
    let out = &v["hookSpecificOutput"];
    assert_eq!(out["hookEventName"], event, "{v}");
    let text = out["additionalContext"].as_str().unwrap();
    roxmltree::Document::parse(&format!("<all>{text}</all>"))
        .unwrap_or_else(|e| panic!("{hook}: not well-formed ({e}): {text}"));
    // PreToolUse adds context only: a permission decision would skip the user's prompt.
    assert_eq!(out.as_object().unwrap().len(), 2, "{v}");
}

/// A valid `events.jsonl` line of exactly `len` bytes (newline included).
fn padding_line(len: usize) -> String {
    let line = |reason: String| {
        let record = EventRecord::new(
            Timestamp(0),
            Some("padding".into()),
            DomainEvent::SessionEnded { reason },
        );
        serde_json::to_string(&record).unwrap() + "\n"
    };
    let empty = line(String::new()).len();
    assert!(len >= empty, "{len} < {empty}");
    let padded = line("p".repeat(len - empty));
    assert_eq!(padded.len(), len);
    padded
}

/// What ctxmon writes in a healthy project (beside the agent's note): a checkpoint (left
/// unacknowledged), a resume-log
/// pair from the agent's document, the session's state, events, configuration and a hook log.
/// The events file is padded to end 16 bytes before a 4 KiB page boundary, so the next append
/// on a full tmpfs gets only part of its line onto the disk.
fn write_history(sb: &Sandbox, transcript: &Path) {
    sb.write(".ctxmon/config.toml", "[hooks]\ndeadline_ms = 1500\n");
    // The agent's note: beside a compaction's summary, what the hand-back carries.
    sb.write(
        ".ctxmon/notes/old.md",
        "Keep the billing refactor; tax.rs next.",
    );
    let pre = sb.run(
        &["hooks", "pre-compact"],
        sb.hook_input("PreCompact", "old", transcript, json!({"trigger": "auto"})),
    );
    assert!(pre.stdout.contains("cx-001"), "{}", pre.stderr);
    let doc = sb.write(
        "handoff.json",
        json!({"mission_summary": "Keep the billing refactor", "next_steps": ["Write tax.rs"]})
            .to_string(),
    );
    let generate = sb.run(
        &[
            "resume-log",
            "generate",
            "--session",
            "old",
            "--from",
            doc.to_str().unwrap(),
        ],
        "",
    );
    assert_eq!(generate.code, 0, "{}", generate.stderr);
    // A misrouted event is a warning: it starts the hook log.
    sb.run(
        &["hooks", "prompt-submit"],
        sb.hook_input("PreCompact", "old", transcript, json!({})),
    );
    assert!(sb.path(".ctxmon/logs/hooks.log").exists());
    let events = sb.path(".ctxmon/events.jsonl");
    let len = std::fs::metadata(&events).unwrap().len() as usize;
    let room = 4096 - len % 4096;
    let pad = if room > 16 + 200 {
        room - 16
    } else {
        room + 4096 - 16
    };
    let mut text = std::fs::read_to_string(&events).unwrap();
    text.push_str(&padding_line(pad));
    std::fs::write(&events, text).unwrap();
    assert_eq!(std::fs::metadata(&events).unwrap().len() % 4096, 4096 - 16);
}

/// The whole contract on one hostile `.ctxmon`; returns the number of processes run.
fn every_hook_and_command_on(kind: Hostile) -> usize {
    let mut project = HostileProject::new(kind);
    let transcript = project
        .sb
        .write("t.jsonl", transcript_with(&[90_000, 170_000]));
    if project.built.has_earlier_files() {
        write_history(&project.sb, &transcript);
    }
    project.seal();
    let before = project.snapshot();
    let built = project.built;
    let sb = &project.sb;
    let log_before = std::fs::read(sb.path(".ctxmon/logs/hooks.log")).unwrap_or_default();
    let mut processes = 0;

    for session in ["old", "new"] {
        for (hook, event, extra) in hooks() {
            let run = sb.run(
                &["hooks", hook],
                sb.hook_input(event, session, &transcript, extra),
            );
            processes += 1;
            assert_valid_answer(hook, event, &run);
            let says_why = run.stderr.contains(built.error_text());
            // pre-tool-use may need no write at all (the session's lock file exists already),
            // nor post-tool-use when the tier did not rise (`old`, after its checkpoint, is at
            // the post-compaction estimate).
            let may_not_write =
                hook == "pre-tool-use" || (hook == "post-tool-use" && session == "old");
            if !may_not_write {
                assert!(says_why, "{hook} {session} ({built:?}): {:?}", run.stderr);
            }
            match hook {
                // Measuring needs no disk: the tag is there whatever the folder does (for
                // `old`, after its checkpoint, with the post-compaction estimate).
                "prompt-submit" => {
                    assert!(run.stdout.contains("<context-monitor"), "{}", run.stdout);
                    if session == "new" {
                        assert!(
                            run.stdout.contains("tier=\\\"CRITICAL\\\""),
                            "{}",
                            run.stdout
                        );
                    }
                }
                // CRITICAL for `new`, but a tag whose record cannot be saved would follow
                // every tool call: none goes.
                "post-tool-use" => assert_eq!(run.stdout, "", "{session}"),
                "session-start" if session == "old" && built.has_earlier_files() => {
                    assert!(run.stdout.contains("resumption-context"), "{}", run.stdout)
                }
                _ => {}
            }
        }
    }
    let status = sb.run(
        &["statusline"],
        json!({"session_id": "new", "transcript_path": transcript, "cwd": sb.dir(), "model": {"id": "claude-sonnet-4-5"}})
            .to_string(),
    );
    processes += 1;
    assert_eq!(status.code, 0, "{}", status.stderr);
    assert_eq!(status.stdout.lines().count(), 1, "{:?}", status.stdout);
    assert!(status.stdout.contains("85%"), "{}", status.stdout);
    assert!(status.elapsed < CLAUDE_TIMEOUT);

    // Commands that write: a clear error, exit 1.
    let doc = sb.write(
        "handoff-2.json",
        json!({"mission_summary": "A newer plan"}).to_string(),
    );
    let commands: [(&[&str], &str); 3] = [
        (&["checkpoint", "ack", "cx-001"], "cx-001"),
        (
            &[
                "resume-log",
                "generate",
                "--session",
                "old",
                "--from",
                doc.to_str().unwrap(),
            ],
            "cannot save the resume log",
        ),
        (
            &["config", "set", "hooks.deadline_ms", "2000"],
            "config.toml",
        ),
    ];
    for (args, names) in commands {
        let run = sb.run(args, "");
        processes += 1;
        // With `.ctxmon` a regular file even the configuration cannot be read: exit 2.
        let expected: &[i32] = if built == Built::RegularFile {
            &[1, 2]
        } else {
            &[1]
        };
        assert!(
            expected.contains(&run.code),
            "{args:?} ({built:?}) exits {}: {}",
            run.code,
            run.stderr
        );
        assert!(run.stdout.is_empty(), "{args:?}: {}", run.stdout);
        let names = if built == Built::RegularFile {
            ".ctxmon"
        } else {
            names
        };
        assert!(
            run.stderr.contains(names) && run.stderr.contains(built.error_text()),
            "{args:?} ({built:?}) names the file and the reason: {}",
            run.stderr
        );
    }

    // Nothing written before was damaged, and nothing half-written appeared.
    let after = project.snapshot();
    let log_path = sb.path(".ctxmon/logs/hooks.log");
    let without_log = |files: &[(PathBuf, Vec<u8>)]| -> Vec<(PathBuf, Vec<u8>)> {
        files
            .iter()
            .filter(|(p, _)| *p != log_path)
            .cloned()
            .collect()
    };
    let (before_files, after_files) = (without_log(&before), without_log(&after));
    for ((path, old), (new_path, new)) in before_files.iter().zip(&after_files) {
        assert_eq!(path, new_path, "a file appeared or went");
        assert!(old == new, "{} changed", path.display());
    }
    assert_eq!(before_files.len(), after_files.len(), "{after_files:?}");
    if built.has_earlier_files() {
        assert!(before_files.len() >= 8, "{before_files:?}");
        let disk = disk::audit(sb.dir());
        assert!(disk.unpaired_logs.is_empty());
        assert_eq!(disk.checkpoints.len(), 1);
        // The hook log takes what still fits (a full tmpfs has room left in its last page).
        let log_after = std::fs::read(&log_path).unwrap();
        assert!(
            log_after.starts_with(&log_before),
            "hooks.log kept its lines"
        );
        if built == Built::FullTmpfs {
            let added = String::from_utf8_lossy(&log_after[log_before.len()..]).into_owned();
            assert!(added.contains(built.error_text()), "{added}");
        }
    }
    eprintln!(
        "hostile fs ({built:?}): {processes} processes, {} files checked byte for byte",
        before_files.len()
    );
    processes
}

#[test]
fn a_full_ctxmon_fails_open_and_damages_nothing() {
    every_hook_and_command_on(Hostile::Full);
}

#[test]
fn a_read_only_ctxmon_fails_open_and_damages_nothing() {
    every_hook_and_command_on(Hostile::ReadOnly);
}

/// A resume log whose JSON still fits on the disk but whose markdown does not: the old pair
/// must stand (before, the new JSON was renamed into place and the markdown write then failed,
/// leaving the JSON of one log beside the markdown of another).
#[test]
fn a_resume_log_that_fits_only_half_way_leaves_the_old_pair() {
    let big_doc = json!({
        "mission_summary": "The big plan",
        "accomplishments": (0..200).map(|i| format!("done {i} {}", "a".repeat(400))).collect::<Vec<_>>(),
        "next_steps": (0..200).map(|i| format!("next {i} {}", "n".repeat(400))).collect::<Vec<_>>(),
    })
    .to_string();
    // The sizes the big log takes, measured on an ordinary disk.
    let measure = Sandbox::new();
    let doc = measure.write("big.json", &big_doc);
    let args = |doc: &Path| -> Vec<String> {
        ["resume-log", "generate", "--session", "s", "--from"]
            .into_iter()
            .map(String::from)
            .chain([doc.display().to_string()])
            .collect()
    };
    let run = |sb: &Sandbox, doc: &Path| {
        let args = args(doc);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        sb.run(&args, "")
    };
    assert_eq!(run(&measure, &doc).code, 0);
    let pages = |p: PathBuf| std::fs::metadata(p).unwrap().len().div_ceil(4096);
    let json_pages = pages(measure.path(".ctxmon/resume-logs/session-s.json"));
    let md_pages = pages(measure.path(".ctxmon/resume-logs/session-s.md"));
    assert!(
        md_pages >= 2,
        "the markdown needs more than the one page left"
    );

    let sb = Sandbox::new();
    let Some(_mount) = mounts::Mount::tmpfs(&sb.path(".ctxmon"), "size=4m,mode=0700") else {
        ctxmon_test_support::skip!("a partly full disk needs a tmpfs; not tested here");
        return;
    };
    let small = sb.write(
        "small.json",
        json!({"mission_summary": "The small plan"}).to_string(),
    );
    assert_eq!(run(&sb, &small).code, 0);
    let pair = |sb: &Sandbox| {
        ["json", "md"].map(|ext| {
            std::fs::read(sb.path(&format!(".ctxmon/resume-logs/session-s.{ext}"))).unwrap()
        })
    };
    let before = pair(&sb);
    // Room for the new JSON and one page more: not for the markdown too.
    mounts::fill_leaving(&sb.path(".ctxmon"), "zz-filler", (json_pages + 1) * 4096);
    let big = sb.write("big.json", &big_doc);
    let failed = run(&sb, &big);
    assert_eq!(failed.code, 1, "{}", failed.stderr);
    assert!(
        failed.stderr.contains("No space left on device"),
        "{}",
        failed.stderr
    );
    assert!(before == pair(&sb), "the old pair stands, both files");
    let disk = disk::audit(sb.dir());
    assert!(disk.unpaired_logs.is_empty(), "{:?}", disk.unpaired_logs);
    assert!(disk.temps.is_empty(), "{:?}", disk.temps);
    assert_eq!(disk.logs["s"].mission_summary, "The small plan");
}
