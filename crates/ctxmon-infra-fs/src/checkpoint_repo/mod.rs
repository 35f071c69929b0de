//! `.ctxmon/checkpoints/`: the file-system `CheckpointRepository` (contract C5, C12).
//!
//! Layout: `cx-NNN-checkpoint.json` (the data, replaced only atomically), `cx-NNN.acknowledged`
//! (an empty marker), `.lock` (held by every writer), `.next-id` (the next sequence, so ids never
//! come back after a prune or a deleted file), `.seq-<SessionKey>` (a session's next compaction
//! sequence, for the same reason) and `.sequences-since` (see `sequence.rs`). Readers take no
//! lock: atomic renames mean they see a whole file or none, and a temp file left by a killed
//! writer has a name no reader looks at (it stays: ctxmon deletes only its own process's temp
//! files). Writers refuse a folder that is a symbolic link (`ProjectLayout::ensure_dir`).
//!
//! Saving decides from names and those marks: it reads no checkpoint file (bar a bounded few
//! in a folder written before the marks existed), so its cost does not grow with the folder
//! beyond one `read_dir`. Automatic pruning keeps the folder from growing without end.

mod folder;
mod read;
mod sequence;

use std::fs::{self, OpenOptions};
use std::io;
use std::path::PathBuf;
use std::time::Duration;

use ctxmon_application::ports::{
    Allocation, AutoPrune, CheckpointListing, CheckpointRepository, PortError, PortErrorKind,
    PruneOutcome, StoredCheckpoint,
};
use ctxmon_domain::{CheckpointData, CheckpointId};

use crate::fsutil::{Durability, io_error, with_lock, write_atomic};
use crate::layout::ProjectLayout;
use folder::Scan;
pub use read::MAX_CHECKPOINT_BYTES;

/// `latest_unacknowledged` runs on every prompt; past this many unreadable or other-session
/// files it gives up rather than read the whole folder.
const MAX_LATEST_READS: usize = 50;
/// `CheckpointId` parses at most nine digits, so a larger sequence could never be read back.
const MAX_SEQUENCE: u64 = 999_999_999;

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

    /// The next sequence: past every id a name claims and past the recorded high-water mark.
    fn next_sequence(&self, scan: &Scan) -> u64 {
        let from_names = scan.highest().map_or(1, |id| u64::from(id.sequence()) + 1);
        let recorded = read::read_number(&self.next_id_path()).unwrap_or(1);
        from_names.max(recorded)
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
            let next = self.next_sequence(&scan);
            let id = u32::try_from(next)
                .ok()
                .filter(|_| next <= MAX_SEQUENCE)
                .and_then(CheckpointId::new)
                .ok_or_else(|| {
                    PortError::new(
                        PortErrorKind::InvalidData,
                        format!(
                            "checkpoint ids are exhausted in {}: the next would be {next}, past cx-{MAX_SEQUENCE}; if {} was edited by hand, delete it",
                            dir.display(),
                            folder::NEXT_ID_NAME
                        ),
                    )
                })?;
            // Without a session there is no series to number: every such checkpoint is the
            // first of its own, and no per-session mark is kept.
            // A mark that cannot be written (a full disk fails the checkpoint too; a folder
            // planted under its name does not) must not cost the checkpoint: it is saved with
            // the sequence allocated, which the next save may then give again.
            let (compaction_sequence, marked) = match session {
                Some(s) => {
                    let (sequence, previous) = sequence::allocate(&dir, &scan, s, id);
                    let marked = sequence::record(&dir, s, u64::from(sequence) + 1).is_ok();
                    (sequence, marked.then_some((s, previous)))
                }
                None => (1, None),
            };
            let give_back = || {
                if let Some((s, previous)) = marked {
                    sequence::restore(&dir, s, previous);
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
            let _ = self.record_next_sequence(next + 1, Durability::RenameOnly);
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

    /// Names first (one `read_dir`), then only the files that could be the answer, newest
    /// first. Unreadable files are skipped here; `list` is where they are reported.
    fn latest_unacknowledged(
        &self,
        session: Option<&str>,
    ) -> Result<Option<CheckpointData>, PortError> {
        let scan = Scan::read(&self.dir())?;
        for id in scan.unacknowledged_newest_first().take(MAX_LATEST_READS) {
            let Ok(data) = read::read_checkpoint(&self.checkpoint_path(id), id) else {
                continue;
            };
            if session.is_none_or(|s| data.session_info.session_id.as_deref() == Some(s)) {
                return Ok(Some(data));
            }
        }
        Ok(None)
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
        match options.open(&marker) {
            Ok(_) => Ok(true),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Ok(false),
            Err(e) => Err(io_error(&marker, &e)),
        }
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
            let mut readable: Vec<CheckpointId> = Vec::new();
            for &id in &scan.checkpoints {
                match read::read_checkpoint(&self.checkpoint_path(id), id) {
                    Ok(_) => readable.push(id),
                    Err(e) if e.kind == PortErrorKind::NotFound => {}
                    Err(e) => outcome.unreadable.push(format!("{e}; not pruned")),
                }
            }
            let doomed: Vec<CheckpointId> = readable
                .iter()
                .copied()
                .take(readable.len().saturating_sub(keep))
                .collect();
            let orphan_markers: Vec<CheckpointId> = scan
                .markers
                .difference(&scan.checkpoints)
                .copied()
                .collect();
            if doomed.is_empty() && orphan_markers.is_empty() {
                return Ok(outcome);
            }
            // Record the high-water mark durably before anything that carries an id goes,
            // or the next save could hand a pruned id out again.
            self.record_next_sequence(self.next_sequence(&scan), Durability::Fsync)?;
            for &id in &doomed {
                // Data before marker: an interruption leaves at worst a marker for an id that
                // can never be allocated again.
                remove_if_present(&self.checkpoint_path(id))?;
                remove_if_present(&self.marker_path(id))?;
            }
            for id in orphan_markers {
                remove_if_present(&self.marker_path(id))?;
            }
            outcome.pruned = doomed;
            Ok(outcome)
        })
    }

    /// One `read_dir` decides (names say which checkpoints are acknowledged); only the
    /// checkpoints about to go are read, at most `max_removals` of them.
    fn prune_acknowledged(&self, policy: AutoPrune<'_>) -> Result<PruneOutcome, PortError> {
        if !self.dir().is_dir() {
            return Ok(PruneOutcome::default());
        }
        self.locked(|| {
            let scan = Scan::read(&self.dir())?;
            let older = scan.checkpoints.len().saturating_sub(policy.keep);
            let candidates: Vec<CheckpointId> = scan
                .checkpoints
                .iter()
                .take(older)
                .filter(|id| scan.markers.contains(id) && !policy.spare.contains(id))
                .take(policy.max_removals)
                .copied()
                .collect();
            let mut outcome = PruneOutcome::default();
            let mut doomed = Vec::new();
            for id in candidates {
                match read::read_checkpoint(&self.checkpoint_path(id), id) {
                    Ok(_) => doomed.push(id),
                    Err(e) if e.kind == PortErrorKind::NotFound => {}
                    Err(e) => outcome.unreadable.push(format!("{e}; not pruned")),
                }
            }
            if doomed.is_empty() {
                return Ok(outcome);
            }
            // As in `prune`: the high-water mark is durable before an id-carrying file goes.
            self.record_next_sequence(self.next_sequence(&scan), Durability::Fsync)?;
            for &id in &doomed {
                remove_if_present(&self.checkpoint_path(id))?;
                remove_if_present(&self.marker_path(id))?;
                outcome.pruned.push(id);
            }
            Ok(outcome)
        })
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
