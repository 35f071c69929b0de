//! A busy machine never costs the checkpoint (contract C14): each hook runs under its own deadline,
//! stdin read included. Claude Code waits up to 10 s for PreCompact and SessionStart, so an
//! input that arrives 3 s late (a machine busy compiling) is still checkpointed and handed
//! back; the prompt, which the user waits for, keeps its short deadline and answers nothing.

// Test support: a panic is how a broken precondition fails the test.
#![allow(clippy::unwrap_used)]

use std::io::Write;
use std::time::Duration;

use serde_json::{Value, json};

use crate::common;
use crate::common::{Run, Sandbox, transcript_with};

/// How late the input arrives: twice the prompt's deadline, well inside PreCompact's.
const LATE: Duration = Duration::from_secs(3);
/// A run still going after this is a hang: it is killed and fails on its exit code.
const KILL_AFTER: Duration = Duration::from_secs(20);

/// Runs `args` and writes `stdin` only after `delay`, then closes it; a process still running
/// after [`KILL_AFTER`] is killed (code -1).
fn run_late(sb: &Sandbox, args: &[&str], stdin: String, delay: Duration) -> Run {
    let feed = move |mut input: std::process::ChildStdin| {
        std::thread::sleep(delay);
        // A hook that gave up has closed its end: the write fails, which is the point.
        let _ = input.write_all(stdin.as_bytes());
    };
    sb.run_fed(args, feed, KILL_AFTER).0
}

#[test]
fn a_pre_compact_whose_input_arrives_3_s_late_still_saves_its_checkpoint() {
    let sb = Sandbox::new();
    // 150,000 of 200,000 tokens.
    let t = sb.write("t.jsonl", transcript_with(&[150_000]));
    // The agent's note: beside a compaction's summary, what the hand-back carries.
    sb.write(".ctxmon/notes/s.md", "Next: the VAT table.");
    let input = sb.hook_input("PreCompact", "s", &t, json!({"trigger": "auto"}));
    let run = run_late(&sb, &["hooks", "pre-compact"], input, LATE);
    assert_eq!(run.code, 0, "exit code; stderr: {}", run.stderr);
    assert!(
        run.elapsed >= LATE,
        "it waited for its input: {:?}",
        run.elapsed
    );
    let v: Value = serde_json::from_str(run.stdout.trim())
        .unwrap_or_else(|e| panic!("one JSON answer ({e}): {:?}\n{}", run.stdout, run.stderr));
    assert_eq!(
        v["systemMessage"], "Checkpoint cx-001 saved at 75% context fill",
        "{v}"
    );
    assert!(!run.stderr.contains("deadline"), "{}", run.stderr);
    let checkpoint: Value = serde_json::from_str(
        &std::fs::read_to_string(sb.path(".ctxmon/checkpoints/cx-001-checkpoint.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(
        checkpoint["session_info"]["session_id"], "s",
        "{checkpoint}"
    );

    // SessionStart after the compaction, just as late, hands it back.
    let input = sb.hook_input("SessionStart", "s", &t, json!({"source": "compact"}));
    let run = run_late(&sb, &["hooks", "session-start"], input, LATE);
    assert_eq!(run.code, 0, "exit code; stderr: {}", run.stderr);
    let context = common::additional_context(&run.stdout, "SessionStart");
    assert!(
        context.contains("<resumption-context") && context.contains("cx-001"),
        "{context}\n{}",
        run.stderr
    );
}

#[test]
fn a_prompt_whose_input_arrives_3_s_late_answers_nothing_within_its_short_deadline() {
    let sb = Sandbox::new();
    let t = sb.write("t.jsonl", transcript_with(&[150_000]));
    let run = run_late(
        &sb,
        &["hooks", "prompt-submit"],
        sb.prompt_input("s", &t),
        LATE,
    );
    assert_eq!(run.code, 0, "exit code; stderr: {}", run.stderr);
    assert_eq!(run.stdout, "", "no answer past the deadline");
    assert!(
        run.stderr.contains("deadline of 1.5s reached"),
        "{}",
        run.stderr
    );
    // Its own 1.5 s, not PreCompact's: it was gone before the input came.
    assert!(run.elapsed < LATE, "{:?}", run.elapsed);
}

/// Every deadline key has one range: past it, `config set` and loading refuse the value
/// naming the key and the range, and the hook then runs on its built-in deadline (fail open).
/// Within it, a deadline past the timeout install registers is set with a note (doctor checks
/// the timeouts the settings files really register).
#[test]
fn a_deadline_out_of_range_is_refused_naming_key_and_limit() {
    let sb = Sandbox::new();
    let set = sb.run(
        &["config", "set", "hooks.pre_compact_deadline_ms", "600001"],
        "",
    );
    assert_eq!(set.code, 2, "{}", set.stderr);
    for needle in ["hooks.pre_compact_deadline_ms", "from 50 to 600000"] {
        assert!(set.stderr.contains(needle), "{needle}: {}", set.stderr);
    }
    let set = sb.run(
        &["config", "set", "hooks.pre_compact_deadline_ms", "7500"],
        "",
    );
    assert_eq!(set.code, 0, "{}", set.stderr);
    assert!(
        set.stderr.contains("PreCompact (10 s timeout)"),
        "{}",
        set.stderr
    );

    sb.write(
        ".ctxmon/config.toml",
        "[hooks]\nprompt_submit_deadline_ms = 0\n",
    );
    let show = sb.run(&["config", "show"], "");
    assert_eq!(show.code, 2, "{}", show.stderr);
    assert!(
        show.stderr
            .contains("hooks.prompt_submit_deadline_ms = 0 from ")
            && show.stderr.contains("from 50 to 600000"),
        "{}",
        show.stderr
    );
    let t = sb.write("t.jsonl", transcript_with(&[150_000]));
    let input = sb.hook_input("PreCompact", "s", &t, json!({"trigger": "auto"}));
    let run = sb.run(&["hooks", "pre-compact"], input);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout.contains("Checkpoint cx-001 saved"),
        "{}",
        run.stdout
    );
    assert!(
        run.stderr.contains("hooks.prompt_submit_deadline_ms = 0"),
        "{}",
        run.stderr
    );
}
