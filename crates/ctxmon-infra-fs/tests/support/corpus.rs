//! The shared Claude Code transcripts (`../shared/fixtures/claude-code-transcripts/`) as the
//! fixture tests read them. The corpus lives outside the repository: without it these tests
//! print a notice and pass (a user's clone); CI, where it is present, runs them for real.
//!
//! Included with `#[path = "support/corpus.rs"] mod corpus;`, so each test file takes only
//! what it uses.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use serde_json::Value;

/// The corpus folder, or `None` after a notice naming the tests that `what` skips.
pub fn corpus(what: &str) -> Option<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/fixtures/claude-code-transcripts");
    if dir.is_dir() {
        Some(dir)
    } else {
        ctxmon_test_support::skip!(
            "{} is absent; skipping the real-transcript {what}",
            dir.display()
        );
        None
    }
}

/// Every `.jsonl` file below `dir` (subagent folders included), sorted.
pub fn jsonl_files(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap_or_else(|e| panic!("{}: {e}", d.display())) {
            let path = entry.map(|e| e.path()).unwrap_or_default();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|x| x == "jsonl") {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}

/// Every JSON line of the file (tests may read files; the crate's code may not).
pub fn json_lines(path: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

/// Every string anywhere in the lines, newline-joined: the transcript's text without JSON
/// escaping in the way.
pub fn haystack(lines: &[Value]) -> String {
    fn walk(v: &Value, out: &mut String) {
        match v {
            Value::String(s) => {
                out.push_str(s);
                out.push('\n');
            }
            Value::Array(a) => a.iter().for_each(|x| walk(x, out)),
            Value::Object(m) => m.values().for_each(|x| walk(x, out)),
            _ => {}
        }
    }
    let mut out = String::new();
    lines.iter().for_each(|l| walk(l, &mut out));
    out
}

/// The shared Codex CLI rollouts (`../shared/fixtures/codex-rollouts/`), or `None` after a
/// notice naming the tests that `what` skips.
pub fn gemini_corpus(what: &str) -> Option<PathBuf> {
    let dir =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/fixtures/gemini-chats");
    if dir.is_dir() {
        Some(dir)
    } else {
        ctxmon_test_support::skip!("{} is absent; skipping the real-chat {what}", dir.display());
        None
    }
}

/// The Codex rollouts folder, or `None` after a notice naming the tests that `what` skips.
pub fn codex_corpus(what: &str) -> Option<PathBuf> {
    let dir =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/fixtures/codex-rollouts");
    if dir.is_dir() {
        Some(dir)
    } else {
        ctxmon_test_support::skip!(
            "{} is absent; skipping the real-rollout {what}",
            dir.display()
        );
        None
    }
}
