//! The per-call floor of `cargo xtask bench`: what any hook or status line must do at least,
//! and nothing more. It starts as a process (a small Rust program, built by the bench with
//! `rustc -O`), reads its stdin to the end, opens the transcript its JSON names (or the path
//! given as its one argument) and reads the last 64 KiB of it, then writes a one-line answer
//! that says how many bytes it read, which the bench checks.
//!
//! It has no dependencies and parses no JSON: it finds `"transcript_path":"` and takes the text
//! up to the next quote (the bench's paths need no escapes). It is built outside the workspace
//! so that it is as small as a program can be: ctxmon's rows are compared with it.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::PathBuf;

/// How much of the transcript's end is read: one block of ctxmon's backward scan.
const TAIL_BYTES: u64 = 64 * 1024;

fn main() {
    let mut input = Vec::new();
    let _ = std::io::stdin().lock().read_to_end(&mut input);
    let path = std::env::args_os()
        .nth(1)
        .map(PathBuf::from)
        .or_else(|| transcript_path(&input));
    let read = path.map_or(0, |p| read_tail(&p));
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{{\"tail_bytes\":{read}}}");
    let _ = out.flush();
}

/// The bytes read from the end of the file at `path` (0 when it cannot be read).
fn read_tail(path: &std::path::Path) -> u64 {
    let Ok(mut file) = File::open(path) else {
        return 0;
    };
    let len = file.metadata().map_or(0, |m| m.len());
    let start = len.saturating_sub(TAIL_BYTES);
    if file.seek(SeekFrom::Start(start)).is_err() {
        return 0;
    }
    let mut tail = Vec::with_capacity((len - start) as usize);
    match file.read_to_end(&mut tail) {
        Ok(n) => n as u64,
        Err(_) => 0,
    }
}

/// The value of the input's `"transcript_path"` key, found as text.
fn transcript_path(input: &[u8]) -> Option<PathBuf> {
    const KEY: &[u8] = b"\"transcript_path\":\"";
    let at = input.windows(KEY.len()).position(|w| w == KEY)? + KEY.len();
    let rest = &input[at..];
    let end = rest.iter().position(|&b| b == b'"')?;
    let text = std::str::from_utf8(&rest[..end]).ok()?;
    Some(PathBuf::from(text))
}
