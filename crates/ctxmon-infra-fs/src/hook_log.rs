//! Hook diagnostics: `.ctxmon/logs/hooks.log`, one line per message, bounded by rotation.
//!
//! Hooks must never write diagnostics to stdout (Claude Code would parse them), so everything a
//! hook wants to say goes here and to stderr.

use std::fs;
use std::io::Write;
use std::path::PathBuf;

use ctxmon_domain::Timestamp;

use crate::fsutil::{ensure_private_dir, open_append};
use crate::layout::ProjectLayout;

#[derive(Debug, Clone)]
pub struct HookLog {
    path: PathBuf,
    max_bytes: u64,
}

impl HookLog {
    pub fn new(layout: &ProjectLayout, max_bytes: u64) -> Self {
        HookLog {
            path: layout.hooks_log(),
            max_bytes,
        }
    }

    pub fn path(&self) -> &std::path::Path {
        &self.path
    }

    /// Appends one line; returns false when the log could not be written (never an error: the
    /// log is the last resort for reporting errors).
    pub fn write(&self, at: Timestamp, hook: &str, level: &str, message: &str) -> bool {
        let Some(dir) = self.path.parent() else {
            return false;
        };
        if ensure_private_dir(dir).is_err() {
            return false;
        }
        if self.max_bytes > 0
            && fs::metadata(&self.path).map(|m| m.len()).unwrap_or(0) >= self.max_bytes
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

    /// The last `n` lines at the given level or worse (`warn`/`error`), newest last.
    pub fn recent_problems(&self, n: usize) -> Vec<String> {
        let text = fs::read_to_string(&self.path).unwrap_or_default();
        let mut lines: Vec<String> = text
            .lines()
            .filter(|l| l.contains(" error ") || l.contains(" warn "))
            .map(str::to_string)
            .collect();
        let skip = lines.len().saturating_sub(n);
        lines.drain(..skip);
        lines
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
}
