//! The reader against the real Gemini CLI chat in `../shared/fixtures/gemini-chats/` (expected
//! figures in its SOURCES.md), and against copies built from it: the same messages as one
//! legacy `ConversationRecord`, a `$rewindTo`, and a compression's `$set.messages`. Then the
//! bad inputs: a directory, a legacy document over the cap, a half-written last line.
//!
//! The corpus lives outside the repository; without it these tests print a notice and pass.

#[path = "support/corpus.rs"]
mod corpus;

use std::path::{Path, PathBuf};

use ctxmon_application::ports::{
    AgentKind, RecordBody, RequestKind, ScanLimits, ToolKind, TranscriptErrorKind,
    TranscriptReader, TranscriptReading, TranscriptTail,
};
use ctxmon_domain::TokenCount;
use ctxmon_infra_fs::JsonlTranscriptReader;
use serde_json::{Value, json};

const CHAT: &str = "session-2026-04-25T08-23-e435870b.jsonl";

fn read(path: &Path) -> TranscriptReading {
    JsonlTranscriptReader::default()
        .read_latest(path, ScanLimits::default())
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn fixture() -> Option<PathBuf> {
    corpus::gemini_corpus("chat reader tests").map(|d| d.join(CHAT))
}

/// The fixture's lines as JSON values.
fn lines(path: &Path) -> Vec<Value> {
    corpus::json_lines(path)
}

fn write_lines(dir: &Path, name: &str, lines: &[Value]) -> PathBuf {
    let path = dir.join(name);
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(&path, text).expect("write");
    path
}

/// The messages of the fixture after gemini-cli's replay (upsert by id).
fn replayed(lines: &[Value]) -> Vec<Value> {
    let mut list: Vec<Value> = Vec::new();
    for l in lines.iter().skip(1) {
        let Some(id) = l.get("id").and_then(Value::as_str) else {
            continue;
        };
        match list.iter().position(|m| m["id"] == id) {
            Some(at) => list[at] = l.clone(),
            None => list.push(l.clone()),
        }
    }
    list
}

fn check_figures(r: &TranscriptReading) {
    assert_eq!(r.agent, AgentKind::Gemini);
    let usage = r.usage.as_ref().expect("a count");
    assert_eq!(usage.tokens, TokenCount(13_116));
    assert_eq!(usage.model.as_deref(), Some("gemini-3-flash-preview"));
    assert_eq!(r.boundary, None);
}

#[test]
fn the_real_chat_gives_the_sources_figures_from_its_last_block() {
    let Some(path) = fixture() else { return };
    let r = read(&path);
    check_figures(&r);
    assert!(r.bytes_scanned <= 64 * 1024, "{}", r.bytes_scanned);
    assert_eq!(replayed(&lines(&path)).len(), 18, "messages after replay");
}

#[test]
fn a_legacy_copy_gives_the_same_figures() {
    let Some(path) = fixture() else { return };
    let all = lines(&path);
    // Written in gemini-cli's key order (the metadata first), indented as it writes it.
    let meta = &all[0];
    let messages = serde_json::to_string_pretty(&Value::Array(replayed(&all))).expect("json");
    let doc = format!(
        "{{\n  \"sessionId\": {},\n  \"projectHash\": {},\n  \"startTime\": {},\n  \"lastUpdated\": {},\n  \"messages\": {messages}\n}}\n",
        meta["sessionId"], meta["projectHash"], meta["startTime"], meta["lastUpdated"]
    );
    let dir = tempfile::tempdir().expect("tempdir");
    let legacy = dir.path().join("session-legacy.json");
    std::fs::write(&legacy, doc).expect("write");
    check_figures(&read(&legacy));
}

#[test]
fn a_rewind_copy_measures_the_response_before_the_rewound_turn() {
    let Some(path) = fixture() else { return };
    let mut all = lines(&path);
    // Rewind to the second request: its three responses go, the first request's two stay.
    all.push(json!({"$rewindTo": "8b46bd4b-8395-4928-95f9-8eeb536e1107"}));
    let dir = tempfile::tempdir().expect("tempdir");
    let r = read(&write_lines(dir.path(), "rewound.jsonl", &all));
    let usage = r.usage.expect("a count");
    assert_eq!(usage.tokens, TokenCount(11_277));
    assert_eq!(
        usage.model.as_deref(),
        Some("gemini-3.1-pro-preview-customtools")
    );
}

#[test]
fn a_compression_copy_is_a_compaction_until_the_next_response() {
    let Some(path) = fixture() else { return };
    let mut all = lines(&path);
    let list = replayed(&all);
    let mut kept = vec![
        json!({"id": "summary-1", "type": "user", "content": [{"text": "<state_snapshot>checked the postgres connection</state_snapshot>"}]}),
    ];
    kept.extend(list[list.len() - 4..].iter().cloned());
    all.push(json!({"$set": {"messages": kept}}));
    let dir = tempfile::tempdir().expect("tempdir");
    let compressed = write_lines(dir.path(), "compressed.jsonl", &all);
    let r = read(&compressed);
    assert_eq!(r.usage, None);
    let b = r.boundary.expect("a compaction");
    assert_eq!(b.uuid.as_deref(), Some("summary-1"));
    assert_eq!(b.pre_tokens, Some(TokenCount(13_116)));
    assert_eq!(r.agent_model.as_deref(), Some("gemini-3-flash-preview"));
    // The hand-back's records start with the compaction and its summary turn.
    let records = JsonlTranscriptReader::default()
        .read_tail(&compressed, 8 << 20)
        .expect("tail");
    assert!(matches!(records[0].body, RecordBody::CompactionBoundary));
    assert!(matches!(
        &records[1].body,
        RecordBody::Request(r) if r.kind == RequestKind::CompactionSummary
    ));
    all.push(json!({"id": "g-new", "type": "gemini", "content": "ok", "tokens": {"input": 4_000, "output": 1, "cached": 0, "total": 4_001}, "model": "gemini-3-flash-preview"}));
    let r = read(&write_lines(dir.path(), "after.jsonl", &all));
    assert_eq!(r.usage.map(|u| u.tokens), Some(TokenCount(4_000)));
}

#[test]
fn the_tail_holds_requests_shell_calls_reads_and_a_declined_call() {
    let Some(path) = fixture() else { return };
    let records = JsonlTranscriptReader::default()
        .read_tail(&path, 8 << 20)
        .expect("tail");
    let requests: Vec<&str> = records
        .iter()
        .filter_map(|r| match &r.body {
            RecordBody::Request(q) if q.kind == RequestKind::Typed => Some(q.text.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(
        requests,
        [
            "can you connect to postgrest on mcp list",
            "check yout connection to the postgres that i specify on mcpServers `postgres`",
            "clear"
        ]
    );
    let calls: Vec<_> = records
        .iter()
        .filter_map(|r| match &r.body {
            RecordBody::ToolCall(c) => Some(c),
            _ => None,
        })
        .collect();
    assert!(
        calls
            .iter()
            .any(|c| c.kind == ToolKind::Shell && c.command.as_deref() == Some("docker ps"))
    );
    assert!(
        calls
            .iter()
            .any(|c| c.name == "read_file"
                && c.file_path.as_deref() == Some(".gemini\\settings.json"))
    );
    let results: Vec<_> = records
        .iter()
        .filter_map(|r| match &r.body {
            RecordBody::ToolResult(t) => Some(t),
            _ => None,
        })
        .collect();
    // `mcp list` ran and failed with exit code 1; `gemini mcp list` was declined.
    assert!(results.iter().any(|t| t.exit_code == Some(1) && t.is_error));
    assert!(results.iter().any(|t| t.rejected.is_some()));
    assert!(records.iter().any(
        |r| matches!(&r.body, RecordBody::AssistantText(t) if t.contains("verified the connection"))
    ));
}

#[test]
fn a_directory_a_huge_legacy_document_and_a_cut_line_are_reported_not_misread() {
    let dir = tempfile::tempdir().expect("tempdir");
    let err = JsonlTranscriptReader::default()
        .read_latest(dir.path(), ScanLimits::default())
        .expect_err("a directory");
    assert_eq!(err.kind, TranscriptErrorKind::NotAFile);
    // A 200 MB legacy document (sparse: its start is a chat's, the rest zeros).
    let big = dir.path().join("session-big.json");
    std::fs::write(
        &big,
        "{\n  \"sessionId\": \"s\",\n  \"projectHash\": \"h\",\n  \"messages\": [\n",
    )
    .expect("write");
    std::fs::File::options()
        .write(true)
        .open(&big)
        .and_then(|f| f.set_len(200 * 1024 * 1024))
        .expect("grow");
    let err = JsonlTranscriptReader::default()
        .read_latest(&big, ScanLimits::default())
        .expect_err("over the cap");
    assert!(err.message.contains("over the"), "{err}");
    assert!(err.message.contains("cap"), "{err}");
    // A half-written last line costs nothing but itself.
    let Some(path) = fixture() else { return };
    let mut text = std::fs::read(&path).expect("read");
    text.extend_from_slice(br#"{"id":"x","type":"gemini","tokens":{"input":99"#);
    let cut = dir.path().join("cut.jsonl");
    std::fs::write(&cut, text).expect("write");
    check_figures(&read(&cut));
}
