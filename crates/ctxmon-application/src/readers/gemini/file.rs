//! A chat file's tail, head and report events over a source the caller opened, in whichever
//! of the two formats it is: what `TranscriptFiles` asks of a Gemini CLI chat. A legacy
//! document is read whole when it fits the bytes asked for, else not at all (it cannot be
//! read from the middle).

use std::io::{self, BufReader, Read, Seek, SeekFrom};
use std::ops::ControlFlow;

use super::records::{Replay, records_of};
use super::{ChatFormat, forward_events};
use crate::ports::{TranscriptEvent, TranscriptRecord};
use crate::readers::jsonl::tail::for_each_tail_line;

/// The replayed messages of the last `max_bytes` of a chat of `len` bytes.
fn replay_tail<R: Read + Seek>(
    src: &mut R,
    len: u64,
    max_bytes: u64,
    format: ChatFormat,
) -> io::Result<Replay> {
    let mut replay = Replay::default();
    if format == ChatFormat::Legacy {
        if len <= max_bytes {
            src.seek(SeekFrom::Start(0))?;
            if let Ok(doc) =
                serde_json::from_reader::<_, serde_json::Value>(BufReader::new(src.take(len)))
            {
                replay.document(&doc);
            }
        }
        return Ok(replay);
    }
    for_each_tail_line(src, len, max_bytes, &mut |line| replay.line(line))?;
    Ok(replay)
}

/// The tail port's records of the last `max_bytes` of a chat of `len` bytes.
pub fn tail_records<R: Read + Seek>(
    src: &mut R,
    len: u64,
    max_bytes: u64,
    format: ChatFormat,
) -> io::Result<Vec<TranscriptRecord>> {
    Ok(records_of(
        replay_tail(src, len, max_bytes, format)?.messages(),
    ))
}

/// The records of the chat's first `max_bytes`, oldest first, until `visit` breaks. A line
/// the window cuts is not handed over.
pub fn head_records<R: Read + Seek>(
    src: &mut R,
    len: u64,
    max_bytes: u64,
    format: ChatFormat,
    visit: &mut dyn FnMut(&TranscriptRecord) -> ControlFlow<()>,
) -> io::Result<()> {
    let replay = if format == ChatFormat::Legacy {
        replay_tail(src, len, max_bytes, format)?
    } else {
        let mut replay = Replay::default();
        let window = len.min(max_bytes);
        src.seek(SeekFrom::Start(0))?;
        let mut text = Vec::new();
        src.take(window).read_to_end(&mut text)?;
        // A source that ended early (the file shrank) holds no whole last line either.
        let whole = window == len && text.len() as u64 == len;
        let mut parts = text.split(|b| *b == b'\n').peekable();
        while let Some(line) = parts.next() {
            if parts.peek().is_none() && !whole {
                break;
            }
            replay.line(line);
        }
        replay
    };
    for record in records_of(replay.messages()) {
        if visit(&record).is_break() {
            break;
        }
    }
    Ok(())
}

/// Every counted response and compaction of a chat of `len` bytes (read from its start), in
/// file order; returns the lines read.
pub fn events<R: Read>(
    src: R,
    len: u64,
    format: ChatFormat,
    cap: u64,
    visit: &mut dyn FnMut(TranscriptEvent),
) -> io::Result<u64> {
    forward_events(
        BufReader::with_capacity(64 * 1024, src.take(len)),
        len,
        format,
        cap,
        visit,
    )
}
