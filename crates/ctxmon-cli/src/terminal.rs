//! The width people's output is laid out for (`ctxmon report`'s sparkline), in the order
//! Python's `shutil.get_terminal_size` uses: `COLUMNS` when it is a positive number (someone
//! set it on purpose), else the terminal's own width (the `TIOCGWINSZ` ioctl, through the
//! `terminal_size` crate clap already uses), asked of stdout and then of stderr, so
//! `ctxmon report | less` still fits the screen, else 80.

use std::io;

/// Columns when nothing says otherwise: a pipe or a file with no `COLUMNS`.
pub const DEFAULT_WIDTH: usize = 80;

/// The width to lay out for (see the module docs).
pub fn width() -> usize {
    let columns = crate::bootstrap::env_var("COLUMNS")
        .and_then(|c| c.trim().parse::<usize>().ok())
        .filter(|w| *w > 0);
    columns
        .or_else(|| terminal(io::stdout()))
        .or_else(|| terminal(io::stderr()))
        .unwrap_or(DEFAULT_WIDTH)
}

fn terminal(fd: impl std::os::fd::AsFd) -> Option<usize> {
    let (terminal_size::Width(w), _) = terminal_size::terminal_size_of(fd)?;
    (w > 0).then_some(usize::from(w))
}
