//! The `TranscriptTail` port on `JsonlTranscriptReader`, feeding the application's
//! derivation: the path a PreCompact checkpoint takes when there is no resumption file.

use std::path::PathBuf;

use ctxmon_application::ports::{TranscriptErrorKind, TranscriptTail};
use ctxmon_application::resumption::derive_from_tail;
use ctxmon_infra_fs::JsonlTranscriptReader;

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
    let lines = JsonlTranscriptReader::new()
        .read_tail(&path, recent.len() as u64 + 10)
        .expect("tail");
    // The old line is cut by the window and dropped, garbage and the partial line skipped.
    assert_eq!(lines.len(), 3);
    let state = derive_from_tail(&lines);
    assert_eq!(state.last_user_requests, ["recent request"]);
    assert_eq!(state.files_touched, ["/p/x.rs"]);
    assert_eq!(state.last_assistant_text.as_deref(), Some("ok"));
}

#[test]
fn missing_transcript_is_an_error_of_kind_not_found() {
    let err = JsonlTranscriptReader::new()
        .read_tail(&PathBuf::from("/nonexistent/t.jsonl"), 1024)
        .expect_err("no file");
    assert_eq!(err.kind, TranscriptErrorKind::NotFound);
}

#[test]
fn real_transcript_through_the_port() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/fixtures/claude-code-transcripts/cc-2.0.37-sonnet-4-5.jsonl");
    if !path.is_file() {
        eprintln!("notice: {} is absent; skipping", path.display());
        return;
    }
    let lines = JsonlTranscriptReader::new()
        .read_tail(&path, 8 * 1024 * 1024)
        .expect("tail");
    let state = derive_from_tail(&lines);
    assert_eq!(state.todos.len(), 5);
    assert_eq!(
        state.files_touched.last().map(String::as_str),
        Some("/Users/dain/workspace/coderabbit-review-helper/README.md")
    );
}
