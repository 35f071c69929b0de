//! Byte-level repair of JSON text that serde_json refuses for reasons that must not cost a whole
//! hook input or transcript line, and a bounded copy of JSON text too large to keep whole.
//!
//! Two defects are repaired, both by text of the same length or shorter (and by
//! [`from_slice_lenient`], a third: bytes that are not UTF-8):
//! - An escaped lone surrogate (`\ud83d` not followed by `\udc00`–`\udfff`, or a trailing one on
//!   its own) becomes `\ufffd`, U+FFFD. Node's `JSON.stringify` writes one for a string cut
//!   inside an emoji; serde_json refuses it, and with it the whole document.
//! - A number beyond f64's range (`1e999`, serde_json's "number out of range") becomes `1e308`
//!   (or `-1e308`): still a number, and like any number too large for a count it reads as no
//!   count (a `postTokens` of it is missing, a usage field of it makes the record unusable,
//!   exactly as `1e23` does), while the rest of the document counts.
//!
//! Valid JSON without such defects passes through byte for byte, and callers run the repair only
//! after serde_json has refused the text ([`from_slice_lenient`]), so the common path costs
//! nothing. Anything else wrong (a truncated line, garbage) is left as it is and still refused.
//!
//! [`Shrinker`] runs the same pass over a stream with two more rules, for a hook's stdin beyond
//! its cap: a string longer than a limit keeps a prefix (whole UTF-8 characters and escapes) and
//! a note of its length, and the output never grows past the cap. It reads whatever it is given,
//! so the caller can read its input to the end (the writer never meets a closed pipe) while
//! keeping only what a hook needs: its paths and names, not a 2 MB pasted prompt.

use serde::de::DeserializeOwned;
use serde_json::error::Category;

/// What an escaped lone surrogate becomes: U+FFFD, as an escape of the same length.
const REPLACEMENT: &[u8; 6] = br"\ufffd";

/// Parses `bytes` as serde_json does; when serde_json refuses them for a syntax reason, repairs
/// the defects this module knows (see the module docs) and parses again. Bytes that are not
/// UTF-8 are among them here: each invalid sequence becomes U+FFFD first, as JavaScript's
/// decoders read it (a terminal paste or a tool cutting a multi-byte character leaves one).
/// The error is the original one when the repair changes nothing or does not help.
pub fn from_slice_lenient<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, serde_json::Error> {
    match serde_json::from_slice(bytes) {
        Ok(value) => Ok(value),
        // A truncated line (EOF) or a value of the wrong shape (data) is not ours to repair.
        Err(e) if e.classify() != Category::Syntax => Err(e),
        Err(e) => {
            let text = String::from_utf8_lossy(bytes);
            let utf8_repaired = matches!(text, std::borrow::Cow::Owned(_));
            match repair(text.as_bytes()) {
                Some(fixed) => serde_json::from_slice(&fixed).map_err(|_| e),
                None if utf8_repaired => serde_json::from_str(&text).map_err(|_| e),
                None => Err(e),
            }
        }
    }
}

/// [`from_slice_lenient`] for text already known to be UTF-8, which serde_json parses without
/// checking it again (the transcript scan's hot path stays as it was).
pub fn from_str_lenient<T: DeserializeOwned>(text: &str) -> Result<T, serde_json::Error> {
    match serde_json::from_str(text) {
        Ok(value) => Ok(value),
        Err(e) if e.classify() != Category::Syntax => Err(e),
        Err(e) => match repair(text.as_bytes()) {
            Some(fixed) => serde_json::from_slice(&fixed).map_err(|_| e),
            None => Err(e),
        },
    }
}

/// `bytes` with every escaped lone surrogate replaced by `\ufffd` and every number beyond f64's
/// range by `±1e308`; `None` when there is nothing to replace. Never longer than `bytes`.
pub fn repair(bytes: &[u8]) -> Option<Vec<u8>> {
    let mut scanner = Scanner::new(usize::MAX, usize::MAX, bytes.len());
    scanner.push(bytes);
    let (out, changed) = scanner.finish();
    changed.then_some(out?)
}

/// A streaming copy of JSON text that repairs what [`repair`] does, shortens every string longer
/// than `max_string` bytes (of JSON text) to a prefix followed by `… [ctxmon kept K of N bytes]`,
/// and gives up (but goes on accepting input) once its output would exceed `cap` bytes.
#[derive(Debug)]
pub struct Shrinker {
    scanner: Scanner,
}

impl Shrinker {
    pub fn new(cap: usize, max_string: usize) -> Shrinker {
        Shrinker {
            scanner: Scanner::new(cap, max_string, 64 * 1024),
        }
    }

    /// The next bytes of the input, split anywhere.
    pub fn push(&mut self, chunk: &[u8]) {
        self.scanner.push(chunk);
    }

    /// The shortened text; `None` when it would not fit the cap even so.
    pub fn finish(self) -> Option<Vec<u8>> {
        self.scanner.finish().0
    }
}

#[derive(Debug)]
struct Scanner {
    out: Vec<u8>,
    cap: usize,
    max_string: usize,
    /// The output would have exceeded `cap`: it is frozen and will be discarded.
    overflow: bool,
    /// Something was replaced or shortened.
    changed: bool,
    state: State,
}

#[derive(Debug)]
enum State {
    /// Between values: structure, whitespace, literals.
    Outside,
    /// Inside a number token, which began at `start` in the output.
    Number {
        start: usize,
    },
    Str(Str),
}

#[derive(Debug)]
struct Str {
    /// Where the string's content (after its opening quote) begins in the output.
    content_start: usize,
    /// Bytes of content in the input so far.
    total: u64,
    /// The content was shortened: nothing more of it is kept.
    cut: bool,
    esc: Esc,
}

/// Where an escape sequence stands; `\u` escapes are held until it is known whether they form a
/// valid surrogate pair, so the pair is kept or replaced whole.
#[derive(Debug, Clone, Copy)]
enum Esc {
    None,
    /// After a backslash.
    Backslash,
    /// After `\u` and `n` hex digits.
    Unicode {
        hex: [u8; 4],
        n: usize,
    },
    /// A leading surrogate's escape, waiting for a trailing one.
    High {
        high: [u8; 4],
    },
    /// … followed by a backslash.
    HighBackslash {
        high: [u8; 4],
    },
    /// … followed by `\u` and `n` hex digits.
    HighUnicode {
        high: [u8; 4],
        hex: [u8; 4],
        n: usize,
    },
}

/// What one input byte did to an escape: consumed it, or ended the escape without consuming it
/// (the byte is then read again in the string).
enum Step {
    Consumed,
    Again,
}

impl Scanner {
    fn new(cap: usize, max_string: usize, reserve: usize) -> Scanner {
        Scanner {
            out: Vec::with_capacity(reserve.min(cap)),
            cap,
            max_string,
            overflow: false,
            changed: false,
            state: State::Outside,
        }
    }

    fn push(&mut self, chunk: &[u8]) {
        let mut i = 0;
        while let Some(&byte) = chunk.get(i) {
            match &mut self.state {
                State::Outside => {
                    self.outside(byte);
                    i += 1;
                }
                State::Number { start } => {
                    if matches!(byte, b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E') {
                        self.write(&[byte]);
                        i += 1;
                    } else {
                        let start = *start;
                        self.end_number(start);
                        self.state = State::Outside;
                    }
                }
                State::Str(s) if matches!(s.esc, Esc::None) => {
                    let rest = chunk.get(i..).unwrap_or_default();
                    let run = memchr::memchr2(b'"', b'\\', rest).unwrap_or(rest.len());
                    s.total += run as u64;
                    self.keep_run(rest.get(..run).unwrap_or_default());
                    i += run;
                    match chunk.get(i) {
                        Some(b'"') => {
                            self.close_string();
                            i += 1;
                        }
                        Some(_) => {
                            if let State::Str(s) = &mut self.state {
                                s.total += 1;
                                s.esc = Esc::Backslash;
                            }
                            i += 1;
                        }
                        None => {}
                    }
                }
                State::Str(_) => {
                    if let Step::Consumed = self.escape(byte) {
                        i += 1;
                    }
                }
            }
        }
    }

    /// The output and whether anything changed; no output when it overflowed the cap.
    fn finish(mut self) -> (Option<Vec<u8>>, bool) {
        // A number at the very end (a document that is just a number) ends here; a string or an
        // escape still open means truncated input, which is kept as it was (and refused later).
        match self.state {
            State::Number { start } => self.end_number(start),
            State::Str(Str { esc, .. }) => {
                let mut pending = Vec::new();
                match esc {
                    Esc::None => {}
                    Esc::Backslash => pending.push(b'\\'),
                    Esc::Unicode { hex, n } => pending = unicode_escape(&hex[..n.min(4)]),
                    Esc::High { high } => pending = unicode_escape(&high),
                    Esc::HighBackslash { high } => {
                        pending = unicode_escape(&high);
                        pending.push(b'\\');
                    }
                    Esc::HighUnicode { high, hex, n } => {
                        pending = unicode_escape(&high);
                        pending.extend_from_slice(&unicode_escape(&hex[..n.min(4)]));
                    }
                }
                self.keep_piece(&pending);
            }
            State::Outside => {}
        }
        if self.overflow {
            (None, self.changed)
        } else {
            (Some(self.out), self.changed)
        }
    }

    fn outside(&mut self, byte: u8) {
        match byte {
            b'"' => {
                self.write(b"\"");
                self.state = State::Str(Str {
                    content_start: self.out.len(),
                    total: 0,
                    cut: false,
                    esc: Esc::None,
                });
            }
            b'-' | b'0'..=b'9' => {
                self.state = State::Number {
                    start: self.out.len(),
                };
                self.write(&[byte]);
            }
            _ => self.write(&[byte]),
        }
    }

    /// A number token ended: one beyond f64's range is replaced.
    fn end_number(&mut self, start: usize) {
        if self.overflow {
            return;
        }
        let Some(token) = self.out.get(start..) else {
            return;
        };
        if !out_of_range(token) {
            return;
        }
        let negative = token.first() == Some(&b'-');
        self.out.truncate(start);
        self.write(if negative { b"-1e308" } else { b"1e308" });
        self.changed = true;
    }

    /// One byte while an escape is open.
    fn escape(&mut self, byte: u8) -> Step {
        // Only called inside a string with an escape open; anything else skips the byte, so
        // the caller's loop always moves on.
        let State::Str(s) = &mut self.state else {
            return Step::Consumed;
        };
        let esc = s.esc;
        let consumed = match esc {
            Esc::None => return Step::Consumed,
            Esc::Backslash if byte == b'u' => {
                s.esc = Esc::Unicode { hex: [0; 4], n: 0 };
                true
            }
            Esc::Backslash => {
                s.esc = Esc::None;
                self.keep_piece(&[b'\\', byte]);
                true
            }
            Esc::Unicode { mut hex, n } => {
                if let (true, Some(slot)) = (byte.is_ascii_hexdigit(), hex.get_mut(n)) {
                    *slot = byte;
                    if n + 1 == hex.len() {
                        s.esc = Esc::None;
                        self.unicode(hex);
                    } else {
                        s.esc = Esc::Unicode { hex, n: n + 1 };
                    }
                    true
                } else {
                    // Not JSON; kept as it was, for serde_json to refuse.
                    s.esc = Esc::None;
                    self.keep_piece(&unicode_escape(&hex[..n.min(4)]));
                    false
                }
            }
            Esc::High { high } if byte == b'\\' => {
                s.esc = Esc::HighBackslash { high };
                true
            }
            Esc::High { .. } => {
                s.esc = Esc::None;
                self.replace_lone();
                false
            }
            Esc::HighBackslash { high } if byte == b'u' => {
                s.esc = Esc::HighUnicode {
                    high,
                    hex: [0; 4],
                    n: 0,
                };
                true
            }
            Esc::HighBackslash { .. } => {
                // Another escape follows the lone surrogate: that escape is read on its own.
                s.esc = Esc::Backslash;
                self.replace_lone();
                false
            }
            Esc::HighUnicode { high, mut hex, n } => {
                if let (true, Some(slot)) = (byte.is_ascii_hexdigit(), hex.get_mut(n)) {
                    *slot = byte;
                    if n + 1 < hex.len() {
                        s.esc = Esc::HighUnicode {
                            high,
                            hex,
                            n: n + 1,
                        };
                    } else if (0xDC00..=0xDFFF).contains(&hex_value(hex)) {
                        s.esc = Esc::None;
                        let mut pair = unicode_escape(&high);
                        pair.extend_from_slice(&unicode_escape(&hex));
                        self.keep_piece(&pair);
                    } else {
                        s.esc = Esc::None;
                        self.replace_lone();
                        self.unicode(hex);
                    }
                    true
                } else {
                    s.esc = Esc::None;
                    self.replace_lone();
                    self.keep_piece(&unicode_escape(&hex[..n.min(4)]));
                    false
                }
            }
        };
        if consumed {
            if let State::Str(s) = &mut self.state {
                s.total += 1;
            }
            Step::Consumed
        } else {
            Step::Again
        }
    }

    /// A complete `\uXXXX`: kept, held as a possible pair's first half, or replaced.
    fn unicode(&mut self, hex: [u8; 4]) {
        match hex_value(hex) {
            0xD800..=0xDBFF => {
                if let State::Str(s) = &mut self.state {
                    s.esc = Esc::High { high: hex };
                }
            }
            0xDC00..=0xDFFF => self.replace_lone(),
            _ => self.keep_piece(&unicode_escape(&hex)),
        }
    }

    fn replace_lone(&mut self) {
        self.changed = true;
        self.keep_piece(REPLACEMENT);
    }

    fn close_string(&mut self) {
        if let State::Str(s) = &self.state
            && s.cut
        {
            let kept = self.out.len().saturating_sub(s.content_start);
            let note = format!(
                "… [ctxmon kept {} of {} bytes]",
                ctxmon_domain::human::thousands(kept as u64),
                ctxmon_domain::human::thousands(s.total)
            );
            self.write(note.as_bytes());
        }
        self.write(b"\"");
        self.state = State::Outside;
    }

    /// Plain string content (no quote, no backslash): kept up to the string's limit.
    fn keep_run(&mut self, run: &[u8]) {
        let State::Str(s) = &mut self.state else {
            return;
        };
        if s.cut || run.is_empty() {
            return;
        }
        let kept = self.out.len().saturating_sub(s.content_start);
        let room = self.max_string.saturating_sub(kept);
        if run.len() <= room {
            self.write(run);
            return;
        }
        s.cut = true;
        let floor = s.content_start;
        self.changed = true;
        self.write(run.get(..room).unwrap_or_default());
        self.trim_partial_char(floor);
    }

    /// One escape (or a surrogate pair): kept whole or not at all.
    fn keep_piece(&mut self, piece: &[u8]) {
        let State::Str(s) = &mut self.state else {
            return;
        };
        if s.cut {
            return;
        }
        let kept = self.out.len().saturating_sub(s.content_start);
        if piece.len() <= self.max_string.saturating_sub(kept) {
            self.write(piece);
        } else {
            s.cut = true;
            let floor = s.content_start;
            self.changed = true;
            self.trim_partial_char(floor);
        }
    }

    /// Drops a UTF-8 character left incomplete at the end of the output by a cut (the input may
    /// arrive split anywhere), never reaching below `floor`.
    fn trim_partial_char(&mut self, floor: usize) {
        if self.overflow {
            return;
        }
        let len = self.out.len();
        let from = len.saturating_sub(4).max(floor);
        let lead = (from..len)
            .rev()
            .find(|&p| self.out.get(p).is_some_and(|b| b & 0xC0 != 0x80));
        if let Some(p) = lead {
            let width = match self.out.get(p).copied().unwrap_or(0) {
                0xC0..=0xDF => 2,
                0xE0..=0xEF => 3,
                0xF0..=0xF7 => 4,
                _ => 1,
            };
            if p + width > len {
                self.out.truncate(p);
            }
        }
    }

    fn write(&mut self, bytes: &[u8]) {
        if self.overflow {
            return;
        }
        if self.out.len().saturating_add(bytes.len()) > self.cap {
            self.overflow = true;
            return;
        }
        self.out.extend_from_slice(bytes);
    }
}

/// `\u` followed by `hex`.
fn unicode_escape(hex: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(2 + hex.len());
    out.extend_from_slice(b"\\u");
    out.extend_from_slice(hex);
    out
}

fn hex_value(hex: [u8; 4]) -> u32 {
    hex.iter().fold(0, |acc, &b| {
        let digit = match b {
            b'0'..=b'9' => b - b'0',
            b'a'..=b'f' => b - b'a' + 10,
            b'A'..=b'F' => b - b'A' + 10,
            _ => 0,
        };
        acc * 16 + u32::from(digit)
    })
}

/// True for a well-formed JSON number that serde_json refuses as out of range. Without an
/// exponent only a number of more than 309 digits can be that large, so short ones are never
/// parsed here.
fn out_of_range(token: &[u8]) -> bool {
    let has_exponent = token.iter().any(|b| matches!(b, b'e' | b'E'));
    if !has_exponent && token.len() <= 309 {
        return false;
    }
    is_json_number(token) && serde_json::from_slice::<f64>(token).is_err()
}

/// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`
fn is_json_number(token: &[u8]) -> bool {
    let mut rest = token.strip_prefix(b"-").unwrap_or(token);
    let digits = |s: &[u8]| s.iter().take_while(|b| b.is_ascii_digit()).count();
    let int = digits(rest);
    if int == 0 || (int > 1 && rest.first() == Some(&b'0')) {
        return false;
    }
    rest = rest.get(int..).unwrap_or_default();
    if let Some(frac) = rest.strip_prefix(b".") {
        let n = digits(frac);
        if n == 0 {
            return false;
        }
        rest = frac.get(n..).unwrap_or_default();
    }
    if let Some(exp) = rest.strip_prefix(b"e").or_else(|| rest.strip_prefix(b"E")) {
        let exp = exp
            .strip_prefix(b"+")
            .or_else(|| exp.strip_prefix(b"-"))
            .unwrap_or(exp);
        let n = digits(exp);
        if n == 0 {
            return false;
        }
        rest = exp.get(n..).unwrap_or_default();
    }
    rest.is_empty()
}

#[cfg(test)]
#[path = "repair_tests.rs"]
mod tests;
