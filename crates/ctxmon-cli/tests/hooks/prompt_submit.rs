//! `ctxmon hooks prompt-submit` end to end, driven with Claude Code's JSON: answers, state,
//! events, injection policies and bad input of every kind (exit 0, valid answer or nothing).

use std::io::Write;
use std::process::Stdio;
use std::time::Duration;

use ctxmon_domain::estimate_tokens;

use crate::common;
use crate::common::{Sandbox, additional_context, transcript_with};

fn assert_no_answer_or_nominal(run: &common::Run, what: &str) {
    assert_eq!(run.code, 0, "{what}: {}", run.stderr);
    if !run.stdout.trim().is_empty() {
        let ctx = additional_context(&run.stdout, "UserPromptSubmit");
        assert!(ctx.contains("tier=\"NOMINAL\""), "{what}: {ctx}");
    }
}

#[test]
fn answers_with_a_well_formed_tag_within_budget() {
    let sb = Sandbox::new();
    let t = sb.write("t.jsonl", transcript_with(&[90_000, 170_000]));
    let run = sb.run(&["hooks", "prompt-submit"], sb.prompt_input("s-1", &t));
    assert_eq!(run.code, 0, "{}", run.stderr);
    let ctx = additional_context(&run.stdout, "UserPromptSubmit");
    let doc = roxmltree::Document::parse(&ctx).unwrap();
    assert_eq!(doc.root_element().tag_name().name(), "context-monitor");
    assert_eq!(doc.root_element().attribute("tier"), Some("CRITICAL"));
    assert_eq!(doc.root_element().attribute("tokens"), Some("170000"));
    let size = estimate_tokens(&ctx).get();
    assert!((40..=200).contains(&size), "{size}");
}

#[test]
fn state_and_events_follow_the_session() {
    let sb = Sandbox::new();
    let t = sb.path("t.jsonl");
    for tokens in [100_000u64, 120_000, 150_000, 150_500] {
        std::fs::write(&t, transcript_with(&[tokens])).unwrap();
        let run = sb.run(&["hooks", "prompt-submit"], sb.prompt_input("s-2", &t));
        assert_eq!(run.code, 0);
    }
    let events = std::fs::read_to_string(sb.path(".ctxmon/events.jsonl")).unwrap();
    let tiers: Vec<(String, String)> = events
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|v| v["event"] == "ContextThresholdReached")
        .map(|v| {
            (
                v["previous_tier"].as_str().unwrap().to_string(),
                v["new_tier"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        tiers,
        vec![
            ("nominal".into(), "low".into()),
            ("low".into(), "warning".into())
        ]
    );
    let state: serde_json::Value =
        serde_json::from_slice(&std::fs::read(sb.path(".ctxmon/state/s-2.json")).unwrap()).unwrap();
    assert_eq!(state["last_tier"], "warning");
    assert_eq!(state["last_tokens"], 150_500);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(sb.path(".ctxmon/events.jsonl"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
    }
}

#[test]
fn on_change_policy_from_the_project_config() {
    let sb = Sandbox::new();
    sb.write(
        ".ctxmon/config.toml",
        "[context_monitor]\ninject = \"on-change\"\n",
    );
    let t = sb.path("t.jsonl");
    let mut answered = Vec::new();
    for tokens in [100_000u64, 101_000, 150_000] {
        std::fs::write(&t, transcript_with(&[tokens])).unwrap();
        answered.push(
            !sb.run(&["hooks", "prompt-submit"], sb.prompt_input("s-3", &t))
                .stdout
                .trim()
                .is_empty(),
        );
    }
    assert_eq!(answered, vec![true, false, true]);
}

#[test]
fn env_overrides_reach_the_hook() {
    let mut sb = Sandbox::new();
    sb.set_env("CTXMON_CONTEXT_MONITOR__INJECT", "warning-and-above");
    let t = sb.write("t.jsonl", transcript_with(&[100_000]));
    let run = sb.run(&["hooks", "prompt-submit"], sb.prompt_input("s-4", &t));
    assert_eq!((run.code, run.stdout.trim()), (0, ""));
}

#[test]
fn bad_stdin_fails_open() {
    let sb = Sandbox::new();
    let t = sb.write("t.jsonl", transcript_with(&[150_000]));
    // 2 MB that no shortening of strings brings under the 1 MiB cap (a 2 MB prompt is read and
    // answered: `hooks/hook_input.rs`).
    let two_mb = "x".repeat(2 * 1024 * 1024);
    let no_path =
        r#"{"session_id":"s","hook_event_name":"UserPromptSubmit","prompt":"hi"}"#.to_string();
    let no_event = format!(
        r#"{{"session_id":"s","transcript_path":"{}"}}"#,
        t.display()
    );
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("empty stdin", Vec::new()),
        ("not JSON", b"hello there".to_vec()),
        ("2 MB", two_mb.into_bytes()),
        ("missing transcript_path", no_path.into_bytes()),
        ("non-UTF-8 stdin", vec![0xff, 0xfe, 0x00, 0x7b]),
    ];
    for (what, stdin) in cases {
        let run = sb.run(&["hooks", "prompt-submit"], stdin);
        assert_no_answer_or_nominal(&run, what);
        assert!(run.stdout.trim().is_empty(), "{what}: {}", run.stdout);
        assert!(!run.stderr.is_empty(), "{what}: the reason goes to stderr");
    }
    // Missing hook_event_name: every field but that one is optional, so the hook still answers.
    let run = sb.run(&["hooks", "prompt-submit"], no_event);
    assert_eq!(run.code, 0);
    assert!(additional_context(&run.stdout, "UserPromptSubmit").contains("WARNING"));
    let log = std::fs::read_to_string(sb.path(".ctxmon/logs/hooks.log")).unwrap();
    assert!(
        log.contains("stdin is empty") && log.contains("not JSON"),
        "{log}"
    );
}

#[test]
fn bad_transcripts_fail_open() {
    let sb = Sandbox::new();
    let empty = sb.write("empty.jsonl", "");
    let garbage = sb.write("garbage.jsonl", "garbage\n\u{1}\u{2}\n{\"type\":\n");
    let non_utf8 = sb.write("bin.jsonl", [0xc3, 0x28, b'\n', 0xff, b'\n']);
    let truncated = sb.write(
        "trunc.jsonl",
        format!(
            "{}{}",
            transcript_with(&[110_000]),
            &common::assistant_line("z", 190_000)[..80]
        ),
    );
    let wrong_type = sb.write(
        "wrong.jsonl",
        r#"{"type":"assistant","message":{"usage":{"input_tokens":{"a":1}}}}"#,
    );
    // A 50 MB single line of text after one good record: bounded work, no panic.
    let mut huge = transcript_with(&[130_000]).into_bytes();
    huge.extend(std::iter::repeat_n(b'a', 50 * 1024 * 1024));
    let huge = sb.write("huge.jsonl", huge);
    // The session's first prompt expects no file yet (Claude Code writes it after that
    // prompt): the missing case below is a later prompt, where a missing file is a problem.
    let first = sb.run(
        &["hooks", "prompt-submit"],
        sb.prompt_input("s-bad", &empty),
    );
    assert_eq!(first.code, 0, "{}", first.stderr);
    let cases = [
        ("missing", sb.path("nope.jsonl")),
        ("empty", empty),
        ("garbage", garbage),
        ("non-UTF-8", non_utf8),
        ("truncated last line", truncated.clone()),
        ("wrong type", wrong_type),
        ("directory", sb.dir().to_path_buf()),
        ("50 MB line", huge),
    ];
    for (what, path) in cases {
        let run = sb.run(&["hooks", "prompt-submit"], sb.prompt_input("s-bad", &path));
        if what == "truncated last line" {
            // The partial line is skipped; the complete record before it is the answer.
            assert!(
                additional_context(&run.stdout, "UserPromptSubmit").contains("tokens=\"110000\""),
                "{}",
                run.stdout
            );
            continue;
        }
        assert_no_answer_or_nominal(&run, what);
        assert!(
            run.elapsed < Duration::from_secs(5),
            "{what} took {:?}",
            run.elapsed
        );
        if what == "missing" {
            // The path came from Claude Code's JSON: that is what the advice names.
            assert!(
                run.stderr
                    .contains("check the transcript_path from the hook input"),
                "{}",
                run.stderr
            );
        }
    }
}

/// A transcript the hook may not read: exit 0 and no tier (nothing, or NOMINAL), the reason on
/// stderr. As root (tests and CI) the binary runs as nobody, or the file would simply be read.
#[cfg(unix)]
#[test]
fn an_unreadable_transcript_fails_open() {
    use std::os::unix::fs::PermissionsExt;
    let sb = Sandbox::new();
    let t = sb.write("t.jsonl", transcript_with(&[150_000]));
    std::fs::set_permissions(&t, std::fs::Permissions::from_mode(0o000)).unwrap();
    let input = sb.prompt_input("s", &t);
    let Some(run) = sb.run_where_modes_bind(&t, &["hooks", "prompt-submit"], input) else {
        return;
    };
    assert_no_answer_or_nominal(&run, "unreadable transcript");
    assert!(
        run.stderr.contains("cannot read transcript")
            && run
                .stderr
                .contains("permission denied, check its owner and mode"),
        "the transcript was really refused: {}",
        run.stderr
    );
}

/// One bad value must not make the hook present a tier computed on the wrong window: with the
/// project's 1M window dropped for the defaults, a 180k transcript read as EMERGENCY at 200k
/// (issue: "either a valid NOMINAL answer or nothing"). The hook injects no tag and names the
/// bad key and its file on stderr and in the hooks log.
#[test]
fn an_invalid_config_injects_no_tier_and_names_the_bad_key() {
    let sb = Sandbox::new();
    sb.write(
        ".ctxmon/config.toml",
        "[context_monitor]\ncontext_window = 1000000\n",
    );
    sb.write(".ctxmon/config.local.toml", "[hooks]\ndeadline_ms = 20\n");
    let t = sb.write("t.jsonl", transcript_with(&[180_000]));
    let run = sb.run(&["hooks", "prompt-submit"], sb.prompt_input("s", &t));
    assert_eq!((run.code, run.stdout.as_str()), (0, ""), "{}", run.stderr);
    for text in [
        run.stderr.clone(),
        std::fs::read_to_string(sb.path(".ctxmon/logs/hooks.log")).unwrap(),
    ] {
        assert!(
            text.contains("hooks.deadline_ms = 20")
                && text.contains(".ctxmon/config.local.toml")
                && text.contains("<context-monitor>"),
            "{text}"
        );
    }

    // The same with thresholds out of order: no tier from the built-in ones either.
    let sb = Sandbox::new();
    sb.write(
        ".ctxmon/config.toml",
        "[context_monitor]\nemergency_threshold = 7\n",
    );
    let t = sb.write("t.jsonl", transcript_with(&[150_000]));
    let run = sb.run(&["hooks", "prompt-submit"], sb.prompt_input("s", &t));
    assert_eq!((run.code, run.stdout.as_str()), (0, ""), "{}", run.stderr);
    assert!(run.stderr.contains("emergency_threshold"), "{}", run.stderr);
}

/// What does not depend on the window still works on the defaults: PreCompact saves its
/// checkpoint, and the next prompt delivers the compaction alert and the resumption context,
/// without a `<context-monitor>` tag.
#[test]
fn an_invalid_config_still_checkpoints_and_alerts() {
    let sb = Sandbox::new();
    sb.write(
        ".ctxmon/config.toml",
        "[context_monitor]\ncontext_window = 1000000\n",
    );
    sb.write(".ctxmon/config.local.toml", "[hooks]\ndeadline_ms = 20\n");
    let t = sb.write("t.jsonl", transcript_with(&[180_000]));
    // The agent's note: something to hand back beside the compaction's summary.
    sb.write(".ctxmon/notes/s.md", "Next: the VAT table.");
    let pre = sb.run(
        &["hooks", "pre-compact"],
        sb.hook_input(
            "PreCompact",
            "s",
            &t,
            serde_json::json!({"trigger": "auto"}),
        ),
    );
    assert_eq!(pre.code, 0, "{}", pre.stderr);
    assert!(
        sb.path(".ctxmon/checkpoints/cx-001-checkpoint.json")
            .is_file()
    );
    let run = sb.run(&["hooks", "prompt-submit"], sb.prompt_input("s", &t));
    assert_eq!(run.code, 0, "{}", run.stderr);
    let ctx = additional_context(&run.stdout, "UserPromptSubmit");
    assert!(ctx.contains("<compaction-alert"), "{ctx}");
    assert!(ctx.contains("<resumption-context"), "{ctx}");
    assert!(!ctx.contains("<context-monitor"), "{ctx}");
}

#[test]
fn a_read_only_ctxmon_folder_still_answers() {
    let sb = Sandbox::new();
    let t = sb.write("t.jsonl", transcript_with(&[150_000]));
    std::fs::write(sb.path(".ctxmon"), "a file where the folder should be").unwrap();
    let run = sb.run(&["hooks", "prompt-submit"], sb.prompt_input("s", &t));
    assert_eq!(run.code, 0);
    assert!(additional_context(&run.stdout, "UserPromptSubmit").contains("WARNING"));
    assert_eq!(
        std::fs::read_to_string(sb.path(".ctxmon")).unwrap(),
        "a file where the folder should be"
    );
}

#[test]
fn stdin_that_never_closes_hits_the_deadline() {
    let sb = Sandbox::new();
    let mut child = sb
        .command(&["hooks", "prompt-submit"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(b"{\"hook_event_name\":").unwrap();
    let started = std::time::Instant::now();
    let out = child.wait_with_output().unwrap();
    drop(stdin);
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stdout.is_empty());
    let elapsed = started.elapsed();
    assert!(
        elapsed >= Duration::from_millis(1_400) && elapsed < Duration::from_secs(6),
        "{elapsed:?}"
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("deadline"));
}

#[cfg(unix)]
#[test]
fn a_fifo_transcript_does_not_block() {
    let sb = Sandbox::new();
    let fifo = sb.path("pipe.jsonl");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    if !made.is_ok_and(|s| s.success()) {
        ctxmon_test_support::skip!("mkfifo unavailable; skipping");
        return;
    }
    let run = sb.run(&["hooks", "prompt-submit"], sb.prompt_input("s", &fifo));
    assert_eq!((run.code, run.stdout.trim()), (0, ""));
    assert!(run.elapsed < Duration::from_secs(2), "{:?}", run.elapsed);
}

#[test]
fn hostile_session_ids_stay_inside_the_state_folder() {
    let sb = Sandbox::new();
    let t = sb.write("t.jsonl", transcript_with(&[100_000]));
    for id in ["../../escape", &"x".repeat(10_000), "a/b"] {
        let run = sb.run(&["hooks", "prompt-submit"], sb.prompt_input(id, &t));
        assert_eq!(run.code, 0);
    }
    let names: Vec<String> = std::fs::read_dir(sb.path(".ctxmon/state"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    // One state file and one lock file per session, all named by the hashed key.
    assert_eq!(
        names.iter().filter(|n| n.ends_with(".json")).count(),
        3,
        "{names:?}"
    );
    assert_eq!(
        names.iter().filter(|n| n.ends_with(".lock")).count(),
        3,
        "{names:?}"
    );
    assert!(
        names.iter().all(|n| n.starts_with("h-") && n.len() < 40),
        "{names:?}"
    );
    assert!(!sb.dir().parent().unwrap().join("escape.json").exists());
}
