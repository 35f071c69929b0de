//! Each session's checkpoints by id, `.index-<SessionKey>`: one line per checkpoint,
//! `cx-NNN SEQUENCE`, oldest first, replaced atomically under the folder's lock.
//!
//! The index is why a session's own checkpoints (its pending alert, its compaction history,
//! its newest sequence) are found without listing the folder: a hook of one session reads one
//! small file, whatever thousands of other sessions left beside it. It only says where to
//! look: every checkpoint it names is still read and checked (the file must name the session),
//! so an index that lags, or names a file since pruned or damaged, misleads nobody.
//!
//! `.indexed-since` records that every checkpoint saved from then on is indexed. A folder
//! without it was written by an older ctxmon; the first save indexes its newest
//! [`MAX_MIGRATED`] checkpoints, and until then a session's lookup falls back to reading the
//! newest few checkpoints (the cost of the layout before indexes).

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};

use ctxmon_application::ports::PortError;
use ctxmon_domain::{CheckpointId, SessionKey};

use super::folder::{INDEX_PREFIX, INDEXED_SINCE_NAME, Scan};
use super::read;
use crate::fsutil::{Durability, io_error, write_atomic};

/// How many checkpoints of an older layout the first indexed save reads to index them: more
/// than a live session's alert could be waiting among, bounded so that one PreCompact pays a
/// known price once.
pub(super) const MAX_MIGRATED: usize = 256;
/// An index longer than this is not one ctxmon wrote (a session keeps a few dozen checkpoints
/// at most once pruning runs); only its start is read.
const MAX_INDEX_BYTES: u64 = 256 * 1024;

/// `session`'s checkpoints among the newest `max_reads` of the folder (`scan`), read and
/// checked, oldest first: what an index would say, for a folder without one.
pub(super) fn found_by_reading(
    dir: &Path,
    scan: &Scan,
    session: &str,
    max_reads: usize,
) -> Vec<Entry> {
    let mut found = Vec::new();
    for &id in scan.checkpoints.iter().rev().take(max_reads) {
        if let Ok(data) = read::read_checkpoint(&dir.join(id.file_name()), id)
            && data.session_info.session_id.as_deref() == Some(session)
        {
            found.push(Entry {
                id,
                sequence: data.compaction_sequence,
            });
        }
    }
    found.reverse();
    found
}

/// One checkpoint of a session, as its index records it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct Entry {
    pub id: CheckpointId,
    pub sequence: u32,
}

pub(super) fn path(dir: &Path, session: &str) -> PathBuf {
    dir.join(format!(
        "{INDEX_PREFIX}{}",
        SessionKey::from_raw(session).as_str()
    ))
}

/// True once every new checkpoint of the folder is indexed.
pub(super) fn indexed(dir: &Path) -> bool {
    read::exists(&dir.join(INDEXED_SINCE_NAME)).unwrap_or(false)
}

/// The session's entries, oldest first; `None` when it has no index (or it cannot be read).
/// Lines that do not parse are skipped: one damaged line costs that entry only.
pub(super) fn read(dir: &Path, session: &str) -> Option<Vec<Entry>> {
    let (file, _) = crate::fsutil::open_regular(&path(dir, session)).ok()?;
    let mut text = String::new();
    file.take(MAX_INDEX_BYTES).read_to_string(&mut text).ok()?;
    let mut entries: Vec<Entry> = text.lines().filter_map(parse_line).collect();
    entries.sort_unstable();
    entries.dedup_by_key(|e| e.id);
    Some(entries)
}

fn parse_line(line: &str) -> Option<Entry> {
    let mut words = line.split_ascii_whitespace();
    let id = CheckpointId::parse(words.next()?)?;
    let sequence = words.next()?.parse().ok()?;
    Some(Entry { id, sequence })
}

/// Replaces the session's index with `entries` (fsynced: after a power loss the index must
/// not lose a checkpoint that survived). No entries remove the file.
pub(super) fn write(dir: &Path, session: &str, entries: &[Entry]) -> Result<(), PortError> {
    write_as(dir, session, entries, Durability::Fsync)
}

fn write_as(
    dir: &Path,
    session: &str,
    entries: &[Entry],
    durability: Durability,
) -> Result<(), PortError> {
    let path = path(dir, session);
    if entries.is_empty() {
        return match std::fs::remove_file(&path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(io_error(&path, &e)),
            _ => Ok(()),
        };
    }
    let text: String = entries
        .iter()
        .map(|e| format!("{} {}\n", e.id, e.sequence))
        .collect();
    write_atomic(&path, text.as_bytes(), durability).map_err(|e| io_error(&path, &e))
}

/// Adds `entry` to the session's index; returns the index as it was, to put back if the
/// checkpoint cannot be written.
pub(super) fn add(dir: &Path, session: &str, entry: Entry) -> Result<Vec<Entry>, PortError> {
    let before = read(dir, session).unwrap_or_default();
    let mut after = before.clone();
    after.retain(|e| e.id != entry.id);
    after.push(entry);
    after.sort_unstable();
    // Before the checkpoint it lists, whose save syncs the folder after it.
    write_as(dir, session, &after, Durability::FileFirst)?;
    Ok(before)
}

/// Drops `gone` from each session's index (after a prune). Best effort: an index that still
/// names a pruned checkpoint only costs its reader one failed open.
pub(super) fn forget(dir: &Path, gone: &BTreeMap<String, Vec<CheckpointId>>) {
    for (session, ids) in gone {
        if let Some(mut entries) = read(dir, session) {
            entries.retain(|e| !ids.contains(&e.id));
            // Not synced: lost, the index names a checkpoint that is gone, which costs its
            // reader one failed open, as the old index does.
            let _ = write_as(dir, session, &entries, Durability::RenameOnly);
        }
    }
}

/// Indexes a folder written before indexes existed: its newest [`MAX_MIGRATED`] checkpoints
/// (below `first`, the id about to be saved) are read and added to their sessions' indexes,
/// then `.indexed-since` is written. Run under the lock, once; best effort (a failure leaves
/// the folder unindexed, and the next save tries again).
pub(super) fn migrate(dir: &Path, scan: &Scan, first: CheckpointId) {
    let mut found: BTreeMap<String, Vec<Entry>> = BTreeMap::new();
    let older = scan.checkpoints.iter().rev().filter(|id| **id < first);
    for &id in older.take(MAX_MIGRATED) {
        let Ok(data) = read::read_checkpoint(&dir.join(id.file_name()), id) else {
            continue;
        };
        if let Some(session) = data.session_info.session_id {
            found.entry(session).or_default().push(Entry {
                id,
                sequence: data.compaction_sequence,
            });
        }
    }
    for (session, mut entries) in found {
        entries.extend(read(dir, &session).unwrap_or_default());
        entries.sort_unstable();
        entries.dedup_by_key(|e| e.id);
        if write(dir, &session, &entries).is_err() {
            return;
        }
    }
    let _ = write_atomic(
        &dir.join(INDEXED_SINCE_NAME),
        format!("{}\n", first.sequence()).as_bytes(),
        Durability::Fsync,
    );
}
