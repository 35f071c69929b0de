//! Hook diagnostics: `.ctxmon/logs/hooks.log`, one line per message, bounded by rotation.
//!
//! Hooks must never write diagnostics to stdout (Claude Code would parse them), so everything a
//! hook wants to say goes here and to stderr.

use std::fs;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use ctxmon_domain::Timestamp;

use crate::fsutil::{open_append, open_regular};
use crate::layout::ProjectLayout;

#[derive(Debug, Clone)]
pub struct HookLog {
    layout: ProjectLayout,
    path: PathBuf,
    max_bytes: u64,
}

impl HookLog {
    pub fn new(layout: &ProjectLayout, max_bytes: u64) -> Self {
        HookLog {
            layout: layout.clone(),
            path: layout.hooks_log(),
            max_bytes,
        }
    }

    pub fn path(&self) -> &std::path::Path {
        &self.path
    }

    /// Appends one line; returns false when the log could not be written (never an error: the
    /// log is the last resort for reporting errors). A project that does not exist gets no log.
    pub fn write(&self, at: Timestamp, hook: &str, level: &str, message: &str) -> bool {
        let Some(dir) = self.path.parent() else {
            return false;
        };
        if self.layout.ensure_dir(dir).is_err() {
            return false;
        }
        if self.max_bytes > 0
            && fs::symlink_metadata(&self.path).map_or(0, |m| m.len()) >= self.max_bytes
        {
            let mut rotated = self.path.clone().into_os_string();
            rotated.push(".1");
            let _ = fs::rename(&self.path, PathBuf::from(rotated));
        }
        // One line per message so `doctor` can read the last errors back line by line.
        let one_line: String = message
            .chars()
            .take(4_000)
            .map(|c| if c == '\n' || c == '\r' { ' ' } else { c })
            .collect();
        let line = format!("{} {level} {hook}: {one_line}\n", at.to_rfc3339());
        open_append(&self.path)
            .and_then(|mut f| f.write_all(line.as_bytes()))
            .is_ok()
    }

    /// The last `n` lines at level `warn` or `error`, newest last. Other levels (`info`) are
    /// not problems, whatever their message says.
    pub fn recent_problems(&self, n: usize) -> Vec<String> {
        // Only a regular file is read (a FIFO would block `doctor`), and only its last MiB:
        // the log rotates at `hooks.log_max_bytes`, which a user may have raised.
        let text = read_tail_text(&self.path, RECENT_BYTES);
        let mut lines: Vec<String> = text
            .lines()
            // `<time> <level> <hook>: <message>`: the level is the second word.
            .filter(|l| matches!(l.split(' ').nth(1), Some("warn" | "error")))
            .map(str::to_string)
            .collect();
        let skip = lines.len().saturating_sub(n);
        lines.drain(..skip);
        lines
    }
}

/// How much of the log's end `recent_problems` reads.
const RECENT_BYTES: u64 = 1024 * 1024;

/// The last `max` bytes of a regular file as text (lossy); empty when it cannot be read.
fn read_tail_text(path: &Path, max: u64) -> String {
    let Ok((mut file, meta)) = open_regular(path) else {
        return String::new();
    };
    let start = meta.len().saturating_sub(max);
    let mut bytes = Vec::new();
    if file.seek(SeekFrom::Start(start)).is_err() || file.take(max).read_to_end(&mut bytes).is_err()
    {
        return String::new();
    }
    let text = String::from_utf8_lossy(&bytes);
    // Started mid-file: the first line is a fragment.
    match text.split_once('\n') {
        Some((_, rest)) if start > 0 => rest.to_string(),
        _ => text.into_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_one_line_per_message_and_rotates() {
        let dir = tempfile::tempdir().unwrap();
        let log = HookLog::new(&ProjectLayout::new(dir.path()), 200);
        for n in 0..10 {
            assert!(log.write(
                Timestamp(0),
                "prompt-submit",
                "warn",
                &format!("problem\n{n}")
            ));
        }
        let problems = log.recent_problems(2);
        assert_eq!(problems.len(), 2);
        assert!(problems[1].ends_with("problem 9"), "{problems:?}");
        assert!(fs::metadata(log.path()).unwrap().len() < 400);
    }

    #[test]
    fn only_warn_and_error_lines_are_problems() {
        let dir = tempfile::tempdir().unwrap();
        let log = HookLog::new(&ProjectLayout::new(dir.path()), 0);
        assert!(log.write(
            Timestamp(0),
            "prompt-submit",
            "info",
            "a warn word, an error word"
        ));
        assert!(log.write(Timestamp(0), "prompt-submit", "warn", "real"));
        assert!(log.write(Timestamp(0), "pre-compact", "error", "worse"));
        let problems = log.recent_problems(10);
        assert_eq!(problems.len(), 2, "{problems:?}");
        assert!(problems[0].ends_with("warn prompt-submit: real"));
    }

    #[test]
    fn recent_problems_reads_only_the_tail_of_a_large_log() {
        let dir = tempfile::tempdir().unwrap();
        // No rotation: a user may raise log_max_bytes, the reader stays bounded anyway.
        let log = HookLog::new(&ProjectLayout::new(dir.path()), 0);
        let filler = format!(
            "{} info x: {}\n",
            "2026-01-01T00:00:00.000Z",
            "y".repeat(200)
        );
        fs::create_dir_all(log.path().parent().unwrap()).unwrap();
        fs::write(log.path(), filler.repeat(2 * 1024 * 1024 / filler.len())).unwrap();
        assert!(log.write(Timestamp(0), "pre-compact", "warn", "the newest"));
        let problems = log.recent_problems(5);
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(problems[0].ends_with("warn pre-compact: the newest"));
    }

    /// `logs/hooks.log` linked to a file outside once got the hook's warnings appended;
    /// `logs/` linked to a folder outside would take a new log.
    #[cfg(unix)]
    #[test]
    fn a_linked_log_or_log_folder_is_never_written() {
        let dir = tempfile::tempdir().unwrap();
        let layout = ProjectLayout::new(dir.path().join("p"));
        fs::create_dir_all(layout.logs_dir()).unwrap();
        let outside = dir.path().join("outside.txt");
        fs::write(&outside, b"mine\n").unwrap();
        std::os::unix::fs::symlink(&outside, layout.hooks_log()).unwrap();
        let log = HookLog::new(&layout, 200);
        assert!(!log.write(Timestamp(0), "pre-compact", "warn", "x"));
        assert_eq!(fs::read(&outside).unwrap(), b"mine\n");

        fs::remove_file(layout.hooks_log()).unwrap();
        fs::remove_dir(layout.logs_dir()).unwrap();
        let folder = dir.path().join("elsewhere");
        fs::create_dir(&folder).unwrap();
        std::os::unix::fs::symlink(&folder, layout.logs_dir()).unwrap();
        assert!(!log.write(Timestamp(0), "pre-compact", "warn", "x"));
        assert_eq!(fs::read_dir(&folder).unwrap().count(), 0);
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_log_is_neither_read_nor_written_and_never_blocks() {
        let dir = tempfile::tempdir().unwrap();
        let log = HookLog::new(&ProjectLayout::new(dir.path()), 200);
        fs::create_dir_all(log.path().parent().unwrap()).unwrap();
        let made = std::process::Command::new("mkfifo")
            .arg(log.path())
            .status();
        if !made.is_ok_and(|s| s.success()) {
            eprintln!("notice: mkfifo unavailable; skipping");
            return;
        }
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let wrote = log.write(Timestamp(0), "prompt-submit", "warn", "x");
            let _ = tx.send((wrote, log.recent_problems(5)));
        });
        let (wrote, problems) = rx
            .recv_timeout(std::time::Duration::from_secs(10))
            .expect("a FIFO log must not block");
        assert!(!wrote);
        assert!(problems.is_empty());
    }
}
