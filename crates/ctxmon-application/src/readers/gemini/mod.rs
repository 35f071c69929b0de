//! Gemini CLI's chat files, read by gemini-cli's own rules (`docs/gemini.md`; checked against
//! google-gemini/gemini-cli at commit 5411f113, `packages/core/src/services/
//! chatRecordingService.ts` and `chatRecordingTypes.ts`).
//!
//! - Two formats, told apart by the content ([`format_of`]): JSONL (v0.39.0 and later), whose
//!   first line is the session's metadata (`sessionId`, `projectHash`, `startTime`, …) followed
//!   by message lines, `$set` lines and `$rewindTo` lines; and the legacy single
//!   `ConversationRecord` document (`legacy`).
//! - The fill is `tokens.input` of the newest `gemini` message, in replayed order, that has
//!   a usable count (`input` already includes `cached`); the model is that message's
//!   (`scan` for the replay and its cost).
//! - A `$set.messages` that shrank the list after the newest counted response is a
//!   compaction: the estimator then applies the post-compaction rule until a newer response.
//!
//! Pure code over bytes the caller hands in (`Read + Seek`).

mod file;
mod forward;
mod legacy;
mod message;
pub mod records;
mod scan;

use std::io::{Read, Seek};
use std::path::Path;

use ctxmon_domain::{TokenCount, human};

use crate::agents::AgentKind;
use crate::ports::{
    ChainScope, CompactionBoundary, ScanLimits, TranscriptError, TranscriptErrorKind,
    TranscriptReading, UsageRecord,
};

pub use file::{events, head_records, tail_records};
pub use forward::forward_events;
pub use legacy::LegacyProblem;

/// Lines longer than this are not parsed. gemini-cli keeps a tool's output in the `gemini`
/// message that called it, and cuts an output past 4,000,000 characters, so a message line
/// (whose count the fill needs) stays below this; one that does not, met before the newest
/// count, leaves the fill unread (never an older figure reported as current).
pub const MAX_LINE_BYTES: usize = 16 * 1024 * 1024;

/// A UTF-8 byte-order mark, which a chat saved by an editor may start with: skipped.
pub const BOM: &[u8] = b"\xEF\xBB\xBF";

/// Whether a file starting with `head` holds Gemini CLI message lines without the metadata
/// line a chat starts with: its first line is an object with a string `id`, a `type` Gemini
/// CLI gives messages, and none of the keys a Claude Code line carries. Such a file is no
/// chat ctxmon can read (no session, no project), and is said to be so rather than read as a
/// transcript with no response yet.
pub fn headless_chat(head: &[u8]) -> bool {
    let head = head.strip_prefix(BOM).unwrap_or(head);
    let line = match head.iter().position(|b| *b == b'\n') {
        Some(end) => head.get(..end).unwrap_or_default(),
        None => head,
    };
    let Ok(serde_json::Value::Object(first)) = serde_json::from_slice(line) else {
        return false;
    };
    let kind = first.get("type").and_then(serde_json::Value::as_str);
    first.get("id").is_some_and(serde_json::Value::is_string)
        && matches!(kind, Some("user" | "gemini" | "info" | "error" | "warning"))
        && ["uuid", "message", "sessionId", "parentUuid"]
            .iter()
            .all(|k| !first.contains_key(*k))
}

/// The two formats of a chat file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChatFormat {
    /// A metadata line, then one line per message or change.
    Jsonl,
    /// One `ConversationRecord` document.
    Legacy,
}

/// The format of a file whose first bytes are `head`, when it is a Gemini CLI chat file: it
/// opens with an object and names the keys `sessionId` and `projectHash` (outside a string:
/// a quoted key inside a string is escaped). Claude Code's lines carry a `sessionId` but never
/// a project hash; Codex's first line is `session_meta`. A first line that is a
/// whole object without `messages` is the JSONL metadata; anything else (a lone `{`, or an
/// object holding the messages) is the legacy document.
pub fn format_of(head: &[u8]) -> Option<ChatFormat> {
    let head = head.strip_prefix(BOM).unwrap_or(head);
    let start = head.iter().position(|b| !b.is_ascii_whitespace())?;
    let rest = head.get(start..)?;
    if rest.first() != Some(&b'{') {
        return None;
    }
    if !has_key(rest, b"\"sessionId\"") || !has_key(rest, b"\"projectHash\"") {
        return None;
    }
    let line = match rest.iter().position(|b| *b == b'\n') {
        Some(end) => rest.get(..end)?,
        None => rest,
    };
    let whole_object = serde_json::from_slice::<serde_json::Value>(line)
        .ok()
        .is_some_and(|v| v.is_object() && v.get("messages").is_none());
    Some(if whole_object {
        ChatFormat::Jsonl
    } else {
        ChatFormat::Legacy
    })
}

/// The session id a chat's first object names (`sessionId`), from the file's first bytes
/// `head`; `None` when it names none.
pub fn session_id_of(head: &[u8]) -> Option<String> {
    let text = String::from_utf8_lossy(head);
    let at = text.find("\"sessionId\"")?;
    let rest = text.get(at + "\"sessionId\"".len()..)?;
    let rest = rest
        .trim_start()
        .strip_prefix(':')?
        .trim_start()
        .strip_prefix('"')?;
    let id: String = rest.chars().take_while(|c| *c != '"').collect();
    (!id.is_empty()).then_some(id)
}

/// Whether `needle` (a quoted key) occurs in `bytes` unescaped.
fn has_key(bytes: &[u8], needle: &[u8]) -> bool {
    bytes
        .windows(needle.len())
        .enumerate()
        .any(|(at, w)| w == needle && (at == 0 || bytes.get(at - 1) != Some(&b'\\')))
}

/// The newest fill figure of a chat file of `len` bytes in format `format` (contract C2 as
/// Gemini CLI writes it). `path` only names the file in errors.
pub fn read_latest<R: Read + Seek>(
    file: R,
    len: u64,
    format: ChatFormat,
    limits: ScanLimits,
    path: &Path,
) -> Result<TranscriptReading, TranscriptError> {
    let io = |e: std::io::Error| {
        TranscriptError::new(
            TranscriptErrorKind::Io,
            format!("cannot read {}: {e}", path.display()),
        )
    };
    let found = match format {
        ChatFormat::Jsonl => {
            let found =
                scan::scan(file, len, limits.max_scan_bytes, MAX_LINE_BYTES as u64).map_err(io)?;
            if let Some(long) = found.unreadable_line {
                return Err(TranscriptError::new(
                    TranscriptErrorKind::Io,
                    format!(
                        "the newest figure of this chat cannot be read: a line of {} near its end is longer than the {} ctxmon parses",
                        human::count(long, "byte", "bytes"),
                        human::count(MAX_LINE_BYTES as u64, "byte", "bytes"),
                    ),
                ));
            }
            found
        }
        ChatFormat::Legacy => {
            let list = legacy::messages(file, len, limits.max_scan_bytes).map_err(|problem| {
                TranscriptError::new(TranscriptErrorKind::Io, problem.to_string())
            })?;
            scan::ChatScan {
                newest: list.iter().rev().find(|m| m.counted().is_some()).cloned(),
                model: list.iter().rev().find_map(|m| m.model.clone()),
                bytes_scanned: len,
                ..scan::ChatScan::default()
            }
        }
    };
    Ok(reading_of(found))
}

/// Whether a JSONL chat shows a compression written at or after `since_ms` (milliseconds
/// since the Unix epoch), within `limits`: a `$set.messages` that opens with the summary turn
/// and shrank the list, not a smaller response after a `/rewind`.
pub fn compacted_since<R: Read + Seek>(
    file: R,
    len: u64,
    limits: ScanLimits,
    since_ms: i64,
) -> std::io::Result<bool> {
    scan::compacted_since(
        file,
        len,
        limits.max_scan_bytes,
        MAX_LINE_BYTES as u64,
        since_ms,
    )
}

fn reading_of(found: scan::ChatScan) -> TranscriptReading {
    // The model decides the window; a response names its own, so the file's newest model is
    // only needed when there is no response to measure (after a compaction).
    let agent_model = if found.newest.is_none() {
        found.model
    } else {
        None
    };
    let usage = found.newest.map(|m| UsageRecord {
        version: None,
        tokens: m.input_tokens.unwrap_or(TokenCount::ZERO),
        model: m.model,
        message_id: Some(m.id),
        timestamp: m.timestamp,
        context_window: None,
    });
    let boundary = found.compaction.map(|c| CompactionBoundary {
        version: None,
        uuid: c.first_id,
        timestamp: c.timestamp,
        trigger: None,
        pre_tokens: c.pre_tokens.map(TokenCount),
        post_tokens: c.post_tokens.map(TokenCount),
    });
    TranscriptReading {
        usage,
        boundary,
        scope: ChainScope::Main,
        bytes_scanned: found.bytes_scanned,
        hit_scan_limit: found.hit_limit,
        agent: AgentKind::Gemini,
        agent_window: None,
        agent_model,
    }
}

#[cfg(test)]
mod tests;
