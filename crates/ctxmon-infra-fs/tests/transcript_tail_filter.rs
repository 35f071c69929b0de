//! The tail port skips what no derivation reads (successful tool results, subagent lines other
//! than their file writes) before parsing, and keeps everything else, including prompts that
//! mention those tokens.

#![allow(clippy::unwrap_used)]

use ctxmon_application::ports::TranscriptTail;
use ctxmon_infra_fs::JsonlTranscriptReader;
use ctxmon_infra_fs::transcript::records_from_values;
use serde_json::json;

#[test]
fn only_what_derivations_need_is_parsed() {
    let lines = [
        json!({"type":"user","message":{"role":"user","content":"Explain \"type\":\"tool_result\" and \"isSidechain\":true please"}}),
        json!({"type":"user","message":{"role":"user","content":[{"tool_use_id":"t1","type":"tool_result","content":"file contents","is_error":false}]}}),
        json!({"type":"user","message":{"role":"user","content":[{"tool_use_id":"t2","type":"tool_result","content":"boom","is_error":true}]}}),
        json!({"type":"assistant","isSidechain":true,"message":{"role":"assistant","content":[{"type":"text","text":"subagent"}]}}),
        json!({"type":"assistant","message":{"role":"assistant","content":[{"type":"tool_use","id":"t3","name":"Edit","input":{"file_path":"/a.rs"}}]}}),
        json!({"type":"assistant","isSidechain":true,"message":{"role":"assistant","content":[{"type":"tool_use","id":"t4","name":"Write","input":{"file_path":"/b.rs","content":"x"}}]}}),
        json!({"type":"assistant","isSidechain":true,"message":{"role":"assistant","content":[{"type":"tool_use","id":"t5","name":"Read","input":{"file_path":"/c.rs"}}]}}),
    ];
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.jsonl");
    std::fs::write(
        &path,
        lines
            .iter()
            .map(|l| l.to_string() + "\n")
            .collect::<String>(),
    )
    .unwrap();
    let kept = JsonlTranscriptReader::default()
        .read_tail(&path, 1 << 20)
        .unwrap();
    let wanted = [
        lines[0].clone(),
        lines[2].clone(),
        lines[4].clone(),
        lines[5].clone(),
    ];
    assert_eq!(kept, records_from_values(&wanted));
    // The general reader keeps everything.
    assert_eq!(
        ctxmon_infra_fs::read_tail_lines(&path, 1 << 20)
            .unwrap()
            .lines
            .len(),
        7
    );
}
