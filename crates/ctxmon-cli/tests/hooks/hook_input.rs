//! Hook input that serde_json alone refuses or that is too large, end to end with the real binary
//! (contract C14): lone surrogate escapes in stdin and in the transcript, a number beyond f64 in a
//! compaction boundary, a 2 MB and a 20 MB prompt, and inputs without `session_id`.

// Test support: a panic is how a broken precondition fails the test.
#![allow(clippy::unwrap_used)]

use std::io::Write;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::common;
use crate::common::{Sandbox, additional_context, assistant_line, transcript_with};

/// A lone leading surrogate as Node's `JSON.stringify` writes it for a string cut inside an
/// emoji; serde_json cannot produce one, so it is spliced into serialized text.
const LONE: &str = r"\ud83d";
const MARK: &str = "@LONE@";

/// `value` as JSON text, with every `@LONE@` inside a string turned into a lone surrogate.
fn with_lone_surrogates(value: &Value) -> String {
    value.to_string().replace(MARK, LONE)
}

fn hook_input(sb: &Sandbox, event: &str, session: &str, t: &Path, extra: Value) -> Value {
    serde_json::from_str(&sb.hook_input(event, session, t, extra)).unwrap()
}

fn checkpoint(sb: &Sandbox, id: &str) -> Value {
    let path = sb.path(&format!(".ctxmon/checkpoints/{id}-checkpoint.json"));
    serde_json::from_slice(&std::fs::read(&path).unwrap_or_else(|e| panic!("{path:?}: {e}")))
        .unwrap()
}

/// `custom_instructions: "keep the \ud83d notes"` once made PreCompact refuse its whole input,
/// and no checkpoint was saved.
#[test]
fn pre_compact_with_a_lone_surrogate_saves_its_checkpoint() {
    let sb = Sandbox::new();
    let t = sb.write("t.jsonl", transcript_with(&[170_000]));
    let input = hook_input(
        &sb,
        "PreCompact",
        "s1",
        &t,
        json!({"trigger": "manual", "custom_instructions": format!("keep the {MARK} notes")}),
    );
    let run = sb.run(&["hooks", "pre-compact"], with_lone_surrogates(&input));
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout.contains("cx-001"),
        "{}\n{}",
        run.stdout,
        run.stderr
    );
    let cp = checkpoint(&sb, "cx-001");
    assert_eq!(cp["custom_instructions"], "keep the \u{fffd} notes");
    assert_eq!(cp["session_info"]["session_id"], "s1");
}

/// The same in a prompt once gave no monitor tag.
#[test]
fn a_prompt_with_a_lone_surrogate_gets_its_monitor_tag() {
    let sb = Sandbox::new();
    let t = sb.write("t.jsonl", transcript_with(&[150_000]));
    let input = hook_input(
        &sb,
        "UserPromptSubmit",
        "s1",
        &t,
        json!({"prompt": format!("what is {MARK}?")}),
    );
    let run = sb.run(&["hooks", "prompt-submit"], with_lone_surrogates(&input));
    assert_eq!(run.code, 0, "{}", run.stderr);
    let tag = additional_context(&run.stdout, "UserPromptSubmit");
    assert!(tag.contains("tier=\"WARNING\""), "{tag}");
}

/// A transcript line with a lone surrogate was once dropped, and with it the user's newest
/// request; the checkpoint and the resumption context keep it, U+FFFD in the surrogate's place.
#[test]
fn the_newest_request_with_a_lone_surrogate_is_kept_for_resumption() {
    let sb = Sandbox::new();
    let request = json!({"type": "user", "uuid": "u2", "timestamp": "2026-11-22T03:00:09.000Z",
        "message": {"role": "user", "content": format!("split the {MARK} billing module")}});
    let older = json!({"type": "user", "uuid": "u1", "timestamp": "2026-11-22T03:00:00.000Z",
        "message": {"role": "user", "content": "start the tax work"}});
    let text = format!(
        "{older}\n{}\n{}\n",
        assistant_line("a", 150_000),
        with_lone_surrogates(&request)
    );
    let t = sb.write("t.jsonl", text);
    let pre = sb.run(
        &["hooks", "pre-compact"],
        sb.hook_input("PreCompact", "s1", &t, json!({"trigger": "auto"})),
    );
    assert_eq!(pre.code, 0, "{}", pre.stderr);
    let cp = checkpoint(&sb, "cx-001");
    let requests = &cp["resumption_state"]["last_user_requests"];
    assert_eq!(
        requests.as_array().and_then(|r| r.last()),
        Some(&json!("split the \u{fffd} billing module")),
        "{requests}"
    );
    let start = sb.run(
        &["hooks", "session-start"],
        sb.hook_input("SessionStart", "s1", &t, json!({"source": "resume"})),
    );
    let context = additional_context(&start.stdout, "SessionStart");
    assert!(
        context.contains("split the \u{fffd} billing module"),
        "{context}"
    );
}

/// `"postTokens": 1e999` once made serde_json refuse the compact-boundary line: the
/// compaction went unseen and the fill stayed at the pre-compaction value. The boundary counts
/// now, with the figure that does not fit treated as missing, so the fill is what a boundary
/// without `postTokens` gives (contract C2).
#[test]
fn a_boundary_whose_post_tokens_does_not_fit_still_counts_as_a_compaction() {
    let sb = Sandbox::new();
    let boundary = |post: Option<&str>| {
        let meta = match post {
            Some(p) => format!(r#"{{"trigger":"auto","preTokens":170000,"postTokens":{p}}}"#),
            None => r#"{"trigger":"auto","preTokens":170000}"#.to_string(),
        };
        format!(
            r#"{{"type":"system","subtype":"compact_boundary","isSidechain":false,"compactMetadata":{meta},"uuid":"b1","timestamp":"2026-11-22T03:01:00.000Z"}}"#
        )
    };
    let before = transcript_with(&[170_000]);
    let huge = sb.write(
        "huge.jsonl",
        format!("{before}{}\n", boundary(Some("1e999"))),
    );
    let absent = sb.write("absent.jsonl", format!("{before}{}\n", boundary(None)));
    let tag = |session: &str, t: &PathBuf| {
        let run = sb.run(&["hooks", "prompt-submit"], sb.prompt_input(session, t));
        assert_eq!(run.code, 0, "{}", run.stderr);
        additional_context(&run.stdout, "UserPromptSubmit")
    };
    let measured = tag("s-huge", &huge);
    assert!(
        measured.contains("source=\"compaction\"") && !measured.contains("tokens=\"170000\""),
        "{measured}"
    );
    assert_eq!(measured, tag("s-absent", &absent));
    // Some versions write `postTokens: 0`: no size either, never a tag that says 0 tokens.
    let zero = sb.write("zero.jsonl", format!("{before}{}\n", boundary(Some("0"))));
    let zero_tag = tag("s-zero", &zero);
    assert!(!zero_tag.contains("tokens=\"0\""), "{zero_tag}");
    assert_eq!(zero_tag, tag("s-absent-again", &absent));
    let state: Value =
        serde_json::from_slice(&std::fs::read(sb.path(".ctxmon/state/s-huge.json")).unwrap())
            .unwrap();
    assert_eq!(state["compactions_seen"]["count"], 1, "{state}");
    assert_eq!(state["compactions_seen"]["last_boundary_uuid"], "b1");
}

/// Runs `args` with `stdin` written in full from another thread, and returns the run and what
/// the writer's `write_all` returned (an early close of the pipe makes it EPIPE).
fn run_reporting_write(sb: &Sandbox, args: &[&str], stdin: Vec<u8>) -> (common::Run, String) {
    let feed = move |mut pipe: std::process::ChildStdin| {
        let wrote = pipe.write_all(&stdin).and_then(|()| pipe.flush());
        drop(pipe);
        wrote.map_or_else(|e| format!("write failed: {e}"), |()| "ok".to_string())
    };
    sb.run_fed(args, feed, std::time::Duration::from_secs(60))
}

/// A 2 MB pasted prompt once got no monitor tag: ctxmon stopped reading at the 1 MiB cap
/// and closed the pipe, and Claude Code's write failed with EPIPE. The whole input is read now
/// and answered; only a shortened copy of the prompt is kept.
#[test]
fn a_prompt_over_the_cap_is_read_whole_and_answered() {
    let sb = Sandbox::new();
    let t = sb.write("t.jsonl", transcript_with(&[150_000]));
    for megabytes in [2, 20] {
        let prompt = "paste ".repeat(megabytes * 1_000_000 / 6);
        let input = hook_input(
            &sb,
            "UserPromptSubmit",
            "s-big",
            &t,
            json!({"prompt": prompt}),
        );
        let stdin = input.to_string().into_bytes();
        assert!(stdin.len() > megabytes * 1_000_000);
        let (run, wrote) = run_reporting_write(&sb, &["hooks", "prompt-submit"], stdin);
        assert_eq!(
            wrote, "ok",
            "{megabytes} MB: the writer's write must succeed"
        );
        assert_eq!(run.code, 0, "{megabytes} MB: {}", run.stderr);
        let tag = additional_context(&run.stdout, "UserPromptSubmit");
        assert!(tag.contains("tier=\"WARNING\""), "{megabytes} MB: {tag}");
    }
    // Nothing about a long paste is a problem worth logging.
    assert!(!sb.path(".ctxmon/logs/hooks.log").exists());
}

/// Every input without `session_id` once shared one state file (`h-cbf29ce484222325`, the
/// hash of the empty id). Each transcript keeps its own now (Claude Code names the transcript
/// after the session).
#[test]
fn inputs_without_a_session_id_keep_state_per_transcript() {
    let sb = Sandbox::new();
    let a = sb.write("0a1b2c3d-aaaa.jsonl", transcript_with(&[150_000]));
    let b = sb.write("0a1b2c3d-bbbb.jsonl", transcript_with(&[60_000]));
    for t in [&a, &b] {
        let mut input = hook_input(&sb, "UserPromptSubmit", "x", t, json!({"prompt": "go"}));
        input.as_object_mut().unwrap().remove("session_id");
        let run = sb.run(&["hooks", "prompt-submit"], input.to_string());
        assert_eq!(run.code, 0, "{}", run.stderr);
        assert!(!run.stdout.trim().is_empty(), "still answered");
    }
    let state = |stem: &str| -> Value {
        let path = sb.path(&format!(".ctxmon/state/{stem}.json"));
        serde_json::from_slice(&std::fs::read(&path).unwrap_or_else(|e| panic!("{path:?}: {e}")))
            .unwrap()
    };
    assert_eq!(state("0a1b2c3d-aaaa")["last_tokens"], 150_000);
    assert_eq!(state("0a1b2c3d-bbbb")["last_tokens"], 60_000);
}

/// Neither a session id nor a transcript: no state file and no state lock (before, both went to
/// `h-cbf29ce484222325`); the hooks still answer.
#[test]
fn an_input_without_session_or_transcript_keeps_no_state() {
    let other = Sandbox::new();
    let bare = json!({"cwd": other.dir(), "hook_event_name": "PreCompact", "trigger": "auto"});
    let pre = other.run(&["hooks", "pre-compact"], bare.to_string());
    assert_eq!(pre.code, 0, "{}", pre.stderr);
    assert!(pre.stdout.contains("cx-001"), "{}", pre.stdout);
    let mut prompt = bare.clone();
    prompt["hook_event_name"] = json!("UserPromptSubmit");
    let run = other.run(&["hooks", "prompt-submit"], prompt.to_string());
    assert_eq!(run.code, 0, "{}", run.stderr);
    let kept: Vec<String> = std::fs::read_dir(other.path(".ctxmon/state"))
        .map(|d| {
            d.filter_map(Result::ok)
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    assert!(kept.is_empty(), "{kept:?}");
}

/// One byte that is not UTF-8, as a terminal paste or a truncating tool can leave in a string:
/// in a field ctxmon keeps (`custom_instructions`) and in one it never reads. serde_json refused
/// the whole input ("stdin is not JSON") and the compaction lost its checkpoint.
#[test]
fn pre_compact_with_a_byte_that_is_not_utf8_saves_its_checkpoint() {
    let sb = Sandbox::new();
    let t = sb.write("t.jsonl", transcript_with(&[170_000]));
    let input = hook_input(
        &sb,
        "PreCompact",
        "s1",
        &t,
        json!({"trigger": "manual", "custom_instructions": "keep @BAD@ notes", "future": "a @BAD@ b"}),
    );
    let text = input.to_string();
    let mut bytes = Vec::new();
    for (i, part) in text.split("@BAD@").enumerate() {
        if i > 0 {
            bytes.push(0xff);
        }
        bytes.extend_from_slice(part.as_bytes());
    }
    let run = sb.run(&["hooks", "pre-compact"], &bytes);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout.contains("cx-001"),
        "{}\n{}",
        run.stdout,
        run.stderr
    );
    assert!(!run.stderr.contains("not JSON"), "{}", run.stderr);
    let cp = checkpoint(&sb, "cx-001");
    assert_eq!(cp["custom_instructions"], "keep \u{fffd} notes");
}

/// Nesting deeper than serde_json's 128 levels in a field no hook reads (or deep inside the
/// tool input, of which a hook reads one path) cost the whole input; the subtree is skipped.
#[test]
fn nesting_deeper_than_128_in_a_field_no_hook_reads_costs_nothing() {
    let deep = |n: usize| format!("{}1{}", "[".repeat(n), "]".repeat(n));
    let sb = Sandbox::new();
    let t = sb.write("t.jsonl", transcript_with(&[170_000]));
    let input = hook_input(
        &sb,
        "PreCompact",
        "s1",
        &t,
        json!({"trigger": "auto", "custom_instructions": "keep", "future": "@DEEP@"}),
    )
    .to_string()
    .replace("\"@DEEP@\"", &deep(200));
    let run = sb.run(&["hooks", "pre-compact"], input);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout.contains("cx-001"),
        "{}\n{}",
        run.stdout,
        run.stderr
    );
    assert_eq!(checkpoint(&sb, "cx-001")["custom_instructions"], "keep");

    let prompt = hook_input(
        &sb,
        "UserPromptSubmit",
        "s1",
        &t,
        json!({"prompt": "go", "tool_input": {"file_path": "/p/a.rs", "args": "@DEEP@"}}),
    )
    .to_string()
    .replace("\"@DEEP@\"", &deep(5_000));
    let run = sb.run(&["hooks", "prompt-submit"], prompt);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let tag = additional_context(&run.stdout, "UserPromptSubmit");
    assert!(tag.starts_with("<context-monitor fill="), "{tag}");
}
