//! The JSONL transcript adapter: finds the newest qualifying usage record or compaction boundary
//! at the end of a Claude Code transcript (contract C2) without reading the whole file. A Codex CLI
//! rollout is JSONL too: `format` tells the two apart by the first line, and every entry point
//! (`scan`, `read_events`, the tail port) hands a rollout to `crate::codex`, so callers need
//! one reader whichever agent wrote the file.
//!
//! Layout: `backward` walks lines newest first in fixed blocks with bounded memory, `line`
//! decides what one line means for the fill, `tail` reads the last bytes forward for later
//! derivations, `records` (with `prompt`) turns those lines into the tail port's typed records
//! (`lean` parses a line for them only),
//! and `forward` streams the whole file through the same line rules for the session report.
//!
//! Decisions behind the reading rules of contract C2, taken here:
//! - A usage whose summed fields have the wrong type (a string, a negative number, a float) does
//!   not qualify: the line is skipped and the scan goes on to older lines. Reading such a field
//!   as 0 would under-report the fill; fields outside the formula may hold anything.
//! - A boundary with malformed `compactMetadata` is still a boundary, with the bad figures `None`.
//! - A line longer than the line cap (4 MiB by default) is skipped unparsed but counted, and the
//!   scan continues past it. Assistant lines hold one content block of model output, which
//!   output-token limits keep well under a megabyte, so only tool results and garbage are that
//!   long. Its bytes still count toward `max_scan_bytes`.
//! - The sidechain fallback applies only when the scan reached the start of the file: at the scan
//!   limit it cannot know that no main-chain line exists further back, and a subagent's figure
//!   reported as the session's would be wrong, so the result is `None` (source `unavailable`).
//! - Among sidechain lines the same rule as for the main chain holds: the newest sidechain usage
//!   or boundary wins, a sidechain boundary newer than every sidechain usage is reported as a
//!   boundary.

pub(crate) mod backward;
mod format;
mod forward;
mod lean;
pub(crate) mod lenient;
mod line;
pub(crate) mod open;
mod prompt;
pub(crate) mod records;
pub(crate) mod tail;

use std::path::{Path, PathBuf};

use ctxmon_application::ports::{
    AgentKind, ChainScope, CompactionBoundary, ScanLimits, TranscriptError, TranscriptReader,
    TranscriptReading, UsageRecord,
};

use backward::{BackLine, BackwardLines};
use line::{LineEvent, classify};
use open::{io_error, open_regular};

pub use format::{
    SNIFF_BYTES, agent_of, agent_of_prefix, input_in_place_of_transcript, opens_as_json_lines,
};
pub use forward::ForwardStats;
pub use records::{RESULT_HEAD_CHARS, RESULT_TAIL_CHARS, RecordParser, records_from_values};
pub use tail::{TailLines, read_tail_lines};

/// Block size of the backward scan.
pub const DEFAULT_BLOCK_SIZE: usize = 64 * 1024;

/// Lines longer than this are skipped without being held in memory (see the module docs).
pub const DEFAULT_MAX_LINE_BYTES: u64 = 4 * 1024 * 1024;

/// Counts from one scan, for diagnostics and tests; the port's reading carries the result.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ScanStats {
    /// Non-empty lines met, including oversized ones.
    pub lines: u64,
    /// Lines longer than the line cap, skipped unparsed.
    pub oversized_lines: u64,
}

/// A reading plus how it was obtained.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScanReport {
    pub reading: TranscriptReading,
    pub stats: ScanStats,
}

/// Reads Claude Code JSONL transcripts backwards from the end (contract C2).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JsonlTranscriptReader {
    block_size: usize,
    max_line_bytes: u64,
    /// A transcript whose agent the caller has already read from its first line
    /// ([`JsonlTranscriptReader::knowing`]).
    known: Option<(PathBuf, AgentKind)>,
}

impl Default for JsonlTranscriptReader {
    fn default() -> Self {
        JsonlTranscriptReader::new()
    }
}

impl JsonlTranscriptReader {
    pub fn new() -> JsonlTranscriptReader {
        JsonlTranscriptReader {
            block_size: DEFAULT_BLOCK_SIZE,
            max_line_bytes: DEFAULT_MAX_LINE_BYTES,
            known: None,
        }
    }

    /// A reader told that `path` was written by `agent`, as [`agent_of`] found it: every read
    /// of that path skips telling the format again (a hook that has told it to choose its
    /// settings read the file's start once more for each read after). Other paths are told
    /// as usual.
    pub fn knowing(&self, path: &Path, agent: AgentKind) -> JsonlTranscriptReader {
        JsonlTranscriptReader {
            known: Some((path.to_path_buf(), agent)),
            ..self.clone()
        }
    }

    /// The agent that wrote `path`: the one this reader was told, else [`agent_of`]'s answer.
    pub(crate) fn agent_of(&self, path: &Path) -> Result<AgentKind, TranscriptError> {
        match &self.known {
            Some((known, agent)) if known == path => Ok(*agent),
            _ => agent_of(path),
        }
    }

    /// Sets the block size (at least 1 byte). Only tests and benchmarks have a reason to: small
    /// blocks put line ends on block boundaries.
    pub fn with_block_size(&self, bytes: usize) -> JsonlTranscriptReader {
        JsonlTranscriptReader {
            block_size: bytes.max(1),
            ..self.clone()
        }
    }

    /// Sets the longest line that is parsed; longer lines are skipped and counted.
    pub fn with_max_line_bytes(&self, bytes: u64) -> JsonlTranscriptReader {
        JsonlTranscriptReader {
            max_line_bytes: bytes,
            ..self.clone()
        }
    }

    /// Scans `path` in one backward pass and reports the reading with scan counts. A Codex
    /// rollout (told by its first line, `format`) is scanned by its own rules (`codex::scan`).
    pub fn scan(&self, path: &Path, limits: ScanLimits) -> Result<ScanReport, TranscriptError> {
        match self.agent_of(path)? {
            AgentKind::Codex => {
                return crate::codex::scan(path, limits, self.block_size, self.max_line_bytes);
            }
            AgentKind::Gemini => return crate::gemini::scan(path, limits),
            AgentKind::ClaudeCode => {}
        }
        let (file, file_len) = open_regular(path)?;
        let mut lines = BackwardLines::new(
            file,
            file_len,
            limits.max_scan_bytes,
            self.block_size,
            self.max_line_bytes,
        );
        let mut stats = ScanStats::default();
        // The newest sidechain result, kept while looking for a main-chain one so that a
        // subagent's own transcript needs no second pass.
        let mut sidechain: Option<Found> = None;
        let main = loop {
            let event = match lines.next_line().map_err(|e| io_error(path, &e))? {
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
            agent: Default::default(),
            agent_window: None,
            agent_model: None,
            usage,
            boundary,
            scope,
            bytes_scanned: lines.bytes_scanned(file_len),
        };
        Ok(ScanReport { reading, stats })
    }
}

impl JsonlTranscriptReader {
    /// The model of the newest main-chain response within `limits`, looking past compaction
    /// boundaries: after a compaction the newest reading has no response, but the session's
    /// model is still the one it last answered with (and decides the window).
    pub fn last_model(&self, path: &Path, limits: ScanLimits) -> Option<String> {
        if self.agent_of(path).ok()? != AgentKind::ClaudeCode {
            return None;
        }
        let (file, file_len) = open_regular(path).ok()?;
        let mut lines = BackwardLines::new(
            file,
            file_len,
            limits.max_scan_bytes,
            self.block_size,
            self.max_line_bytes,
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
}

impl TranscriptReader for JsonlTranscriptReader {
    fn read_latest(
        &self,
        path: &Path,
        limits: ScanLimits,
    ) -> Result<TranscriptReading, TranscriptError> {
        self.scan(path, limits).map(|report| report.reading)
    }
}

/// A qualifying line's meaning, before it is known whether it is the answer.
#[derive(Debug)]
enum Found {
    Usage(UsageRecord),
    Boundary(CompactionBoundary),
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reader told a path's agent uses it for that path without reading the file's start
    /// again (here told wrong on purpose, which shows), and tells other paths itself.
    #[test]
    fn a_reader_told_the_agent_of_a_path_uses_it_for_that_path_only() {
        let dir = tempfile::tempdir().unwrap();
        let line = r#"{"type":"assistant","isSidechain":false,"message":{"model":"m","id":"a","content":[],"usage":{"input_tokens":5,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":1}}}"#;
        let (told, other) = (
            dir.path().join("told.jsonl"),
            dir.path().join("other.jsonl"),
        );
        std::fs::write(&told, format!("{line}\n")).unwrap();
        std::fs::write(&other, format!("{line}\n")).unwrap();
        let limits = ScanLimits::default();
        let plain = JsonlTranscriptReader::new();
        let reading = |r: &JsonlTranscriptReader, p: &Path| r.read_latest(p, limits).unwrap();
        let tokens = |r: TranscriptReading| r.usage.map(|u| u.tokens);
        assert_eq!(
            tokens(reading(&plain, &told)),
            Some(ctxmon_domain::TokenCount(5))
        );

        let right = plain.knowing(&told, AgentKind::ClaudeCode);
        assert_eq!(reading(&right, &told), reading(&plain, &told));
        let wrong = plain.knowing(&told, AgentKind::Codex);
        assert_eq!(tokens(reading(&wrong, &told)), None, "read as a rollout");
        assert_eq!(reading(&wrong, &other), reading(&plain, &other));
        // The settings carry over.
        assert_eq!(
            wrong.with_block_size(7).agent_of(&told).unwrap(),
            AgentKind::Codex
        );
    }
}
