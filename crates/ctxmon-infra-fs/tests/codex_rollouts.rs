//! The reader against the two sanitized Codex CLI rollouts in
//! `../shared/fixtures/codex-rollouts/` (expected figures in its SOURCES.md): the backward
//! scan, the forward read and the tail records, whole and cut around the compaction; and the
//! in-memory reader (`fakes::FakeTranscripts`) fed the forward read's events.
//!
//! The corpus lives outside the repository; without it these tests print a notice and pass.

#[path = "support/corpus.rs"]
mod corpus;

use std::path::{Path, PathBuf};

use ctxmon_application::fakes::FakeTranscripts;
use ctxmon_application::ports::{
    AgentKind, RecordBody, RequestKind, ScanLimits, ToolKind, TranscriptEvent, TranscriptReader,
    TranscriptReading, TranscriptTail,
};
use ctxmon_domain::TokenCount;
use ctxmon_infra_fs::JsonlTranscriptReader;
use serde_json::Value;

const COMPACTED: &str = "rollout-2026-02-23T12-54-34-019c8a59-e9dd-71f0-9ae3-4079fe9726a9.jsonl";
const SHORT: &str = "rollout-2026-02-23T20-34-25-019c8bfe-ec25-79e0-97d7-bda6a9c575ff.jsonl";

fn read(path: &Path) -> TranscriptReading {
    let reading = JsonlTranscriptReader::default()
        .read_latest(path, ScanLimits::default())
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    for block in [4096, 97] {
        let small = JsonlTranscriptReader::default()
            .with_block_size(block)
            .read_latest(path, ScanLimits::default())
            .unwrap_or_else(|e| panic!("{e}"));
        let same = TranscriptReading {
            bytes_scanned: small.bytes_scanned,
            ..reading.clone()
        };
        assert_eq!(small, same, "{block}-byte blocks");
    }
    reading
}

fn check(name: &str, tokens: u64) {
    let Some(dir) = corpus::codex_corpus("rollout reader tests") else {
        return;
    };
    let r = read(&dir.join(name));
    assert_eq!(r.agent, AgentKind::Codex);
    assert_eq!(r.boundary, None);
    assert_eq!(r.agent_window, Some(258_400));
    let usage = r.usage.expect("a count");
    assert_eq!(usage.tokens, TokenCount(tokens));
    assert_eq!(usage.context_window, Some(258_400));
    assert_eq!(usage.model.as_deref(), Some("gpt-5.3-codex"));
    assert!(usage.timestamp.is_some());
    // The newest turn is near the end: one 64 KiB block of a 1 MB file is read.
    assert!(r.bytes_scanned <= 64 * 1024, "{}", r.bytes_scanned);
}

#[test]
fn the_short_session_reads_as_sources_md_says() {
    check(SHORT, 63_727);
}

#[test]
fn the_compacted_session_reads_its_newest_count() {
    check(COMPACTED, 162_366);
}

/// The file's lines (with their newlines) and each one's top-level and payload type.
fn lines(path: &Path) -> (Vec<String>, Vec<(String, String)>) {
    let text = std::fs::read_to_string(path).expect("read");
    let raw: Vec<String> = text.split_inclusive('\n').map(str::to_string).collect();
    let kinds = raw
        .iter()
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap_or(Value::Null);
            let s = |p: &str| {
                v.pointer(p)
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string()
            };
            (s("/type"), s("/payload/type"))
        })
        .collect();
    (raw, kinds)
}

fn cut(dir: &tempfile::TempDir, raw: &[String], keep: usize) -> PathBuf {
    let path = dir.path().join(format!("cut-{keep}.jsonl"));
    std::fs::write(&path, raw[..keep].concat()).expect("write");
    path
}

#[test]
fn cuts_before_and_after_the_compaction() {
    let Some(dir) = corpus::codex_corpus("rollout compaction cuts") else {
        return;
    };
    let (raw, kinds) = lines(&dir.join(COMPACTED));
    let compacted = kinds
        .iter()
        .position(|(t, _)| t == "compacted")
        .expect("the fixture has a compaction");
    let tmp = tempfile::tempdir().expect("tmp");

    // Before the compaction line: the newest measured count (Codex's estimate of 940,499 just
    // before it is not a measurement).
    let before = read(&cut(&tmp, &raw, compacted));
    assert_eq!(before.usage.expect("count").tokens, TokenCount(212_134));
    assert_eq!(before.boundary, None);

    // From the compaction to the first count after it: compacted, the old count stale.
    let first_after = (compacted..raw.len())
        .find(|&i| {
            kinds[i].1 == "token_count"
                && serde_json::from_str::<Value>(&raw[i])
                    .ok()
                    .and_then(|v| {
                        v.pointer("/payload/info/last_token_usage/input_tokens")?
                            .as_u64()
                    })
                    .is_some_and(|n| n > 0)
        })
        .expect("a count after the compaction");
    for keep in [compacted + 1, compacted + 2, first_after] {
        let r = read(&cut(&tmp, &raw, keep));
        assert_eq!(r.usage, None, "cut at {keep}");
        let b = r.boundary.expect("compacted");
        assert_eq!(b.pre_tokens, Some(TokenCount(212_134)), "cut at {keep}");
        assert_eq!(r.agent_window, Some(258_400));
        assert_eq!(r.agent_model.as_deref(), Some("gpt-5.3-codex"));
    }
    let after = read(&cut(&tmp, &raw, first_after + 1));
    assert_eq!(after.usage.expect("count").tokens, TokenCount(48_687));
    assert_eq!(after.boundary, None);
}

#[test]
fn the_forward_read_charts_each_response_once_and_marks_the_compaction() {
    let Some(dir) = corpus::codex_corpus("rollout report tests") else {
        return;
    };
    let mut usage = Vec::new();
    let mut boundaries = Vec::new();
    let stats = JsonlTranscriptReader::default()
        .read_events(&dir.join(COMPACTED), |e| match e {
            TranscriptEvent::Usage { record, .. } => usage.push(record),
            TranscriptEvent::Boundary { boundary, .. } => boundaries.push((usage.len(), boundary)),
        })
        .expect("readable");
    assert_eq!(stats.agent, AgentKind::Codex);
    assert!(stats.any_json);
    assert_eq!(boundaries.len(), 1);
    assert_eq!(boundaries[0].1.pre_tokens, Some(TokenCount(212_134)));
    // Every point is a measurement: no estimate (940,499) and no repeat of the previous one.
    assert!(usage.iter().all(|u| u.tokens < TokenCount(258_400)));
    assert!(usage.windows(2).all(|w| w[0] != w[1]));
    assert_eq!(usage.last().map(|u| u.tokens), Some(TokenCount(162_366)));
    assert_eq!(usage[boundaries[0].0].tokens, TokenCount(48_687));
    // About half the 573 token_count lines are repeats or rate-limit-only.
    assert!((250..=320).contains(&usage.len()), "{}", usage.len());
}

#[test]
fn the_tail_holds_requests_tool_calls_the_branch_and_one_compaction() {
    let Some(dir) = corpus::codex_corpus("rollout tail tests") else {
        return;
    };
    let path = dir.join(COMPACTED);
    let (_, kinds) = lines(&path);
    let count = |p: &str| kinds.iter().filter(|(_, k)| k == p).count();
    let records = JsonlTranscriptReader::default()
        .read_tail(&path, 8 * 1024 * 1024)
        .expect("readable");
    let requests = records
        .iter()
        .filter(|r| matches!(&r.body, RecordBody::Request(q) if q.kind == RequestKind::Typed))
        .count();
    assert_eq!(requests, count("user_message"));
    let calls = records
        .iter()
        .filter(|r| matches!(r.body, RecordBody::ToolCall(_)))
        .count();
    // The fixture's patches are redacted, so each apply_patch is one call without a path.
    assert_eq!(calls, count("function_call") + count("custom_tool_call"));
    let results = records
        .iter()
        .filter(|r| matches!(r.body, RecordBody::ToolResult(_)))
        .count();
    assert_eq!(
        results,
        count("function_call_output") + count("custom_tool_call_output")
    );
    let plans = records
        .iter()
        .filter(|r| matches!(&r.body, RecordBody::ToolCall(c) if c.kind == ToolKind::TodoList))
        .count();
    assert_eq!(plans, 2);
    assert_eq!(
        records
            .iter()
            .filter(|r| r.body == RecordBody::CompactionBoundary)
            .count(),
        1
    );
    assert_eq!(records[0].git_branch.as_deref(), Some("main"));

    // A tail that does not reach the start still knows the branch (from the session_meta).
    let short = JsonlTranscriptReader::default()
        .read_tail(&path, 64 * 1024)
        .expect("readable");
    assert_eq!(short[0].git_branch.as_deref(), Some("main"));
    assert!(short.len() < records.len());
}

/// At every cut of the compacted session (every 23rd line, and each line around the
/// compaction), the backward scan reports what a forward read of the same bytes ends with.
#[test]
fn the_backward_scan_agrees_with_the_forward_read_at_every_cut() {
    let Some(dir) = corpus::codex_corpus("rollout agreement tests") else {
        return;
    };
    let (raw, kinds) = lines(&dir.join(COMPACTED));
    let compacted = kinds.iter().position(|(t, _)| t == "compacted").unwrap();
    let tmp = tempfile::tempdir().expect("tmp");
    let cuts = (1..raw.len())
        .step_by(23)
        .chain(compacted - 3..compacted + 16)
        .chain([raw.len()]);
    let mut compared = 0;
    for keep in cuts {
        let path = cut(&tmp, &raw, keep);
        let reading = JsonlTranscriptReader::default()
            .with_block_size(4096)
            .read_latest(&path, ScanLimits::default())
            .expect("readable");
        let mut events = Vec::new();
        JsonlTranscriptReader::default()
            .read_events(&path, |e| events.push(e))
            .expect("readable");
        let last = events.last().cloned();
        // The in-memory reader embedders test with, given the same events, reads them to the
        // same answer (the window Codex reported included, across the compaction).
        let memory = FakeTranscripts::new();
        memory.insert_for(reading.agent, &path, events);
        let fake = memory
            .read_latest(&path, ScanLimits::default())
            .expect("stored");
        assert_eq!(
            (&fake.usage, &fake.boundary, fake.scope, fake.agent_window),
            (
                &reading.usage,
                &reading.boundary,
                reading.scope,
                reading.agent_window
            ),
            "cut at {keep}"
        );
        match last {
            Some(TranscriptEvent::Usage { record, .. }) => {
                assert_eq!(reading.usage.as_ref(), Some(&record), "cut at {keep}");
                assert_eq!(reading.boundary, None, "cut at {keep}");
                compared += 1;
            }
            Some(TranscriptEvent::Boundary { boundary, .. }) => {
                assert_eq!(reading.boundary.as_ref(), Some(&boundary), "cut at {keep}");
                assert_eq!(reading.usage, None, "cut at {keep}");
                compared += 1;
            }
            None => assert_eq!(
                (reading.usage, reading.boundary),
                (None, None),
                "cut at {keep}"
            ),
        }
        std::fs::remove_file(&path).expect("rm");
    }
    assert!(compared > 100, "{compared}");
}
