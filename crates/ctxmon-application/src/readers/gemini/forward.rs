//! A whole chat file read forward for the session report: each counted response in file
//! order (the lines gemini-cli writes again for one message share its id, which the report
//! counts once), and a compaction where a `$set.messages` shrank the replayed list. Rewinds
//! change the list, not the history of the fill, so they only keep the replay right. Memory is
//! one line and the light list (ids, types, counts), whatever the file's size. A compaction is
//! handed on at the next response, `$set.messages` or the end, so that an `info` message
//! reporting what it left (after the `$set`) still counts as its size.

use std::io::BufRead;

use ctxmon_domain::TokenCount;

use super::legacy;
use super::message::{ChatLine, Message, parse_line};
use super::{ChatFormat, MAX_LINE_BYTES};
use crate::ports::{CompactionBoundary, TranscriptEvent, UsageRecord};

/// Hands every counted response and compaction of a chat file of `len` bytes to `visit`, in
/// file order. Returns the number of lines read; a line that does not parse is skipped.
pub fn forward_events<R: BufRead>(
    mut file: R,
    len: u64,
    format: ChatFormat,
    cap: u64,
    visit: &mut dyn FnMut(TranscriptEvent),
) -> std::io::Result<u64> {
    if format == ChatFormat::Legacy {
        let list = legacy::messages(file, len, cap).unwrap_or_default();
        for m in &list {
            usage(m, visit);
        }
        return Ok(list.len() as u64);
    }
    let mut list: Vec<Message> = Vec::new();
    let mut pending: Option<CompactionBoundary> = None;
    let mut line = Vec::new();
    let mut lines = 0u64;
    loop {
        line.clear();
        let read = std::io::Read::take(&mut file, MAX_LINE_BYTES as u64 + 1)
            .read_until(b'\n', &mut line)?;
        if read == 0 {
            break;
        }
        if line.last() != Some(&b'\n') && read > MAX_LINE_BYTES {
            // Too long to keep: skip to its end.
            let mut rest = Vec::new();
            file.read_until(b'\n', &mut rest)?;
            lines += 1;
            continue;
        }
        lines += 1;
        match parse_line(&line) {
            Some(ChatLine::Message(m)) => {
                if let (Some(boundary), Some(after)) = (pending.as_mut(), m.compressed_to) {
                    boundary.post_tokens = Some(after);
                }
                if m.counted().is_some()
                    && let Some(boundary) = pending.take()
                {
                    visit(TranscriptEvent::Boundary {
                        sidechain: false,
                        boundary,
                    });
                }
                usage(&m, visit);
                match list.iter().position(|x| x.id == m.id) {
                    Some(at) => {
                        if let Some(slot) = list.get_mut(at) {
                            *slot = m;
                        }
                    }
                    None => list.push(m),
                }
            }
            Some(ChatLine::RewindTo(id)) => {
                let at = list.iter().position(|x| x.id == id).unwrap_or(0);
                list.truncate(at);
            }
            Some(ChatLine::SetMessages(new)) => {
                if let Some(boundary) = pending.take() {
                    visit(TranscriptEvent::Boundary {
                        sidechain: false,
                        boundary,
                    });
                }
                if new.len() < list.len() {
                    pending = Some(CompactionBoundary {
                        version: None,
                        uuid: new.first().map(|m| m.id.clone()),
                        timestamp: new.iter().rev().find_map(|m| m.timestamp.clone()),
                        trigger: None,
                        pre_tokens: list
                            .iter()
                            .rev()
                            .find_map(Message::counted)
                            .map(|t| TokenCount(t.get())),
                        post_tokens: new.iter().rev().find_map(|m| m.compressed_to),
                    });
                }
                list = new;
            }
            _ => {}
        }
    }
    if let Some(boundary) = pending {
        visit(TranscriptEvent::Boundary {
            sidechain: false,
            boundary,
        });
    }
    Ok(lines)
}

fn usage(m: &Message, visit: &mut dyn FnMut(TranscriptEvent)) {
    if let Some(tokens) = m.counted() {
        visit(TranscriptEvent::Usage {
            sidechain: false,
            record: UsageRecord {
                version: None,
                tokens,
                model: m.model.clone(),
                message_id: Some(m.id.clone()),
                timestamp: m.timestamp.clone(),
                context_window: None,
            },
        });
    }
}
