//! The library's readers on every transcript at hand: the repository's own fixtures, the
//! handoff fixtures, and the shared corpus of real Claude Code transcripts, Codex rollouts and
//! Gemini CLI chats (outside the repository: without it those are skipped, visibly).
//!
//! Read through a closure over `std::fs::File::open`, exactly as an embedder would.

use std::fs::File;
use std::io::Cursor;
use std::path::{Path, PathBuf};

use ctxmon_application::ports::{AgentKind, ChainScope, ScanLimits, TranscriptReader};
use ctxmon_application::readers::TranscriptFiles;
use ctxmon_application::readers::claude_code::{RecordParser, lean_line, tail_records};
use ctxmon_application::readers::json::repair;
use serde_json::Value;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn shared(name: &str) -> Option<PathBuf> {
    let dir = root().join("../shared/fixtures").join(name);
    if dir.is_dir() {
        Some(dir)
    } else {
        ctxmon_test_support::skip!("{} is absent; its files are not read", dir.display());
        None
    }
}

fn jsonl_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            jsonl_files(&path, out);
        } else if path.extension().is_some_and(|x| x == "jsonl") {
            out.push(path);
        }
    }
}

/// Every line of a transcript, whole and lean, through one parser each: the same records, in
/// the same order. On the way, `sort` is checked against `wants` and `push_unparsed`.
fn same_records(lines: &[&[u8]]) {
    let (mut whole, mut lean) = (RecordParser::default(), RecordParser::default());
    let (mut from_whole, mut from_lean) = (Vec::new(), Vec::new());
    for line in lines {
        let (mut sorted, mut unparsed) = (Vec::new(), Vec::new());
        let wanted = whole.sort(line, &mut sorted);
        assert_eq!(wanted, whole.wants(line));
        if !wanted {
            whole.push_unparsed(line, &mut unparsed);
        }
        assert_eq!(sorted, unparsed);
        let full = repair::from_slice_lenient::<Value>(line).ok();
        let pruned = lean_line(line);
        assert_eq!(
            full.is_some(),
            pruned.is_some(),
            "{}",
            String::from_utf8_lossy(line)
        );
        if let (Some(full), Some(pruned)) = (full, pruned) {
            whole.push(&full, &mut from_whole);
            lean.push(&pruned, &mut from_lean);
        }
    }
    assert_eq!(from_lean, from_whole);
}

/// A key the records read but the lean parse drops would lose records silently: every line
/// of every Claude Code transcript at hand makes the same records either way.
#[test]
fn lean_lines_make_the_records_whole_lines_make() {
    let mut files = Vec::new();
    jsonl_files(&root().join("fixtures/transcripts"), &mut files);
    jsonl_files(
        &root().join("crates/ctxmon-cli/tests/fixtures/handoff"),
        &mut files,
    );
    if let Some(dir) = shared("claude-code-transcripts") {
        jsonl_files(&dir, &mut files);
    }
    assert!(files.len() >= 3, "{files:?}");
    for file in files {
        let bytes = std::fs::read(&file).unwrap();
        let lines: Vec<&[u8]> = bytes
            .split(|&b| b == b'\n')
            .filter(|l| !l.is_empty())
            .collect();
        same_records(&lines);
    }
}

/// The figures the corpus's SOURCES.md records, read as an embedder reads them.
#[test]
fn an_embedder_reads_the_real_transcripts_figures() {
    let reader = TranscriptFiles::new(|path: &Path| File::open(path));
    let tokens = |path: &Path| {
        reader
            .read_latest(path, ScanLimits::default())
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    };
    if let Some(dir) = shared("claude-code-transcripts") {
        // A compaction after the last response: its boundary's size, not 0.
        let compacted = tokens(&dir.join("cc-2.1.226-compact-boundary-line.jsonl"));
        let post = compacted.boundary.and_then(|b| b.post_tokens);
        assert_eq!(post.map(|t| t.get()), Some(19_650));
        // A subagent's own transcript: measured from its sidechain lines.
        let reading = tokens(&dir.join("cc-2.0.37-agent-file.jsonl"));
        assert_eq!(reading.usage.map(|u| u.tokens.get()), Some(36_962));
        assert_eq!(reading.scope, ChainScope::Sidechain);
    }
    if let Some(dir) = shared("gemini-chats") {
        let chat = tokens(&dir.join("session-2026-04-25T08-23-e435870b.jsonl"));
        assert_eq!(chat.agent, AgentKind::Gemini);
        assert_eq!(chat.usage.map(|u| u.tokens.get()), Some(13_116));
    }
    if let Some(dir) = shared("codex-rollouts") {
        let mut rollouts = Vec::new();
        jsonl_files(&dir, &mut rollouts);
        assert!(!rollouts.is_empty());
        for rollout in rollouts {
            let reading = tokens(&rollout);
            assert_eq!(reading.agent, AgentKind::Codex, "{}", rollout.display());
            assert!(reading.usage.is_some() || reading.boundary.is_some());
        }
    }
}

/// Every Claude Code transcript at hand, one after another: a long session of real lines.
fn real_claude_code_lines() -> Option<Vec<u8>> {
    let dir = shared("claude-code-transcripts")?;
    let mut files = Vec::new();
    jsonl_files(&dir, &mut files);
    files.sort();
    let mut bytes = Vec::new();
    for file in files {
        bytes.extend(std::fs::read(&file).expect("fixture"));
        if bytes.last() != Some(&b'\n') {
            bytes.push(b'\n');
        }
    }
    Some(bytes)
}

#[test]
fn a_long_window_read_in_halves_gives_the_records_of_one_reader() {
    // The halves meet in the window's middle: windows of many sizes move that point across
    // the real lines, results whose calls are in the older half among them.
    let Some(bytes) = real_claude_code_lines() else {
        return;
    };
    let len = bytes.len() as u64;
    assert!(len > 2 * 1024 * 1024, "{len} bytes");
    for k in 1..=40 {
        let window = 1024 * 1024 + (len - 1024 * 1024) * k / 40;
        let one = tail_records(&mut Cursor::new(&bytes), None, len, window).expect("read");
        let second = Box::new(Cursor::new(bytes.clone()));
        let two = tail_records(&mut Cursor::new(&bytes), Some(second), len, window).expect("read");
        assert!(
            one == two,
            "a window of {window} bytes read in halves differs"
        );
        assert!(!one.is_empty());
    }
}
