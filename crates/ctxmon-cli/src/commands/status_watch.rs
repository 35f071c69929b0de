//! `ctxmon status --watch`: the status of one transcript, drawn again whenever the file
//! changes, for agents without a status line (Codex CLI, Gemini CLI) or a second terminal.
//!
//! The file's size and modification time are looked at every [`POLL`]: a transcript only
//! grows while a session runs, so a change of either is a new line, and nothing else (no file
//! watcher, no dependency) is needed for a view people read at human speed. A frame costs what
//! one `ctxmon status` costs, and only a change draws one.
//!
//! The watch ends with exit 0 on Ctrl-C (SIGINT) or SIGTERM, when its input ends (Ctrl-D, or
//! the pipe feeding it closes; an input that is a file or `/dev/null` is not watched, since it
//! ends at once), and when its output's reader goes away (at the next frame, as every command
//! ends on a closed stdout).

use std::io::{IsTerminal, Read};
use std::os::fd::AsFd;
use std::os::unix::fs::FileTypeExt;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, SystemTime};

use anyhow::anyhow;

use super::status::frame;
use super::transcript_target::TranscriptTarget;
use crate::cli::{GlobalArgs, StatusArgs};
use crate::diag::diag;
use crate::exit::{CmdResult, Failure};
use crate::json_out::Layout;
use crate::out::out;

/// How often the transcript is looked at.
const POLL: Duration = Duration::from_secs(1);

/// How often a wait looks whether it should end: Ctrl-C ends the watch within this.
const TICK: Duration = Duration::from_millis(50);

/// Clears a terminal and puts the cursor home, so each frame replaces the last.
const CLEAR: &str = "\x1b[H\x1b[2J";

pub fn run(args: &StatusArgs, global: &GlobalArgs) -> CmdResult {
    let target = super::status::target(args, global)?;
    watch(&target, args, global)
}

fn watch(target: &TranscriptTarget, args: &StatusArgs, global: &GlobalArgs) -> CmdResult {
    let stop = Arc::new(AtomicBool::new(false));
    for signal in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        signal_hook::flag::register(signal, Arc::clone(&stop))
            .map_err(|e| Failure::Other(anyhow!("cannot watch for Ctrl-C: {e}")))?;
    }
    watch_input(&stop);
    let terminal = std::io::stdout().is_terminal();
    let mut last: Option<Stamp> = None;
    let mut first = true;
    loop {
        let now = stamp(&target.transcript);
        if first || now != last {
            last = now;
            // A frame whose reading fails ends the watch when it is the first (as `status`
            // would fail), and is said on stderr later: a session's file can be replaced.
            match frame(target, args, global, Layout::Compact) {
                Ok(text) => match draw(&text, terminal, global.json, first) {
                    Err(Failure::StdoutClosed) => return Ok(()),
                    other => other?,
                },
                Err(Failure::StdoutClosed) => return Ok(()),
                Err(e) if first => return Err(e),
                Err(e) => diag!("ctxmon status --watch: {}", describe(&e)),
            }
            first = false;
        }
        if wait(&stop, POLL) {
            return Ok(());
        }
    }
}

/// One frame: on a terminal in place of the last; in a pipe or a file after it, people's
/// frames a blank line apart and JSON one line each.
fn draw(text: &str, terminal: bool, json: bool, first: bool) -> CmdResult {
    if terminal && !json {
        out!("{CLEAR}{text}")
    } else if first || json {
        out!("{text}")
    } else {
        out!("\n{text}")
    }
}

fn describe(e: &Failure) -> String {
    match e {
        Failure::Usage(e) | Failure::Other(e) => format!("{e:#}"),
        Failure::Reported | Failure::StdoutClosed => "failed".to_string(),
    }
}

/// Waits up to `total`, `true` as soon as the watch should end.
fn wait(stop: &AtomicBool, total: Duration) -> bool {
    let mut waited = Duration::ZERO;
    while waited < total {
        if stop.load(Ordering::Relaxed) {
            return true;
        }
        std::thread::sleep(TICK);
        waited += TICK;
    }
    stop.load(Ordering::Relaxed)
}

/// What says a transcript changed: its length and modification time (`None` while it cannot
/// be read, so that its return draws a frame).
type Stamp = (u64, Option<SystemTime>);

fn stamp(path: &Path) -> Option<Stamp> {
    let meta = std::fs::metadata(path).ok()?;
    Some((meta.len(), meta.modified().ok()))
}

/// Ends the watch when standard input ends: a terminal's Ctrl-D, or a pipe whose writer
/// closed it. A regular file or a device such as `/dev/null` ends at once, which says nothing
/// about whether the user still watches, so it is not read.
fn watch_input(stop: &Arc<AtomicBool>) {
    let stdin = std::io::stdin();
    let watched = stdin.is_terminal()
        || stdin
            .as_fd()
            .try_clone_to_owned()
            .ok()
            .map(std::fs::File::from)
            .and_then(|f| f.metadata().ok())
            .is_some_and(|m| m.file_type().is_fifo() || m.file_type().is_socket());
    if !watched {
        return;
    }
    let stop = Arc::clone(stop);
    // A thread blocked on a read: it ends with the process.
    std::thread::spawn(move || {
        let mut buf = [0u8; 4096];
        let mut input = std::io::stdin().lock();
        loop {
            match input.read(&mut buf) {
                Ok(0) => break,
                Err(e) if e.kind() != std::io::ErrorKind::Interrupted => break,
                Ok(_) | Err(_) => {}
            }
        }
        stop.store(true, Ordering::Relaxed);
    });
}
