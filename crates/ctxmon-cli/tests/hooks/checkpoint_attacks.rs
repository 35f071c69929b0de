//! Checkpoints against a folder someone else touched, with the real binary: an alert whose
//! answer never reached the agent is not marked as given (nor is a hand-back), one planted file cannot stop every
//! later checkpoint, a session's compaction count survives losing its mark, and a session
//! started again is told the truth about the checkpoints it has.

// Test helpers: a panic is how a broken precondition fails the test.
#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};
use std::process::Stdio;

use serde_json::{Value, json};

use crate::common::disk;
use crate::common::{Run, Sandbox, assistant_line_at};

fn transcript(sb: &Sandbox, session: &str) -> PathBuf {
    sb.write(
        &format!("{session}.jsonl"),
        assistant_line_at("a1", 170_000, "2026-11-20T09:59:00.000Z") + "\n",
    )
}

fn pre_compact(sb: &Sandbox, session: &str, t: &Path) -> Run {
    let input = sb.hook_input("PreCompact", session, t, json!({"trigger": "auto"}));
    sb.run(&["hooks", "pre-compact"], input)
}

fn prompt(sb: &Sandbox, session: &str, t: &Path) -> Run {
    let input = sb.hook_input("UserPromptSubmit", session, t, json!({"prompt": "go on"}));
    sb.run(&["hooks", "prompt-submit"], input)
}

/// `{"systemMessage":"Checkpoint cx-NNN saved at N% context fill"}` → NNN, or `None` when the
/// hook saved nothing.
fn saved(run: &Run) -> Option<u32> {
    assert_eq!(run.code, 0, "{}", run.stderr);
    let v: Value = serde_json::from_str(run.stdout.trim()).ok()?;
    v["systemMessage"]
        .as_str()?
        .strip_prefix("Checkpoint cx-")?
        .split(' ')
        .next()?
        .parse()
        .ok()
}

fn alerted(run: &Run) -> bool {
    assert_eq!(run.code, 0, "{}", run.stderr);
    run.stdout.contains("<compaction-alert")
}

fn checkpoints(sb: &Sandbox) -> PathBuf {
    sb.path(".ctxmon/checkpoints")
}

#[test]
fn an_alert_whose_answer_could_not_be_written_is_given_again() {
    let sb = Sandbox::new();
    let t = transcript(&sb, "s");
    assert_eq!(saved(&pre_compact(&sb, "s", &t)), Some(1));
    // The prompt's answer goes nowhere: stdout is a full device.
    let input = sb.hook_input("UserPromptSubmit", "s", &t, json!({"prompt": "go on"}));
    if !answer_into_full_device(&sb, &["hooks", "prompt-submit"], &input) {
        return;
    }
    assert!(
        !checkpoints(&sb).join("cx-001.acknowledged").exists(),
        "acknowledged although the alert never left the process"
    );
    // The next prompt gives the alert, and only then is it acknowledged.
    assert!(alerted(&prompt(&sb, "s", &t)));
    assert!(checkpoints(&sb).join("cx-001.acknowledged").exists());
    assert!(!alerted(&prompt(&sb, "s", &t)));
}

/// A stdout closed when the hook starts (`>&-`) takes every write (the runtime puts the null
/// device there), yet the alert reaches nobody: it stays for the next prompt, as with a
/// failed write.
#[test]
fn an_alert_answered_into_a_closed_stdout_is_given_again() {
    let sb = Sandbox::new();
    let t = transcript(&sb, "s");
    assert_eq!(saved(&pre_compact(&sb, "s", &t)), Some(1));
    let input = sb.hook_input("UserPromptSubmit", "s", &t, json!({"prompt": "go on"}));
    for redirect in [">&-", ">/dev/null"] {
        // The sandbox's environment and folder, with the shell doing the redirection.
        let template = sb.command(&[]);
        let mut sh = std::process::Command::new("sh");
        sh.args([
            "-c",
            &format!("exec \"$0\" hooks prompt-submit {redirect}"),
            env!("CARGO_BIN_EXE_ctxmon"),
        ])
        .env_clear()
        .envs(template.get_envs().filter_map(|(k, v)| Some((k, v?))))
        .current_dir(template.get_current_dir().unwrap())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
        let mut child = sh.spawn().unwrap();
        std::io::Write::write_all(&mut child.stdin.take().unwrap(), input.as_bytes()).unwrap();
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{redirect}");
        assert!(
            !checkpoints(&sb).join("cx-001.acknowledged").exists(),
            "{redirect}: acknowledged although the alert reached nobody"
        );
    }
    assert!(alerted(&prompt(&sb, "s", &t)));
    assert!(checkpoints(&sb).join("cx-001.acknowledged").exists());
}

/// Runs `args` with `input` and stdout on `/dev/full`, so its answer is lost; false (with a
/// visible skip) where there is no such device.
fn answer_into_full_device(sb: &Sandbox, args: &[&str], input: &str) -> bool {
    let Ok(full) = std::fs::OpenOptions::new().write(true).open("/dev/full") else {
        ctxmon_test_support::skip!("/dev/full unavailable; skipping");
        return false;
    };
    let mut cmd = sb.command(args);
    cmd.stdin(Stdio::piped())
        .stdout(Stdio::from(full))
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), input.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    true
}

#[test]
fn a_hand_back_whose_answer_could_not_be_written_is_given_at_the_next_prompt() {
    let sb = Sandbox::new();
    let request = json!({"type": "user", "message": {"role": "user", "content": "Move the billing rules into tax.rs"}});
    let t = sb.write(
        "s.jsonl",
        format!(
            "{request}\n{}\n",
            assistant_line_at("a1", 170_000, "2026-11-20T09:59:00.000Z")
        ),
    );
    // The agent's note: beside the summary it is what the hand-back carries.
    sb.write(
        ".ctxmon/notes/s.md",
        "Billing rules move to tax.rs; next the VAT table.",
    );
    assert_eq!(saved(&pre_compact(&sb, "s", &t)), Some(1));
    // SessionStart's answer goes nowhere.
    let input = sb.hook_input("SessionStart", "s", &t, json!({"source": "compact"}));
    if !answer_into_full_device(&sb, &["hooks", "session-start"], &input) {
        return;
    }
    let first = prompt(&sb, "s", &t);
    assert!(alerted(&first));
    assert!(
        first
            .stdout
            .contains("<resumption-context checkpoint=\\\"cx-001\\\"")
            && first
                .stdout
                .contains("Billing rules move to tax.rs; next the VAT table."),
        "the work is handed back at the first prompt: {}",
        first.stdout
    );
    assert!(!prompt(&sb, "s", &t).stdout.contains("<resumption-context"));
}

#[test]
fn one_planted_file_does_not_stop_every_checkpoint() {
    let plants: [(&str, &str); 4] = [
        ("cx-999999999.acknowledged", ""),
        ("cx-999999999-checkpoint.json", ""),
        (".next-id", "4294967295\n"),
        (".next-id", "999999999\n"),
    ];
    for (name, content) in plants {
        let sb = Sandbox::new();
        let t = transcript(&sb, "s");
        assert_eq!(saved(&pre_compact(&sb, "s", &t)), Some(1));
        std::fs::write(checkpoints(&sb).join(name), content).unwrap();
        for _ in 0..3 {
            let run = pre_compact(&sb, "s", &t);
            assert!(
                saved(&run).is_some_and(|n| n < 999_999_999),
                "{name} {content:?}: {} {}",
                run.stdout,
                run.stderr
            );
        }
    }
}

#[test]
fn a_planted_marker_does_not_silence_the_next_checkpoints_alert() {
    let sb = Sandbox::new();
    let t = transcript(&sb, "s");
    assert_eq!(saved(&pre_compact(&sb, "s", &t)), Some(1));
    assert!(alerted(&prompt(&sb, "s", &t)));
    std::fs::write(checkpoints(&sb).join("cx-002.acknowledged"), "").unwrap();
    assert_eq!(saved(&pre_compact(&sb, "s", &t)), Some(2));
    assert!(alerted(&prompt(&sb, "s", &t)), "cx-002 came acknowledged");
}

/// A copied checkpoint renamed to the last id, with `.next-id` deleted, used to make every
/// later PreCompact fail with "ids are exhausted": the series goes on below it, and the hook
/// log names the file.
#[test]
fn a_checkpoint_at_the_last_id_does_not_use_up_the_ids() {
    let sb = Sandbox::new();
    let t = transcript(&sb, "s");
    assert_eq!(saved(&pre_compact(&sb, "s", &t)), Some(1));
    let dir = checkpoints(&sb);
    let text = std::fs::read_to_string(dir.join("cx-001-checkpoint.json")).unwrap();
    let mut v: Value = serde_json::from_str(&text).unwrap();
    v["checkpoint_id"] = json!("cx-999999999");
    std::fs::write(
        dir.join("cx-999999999-checkpoint.json"),
        serde_json::to_vec(&v).unwrap(),
    )
    .unwrap();
    std::fs::remove_file(dir.join(".next-id")).unwrap();
    assert_eq!(saved(&pre_compact(&sb, "s", &t)), Some(2));
    assert_eq!(saved(&pre_compact(&sb, "s", &t)), Some(3));
    let log = std::fs::read_to_string(sb.path(".ctxmon/logs/hooks.log")).unwrap();
    assert!(
        log.contains("cx-999999999-checkpoint.json") && log.contains("cx-002 was given"),
        "the log must name the file: {log}"
    );
}

#[test]
fn a_lost_sequence_mark_does_not_restart_the_count() {
    for damage in [None, Some("garbage\n")] {
        let sb = Sandbox::new();
        let t = transcript(&sb, "s");
        for n in 1..=3 {
            assert_eq!(saved(&pre_compact(&sb, "s", &t)), Some(n));
        }
        let mark = checkpoints(&sb).join(".seq-s");
        match damage {
            None => std::fs::remove_file(&mark).unwrap(),
            Some(text) => std::fs::write(&mark, text).unwrap(),
        }
        assert_eq!(saved(&pre_compact(&sb, "s", &t)), Some(4));
        let sequences: Vec<u32> = disk::audit(sb.dir())
            .checkpoints_of("s")
            .iter()
            .map(|c| c.compaction_sequence)
            .collect();
        assert_eq!(sequences, [1, 2, 3, 4], "{damage:?}");
    }
}

/// Thousands of other sessions' checkpoints, none acknowledged, all newer than the session's
/// own: the session's alert and its handback are still found. Looking through the folder
/// newest first (with a bound on the files read, as prompt-submit must on every call) never
/// reached the session's own checkpoint.
#[test]
fn a_sessions_own_checkpoint_is_found_among_thousands_of_others() {
    const OTHERS: u32 = 3_000;
    let sb = Sandbox::new();
    let t = transcript(&sb, "s");
    let dir = checkpoints(&sb);
    // The agent's note: something to hand back beside the compaction's summary.
    sb.write(".ctxmon/notes/s.md", "Next: the VAT table.");
    assert_eq!(saved(&pre_compact(&sb, "s", &t)), Some(1));
    let own = std::fs::read_to_string(dir.join("cx-001-checkpoint.json")).unwrap();
    let mut other: Value = serde_json::from_str(&own).unwrap();
    for n in 2..=OTHERS + 1 {
        other["checkpoint_id"] = json!(format!("cx-{n:03}"));
        other["session_info"]["session_id"] = json!(format!("other-{n}"));
        std::fs::write(
            dir.join(format!("cx-{n:03}-checkpoint.json")),
            serde_json::to_vec(&other).unwrap(),
        )
        .unwrap();
    }
    std::fs::write(dir.join(".next-id"), format!("{}\n", OTHERS + 2)).unwrap();
    let input = sb.hook_input("SessionStart", "s", &t, json!({"source": "compact"}));
    let start = sb.run(&["hooks", "session-start"], input);
    assert_eq!(start.code, 0);
    assert!(
        start.stdout.contains("checkpoint=\\\"cx-001\\\""),
        "the session's own checkpoint was not handed back: {}",
        start.stdout
    );
    assert!(alerted(&prompt(&sb, "s", &t)));
    assert!(dir.join("cx-001.acknowledged").exists());
}

/// A session resumed after its checkpoints were all handed back: the pointer to its resume
/// log says so, instead of "No checkpoint to restore" while checkpoints exist.
#[test]
fn a_resumed_session_is_told_what_checkpoints_it_has() {
    use crate::common::resume_log::{SESSION, transcript as claude_transcript};
    let sb = Sandbox::new();
    let t = claude_transcript(&sb, SESSION);
    assert_eq!(saved(&pre_compact(&sb, SESSION, &t)), Some(1));
    assert!(alerted(&prompt(&sb, SESSION, &t)));
    let input = sb.hook_input("SessionStart", SESSION, &t, json!({"source": "resume"}));
    let start = sb.run(&["hooks", "session-start"], input);
    assert_eq!(start.code, 0, "{}", start.stderr);
    assert!(start.stdout.contains("resume-log"), "{}", start.stdout);
    assert!(
        !start.stdout.contains("No checkpoint to restore"),
        "{}",
        start.stdout
    );
    assert!(start.stdout.contains("cx-001"), "{}", start.stdout);
}

/// `checkpoint list` names tiers as the rest of ctxmon does (CRITICAL), and `checkpoint
/// show` says which branch is git's and which the transcript's.
#[test]
fn checkpoint_text_names_tiers_and_branches_plainly() {
    let sb = Sandbox::new();
    let t = transcript(&sb, "s");
    assert_eq!(saved(&pre_compact(&sb, "s", &t)), Some(1));
    let dir = checkpoints(&sb);
    let path = dir.join("cx-001-checkpoint.json");
    let mut v: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    v["session_info"]["git_branch"] = json!("live-branch");
    v["resumption_state"]["git_branch"] = json!("transcript-branch");
    std::fs::write(&path, serde_json::to_vec(&v).unwrap()).unwrap();
    let list = sb.run(&["checkpoint", "list"], "");
    assert_eq!(list.code, 0, "{}", list.stderr);
    assert!(list.stdout.contains("CRITICAL"), "{}", list.stdout);
    assert!(!list.stdout.contains("critical"), "{}", list.stdout);
    let show = sb.run(&["checkpoint", "show", "1"], "");
    assert_eq!(show.code, 0, "{}", show.stderr);
    let line = |needle: &str| {
        show.stdout
            .lines()
            .find(|l| l.contains(needle))
            .unwrap_or_else(|| panic!("{needle}: {}", show.stdout))
            .to_string()
    };
    assert!(line("live-branch").contains("git"), "{}", show.stdout);
    assert!(
        line("transcript-branch").contains("transcript"),
        "{}",
        show.stdout
    );
}
