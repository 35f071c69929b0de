//! `.ctxmon/checkpoints/`: the file-system `CheckpointRepository` (contract C5, C12).
//!
//! Layout: `cx-NNN-checkpoint.json` (the data, replaced only atomically), `cx-NNN.acknowledged`
//! (an empty marker), `cx-NNN.alerting` (a prompt's claim to give the alert, `claim.rs`),
//! `.lock` (held by every writer), `.next-id` (the next sequence, so ids never come back after
//! a prune or a deleted file; `allocate.rs`), `.seq-<SessionKey>` (a session's next compaction
//! sequence, for the same reason), `.index-<SessionKey>` (the session's checkpoints, so that
//! its hooks find them without listing the folder; `index.rs`), `.indexed-since`, and
//! `.sequences-since` from an older layout. Readers take no lock: atomic renames mean they see
//! a whole file or none, and a temp file left by a killed writer has a name no reader looks at
//! (it stays: ctxmon deletes only its own process's temp files). Writers refuse a folder that
//! is a symbolic link (`ProjectLayout::ensure_dir`).
//!
//! Saving decides from names and those records: it reads no checkpoint file in a folder it
//! wrote (bar a bounded few when the records disagree, and once when indexing an older
//! layout), so its cost does not grow with the folder beyond one `read_dir`. A session's own
//! lookups read its index and its own checkpoints only. Automatic pruning keeps the folder
//! from growing without end.

mod allocate;
mod claim;
mod folder;
mod index;
mod read;
mod sequence;

use std::collections::BTreeMap;
use std::fs::{self, OpenOptions};
use std::io;
use std::path::PathBuf;
use std::time::Duration;

use ctxmon_application::config::Config;
use ctxmon_application::ports::{
    Allocation, AutoPrune, CheckpointListing, CheckpointRepository, Clock, PortError,
    PortErrorKind, PruneOutcome, StoredCheckpoint,
};
use ctxmon_domain::{CheckpointData, CheckpointId, Timestamp};

use crate::clock::SystemClock;
use crate::fsutil::{Durability, io_error, with_lock, write_atomic};
use crate::hook_log::HookLog;
use crate::layout::ProjectLayout;
use folder::Scan;
pub use read::MAX_CHECKPOINT_BYTES;

/// `latest_unacknowledged` runs on every prompt; past this many unreadable or other-session
/// files it gives up rather than read the whole folder.
const MAX_LATEST_READS: usize = 50;
/// A session's lookups read at most this many of its checkpoints, newest first.
const MAX_SESSION_READS: usize = 64;
/// Automatic pruning reads at most this many candidates per call, whether or not they go: an
/// unacknowledged checkpoint that is its session's newest is read and kept.
const MAX_PRUNE_READS: usize = 64;

/// What to put back if a checkpoint cannot be written: its session's mark as it was (when the
/// save changed it) and its index as it was.
struct Undo<'a> {
    session: &'a str,
    mark: Option<Option<u64>>,
    index: Option<Vec<index::Entry>>,
}

#[derive(Debug, Clone)]
pub struct FsCheckpointRepository {
    layout: ProjectLayout,
    lock_wait: Duration,
}

impl FsCheckpointRepository {
    /// Long enough for dozens of concurrent PreCompact hooks to queue behind each other (each
    /// holds the lock for one small write), short enough that a wedged holder is reported.
    pub const DEFAULT_LOCK_WAIT: Duration = Duration::from_secs(5);

    pub fn new(layout: ProjectLayout) -> Self {
        FsCheckpointRepository {
            layout,
            lock_wait: Self::DEFAULT_LOCK_WAIT,
        }
    }

    /// A hook with a deadline may want to give up sooner than the default.
    pub fn with_lock_wait(mut self, wait: Duration) -> Self {
        self.lock_wait = wait;
        self
    }

    pub fn dir(&self) -> PathBuf {
        self.layout.checkpoints_dir()
    }

    // Every path below comes from a `CheckpointId`, whose names are `cx-` and digits only, or
    // from a constant: nothing a caller passes can leave the folder.
    fn checkpoint_path(&self, id: CheckpointId) -> PathBuf {
        self.dir().join(id.file_name())
    }
    fn marker_path(&self, id: CheckpointId) -> PathBuf {
        self.dir().join(id.marker_name())
    }
    fn next_id_path(&self) -> PathBuf {
        self.dir().join(folder::NEXT_ID_NAME)
    }

    /// Runs `f` under the folder's lock, creating the folder (0700) first.
    fn locked<T>(&self, f: impl FnOnce() -> Result<T, PortError>) -> Result<T, PortError> {
        let dir = self.dir();
        self.layout
            .ensure_dir(&dir)
            .map_err(|e| io_error(&dir, &e))?;
        with_lock(&dir.join(folder::LOCK_NAME), self.lock_wait, f)
    }

    /// The session's checkpoints as its index lists them, oldest first. A folder an older
    /// ctxmon wrote and no save has indexed yet is looked through instead, newest first,
    /// reading at most [`MAX_SESSION_READS`] files.
    fn session_entries(&self, session: &str) -> Result<Vec<index::Entry>, PortError> {
        let dir = self.dir();
        if let Some(entries) = index::read(&dir, session) {
            return Ok(entries);
        }
        if index::indexed(&dir) {
            return Ok(Vec::new());
        }
        let scan = Scan::read(&dir)?;
        Ok(index::found_by_reading(
            &dir,
            &scan,
            session,
            MAX_SESSION_READS,
        ))
    }

    /// Checkpoint `id` when it can be read and belongs to `session` (an index could be stale
    /// or planted: the file itself decides).
    fn read_own(&self, id: CheckpointId, session: &str) -> Option<CheckpointData> {
        read::read_checkpoint(&self.checkpoint_path(id), id)
            .ok()
            .filter(|d| d.session_info.session_id.as_deref() == Some(session))
    }

    fn record_next_sequence(&self, next: u64, durability: Durability) -> Result<(), PortError> {
        let path = self.next_id_path();
        write_atomic(&path, format!("{next}\n").as_bytes(), durability)
            .map_err(|e| io_error(&path, &e))
    }
}

impl CheckpointRepository for FsCheckpointRepository {
    fn location(&self, id: CheckpointId) -> String {
        self.checkpoint_path(id).display().to_string()
    }

    /// `build` runs under the lock, so it should only stamp the allocation onto data prepared
    /// before. The id and sequence are the repository's to give: whatever `build` puts in the
    /// data is replaced. When the data cannot be written (too large, non-finite numbers, a
    /// full disk), neither is consumed and the next call gets them again, so failures leave
    /// no gap (a kill between the session's mark and the checkpoint skips one sequence).
    fn save_new(
        &self,
        session: Option<&str>,
        build: &mut dyn FnMut(Allocation) -> CheckpointData,
    ) -> Result<CheckpointData, PortError> {
        self.locked(|| {
            let dir = self.dir();
            let scan = Scan::read(&dir)?;
            let next = allocate::next(&dir, &scan);
            let id = allocate::checked(&dir, &next)?;
            if !index::indexed(&dir) {
                index::migrate(&dir, &scan, id);
            }
            // A marker or claim left under the new id (its checkpoint deleted, or planted)
            // must not make the new checkpoint born acknowledged, or its alert already given.
            remove_if_present(&self.marker_path(id))?;
            remove_if_present(&dir.join(folder::claim_name(id)))?;
            // Without a session there is no series to number: every such checkpoint is the
            // first of its own, and no per-session mark or index is kept.
            // A mark or index that cannot be written (a full disk fails the checkpoint too; a
            // folder planted under its name does not) must not cost the checkpoint: it is
            // saved with the sequence allocated, which the next save may then give again.
            let mut undo: Option<Undo<'_>> = None;
            let compaction_sequence = match session {
                Some(s) => {
                    // With neither the session's mark nor its index (a new session, or both
                    // deleted), its newest checkpoints among the folder's are read instead.
                    let indexed = index::read(&dir, s);
                    let (sequence, previous) = sequence::allocate(&dir, s, indexed, || {
                        index::found_by_reading(&dir, &scan, s, MAX_SESSION_READS)
                    })?;
                    let listed = index::add(&dir, s, index::Entry { id, sequence }).ok();
                    let next = u64::from(sequence) + 1;
                    let marked = sequence::record(&dir, s, next, listed.is_some()).is_ok();
                    undo = Some(Undo {
                        session: s,
                        mark: marked.then_some(previous),
                        index: listed,
                    });
                    sequence
                }
                None => 1,
            };
            let give_back = || {
                if let Some(undo) = &undo {
                    if let Some(previous) = undo.mark {
                        sequence::restore(&dir, undo.session, previous);
                    }
                    if let Some(before) = &undo.index {
                        let _ = index::write(&dir, undo.session, before);
                    }
                }
            };
            let mut data = build(Allocation {
                id,
                compaction_sequence,
            });
            data.checkpoint_id = id;
            data.compaction_sequence = compaction_sequence;
            let path = self.checkpoint_path(id);
            let written = serialize(&data).and_then(|bytes| {
                write_atomic(&path, &bytes, Durability::Fsync).map_err(|e| io_error(&path, &e))
            });
            if let Err(e) = written {
                give_back();
                return Err(e);
            }
            // The checkpoint file itself already proves the id is taken; `.next-id` only matters
            // once that file is deleted, and prune re-records it durably before deleting. So a
            // failure here loses nothing, and the cheap rename-only write keeps the lock short.
            let _ = self.record_next_sequence(next.sequence + 1, Durability::RenameOnly);
            if let Some(note) = allocate::past_the_end_note(&dir, &next) {
                self.log_warning(&note);
            }
            Ok(data)
        })
    }

    fn get(&self, id: CheckpointId) -> Result<Option<StoredCheckpoint>, PortError> {
        match read::read_checkpoint(&self.checkpoint_path(id), id) {
            Ok(data) => Ok(Some(StoredCheckpoint {
                data,
                acknowledged: read::exists(&self.marker_path(id))?,
            })),
            Err(e) if e.kind == PortErrorKind::NotFound => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// With a session: its index, a `stat` per marker, and only the session's own files,
    /// newest first. For the project: names first (one `read_dir`), then only the files that
    /// could be the answer. Unreadable files are skipped here; `list` is where they are
    /// reported.
    fn latest_unacknowledged(
        &self,
        session: Option<&str>,
    ) -> Result<Option<CheckpointData>, PortError> {
        if let Some(s) = session {
            let entries = self.session_entries(s)?;
            let mut reads = 0;
            for entry in entries.iter().rev() {
                if read::exists(&self.marker_path(entry.id))? {
                    continue;
                }
                reads += 1;
                if let Some(data) = self.read_own(entry.id, s) {
                    return Ok(Some(data));
                }
                if reads >= MAX_LATEST_READS {
                    break;
                }
            }
            return Ok(None);
        }
        let scan = Scan::read(&self.dir())?;
        for id in scan.unacknowledged_newest_first().take(MAX_LATEST_READS) {
            if let Ok(data) = read::read_checkpoint(&self.checkpoint_path(id), id) {
                return Ok(Some(data));
            }
        }
        Ok(None)
    }

    fn of_session(&self, session: &str) -> Result<Vec<StoredCheckpoint>, PortError> {
        let entries = self.session_entries(session)?;
        let mut found = Vec::new();
        for entry in entries.iter().rev().take(MAX_SESSION_READS) {
            if let Some(data) = self.read_own(entry.id, session) {
                found.push(StoredCheckpoint {
                    data,
                    acknowledged: read::exists(&self.marker_path(entry.id))?,
                });
            }
        }
        found.reverse();
        Ok(found)
    }

    /// Names first, then from the newest down until one can be read (a bounded few).
    fn newest(&self) -> Result<Option<CheckpointData>, PortError> {
        let scan = Scan::read(&self.dir())?;
        for &id in scan.checkpoints.iter().rev().take(MAX_LATEST_READS) {
            if let Ok(data) = read::read_checkpoint(&self.checkpoint_path(id), id) {
                return Ok(Some(data));
            }
        }
        Ok(None)
    }

    fn is_acknowledged(&self, id: CheckpointId) -> Result<bool, PortError> {
        read::exists(&self.marker_path(id))
    }

    fn claim_alert(
        &self,
        id: CheckpointId,
        now: Timestamp,
        until: Timestamp,
    ) -> Result<bool, PortError> {
        let (file, marker) = (self.checkpoint_path(id), self.marker_path(id));
        self.locked(|| claim::take_unless_told(&self.dir(), id, (now, until), &file, &marker))
    }

    fn release_alert(&self, id: CheckpointId) -> Result<(), PortError> {
        let dir = self.dir();
        self.layout
            .ensure_dir(&dir)
            .map_err(|e| io_error(&dir, &e))?;
        remove_if_present(&dir.join(folder::claim_name(id)))
    }

    /// Takes no lock: creating the marker with `create_new` is atomic by itself, which is also
    /// what makes the returned flag exact when two processes acknowledge at once.
    ///
    /// Only a checkpoint ctxmon can read is acknowledged: a corrupt, foreign or future-schema
    /// file (or a symlink) is refused with the reason `get` gives, and no marker is written, so
    /// `ack` never claims a checkpoint that `show` cannot show.
    fn acknowledge(&self, id: CheckpointId) -> Result<bool, PortError> {
        match read::read_checkpoint(&self.checkpoint_path(id), id) {
            Ok(_) => {}
            Err(e) if e.kind == PortErrorKind::NotFound => {
                return Err(PortError::new(
                    PortErrorKind::NotFound,
                    format!("no checkpoint {id} in {}", self.dir().display()),
                ));
            }
            Err(e) => return Err(e),
        }
        // The folder may be a link a repository planted: no marker is created through it.
        let dir = self.dir();
        self.layout
            .ensure_dir(&dir)
            .map_err(|e| io_error(&dir, &e))?;
        let marker = self.marker_path(id);
        let mut options = OpenOptions::new();
        options.write(true).create_new(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            options.mode(0o600);
            options.custom_flags(libc::O_NOFOLLOW);
        }
        let created = match options.open(&marker) {
            Ok(_) => true,
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => false,
            Err(e) => return Err(io_error(&marker, &e)),
        };
        // The marker now says the alert was given; a claim left beside it says nothing more.
        let _ = remove_if_present(&dir.join(folder::claim_name(id)));
        Ok(created)
    }

    fn list(&self) -> Result<CheckpointListing, PortError> {
        let dir = self.dir();
        let scan = Scan::read(&dir)?;
        let mut listing = CheckpointListing::default();
        for &id in &scan.checkpoints {
            match read::read_checkpoint(&self.checkpoint_path(id), id) {
                Ok(data) => listing.checkpoints.push(StoredCheckpoint {
                    data,
                    acknowledged: scan.markers.contains(&id),
                }),
                // Pruned between the read_dir and the read: simply gone.
                Err(e) if e.kind == PortErrorKind::NotFound => {}
                Err(e) => listing.problems.push(format!("{e}; skipped")),
            }
        }
        for name in &scan.foreign {
            listing.problems.push(format!(
                "{}: not a checkpoint file (expected cx-NNN-checkpoint.json); skipped",
                dir.join(name).display()
            ));
        }
        Ok(listing)
    }

    /// Counts only the checkpoints it can read, so a corrupt or future-schema file neither
    /// takes one of the `keep` places nor is deleted (it is reported; a newer ctxmon may still
    /// read it, and a person should look before it goes). Markers of deleted checkpoints go
    /// too, as do markers whose checkpoint file is gone.
    fn prune(&self, keep: usize) -> Result<PruneOutcome, PortError> {
        // Nothing to prune must not create the folder (and its lock) as a side effect.
        if !self.dir().is_dir() {
            return Ok(PruneOutcome::default());
        }
        self.locked(|| {
            let scan = Scan::read(&self.dir())?;
            let mut outcome = PruneOutcome::default();
            let mut readable: Vec<(CheckpointId, Option<String>)> = Vec::new();
            for &id in &scan.checkpoints {
                match read::read_checkpoint(&self.checkpoint_path(id), id) {
                    Ok(data) => readable.push((id, data.session_info.session_id)),
                    Err(e) if e.kind == PortErrorKind::NotFound => {}
                    Err(e) => outcome.unreadable.push(format!("{e}; not pruned")),
                }
            }
            let excess = readable.len().saturating_sub(keep);
            let doomed: Vec<(CheckpointId, Option<String>)> =
                readable.into_iter().take(excess).collect();
            let orphan_markers: Vec<CheckpointId> = scan
                .markers
                .union(&scan.claims)
                .filter(|id| !scan.checkpoints.contains(id))
                .copied()
                .collect();
            if doomed.is_empty() && orphan_markers.is_empty() {
                return Ok(outcome);
            }
            self.remove_all(&scan, &doomed)?;
            for id in orphan_markers {
                remove_if_present(&self.marker_path(id))?;
                remove_if_present(&self.dir().join(folder::claim_name(id)))?;
            }
            outcome.pruned = doomed.into_iter().map(|(id, _)| id).collect();
            Ok(outcome)
        })
    }

    /// One `read_dir` decides which are old enough (names say which are acknowledged); only
    /// candidates are read, at most [`MAX_PRUNE_READS`] of them, and at most `max_removals`
    /// go. An unacknowledged one goes only when its session's index names a newer checkpoint
    /// that still exists: the alert about that one acknowledges it, so it would never be
    /// handed back, and keeping it only made every lookup slower.
    fn prune_automatic(&self, policy: AutoPrune<'_>) -> Result<PruneOutcome, PortError> {
        if !self.dir().is_dir() {
            return Ok(PruneOutcome::default());
        }
        self.locked(|| {
            let dir = self.dir();
            let scan = Scan::read(&dir)?;
            let older = scan.checkpoints.len().saturating_sub(policy.keep);
            let candidates = scan
                .checkpoints
                .iter()
                .take(older)
                .filter(|id| !policy.spare.contains(id))
                .take(MAX_PRUNE_READS);
            let mut outcome = PruneOutcome::default();
            let mut doomed = Vec::new();
            let mut newest_of: BTreeMap<String, Option<CheckpointId>> = BTreeMap::new();
            for &id in candidates {
                if doomed.len() >= policy.max_removals {
                    break;
                }
                let acknowledged = scan.markers.contains(&id);
                let data = match read::read_checkpoint(&self.checkpoint_path(id), id) {
                    Ok(data) => data,
                    Err(e) if e.kind == PortErrorKind::NotFound => continue,
                    // Only an acknowledged file was ever due to go: an unreadable one that is
                    // not is just passed over, or every compaction would report it again.
                    Err(e) if acknowledged => {
                        outcome.unreadable.push(format!("{e}; not pruned"));
                        continue;
                    }
                    Err(_) => continue,
                };
                let session = data.session_info.session_id;
                let goes = acknowledged
                    || session.as_deref().is_some_and(|s| {
                        let newest = newest_of.entry(s.to_string()).or_insert_with(|| {
                            index::read(&dir, s).and_then(|entries| {
                                entries
                                    .iter()
                                    .map(|e| e.id)
                                    .filter(|e| scan.checkpoints.contains(e))
                                    .max()
                            })
                        });
                        newest.is_some_and(|newest| newest > id)
                    });
                if goes {
                    doomed.push((id, session));
                }
            }
            if doomed.is_empty() {
                return Ok(outcome);
            }
            self.remove_all(&scan, &doomed)?;
            outcome.pruned = doomed.into_iter().map(|(id, _)| id).collect();
            Ok(outcome)
        })
    }
}

impl FsCheckpointRepository {
    /// A problem the save survived, for the hook log (`doctor` shows it): a port's answer has
    /// no room for it, and the hook that saved need not know the folder's history.
    fn log_warning(&self, message: &str) {
        let log = HookLog::new(&self.layout, Config::default().hooks.log_max_bytes);
        let _ = log.write(SystemClock.now(), "checkpoints", "warn", message);
    }

    /// Deletes `doomed` (each with its session) and what names them: marker, claim, index
    /// entry. Run under the lock.
    fn remove_all(
        &self,
        scan: &Scan,
        doomed: &[(CheckpointId, Option<String>)],
    ) -> Result<(), PortError> {
        let dir = self.dir();
        // The high-water mark goes on disk before anything that carries an id goes (else a
        // pruned id could come back), unless a checkpoint that stays proves the ids taken.
        let ids: Vec<CheckpointId> = doomed.iter().map(|(id, _)| *id).collect();
        if !allocate::taken_beyond(&dir, scan, &ids) {
            self.record_next_sequence(allocate::next(&dir, scan).sequence, Durability::Fsync)?;
        }
        let mut gone: BTreeMap<String, Vec<CheckpointId>> = BTreeMap::new();
        for (id, session) in doomed {
            // Data before marker: an interruption leaves at worst a marker for an id that can
            // never be allocated again.
            remove_if_present(&self.checkpoint_path(*id))?;
            remove_if_present(&self.marker_path(*id))?;
            remove_if_present(&dir.join(folder::claim_name(*id)))?;
            if let Some(s) = session {
                gone.entry(s.clone()).or_default().push(*id);
            }
        }
        index::forget(&dir, &gone);
        Ok(())
    }
}

/// Pretty JSON (people read these files), refusing what could not be read back: non-finite
/// numbers serialise as `null`, which would not parse as a number again, and files over the
/// cap would be refused by every reader.
fn serialize(data: &CheckpointData) -> Result<Vec<u8>, PortError> {
    let mut non_finite = vec![(
        "context_state.fill_percentage",
        data.context_state.fill_percentage,
    )];
    if let Some(score) = data
        .resumption_state
        .as_ref()
        .and_then(|r| r.quality_trajectory.as_ref())
        .and_then(|q| q.score)
    {
        non_finite.push(("resumption_state.quality_trajectory.score", score));
    }
    if let Some((field, value)) = non_finite.into_iter().find(|(_, v)| !v.is_finite()) {
        return Err(PortError::new(
            PortErrorKind::InvalidData,
            format!(
                "checkpoint {} not written: {field} is {value}",
                data.checkpoint_id
            ),
        ));
    }
    let mut bytes = serde_json::to_vec_pretty(data)
        .map_err(|e| PortError::new(PortErrorKind::InvalidData, e.to_string()))?;
    bytes.push(b'\n');
    if bytes.len() as u64 > MAX_CHECKPOINT_BYTES {
        return Err(PortError::new(
            PortErrorKind::InvalidData,
            format!(
                "checkpoint {} not written: {} bytes is over the {} MiB limit",
                data.checkpoint_id,
                ctxmon_domain::human::thousands(bytes.len() as u64),
                MAX_CHECKPOINT_BYTES / (1024 * 1024)
            ),
        ));
    }
    Ok(bytes)
}

fn remove_if_present(path: &std::path::Path) -> Result<(), PortError> {
    match fs::remove_file(path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(io_error(path, &e)),
    }
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_bad_input;
#[cfg(test)]
mod tests_sequence;
