//! The first bytes of a transcript, line by line until the caller has what it needs: what only
//! the start says (the session's first request, a rollout's `session_meta`).

use std::io::{self, BufRead, BufReader, Read};
use std::ops::ControlFlow;

use crate::ports::TranscriptRecord;
use crate::readers::json::repair;

/// What turns one agent's lines into the tail port's records (Claude Code's `RecordParser`,
/// Codex's `RolloutRecords`): `wants` is the raw-byte filter that spares a parse.
pub trait LineRecords: Default {
    /// Whether `line` (raw bytes) can yield a record; the rest is not parsed.
    fn wants(&self, line: &[u8]) -> bool;
    /// The records of one parsed line, appended to `out`.
    fn push(&mut self, line: &serde_json::Value, out: &mut Vec<TranscriptRecord>);
}

/// Hands the records of the first `max_bytes` of `src` to `visit`, oldest first, until it
/// answers `Break`; only the lines `P` wants are parsed. One reading for every agent's format.
pub fn head_records<P: LineRecords, R: Read>(
    src: R,
    file_len: u64,
    max_bytes: u64,
    visit: &mut dyn FnMut(&TranscriptRecord) -> ControlFlow<()>,
) -> io::Result<()> {
    let mut parser = P::default();
    let mut records = Vec::new();
    let wanted = |line: &[u8]| P::default().wants(line);
    for_each_head_line(src, file_len, max_bytes, wanted, &mut |value| {
        records.clear();
        parser.push(value, &mut records);
        for record in &records {
            visit(record)?;
        }
        ControlFlow::Continue(())
    })
    .map(|_| ())
}

/// Hands the complete lines of the first `max_bytes` of `src` (read from where it stands, the
/// file's start, `file_len` bytes long) for which `keep(raw bytes)` holds, parsed, to `visit`
/// until it answers `Break`; returns how many bytes were read.
///
/// A line is complete when its newline is within the window, or when the file ends within the
/// window (the last line of a finished file). Lines that do not parse are skipped. Memory is
/// one line of at most `max_bytes`; reading stops as soon as the visitor has what it needs. A
/// source shorter than `file_len` (the file shrank) just ends sooner, its cut line unread.
pub fn for_each_head_line<R: Read>(
    src: R,
    file_len: u64,
    max_bytes: u64,
    keep: impl Fn(&[u8]) -> bool,
    visit: &mut dyn FnMut(&serde_json::Value) -> ControlFlow<()>,
) -> io::Result<u64> {
    let window = file_len.min(max_bytes);
    let mut reader = BufReader::with_capacity(64 * 1024, src.take(window));
    let mut line: Vec<u8> = Vec::new();
    let mut read = 0u64;
    loop {
        line.clear();
        let n = reader.read_until(b'\n', &mut line)?;
        if n == 0 {
            break;
        }
        read += n as u64;
        let raw = match line.strip_suffix(b"\n") {
            Some(raw) => raw,
            // Without its newline a line is whole only if the file ends here.
            None if read == file_len => line.as_slice(),
            None => break,
        };
        if raw.iter().all(u8::is_ascii_whitespace) || !keep(raw) {
            continue;
        }
        if let Ok(value) = repair::from_slice_lenient::<serde_json::Value>(raw)
            && visit(&value).is_break()
        {
            break;
        }
    }
    Ok(read)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn firsts(data: &[u8], file_len: u64, max: u64) -> Vec<serde_json::Value> {
        let mut out = Vec::new();
        for_each_head_line(data, file_len, max, |_| true, &mut |v| {
            out.push(v.clone());
            ControlFlow::Continue(())
        })
        .unwrap();
        out
    }

    #[test]
    fn only_whole_lines_are_handed_over() {
        let data = b"{\"a\":1}\n\n{\"b\":2}\n{\"c\":3}";
        let len = data.len() as u64;
        assert_eq!(
            firsts(data, len, u64::MAX).len(),
            3,
            "the last line ends the file"
        );
        // A window ending inside the third line leaves it out.
        assert_eq!(firsts(data, len, len - 2).len(), 2);
        // A file that shrank: the line it cut is not read as whole.
        assert_eq!(firsts(&data[..12], len, u64::MAX).len(), 1);
    }
}
