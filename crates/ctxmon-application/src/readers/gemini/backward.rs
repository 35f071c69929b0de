//! Lines of a file read newest first, in fixed blocks, over any `Read + Seek`: the cost of a
//! read depends on how far back it looks, never on the file's size. A line longer than the
//! line cap is skipped unkept (its bytes still count), blank lines are passed over, and nothing
//! before `max_bytes` from the end is read.

use std::io::{self, Read, Seek, SeekFrom};

/// The block read at a time.
pub const BLOCK: usize = 64 * 1024;

/// One line, newest first.
#[derive(Debug, PartialEq, Eq)]
pub enum BackLine {
    /// A non-blank line, without its newline.
    Line(Vec<u8>),
    /// A line longer than the cap, not kept.
    Oversized,
}

/// Reads the lines of the first `len` bytes of a file backwards.
pub struct BackwardLines<R> {
    file: R,
    /// Bytes before `pos` are not read yet.
    pos: u64,
    /// Where the scan must stop: `len - max_bytes`.
    floor: u64,
    /// Bytes read but not handed out; the last line in it is complete.
    pending: Vec<u8>,
    /// The line being read grew past the cap: its bytes are dropped until its start.
    oversized: bool,
    max_line: usize,
    /// The first line of the file was handed out.
    finished: bool,
    /// The scan reached the floor above the file's start.
    hit_floor: bool,
}

impl<R: Read + Seek> BackwardLines<R> {
    /// Lines of `file`'s first `len` bytes, at most `max_bytes` from the end, lines longer than
    /// `max_line` skipped.
    pub fn new(file: R, len: u64, max_bytes: u64, max_line: usize) -> BackwardLines<R> {
        BackwardLines {
            file,
            pos: len,
            floor: len.saturating_sub(max_bytes),
            pending: Vec::new(),
            oversized: false,
            max_line,
            finished: false,
            hit_floor: false,
        }
    }

    /// True when the scan stopped at `max_bytes` rather than at the file's start.
    pub fn hit_limit(&self) -> bool {
        self.hit_floor
    }

    /// How many bytes from the end of a file of `len` bytes were read.
    pub fn bytes_read(&self, len: u64) -> u64 {
        len.saturating_sub(self.pos)
    }

    /// The next line, newest first; `None` at the start of the file or at the limit (a line
    /// the limit cuts is not handed out).
    pub fn next_line(&mut self) -> io::Result<Option<BackLine>> {
        loop {
            if let Some(at) = self.pending.iter().rposition(|b| *b == b'\n') {
                let line = self.pending.split_off(at + 1);
                self.pending.truncate(at);
                if let Some(out) = self.take(line) {
                    return Ok(Some(out));
                }
                continue;
            }
            if self.pos <= self.floor {
                if self.floor > 0 {
                    self.hit_floor = true;
                    return Ok(None);
                }
                if self.finished {
                    return Ok(None);
                }
                self.finished = true;
                let line = std::mem::take(&mut self.pending);
                return Ok(self.take(line));
            }
            self.read_block()?;
        }
    }

    /// What a complete line is handed out as; `None` for a blank one.
    fn take(&mut self, line: Vec<u8>) -> Option<BackLine> {
        if std::mem::replace(&mut self.oversized, false) || line.len() > self.max_line {
            return Some(BackLine::Oversized);
        }
        (!line.iter().all(u8::is_ascii_whitespace)).then_some(BackLine::Line(line))
    }

    fn read_block(&mut self) -> io::Result<()> {
        let start = self.pos.saturating_sub(BLOCK as u64).max(self.floor);
        let size = usize::try_from(self.pos - start).unwrap_or(BLOCK);
        let mut block = vec![0u8; size];
        self.file.seek(SeekFrom::Start(start))?;
        self.file.read_exact(&mut block)?;
        self.pos = start;
        if self.oversized {
            // Only the start of the skipped line matters: the newline before it, if here.
            if let Some(at) = block.iter().rposition(|b| *b == b'\n') {
                block.truncate(at + 1);
                self.pending = block;
            }
            return Ok(());
        }
        block.extend_from_slice(&self.pending);
        self.pending = block;
        if self.pending.len() > self.max_line && !self.pending.contains(&b'\n') {
            self.pending = Vec::new();
            self.oversized = true;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::io::Cursor;

    use super::*;

    fn lines(text: &[u8], max_bytes: u64, max_line: usize) -> (Vec<Option<String>>, bool) {
        let mut back =
            BackwardLines::new(Cursor::new(text), text.len() as u64, max_bytes, max_line);
        let mut out = Vec::new();
        while let Some(line) = back.next_line().expect("reads") {
            out.push(match line {
                BackLine::Line(l) => Some(String::from_utf8(l).expect("utf-8")),
                BackLine::Oversized => None,
            });
        }
        (out, back.hit_limit())
    }

    #[test]
    fn lines_come_newest_first_blank_ones_passed_over() {
        let (got, limit) = lines(b"a\n\nbb\nccc\n", 1 << 20, 100);
        assert_eq!(
            got,
            [Some("ccc".into()), Some("bb".into()), Some("a".into())]
        );
        assert!(!limit);
        let (got, _) = lines(b"a\nbb", 1 << 20, 100);
        assert_eq!(got, [Some("bb".into()), Some("a".into())]);
    }

    #[test]
    fn a_long_line_is_skipped_and_the_limit_stops_the_scan() {
        let mut text = b"first\n".to_vec();
        text.extend(std::iter::repeat_n(b'x', 3 * BLOCK));
        text.extend_from_slice(b"\nlast\n");
        let (got, limit) = lines(&text, 1 << 30, 1000);
        assert_eq!(got, [Some("last".into()), None, Some("first".into())]);
        assert!(!limit);
        let (got, limit) = lines(&text, 10, 1000);
        assert_eq!(got, [Some("last".into())]);
        assert!(limit);
    }
}
