//! The reader against real Claude Code transcripts: every expected value in
//! `../shared/fixtures/claude-code-transcripts/SOURCES.md`, at several block sizes.
//!
//! The corpus lives outside the repository; on a fresh clone without `../shared` these tests
//! print a notice and pass, and CI (where the corpus is present) runs them for real.

#[path = "support/corpus.rs"]
mod corpus;

use ctxmon_application::ports::{ChainScope, ScanLimits, TranscriptReader, TranscriptReading};
use ctxmon_domain::TokenCount;
use ctxmon_infra_fs::JsonlTranscriptReader;

/// Reads `name` with the default reader and with small blocks, which must agree.
fn read(dir: &std::path::Path, name: &str) -> TranscriptReading {
    let path = dir.join(name);
    let reading = JsonlTranscriptReader::default()
        .read_latest(&path, ScanLimits::default())
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    for block in [4096, 97] {
        let small = JsonlTranscriptReader::default()
            .with_block_size(block)
            .read_latest(&path, ScanLimits::default())
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(
            (&small.usage, &small.boundary, small.scope),
            (&reading.usage, &reading.boundary, reading.scope),
            "{name} with {block}-byte blocks"
        );
    }
    assert!(!reading.hit_scan_limit, "{name}");
    reading
}

fn check_usage(name: &str, tokens: u64, model: &str, scope: ChainScope) {
    let Some(dir) = corpus::corpus("tests") else {
        return;
    };
    let reading = read(&dir, name);
    assert_eq!(reading.boundary, None, "{name}");
    assert_eq!(reading.scope, scope, "{name}");
    let usage = reading
        .usage
        .unwrap_or_else(|| panic!("{name}: no usage record found"));
    assert_eq!(usage.tokens, TokenCount(tokens), "{name}");
    assert_eq!(usage.model.as_deref(), Some(model), "{name}");
    assert!(usage.message_id.is_some(), "{name}");
    assert!(usage.timestamp.is_some(), "{name}");
}

#[test]
fn basic_session_with_nested_cache_creation() {
    check_usage(
        "cc-1.0.98-basic.jsonl",
        17437,
        "claude-sonnet-4-20250514",
        ChainScope::Main,
    );
}

#[test]
fn inline_sidechain_lines_do_not_count() {
    check_usage(
        "cc-1.0.108-inline-sidechain.jsonl",
        26080,
        "claude-sonnet-4-20250514",
        ChainScope::Main,
    );
}

#[test]
fn heavy_inline_sidechain_gives_the_main_chain_value() {
    check_usage(
        "cc-1.0.98-heavy-inline-sidechain.jsonl",
        21552,
        "claude-sonnet-4-20250514",
        ChainScope::Main,
    );
}

#[test]
fn streaming_duplicates() {
    check_usage(
        "cc-1.0.51-streaming-duplicates.jsonl",
        104468,
        "claude-sonnet-4-20250514",
        ChainScope::Main,
    );
}

#[test]
fn sonnet_4_5_with_queue_operations() {
    check_usage(
        "cc-2.0.37-sonnet-4-5.jsonl",
        68182,
        "claude-sonnet-4-5-20250929",
        ChainScope::Main,
    );
}

#[test]
fn agent_file_is_read_as_sidechain() {
    check_usage(
        "cc-2.0.37-agent-file.jsonl",
        36962,
        "claude-sonnet-4-5-20250929",
        ChainScope::Sidechain,
    );
}

#[test]
fn subagent_layout_session_file() {
    check_usage(
        "cc-2.1.17-subagent-layout/29ccd257-68b1-427f-ae5f-6524b7cb6f20.jsonl",
        23954,
        "claude-opus-4-5-20251101",
        ChainScope::Main,
    );
}

#[test]
fn subagent_layout_agent_file_is_read_as_sidechain() {
    check_usage(
        "cc-2.1.17-subagent-layout/subagents/agent-a2271d1.jsonl",
        42774,
        "claude-haiku-4-5-20251001",
        ChainScope::Sidechain,
    );
}

#[test]
fn opus_4_6_with_progress_and_snapshots() {
    check_usage(
        "cc-2.1.42-opus-4-6.jsonl",
        28320,
        "claude-opus-4-6",
        ChainScope::Main,
    );
}

#[test]
fn usage_after_a_boundary_wins() {
    check_usage(
        "synthetic-compact-after-rewind.jsonl",
        10,
        "claude-sonnet-4-20250514",
        ChainScope::Main,
    );
}

#[test]
fn real_compact_boundary_line() {
    let Some(dir) = corpus::corpus("tests") else {
        return;
    };
    let reading = read(&dir, "cc-2.1.226-compact-boundary-line.jsonl");
    assert_eq!(reading.usage, None);
    assert_eq!(reading.scope, ChainScope::Main);
    let boundary = reading.boundary.expect("a compaction boundary");
    assert_eq!(boundary.post_tokens, Some(TokenCount(19650)));
    assert_eq!(boundary.pre_tokens, Some(TokenCount(801920)));
    assert_eq!(boundary.trigger.as_deref(), Some("manual"));
    assert_eq!(
        boundary.uuid.as_deref(),
        Some("7b52ac75-04d8-4608-b7e1-07da94f5146c")
    );
    assert_eq!(
        boundary.timestamp.as_deref(),
        Some("2026-08-18T18:59:30.622Z")
    );
}

#[test]
fn whole_fixture_files_fit_one_scan_without_the_limit() {
    let Some(dir) = corpus::corpus("tests") else {
        return;
    };
    // The largest fixture is about 1.1 MB: reading it must cover at most the whole file.
    let path = dir.join("cc-1.0.51-streaming-duplicates.jsonl");
    let len = std::fs::metadata(&path).expect("fixture metadata").len();
    let reading = JsonlTranscriptReader::default()
        .read_latest(&path, ScanLimits::default())
        .expect("readable fixture");
    assert!(reading.bytes_scanned <= len);
    assert!(
        reading.bytes_scanned <= 64 * 1024,
        "the newest qualifying line is near the end, read {} bytes",
        reading.bytes_scanned
    );
}
