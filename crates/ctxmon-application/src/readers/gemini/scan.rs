//! The newest counted response of a JSONL chat file, replayed as gemini-cli replays it, at a
//! cost bounded by how far back the answer lies rather than by the file's size.
//!
//! gemini-cli rebuilds the message list by upserting each message line by id (a message seen
//! before keeps its first position), dropping a message and all after it at `$rewindTo`
//! (everything for an unknown id), and replacing the list at `$set.messages`. A replay from the
//! first line would read a 1 GiB file whole; instead the lines are read newest first and kept
//! as light operations (ids, types, counts) until one of these is met:
//! - a counted `gemini` message (its newest version: an older line of an id already met is
//!   superseded) with no `$rewindTo` after it: nothing after it can drop it, and gemini-cli
//!   only ever rewrites the message it is recording, the newest, so no message after it in the
//!   list has a count (those lines were read first). It is the answer;
//! - a `$set.messages`: the list is known in full there;
//! - the start of the file, or `max_scan_bytes`;
//! - a line longer than the line cap: it may be the newest response (gemini-cli keeps tool
//!   output in it), so the scan says the figure cannot be read rather than report an older one.
//!
//! Lines are found by the shared backward walk, which re-reads a line spanning blocks once, so
//! a multi-megabyte response costs its bytes once, not once per block.
//!
//! The kept operations are then replayed forward onto that starting list (the `$set`'s, or
//! empty), exactly as gemini-cli does. At the scan limit the list before the window is unknown:
//! a rewind to an id not in the window drops everything the window holds before it (both an
//! unknown id and one older than the window would), and a list that ends with no counted
//! response is "not measured", as for the other agents.
//!
//! A `$set.messages` after the newest counted response that holds fewer messages than the list
//! it replaced is a compaction (gemini-cli's compression writes the summary turn and the kept
//! tail, whose messages still carry their old counts). How long the replaced list was is
//! counted from the lines before the `$set` (distinct message ids back to the previous
//! `$set.messages` or the start), within the same scan limit. What it left is known only
//! where an `info` message of the new list reports it.

use std::collections::HashSet;
use std::io::{Read, Seek};

use ctxmon_domain::Timestamp;

use super::message::{ChatLine, Message, parse_line};
use crate::readers::jsonl::backward::{BackLine, BackwardLines, DEFAULT_BLOCK_SIZE};

/// What the scan found.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ChatScan {
    /// The newest counted `gemini` message of the replayed list.
    pub newest: Option<Message>,
    /// A `$set.messages` after it that shrank the list.
    pub compaction: Option<Compaction>,
    /// The model of the newest message that names one (the window after a compaction).
    pub model: Option<String>,
    /// The scan stopped at the limit without an answer.
    pub hit_limit: bool,
    /// Bytes read from the end.
    pub bytes_scanned: u64,
    /// Counted messages a `$rewindTo` dropped, for the note.
    pub rewound: bool,
    /// The length of a line past the line cap met before the answer: it may hold the newest
    /// count, so no older one is reported as current.
    pub unreadable_line: Option<u64>,
}

/// A compaction seen as a shrinking `$set.messages`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Compaction {
    /// The id of the first message of the new list (the summary turn): stable across reads.
    pub first_id: Option<String>,
    /// The timestamp of the newest message of the new list.
    pub timestamp: Option<String>,
    /// The count of the newest response before it.
    pub pre_tokens: Option<u64>,
    /// What the compression left, where an `info` message of the new list reports it.
    pub post_tokens: Option<u64>,
    /// Messages before and after.
    pub before: usize,
    /// Messages in the new list.
    pub after: usize,
}

enum Op {
    Upsert(Message),
    Rewind(String),
}

/// Scans the first `len` bytes of `file` (see the module docs).
pub fn scan<R: Read + Seek>(
    file: R,
    len: u64,
    max_bytes: u64,
    max_line: u64,
) -> std::io::Result<ChatScan> {
    let mut lines = BackwardLines::new(file, len, max_bytes, DEFAULT_BLOCK_SIZE, max_line);
    let mut ops: Vec<Op> = Vec::new();
    let mut met: HashSet<String> = HashSet::new();
    let mut rewind_after = false;
    let mut anchor: Option<Vec<Message>> = None;
    let mut counted_after_anchor = false;
    while let Some(line) = lines.next_line()? {
        let bytes = match line {
            BackLine::Line(bytes) => bytes,
            BackLine::Oversized { len: long } => {
                // gemini-cli keeps a tool's whole output in the response that called it, so
                // this line may be the newest response: the figure behind it is not current.
                return Ok(ChatScan {
                    bytes_scanned: lines.bytes_scanned(len),
                    unreadable_line: Some(long),
                    ..ChatScan::default()
                });
            }
        };
        match parse_line(bytes) {
            Some(ChatLine::Message(m)) => {
                let newest_version = met.insert(m.id.clone());
                if newest_version && m.counted().is_some() {
                    counted_after_anchor = true;
                    if !rewind_after {
                        ops.push(Op::Upsert(m));
                        break;
                    }
                }
                ops.push(Op::Upsert(m));
            }
            Some(ChatLine::RewindTo(id)) => {
                rewind_after = true;
                ops.push(Op::Rewind(id));
            }
            Some(ChatLine::SetMessages(list)) => {
                anchor = Some(list);
                break;
            }
            Some(ChatLine::SetMetadata | ChatLine::Other) | None => {}
        }
    }
    // Replay forward onto the known start.
    let mut list: Vec<Message> = anchor.clone().unwrap_or_default();
    let mut rewound = false;
    for op in ops.into_iter().rev() {
        match op {
            Op::Upsert(m) => match list.iter().position(|x| x.id == m.id) {
                Some(at) => {
                    if let Some(slot) = list.get_mut(at) {
                        *slot = m;
                    }
                }
                None => list.push(m),
            },
            Op::Rewind(id) => {
                let at = list.iter().position(|x| x.id == id).unwrap_or(0);
                rewound |= list.iter().skip(at).any(|m| m.counted().is_some());
                list.truncate(at);
            }
        }
    }
    let newest = list.iter().rev().find(|m| m.counted().is_some()).cloned();
    let model = list.iter().rev().find_map(|m| m.model.clone());
    let mut compaction = None;
    if let Some(set) = &anchor
        && !counted_after_anchor
    {
        let before = count_before(&mut lines)?;
        if before.is_some_and(|b| b > set.len()) {
            compaction = Some(Compaction {
                first_id: set.first().map(|m| m.id.clone()),
                timestamp: set.iter().rev().find_map(|m| m.timestamp.clone()),
                pre_tokens: newest
                    .as_ref()
                    .and_then(|m| m.input_tokens)
                    .map(|t| t.get()),
                post_tokens: list
                    .iter()
                    .rev()
                    .find_map(|m| m.compressed_to)
                    .map(|t| t.get()),
                before: before.unwrap_or(0),
                after: set.len(),
            });
        }
    }
    let found = newest.is_some() || compaction.is_some();
    Ok(ChatScan {
        hit_limit: lines.hit_limit() && !found,
        bytes_scanned: lines.bytes_scanned(len),
        newest: if compaction.is_some() { None } else { newest },
        compaction,
        model,
        rewound,
        unreadable_line: None,
    })
}

/// How many messages the list held just before the `$set` the scan stopped at: distinct ids
/// back to the previous `$set.messages` (plus its length) or the start; `None` when the limit
/// came first with fewer than that. Enough to say "shrank" is all that is needed, so a count
/// already past what it is compared with would do; the scan goes on to be exact.
fn count_before<R: Read + Seek>(lines: &mut BackwardLines<R>) -> std::io::Result<Option<usize>> {
    let mut ids: HashSet<String> = HashSet::new();
    while let Some(line) = lines.next_line()? {
        let BackLine::Line(bytes) = line else {
            continue;
        };
        match parse_line(bytes) {
            Some(ChatLine::Message(m)) => {
                ids.insert(m.id);
            }
            Some(ChatLine::SetMessages(list)) => {
                let older = list.iter().filter(|m| !ids.contains(&m.id)).count();
                return Ok(Some(ids.len() + older));
            }
            _ => {}
        }
    }
    if lines.hit_limit() {
        // Unknown beyond the window: what was seen is a lower bound.
        return Ok((!ids.is_empty()).then_some(ids.len()));
    }
    Ok(Some(ids.len()))
}

/// Whether the first `len` bytes of `file` show a compression written at or after `since_ms`:
/// read back from the end (at most `max_bytes`), a `$set.messages` that opens with a `user`
/// message (the summary turn) and holds fewer messages than the list it replaced, met before
/// any message line stamped earlier than `since_ms`. gemini-cli fires its pre-compression hook
/// before it compresses, and every message line before the compression's `$set` was written
/// before that; a response after a `/rewind` is smaller too, but no `$set` shows it.
///
/// A `$set.messages` that does not shrink the list (gemini-cli also writes the whole list when
/// it masks a tool's output, or on resuming) is passed over, and the one before it considered.
pub fn compacted_since<R: Read + Seek>(
    file: R,
    len: u64,
    max_bytes: u64,
    max_line: u64,
    since_ms: i64,
) -> std::io::Result<bool> {
    let mut lines = BackwardLines::new(file, len, max_bytes, DEFAULT_BLOCK_SIZE, max_line);
    // The newest `$set` not yet judged, with the distinct ids met since (older than it).
    let mut candidate: Option<(Vec<Message>, HashSet<String>)> = None;
    // A message stamped before `since_ms` was met: no older `$set` is after the checkpoint.
    let mut before_since = false;
    while let Some(line) = lines.next_line()? {
        let BackLine::Line(bytes) = line else {
            continue;
        };
        match parse_line(bytes) {
            Some(ChatLine::Message(m)) => {
                let stamped_before = m
                    .timestamp
                    .as_deref()
                    .and_then(Timestamp::parse_rfc3339)
                    .is_some_and(|t| t.millis() < since_ms);
                before_since |= stamped_before;
                match &mut candidate {
                    Some((_, ids)) => {
                        ids.insert(m.id);
                    }
                    None if before_since => return Ok(false),
                    None => {}
                }
            }
            Some(ChatLine::SetMessages(older)) => {
                if let Some((set, ids)) = candidate.take() {
                    let before = ids.len() + older.iter().filter(|m| !ids.contains(&m.id)).count();
                    if shrank_with_summary(&set, before) {
                        return Ok(true);
                    }
                }
                if before_since {
                    return Ok(false);
                }
                candidate = Some((older, HashSet::new()));
            }
            _ => {}
        }
    }
    // The start of the file, or the limit (what was seen is then a lower bound).
    Ok(candidate.is_some_and(|(set, ids)| shrank_with_summary(&set, ids.len())))
}

/// A list of `set.len()` messages replacing one of `before`, opened by the summary turn.
fn shrank_with_summary(set: &[Message], before: usize) -> bool {
    set.first().is_some_and(|m| m.kind == "user") && before > set.len()
}
