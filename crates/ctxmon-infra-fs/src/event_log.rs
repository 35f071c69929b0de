//! The domain event log: `.ctxmon/events.jsonl`, appended under a lock, rotated at 10 MiB.

use std::fs;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use ctxmon_application::ports::{EventLog, PortError, PortErrorKind};
use ctxmon_domain::EventRecord;

use crate::fsutil::{io_error, open_append, with_lock};
use crate::layout::ProjectLayout;

pub const ROTATE_AT_BYTES: u64 = 10 * 1024 * 1024;
/// Rotated generations kept: events.jsonl.1 … .3.
const GENERATIONS: u32 = 3;

#[derive(Debug, Clone)]
pub struct FsEventLog {
    layout: ProjectLayout,
    rotate_at: u64,
    lock_wait: Duration,
}

impl FsEventLog {
    pub fn new(layout: ProjectLayout) -> Self {
        FsEventLog {
            layout,
            rotate_at: ROTATE_AT_BYTES,
            lock_wait: Duration::from_millis(1_000),
        }
    }

    /// The longest wait for the events lock. A hook gives it a share of its deadline: fifty
    /// hooks appending at once on a loaded machine can queue for more than the default second,
    /// and an event dropped at the lock is an acknowledgement lost.
    pub fn with_lock_wait(mut self, wait: Duration) -> Self {
        self.lock_wait = wait;
        self
    }

    /// For tests of rotation without writing 10 MiB.
    pub fn with_rotation(mut self, bytes: u64) -> Self {
        self.rotate_at = bytes;
        self
    }

    fn generation(&self, n: u32) -> PathBuf {
        let mut name = self.layout.events_file().into_os_string();
        name.push(format!(".{n}"));
        PathBuf::from(name)
    }

    fn rotate_if_needed(&self) -> Result<(), PortError> {
        let path = self.layout.events_file();
        // The entry itself: a link is never rotated into place, `open_append` refuses it.
        let size = fs::symlink_metadata(&path).map(|m| m.len()).unwrap_or(0);
        if size < self.rotate_at {
            return Ok(());
        }
        for n in (1..GENERATIONS).rev() {
            let from = self.generation(n);
            if from.exists() {
                fs::rename(&from, self.generation(n + 1)).map_err(|e| io_error(&from, &e))?;
            }
        }
        fs::rename(&path, self.generation(1)).map_err(|e| io_error(&path, &e))
    }

    /// Reads every record of the current file (skipping lines that do not parse).
    pub fn read_all(&self) -> Result<Vec<EventRecord>, PortError> {
        let path = self.layout.events_file();
        let text = match fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(io_error(&path, &e)),
        };
        Ok(text
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect())
    }
}

/// Whether the `len`-byte file ends a line (an empty file does).
fn ends_with_newline(path: &Path, len: u64) -> bool {
    if len == 0 {
        return true;
    }
    let mut last = [0u8; 1];
    fs::File::open(path)
        .and_then(|mut f| {
            f.seek(SeekFrom::Start(len - 1))?;
            f.read_exact(&mut last)
        })
        // Unreadable: assume whole lines rather than add an empty one to every append.
        .map_or(true, |()| last[0] == b'\n')
}

impl EventLog for FsEventLog {
    fn append(&self, records: &[EventRecord]) -> Result<(), PortError> {
        if records.is_empty() {
            return Ok(());
        }
        // Serialise first: nothing is written unless every line is complete.
        let mut buf = Vec::with_capacity(256 * records.len());
        for record in records {
            serde_json::to_writer(&mut buf, record)
                .map_err(|e| PortError::new(PortErrorKind::InvalidData, e.to_string()))?;
            buf.push(b'\n');
        }
        let root = self.layout.root();
        self.layout
            .ensure_dir(root)
            .map_err(|e| io_error(root, &e))?;
        with_lock(&self.layout.events_lock(), self.lock_wait, || {
            self.rotate_if_needed()?;
            let path = self.layout.events_file();
            let mut file = open_append(&path).map_err(|e| io_error(&path, &e))?;
            let len = file.metadata().map_err(|e| io_error(&path, &e))?.len();
            if !ends_with_newline(&path, len) {
                // A fragment left by a writer that died mid-line stays its own (skipped) line
                // instead of swallowing the first of these.
                buf.insert(0, b'\n');
            }
            // One write of whole lines: with O_APPEND and the lock, lines never interleave.
            file.write_all(&buf).map_err(|e| {
                // A full disk takes part of a write: give that part back, or it would be a torn
                // line (and the next append would run on from it). Under the lock nobody else
                // has appended since `len`.
                let _ = file.set_len(len);
                io_error(&path, &e)
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ctxmon_domain::{DomainEvent, Timestamp};

    fn record(n: u32) -> EventRecord {
        EventRecord::new(
            Timestamp(i64::from(n)),
            Some("s".into()),
            DomainEvent::SessionAbandoned {
                reason: format!("r{n}"),
            },
        )
    }

    #[test]
    fn appends_and_rotates() {
        let dir = tempfile::tempdir().unwrap();
        let log = FsEventLog::new(ProjectLayout::new(dir.path())).with_rotation(300);
        for n in 0..10 {
            log.append(&[record(n)]).unwrap();
        }
        let current = log.read_all().unwrap();
        assert!(!current.is_empty() && current.len() < 10);
        assert!(log.generation(1).exists());
        // Nothing lost: current + rotated generations hold every record exactly once, unless
        // the oldest generation was rotated out.
        let mut total = current.len();
        for n in 1..=GENERATIONS {
            if let Ok(text) = fs::read_to_string(log.generation(n)) {
                total += text.lines().count();
            }
        }
        assert!(total <= 10 && total > current.len());
    }

    #[test]
    fn a_torn_last_line_does_not_swallow_the_next_append() {
        let dir = tempfile::tempdir().unwrap();
        let layout = ProjectLayout::new(dir.path());
        let log = FsEventLog::new(layout.clone());
        log.append(&[record(1)]).unwrap();
        // What a writer killed mid-line (or an older ctxmon on a full disk) leaves.
        let mut file = open_append(&layout.events_file()).unwrap();
        file.write_all(br#"{"timestamp":2,"ti"#).unwrap();
        log.append(&[record(3), record(4)]).unwrap();
        let text = fs::read_to_string(layout.events_file()).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 4, "{text}");
        assert_eq!(lines[1], r#"{"timestamp":2,"ti"#);
        let reasons: Vec<String> = log
            .read_all()
            .unwrap()
            .into_iter()
            .map(|r| match r.event {
                DomainEvent::SessionAbandoned { reason } => reason,
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(reasons, ["r1", "r3", "r4"]);
    }

    /// `events.jsonl` linked to a file outside once got the event lines appended, and a dangling
    /// `.events.lock` link made ctxmon create the file it names.
    #[cfg(unix)]
    #[test]
    fn planted_links_are_neither_appended_to_nor_created() {
        let dir = tempfile::tempdir().unwrap();
        let layout = ProjectLayout::new(dir.path().join("p"));
        fs::create_dir_all(layout.root()).unwrap();
        let log = FsEventLog::new(layout.clone());
        let outside = dir.path().join("outside.txt");
        fs::write(
            &outside, b"mine
",
        )
        .unwrap();
        std::os::unix::fs::symlink(&outside, layout.events_file()).unwrap();
        let e = log.append(&[record(1)]).unwrap_err();
        assert!(e.message.contains("events.jsonl is a symbolic link"), "{e}");
        assert_eq!(fs::read(&outside).unwrap(), b"mine\n");

        fs::remove_file(layout.events_file()).unwrap();
        fs::remove_file(layout.events_lock()).unwrap();
        let nowhere = dir.path().join("events.lock");
        std::os::unix::fs::symlink(&nowhere, layout.events_lock()).unwrap();
        let e = log.append(&[record(2)]).unwrap_err();
        assert!(e.message.contains(".events.lock is a symbolic link"), "{e}");
        assert!(!nowhere.exists());
        assert!(!layout.events_file().exists());
    }

    #[test]
    fn concurrent_threads_lose_no_line() {
        let dir = tempfile::tempdir().unwrap();
        let layout = ProjectLayout::new(dir.path());
        std::thread::scope(|s| {
            for t in 0..8 {
                let log = FsEventLog::new(layout.clone());
                s.spawn(move || {
                    for n in 0..50 {
                        log.append(&[record(t * 1000 + n)]).unwrap();
                    }
                });
            }
        });
        let all = FsEventLog::new(layout).read_all().unwrap();
        assert_eq!(all.len(), 400);
    }
}
