//! Diagnostics on stderr that can never cost an answer: a failed write is ignored.
//!
//! `eprintln!` panics when stderr cannot be written (`2>/dev/full`, a pipe whose reader has
//! gone: Rust ignores SIGPIPE, so that is an EPIPE error, not a signal). In a hook the panic
//! took the worker's answer with it and then the main thread's report of the lost worker, and
//! the process exited 101. A diagnostic is a courtesy to whoever reads stderr; the answer on
//! stdout and the exit code are what a hook promises (contract C14), so every write here drops its error.
//! `clippy::print_stderr` is denied in this crate (`main.rs`) so that `eprintln!` cannot come
//! back unnoticed.

use std::io::Write;

/// Writes `text` to stderr as it is, ignoring every error.
pub fn text(text: &str) {
    let _ = std::io::stderr().lock().write_all(text.as_bytes());
}

/// Writes one formatted line to stderr, ignoring every error (use [`diag!`]).
pub fn line(args: std::fmt::Arguments<'_>) {
    let mut err = std::io::stderr().lock();
    let _ = err.write_fmt(args);
    let _ = err.write_all(b"\n");
}

/// `eprintln!` that cannot panic: one line to stderr, a failed write ignored.
macro_rules! diag {
    ($($arg:tt)*) => {
        $crate::diag::line(format_args!($($arg)*))
    };
}

pub(crate) use diag;
