//! The reader on very large input: 50 MB single lines and a 1 GiB (sparse) transcript. Checks
//! bounded reads and bounded memory, not speed: timings are printed for information only, the
//! benchmark owns the performance targets.

use std::io::{BufWriter, Write};
use std::path::Path;
use std::time::Instant;

use ctxmon_application::ports::{ScanLimits, TranscriptReading};
use ctxmon_domain::TokenCount;
use ctxmon_infra_fs::JsonlTranscriptReader;
use ctxmon_infra_fs::transcript::ScanReport;

const MIB: u64 = 1024 * 1024;

fn assistant(tokens: u64) -> String {
    format!(
        r#"{{"type":"assistant","message":{{"model":"m","id":"msg","usage":{{"input_tokens":{tokens},"cache_read_input_tokens":0}}}}}}"#
    )
}

/// Writes `head`, then `len` bytes produced by repeating `fill`, then `tail`, without holding
/// the big part in memory.
fn write_file(path: &Path, head: &str, fill: &[u8], len: u64, tail: &str) {
    let file = std::fs::File::create(path).expect("create");
    let mut w = BufWriter::with_capacity(MIB as usize, file);
    w.write_all(head.as_bytes()).expect("write");
    let chunk: Vec<u8> = fill.iter().copied().cycle().take(MIB as usize).collect();
    let mut left = len;
    while left > 0 {
        let n = left.min(MIB) as usize;
        w.write_all(&chunk[..n]).expect("write");
        left -= n as u64;
    }
    w.write_all(tail.as_bytes()).expect("write");
    w.flush().expect("flush");
}

/// Peak resident memory of this process, where the platform reports it.
fn peak_rss() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

fn scan(path: &Path, max_scan_bytes: u64) -> ScanReport {
    let started = Instant::now();
    let report = JsonlTranscriptReader::default()
        .scan(path, ScanLimits { max_scan_bytes })
        .expect("readable");
    eprintln!(
        "info: scanned {} bytes of {} in {:?}",
        report.reading.bytes_scanned,
        path.display(),
        started.elapsed()
    );
    report
}

fn tokens(reading: &TranscriptReading) -> Option<TokenCount> {
    reading.usage.as_ref().map(|u| u.tokens)
}

/// The peak-memory figure is per process: the other test of this binary reads only sparse
/// zeros and one small block at a time, so it cannot disturb the figure.
#[test]
fn fifty_megabyte_lines_are_skipped_with_bounded_memory() {
    let dir = tempfile::tempdir().expect("temp dir");
    let before = peak_rss();
    let big = 50 * MIB;
    let valid = format!("{}\n", assistant(4321));

    // A huge qualifying-looking assistant line, still being written (no newline at the end).
    let json_path = dir.path().join("json.jsonl");
    let head = format!(
        "{valid}{{\"type\":\"assistant\",\"message\":{{\"usage\":{{\"input_tokens\":9}},\"content\":\""
    );
    write_file(&json_path, &head, b"abcdefgh", big, "\"}}");
    // A huge garbage line with a newline at the end.
    let garbage_path = dir.path().join("garbage.jsonl");
    write_file(
        &garbage_path,
        &valid,
        b"\x00\xff{\"input_tokens\":",
        big,
        "\n",
    );
    // Nothing but a huge garbage line.
    let only_path = dir.path().join("only.jsonl");
    write_file(&only_path, "", b"zz", big, "");

    for path in [&json_path, &garbage_path] {
        // Within the default 32 MiB limit the big line is never complete: nothing is found.
        let report = scan(path, ScanLimits::default().max_scan_bytes);
        assert_eq!(tokens(&report.reading), None);
        assert!(report.reading.hit_scan_limit);
        assert_eq!(report.reading.bytes_scanned, 32 * MIB);
        // With room for the whole file the big line is skipped and the older one found.
        let report = scan(path, 64 * MIB);
        assert_eq!(tokens(&report.reading), Some(TokenCount(4321)));
        assert!(!report.reading.hit_scan_limit);
        assert_eq!(report.stats.oversized_lines, 1);
    }
    let report = scan(&only_path, 64 * MIB);
    assert_eq!(tokens(&report.reading), None);
    assert!(!report.reading.hit_scan_limit);
    assert_eq!(report.stats.oversized_lines, 1);

    match (before, peak_rss()) {
        (Some(before), Some(after)) => {
            let grown = after.saturating_sub(before);
            eprintln!("info: peak RSS grew by {} KiB", grown / 1024);
            // One 64 KiB block plus at most one 4 MiB line, with room for the allocator.
            assert!(grown < 12 * MIB, "peak RSS grew by {grown} bytes");
        }
        _ => eprintln!("notice: peak RSS not available on this platform; not checked"),
    }
}

#[test]
fn one_gibibyte_transcript_reads_only_its_tail() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("big.jsonl");
    // A sparse 1 GiB file (a hole reads as NUL bytes, one enormous unparseable line) followed by
    // real lines: creating it takes no time and no disk.
    let file = std::fs::File::create(&path).expect("create");
    file.set_len(1024 * MIB).expect("set_len");
    drop(file);
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .expect("open");
    let user = r#"{"type":"user","message":{"content":"go"}}"#;
    writeln!(f, "\n{}\n{user}\n{}", assistant(1), assistant(150_000)).expect("append");
    drop(f);

    let report = scan(&path, ScanLimits::default().max_scan_bytes);
    assert_eq!(tokens(&report.reading), Some(TokenCount(150_000)));
    assert!(report.reading.bytes_scanned <= 64 * 1024);

    // With no line break in the last 32 MiB, the scan stops at the limit, not at the file start.
    let long_tail_path = dir.path().join("no-usage.jsonl");
    let file = std::fs::File::create(&long_tail_path).expect("create");
    file.set_len(1024 * MIB).expect("set_len");
    drop(file);
    let report = scan(&long_tail_path, ScanLimits::default().max_scan_bytes);
    assert_eq!(tokens(&report.reading), None);
    assert!(report.reading.hit_scan_limit);
    assert_eq!(report.reading.bytes_scanned, 32 * MIB);
}
