//! Per-session compaction sequences, allocated under the folder's lock beside the id.
//!
//! Each session's next sequence is a high-water mark of its own, `.seq-<SessionKey>` (one
//! number, like `.next-id`), so allocating reads one small file whatever the folder holds,
//! and pruning or deleting checkpoints never brings a number back. The mark and the index are
//! written before the checkpoint, the index synced (the mark too when the index could not be
//! written): a process killed, or a power lost, between them and the checkpoint costs the
//! session a number, never gives it twice.
//!
//! The mark alone is not trusted to be there: deleted or damaged, it would restart the count
//! while the session's checkpoints still exist. The session's index (`index.rs`) records the
//! sequence of each of its checkpoints, so the next is past both.

use std::path::{Path, PathBuf};

use ctxmon_application::ports::{PortError, PortErrorKind};
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

/// How far past the sequences its checkpoints hold a session's mark may be and still count:
/// a session would need a million compactions, while a planted number is at any distance.
const MAX_MARK_JUMP: u64 = 1_000_000;

/// The sequence to give `session`'s new checkpoint: past its mark and past every sequence its
/// index records (`indexed`); and the mark as it was (to restore if the checkpoint cannot be
/// written). Run under the folder's lock.
///
/// Neither record is taken on trust. A mark counts only within [`MAX_MARK_JUMP`] of the
/// sequences the session's checkpoints hold, so a planted huge number cannot pin every later
/// checkpoint to the last sequence. With no index, the session's newest checkpoints are read
/// (`read_entries`): a deleted mark and index together must not restart the count while the
/// checkpoints are there. A sequence past the last one fails the save rather than repeat.
pub(super) fn allocate(
    dir: &Path,
    session: &str,
    indexed: Option<Vec<Entry>>,
    read_entries: impl FnOnce() -> Vec<Entry>,
) -> Result<(u32, Option<u64>), PortError> {
    let path = mark_path(dir, session);
    let recorded = read::read_number(&path);
    let entries = indexed.unwrap_or_else(read_entries);
    let from_entries = entries
        .iter()
        .map(|e| u64::from(e.sequence) + 1)
        .max()
        .unwrap_or(1);
    let mark = recorded.filter(|&m| m <= from_entries.saturating_add(MAX_MARK_JUMP));
    let next = mark.unwrap_or(1).max(from_entries).max(1);
    let sequence = u32::try_from(next).map_err(|_| {
        PortError::new(
            PortErrorKind::InvalidData,
            format!(
                "compaction sequences are exhausted for this session: its checkpoints in {} claim sequence {}, the last one ctxmon can give",
                dir.display(),
                u32::MAX
            ),
        )
    })?;
    Ok((sequence, recorded))
}

/// Records that `session`'s next sequence is `next`. After a power loss the records of a
/// sequence must not all fall behind a checkpoint that survived, and one synced record is
/// enough (the next allocation goes past both): with the session's index just written synced
/// (`indexed`) the mark is only renamed into place; without, it is synced itself (its data
/// now, its entry in the folder by the checkpoint's own save that follows).
pub(super) fn record(dir: &Path, session: &str, next: u64, indexed: bool) -> Result<(), PortError> {
    let path = mark_path(dir, session);
    let durability = if indexed {
        Durability::RenameOnly
    } else {
        Durability::FileFirst
    };
    write_atomic(&path, format!("{next}\n").as_bytes(), durability).map_err(|e| io_error(&path, &e))
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
