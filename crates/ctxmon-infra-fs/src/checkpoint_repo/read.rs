//! Reading one checkpoint file and deciding whether it is one ctxmon can trust: a regular file,
//! within the size cap, valid JSON of a schema this build knows, naming the id its file name
//! claims.

use std::fs::{self, File};
use std::io::{self, Read};
use std::path::Path;

use ctxmon_application::ports::{PortError, PortErrorKind};
use ctxmon_domain::{CheckpointData, CheckpointId};
use serde::Deserialize;

use crate::fsutil::io_error;

/// Checkpoints ctxmon writes stay far below this (the resumption source is capped at 1 MiB and
/// the transcript-derived state is smaller still); anything larger is not ours, and refusing it
/// bounds what a hook reads.
pub const MAX_CHECKPOINT_BYTES: u64 = 4 * 1024 * 1024;

fn invalid(path: &Path, why: impl std::fmt::Display) -> PortError {
    PortError::new(
        PortErrorKind::InvalidData,
        format!("{}: {why}", path.display()),
    )
}

/// Reads and validates `path`, which the caller found under `id`'s canonical name.
/// `NotFound` means the file went away (a concurrent prune), which callers treat as absence.
pub(super) fn read_checkpoint(path: &Path, id: CheckpointId) -> Result<CheckpointData, PortError> {
    #[cfg(test)]
    counter::count();
    // symlink_metadata, not metadata: a symlink planted under a checkpoint's name must not make
    // ctxmon read (and echo errors about) a file elsewhere.
    let meta = fs::symlink_metadata(path).map_err(|e| io_error(path, &e))?;
    if !meta.is_file() {
        return Err(invalid(path, "not a regular file"));
    }
    let file = File::open(path).map_err(|e| io_error(path, &e))?;
    let mut bytes = Vec::new();
    // take(): the size check above cannot stop a file that grows after it.
    file.take(MAX_CHECKPOINT_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| io_error(path, &e))?;
    if bytes.len() as u64 > MAX_CHECKPOINT_BYTES {
        return Err(invalid(
            path,
            format_args!(
                "larger than {} MiB, not a checkpoint ctxmon wrote",
                MAX_CHECKPOINT_BYTES / (1024 * 1024)
            ),
        ));
    }
    let data: CheckpointData = match serde_json::from_slice(&bytes) {
        Ok(data) => data,
        Err(e) => {
            // A newer ctxmon may have changed the shape; say so rather than "corrupt".
            if let Some(version) = future_version(&bytes) {
                return Err(future(path, version));
            }
            return Err(invalid(path, format_args!("corrupt checkpoint JSON ({e})")));
        }
    };
    if data.schema_version > CheckpointData::SCHEMA_VERSION {
        return Err(future(path, data.schema_version));
    }
    if data.checkpoint_id != id {
        return Err(invalid(
            path,
            format_args!(
                "holds checkpoint {} under the name of {id}",
                data.checkpoint_id
            ),
        ));
    }
    Ok(data)
}

fn future(path: &Path, version: u32) -> PortError {
    invalid(
        path,
        format_args!(
            "schema version {version} is newer than this ctxmon understands ({}); upgrade ctxmon to read it",
            CheckpointData::SCHEMA_VERSION
        ),
    )
}

/// The schema version of a document that did not parse as a checkpoint, when it is one from the
/// future.
fn future_version(bytes: &[u8]) -> Option<u32> {
    #[derive(Deserialize)]
    struct Probe {
        schema_version: u32,
    }
    let probe: Probe = serde_json::from_slice(bytes).ok()?;
    (probe.schema_version > CheckpointData::SCHEMA_VERSION).then_some(probe.schema_version)
}

/// The number a bookkeeping file (`.next-id`, a session's `.seq-*`) records; `None` when it is
/// absent or unreadable, in which case what the names (or older checkpoints) say decides.
pub(super) fn read_number(path: &Path) -> Option<u64> {
    // Never a FIFO: opening one would block the checkpoint's lock holder.
    let (file, _) = crate::fsutil::open_regular(path).ok()?;
    let mut text = String::new();
    // A handful of digits; the bound keeps a planted huge file from costing anything.
    file.take(32).read_to_string(&mut text).ok()?;
    text.trim().parse::<u64>().ok()
}

/// True when the marker exists in any form; its content never matters.
pub(super) fn exists(path: &Path) -> Result<bool, PortError> {
    match fs::symlink_metadata(path) {
        Ok(_) => Ok(true),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(io_error(path, &e)),
    }
}

/// How many checkpoint files this thread has tried to read: what the tests that bound a save's
/// cost count (each unit test runs on a thread of its own).
#[cfg(test)]
pub(super) mod counter {
    use std::cell::Cell;

    thread_local! {
        static READS: Cell<usize> = const { Cell::new(0) };
    }

    pub fn count() {
        READS.with(|r| r.set(r.get() + 1));
    }

    /// The reads since the last call.
    pub fn take() -> usize {
        READS.with(|r| r.replace(0))
    }
}
