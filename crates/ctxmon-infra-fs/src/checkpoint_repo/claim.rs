//! `cx-NNN.alerting`: a prompt's claim to give a checkpoint's alert, held until the answer
//! carrying it has been written and the checkpoint acknowledged.
//!
//! Acknowledging first and alerting after lost the alert whenever the answer never left the
//! process (a deadline, a closed stdout): the marker said "told" and nobody was. The claim
//! says only "being told, until then": a concurrent prompt leaves the alert to its holder, and
//! once the time it names has passed (its holder answered nothing, or died), the next prompt
//! claims it again. The file holds that time, in milliseconds; taken and replaced under the
//! folder's lock.

use std::path::Path;

use ctxmon_application::ports::PortError;
use ctxmon_domain::{CheckpointId, Timestamp};

use super::folder::claim_name;
use super::read;
use crate::fsutil::{Durability, io_error, write_atomic};

/// True when the caller now holds the claim on `id`'s alert until `until` (from `now`): not
/// when the checkpoint (`checkpoint`) is gone, another's claim runs, or its marker (`marker`)
/// says the alert was given. Run under the folder's lock.
///
/// Pruned since the prompt found it, the checkpoint took its marker with it: not to be
/// alerted again. The claim is read before the marker: acknowledging takes no lock, and it
/// creates the marker and only then removes the holder's claim, so a claim found gone means a
/// marker already there to see. Read the other way round, a prompt saw no marker, the holder
/// acknowledged and removed its claim, and the prompt gave the alert a second time.
pub(super) fn take_unless_told(
    dir: &Path,
    id: CheckpointId,
    (now, until): (Timestamp, Timestamp),
    checkpoint: &Path,
    marker: &Path,
) -> Result<bool, PortError> {
    if !read::exists(checkpoint)? || held(dir, id, now) || read::exists(marker)? {
        return Ok(false);
    }
    take(dir, id, until).map(|()| true)
}

/// Whether another's claim on `id`'s alert runs past `now`. A claim that cannot be read
/// (damaged, planted) has run out.
fn held(dir: &Path, id: CheckpointId, now: Timestamp) -> bool {
    read::read_number(&dir.join(claim_name(id)))
        .and_then(|ms| i64::try_from(ms).ok())
        .is_some_and(|ms| ms > now.millis())
}

/// Takes the claim on `id`'s alert until `until` (the caller found it not [`held`]).
fn take(dir: &Path, id: CheckpointId, until: Timestamp) -> Result<(), PortError> {
    let path = dir.join(claim_name(id));
    let text = format!("{}\n", until.millis().max(0));
    write_atomic(&path, text.as_bytes(), Durability::RenameOnly).map_err(|e| io_error(&path, &e))
}
