//! Standard output for every command except the hooks and the status line, under one rule: a
//! reader that has gone (`ctxmon completions bash | head -1`) ends the command quietly with exit
//! 0, as SIGPIPE ends other tools; any other failed write (`>/dev/full`) is a clear error with
//! exit 1. Never a panic.
//!
//! `println!` panics on a failed write (Rust ignores SIGPIPE, so a gone reader is an `EPIPE`
//! error, and restoring the signal needs unsafe code), so `clippy::print_stdout` is denied in
//! this crate (`main.rs`) and commands print through [`outln!`] and [`out!`], which return the
//! error as a [`Failure`] for `?`. `commands::run` maps it to the exit code in one place. Every
//! write is flushed at once, so the failure comes back from the write that met it, not from
//! the flush at exit that std would ignore.
//!
//! Hooks and `statusline` answer Claude Code and always exit 0: they write with `writeln!` and
//! drop the error themselves.

use std::fmt;
use std::io::{self, Write};

use anyhow::anyhow;

use crate::exit::Failure;

/// Writes `args` and a newline (use [`outln!`]).
pub fn line(args: fmt::Arguments<'_>) -> Result<(), Failure> {
    let mut out = io::stdout().lock();
    out.write_fmt(args)
        .and_then(|()| out.write_all(b"\n"))
        .and_then(|()| out.flush())
        .map_err(failure)
}

/// Writes `args` as they are (use [`out!`]).
pub fn text(args: fmt::Arguments<'_>) -> Result<(), Failure> {
    let mut out = io::stdout().lock();
    out.write_fmt(args)
        .and_then(|()| out.flush())
        .map_err(failure)
}

/// Writes bytes as they are: a completion script, a bundle serialised elsewhere.
pub fn bytes(bytes: &[u8]) -> Result<(), Failure> {
    let mut out = io::stdout().lock();
    out.write_all(bytes)
        .and_then(|()| out.flush())
        .map_err(failure)
}

/// The one mapping of a failed stdout write: its reader has gone, or stdout cannot take it.
pub fn failure(e: io::Error) -> Failure {
    if e.kind() == io::ErrorKind::BrokenPipe {
        Failure::StdoutClosed
    } else {
        Failure::Other(anyhow!("cannot write to stdout: {e}"))
    }
}

/// `println!` for commands: one line to stdout, flushed; `Err` for `?` (see the module docs).
macro_rules! outln {
    ($($arg:tt)*) => {
        $crate::out::line(format_args!($($arg)*))
    };
}

/// `print!` for commands: text to stdout as it is, flushed; `Err` for `?`.
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::out::text(format_args!($($arg)*))
    };
}

pub(crate) use {out, outln};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_gone_reader_is_no_failure_and_a_full_disk_is_one() {
        let closed = failure(io::Error::from(io::ErrorKind::BrokenPipe));
        assert!(matches!(closed, Failure::StdoutClosed));
        assert_eq!(closed.exit_code(), std::process::ExitCode::SUCCESS);
        let full = failure(io::Error::from_raw_os_error(28));
        assert_eq!(full.exit_code(), std::process::ExitCode::from(1));
        let message = format!("{:#}", full.error().unwrap());
        assert!(message.starts_with("cannot write to stdout: "), "{message}");
    }
}
