//! The `TranscriptTail` port on `JsonlTranscriptReader`, feeding the application's
//! derivation: the path a PreCompact checkpoint takes when there is no resumption file; and
//! the head read that finds a session's first request.

use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

use ctxmon_application::handoff::resumption::{
    TranscriptHead, derive_from_tail, files_written_by_subagents, first_request_text,
};
use ctxmon_application::ports::{
    RecordBody, RequestKind, TranscriptErrorKind, TranscriptRecord, TranscriptTail,
};
use ctxmon_infra_fs::JsonlTranscriptReader;

/// Every record the head read hands over, until `stop_after` records (all when `None`).
fn head_lines(path: &Path, max_bytes: u64, stop_after: Option<usize>) -> Vec<TranscriptRecord> {
    let mut seen = Vec::new();
    JsonlTranscriptReader::default()
        .read_head(path, max_bytes, &mut |line| {
            seen.push(line.clone());
            if stop_after.is_some_and(|n| seen.len() >= n) {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        })
        .expect("head");
    seen
}

#[test]
fn the_head_is_read_from_the_start_and_only_as_far_as_needed() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("t.jsonl");
    let mut text = String::from(concat!(
        "{\"type\":\"summary\",\"timestamp\":\"2026-11-20T08:00:00.000Z\"}\n",
        "{\"type\":\"user\",\"isSidechain\":true,\"message\":{\"content\":\"subagent prompt\"}}\n",
        "{\"type\":\"user\",\"message\":{\"content\":[{\"type\":\"tool_result\",\"content\":\"ok\"}]}}\n",
        "garbage\n",
        "{\"type\":\"user\",\"message\":{\"content\":\"the real first request\"}}\n",
    ));
    // Then a long session: far more than the head window.
    let later = "{\"type\":\"user\",\"message\":{\"content\":\"a later request\"}}\n";
    text.push_str(&later.repeat(40_000));
    std::fs::write(&path, &text).expect("write");

    // Sidechain lines, successful tool results and garbage are not handed over.
    let first = head_lines(&path, 1024 * 1024, Some(2));
    assert_eq!(first.len(), 2);
    assert_eq!(first[0].body, RecordBody::Other);
    assert_eq!(
        first[0].timestamp.as_deref(),
        Some("2026-11-20T08:00:00.000Z")
    );
    match &first[1].body {
        RecordBody::Request(r) => {
            assert_eq!(
                (r.kind, r.text.as_str()),
                (RequestKind::Typed, "the real first request")
            );
        }
        other => panic!("{other:?}"),
    }
    let mut head = TranscriptHead::default();
    JsonlTranscriptReader::default()
        .read_head(&path, 1024 * 1024, &mut |l| head.visit(l))
        .expect("head");
    assert_eq!(
        head.first_request.as_deref(),
        Some("the real first request")
    );
    assert_eq!(head.started_at.as_deref(), Some("2026-11-20T08:00:00.000Z"));
    // The tail of the same file only knows the later requests.
    let tail = JsonlTranscriptReader::default()
        .read_tail(&path, 64 * 1024)
        .expect("tail");
    assert_eq!(
        first_request_text(&tail).as_deref(),
        Some("a later request")
    );

    // A window ending inside a line hands over only the whole lines before it.
    let cut = text.find("the real first").expect("request") as u64;
    let lines = head_lines(&path, cut + 5, None);
    assert_eq!(lines.len(), 1, "{lines:?}");
    // A small file's last line without a newline is whole.
    std::fs::write(
        &path,
        "{\"type\":\"user\",\"message\":{\"content\":\"only\"}}",
    )
    .expect("write");
    assert_eq!(head_lines(&path, 1024, None).len(), 1);
}

#[test]
fn tail_lines_feed_the_derivation() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("t.jsonl");
    let old = format!(
        "{{\"type\":\"user\",\"message\":{{\"content\":\"{}\"}}}}\n",
        "old ".repeat(1_000)
    );
    let recent = concat!(
        "{\"type\":\"user\",\"message\":{\"content\":\"recent request\"}}\n",
        "not json\n",
        "{\"type\":\"assistant\",\"message\":{\"content\":[{\"type\":\"tool_use\",\"name\":\"Edit\",\"input\":{\"file_path\":\"/p/x.rs\"}}]}}\n",
        "{\"type\":\"assistant\",\"message\":{\"content\":[{\"type\":\"text\",\"text\":\"ok\"}]}}\n",
        "{\"type\":\"user\",\"message\":{\"content\":\"partial"
    );
    std::fs::write(&path, format!("{old}{recent}")).expect("write");
    let lines = JsonlTranscriptReader::default()
        .read_tail(&path, recent.len() as u64 + 10)
        .expect("tail");
    // The old line is cut by the window and dropped, garbage and the partial line skipped.
    assert_eq!(lines.len(), 3);
    let state = derive_from_tail(&lines);
    assert_eq!(state.last_user_requests, ["recent request"]);
    assert_eq!(state.files_touched, ["/p/x.rs"]);
    assert_eq!(state.last_assistant_text.as_deref(), Some("ok"));
}

/// Node's `JSON.stringify` of a string cut inside an emoji writes a lone surrogate escape,
/// which serde_json refuses; the line, and with it the user's newest request, was once
/// dropped from the resumption state. It is kept, with U+FFFD in the surrogate's place.
#[test]
fn a_request_with_a_lone_surrogate_is_kept() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("t.jsonl");
    std::fs::write(
        &path,
        concat!(
            r#"{"type":"user","message":{"content":"the older request"}}"#,
            "\n",
            r#"{"type":"user","message":{"content":"keep the \ud83d notes"}}"#,
            "\n",
        ),
    )
    .expect("write");
    let lines = JsonlTranscriptReader::default()
        .read_tail(&path, 1 << 20)
        .expect("tail");
    let state = derive_from_tail(&lines);
    assert_eq!(
        state.last_user_requests,
        ["the older request", "keep the \u{fffd} notes"]
    );
    assert_eq!(head_lines(&path, 1 << 20, None).len(), 2);
}

#[test]
fn subagent_files_beside_the_transcript_add_their_writes() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("s1.jsonl");
    std::fs::write(
        &path,
        "{\"type\":\"assistant\",\"message\":{\"content\":[{\"type\":\"tool_use\",\"name\":\"Edit\",\"input\":{\"file_path\":\"/p/main.rs\"}}]}}\n",
    )
    .expect("write");
    // Claude Code 2.x: <session>/subagents/agent-*.jsonl, every line a sidechain line.
    let agents = dir.path().join("s1/subagents");
    std::fs::create_dir_all(agents.join("odd.jsonl")).expect("a folder, skipped");
    std::fs::write(
        agents.join("agent-a1.jsonl"),
        concat!(
            "{\"type\":\"user\",\"isSidechain\":true,\"message\":{\"content\":\"Write the helper\"}}\n",
            "{\"type\":\"assistant\",\"isSidechain\":true,\"message\":{\"content\":[{\"type\":\"tool_use\",\"name\":\"Write\",\"input\":{\"file_path\":\"/p/helper.rs\",\"content\":\"x\"}}]}}\n",
            "{\"type\":\"assistant\",\"isSidechain\":true,\"message\":{\"content\":[{\"type\":\"tool_use\",\"name\":\"Read\",\"input\":{\"file_path\":\"/p/read.rs\"}}]}}\n",
        ),
    )
    .expect("write");
    let lines = JsonlTranscriptReader::default()
        .read_tail(&path, 1 << 20)
        .expect("tail");
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert_eq!(derive_from_tail(&lines).files_touched, ["/p/main.rs"]);
    assert_eq!(files_written_by_subagents(&lines), ["/p/helper.rs"]);
}

#[test]
fn missing_transcript_is_an_error_of_kind_not_found() {
    let err = JsonlTranscriptReader::default()
        .read_tail(&PathBuf::from("/nonexistent/t.jsonl"), 1024)
        .expect_err("no file");
    assert_eq!(err.kind, TranscriptErrorKind::NotFound);
}

#[test]
fn real_transcript_through_the_port() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/fixtures/claude-code-transcripts/cc-2.0.37-sonnet-4-5.jsonl");
    if !path.is_file() {
        ctxmon_test_support::skip!("{} is absent; skipping", path.display());
        return;
    }
    let lines = JsonlTranscriptReader::default()
        .read_tail(&path, 8 * 1024 * 1024)
        .expect("tail");
    let state = derive_from_tail(&lines);
    assert_eq!(state.todos.len(), 5);
    assert_eq!(
        state.files_touched.last().map(String::as_str),
        Some("/Users/dain/workspace/coderabbit-review-helper/README.md")
    );
    // What a resuming agent needs: the branch the lines name, the reason the user gave when
    // refusing an edit, and no unresolved failure: the Edit refused for an unread file succeeded
    // later (a success the filter reports without parsing it).
    assert_eq!(
        state.git_branch.as_deref(),
        Some("fix/comment-attribution-and-pagination")
    );
    assert!(
        state
            .user_constraints
            .iter()
            .any(|c| c == "plan feedback: \"Let's keep the name of the py file but change the pyproject script to reference it, otherwise gtg\""),
        "{:?}",
        state.user_constraints
    );
    assert_eq!(state.failure, None);
    // The goal is the first typed request, from the transcript's start.
    let mut head = TranscriptHead::default();
    JsonlTranscriptReader::default()
        .read_head(&path, 1024 * 1024, &mut |r| head.visit(r))
        .expect("head");
    assert!(
        head.goal
            .as_deref()
            .is_some_and(|g| g.starts_with("How can I make this possible to install")),
        "{head:?}"
    );
}
