//! The JSONL transcript reader on hand-made files: the selection rules of contract C2, bad input,
//! file-type and permission errors, the scan limit and block boundaries.

use std::io::Write;
use std::path::Path;

use ctxmon_application::ports::{
    ChainScope, ScanLimits, TranscriptErrorKind, TranscriptEvent, TranscriptReader,
    TranscriptReading,
};
use ctxmon_domain::TokenCount;
use ctxmon_infra_fs::JsonlTranscriptReader;
#[cfg(unix)]
use ctxmon_test_support::unprivileged;
use tempfile::TempDir;

fn assistant(tokens: u64, model: &str, id: &str) -> String {
    format!(
        r#"{{"type":"assistant","isSidechain":false,"message":{{"model":"{model}","id":"{id}","content":[{{"type":"text","text":"hi"}}],"usage":{{"input_tokens":{tokens},"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":7}}}},"uuid":"u-{id}","timestamp":"2026-01-01T00:00:00Z"}}"#
    )
}

fn sidechain(tokens: u64) -> String {
    assistant(tokens, "side-model", "side")
        .replace(r#""isSidechain":false"#, r#""isSidechain":true"#)
}

fn boundary(post: u64) -> String {
    format!(
        r#"{{"type":"system","subtype":"compact_boundary","isSidechain":false,"compactMetadata":{{"trigger":"auto","preTokens":150000,"postTokens":{post}}},"uuid":"b1","timestamp":"2026-01-02T00:00:00Z"}}"#
    )
}

const USER: &str =
    r#"{"type":"user","isSidechain":false,"message":{"role":"user","content":"hello"}}"#;

struct Files {
    dir: TempDir,
}

impl Files {
    fn new() -> Files {
        Files {
            dir: tempfile::tempdir().expect("temp dir"),
        }
    }

    fn bytes(&self, name: &str, data: &[u8]) -> std::path::PathBuf {
        let path = self.dir.path().join(name);
        std::fs::write(&path, data).expect("write temp file");
        path
    }

    fn lines(&self, name: &str, lines: &[&str]) -> std::path::PathBuf {
        let mut data = lines.join("\n");
        data.push('\n');
        self.bytes(name, data.as_bytes())
    }
}

fn read(path: &Path) -> TranscriptReading {
    JsonlTranscriptReader::default()
        .read_latest(path, ScanLimits::default())
        .expect("readable transcript")
}

fn tokens(path: &Path) -> Option<u64> {
    read(path).usage.map(|u| u.tokens.get())
}

#[test]
fn newest_of_streaming_duplicates_is_taken() {
    let f = Files::new();
    let a = assistant(500, "m", "msg_1");
    let b = assistant(900, "m", "msg_2");
    let path = f.lines("t.jsonl", &[&a, USER, &b, &b, &b]);
    let reading = read(&path);
    let usage = reading.usage.expect("usage");
    assert_eq!(usage.tokens, TokenCount(900));
    assert_eq!(usage.message_id.as_deref(), Some("msg_2"));
    assert_eq!(usage.model.as_deref(), Some("m"));
    assert_eq!(reading.scope, ChainScope::Main);
}

#[test]
fn nested_cache_creation_fallback() {
    let f = Files::new();
    let line = r#"{"type":"assistant","message":{"model":"m","usage":{"input_tokens":3,"cache_read_input_tokens":1000,"cache_creation":{"ephemeral_5m_input_tokens":20,"ephemeral_1h_input_tokens":400}}}}"#;
    assert_eq!(tokens(&f.lines("t.jsonl", &[line])), Some(1423));
}

#[test]
fn error_synthetic_and_zero_usage_are_skipped() {
    let f = Files::new();
    let good = assistant(1234, "m", "good");
    let api_error = assistant(99, "m", "err").replace(
        r#""type":"assistant","#,
        r#""type":"assistant","isApiErrorMessage":true,"#,
    );
    let synthetic = assistant(77, "<synthetic>", "syn");
    let zero = assistant(0, "m", "zero");
    let path = f.lines("t.jsonl", &[&good, &api_error, &synthetic, &zero]);
    assert_eq!(tokens(&path), Some(1234));
}

#[test]
fn boundary_newer_than_usage_is_reported() {
    let f = Files::new();
    let path = f.lines(
        "t.jsonl",
        &[&assistant(150_000, "m", "a"), &boundary(19_000), USER],
    );
    let reading = read(&path);
    assert_eq!(reading.usage, None);
    let b = reading.boundary.expect("boundary");
    assert_eq!(b.post_tokens, Some(TokenCount(19_000)));
    assert_eq!(b.pre_tokens, Some(TokenCount(150_000)));
    assert_eq!(b.trigger.as_deref(), Some("auto"));
    assert_eq!(b.uuid.as_deref(), Some("b1"));
    assert!(!reading.hit_scan_limit);
}

#[test]
fn boundary_older_than_usage_is_ignored() {
    let f = Files::new();
    let path = f.lines(
        "t.jsonl",
        &[
            &assistant(150_000, "m", "a"),
            &boundary(19_000),
            USER,
            &assistant(21_000, "m", "b"),
        ],
    );
    let reading = read(&path);
    assert_eq!(reading.boundary, None);
    assert_eq!(reading.usage.map(|u| u.tokens), Some(TokenCount(21_000)));
}

#[test]
fn boundary_without_post_tokens_is_still_reported() {
    let f = Files::new();
    let old_style = r#"{"type":"system","subtype":"compact_boundary","compactMetadata":{"trigger":"manual","preTokens":5000}}"#;
    let reading = read(&f.lines("t.jsonl", &[&assistant(5000, "m", "a"), old_style]));
    let b = reading.boundary.expect("boundary");
    assert_eq!(
        (b.pre_tokens, b.post_tokens),
        (Some(TokenCount(5000)), None)
    );
}

/// `postTokens: 1e999` is beyond f64 and serde_json once refused the whole line, so the
/// compaction was missed and the fill stayed at the pre-compaction value. The figure that does
/// not fit is missing; the boundary still counts, in every reading mode alike.
#[test]
fn a_boundary_whose_post_tokens_does_not_fit_is_still_a_boundary() {
    let f = Files::new();
    let huge = boundary(19_000).replace("19000", "1e999");
    let path = f.lines("t.jsonl", &[&assistant(150_000, "m", "a"), &huge, USER]);
    let reading = read(&path);
    assert_eq!(
        reading.usage, None,
        "the pre-compaction usage is not the answer"
    );
    let b = reading.boundary.expect("boundary");
    assert_eq!(
        (b.pre_tokens, b.post_tokens, b.uuid.as_deref()),
        (Some(TokenCount(150_000)), None, Some("b1"))
    );
    let mut forward = Vec::new();
    JsonlTranscriptReader::default()
        .read_events(&path, |e| forward.push(e))
        .expect("forward");
    assert!(
        matches!(forward.last(), Some(TranscriptEvent::Boundary { boundary, .. }) if *boundary == b),
        "{forward:?}"
    );
}

/// A usage figure beyond f64 reads like one beyond u64: the record is unusable (never 0), and
/// the scan goes on to the older one; a lone surrogate in a field read costs only that field.
#[test]
fn a_usage_figure_that_does_not_fit_is_unusable_and_odd_text_costs_nothing() {
    let f = Files::new();
    let huge = assistant(0, "m", "b").replace(
        r#""cache_read_input_tokens":0"#,
        r#""cache_read_input_tokens":1e999"#,
    );
    let path = f.lines("t.jsonl", &[&assistant(1234, "m", "a"), &huge]);
    assert_eq!(tokens(&path), Some(1234));
    let odd_id = assistant(4321, "m", r"\ud83d");
    let path = f.lines("u.jsonl", &[&assistant(1234, "m", "a"), &odd_id]);
    let usage = read(&path).usage.expect("usage");
    assert_eq!(usage.tokens, TokenCount(4321));
    assert_eq!(usage.message_id.as_deref(), Some("\u{fffd}"));
}

#[test]
fn generic_input_tokens_format() {
    let f = Files::new();
    let path = f.lines(
        "t.jsonl",
        &[
            r#"{"input_tokens":1000}"#,
            r#"{"input_tokens":50000,"model":"x"}"#,
            r#"{"note":"no tokens"}"#,
        ],
    );
    let usage = read(&path).usage.expect("usage");
    assert_eq!(usage.tokens, TokenCount(50_000));
    assert_eq!(usage.model.as_deref(), Some("x"));
}

#[test]
fn partial_last_line_is_tolerated() {
    let f = Files::new();
    let full = assistant(4242, "m", "a");
    let partial = &assistant(9999, "m", "b")[..60];
    let data = format!("{full}\n{partial}");
    assert_eq!(tokens(&f.bytes("t.jsonl", data.as_bytes())), Some(4242));
}

#[test]
fn complete_last_line_without_newline_counts() {
    let f = Files::new();
    let data = format!("{}\n{}", assistant(1, "m", "a"), assistant(2, "m", "b"));
    assert_eq!(tokens(&f.bytes("t.jsonl", data.as_bytes())), Some(2));
}

#[test]
fn missing_file_is_not_found() {
    let f = Files::new();
    let err = JsonlTranscriptReader::default()
        .read_latest(&f.dir.path().join("nope.jsonl"), ScanLimits::default())
        .expect_err("missing file");
    assert_eq!(err.kind, TranscriptErrorKind::NotFound);
    assert!(err.message.contains("nope.jsonl"), "{}", err.message);
}

#[test]
fn path_through_a_file_is_not_found() {
    let f = Files::new();
    let file = f.lines("t.jsonl", &[USER]);
    let err = JsonlTranscriptReader::default()
        .read_latest(&file.join("x.jsonl"), ScanLimits::default())
        .expect_err("no such file");
    assert_eq!(err.kind, TranscriptErrorKind::NotFound);
}

#[test]
fn empty_file_is_empty() {
    let f = Files::new();
    let err = JsonlTranscriptReader::default()
        .read_latest(&f.bytes("t.jsonl", b""), ScanLimits::default())
        .expect_err("empty file");
    assert_eq!(err.kind, TranscriptErrorKind::Empty);
}

#[test]
fn only_garbage_gives_no_usage() {
    let f = Files::new();
    let path = f.bytes(
        "t.jsonl",
        b"not json\n{\"input_tokens\": oops}\n\n   \n{\"type\":\"assistant\"\n\x00\x01\x02",
    );
    let reading = read(&path);
    assert_eq!((reading.usage, reading.boundary), (None, None));
    assert!(!reading.hit_scan_limit);
    assert_eq!(reading.scope, ChainScope::Main);
}

#[test]
fn non_utf8_lines_are_skipped() {
    let f = Files::new();
    let mut data = assistant(777, "m", "a").into_bytes();
    data.push(b'\n');
    // A would-be qualifying line with an invalid byte inside its model string.
    let mut invalid = assistant(5, "mZ", "b").into_bytes();
    if let Some(z) = invalid.iter().position(|&b| b == b'Z') {
        invalid[z] = 0xff;
    }
    data.extend_from_slice(&invalid);
    data.extend_from_slice(b"\n\xfe\xfe\"input_tokens\":3\n\xc3\x28\n");
    assert_eq!(tokens(&f.bytes("t.jsonl", &data)), Some(777));
}

#[test]
fn wrong_typed_or_negative_usage_falls_back_to_an_older_line() {
    let f = Files::new();
    let good = assistant(3000, "m", "good");
    let stringy = assistant(1, "m", "s").replace(r#""input_tokens":1"#, r#""input_tokens":"1""#);
    let negative = assistant(1, "m", "n").replace(
        r#""cache_read_input_tokens":0"#,
        r#""cache_read_input_tokens":-50"#,
    );
    let float = assistant(1, "m", "f").replace(r#""input_tokens":1"#, r#""input_tokens":1.5"#);
    let usage_string = r#"{"type":"assistant","message":{"model":"m","usage":"input_tokens\"5"}}"#;
    let path = f.lines(
        "t.jsonl",
        &[&good, &stringy, &negative, &float, usage_string],
    );
    assert_eq!(tokens(&path), Some(3000));
}

#[test]
fn directory_is_not_a_file() {
    let f = Files::new();
    let err = JsonlTranscriptReader::default()
        .read_latest(f.dir.path(), ScanLimits::default())
        .expect_err("directory");
    assert_eq!(err.kind, TranscriptErrorKind::NotAFile);
}

#[test]
fn fifo_is_not_a_file_and_does_not_block() {
    let f = Files::new();
    let fifo = f.dir.path().join("pipe.jsonl");
    match std::process::Command::new("mkfifo").arg(&fifo).status() {
        Ok(status) if status.success() => {}
        _ => {
            ctxmon_test_support::skip!("mkfifo unavailable; skipping the FIFO test");
            return;
        }
    }
    let (tx, rx) = std::sync::mpsc::channel();
    let path = fifo.clone();
    std::thread::spawn(move || {
        let result = JsonlTranscriptReader::default().read_latest(&path, ScanLimits::default());
        let _ = tx.send(result.map_err(|e| e.kind));
    });
    let result = rx
        .recv_timeout(std::time::Duration::from_secs(10))
        .expect("reading a FIFO must not block");
    assert_eq!(result, Err(TranscriptErrorKind::NotAFile));
}

/// As root (tests and CI) modes do not bind this process: the test binary runs this same test
/// again as nobody (`ctxmon_test_support::unprivileged`), where they do.
#[cfg(unix)]
#[test]
fn unreadable_file_is_permission_denied() {
    use std::os::unix::fs::PermissionsExt;
    use unprivileged::Launch;
    let f = Files::new();
    let path = f.lines("t.jsonl", &[&assistant(1, "m", "a")]);
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o000)).expect("chmod");
    match unprivileged::launch(&path) {
        Ok(Launch::Direct) => {
            let err = JsonlTranscriptReader::default()
                .read_latest(&path, ScanLimits::default())
                .expect_err("unreadable");
            assert_eq!(err.kind, TranscriptErrorKind::PermissionDenied);
        }
        Ok(Launch::Unprivileged(prefix)) => {
            let exe = std::env::current_exe().expect("test binary");
            unprivileged::give_to_nobody(f.dir.path());
            let exe = unprivileged::runnable_copy(&exe, f.dir.path());
            let out = std::process::Command::new(&prefix[0])
                .args(&prefix[1..])
                .arg(exe)
                .args(["--exact", "unreadable_file_is_permission_denied"])
                .output()
                .expect("run the test as nobody");
            let stdout = String::from_utf8_lossy(&out.stdout);
            assert!(
                out.status.success() && stdout.contains("1 passed"),
                "as nobody: {stdout}{}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        Err(notice) => eprintln!("{notice}"),
    }
}

#[test]
fn usage_beyond_the_scan_limit_is_not_found() {
    let f = Files::new();
    let mut lines = vec![assistant(5555, "m", "old")];
    lines.extend(std::iter::repeat_n(USER.to_owned(), 2000));
    let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
    let path = f.lines("t.jsonl", &refs);
    let limits = ScanLimits {
        max_scan_bytes: 64 * 1024,
    };
    let reading = JsonlTranscriptReader::default()
        .read_latest(&path, limits)
        .expect("readable");
    assert_eq!(reading.usage, None);
    assert!(reading.hit_scan_limit);
    assert_eq!(reading.bytes_scanned, 64 * 1024);
    // Without the limit the old line is found.
    assert_eq!(tokens(&path), Some(5555));
}

#[test]
fn line_ending_exactly_at_the_limit_is_whole() {
    let f = Files::new();
    let newest = assistant(42, "m", "n");
    let path = f.lines("t.jsonl", &[USER, &newest]);
    let whole = newest.len() as u64 + 1;
    let reader = JsonlTranscriptReader::default();
    let at = |max| {
        reader.read_latest(
            &path,
            ScanLimits {
                max_scan_bytes: max,
            },
        )
    };
    let reading = at(whole).expect("readable");
    assert_eq!(reading.usage.map(|u| u.tokens), Some(TokenCount(42)));
    assert!(!reading.hit_scan_limit);
    let cut = at(whole - 1).expect("readable");
    assert_eq!(cut.usage, None);
    assert!(cut.hit_scan_limit);
}

#[test]
fn sidechain_fallback_needs_the_whole_file() {
    let f = Files::new();
    let mut lines = vec![sidechain(100)];
    lines.extend(std::iter::repeat_n(USER.replace("false", "true"), 1000));
    lines.push(sidechain(200));
    let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
    let path = f.lines("t.jsonl", &refs);
    let reading = read(&path);
    assert_eq!(reading.scope, ChainScope::Sidechain);
    assert_eq!(reading.usage.map(|u| u.tokens), Some(TokenCount(200)));
    let limited = JsonlTranscriptReader::default()
        .read_latest(
            &path,
            ScanLimits {
                max_scan_bytes: 4096,
            },
        )
        .expect("readable");
    assert_eq!(limited.usage, None);
    assert_eq!(limited.scope, ChainScope::Main);
    assert!(limited.hit_scan_limit);
}

#[test]
fn main_chain_wins_over_newer_sidechain_lines() {
    let f = Files::new();
    let path = f.lines(
        "t.jsonl",
        &[
            &assistant(300, "main", "a"),
            &sidechain(900),
            &sidechain(800),
        ],
    );
    let reading = read(&path);
    assert_eq!(reading.scope, ChainScope::Main);
    assert_eq!(reading.usage.map(|u| u.tokens), Some(TokenCount(300)));
}

#[test]
fn lines_straddling_block_boundaries() {
    const BLOCK: usize = 64 * 1024;
    let f = Files::new();
    let target = assistant(31_337, "m", "t");
    let pad_line = |filler: usize| {
        format!(
            r#"{{"type":"user","message":{{"content":"{}"}}}}"#,
            "x".repeat(filler)
        )
    };
    let pad_overhead = pad_line(0).len();
    for crlf in [false, true] {
        let eol = if crlf { "\r\n" } else { "\n" };
        let tail_user = format!("{USER}{eol}");
        // `d` is where the first block boundary from the end falls, counted from the target
        // line's first byte: before it, on it, inside it, on its line ending, just after.
        let t = target.len() as isize;
        for d in [-3, -2, -1, 0, 1, 2, t / 2, t - 1, t, t + 1, t + 2] {
            // Bytes from the target's start to the end of the file must be BLOCK + d.
            let after_target = (BLOCK as isize + d) - t - eol.len() as isize;
            let filler = after_target - (pad_overhead + eol.len() + tail_user.len()) as isize;
            let filler = usize::try_from(filler).expect("padding fits");
            let data = format!(
                "{}{eol}{target}{eol}{}{eol}{tail_user}",
                assistant(1, "m", "old"),
                pad_line(filler)
            );
            let start = data.find(&target).expect("target present");
            assert_eq!(data.len() - start, (BLOCK as isize + d) as usize);
            let path = f.bytes("t.jsonl", data.as_bytes());
            assert_eq!(tokens(&path), Some(31_337), "d {d} crlf {crlf}");
        }
    }
}

#[test]
fn multi_block_line_is_parsed_whole() {
    let f = Files::new();
    let big_text = "y".repeat(300 * 1024);
    let big =
        assistant(8080, "m", "big").replace(r#""text":"hi""#, &format!(r#""text":"{big_text}""#));
    let path = f.lines("t.jsonl", &[&assistant(1, "m", "a"), &big, USER]);
    let report = JsonlTranscriptReader::default()
        .scan(&path, ScanLimits::default())
        .expect("readable");
    assert_eq!(
        report.reading.usage.map(|u| u.tokens),
        Some(TokenCount(8080))
    );
    assert_eq!(report.stats.oversized_lines, 0);
}

#[test]
fn line_over_the_cap_is_skipped_and_counted() {
    let f = Files::new();
    let big_text = "y".repeat(300 * 1024);
    let big =
        assistant(8080, "m", "big").replace(r#""text":"hi""#, &format!(r#""text":"{big_text}""#));
    let path = f.lines("t.jsonl", &[&assistant(1, "m", "a"), &big]);
    let report = JsonlTranscriptReader::default()
        .with_max_line_bytes(100 * 1024)
        .scan(&path, ScanLimits::default())
        .expect("readable");
    assert_eq!(report.reading.usage.map(|u| u.tokens), Some(TokenCount(1)));
    assert_eq!(report.stats.oversized_lines, 1);
    assert_eq!(report.stats.lines, 2);
}

#[test]
fn file_grown_after_open_is_read_as_it_was() {
    // Appending while reading cannot be timed in a test; instead check that a writer's open
    // handle appending a partial line does not confuse the reader.
    let f = Files::new();
    let path = f.lines("t.jsonl", &[&assistant(10, "m", "a")]);
    let mut w = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .expect("open for append");
    w.write_all(br#"{"type":"assistant","message":{"usage":{"input_tok"#)
        .expect("append");
    assert_eq!(tokens(&path), Some(10));
}
