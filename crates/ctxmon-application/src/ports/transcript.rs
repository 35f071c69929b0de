//! The transcript port: what the reader finds at the end of an agent's transcript (a Claude
//! Code JSONL transcript or a Codex CLI rollout; the adapter tells them apart by content).
//!
//! The reader reports facts (the newest qualifying usage record, a newer compaction boundary,
//! the window the agent itself reported); the estimator decides what they mean. That split
//! keeps policy testable without files.

use std::path::Path;

use super::RecentContext;
use ctxmon_domain::TokenCount;

/// How far back a scan may look.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScanLimits {
    /// The most bytes from the transcript's end a scan reads (default 32 MiB); a line that
    /// reaches back past them is not read.
    pub max_scan_bytes: u64,
}

impl Default for ScanLimits {
    fn default() -> Self {
        ScanLimits {
            max_scan_bytes: 32 * 1024 * 1024,
        }
    }
}

pub use crate::agents::AgentKind;

/// Which lines the result came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChainScope {
    /// Main-chain lines (the normal case).
    Main,
    /// The file had no qualifying main-chain line but had sidechain ones: a subagent transcript.
    Sidechain,
}

/// The newest qualifying usage record.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct UsageRecord {
    /// input + cache_creation (or its nested ephemeral sum) + cache_read.
    pub tokens: TokenCount,
    /// The model id the record names (e.g. `claude-sonnet-4-5`), when it does.
    pub model: Option<String>,
    /// The API message id; the lines of one streamed response share it.
    pub message_id: Option<String>,
    /// When the line was written, as the file spells it.
    pub timestamp: Option<String>,
    /// The window the agent itself reported with this count (Codex's `model_context_window`);
    /// `None` when the format does not say (Claude Code's transcripts never do).
    pub context_window: Option<u64>,
    /// The agent's version the line names (Claude Code writes `version` on every line), which
    /// decides where Claude Code compacts.
    pub version: Option<String>,
}

/// A `compact_boundary` line (for a hook: the one newer than every qualifying usage record).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct CompactionBoundary {
    /// The boundary's `uuid`, which identifies the compaction.
    pub uuid: Option<String>,
    /// When it was written, as the file spells it.
    pub timestamp: Option<String>,
    /// `manual` or `auto`, as `compactMetadata.trigger` says.
    pub trigger: Option<String>,
    /// The context's size before the compaction (`compactMetadata.preTokens`).
    pub pre_tokens: Option<TokenCount>,
    /// The context's size after it (`compactMetadata.postTokens`); Claude Code records it only
    /// sometimes.
    pub post_tokens: Option<TokenCount>,
    /// The agent's version the line names.
    pub version: Option<String>,
}

/// One qualifying transcript line, in file order: what a forward read of a whole transcript
/// reports (the session report), as opposed to the newest one a hook needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TranscriptEvent {
    /// A qualifying usage record (contract C2); streaming writes one per content block, so several
    /// events may share a `message_id`.
    Usage {
        /// True for a subagent's line (`isSidechain`).
        sidechain: bool,
        /// The record.
        record: UsageRecord,
    },
    /// A `compact_boundary` line.
    Boundary {
        /// True for a subagent's line (`isSidechain`).
        sidechain: bool,
        /// The boundary.
        boundary: CompactionBoundary,
    },
}

/// What a backward scan of a transcript found: the newest usage record, or a compaction newer
/// than it, and how far the scan went.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TranscriptReading {
    /// `None` when no qualifying record was found within the limits.
    pub usage: Option<UsageRecord>,
    /// A boundary met before (i.e. newer than) any usage record. When it is `Some`, `usage` is
    /// `None`: the scan stops at the boundary because what precedes it was compacted away.
    pub boundary: Option<CompactionBoundary>,
    /// Whether `usage` or `boundary` came from main-chain or sidechain lines.
    pub scope: ChainScope,
    /// How many bytes from the end were read.
    pub bytes_scanned: u64,
    /// True when the scan stopped at `max_scan_bytes` rather than at a result or the file start.
    pub hit_scan_limit: bool,
    /// Which agent wrote the file.
    pub agent: AgentKind,
    /// The window the agent reported with its newest count, also when a newer compaction made
    /// that count stale (`usage` is then `None`): the window outlives the compaction.
    pub agent_window: Option<u64>,
    /// The model the file names last when the usage record does not carry it (Codex writes
    /// the model in `turn_context` lines, not with the counts); kept when `usage` is `None`.
    pub agent_model: Option<String>,
}

/// Why a transcript could not be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TranscriptErrorKind {
    /// No file at the path.
    NotFound,
    /// The file is empty: the session has had no answer yet.
    Empty,
    /// The path is a directory, FIFO or other non-regular file.
    NotAFile,
    /// The file may not be read.
    PermissionDenied,
    /// Any other read error.
    Io,
}

/// Who named a transcript path: the advice for a path that leads to no transcript points there.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PathOrigin {
    /// `transcript_path` in the JSON Claude Code sent (a hook's input, the status line's).
    #[default]
    HookInput,
    /// A command-line flag, e.g. `--transcript`.
    Flag(&'static str),
}

/// A transcript that could not be read: what kind of failure, what was found, who named the
/// path. Its display says what to check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TranscriptError {
    /// What kind of failure it is.
    pub kind: TranscriptErrorKind,
    /// What was found. For `NotFound` and `NotAFile` the display adds what to check, which
    /// depends on `origin`; the other kinds' messages carry their own advice.
    pub message: String,
    /// Who named the path; the display's advice depends on it.
    pub origin: PathOrigin,
}

impl TranscriptError {
    /// An error of `kind` with `message`, its path named by the hook input.
    pub fn new(kind: TranscriptErrorKind, message: impl Into<String>) -> TranscriptError {
        TranscriptError {
            kind,
            message: message.into(),
            origin: PathOrigin::default(),
        }
    }

    /// A failure to read `path`, sorted into the port's kinds by what the system said. A
    /// missing file's message says only what was found: what to check depends on who named
    /// the path ([`TranscriptError::named_by`]).
    pub fn from_io(path: &Path, e: &std::io::Error) -> TranscriptError {
        use std::io::ErrorKind;
        let shown = path.display();
        match e.kind() {
            // A path through a regular file ("a.jsonl/x") also means there is no transcript.
            ErrorKind::NotFound | ErrorKind::NotADirectory => TranscriptError::new(
                TranscriptErrorKind::NotFound,
                format!("transcript not found at {shown}"),
            ),
            ErrorKind::PermissionDenied => TranscriptError::new(
                TranscriptErrorKind::PermissionDenied,
                format!(
                    "cannot read transcript {shown}: permission denied, check its owner and mode"
                ),
            ),
            ErrorKind::IsADirectory => TranscriptError::not_a_file(path, "a directory"),
            _ => TranscriptError::new(
                TranscriptErrorKind::Io,
                format!("cannot read transcript {shown}: {e}"),
            ),
        }
    }

    /// `path` is something other than a regular file (`what`: a directory, a FIFO…).
    pub fn not_a_file(path: &Path, what: &str) -> TranscriptError {
        TranscriptError::new(
            TranscriptErrorKind::NotAFile,
            format!(
                "transcript path {} is not a regular file ({what})",
                path.display()
            ),
        )
    }

    /// `path` is empty: a session before its first answer.
    pub fn empty(path: &Path) -> TranscriptError {
        TranscriptError::new(
            TranscriptErrorKind::Empty,
            format!(
                "transcript {} is empty: it has no usage record yet, wait for the first response",
                path.display()
            ),
        )
    }

    /// The same error for a path that `origin` named (the reader cannot know who did).
    pub fn named_by(self, origin: PathOrigin) -> TranscriptError {
        TranscriptError { origin, ..self }
    }

    /// What to check when the path leads to no transcript; `None` for the other kinds.
    fn advice(&self) -> Option<String> {
        match (self.kind, self.origin) {
            (TranscriptErrorKind::NotFound, PathOrigin::HookInput) => {
                Some("check the transcript_path from the hook input".into())
            }
            (TranscriptErrorKind::NotFound, PathOrigin::Flag(flag)) => {
                Some(format!("check the {flag} path"))
            }
            (TranscriptErrorKind::NotAFile, PathOrigin::HookInput) => {
                Some("pass the .jsonl file named in the hook input".into())
            }
            (TranscriptErrorKind::NotAFile, PathOrigin::Flag(flag)) => {
                Some(format!("pass a session's .jsonl file to {flag}"))
            }
            _ => None,
        }
    }
}

impl std::fmt::Display for TranscriptError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)?;
        match self.advice() {
            Some(advice) => write!(f, ": {advice}"),
            None => Ok(()),
        }
    }
}

impl std::error::Error for TranscriptError {}

/// Finds the newest fill figure in a transcript. The adapter knows the file format; a test or
/// an embedder can read from memory ([`crate::fakes::FakeTranscripts`]).
pub trait TranscriptReader {
    /// Scans `path` from the end, newest line first, per contract C2. Never reads more than
    /// `limits.max_scan_bytes` (plus one block) and never the whole file unless it is smaller.
    fn read_latest(
        &self,
        path: &Path,
        limits: ScanLimits,
    ) -> Result<TranscriptReading, TranscriptError>;

    /// The model of the newest main-chain response within `limits`, looking past compaction
    /// boundaries: after a compaction the newest reading holds no response, but the session's
    /// model is still the one it last answered with (and decides the window). `None` when
    /// there is none, or when the format names the model with the reading itself (Codex); a
    /// reader that cannot tell answers `None`, as the default does.
    fn last_model(&self, path: &Path, limits: ScanLimits) -> Option<String> {
        let _ = (path, limits);
        None
    }

    /// Whether `path` shows a compaction written at or after `since` (milliseconds since the
    /// Unix epoch), read back from the end within `limits`, also behind newer responses. An
    /// agent whose pre-compaction hook fires also when nothing is then compacted (Gemini CLI)
    /// has its hand-back wait for this. `None` when the reader cannot tell (the default, and
    /// every format whose hook means a compaction): the caller then goes by the reading alone.
    fn compacted_since(&self, path: &Path, limits: ScanLimits, since_ms: i64) -> Option<bool> {
        let _ = (path, limits, since_ms);
        None
    }

    /// What the context of `path` holds since its last compaction: its `keep` largest items
    /// and the fill after each recent response, read back from the end over at most
    /// `max_bytes`. `None` when the format gives no such reading (the default) or the file
    /// cannot be read: the figures built on it are then left out, never guessed.
    fn recent_context(&self, path: &Path, max_bytes: u64, keep: usize) -> Option<RecentContext> {
        let _ = (path, max_bytes, keep);
        None
    }
}
