//! Resume-log CLI test support: a project whose transcript sits where Claude Code keeps it,
//! and what the resume-log folder holds.
//!
//! Used by the resume-log tests (`common::resume_log`).

// Test support: a panic is how a broken precondition fails the test.
#![allow(dead_code, clippy::unwrap_used)]

use std::path::{Path, PathBuf};

use ctxmon_infra_fs::claude_paths::project_slugs;
use serde_json::json;

use super::Sandbox;

pub const SESSION: &str = "2f1e5d0c-aaaa-4bbb-8ccc-123456789abc";

/// Writes a transcript for `session` where Claude Code would, and returns its path.
pub fn transcript(sb: &Sandbox, session: &str) -> PathBuf {
    let canonical = std::fs::canonicalize(sb.dir()).unwrap();
    let folder = sb
        .home
        .path()
        .join(".claude/projects")
        .join(&project_slugs(&canonical)[0]);
    std::fs::create_dir_all(&folder).unwrap();
    let lines = [
        json!({"type": "user", "message": {"role": "user", "content": "Refactor billing and add tax.rs"}}),
        json!({"type": "assistant", "message": {"role": "assistant", "content": [
            {"type": "tool_use", "id": "1", "name": "Write", "input": {"file_path": "/w/src/tax.rs", "content": "x"}},
            {"type": "tool_use", "id": "2", "name": "Bash", "input": {"command": "cargo test -p billing"}},
            {"type": "tool_use", "id": "3", "name": "TodoWrite", "input": {"todos": [
                {"content": "Split billing.rs", "status": "completed"},
                {"content": "Write tax.rs", "status": "in_progress"}
            ]}}
        ]}}),
        json!({"type": "assistant", "message": {"model": "claude-sonnet-4-5-20250929", "id": "m1", "role": "assistant",
            "content": [{"type": "text", "text": "Tax module drafted."}],
            "usage": {"input_tokens": 3, "cache_creation_input_tokens": 1000, "cache_read_input_tokens": 164_997, "output_tokens": 50}}}),
    ];
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let path = folder.join(format!("{session}.jsonl"));
    std::fs::write(&path, text).unwrap();
    path
}

pub fn logs_dir(sb: &Sandbox) -> PathBuf {
    sb.path(".ctxmon/resume-logs")
}

pub fn snapshot(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .map(|d| {
            d.map(|e| {
                let e = e.unwrap();
                (
                    e.file_name().to_string_lossy().into_owned(),
                    std::fs::read(e.path()).unwrap_or_default(),
                )
            })
            .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
}

pub fn one_line_error(stderr: &str) -> &str {
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 1, "expected one line: {stderr}");
    lines[0]
}
