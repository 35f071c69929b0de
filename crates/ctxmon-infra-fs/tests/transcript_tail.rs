//! `read_tail_lines`: the last bytes of a transcript as whole JSON lines, oldest first.

use ctxmon_application::ports::TranscriptErrorKind;
use ctxmon_infra_fs::read_tail_lines;
use serde_json::json;

fn file(data: &[u8]) -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("t.jsonl");
    std::fs::write(&path, data).expect("write");
    (dir, path)
}

#[test]
fn whole_small_file_is_read_in_order() {
    let (_dir, path) = file(b"{\"n\":1}\r\n\n{\"n\":2}\nnot json\n{\"n\":3}");
    let tail = read_tail_lines(&path, 1024).expect("readable");
    assert_eq!(tail.lines, [json!({"n":1}), json!({"n":2}), json!({"n":3})]);
    assert_eq!(tail.skipped_lines, 1);
    assert!(tail.from_file_start);
}

#[test]
fn first_partial_line_of_the_window_is_dropped() {
    let data = b"{\"n\":1}\n{\"n\":2}\n{\"n\":3}\n";
    let (_dir, path) = file(data);
    // The last 12 bytes begin inside line 2, which is cut and dropped.
    let tail = read_tail_lines(&path, 12).expect("readable");
    assert_eq!(tail.lines, [json!({"n":3})]);
    assert_eq!(tail.skipped_lines, 0);
    assert!(!tail.from_file_start);
    // 16 bytes start right after the first newline: line 2 is whole and kept.
    let tail = read_tail_lines(&path, 16).expect("readable");
    assert_eq!(tail.lines, [json!({"n":2}), json!({"n":3})]);
    assert!(!tail.from_file_start);
    assert!(tail.bytes_read <= 17);
}

#[test]
fn line_being_written_is_skipped() {
    let (_dir, path) = file(b"{\"n\":1}\n{\"n\":");
    let tail = read_tail_lines(&path, 1024).expect("readable");
    assert_eq!(tail.lines, [json!({"n":1})]);
    assert_eq!(tail.skipped_lines, 1);
}

#[test]
fn window_inside_one_long_line_gives_nothing() {
    let mut data = b"{\"n\":1}\n{\"text\":\"".to_vec();
    data.extend(std::iter::repeat_n(b'x', 10_000));
    data.extend_from_slice(b"\"}\n");
    let (_dir, path) = file(&data);
    let tail = read_tail_lines(&path, 100).expect("readable");
    assert!(tail.lines.is_empty());
    assert_eq!(tail.skipped_lines, 0);
    assert!(tail.bytes_read <= 101);
}

#[test]
fn zero_budget_reads_nothing() {
    let (_dir, path) = file(b"{\"n\":1}\n");
    let tail = read_tail_lines(&path, 0).expect("readable");
    assert!(tail.lines.is_empty());
}

#[test]
fn errors_match_the_reader() {
    let dir = tempfile::tempdir().expect("temp dir");
    let missing = read_tail_lines(&dir.path().join("none.jsonl"), 10).expect_err("missing");
    assert_eq!(missing.kind, TranscriptErrorKind::NotFound);
    let not_file = read_tail_lines(dir.path(), 10).expect_err("directory");
    assert_eq!(not_file.kind, TranscriptErrorKind::NotAFile);
    let (_d, empty) = file(b"");
    assert_eq!(
        read_tail_lines(&empty, 10).expect_err("empty").kind,
        TranscriptErrorKind::Empty
    );
}

#[test]
fn non_utf8_and_deep_lines_are_skipped_without_panic() {
    let mut data = b"\xff\xfe\n".to_vec();
    data.extend(std::iter::repeat_n(b'[', 100_000));
    data.extend(std::iter::repeat_n(b']', 100_000));
    data.extend_from_slice(b"\n{\"ok\":true}\n");
    let (_dir, path) = file(&data);
    let tail = read_tail_lines(&path, 1 << 20).expect("readable");
    assert_eq!(tail.lines, [json!({"ok":true})]);
    assert_eq!(tail.skipped_lines, 2);
}
