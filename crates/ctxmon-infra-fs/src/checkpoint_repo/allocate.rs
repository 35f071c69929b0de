//! Which id a new checkpoint gets: one past the highest ever given, so an id never comes back
//! after a prune, and never one that a single planted file could push to the end of the range.
//!
//! Two records say how far ids went: `.next-id` (written after every save, durably before a
//! prune) and the names of the checkpoints that exist (the safety net when `.next-id` lags or
//! is lost). Neither is taken on trust:
//! - a name counts only when its file parses as a checkpoint of that id (an empty file, or a
//!   marker, claims nothing), and only the names at or past `.next-id` are read, so a normal
//!   save reads no checkpoint at all;
//! - `.next-id` counts only within [`MAX_ID_JUMP`] of the highest name, and a name only within
//!   [`MAX_ID_JUMP`] of a `.next-id` that counts: no legitimate folder is that far apart (a
//!   project would need a million compactions), while a planted number or file is.
//!
//! A checkpoint that takes cx-999999999 (one file, planted or copied, in a folder without
//! `.next-id`) still leaves every id below it: the next id is then the one after the highest
//! checkpoint below a gap (the lowest free id when there is none), and the save says so in the
//! hook log, naming the file. Only a folder with no id left free fails, naming that file.

use std::path::{Path, PathBuf};

use ctxmon_application::ports::{PortError, PortErrorKind};
use ctxmon_domain::CheckpointId;

use super::folder::{NEXT_ID_NAME, Scan};
use super::read;

/// `CheckpointId` parses at most nine digits, so a larger sequence could never be read back.
pub(super) const MAX_SEQUENCE: u64 = 999_999_999;
/// How far `.next-id` and the highest checkpoint name may disagree and both still count.
pub(super) const MAX_ID_JUMP: u64 = 1_000_000;
/// How many names at or past `.next-id` a save reads to find one that is a checkpoint:
/// garbage planted above costs a few reads, never a scan of the folder.
const MAX_TOP_READS: usize = 16;

/// The id to give, and the file whose claim decided it (for the message when ids run out).
#[derive(Debug)]
pub(super) struct Next {
    pub sequence: u64,
    pub decided_by: Option<PathBuf>,
    /// The id the records asked for, when it was past the last one and a free id below was
    /// given instead.
    pub past_the_end: Option<u64>,
}

/// One past the highest id the folder's records support (see the module documentation).
pub(super) fn next(dir: &Path, scan: &Scan) -> Next {
    let next_id_path = dir.join(NEXT_ID_NAME);
    let top_name = scan
        .checkpoints
        .last()
        .map_or(0, |id| u64::from(id.sequence()));
    let recorded = read::read_number(&next_id_path)
        .filter(|&r| r >= 1 && r <= top_name.saturating_add(1 + MAX_ID_JUMP));
    let ceiling = recorded.map_or(u64::MAX, |r| r.saturating_add(MAX_ID_JUMP));
    let floor = recorded.unwrap_or(1);
    let mut next = Next {
        sequence: floor,
        decided_by: recorded.map(|_| next_id_path),
        past_the_end: None,
    };
    let candidates = scan
        .checkpoints
        .iter()
        .rev()
        .map(|id| u64::from(id.sequence()))
        .skip_while(|&n| n >= ceiling)
        .take_while(|&n| n >= floor)
        .take(MAX_TOP_READS);
    for n in candidates {
        let Some(id) = u32::try_from(n).ok().and_then(CheckpointId::new) else {
            continue;
        };
        let path = dir.join(id.file_name());
        if read::read_checkpoint(&path, id).is_ok() {
            next = Next {
                sequence: n + 1,
                decided_by: Some(path),
                past_the_end: None,
            };
            break;
        }
    }
    // A file under the chosen name that is not a checkpoint (damaged, planted) is not
    // overwritten: the id after it is free.
    while u32::try_from(next.sequence)
        .ok()
        .and_then(CheckpointId::new)
        .is_some_and(|id| scan.checkpoints.contains(&id))
    {
        next.sequence += 1;
    }
    if next.sequence > MAX_SEQUENCE
        && let Some(free) = below_a_gap(scan)
    {
        next.past_the_end = Some(std::mem::replace(&mut next.sequence, free));
    }
    next
}

/// Whether a checkpoint that stays when `gone` are removed proves, by its name and content,
/// that every id of `gone` was given: it is above all of them, reads as a checkpoint of its
/// id, and is close enough to them that the next save's reading of names counts it (within
/// [`MAX_ID_JUMP`]). The next save then gives an id past `gone` whatever `.next-id` says,
/// even lost, and a prune need not sync the high-water mark first (two fsyncs of its time).
pub(super) fn taken_beyond(dir: &Path, scan: &Scan, gone: &[CheckpointId]) -> bool {
    let Some(&highest) = gone.iter().max() else {
        return true;
    };
    let reach = u64::from(highest.sequence()).saturating_add(MAX_ID_JUMP);
    scan.checkpoints
        .iter()
        .rev()
        .take_while(|id| **id > highest)
        .filter(|id| u64::from(id.sequence()) < reach && !gone.contains(id))
        .take(MAX_TOP_READS)
        .any(|&id| read::read_checkpoint(&dir.join(id.file_name()), id).is_ok())
}

/// The id after the highest checkpoint whose successor is free and in range, else the lowest
/// free id: what is left when the top of the range is taken. An id given here may be one a
/// prune freed, which is better than no checkpoint at all; the log says it happened.
fn below_a_gap(scan: &Scan) -> Option<u64> {
    let taken = |n: u64| {
        u32::try_from(n)
            .ok()
            .and_then(CheckpointId::new)
            .is_some_and(|id| scan.checkpoints.contains(&id))
    };
    scan.checkpoints
        .iter()
        .rev()
        .map(|id| u64::from(id.sequence()) + 1)
        .find(|&n| n <= MAX_SEQUENCE && !taken(n))
        .or_else(|| (1..=MAX_SEQUENCE).find(|&n| !taken(n)))
}

/// The hook log's line for a save that gave an id below a checkpoint at the end of the range.
pub(super) fn past_the_end_note(dir: &Path, next: &Next) -> Option<String> {
    next.past_the_end?;
    let culprit = next
        .decided_by
        .as_ref()
        .map_or_else(|| dir.display().to_string(), |p| p.display().to_string());
    Some(format!(
        "{culprit} claims the last checkpoint id ctxmon can give, so cx-{:03} was given after the highest checkpoint below it; if ctxmon did not write that file, move it out of {}",
        next.sequence,
        dir.display()
    ))
}

/// The id for `next`, or the error saying that ids ran out and which file took the last one.
pub(super) fn checked(dir: &Path, next: &Next) -> Result<CheckpointId, PortError> {
    u32::try_from(next.sequence)
        .ok()
        .filter(|_| next.sequence <= MAX_SEQUENCE)
        .and_then(CheckpointId::new)
        .ok_or_else(|| {
            let culprit = next
                .decided_by
                .as_ref()
                .map_or_else(|| dir.display().to_string(), |p| p.display().to_string());
            PortError::new(
                PortErrorKind::InvalidData,
                format!(
                    "checkpoint ids are exhausted: {culprit} claims cx-{}, the last id ctxmon can give; if ctxmon did not write that file, move it out of {}",
                    next.sequence - 1,
                    dir.display()
                ),
            )
        })
}
