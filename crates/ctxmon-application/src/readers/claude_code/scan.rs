//! The backward scan of a Claude Code transcript: from the end, newest line first, to the
//! newest qualifying usage record or a compaction boundary newer than it, within the byte
//! bound, so a hook costs the same on a 1 GiB transcript as on a 1 KiB one.
//!
//! The rules beyond what one line says (`line`):
//! - Lines of subagents (`isSidechain: true`) are left out. Only when the scan reached the start
//!   of the file without a main-chain result are they used, by the same rules (the file is a
//!   subagent's own transcript): at the scan limit it cannot know that no main-chain line
//!   exists further back, and a subagent's figure reported as the session's would be wrong, so
//!   the result is then none (source `unavailable`).
//! - Among sidechain lines the newest usage or boundary wins, as on the main chain.
//! - A line longer than the line cap is skipped unparsed but counted, and the scan continues
//!   past it; its bytes still count toward the scan limit.

use std::io::{self, Read, Seek};

use super::line::{LineEvent, classify};
use crate::ports::{
    AgentKind, ChainScope, CompactionBoundary, ScanLimits, TranscriptReading, UsageRecord,
};
use crate::readers::jsonl::backward::{BackLine, BackwardLines, ScanReport, ScanShape, ScanStats};

/// Scans `src` (`file_len` bytes long) backwards and reports the reading with scan counts.
pub fn scan<R: Read + Seek>(
    src: R,
    file_len: u64,
    limits: ScanLimits,
    shape: ScanShape,
) -> io::Result<ScanReport> {
    let mut lines = BackwardLines::new(
        src,
        file_len,
        limits.max_scan_bytes,
        shape.block_size,
        shape.max_line_bytes,
    );
    let mut stats = ScanStats::default();
    // The newest sidechain result, kept while looking for a main-chain one so that a
    // subagent's own transcript needs no second pass.
    let mut sidechain: Option<Found> = None;
    let main = loop {
        let event = match lines.next_line()? {
            None => break None,
            Some(BackLine::Oversized { .. }) => {
                stats.lines += 1;
                stats.oversized_lines += 1;
                continue;
            }
            Some(BackLine::Line(bytes)) => {
                stats.lines += 1;
                classify(bytes)
            }
        };
        let (is_sidechain, found) = match event {
            LineEvent::Skip => continue,
            LineEvent::Usage { sidechain, record } => (sidechain, Found::Usage(record)),
            LineEvent::Boundary {
                sidechain,
                boundary,
            } => (sidechain, Found::Boundary(boundary)),
        };
        if !is_sidechain {
            break Some(found);
        }
        if sidechain.is_none() {
            sidechain = Some(found);
        }
    };
    let hit_limit = lines.hit_limit();
    let (found, scope) = match main {
        Some(found) => (Some(found), ChainScope::Main),
        None if !hit_limit && sidechain.is_some() => (sidechain, ChainScope::Sidechain),
        None => (None, ChainScope::Main),
    };
    let (usage, boundary) = match found {
        Some(Found::Usage(record)) => (Some(record), None),
        Some(Found::Boundary(boundary)) => (None, Some(boundary)),
        None => (None, None),
    };
    let reading = TranscriptReading {
        hit_scan_limit: hit_limit && usage.is_none() && boundary.is_none(),
        agent: AgentKind::ClaudeCode,
        agent_window: None,
        agent_model: None,
        usage,
        boundary,
        scope,
        bytes_scanned: lines.bytes_scanned(file_len),
    };
    Ok(ScanReport { reading, stats })
}

/// The model of the newest main-chain response of `src` within `limits`, looking past
/// compaction boundaries: after a compaction the newest reading has no response, but the
/// session's model is still the one it last answered with (and decides the window). `None`
/// when there is none within the limit or the source cannot be read.
pub fn last_model<R: Read + Seek>(
    src: R,
    file_len: u64,
    limits: ScanLimits,
    shape: ScanShape,
) -> Option<String> {
    let mut lines = BackwardLines::new(
        src,
        file_len,
        limits.max_scan_bytes,
        shape.block_size,
        shape.max_line_bytes,
    );
    while let Ok(Some(line)) = lines.next_line() {
        if let BackLine::Line(bytes) = line
            && let LineEvent::Usage {
                sidechain: false,
                record,
            } = classify(bytes)
            && record.model.is_some()
        {
            return record.model;
        }
    }
    None
}

/// A qualifying line's meaning, before it is known whether it is the answer.
#[derive(Debug)]
enum Found {
    Usage(UsageRecord),
    Boundary(CompactionBoundary),
}

#[cfg(test)]
mod tests {
    use std::io::Cursor;

    use super::*;

    const MAIN: &str = r#"{"type":"assistant","message":{"model":"m","usage":{"input_tokens":5}}}"#;
    const SIDE: &str = r#"{"type":"assistant","isSidechain":true,"message":{"model":"s","usage":{"input_tokens":9}}}"#;
    const BOUNDARY: &str =
        r#"{"type":"system","subtype":"compact_boundary","compactMetadata":{"postTokens":3}}"#;

    fn read(lines: &[&str], max_scan_bytes: u64) -> TranscriptReading {
        let text = lines.join("\n") + "\n";
        let len = text.len() as u64;
        let limits = ScanLimits { max_scan_bytes };
        scan(Cursor::new(text), len, limits, ScanShape::default())
            .expect("in memory")
            .reading
    }

    #[test]
    fn the_main_chain_wins_and_sidechains_stand_in_only_from_the_file_start() {
        let r = read(&[MAIN, SIDE], u64::MAX);
        assert_eq!(r.usage.map(|u| u.tokens.get()), Some(5));
        let r = read(&[SIDE], u64::MAX);
        assert_eq!(r.scope, ChainScope::Sidechain);
        assert_eq!(r.usage.map(|u| u.tokens.get()), Some(9));
        // A limit that stops short of the file's start: no stand-in.
        let r = read(&["{\"type\":\"user\"}", SIDE], SIDE.len() as u64 + 1);
        assert!(r.hit_scan_limit);
        assert_eq!(r.usage, None);
    }

    #[test]
    fn a_boundary_after_the_last_response_is_the_reading_and_the_model_is_found_past_it() {
        let r = read(&[MAIN, BOUNDARY], u64::MAX);
        assert_eq!(r.usage, None);
        assert_eq!(
            r.boundary.and_then(|b| b.post_tokens).map(|t| t.get()),
            Some(3)
        );
        let text = format!("{MAIN}\n{BOUNDARY}\n");
        let len = text.len() as u64;
        let model = last_model(
            Cursor::new(text),
            len,
            ScanLimits::default(),
            ScanShape::default(),
        );
        assert_eq!(model.as_deref(), Some("m"));
    }

    #[test]
    fn a_source_that_fails_midway_is_an_error() {
        /// Seeks, but every read fails.
        struct Failing {
            inner: Cursor<Vec<u8>>,
        }
        impl Read for Failing {
            fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
                Err(io::Error::other("disk gone"))
            }
        }
        impl Seek for Failing {
            fn seek(&mut self, to: io::SeekFrom) -> io::Result<u64> {
                self.inner.seek(to)
            }
        }
        let text = format!("{MAIN}\n").into_bytes();
        let len = text.len() as u64;
        let src = Failing {
            inner: Cursor::new(text),
        };
        let err = scan(src, len, ScanLimits::default(), ScanShape::default()).unwrap_err();
        assert_eq!(err.to_string(), "disk gone");
    }
}
