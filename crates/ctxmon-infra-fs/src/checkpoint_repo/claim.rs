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

/// True when the caller now holds the claim on `id`'s alert until `until`; false while
/// another's runs. A claim that cannot be read (damaged, planted) has run out.
pub(super) fn take(
    dir: &Path,
    id: CheckpointId,
    now: Timestamp,
    until: Timestamp,
) -> Result<bool, PortError> {
    let path = dir.join(claim_name(id));
    let held_until = read::read_number(&path).and_then(|ms| i64::try_from(ms).ok());
    if held_until.is_some_and(|ms| ms > now.millis()) {
        return Ok(false);
    }
    let text = format!("{}\n", until.millis().max(0));
    write_atomic(&path, text.as_bytes(), Durability::RenameOnly)
        .map_err(|e| io_error(&path, &e))?;
    Ok(true)
}
