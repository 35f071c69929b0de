//! The checkpoint folder by name only: which entries are checkpoints, acknowledgement markers,
//! ctxmon's own bookkeeping, or something else.
//!
//! Classifying names costs one `read_dir` and no file reads, which is what keeps
//! `latest_unacknowledged` cheap enough to run on every prompt.

use std::collections::BTreeSet;
use std::fs;
use std::io;
use std::path::Path;

use ctxmon_application::ports::PortError;
use ctxmon_domain::CheckpointId;

use crate::fsutil::{TEMP_PREFIX, io_error};

/// The lock every writer of the folder holds (contract C12).
pub(super) const LOCK_NAME: &str = ".lock";
/// The next sequence to allocate, so that deleting the newest files never brings an id back.
pub(super) const NEXT_ID_NAME: &str = ".next-id";
/// `.seq-<SessionKey>`: a session's next compaction sequence (see `sequence.rs`).
pub(super) const SEQUENCE_PREFIX: &str = ".seq-";
/// The first id allocated with per-session sequence marks (an older layout's; still known so
/// that it is never taken for something foreign).
pub(super) const SEQUENCES_SINCE_NAME: &str = ".sequences-since";
/// `cx-NNN.alerting`: a prompt is giving the checkpoint's alert (see `claim.rs`).
pub(super) const CLAIM_SUFFIX: &str = ".alerting";
/// `.index-<SessionKey>`: a session's checkpoints (see `index.rs`).
pub(super) const INDEX_PREFIX: &str = ".index-";
/// Present once the folder's checkpoints are indexed (see `index.rs`).
pub(super) const INDEXED_SINCE_NAME: &str = ".indexed-since";

/// What one directory entry's name says it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Name {
    Checkpoint(CheckpointId),
    Marker(CheckpointId),
    /// A prompt's claim to give the checkpoint's alert.
    Claim(CheckpointId),
    /// `.lock`, `.next-id`, `.indexed-since`, `.sequences-since`, the sessions' `.seq-*` marks
    /// and `.index-*` indexes.
    Bookkeeping,
    /// A temp file of `write_atomic`; it only outlives its writer when that writer was killed.
    Temp,
    Foreign,
}

/// Only canonical names count: `cx-0001-checkpoint.json` parses to the same id as
/// `cx-001-checkpoint.json`, but two files must never claim one id, so the non-canonical one is
/// foreign.
pub(super) fn classify(name: &str) -> Name {
    if name == LOCK_NAME
        || name == NEXT_ID_NAME
        || name == SEQUENCES_SINCE_NAME
        || name == INDEXED_SINCE_NAME
        || name.starts_with(SEQUENCE_PREFIX)
        || name.starts_with(INDEX_PREFIX)
    {
        return Name::Bookkeeping;
    }
    if name.starts_with(TEMP_PREFIX) {
        return Name::Temp;
    }
    if let Some(stem) = name.strip_suffix("-checkpoint.json")
        && let Some(id) = CheckpointId::parse(stem)
        && id.file_name() == name
    {
        return Name::Checkpoint(id);
    }
    if let Some(stem) = name.strip_suffix(".acknowledged")
        && let Some(id) = CheckpointId::parse(stem)
        && id.marker_name() == name
    {
        return Name::Marker(id);
    }
    if let Some(stem) = name.strip_suffix(CLAIM_SUFFIX)
        && let Some(id) = CheckpointId::parse(stem)
        && claim_name(id) == name
    {
        return Name::Claim(id);
    }
    Name::Foreign
}

/// The name of checkpoint `id`'s alert claim.
pub(super) fn claim_name(id: CheckpointId) -> String {
    format!("{id}{CLAIM_SUFFIX}")
}

/// The folder's entries, grouped by what their names say.
#[derive(Debug, Default)]
pub(super) struct Scan {
    /// Every canonical checkpoint name, whatever its content (corrupt files still own their id).
    pub checkpoints: BTreeSet<CheckpointId>,
    pub markers: BTreeSet<CheckpointId>,
    pub claims: BTreeSet<CheckpointId>,
    /// Names that are none of ours (lossily decoded when not UTF-8), sorted.
    pub foreign: Vec<String>,
}

impl Scan {
    /// A missing folder is an empty one: nothing has been checkpointed yet.
    pub fn read(dir: &Path) -> Result<Scan, PortError> {
        let entries = match fs::read_dir(dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Scan::default()),
            Err(e) => return Err(io_error(dir, &e)),
        };
        let mut scan = Scan::default();
        for entry in entries {
            let entry = entry.map_err(|e| io_error(dir, &e))?;
            let os_name = entry.file_name();
            let Some(name) = os_name.to_str() else {
                scan.foreign.push(os_name.to_string_lossy().into_owned());
                continue;
            };
            match classify(name) {
                Name::Checkpoint(id) => {
                    scan.checkpoints.insert(id);
                }
                Name::Marker(id) => {
                    scan.markers.insert(id);
                }
                Name::Claim(id) => {
                    scan.claims.insert(id);
                }
                // A temp file is a writer's until it renames it (or dies and leaves it); no
                // reader looks at it, and no writer deletes one it did not create.
                Name::Bookkeeping | Name::Temp => {}
                Name::Foreign => scan.foreign.push(name.to_string()),
            }
        }
        scan.foreign.sort();
        Ok(scan)
    }

    /// Checkpoints without a marker, newest first.
    pub fn unacknowledged_newest_first(&self) -> impl Iterator<Item = CheckpointId> + '_ {
        self.checkpoints
            .iter()
            .rev()
            .copied()
            .filter(|id| !self.markers.contains(id))
    }
}
