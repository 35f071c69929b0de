//! The library's readers on input that goes wrong: a source whose reads fail midway, a file
//! that shrinks while it is read, bytes that are not UTF-8 or not JSON at all. Each gives a
//! typed error or a bounded result, never a panic.

use std::io::{self, Cursor, Read, Seek, SeekFrom};
use std::ops::ControlFlow;
use std::path::Path;

use ctxmon_application::ports::{
    AgentKind, ScanLimits, TranscriptError, TranscriptErrorKind, TranscriptReader, TranscriptTail,
};
use ctxmon_application::readers::{FileAccess, TranscriptFiles};
use proptest::prelude::*;

const USAGE: &str = r#"{"type":"assistant","message":{"model":"m","usage":{"input_tokens":5,"cache_read_input_tokens":100}}}"#;
const ROLLOUT_META: &str =
    r#"{"timestamp":"t","type":"session_meta","payload":{"id":"s","cwd":"/p"}}"#;

/// Bytes served as a file whose reads fail once `fail_at` bytes have been read from the
/// start, and whose length is claimed to be `claimed` (more than the bytes: a file that shrank
/// after its length was taken).
#[derive(Clone)]
struct Odd {
    bytes: Vec<u8>,
    fail_at: Option<u64>,
    claimed: Option<u64>,
}

struct OddFile {
    inner: Cursor<Vec<u8>>,
    fail_at: Option<u64>,
}

impl Read for OddFile {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if let Some(at) = self.fail_at
            && self.inner.position() + buf.len() as u64 > at
        {
            return Err(io::Error::other("the disk went away"));
        }
        self.inner.read(buf)
    }
}

impl Seek for OddFile {
    fn seek(&mut self, to: SeekFrom) -> io::Result<u64> {
        self.inner.seek(to)
    }
}

impl FileAccess for Odd {
    type File = OddFile;

    fn open(&self, _: &Path) -> Result<(OddFile, u64), TranscriptError> {
        let len = self.claimed.unwrap_or(self.bytes.len() as u64);
        let file = OddFile {
            inner: Cursor::new(self.bytes.clone()),
            fail_at: self.fail_at,
        };
        Ok((file, len))
    }
}

fn reader(bytes: &[u8], fail_at: Option<u64>, claimed: Option<u64>) -> TranscriptFiles<Odd> {
    TranscriptFiles::new(Odd {
        bytes: bytes.to_vec(),
        fail_at,
        claimed,
    })
}

/// A transcript of `lines` long enough that a small block size needs many reads.
fn transcript(lines: usize) -> Vec<u8> {
    let filler =
        r#"{"type":"user","message":{"content":"a prompt of some length to fill the file"}}"#;
    let mut text = String::new();
    text.push_str(USAGE);
    text.push('\n');
    for _ in 0..lines {
        text.push_str(filler);
        text.push('\n');
    }
    text.into_bytes()
}

const P: &str = "t.jsonl";

#[test]
fn a_read_that_fails_midway_is_an_io_error_from_every_entry_point() {
    let bytes = transcript(400);
    assert!(bytes.len() > 30_000);
    // The first 16 KiB (what telling the format reads) are fine; later reads fail.
    let r = reader(&bytes, Some(16 * 1024 + 100), None).with_block_size(512);
    let path = Path::new(P);
    let kind = |e: TranscriptError| e.kind;
    assert_eq!(
        r.read_latest(path, ScanLimits::default()).map_err(kind),
        Err(TranscriptErrorKind::Io)
    );
    assert_eq!(
        r.read_tail(path, u64::MAX).map_err(kind),
        Err(TranscriptErrorKind::Io)
    );
    assert_eq!(
        r.read_events(path, |_| {}).map(|_| ()).map_err(kind),
        Err(TranscriptErrorKind::Io)
    );
    let mut visit = |_: &_| ControlFlow::Continue(());
    assert_eq!(
        r.read_head(path, u64::MAX, &mut visit).map_err(kind),
        Err(TranscriptErrorKind::Io)
    );
    assert_eq!(
        r.tail_lines(path, u64::MAX).map(|_| ()).map_err(kind),
        Err(TranscriptErrorKind::Io)
    );
    // Failing from the first byte: telling the format fails the same way.
    let early = reader(&bytes, Some(0), None);
    assert_eq!(
        early.agent_of(path).map_err(kind),
        Err(TranscriptErrorKind::Io)
    );
    let err = early.read_latest(path, ScanLimits::default()).unwrap_err();
    assert!(err.to_string().contains("the disk went away"), "{err}");
    assert_eq!(early.last_model(path, ScanLimits::default()), None);
}

#[test]
fn a_file_that_shrank_while_read_is_an_error_or_a_bounded_result() {
    let bytes = transcript(20);
    let claimed = Some(bytes.len() as u64 + 5_000);
    let r = reader(&bytes, None, claimed);
    let path = Path::new(P);
    // Reading back from a length that is no longer there fails rather than inventing bytes.
    let err = r.read_latest(path, ScanLimits::default()).unwrap_err();
    assert_eq!(err.kind, TranscriptErrorKind::Io);
    assert_eq!(
        r.read_tail(path, u64::MAX).unwrap_err().kind,
        TranscriptErrorKind::Io
    );
    // Reading forward stops where the bytes stop: what was there, no more.
    let mut events = 0;
    let stats = r.read_events(path, |_| events += 1).unwrap();
    assert_eq!((events, stats.bytes_read), (1, bytes.len() as u64));
    let mut firsts = 0;
    r.read_head(path, u64::MAX, &mut |_| {
        firsts += 1;
        ControlFlow::Continue(())
    })
    .unwrap();
    assert_eq!(firsts, 21, "every whole line that was there");
}

#[test]
fn bytes_that_are_not_utf8_cost_their_line_only() {
    let mut bytes =
        b"{\"type\":\"assistant\",\"message\":{\"usage\":{\"input_tokens\":7}}}\n".to_vec();
    bytes.extend_from_slice(b"\xff\xfe\x00 not text at all \xc3\n");
    bytes.extend_from_slice(b"{\"type\":\"user\",\"message\":{\"content\":\"caf\xe9\"}}\n");
    let r = reader(&bytes, None, None);
    let reading = r.read_latest(Path::new(P), ScanLimits::default()).unwrap();
    assert_eq!(reading.usage.map(|u| u.tokens.get()), Some(7));
    assert_eq!(reading.agent, AgentKind::ClaudeCode);
    // The prompt with a Latin-1 byte is still a prompt (the byte read as U+FFFD).
    let records = r.read_tail(Path::new(P), u64::MAX).unwrap();
    assert!(
        records
            .iter()
            .any(|rec| format!("{:?}", rec.body).contains("caf\u{fffd}")),
        "{records:?}"
    );
}

#[test]
fn an_empty_source_is_the_empty_error_and_a_rollout_is_told_by_its_first_line() {
    let r = reader(b"", None, None);
    let err = r
        .read_latest(Path::new(P), ScanLimits::default())
        .unwrap_err();
    assert_eq!(err.kind, TranscriptErrorKind::Empty);
    let rollout = format!("{ROLLOUT_META}\n\u{0}\u{1}garbage\n");
    let r = reader(rollout.as_bytes(), None, None);
    let reading = r.read_latest(Path::new(P), ScanLimits::default()).unwrap();
    assert_eq!(reading.agent, AgentKind::Codex);
    assert_eq!((reading.usage, reading.boundary), (None, None));
}

#[test]
fn a_closure_that_cannot_open_gives_the_ports_error_kinds() {
    let missing = TranscriptFiles::new(|_: &Path| -> io::Result<Cursor<Vec<u8>>> {
        Err(io::Error::from(io::ErrorKind::NotFound))
    });
    let err = missing
        .read_latest(Path::new(P), ScanLimits::default())
        .unwrap_err();
    assert_eq!(err.kind, TranscriptErrorKind::NotFound);
    let denied = TranscriptFiles::new(|_: &Path| -> io::Result<Cursor<Vec<u8>>> {
        Err(io::Error::from(io::ErrorKind::PermissionDenied))
    });
    let err = denied.read_tail(Path::new(P), 10).unwrap_err();
    assert_eq!(err.kind, TranscriptErrorKind::PermissionDenied);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Any bytes, any failure point, any claimed length: every entry point answers.
    #[test]
    fn no_bytes_make_a_reader_panic(
        bytes in proptest::collection::vec(prop_oneof![
            Just(b'\n'), Just(b'{'), Just(b'}'), Just(b'"'), Just(0xff), any::<u8>(),
        ], 0..400),
        codex in any::<bool>(),
        fail_at in proptest::option::of(0u64..500),
        extra in proptest::option::of(0u64..300),
        block in 1usize..64,
        max_scan in 0u64..600,
    ) {
        let mut all = Vec::new();
        if codex {
            all.extend_from_slice(ROLLOUT_META.as_bytes());
            all.push(b'\n');
        }
        all.extend_from_slice(&bytes);
        let claimed = extra.map(|e| all.len() as u64 + e);
        let r = reader(&all, fail_at, claimed).with_block_size(block).with_max_line_bytes(64);
        let path = Path::new(P);
        let limits = ScanLimits { max_scan_bytes: max_scan };
        let _ = r.read_latest(path, limits);
        let _ = r.last_model(path, limits);
        let _ = r.read_tail(path, max_scan);
        let _ = r.read_events(path, |_| {});
        let _ = r.read_head(path, max_scan, &mut |_| ControlFlow::Continue(()));
        let _ = r.tail_lines(path, max_scan);
    }
}

/// What `ctxmon status` makes of files that give no figure, as the library call says it.
#[test]
fn measure_says_why_a_file_gives_no_figure() {
    use ctxmon_application::monitor::fill::FillSettings;
    use ctxmon_application::readers::{FillError, NO_RESPONSE_YET};

    let settings = FillSettings::default();
    let path = Path::new(P);
    let measure = |bytes: &[u8]| reader(bytes, None, None).measure(path, &settings, None);
    // Before the first answer: a figure of 0 with nothing wrong, whether empty or not.
    for waiting in [
        &b""[..],
        b"{\"type\":\"user\",\"message\":{\"content\":\"hi\"}}\n",
    ] {
        let fill = measure(waiting).unwrap();
        assert!(fill.awaiting_first_response);
        assert_eq!(fill.estimate.input_tokens.get(), 0);
        assert_eq!(fill.estimate.note.as_deref(), Some(NO_RESPONSE_YET));
    }
    // Not JSON lines at all: nothing to measure, said as such.
    assert!(matches!(
        measure(b"\xff\xfe not a transcript\n"),
        Err(FillError::NothingToMeasure(_))
    ));
    // A hook's input passed by mistake is named.
    let hook = br#"{"hook_event_name":"Stop","transcript_path":"/t.jsonl"}"#;
    match measure(hook) {
        Err(e @ FillError::NotATranscript(_)) => assert!(e.to_string().contains("hook")),
        other => panic!("{other:?}"),
    }
    // A read that fails is the reader's error, kind and all.
    let failing = reader(&transcript(10), Some(0), None).measure(path, &settings, None);
    match failing {
        Err(FillError::Unreadable(e)) => assert_eq!(e.kind, TranscriptErrorKind::Io),
        other => panic!("{other:?}"),
    }
}
