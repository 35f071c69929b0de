//! Per-session compaction sequences, allocated under the folder's lock beside the id.
//!
//! Each session's next sequence is a high-water mark of its own, `.seq-<SessionKey>` (one
//! number, like `.next-id`), so allocating reads one small file whatever the folder holds,
//! and pruning or deleting checkpoints never brings a number back. The mark is written (with
//! fsync) before the checkpoint: a process killed between the two costs the session a number,
//! never gives it twice.
//!
//! The mark alone is not trusted to be there: deleted or damaged, it would restart the count
//! while the session's checkpoints still exist. The session's index (`index.rs`) records the
//! sequence of each of its checkpoints, so the next is past both.

use std::path::{Path, PathBuf};

use ctxmon_application::ports::PortError;
use ctxmon_domain::SessionKey;

use super::folder::SEQUENCE_PREFIX;
use super::index::Entry;
use super::read;
use crate::fsutil::{Durability, io_error, write_atomic};

/// One session's mark in `dir`. The key is a [`SessionKey`], so the name stays in the folder.
pub(super) fn mark_path(dir: &Path, session: &str) -> PathBuf {
    dir.join(format!(
        "{SEQUENCE_PREFIX}{}",
        SessionKey::from_raw(session).as_str()
    ))
}

/// The sequence to give `session`'s new checkpoint: past its mark and past every sequence its
/// index records (`indexed`); and the mark as it was (to restore if the checkpoint cannot be
/// written). Run under the folder's lock.
pub(super) fn allocate(dir: &Path, session: &str, indexed: &[Entry]) -> (u32, Option<u64>) {
    let path = mark_path(dir, session);
    let recorded = read::read_number(&path);
    let from_index = indexed
        .iter()
        .map(|e| u64::from(e.sequence) + 1)
        .max()
        .unwrap_or(1);
    let next = recorded.unwrap_or(1).max(from_index).max(1);
    (u32::try_from(next).unwrap_or(u32::MAX), recorded)
}

/// Records that `session`'s next sequence is `next`, durably: after a power loss the mark
/// must not fall behind a checkpoint that survived.
pub(super) fn record(dir: &Path, session: &str, next: u64) -> Result<(), PortError> {
    let path = mark_path(dir, session);
    write_atomic(&path, format!("{next}\n").as_bytes(), Durability::Fsync)
        .map_err(|e| io_error(&path, &e))
}

/// Puts the mark back as it was before [`allocate`] (removed when there was none), so a
/// checkpoint that could not be written consumes no number. Best effort: failing, the session
/// skips a number, which is allowed; reusing one is not.
pub(super) fn restore(dir: &Path, session: &str, previous: Option<u64>) {
    let path = mark_path(dir, session);
    let _ = match previous {
        Some(next) => write_atomic(&path, format!("{next}\n").as_bytes(), Durability::Fsync),
        None => std::fs::remove_file(&path),
    };
}
