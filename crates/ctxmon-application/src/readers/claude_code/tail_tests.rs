//! A window read in two halves at once gives the records one reader gives, wherever the
//! halves meet.

use std::io::Cursor;

use serde_json::json;

use super::*;

fn one_reader(bytes: &[u8]) -> Vec<TranscriptRecord> {
    let len = bytes.len() as u64;
    tail_records(&mut Cursor::new(bytes), None, len, len).expect("read")
}

fn halves(bytes: &[u8], middle: u64) -> Vec<TranscriptRecord> {
    let len = bytes.len() as u64;
    let second = Box::new(Cursor::new(bytes.to_vec()));
    in_halves(&mut Cursor::new(bytes), second, len, 0, middle).expect("read")
}

/// Every meeting point near each line's start and a few in between.
fn same_wherever_the_halves_meet(name: &str, bytes: &[u8]) {
    let whole = one_reader(bytes);
    let mut points: Vec<u64> = memchr::memchr_iter(b'\n', bytes)
        .flat_map(|at| [at as u64, at as u64 + 1, at as u64 + 2])
        .collect();
    let len = bytes.len() as u64;
    points.extend((0..=16).map(|k| len * k / 16));
    // A large file is checked at a sample of its lines: the rule is the same at each.
    let step = (points.len() / 48).max(1);
    for middle in points.into_iter().step_by(step) {
        assert_eq!(
            halves(bytes, middle),
            whole,
            "{name}, halves meeting at byte {middle}"
        );
    }
}

#[test]
fn a_result_whose_call_is_in_the_older_half_is_read_with_it() {
    let line = |v: serde_json::Value| format!("{v}\n");
    let mut text = String::new();
    text.push_str(&line(
        json!({"type": "user", "timestamp": "2026-12-01T10:00:00Z",
        "message": {"role": "user", "content": "write the report"}}),
    ));
    for (i, name) in ["Write", "Read", "Bash", "TaskCreate"].iter().enumerate() {
        let id = format!("toolu_{i}");
        let input = match *name {
            "Bash" => json!({"command": "git commit -m report"}),
            "TaskCreate" => json!({"subject": "publish"}),
            _ => json!({"file_path": format!("/w/report{i}.md"), "content": "x"}),
        };
        text.push_str(&line(
            json!({"type": "assistant", "timestamp": "2026-12-01T10:00:01Z",
            "message": {"role": "assistant", "content": [
                {"type": "tool_use", "id": id, "name": name, "input": input}]}}),
        ));
        let output = match *name {
            "Read" => "     1\tfirst\n     2\tsecond".to_string(),
            "Bash" => "[main 1a2b3c4] report\n 1 file changed".to_string(),
            "TaskCreate" => "Task #7 created successfully: publish".to_string(),
            _ => "File created successfully at: /w/report0.md".to_string(),
        };
        text.push_str(&line(
            json!({"type": "user", "timestamp": "2026-12-01T10:00:02Z",
            "message": {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": id, "content": output}]},
            "toolUseResult": {"type": "create"}}),
        ));
    }
    same_wherever_the_halves_meet("hand-made", text.as_bytes());
}

#[test]
fn a_short_window_is_read_by_one_thread_and_a_long_one_in_halves() {
    // Both give the same records; only the long window is worth a second thread.
    let mut text = String::new();
    while (text.len() as u64) < 2 * SPLIT_FROM_BYTES {
        text.push_str(&format!(
            "{}\n",
            json!({"type": "user", "message": {"role": "user", "content": "go on"}})
        ));
    }
    let bytes = text.as_bytes();
    let len = bytes.len() as u64;
    let second = Box::new(Cursor::new(bytes.to_vec()));
    let split = tail_records(&mut Cursor::new(bytes), Some(second), len, len).expect("read");
    assert_eq!(split, one_reader(bytes));
    assert_eq!(split.len(), bytes.iter().filter(|b| **b == b'\n').count());
}
