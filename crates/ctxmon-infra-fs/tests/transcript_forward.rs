//! The forward reader and the session series against the real Claude Code transcripts: one
//! point per distinct main-chain response, and the last point agrees with the backward scan a
//! hook does; so does the in-memory reader embedders test with, fed the forward read's events.
//!
//! The corpus lives outside the repository; without `../shared` these tests print a notice and
//! pass.

// Test support: a panic is how a broken precondition fails the test.
#![allow(clippy::unwrap_used)]

use std::collections::HashSet;
use std::path::Path;

#[path = "support/corpus.rs"]
mod corpus;

use corpus::jsonl_files as transcripts;

use ctxmon_application::config::Config;
use ctxmon_application::fakes::FakeTranscripts;
use ctxmon_application::monitor::fill::{FillSeries, FillSeriesBuilder, FillSettings, SeriesScope};
use ctxmon_application::ports::{ScanLimits, TranscriptReader};
use ctxmon_infra_fs::JsonlTranscriptReader;

fn series(path: &Path, block: usize) -> FillSeries {
    let settings = FillSettings::from_config(&Config::default()).unwrap();
    let mut builder = FillSeriesBuilder::new();
    JsonlTranscriptReader::default()
        .with_block_size(block)
        .read_events(path, |e| builder.push(e))
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    builder.finish(&settings, None)
}

/// Distinct message ids of qualifying assistant lines, counted with serde_json alone: the
/// independent answer the series must match.
fn distinct_responses(path: &Path, sidechain: bool) -> usize {
    let text = std::fs::read_to_string(path).unwrap();
    let mut ids = HashSet::new();
    for line in text.lines() {
        let Ok(v) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        if v["type"] != "assistant"
            || v["isSidechain"].as_bool().unwrap_or(false) != sidechain
            || v["isApiErrorMessage"] == true
            || v["message"]["model"] == "<synthetic>"
        {
            continue;
        }
        let u = &v["message"]["usage"];
        let sum: u64 = [
            "input_tokens",
            "cache_creation_input_tokens",
            "cache_read_input_tokens",
        ]
        .iter()
        .filter_map(|k| u[k].as_u64())
        .sum();
        if sum > 0 {
            ids.insert(v["message"]["id"].as_str().unwrap().to_string());
        }
    }
    ids.len()
}

#[test]
fn one_point_per_response_and_the_last_agrees_with_the_backward_scan() {
    let Some(dir) = corpus::corpus("tests") else {
        return;
    };
    let mut checked = 0;
    for path in transcripts(&dir) {
        let name = path.display().to_string();
        let s = series(&path, 64 * 1024);
        let small = series(&path, 97);
        assert_eq!(s, small, "{name}: block size must not matter");
        let expected = distinct_responses(&path, s.scope == SeriesScope::Sidechain);
        assert_eq!(s.points.len(), expected, "{name}");
        let reading = JsonlTranscriptReader::default()
            .read_latest(&path, ScanLimits::default())
            .unwrap();
        match (&reading.usage, s.last()) {
            (Some(usage), Some(last)) => {
                assert_eq!(usage.tokens, last.tokens, "{name}");
                assert_eq!(usage.message_id, last.message_id, "{name}");
                checked += 1;
            }
            (None, _) => assert!(reading.boundary.is_some() || s.points.is_empty(), "{name}"),
            (Some(_), None) => panic!("{name}: the hook sees a usage the report misses"),
        }
    }
    assert!(checked >= 8, "only {checked} transcripts had usage");
}

#[test]
fn known_shapes_of_the_corpus() {
    let Some(dir) = corpus::corpus("tests") else {
        return;
    };
    let streaming = series(&dir.join("cc-1.0.51-streaming-duplicates.jsonl"), 64 * 1024);
    assert_eq!(streaming.points.len(), 105, "177 lines, 105 responses");
    assert_eq!(streaming.points[0].tokens.get(), 17_437);
    let agent = series(&dir.join("cc-2.0.37-agent-file.jsonl"), 64 * 1024);
    assert_eq!(agent.scope, SeriesScope::Sidechain);
    assert_eq!(agent.last().map(|p| p.tokens.get()), Some(36_962));
    let boundary = series(
        &dir.join("cc-2.1.226-compact-boundary-line.jsonl"),
        64 * 1024,
    );
    assert!(boundary.points.is_empty());
    assert_eq!(boundary.compactions.len(), 1);
    assert_eq!(
        boundary.compactions[0].post_tokens.map(|t| t.get()),
        Some(19_650)
    );
    let rewind = series(&dir.join("synthetic-compact-after-rewind.jsonl"), 64 * 1024);
    assert_eq!(rewind.compactions.len(), 1);
    assert!(rewind.compactions[0].index > 0 && rewind.compactions[0].index < rewind.points.len());
}

/// `fakes::FakeTranscripts` claims to read a transcript kept as events by the file reader's
/// rules (the newest main-chain event, a boundary newer than every usage, the sidechain
/// fallback, the reported window). Fed the events the forward read finds in each real
/// transcript, it must report what the backward scan of the file reports.
#[test]
fn the_in_memory_reader_agrees_with_the_file_reader() {
    let Some(dir) = corpus::corpus("in-memory reader comparison") else {
        return;
    };
    let reader = JsonlTranscriptReader::default();
    // The whole file, as the in-memory reader sees the whole transcript.
    let whole = ScanLimits {
        max_scan_bytes: u64::MAX,
    };
    let mut compared = 0;
    for path in transcripts(&dir) {
        let name = path.display().to_string();
        let Ok(file) = reader.read_latest(&path, whole) else {
            continue;
        };
        let mut events = Vec::new();
        reader.read_events(&path, |e| events.push(e)).unwrap();
        let memory = FakeTranscripts::new();
        memory.insert_for(file.agent, &path, events);
        let fake = memory.read_latest(&path, whole).unwrap();
        assert_eq!(fake.usage, file.usage, "{name}");
        assert_eq!(fake.boundary, file.boundary, "{name}");
        assert_eq!(fake.scope, file.scope, "{name}");
        assert_eq!(fake.agent_window, file.agent_window, "{name}");
        compared += 1;
    }
    assert!(compared >= 8, "only {compared} transcripts compared");
}
