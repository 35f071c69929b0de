//! Per-session compaction sequences, allocated under the folder's lock beside the id.
//!
//! Each session's next sequence is a high-water mark of its own, `.seq-<SessionKey>` (one
//! number, like `.next-id`), so allocating reads one small file whatever the folder holds,
//! and pruning or deleting checkpoints never brings a number back. The mark is written (with
//! fsync) before the checkpoint: a process killed between the two costs the session a number,
//! never gives it twice.
//!
//! Checkpoints written before the marks existed carry their sequences only inside the files.
//! `.sequences-since` records the first id allocated with marks; a session without a mark
//! looks for its newest checkpoint among the older ids, reading at most [`MAX_LEGACY_READS`]
//! files, so a session that was running when ctxmon was upgraded carries on counting.

use std::path::{Path, PathBuf};

use ctxmon_application::ports::PortError;
use ctxmon_domain::{CheckpointId, SessionKey};

use super::folder::{SEQUENCE_PREFIX, SEQUENCES_SINCE_NAME, Scan};
use super::read;
use crate::fsutil::{Durability, io_error, write_atomic};

/// How many pre-mark checkpoints, newest first, a session without a mark looks through.
pub(super) const MAX_LEGACY_READS: usize = 64;

/// One session's mark in `dir`. The key is a [`SessionKey`], so the name stays in the folder.
pub(super) fn mark_path(dir: &Path, session: &str) -> PathBuf {
    dir.join(format!(
        "{SEQUENCE_PREFIX}{}",
        SessionKey::from_raw(session).as_str()
    ))
}

/// The sequence to give `session`'s new checkpoint (`id`), and the mark as it was (to restore
/// if the checkpoint cannot be written). Run under the folder's lock.
pub(super) fn allocate(
    dir: &Path,
    scan: &Scan,
    session: &str,
    id: CheckpointId,
) -> (u32, Option<u64>) {
    let path = mark_path(dir, session);
    let recorded = read::read_number(&path);
    let sequence = match recorded {
        Some(next) => u32::try_from(next.max(1)).unwrap_or(u32::MAX),
        None => legacy_sequence(dir, scan, session, since(dir, id)),
    };
    (sequence, recorded)
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

/// The first id allocated with per-session marks; recorded now (as `id`) when absent. Best
/// effort: unrecorded, the next save records a later id, which only widens the legacy range.
fn since(dir: &Path, id: CheckpointId) -> u64 {
    let path = dir.join(SEQUENCES_SINCE_NAME);
    if let Some(since) = read::read_number(&path) {
        return since;
    }
    let first = u64::from(id.sequence());
    let _ = write_atomic(
        &path,
        format!("{first}\n").as_bytes(),
        Durability::RenameOnly,
    );
    first
}

/// 1 + the sequence of the session's newest checkpoint among those written before marks
/// existed (ids below `since`), looking at no more than [`MAX_LEGACY_READS`] of them; 1 when
/// none of those is the session's.
fn legacy_sequence(dir: &Path, scan: &Scan, session: &str, since: u64) -> u32 {
    let legacy = scan
        .checkpoints
        .iter()
        .rev()
        .filter(|id| u64::from(id.sequence()) < since)
        .take(MAX_LEGACY_READS);
    for &id in legacy {
        let Ok(data) = read::read_checkpoint(&dir.join(id.file_name()), id) else {
            continue;
        };
        if data.session_info.session_id.as_deref() == Some(session) {
            return data.compaction_sequence.saturating_add(1);
        }
    }
    1
}
