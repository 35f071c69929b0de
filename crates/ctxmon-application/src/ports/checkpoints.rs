//! Ports for checkpoints and the inputs a checkpoint is built from: the resumption source file,
//! the transcript tail and git.

use std::path::{Path, PathBuf};

use ctxmon_domain::{CheckpointData, CheckpointId};

use super::PortError;

/// A checkpoint with its acknowledgement state, as listed.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredCheckpoint {
    pub data: CheckpointData,
    pub acknowledged: bool,
}

/// Everything in the checkpoint folder: readable checkpoints (oldest first) and the files that
/// were skipped, each with the reason (corrupt, foreign, future schema).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CheckpointListing {
    pub checkpoints: Vec<StoredCheckpoint>,
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

/// `.ctxmon/checkpoints/` (spec §5).
pub trait CheckpointRepository {
    /// Allocates the next id under the repository's lock, asks `build` for the data with that id,
    /// and writes it atomically. Concurrent callers (other processes) get distinct ids with no
    /// gaps.
    fn save_new(
        &self,
        build: &mut dyn FnMut(CheckpointId) -> CheckpointData,
    ) -> Result<CheckpointData, PortError>;
    fn get(&self, id: CheckpointId) -> Result<Option<StoredCheckpoint>, PortError>;
    /// The newest checkpoint without an acknowledgement marker; with `session`, the newest of
    /// that session. Corrupt files are skipped.
    fn latest_unacknowledged(
        &self,
        session: Option<&str>,
    ) -> Result<Option<CheckpointData>, PortError>;
    /// Returns true when this call created the marker (false: it was already acknowledged).
    /// `NotFound` without a checkpoint file; a file that cannot be read as a checkpoint
    /// (corrupt, foreign, future schema) is refused with the reason `get` gives, and no marker
    /// is written.
    fn acknowledge(&self, id: CheckpointId) -> Result<bool, PortError>;
    fn list(&self) -> Result<CheckpointListing, PortError>;
    /// Deletes all but the newest `keep` readable checkpoints (and their markers). Only
    /// checkpoints the repository can read count toward `keep` and are deleted: a corrupt,
    /// foreign or future-schema file is reported in the outcome and never deleted.
    fn prune(&self, keep: usize) -> Result<PruneOutcome, PortError>;
}

/// What the resumption source file held.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SourceDocument {
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

#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct GitHead {
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
}
