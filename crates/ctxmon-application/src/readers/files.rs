//! [`TranscriptFiles`]: the transcript reader an embedder (and the binary) measures with. It
//! opens a transcript through a [`FileAccess`], tells which agent wrote it from its first line
//! (`detect`), and reads it by that agent's rules, implementing the transcript ports.
//!
//! Every reading costs the same on a 1 KiB file as on a 1 GiB one: the fill is read backwards
//! from the end, at most `ScanLimits::max_scan_bytes`, and the tail and head within the bytes
//! asked for; only the session report (`read_events`) reads a whole file, a line at a time.

use std::io::Read;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

use super::access::{FileAccess, open_sized};
use super::jsonl::backward::{ScanReport, ScanShape, ScanStats};
use super::jsonl::forward::{ForwardStats, for_each_line};
use super::jsonl::head::head_records;
use super::jsonl::tail::{TailLines, tail_lines};
use super::{claude_code, codex, detect, gemini};
use crate::ports::{
    AgentKind, RecentContext, ScanLimits, TranscriptError, TranscriptEvent, TranscriptReader,
    TranscriptReading, TranscriptRecord, TranscriptTail,
};

/// Reads agents' transcripts through `A` (see the module docs).
///
/// ```
/// use std::io::Cursor;
/// use std::path::Path;
///
/// use ctxmon_application::ports::{ScanLimits, TranscriptReader};
/// use ctxmon_application::readers::TranscriptFiles;
///
/// let line = r#"{"type":"assistant","message":{"model":"claude-sonnet-4-5","usage":{"input_tokens":12,"cache_read_input_tokens":68170}}}"#;
/// let reader = TranscriptFiles::new(move |_: &Path| Ok(Cursor::new(format!("{line}\n"))));
/// let reading = reader.read_latest(Path::new("session.jsonl"), ScanLimits::default())?;
/// // The context is every input token the response was given, cached or not.
/// assert_eq!(reading.usage.map(|u| u.tokens.get()), Some(68_182));
/// # Ok::<(), ctxmon_application::ports::TranscriptError>(())
/// ```
#[derive(Clone)]
pub struct TranscriptFiles<A> {
    access: A,
    shape: ScanShape,
    /// A transcript whose agent the caller has already told from its first line
    /// ([`TranscriptFiles::knowing`]).
    known: Option<(PathBuf, AgentKind)>,
}

impl<A> std::fmt::Debug for TranscriptFiles<A> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TranscriptFiles")
            .field("shape", &self.shape)
            .field("known", &self.known)
            .finish_non_exhaustive()
    }
}

impl<A: FileAccess + Default> Default for TranscriptFiles<A> {
    fn default() -> Self {
        TranscriptFiles::new(A::default())
    }
}

impl<A: FileAccess> TranscriptFiles<A> {
    /// A reader that opens transcripts through `access`, with the default block size and
    /// line cap.
    pub fn new(access: A) -> TranscriptFiles<A> {
        TranscriptFiles {
            access,
            shape: ScanShape::default(),
            known: None,
        }
    }

    /// Sets the block size of the backward scan (at least 1 byte). Only tests and benchmarks
    /// have a reason to: small blocks put line ends on block boundaries.
    pub fn with_block_size(&self, bytes: usize) -> TranscriptFiles<A>
    where
        A: Clone,
    {
        let mut reader = self.clone();
        reader.shape.block_size = bytes.max(1);
        reader
    }

    /// Sets the longest line that is parsed; longer lines are skipped and counted.
    pub fn with_max_line_bytes(&self, bytes: u64) -> TranscriptFiles<A>
    where
        A: Clone,
    {
        let mut reader = self.clone();
        reader.shape.max_line_bytes = bytes;
        reader
    }

    /// The same reader, told that `path` was written by `agent` (as [`Self::agent_of`] found
    /// it): every read of that path skips telling the format again. Other paths are told as
    /// usual.
    pub fn knowing(&self, path: &Path, agent: AgentKind) -> TranscriptFiles<A>
    where
        A: Clone,
    {
        let mut reader = self.clone();
        reader.known = Some((path.to_path_buf(), agent));
        reader
    }

    /// The agent that wrote `path`, told from its first line ([`detect::agent_of_prefix`]),
    /// or the one this reader was told. Errors are the reader's (`NotFound`, `Empty`,
    /// `NotAFile`, `PermissionDenied`, `Io`).
    pub fn agent_of(&self, path: &Path) -> Result<AgentKind, TranscriptError> {
        if let Some((known, agent)) = &self.known
            && known == path
        {
            return Ok(*agent);
        }
        Ok(detect::agent_of_prefix(&self.head(path)?))
    }

    /// The format of the Gemini CLI chat at `path` (JSONL when its start cannot tell: the
    /// reader then finds no response rather than failing).
    fn chat_format(&self, path: &Path) -> Result<gemini::ChatFormat, TranscriptError> {
        Ok(gemini::format_of(&self.head(path)?).unwrap_or(gemini::ChatFormat::Jsonl))
    }

    /// At most the first [`detect::SNIFF_BYTES`] of `path`: what `detect` reads.
    pub fn head(&self, path: &Path) -> Result<Vec<u8>, TranscriptError> {
        let (file, len) = open_sized(&self.access, path)?;
        // Sized for what will be read, so the read is one system call, not one per growth.
        let mut head =
            Vec::with_capacity(usize::try_from(len.min(detect::SNIFF_BYTES)).unwrap_or(0));
        file.take(detect::SNIFF_BYTES)
            .read_to_end(&mut head)
            .map_err(|e| TranscriptError::from_io(path, &e))?;
        Ok(head)
    }

    /// Scans `path` in one backward pass, by the rules of the agent that wrote it, and reports
    /// the reading with scan counts.
    pub fn scan(&self, path: &Path, limits: ScanLimits) -> Result<ScanReport, TranscriptError> {
        let agent = self.agent_of(path)?;
        if agent == AgentKind::Gemini {
            let format = self.chat_format(path)?;
            let (file, len) = open_sized(&self.access, path)?;
            return Ok(ScanReport {
                reading: gemini::read_latest(file, len, format, limits, path)?,
                stats: ScanStats::default(),
            });
        }
        let (file, len) = open_sized(&self.access, path)?;
        let report = match agent {
            AgentKind::Codex => codex::scan(file, len, limits, self.shape),
            AgentKind::ClaudeCode | AgentKind::Gemini => {
                claude_code::scan(file, len, limits, self.shape)
            }
        };
        report.map_err(|e| TranscriptError::from_io(path, &e))
    }

    /// Reads `path` from start to end and hands every usage record and compaction boundary to
    /// `visit`, in file order, by the rules of the agent that wrote it; a line that does not
    /// parse is skipped. Only the bytes present when the file was opened are read.
    pub fn read_events(
        &self,
        path: &Path,
        mut visit: impl FnMut(TranscriptEvent),
    ) -> Result<ForwardStats, TranscriptError> {
        let agent = self.agent_of(path)?;
        if agent == AgentKind::Gemini {
            let format = self.chat_format(path)?;
            let (file, len) = open_sized(&self.access, path)?;
            let mut events = 0u64;
            let cap = ScanLimits::default().max_scan_bytes;
            let lines = gemini::events(file, len, format, cap, &mut |e| {
                events += 1;
                visit(e);
            })
            .map_err(|e| TranscriptError::from_io(path, &e))?;
            return Ok(ForwardStats {
                lines,
                events,
                any_json: lines > 0,
                bytes_read: len,
                agent,
                ..ForwardStats::default()
            });
        }
        let (file, len) = open_sized(&self.access, path)?;
        let mut events = 0u64;
        let mut counted = |e: TranscriptEvent| {
            events += 1;
            visit(e);
        };
        let stats = match agent {
            AgentKind::Codex => {
                let mut rollout = codex::ForwardEvents::default();
                let stats = for_each_line(
                    file,
                    len,
                    self.shape,
                    &mut |l, v| rollout.line(l, v),
                    &mut counted,
                );
                rollout.flush(&mut counted);
                stats
            }
            AgentKind::ClaudeCode | AgentKind::Gemini => {
                let mut claude = |line: &[u8], v: &mut dyn FnMut(TranscriptEvent)| {
                    match claude_code::event_of_line(line) {
                        Some(event) => {
                            v(event);
                            true
                        }
                        None => false,
                    }
                };
                for_each_line(file, len, self.shape, &mut claude, &mut counted)
            }
        };
        let mut stats = stats.map_err(|e| TranscriptError::from_io(path, &e))?;
        stats.events = events;
        stats.agent = agent;
        Ok(stats)
    }

    /// The complete lines of the last `max_bytes` of `path`, parsed as JSON, whatever agent
    /// wrote them (see [`TailLines`]).
    pub fn tail_lines(&self, path: &Path, max_bytes: u64) -> Result<TailLines, TranscriptError> {
        let (mut file, len) = open_sized(&self.access, path)?;
        tail_lines(&mut file, len, max_bytes, |_| true)
            .map_err(|e| TranscriptError::from_io(path, &e))
    }
}

impl<A: FileAccess> TranscriptReader for TranscriptFiles<A> {
    fn read_latest(
        &self,
        path: &Path,
        limits: ScanLimits,
    ) -> Result<TranscriptReading, TranscriptError> {
        self.scan(path, limits).map(|report| report.reading)
    }

    fn last_model(&self, path: &Path, limits: ScanLimits) -> Option<String> {
        // A rollout and a chat name their model with every reading (`agent_model`).
        if self.agent_of(path).ok()? != AgentKind::ClaudeCode {
            return None;
        }
        let (file, len) = open_sized(&self.access, path).ok()?;
        claude_code::last_model(file, len, limits, self.shape)
    }

    fn compacted_since(&self, path: &Path, limits: ScanLimits, since_ms: i64) -> Option<bool> {
        if self.agent_of(path).ok()? != AgentKind::Gemini
            || self.chat_format(path).ok()? != gemini::ChatFormat::Jsonl
        {
            return None;
        }
        let (file, len) = open_sized(&self.access, path).ok()?;
        gemini::compacted_since(file, len, limits, since_ms).ok()
    }

    fn recent_context(&self, path: &Path, max_bytes: u64, keep: usize) -> Option<RecentContext> {
        // Codex rollouts and Gemini CLI chats are not read for it yet: their figures are left
        // out rather than guessed.
        if self.agent_of(path).ok()? != AgentKind::ClaudeCode {
            return None;
        }
        let (file, len) = open_sized(&self.access, path).ok()?;
        claude_code::recent_context(file, len, max_bytes, self.shape, keep).ok()
    }
}

/// The tail port: one pass over the tail's lines, each wanted line parsed once and turned into
/// records at once. A Claude Code session's subagent writes kept in files of their own
/// (listed through [`FileAccess::list`]) follow its own records.
impl<A: FileAccess> TranscriptTail for TranscriptFiles<A> {
    fn read_tail(
        &self,
        path: &Path,
        max_bytes: u64,
    ) -> Result<Vec<TranscriptRecord>, TranscriptError> {
        let agent = self.agent_of(path)?;
        let (mut file, len) = open_sized(&self.access, path)?;
        let io = |e: std::io::Error| TranscriptError::from_io(path, &e);
        match agent {
            AgentKind::Codex => codex::tail_records(&mut file, len, max_bytes).map_err(io),
            AgentKind::Gemini => {
                let format = self.chat_format(path)?;
                gemini::tail_records(&mut file, len, max_bytes, format).map_err(io)
            }
            AgentKind::ClaudeCode => {
                let another = self.access.open_another(path, len);
                let mut records =
                    claude_code::tail_records(&mut file, another, len, max_bytes).map_err(io)?;
                records.extend(claude_code::subagent_writes(&self.access, path));
                Ok(records)
            }
        }
    }

    fn read_head(
        &self,
        path: &Path,
        max_bytes: u64,
        visit: &mut dyn FnMut(&TranscriptRecord) -> ControlFlow<()>,
    ) -> Result<(), TranscriptError> {
        let agent = self.agent_of(path)?;
        let format = match agent {
            AgentKind::Gemini => Some(self.chat_format(path)?),
            AgentKind::ClaudeCode | AgentKind::Codex => None,
        };
        let (mut file, len) = open_sized(&self.access, path)?;
        let read = match (agent, format) {
            (AgentKind::Gemini, Some(format)) => {
                gemini::head_records(&mut file, len, max_bytes, format, visit)
            }
            (AgentKind::Codex, _) => {
                head_records::<codex::RolloutRecords, _>(file, len, max_bytes, visit)
            }
            _ => head_records::<claude_code::RecordParser, _>(file, len, max_bytes, visit),
        };
        read.map_err(|e| TranscriptError::from_io(path, &e))
    }
}
