//! The last bytes of a transcript, read forward as whole lines: what the handoff derivations
//! (resumption state, recent activity) read, more than the newest usage record but bounded.
//!
//! The window is read in pieces rather than whole: an 8 MiB window read whole cost PreCompact
//! 8 MiB of memory and a page fault per 4 KiB of it, more than a quarter of its time.

use std::io::{self, Read, Seek, SeekFrom};

use crate::readers::json::repair;

/// The complete lines found in a transcript's tail, oldest first.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TailLines {
    /// Every complete line of the window that parsed as JSON, in file order.
    pub lines: Vec<serde_json::Value>,
    /// Non-blank lines of the window that did not parse (garbage, a line still being written).
    pub skipped_lines: u64,
    /// True when the window began at the start of the file, so nothing older exists.
    pub from_file_start: bool,
    /// Bytes read from the file.
    pub bytes_read: u64,
}

/// The complete lines of the last `max_bytes` of `src` (`file_len` bytes long) for which
/// `keep(raw bytes)` holds, parsed: JSON parsing is the cost of a tail read (about 8 ms per
/// MiB into `Value`s), so lines no consumer needs are dropped before it. A line that does not
/// parse (garbage, a line still being written) is counted in `skipped_lines`.
pub fn tail_lines<R: Read + Seek>(
    src: &mut R,
    file_len: u64,
    max_bytes: u64,
    keep: impl Fn(&[u8]) -> bool,
) -> io::Result<TailLines> {
    let mut lines = Vec::new();
    let mut skipped_lines = 0;
    let (from_file_start, bytes_read) =
        for_each_tail_line(src, file_len, max_bytes, &mut |line| {
            if !keep(line) {
                return;
            }
            // A lone surrogate escape (Node's cut emoji) would drop the user's request otherwise.
            match repair::from_slice_lenient::<serde_json::Value>(line) {
                Ok(value) => lines.push(value),
                Err(_) => skipped_lines += 1,
            }
        })?;
    Ok(TailLines {
        lines,
        skipped_lines,
        from_file_start,
        bytes_read,
    })
}

/// How much of the window [`for_each_tail_line`] holds at once.
const TAIL_CHUNK: usize = 256 * 1024;

/// Hands every complete, non-blank line of the last `max_bytes` of `src` to `visit`, oldest
/// first; returns whether the window began at the file start and the bytes read.
///
/// The line cut by the window's start is skipped: one byte more than the window is read when
/// there is one, and everything up to the first newline from there is dropped (just that byte
/// when it is a newline, so a window that starts a line loses nothing). The last line is
/// handed over without its newline, or as it is when the file ends without one. The source is
/// read up to `file_len`, the length it had when opened, in pieces ([`TAIL_CHUNK`]), so memory
/// is one piece plus the longest line; a source that shrank meanwhile is an error
/// (`UnexpectedEof`), as a whole read would be.
pub fn for_each_tail_line<R: Read + Seek>(
    src: &mut R,
    file_len: u64,
    max_bytes: u64,
    visit: &mut dyn FnMut(&[u8]),
) -> io::Result<(bool, u64)> {
    let start = file_len.saturating_sub(max_bytes);
    let read = for_each_line_between(src, file_len, start, file_len, visit)?;
    Ok((start == 0, read))
}

/// Hands every complete, non-blank line of `src` that starts at or after byte `from` and before
/// byte `to` to `visit`, oldest first; returns the bytes read. A line starts at `from` only
/// when `from` is 0 or follows a newline (the line cut there is the range's before it); the
/// range's last line is read to its end past `to`. So ranges that meet (`a..b`, `b..c`) hand
/// over each line once, and two readers can share a window.
pub fn for_each_line_between<R: Read + Seek>(
    src: &mut R,
    file_len: u64,
    from: u64,
    to: u64,
    visit: &mut dyn FnMut(&[u8]),
) -> io::Result<u64> {
    let read_from = from.saturating_sub(1).min(file_len);
    let to = to.clamp(read_from, file_len);
    src.seek(SeekFrom::Start(read_from))?;
    let mut lines = TailSplitter {
        skipping: from != 0,
        carried: Vec::new(),
    };
    let span = file_len - read_from;
    let mut chunk = vec![0u8; usize::try_from(span).map_or(TAIL_CHUNK, |l| l.min(TAIL_CHUNK))];
    let mut at = read_from;
    while at < to {
        let want = usize::try_from(to - at).map_or(chunk.len(), |l| l.min(chunk.len()));
        let piece = chunk.get_mut(..want).unwrap_or_default();
        src.read_exact(piece)?;
        lines.push(piece, visit);
        at += want as u64;
    }
    // The line begun before `to` is this range's: read on to its newline.
    while at < file_len && !lines.skipping && !lines.carried.is_empty() {
        let want = usize::try_from(file_len - at).map_or(chunk.len(), |l| l.min(chunk.len()));
        let piece = chunk.get_mut(..want).unwrap_or_default();
        src.read_exact(piece)?;
        at += want as u64;
        if let Some(end) = memchr::memchr(b'\n', piece) {
            lines
                .carried
                .extend_from_slice(piece.get(..end).unwrap_or_default());
            visit_line(&lines.carried, visit);
            return Ok(at - read_from);
        }
        lines.carried.extend_from_slice(piece);
    }
    if at >= file_len {
        lines.finish(visit);
    }
    Ok(at - read_from)
}

/// Splits pieces of a window into lines, carrying a line that spans pieces.
struct TailSplitter {
    /// Still dropping the line cut by the window's start (up to and including its newline).
    skipping: bool,
    /// The start of a line whose newline is in a later piece.
    carried: Vec<u8>,
}

impl TailSplitter {
    fn push(&mut self, piece: &[u8], visit: &mut dyn FnMut(&[u8])) {
        let mut begin = 0;
        // Vectorised newline search: a byte-by-byte split was a tenth of PreCompact's time.
        for end in memchr::memchr_iter(b'\n', piece) {
            let part = piece.get(begin..end).unwrap_or_default();
            begin = end + 1;
            if std::mem::take(&mut self.skipping) {
                continue;
            }
            if self.carried.is_empty() {
                visit_line(part, visit);
            } else {
                self.carried.extend_from_slice(part);
                visit_line(&self.carried, visit);
                self.carried.clear();
            }
        }
        if !self.skipping {
            self.carried
                .extend_from_slice(piece.get(begin..).unwrap_or_default());
        }
    }

    /// The window's last line, which has no newline after it.
    fn finish(self, visit: &mut dyn FnMut(&[u8])) {
        if !self.skipping {
            visit_line(&self.carried, visit);
        }
    }
}

fn visit_line(line: &[u8], visit: &mut dyn FnMut(&[u8])) {
    if !line.iter().all(u8::is_ascii_whitespace) {
        visit(line);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// What the window yields read whole: the old reading, kept as the reference.
    fn whole(buf: &[u8], at_file_start: bool) -> Vec<Vec<u8>> {
        let window: &[u8] = if at_file_start {
            buf
        } else {
            let rest = buf.get(1..).unwrap_or_default();
            if buf.first() == Some(&b'\n') {
                rest
            } else {
                match rest.iter().position(|&b| b == b'\n') {
                    Some(i) => rest.get(i + 1..).unwrap_or_default(),
                    None => &[],
                }
            }
        };
        window
            .split(|&b| b == b'\n')
            .filter(|l| !l.iter().all(u8::is_ascii_whitespace))
            .map(<[u8]>::to_vec)
            .collect()
    }

    fn in_pieces(buf: &[u8], at_file_start: bool, piece: usize) -> Vec<Vec<u8>> {
        let mut lines = Vec::new();
        let mut visit = |l: &[u8]| lines.push(l.to_vec());
        let mut splitter = TailSplitter {
            skipping: !at_file_start,
            carried: Vec::new(),
        };
        for part in buf.chunks(piece.max(1)) {
            splitter.push(part, &mut visit);
        }
        splitter.finish(&mut visit);
        lines
    }

    proptest! {
        /// Pieces of any size, lines of any length (longer than a piece, empty, blank, at the
        /// window's edges): the same lines as the window read whole.
        #[test]
        fn lines_are_the_same_whatever_the_pieces(
            buf in proptest::collection::vec(prop_oneof![Just(b'\n'), Just(b' '), Just(b'x'), Just(b'{')], 0..200),
            at_file_start in any::<bool>(),
            piece in 1usize..40,
        ) {
            prop_assert_eq!(in_pieces(&buf, at_file_start, piece), whole(&buf, at_file_start));
        }
    }

    #[test]
    fn a_window_larger_than_a_piece_is_read_in_pieces() {
        let long = format!("{{\"x\":\"{}\"}}", "y".repeat(TAIL_CHUNK + 10));
        let text = format!("cut line\n{{\"a\":1}}\n{long}\n\n  \n{{\"b\":2}}");
        let len = text.len() as u64;
        let mut src = std::io::Cursor::new(text.into_bytes());
        let mut seen = Vec::new();
        let window = len - 2;
        let (from_start, read) =
            for_each_tail_line(&mut src, len, window, &mut |l| seen.push(l.len())).unwrap();
        assert!(!from_start);
        assert_eq!(read, window + 1);
        assert_eq!(seen, [7, long.len(), 7]);
        let (from_start, _) = for_each_tail_line(&mut src, len, u64::MAX, &mut |_| {}).unwrap();
        assert!(from_start);
    }

    #[test]
    fn a_source_shorter_than_its_length_is_an_error_not_a_panic() {
        // The file shrank after its length was taken: the read ends early.
        let mut src = std::io::Cursor::new(b"{\"a\":1}\n".to_vec());
        let err = for_each_tail_line(&mut src, 1_000, 500, &mut |_| {}).unwrap_err();
        assert_eq!(err.kind(), std::io::ErrorKind::UnexpectedEof);
    }
}
