//! Ports for checkpoints and the inputs a checkpoint is built from: the resumption source file,
//! the transcript tail and git.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use ctxmon_domain::{CheckpointData, CheckpointId, Timestamp};

use super::PortError;

/// A checkpoint with its acknowledgement state, as listed.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredCheckpoint {
    /// The checkpoint.
    pub data: CheckpointData,
    /// True when its acknowledgement marker exists.
    pub acknowledged: bool,
}

/// Everything in the checkpoint folder: readable checkpoints (oldest first) and the files that
/// were skipped, each with the reason (corrupt, foreign, future schema).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CheckpointListing {
    /// Readable checkpoints, oldest first.
    pub checkpoints: Vec<StoredCheckpoint>,
    /// One line per file that was skipped, naming it and saying why.
    pub problems: Vec<String>,
}

/// What `prune` did.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PruneOutcome {
    /// The checkpoints deleted, oldest first.
    pub pruned: Vec<CheckpointId>,
    /// Checkpoint files that could not be read, each with the reason: neither counted nor
    /// deleted (the user decides what they are).
    pub unreadable: Vec<String>,
}

/// What the repository gives a new checkpoint, under its lock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Allocation {
    /// The new checkpoint's id: one past the highest ever given in the project.
    pub id: CheckpointId,
    /// The session's compaction number: one past the highest it was ever given (so unique and
    /// increasing whatever was pruned or deleted since), 1 for its first. A checkpoint without
    /// a session belongs to no series and is always 1.
    pub compaction_sequence: u32,
}

/// What automatic pruning (after each PreCompact) may delete: checkpoints older than the newest
/// `keep`, except those in `spare`, at most `max_removals` per call. Acknowledged ones go; an
/// unacknowledged one goes only when a newer checkpoint of its session exists (the alert about
/// that one covers it), so each session's newest stays until the agent has been told.
#[derive(Debug, Clone, Copy)]
pub struct AutoPrune<'a> {
    /// The newest `keep` checkpoints stay, whatever their state.
    pub keep: usize,
    /// Never deleted: the session's newest checkpoint, the ones a resume log names.
    pub spare: &'a BTreeSet<CheckpointId>,
    /// Bounds one call's work (each removal reads the file first); the rest goes next time.
    pub max_removals: usize,
}

/// `.ctxmon/checkpoints/` (contract C5).
pub trait CheckpointRepository {
    /// Allocates the next id and `session`'s next compaction sequence under the repository's
    /// lock, asks `build` for the data with them, and writes it atomically. Concurrent callers
    /// (other processes) get distinct ids with no gaps, and one session's callers distinct,
    /// increasing sequences. Whatever id and sequence `build` puts in the data are replaced by
    /// the allocated ones. The cost does not grow with the number of checkpoints stored.
    fn save_new(
        &self,
        session: Option<&str>,
        build: &mut dyn FnMut(Allocation) -> CheckpointData,
    ) -> Result<CheckpointData, PortError>;
    /// The checkpoint `id`; `Ok(None)` when there is none, `InvalidData` when its file cannot be
    /// read as a checkpoint.
    fn get(&self, id: CheckpointId) -> Result<Option<StoredCheckpoint>, PortError>;
    /// Where checkpoint `id` is kept, as the agent can read it (the file's path, whether or not
    /// it exists): the alert names it, and only the repository knows the storage layout.
    fn location(&self, id: CheckpointId) -> String;
    /// The newest checkpoint without an acknowledgement marker; with `session`, the newest of
    /// that session. Corrupt files are skipped.
    fn latest_unacknowledged(
        &self,
        session: Option<&str>,
    ) -> Result<Option<CheckpointData>, PortError>;
    /// `session`'s checkpoints, oldest first, found without reading other sessions' (the
    /// newest few dozen at most); files that cannot be read are skipped.
    fn of_session(&self, session: &str) -> Result<Vec<StoredCheckpoint>, PortError>;
    /// The project's newest checkpoint that can be read.
    fn newest(&self) -> Result<Option<CheckpointData>, PortError>;
    /// True when checkpoint `id`'s acknowledgement marker exists; reads no checkpoint.
    fn is_acknowledged(&self, id: CheckpointId) -> Result<bool, PortError>;
    /// Claims the giving of checkpoint `id`'s alert until `until`: true when this caller is to
    /// give it, false when it is acknowledged already or another caller's claim still runs.
    /// The claim is what keeps two prompts from both alerting while neither has written its
    /// answer; it is not an acknowledgement (a caller that dies holding it loses it at
    /// `until`, and the alert is given again).
    fn claim_alert(
        &self,
        id: CheckpointId,
        now: Timestamp,
        until: Timestamp,
    ) -> Result<bool, PortError>;
    /// Gives up this caller's claim on `id`'s alert (its answer could not be written), so the
    /// next prompt gives the alert without waiting for the claim to run out. The default does
    /// nothing: an unreleased claim runs out by itself.
    fn release_alert(&self, _id: CheckpointId) -> Result<(), PortError> {
        Ok(())
    }
    /// Returns true when this call created the marker (false: it was already acknowledged),
    /// and ends any claim on its alert. `NotFound` without a checkpoint file; a file that
    /// cannot be read as a checkpoint (corrupt, foreign, future schema) is refused with the
    /// reason `get` gives, and no marker is written.
    fn acknowledge(&self, id: CheckpointId) -> Result<bool, PortError>;
    /// Every checkpoint, oldest first, and the files that could not be read.
    fn list(&self) -> Result<CheckpointListing, PortError>;
    /// Deletes all but the newest `keep` readable checkpoints (and their markers). Only
    /// checkpoints the repository can read count toward `keep` and are deleted: a corrupt,
    /// foreign or future-schema file is reported in the outcome and never deleted.
    fn prune(&self, keep: usize) -> Result<PruneOutcome, PortError>;
    /// Deletes old checkpoints as `policy` allows, oldest first: acknowledged ones, and
    /// unacknowledged ones a newer checkpoint of the same session supersedes (never a
    /// session's newest: the agent has not been told about it). Each one deleted is read
    /// first, and one that cannot be read is reported in the outcome and kept, as by `prune`.
    fn prune_automatic(&self, policy: AutoPrune<'_>) -> Result<PruneOutcome, PortError>;
}

/// What the resumption source file held.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SourceDocument {
    /// The file's path, for messages (warnings are prefixed with it).
    pub path: String,
    /// The `resumption:` section; `None` when the file has none (or it is not a map).
    pub section: Option<serde_json::Value>,
    /// Why the file (or part of it) was not used, for the hook log.
    pub warnings: Vec<String>,
}

/// The project's resumption source file (`resumption.source_file`; with the default, the
/// first of `ORCHESTRATION.yaml`, `.yml`, `.json` that exists).
pub trait ResumptionSource {
    /// `Ok(None)` when there is no such file. A file over the size cap, invalid YAML/JSON or a
    /// section of the wrong shape is `Ok(Some)` with a warning and no section: it never fails
    /// the hook.
    fn read(&self, project_dir: &Path) -> Result<Option<SourceDocument>, PortError>;

    /// The file `read` would read: the first candidate name that exists (in any form), or
    /// `None` when none does. Costs a few `stat`s, no read.
    fn locate(&self, project_dir: &Path) -> Option<PathBuf>;
}

/// What git says about the project's work tree.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct GitHead {
    /// The checked-out branch; `None` when the head is detached.
    pub branch: Option<String>,
    /// The full commit id; `None` in a repository without commits.
    pub head: Option<String>,
}

/// Reads the branch and head commit from `.git` without spawning git.
pub trait GitInfo {
    /// `None` when `dir` is not inside a git work tree.
    fn head(&self, dir: &Path) -> Option<GitHead>;

    /// Uncommitted changes as `git status --porcelain` entries (`XY path`). `None` when they
    /// cannot be known (no repository, no git, too slow); `Some(empty)` for a clean tree.
    /// Only resume-log generation asks, never the per-prompt path. The default knows nothing,
    /// so adapters that cannot run git need not implement it.
    fn dirty_files(&self, _dir: &Path) -> Option<Vec<String>> {
        None
    }

    /// [`GitInfo::dirty_files`] asked now and answered when the returned function is called,
    /// so that a caller with other work (PreCompact parsing its tail) need not wait for git
    /// first. The default asks at once; an adapter that runs git starts it here.
    fn dirty_files_started<'a>(&'a self, dir: &Path) -> PendingDirtyFiles<'a> {
        let found = self.dirty_files(dir);
        Box::new(move || found)
    }
}

/// The answer of [`GitInfo::dirty_files_started`], when called for.
pub type PendingDirtyFiles<'a> = Box<dyn FnOnce() -> Option<Vec<String>> + 'a>;
