//! Gemini CLI end to end: `status` on the shared chat and on copies the tests build (legacy,
//! rewound, compressed), the hooks on Gemini's inputs (BeforeAgent's tag at 450,000 of a
//! 1,048,576 window, PreCompress's checkpoint handed back only once the chat shows the
//! compression, a `transcript_path` of `''` found among the project's chats), and bad chats
//! failing open with exit 0.

// Test support: a panic is how a broken precondition fails the test.
#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::common;
use crate::common::Sandbox;

const CHAT: &str = "session-2026-04-25T08-23-e435870b.jsonl";
const SESSION: &str = "abc12345-6789-4def-8000-000000000001";

/// The time now as gemini-cli stamps a message: what is written after a checkpoint is newer.
fn now() -> String {
    let ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis();
    ctxmon_domain::Timestamp::from_millis(i64::try_from(ms).unwrap()).to_rfc3339()
}

fn gemini_fixtures() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/fixtures/gemini-chats");
    if dir.is_dir() {
        Some(dir)
    } else {
        ctxmon_test_support::skip!("../shared is absent; skipping tests on the real Gemini chat");
        None
    }
}

fn status(sb: &Sandbox, transcript: &Path) -> Value {
    let run = sb.run(
        &[
            "--json",
            "status",
            "--transcript",
            transcript.to_str().unwrap(),
        ],
        "",
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    serde_json::from_str(&run.stdout).unwrap()
}

/// A chat in gemini-cli's JSONL shape: the metadata line, a request, then one response per
/// count (the last with a write and a test run).
fn chat(counts: &[u64]) -> String {
    let mut lines = vec![
        json!({"sessionId": SESSION, "projectHash": "h", "startTime": "2026-04-25T08:00:00.000Z", "lastUpdated": "2026-04-25T08:00:00.000Z", "kind": "main"}),
        json!({"id": "u1", "timestamp": "2026-04-25T08:01:00.000Z", "type": "user", "content": [{"text": "Refactor the parser and keep the tests green"}]}),
    ];
    for (k, tokens) in counts.iter().enumerate() {
        lines.push(json!({
            "id": format!("g{k}"), "timestamp": format!("2026-04-25T08:02:{:02}.000Z", k % 60),
            "type": "gemini", "content": "Working on the parser.",
            "tokens": {"input": tokens, "output": 10, "cached": 0, "total": tokens + 10},
            "model": "gemini-2.5-pro",
            "toolCalls": [
                {"id": format!("w{k}"), "name": "write_file", "args": {"file_path": "src/parser.rs", "content": "fn parse() {}"}, "status": "success",
                 "result": [{"functionResponse": {"id": format!("w{k}"), "name": "write_file", "response": {"output": "Wrote src/parser.rs"}}}]},
                {"id": format!("s{k}"), "name": "run_shell_command", "args": {"command": "cargo test -p parser", "description": "tests"}, "status": "success",
                 "result": [{"functionResponse": {"id": format!("s{k}"), "name": "run_shell_command", "response": {"output": "Output: ok\nExit Code: 0"}}}]}
            ]
        }));
    }
    lines.iter().map(|l| format!("{l}\n")).collect()
}

fn input(sb: &Sandbox, event: &str, transcript: &str, extra: Value) -> String {
    let mut v = json!({
        "session_id": SESSION, "transcript_path": transcript,
        "cwd": sb.dir().to_str().unwrap(), "hook_event_name": event,
        "timestamp": "2026-04-25T08:10:00.000Z",
    });
    for (k, x) in extra.as_object().unwrap() {
        v[k] = x.clone();
    }
    v.to_string()
}

#[test]
fn status_on_the_shared_chat_gives_the_sources_md_figures() {
    let Some(dir) = gemini_fixtures() else { return };
    let sb = Sandbox::new();
    let v = status(&sb, &dir.join(CHAT));
    assert_eq!(v["agent"], "gemini");
    assert_eq!(v["input_tokens"], 13_116);
    assert_eq!(v["context_window_size"], 1_048_576);
    assert_eq!(v["model"], "gemini-3-flash-preview");
    assert_eq!(v["source"], "transcript");
    // Gemini compresses at half the window.
    assert_eq!(v["tokens_until_auto_compact"], 524_288 - 13_116);
}

#[test]
fn a_compressed_copy_shows_the_compaction_and_a_model_override_sets_the_window() {
    let sb = Sandbox::new();
    let mut text = chat(&[300_000, 530_000]);
    text.push_str(&format!(
        "{}\n",
        json!({"$set": {"messages": [
            {"id": "sum", "timestamp": "2026-04-25T08:03:00.000Z", "type": "user", "content": [{"text": "<state_snapshot>parser</state_snapshot>"}]},
            {"id": "g1", "type": "gemini", "tokens": {"input": 530_000}, "model": "gemini-2.5-pro"}
        ]}})
    ));
    let path = sb.write("compressed.jsonl", &text);
    let v = status(&sb, &path);
    assert_eq!(v["source"], "compaction", "{v}");
    assert!(v["input_tokens"].as_u64().unwrap() < 530_000, "{v}");
    sb.write(
        ".ctxmon/config.toml",
        "[context_monitor.models]\n\"gemini-2.5\" = 2000000\n",
    );
    let plain = sb.write("plain.jsonl", chat(&[300_000]));
    assert_eq!(status(&sb, &plain)["context_window_size"], 2_000_000);
}

#[test]
fn before_agent_at_450_000_of_the_window_injects_a_warning_tag() {
    let sb = Sandbox::new();
    let path = sb.write("chat.jsonl", chat(&[450_000]));
    let run = sb.run(
        &["hooks", "prompt-submit"],
        input(
            &sb,
            "BeforeAgent",
            path.to_str().unwrap(),
            json!({"prompt": "go on"}),
        ),
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let tag = common::additional_context(&run.stdout, "BeforeAgent");
    assert!(tag.contains("tier=\"CRITICAL\""), "{tag}");
    assert!(
        tag.contains("tokens=\"450000\" window=\"1048576\""),
        "{tag}"
    );
    assert!(tag.contains("until-auto-compact=\"74288\""), "{tag}");
    // AfterTool answers on the rise only: the prompt's tag already said CRITICAL.
    let after = sb.run(
        &["hooks", "post-tool-use"],
        input(
            &sb,
            "AfterTool",
            path.to_str().unwrap(),
            json!({"tool_name": "read_file"}),
        ),
    );
    assert_eq!(
        (after.code, after.stdout.as_str()),
        (0, ""),
        "{}",
        after.stderr
    );
}

#[test]
fn pre_compress_saves_a_checkpoint_and_the_first_before_agent_after_the_compression_hands_back() {
    let sb = Sandbox::new();
    let path = sb.write("chat.jsonl", chat(&[300_000, 530_000]));
    let transcript = path.to_str().unwrap();
    let pre = sb.run(
        &["hooks", "pre-compact"],
        input(&sb, "PreCompress", transcript, json!({"trigger": "auto"})),
    );
    assert_eq!(pre.code, 0, "{}", pre.stderr);
    let message: Value = serde_json::from_str(pre.stdout.trim()).unwrap();
    assert!(
        message["systemMessage"]
            .as_str()
            .unwrap()
            .contains("cx-001"),
        "{}",
        pre.stdout
    );
    assert!(message.get("hookSpecificOutput").is_none());
    assert!(
        sb.path(".ctxmon/checkpoints/cx-001-checkpoint.json")
            .is_file()
    );
    // The chat does not show a compression yet (PreCompress also fires when none happens).
    let prompt = || {
        sb.run(
            &["hooks", "prompt-submit"],
            input(&sb, "BeforeAgent", transcript, json!({"prompt": "next"})),
        )
    };
    let before = prompt();
    assert_eq!(before.code, 0);
    let tag = common::additional_context(&before.stdout, "BeforeAgent");
    assert!(!tag.contains("<compaction-alert"), "{tag}");
    assert!(!tag.contains("<resumption-context"), "{tag}");
    // Nor after a `/rewind`, though the response after it is smaller than the checkpoint's.
    let mut text = std::fs::read_to_string(&path).unwrap();
    text.push_str(&format!(
        "{}\n{}\n{}\n",
        json!({"$rewindTo": "g1"}),
        json!({"id": "u3", "timestamp": now(), "type": "user", "content": [{"text": "try again"}]}),
        json!({"id": "g8", "timestamp": now(), "type": "gemini", "content": "Again.", "tokens": {"input": 310_000}, "model": "gemini-2.5-pro"})
    ));
    std::fs::write(&path, &text).unwrap();
    let rewound = prompt();
    assert_eq!(rewound.code, 0, "{}", rewound.stderr);
    let tag = common::additional_context(&rewound.stdout, "BeforeAgent");
    assert!(tag.contains("tokens=\"310000\""), "{tag}");
    assert!(!tag.contains("<compaction-alert"), "{tag}");
    assert!(!tag.contains("<resumption-context"), "{tag}");
    // Now it does: a list of the summary turn and the kept tail, then a smaller response.
    text.push_str(&format!(
        "{}\n{}\n",
        json!({"$set": {"messages": [
            {"id": "sum", "timestamp": "2026-04-25T08:04:00.000Z", "type": "user", "content": [{"text": "<state_snapshot>parser refactor</state_snapshot>"}]},
            {"id": "u2", "timestamp": "2026-04-25T08:04:01.000Z", "type": "user", "content": [{"text": "next"}]}
        ]}}),
        json!({"id": "g9", "timestamp": now(), "type": "gemini", "content": "Continuing.", "tokens": {"input": 150_000}, "model": "gemini-2.5-pro"})
    ));
    std::fs::write(&path, text).unwrap();
    let after = prompt();
    assert_eq!(after.code, 0, "{}", after.stderr);
    let context = common::additional_context(&after.stdout, "BeforeAgent");
    assert!(
        context.contains("<compaction-alert checkpoint=\"cx-001\""),
        "{context}"
    );
    assert!(
        context.contains("<resumption-context checkpoint=\"cx-001\""),
        "{context}"
    );
    // Beside Gemini CLI's own summary: what it lacks (the exact command), not the request.
    assert!(context.contains("cargo test -p parser"), "{context}");
    assert!(!context.contains("Refactor the parser"), "{context}");
    // Once: the next prompt carries no alert (nor a tag: NOMINAL and unchanged).
    let again = prompt();
    assert_eq!(again.code, 0);
    assert!(
        !again.stdout.contains("compaction-alert"),
        "{}",
        again.stdout
    );
}

#[test]
fn an_empty_transcript_path_is_found_among_the_projects_chats() {
    let sb = Sandbox::new();
    let chats = sb.home.path().join(".gemini/tmp/myproject/chats");
    std::fs::create_dir_all(&chats).unwrap();
    std::fs::write(
        chats.parent().unwrap().join(".project_root"),
        sb.dir().to_str().unwrap(),
    )
    .unwrap();
    std::fs::write(
        chats.join("session-2026-04-25T08-00-abc12345.jsonl"),
        chat(&[450_000]),
    )
    .unwrap();
    let run = sb.run(
        &["hooks", "prompt-submit"],
        input(&sb, "BeforeAgent", "", json!({"prompt": "go on"})),
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let tag = common::additional_context(&run.stdout, "BeforeAgent");
    assert!(tag.contains("tokens=\"450000\""), "{tag}");
    // `status` without --transcript finds the same chat.
    let v: Value = serde_json::from_str(&sb.run(&["--json", "status"], "").stdout).unwrap();
    assert_eq!(
        (v["agent"].as_str(), v["input_tokens"].as_u64()),
        (Some("gemini"), Some(450_000))
    );
}

#[test]
fn bad_chats_fail_open_with_exit_0() {
    let sb = Sandbox::new();
    let dir = sb.path("a-folder");
    std::fs::create_dir_all(&dir).unwrap();
    let rewound = sb.write(
        "rewound.jsonl",
        format!(
            "{}{}\n",
            chat(&[100_000]),
            json!({"$rewindTo": "no-such-id"})
        ),
    );
    let sets = sb.write(
        "sets.jsonl",
        format!("{}{}\n", chat(&[]), json!({"$set": {"lastUpdated": "x"}})),
    );
    let half = sb.write(
        "half.jsonl",
        format!(
            "{}{{\"id\":\"g9\",\"type\":\"gemini\",\"tok",
            chat(&[200_000])
        ),
    );
    for (path, figure) in [
        (dir.to_str().unwrap().to_string(), None),
        (rewound.to_str().unwrap().to_string(), None),
        (sets.to_str().unwrap().to_string(), None),
        (half.to_str().unwrap().to_string(), Some(200_000u64)),
    ] {
        for hook in [
            "prompt-submit",
            "post-tool-use",
            "pre-compact",
            "session-start",
            "session-end",
        ] {
            let event = match hook {
                "prompt-submit" => "BeforeAgent",
                "post-tool-use" => "AfterTool",
                "pre-compact" => "PreCompress",
                "session-start" => "SessionStart",
                _ => "SessionEnd",
            };
            let run = sb.run(
                &["hooks", hook],
                input(&sb, event, &path, json!({"source": "startup"})),
            );
            assert_eq!(run.code, 0, "{hook} {path}: {}", run.stderr);
            assert!(
                !run.stderr.contains("panicked"),
                "{hook} {path}: {}",
                run.stderr
            );
        }
        let v = sb.run(&["--json", "status", "--transcript", &path], "");
        if let Some(tokens) = figure {
            let v: Value = serde_json::from_str(&v.stdout).unwrap();
            assert_eq!(v["input_tokens"], tokens);
        }
    }
}

/// A chat measured at 77,912 and then compressed, in a project that compresses at a tenth of
/// the window: 30% of the window (314,572) would be four times the size before the
/// compression, EMERGENCY past the point. The estimate stays below the size before it and is
/// marked `~`; where gemini-cli reported what it left, that is the size.
#[test]
fn after_a_compression_the_fill_never_exceeds_the_size_before_it() {
    let sb = Sandbox::new();
    sb.write(
        ".gemini/settings.json",
        r#"{"model": {"compressionThreshold": 0.1}}"#,
    );
    let mut text = chat(&[60_000, 77_912]);
    text.push_str(&format!(
        "{}\n",
        json!({"$set": {"messages": [
            {"id": "sum", "timestamp": "2026-04-25T08:03:00.000Z", "type": "user", "content": [{"text": "<state_snapshot>parser</state_snapshot>"}]},
            {"id": "g1", "type": "gemini", "tokens": {"input": 77_912}, "model": "gemini-2.5-pro"}
        ]}})
    ));
    let path = sb.write("compressed.jsonl", &text);
    let prompt = |path: &Path| {
        let run = sb.run(
            &["hooks", "prompt-submit"],
            input(
                &sb,
                "BeforeAgent",
                path.to_str().unwrap(),
                json!({"prompt": "go on"}),
            ),
        );
        assert_eq!(run.code, 0, "{}", run.stderr);
        run.stdout
    };
    let v = status(&sb, &path);
    assert_eq!(v["source"], "compaction", "{v}");
    assert_eq!(
        v["input_tokens"], 23_373,
        "30% of the 77,912 before it: {v}"
    );
    assert_eq!(v["threshold_tier"], "nominal", "{v}");
    let out = prompt(&path);
    assert!(!out.contains("EMERGENCY"), "{out}");
    assert!(!out.contains("any moment"), "{out}");

    text.push_str(&format!(
        "{}\n",
        json!({"id": "c1", "type": "info", "content": "Chat history compressed from 77912 to 12040 tokens."})
    ));
    let reported = sb.write("reported.jsonl", &text);
    let v = status(&sb, &reported);
    assert_eq!(v["input_tokens"], 12_040, "{v}");
    let report = sb.run(
        &[
            "--json",
            "report",
            "--transcript",
            reported.to_str().unwrap(),
        ],
        "",
    );
    let r: Value = serde_json::from_str(&report.stdout).unwrap();
    assert_eq!(r["last"]["tokens"], 12_040, "{r}");
    assert_eq!(r["max"]["tokens"], 77_912, "{r}");
}
