//! An in-memory transcript reader: transcripts kept as the events a file would hold (usage
//! records and compaction boundaries, in file order), read back by the rules the file adapter
//! follows (contract C2). Tests of the fill, and embedders who run the use cases without files,
//! measure a transcript without writing one.
//!
//! The rules applied, as `ctxmon-infra-fs`'s reader applies them to a file read backwards:
//! - the newest main-chain event decides: a usage record is the fill; a compaction boundary
//!   newer than every usage record is reported as the boundary, without a usage record (what
//!   preceded it was compacted away);
//! - a transcript without main-chain events but with sidechain ones is a subagent's own: the
//!   newest sidechain event decides, and the scope says so;
//! - the window the agent reported with its newest count (`UsageRecord::context_window`)
//!   outlives a newer compaction, as a Codex rollout's does.
//!
//! There are no bytes, so `ScanLimits` are not consulted and the scan never hits its limit.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::ports::{
    AgentKind, ChainScope, ScanLimits, TranscriptError, TranscriptErrorKind, TranscriptEvent,
    TranscriptReader, TranscriptReading,
};

/// One transcript: which agent wrote it and what its qualifying lines say, oldest first.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct FakeTranscript {
    /// The agent whose auto-compaction rule applies to the reading.
    pub agent: AgentKind,
    /// Usage records and compaction boundaries in file order; an empty list is a transcript
    /// with no response yet (only the user's first line).
    pub events: Vec<TranscriptEvent>,
}

/// Transcripts in memory, by path, read through [`TranscriptReader`]. A path with no
/// transcript reads as `NotFound`, as a missing file does.
///
/// ```
/// use std::path::Path;
///
/// use ctxmon_application::fakes::{FakeTranscripts, records};
/// use ctxmon_application::ports::{ScanLimits, TranscriptReader};
///
/// let transcripts = FakeTranscripts::new();
/// transcripts.insert(
///     "s.jsonl",
///     vec![
///         records::usage(120_000, "claude-sonnet-4-5"),
///         records::usage(150_000, "claude-sonnet-4-5"),
///     ],
/// );
/// let reading = transcripts
///     .read_latest(Path::new("s.jsonl"), ScanLimits::default())
///     .expect("the transcript exists");
/// assert_eq!(reading.usage.map(|u| u.tokens.get()), Some(150_000));
/// assert!(transcripts.read_latest(Path::new("other.jsonl"), ScanLimits::default()).is_err());
/// ```
#[derive(Debug, Default)]
pub struct FakeTranscripts {
    /// The transcripts, by path.
    pub files: RefCell<BTreeMap<PathBuf, FakeTranscript>>,
}

impl FakeTranscripts {
    /// No transcripts.
    pub fn new() -> FakeTranscripts {
        FakeTranscripts::default()
    }

    /// Stores a Claude Code transcript at `path` holding `events` (oldest first), replacing
    /// any transcript there.
    pub fn insert(&self, path: impl Into<PathBuf>, events: Vec<TranscriptEvent>) {
        self.insert_for(AgentKind::ClaudeCode, path, events);
    }

    /// Stores a transcript written by `agent` at `path`, replacing any transcript there.
    pub fn insert_for(
        &self,
        agent: AgentKind,
        path: impl Into<PathBuf>,
        events: Vec<TranscriptEvent>,
    ) {
        self.files
            .borrow_mut()
            .insert(path.into(), FakeTranscript { agent, events });
    }

    /// Appends `event` to the transcript at `path` (a Claude Code one when there is none yet),
    /// as the agent appends a line.
    pub fn push(&self, path: impl Into<PathBuf>, event: TranscriptEvent) {
        self.files
            .borrow_mut()
            .entry(path.into())
            .or_default()
            .events
            .push(event);
    }
}

impl TranscriptReader for FakeTranscripts {
    fn read_latest(
        &self,
        path: &Path,
        _limits: ScanLimits,
    ) -> Result<TranscriptReading, TranscriptError> {
        let files = self.files.borrow();
        let Some(transcript) = files.get(path) else {
            return Err(TranscriptError::new(
                TranscriptErrorKind::NotFound,
                format!("no transcript at {}", path.display()),
            ));
        };
        Ok(reading_of(transcript))
    }
}

/// The reading a backward scan of `transcript` would give (see the module documentation).
fn reading_of(transcript: &FakeTranscript) -> TranscriptReading {
    let newest = |sidechain: bool| {
        transcript
            .events
            .iter()
            .rev()
            .find(|e| is_sidechain(e) == sidechain)
    };
    let (found, scope) = match (newest(false), newest(true)) {
        (Some(event), _) => (Some(event), ChainScope::Main),
        (None, Some(event)) => (Some(event), ChainScope::Sidechain),
        (None, None) => (None, ChainScope::Main),
    };
    let (usage, boundary) = match found {
        Some(TranscriptEvent::Usage { record, .. }) => (Some(record.clone()), None),
        Some(TranscriptEvent::Boundary { boundary, .. }) => (None, Some(boundary.clone())),
        None => (None, None),
    };
    let in_scope = scope == ChainScope::Sidechain;
    let agent_window = transcript.events.iter().rev().find_map(|e| match e {
        TranscriptEvent::Usage { sidechain, record } if *sidechain == in_scope => {
            record.context_window
        }
        _ => None,
    });
    TranscriptReading {
        usage,
        boundary,
        scope,
        bytes_scanned: 0,
        hit_scan_limit: false,
        agent: transcript.agent,
        agent_window,
        agent_model: None,
    }
}

fn is_sidechain(event: &TranscriptEvent) -> bool {
    match event {
        TranscriptEvent::Usage { sidechain, .. } | TranscriptEvent::Boundary { sidechain, .. } => {
            *sidechain
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fakes::records::{compaction, usage};
    use ctxmon_domain::TokenCount;

    fn read(t: &FakeTranscripts, path: &str) -> TranscriptReading {
        t.read_latest(Path::new(path), ScanLimits::default())
            .unwrap_or_else(|e| panic!("{path}: {e}"))
    }

    fn sidechain(event: TranscriptEvent) -> TranscriptEvent {
        match event {
            TranscriptEvent::Usage { record, .. } => TranscriptEvent::Usage {
                sidechain: true,
                record,
            },
            TranscriptEvent::Boundary { boundary, .. } => TranscriptEvent::Boundary {
                sidechain: true,
                boundary,
            },
        }
    }

    #[test]
    fn the_newest_main_chain_usage_is_the_fill() {
        let t = FakeTranscripts::new();
        t.insert(
            "a",
            vec![usage(10, "m"), usage(20, "m"), sidechain(usage(999, "sub"))],
        );
        let r = read(&t, "a");
        assert_eq!(r.usage.map(|u| u.tokens), Some(TokenCount(20)));
        assert_eq!(r.boundary, None);
        assert_eq!(r.scope, ChainScope::Main);
        assert_eq!(r.agent, AgentKind::ClaudeCode);
    }

    #[test]
    fn a_newer_compaction_hides_the_usage_before_it() {
        let t = FakeTranscripts::new();
        t.insert("a", vec![usage(150_000, "m"), compaction(Some(30_000))]);
        let r = read(&t, "a");
        assert_eq!(r.usage, None);
        assert_eq!(
            r.boundary.and_then(|b| b.post_tokens),
            Some(TokenCount(30_000))
        );
        // A response after the compaction measures the new context.
        t.push("a", usage(35_000, "m"));
        assert_eq!(
            read(&t, "a").usage.map(|u| u.tokens),
            Some(TokenCount(35_000))
        );
    }

    #[test]
    fn a_subagents_transcript_is_read_from_its_sidechain() {
        let t = FakeTranscripts::new();
        t.insert(
            "sub",
            vec![sidechain(usage(7, "m")), sidechain(usage(8, "m"))],
        );
        let r = read(&t, "sub");
        assert_eq!(r.scope, ChainScope::Sidechain);
        assert_eq!(r.usage.map(|u| u.tokens), Some(TokenCount(8)));
    }

    #[test]
    fn no_response_yet_and_no_file_are_told_apart() {
        let t = FakeTranscripts::new();
        t.insert("empty", Vec::new());
        let r = read(&t, "empty");
        assert_eq!(
            (r.usage, r.boundary, r.scope),
            (None, None, ChainScope::Main)
        );
        let missing = t
            .read_latest(Path::new("missing"), ScanLimits::default())
            .unwrap_err();
        assert_eq!(missing.kind, TranscriptErrorKind::NotFound);
    }

    #[test]
    fn the_reported_window_outlives_a_compaction() {
        let t = FakeTranscripts::new();
        let mut reported = usage(200_000, "gpt-5-codex");
        if let TranscriptEvent::Usage { record, .. } = &mut reported {
            record.context_window = Some(258_400);
        }
        t.insert_for(
            AgentKind::Codex,
            "rollout",
            vec![reported, compaction(None)],
        );
        let r = read(&t, "rollout");
        assert_eq!((r.agent, r.agent_window), (AgentKind::Codex, Some(258_400)));
        assert_eq!(r.usage, None);
    }
}
