//! Ids as people type them: `checkpoint show 1`, `cx-1` and `cx-001` are
//! one checkpoint; `resume-log show` takes any unique beginning of a session id (the tables cut
//! long ids, and what they show must work), an ambiguous one is a usage error naming the
//! candidates; `checkpoint list` and `resume-log list` both put the newest first; `checkpoint
//! show` is a page for people, JSON with `--json`.

// Test helpers: a panic is how a broken precondition fails the test.
#![allow(clippy::unwrap_used)]

use serde_json::{Value, json};

use crate::common::{Sandbox, transcript_with};

const FIRST: &str = "7f3a9c21-0b1c-4d2e-9f00-aaaaaaaaaaaa";
const SECOND: &str = "7f3a9c21-0b1c-4d2e-9f00-bbbbbbbbbbbb";

/// A compaction of `session` as Claude Code reports it: PreCompact over a transcript at
/// `tokens`, with a typed request and a todo list, so the checkpoint has something to show.
fn compact(sb: &Sandbox, session: &str, tokens: u64) {
    let request = json!({"type": "user", "isSidechain": false, "uuid": format!("q-{session}"),
        "timestamp": "2026-11-20T09:59:00.000Z",
        "message": {"role": "user", "content": "Add the tax rules to billing"}});
    let transcript = format!("{request}\n{}", transcript_with(&[20_000, tokens]));
    let path = sb.write(&format!("t/{session}.jsonl"), transcript);
    let input = json!({
        "session_id": session, "transcript_path": path, "cwd": sb.dir(),
        "hook_event_name": "PreCompact", "trigger": "auto", "custom_instructions": "",
    });
    let run = sb.run(&["hooks", "pre-compact"], input.to_string());
    assert_eq!(run.code, 0, "{}", run.stderr);
}

fn log_for(sb: &Sandbox, session: &str) {
    let run = sb.run(
        &[
            "resume-log",
            "generate",
            "--session",
            session,
            "--from",
            "-",
        ],
        json!({"mission_summary": format!("work of {session}")}).to_string(),
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    // Logs are ordered by the millisecond they were written.
    std::thread::sleep(std::time::Duration::from_millis(5));
}

#[test]
fn a_checkpoint_is_the_same_whichever_way_its_id_is_typed() {
    let sb = Sandbox::new();
    compact(&sb, FIRST, 170_000);
    let page = sb.run(&["checkpoint", "show", "cx-001"], "");
    assert_eq!(page.code, 0, "{}", page.stderr);
    for typed in ["1", "001", "cx-1", "CX-001", " cx-01 "] {
        let run = sb.run(&["checkpoint", "show", typed], "");
        assert_eq!(run.code, 0, "{typed:?}: {}", run.stderr);
        assert_eq!(run.stdout, page.stdout, "{typed:?}");
    }
    let text = &page.stdout;
    // A page for people: the facts with separators, the percentage and the tier; times local.
    assert!(
        text.starts_with("cx-001 · 2026-") && text.lines().next().unwrap().contains(" +00:00 · "),
        "{text}"
    );
    assert!(
        text.contains("auto compaction · not acknowledged yet"),
        "{text}"
    );
    assert!(
        text.contains("170,000 of 200,000 tokens, 85%, CRITICAL (source transcript)"),
        "{text}"
    );
    assert!(
        text.contains(&format!("{FIRST} (its compaction 1)")),
        "{text}"
    );
    assert!(
        text.contains("last request   Add the tax rules to billing"),
        "{text}"
    );
    // The session's first request is named as what it is, not as its goal: the work may
    // have moved on since.
    assert!(
        text.contains("first request  ") && !text.contains("  goal  "),
        "{text}"
    );
    assert!(
        text.contains("ctxmon --json checkpoint show cx-001"),
        "{text}"
    );
    assert!(
        serde_json::from_str::<Value>(text).is_err(),
        "text, not JSON"
    );

    let json = sb.run(&["--json", "checkpoint", "show", "1"], "");
    assert_eq!(json.code, 0, "{}", json.stderr);
    let value: Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(value["checkpoint_id"], "cx-001");
    assert_eq!(value["context_state"]["input_tokens"], 170_000);
    assert_eq!(value["acknowledged"], false);

    // A number with no checkpoint is "not found" (1), not a malformed id (2).
    let missing = sb.run(&["checkpoint", "show", "7"], "");
    assert_eq!(missing.code, 1, "{}", missing.stderr);
    assert!(
        missing.stderr.contains("no checkpoint cx-007"),
        "{}",
        missing.stderr
    );
}

#[test]
fn both_lists_put_the_newest_first() {
    let sb = Sandbox::new();
    compact(&sb, FIRST, 120_000);
    compact(&sb, SECOND, 150_000);
    log_for(&sb, FIRST);
    log_for(&sb, SECOND);

    let sessions_in = |args: &[&str]| -> Vec<String> {
        let run = sb.run(args, "");
        assert_eq!(run.code, 0, "{args:?}: {}", run.stderr);
        let items: Vec<Value> = serde_json::from_str(&run.stdout).unwrap();
        items
            .iter()
            .map(|i| {
                i.pointer("/session_info/session_id")
                    .or_else(|| i.get("session_id"))
                    .and_then(Value::as_str)
                    .unwrap()
                    .to_string()
            })
            .collect()
    };
    let newest_first = [SECOND.to_string(), FIRST.to_string()];
    assert_eq!(sessions_in(&["--json", "checkpoint", "list"]), newest_first);
    assert_eq!(sessions_in(&["--json", "resume-log", "list"]), newest_first);

    let ids = sb.run(&["checkpoint", "list"], "").stdout;
    let rows: Vec<&str> = ids.lines().skip(1).collect();
    assert!(
        rows[0].starts_with("cx-002") && rows[1].starts_with("cx-001"),
        "{ids}"
    );
    let logs = sb.run(&["resume-log", "list"], "").stdout;
    let rows: Vec<&str> = logs.lines().skip(1).collect();
    assert!(
        rows[0].starts_with(SECOND) && rows[1].starts_with(FIRST),
        "{logs}"
    );
}

#[test]
fn a_resume_log_is_found_by_any_unique_beginning_of_its_session_id() {
    let sb = Sandbox::new();
    compact(&sb, FIRST, 120_000);
    log_for(&sb, FIRST);
    log_for(&sb, SECOND);
    log_for(&sb, "other");
    let whole = sb.run(&["resume-log", "show", SECOND], "");
    assert_eq!(whole.code, 0, "{}", whole.stderr);
    assert!(
        whole.stdout.contains(&format!("work of {SECOND}")),
        "{}",
        whole.stdout
    );

    for prefix in ["7f3a9c21-0b1c-4d2e-9f00-b", "7f3a9c21-0b1c-4d2e-9f00-bbbb"] {
        let run = sb.run(&["resume-log", "show", prefix], "");
        assert_eq!((run.code, &run.stdout), (0, &whole.stdout), "{prefix}");
    }
    let other = sb.run(&["--json", "resume-log", "show", "o"], "");
    assert_eq!(other.code, 0, "{}", other.stderr);
    assert_eq!(
        serde_json::from_str::<Value>(&other.stdout).unwrap()["session_id"],
        "other"
    );

    // What `checkpoint list` shows of a long id (16 characters and `…`) is enough when only
    // one log's id begins so; here two do, and both are named.
    let table = sb.run(&["checkpoint", "list"], "").stdout;
    let shown = table
        .lines()
        .nth(1)
        .unwrap()
        .split_whitespace()
        .nth(4)
        .unwrap();
    assert_eq!(shown, "7f3a9c21-0b1c-4d…", "{table}");
    let ambiguous = sb.run(&["resume-log", "show", shown], "");
    assert_eq!(ambiguous.code, 2, "{}", ambiguous.stderr);
    assert!(ambiguous.stdout.is_empty());
    let message = ambiguous.stderr.trim();
    assert!(message.contains("is ambiguous"), "{message}");
    assert!(
        message.contains(FIRST) && message.contains(SECOND),
        "{message}"
    );
    assert!(!message.contains("other"), "{message}");
    assert_eq!(message.lines().count(), 1, "{message}");

    let unknown = sb.run(&["resume-log", "show", "7f3a9c21-0b1c-4d2e-9f00-c"], "");
    assert_eq!(unknown.code, 1, "{}", unknown.stderr);
    assert!(
        unknown.stderr.contains("no resume log for session"),
        "{}",
        unknown.stderr
    );
    let empty = sb.run(&["resume-log", "show", ""], "");
    assert_eq!(empty.code, 2, "{}", empty.stderr);
}

/// An id that is a whole session id is that session's log, even when it also begins another.
#[test]
fn a_whole_id_wins_over_a_longer_one_it_begins() {
    let sb = Sandbox::new();
    log_for(&sb, "abc");
    log_for(&sb, "abcdef");
    let run = sb.run(&["--json", "resume-log", "show", "abc"], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        serde_json::from_str::<Value>(&run.stdout).unwrap()["session_id"],
        "abc"
    );
}
