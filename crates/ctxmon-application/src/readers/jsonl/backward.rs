//! Yields a file's lines newest first by reading fixed-size blocks backwards from the end.
//!
//! Memory is bounded whatever the file holds: one block plus at most one line buffer of
//! `max_line` bytes. A line that spans blocks is not accumulated while its start is being looked
//! for; only its end offset is remembered. Once its start is found, a line that fits the cap is
//! read again in one piece (from the page cache, so the second read is cheap) and a longer one is
//! reported as [`BackLine::Oversized`] without ever being held in memory. That keeps the work
//! linear in the bytes scanned, where prepending each block to a carried buffer would be
//! quadratic for a multi-megabyte line.

use std::io::{self, Read, Seek, SeekFrom};

use crate::ports::TranscriptReading;

/// Block size of the backward scan.
pub const DEFAULT_BLOCK_SIZE: usize = 64 * 1024;

/// Lines longer than this are skipped without being held in memory: assistant lines hold one
/// content block of model output, which output-token limits keep well under a megabyte, so
/// only tool results and garbage are that long. Their bytes still count toward the scan limit.
pub const DEFAULT_MAX_LINE_BYTES: u64 = 4 * 1024 * 1024;

/// Counts from one scan, for diagnostics and tests; the reading carries the result.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ScanStats {
    /// Non-empty lines met, including oversized ones.
    pub lines: u64,
    /// Lines longer than the line cap, skipped unparsed.
    pub oversized_lines: u64,
}

/// A reading plus how it was obtained.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScanReport {
    /// What the scan found.
    pub reading: TranscriptReading,
    /// How many lines it met on the way.
    pub stats: ScanStats,
}

/// How a backward scan walks a file: its block size and the longest line it parses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScanShape {
    /// Bytes read per step back (at least 1).
    pub block_size: usize,
    /// Lines longer than this are counted and skipped, never held.
    pub max_line_bytes: u64,
}

impl Default for ScanShape {
    fn default() -> Self {
        ScanShape {
            block_size: DEFAULT_BLOCK_SIZE,
            max_line_bytes: DEFAULT_MAX_LINE_BYTES,
        }
    }
}

/// The last `\n` in `bytes`, found a word at a time.
///
/// memchr's default search picks its SIMD routine by asking the CPU for its features on first
/// use, and in a virtual machine each `cpuid` instruction traps to the hypervisor: that one
/// question cost a hook about 0.1 ms, a tenth of a whole process start, on every prompt and
/// status-line refresh. The portable routine asks nothing, and what a scan costs is parsing
/// the lines it finds, not finding their ends. `detect` reads the first line the same way, so
/// the commands that run on every prompt never ask.
pub fn last_newline(bytes: &[u8]) -> Option<usize> {
    memchr::arch::all::memchr::One::new(b'\n').rfind(bytes)
}

/// The first `\n` in `bytes` (see [`last_newline`] for why this routine).
pub fn first_newline(bytes: &[u8]) -> Option<usize> {
    memchr::arch::all::memchr::One::new(b'\n').find(bytes)
}

/// One item of the backward walk.
#[derive(Debug, PartialEq, Eq)]
pub enum BackLine<'a> {
    /// A complete, non-empty line without its `\n`.
    Line(&'a [u8]),
    /// A complete line longer than the cap; its bytes were scanned but not kept.
    Oversized {
        /// The line's length in bytes.
        len: u64,
    },
}

/// Backward line reader over `[limit_start, file_len)` of a seekable source.
#[derive(Debug)]
pub struct BackwardLines<R> {
    src: R,
    block_size: usize,
    max_line: u64,
    /// Lowest offset the walk may read (the scan limit); 0 when the whole file may be read.
    limit_start: u64,
    /// Bytes of the current block, which starts at `block_start`.
    block: Vec<u8>,
    block_start: u64,
    /// Search position inside `block`: everything at or after it has been split into lines.
    cursor: usize,
    /// End (exclusive) of the line whose start is being looked for.
    line_end: u64,
    /// Holds a line that spanned blocks, re-read in one piece.
    line_buf: Vec<u8>,
    done: bool,
    hit_limit: bool,
}

impl<R: Read + Seek> BackwardLines<R> {
    /// `file_len` is the length observed when the file was opened: bytes appended afterwards by
    /// a concurrent writer are ignored, so a half-written line after it cannot be seen.
    pub fn new(
        src: R,
        file_len: u64,
        max_scan_bytes: u64,
        block_size: usize,
        max_line: u64,
    ) -> BackwardLines<R> {
        BackwardLines {
            src,
            block_size: block_size.max(1),
            max_line,
            limit_start: file_len.saturating_sub(max_scan_bytes),
            block: Vec::new(),
            block_start: file_len,
            cursor: 0,
            line_end: file_len,
            line_buf: Vec::new(),
            done: false,
            hit_limit: false,
        }
    }

    /// Bytes read so far, counted from the end of the file (re-reads of a spanning line and the
    /// one-byte look-behind at the limit are not counted twice).
    pub fn bytes_scanned(&self, file_len: u64) -> u64 {
        file_len.saturating_sub(self.block_start)
    }

    /// True once the walk stopped at the scan limit with older bytes left unread.
    pub fn hit_limit(&self) -> bool {
        self.hit_limit
    }

    /// The next line, newest first; `None` at the start of the file or at the scan limit.
    /// Empty lines (the one after a final `\n`, blank lines) are not reported.
    pub fn next_line(&mut self) -> io::Result<Option<BackLine<'_>>> {
        loop {
            if self.done {
                return Ok(None);
            }
            let (start, end) = match last_newline(&self.block[..self.cursor]) {
                Some(i) => {
                    let start = self.block_start + i as u64 + 1;
                    let end = self.line_end;
                    self.cursor = i;
                    self.line_end = start - 1;
                    (start, end)
                }
                None if self.block_start == 0 => {
                    // The file's first line has no newline before it.
                    self.done = true;
                    (0, self.line_end)
                }
                None if self.block_start <= self.limit_start => {
                    self.done = true;
                    self.hit_limit = true;
                    // The line reaching back past the limit is complete only if a newline sits
                    // right before the limit; look at that one byte rather than drop the line.
                    if !self.newline_before(self.block_start)? {
                        return Ok(None);
                    }
                    (self.block_start, self.line_end)
                }
                None => {
                    self.read_previous_block()?;
                    continue;
                }
            };
            if end > start {
                return self.emit(start, end).map(Some);
            }
        }
    }

    fn read_previous_block(&mut self) -> io::Result<()> {
        let start = self
            .block_start
            .saturating_sub(self.block_size as u64)
            .max(self.limit_start);
        // Bounded by `block_size`, so the conversion cannot fail on any supported platform.
        let len = usize::try_from(self.block_start - start).unwrap_or(self.block_size);
        self.block.resize(len, 0);
        self.src.seek(SeekFrom::Start(start))?;
        self.src.read_exact(&mut self.block)?;
        self.block_start = start;
        self.cursor = len;
        Ok(())
    }

    fn newline_before(&mut self, offset: u64) -> io::Result<bool> {
        let Some(prev) = offset.checked_sub(1) else {
            return Ok(true);
        };
        let mut byte = [0u8; 1];
        self.src.seek(SeekFrom::Start(prev))?;
        self.src.read_exact(&mut byte)?;
        Ok(byte[0] == b'\n')
    }

    fn emit(&mut self, start: u64, end: u64) -> io::Result<BackLine<'_>> {
        let block_end = self.block_start + self.block.len() as u64;
        if start >= self.block_start && end <= block_end {
            let from = (start - self.block_start) as usize;
            let to = (end - self.block_start) as usize;
            return Ok(BackLine::Line(&self.block[from..to]));
        }
        let len = end - start;
        if len > self.max_line {
            return Ok(BackLine::Oversized { len });
        }
        let Ok(len) = usize::try_from(len) else {
            return Ok(BackLine::Oversized { len });
        };
        self.line_buf.clear();
        self.line_buf.resize(len, 0);
        self.src.seek(SeekFrom::Start(start))?;
        self.src.read_exact(&mut self.line_buf)?;
        Ok(BackLine::Line(&self.line_buf))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Cursor;

    fn collect(data: &[u8], max_scan: u64, block: usize, max_line: u64) -> (Vec<String>, bool) {
        let mut r = BackwardLines::new(
            Cursor::new(data.to_vec()),
            data.len() as u64,
            max_scan,
            block,
            max_line,
        );
        let mut out = Vec::new();
        while let Some(item) = r.next_line().unwrap() {
            out.push(match item {
                BackLine::Line(b) => String::from_utf8_lossy(b).into_owned(),
                BackLine::Oversized { len } => format!("<{len}>"),
            });
        }
        (out, r.hit_limit())
    }

    #[test]
    fn every_block_size_gives_the_same_lines() {
        let data = b"one\ntwo\n\nthree-is-longer\r\nfour";
        for block in 1..=data.len() + 1 {
            let (lines, hit) = collect(data, u64::MAX, block, 1024);
            assert_eq!(
                lines,
                ["four", "three-is-longer\r", "two", "one"],
                "{block}"
            );
            assert!(!hit);
        }
    }

    #[test]
    fn trailing_newline_yields_no_empty_line() {
        let (lines, _) = collect(b"a\nb\n", u64::MAX, 3, 1024);
        assert_eq!(lines, ["b", "a"]);
    }

    #[test]
    fn long_lines_are_reported_oversized_and_the_walk_goes_on() {
        let data = b"old\nxxxxxxxxxx\nnew\n";
        for block in 1..=8 {
            let (lines, _) = collect(data, u64::MAX, block, 5);
            assert_eq!(lines, ["new", "<10>", "old"], "{block}");
        }
    }

    #[test]
    fn scan_limit_drops_the_line_cut_by_it() {
        let data = b"aaaa\nbbbb\ncccc\n";
        // The last 7 bytes are "b\ncccc\n": "cccc" is whole, "bbbb" is cut.
        let (lines, hit) = collect(data, 7, 4, 1024);
        assert_eq!(lines, ["cccc"]);
        assert!(hit);
        // The last 10 bytes start right after a newline: "bbbb" is whole.
        let (lines, hit) = collect(data, 10, 4, 1024);
        assert_eq!(lines, ["cccc", "bbbb"]);
        assert!(hit);
        let (lines, hit) = collect(data, 0, 4, 1024);
        assert!(lines.is_empty());
        assert!(hit);
    }

    #[test]
    fn limit_at_or_beyond_the_file_is_no_limit() {
        let data = b"aaaa\nbbbb\n";
        for max in [10, 11, u64::MAX] {
            let (lines, hit) = collect(data, max, 3, 1024);
            assert_eq!(lines, ["bbbb", "aaaa"]);
            assert!(!hit, "{max}");
        }
    }
}
