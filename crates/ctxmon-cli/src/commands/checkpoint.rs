//! `ctxmon checkpoint list|show ID|ack ID|prune --keep N`: inspect and maintain the checkpoints
//! PreCompact writes to `.ctxmon/checkpoints/`.
//!
//! An id is typed as `4`, `cx-4` or `cx-004`; anything else is a usage error (exit 2) and never
//! reaches a path; an id with no checkpoint, or a folder ctxmon cannot read or write, is exit 1.
//! `list` shows the newest first, like `resume-log list`; `show` prints a page for people
//! (`text.rs`) and the whole checkpoint with `--json`. Files `list` cannot use are
//! named on stderr and skipped: one bad file never hides the others; `show` and `ack` refuse
//! them (exit 1) and `prune` neither counts nor deletes them.

use std::path::Path;

use anyhow::anyhow;
use ctxmon_application::handoff::checkpoint_ack::acknowledge_checkpoint;
use ctxmon_application::ports::{CheckpointRepository, PortErrorKind, StoredCheckpoint};
use ctxmon_domain::CheckpointId;
use ctxmon_infra_fs::{FsCheckpointRepository, FsEventLog, ProjectLayout, SystemClock};
use serde_json::{Value, json};

use crate::bootstrap;
use crate::cli::{CheckpointCommand, GlobalArgs};
use crate::commands::output::{clip, emit, note, storage};
use crate::exit::{CmdResult, Failure};
use crate::json_out;

mod text;

pub fn run(cmd: CheckpointCommand, global: &GlobalArgs) -> CmdResult {
    let layout = bootstrap::existing_project(global)?.layout();
    let repo = FsCheckpointRepository::new(layout.clone());
    match cmd {
        CheckpointCommand::List => list(&repo, global.json),
        CheckpointCommand::Show { id } => show(&repo, &parse_id(&id)?, global.json),
        CheckpointCommand::Ack { id } => ack(&repo, &layout, parse_id(&id)?, global.json),
        CheckpointCommand::Prune { keep } => prune(&repo, keep, global.json),
    }
}

fn parse_id(text: &str) -> Result<CheckpointId, Failure> {
    CheckpointId::parse_short(text).ok_or_else(|| {
        Failure::usage(anyhow!(
            "invalid checkpoint id {:?}: expected its number, like 4, cx-4 or cx-004 (`ctxmon checkpoint list` shows the ids)",
            clip(text, 40)
        ))
    })
}

fn list(repo: &FsCheckpointRepository, json: bool) -> CmdResult {
    let mut listing = repo.list().map_err(storage)?;
    for problem in &listing.problems {
        note(problem);
    }
    // The repository lists by sequence; people and scripts get the newest first, as
    // `resume-log list` shows its logs.
    listing.checkpoints.reverse();
    if json {
        let items = listing
            .checkpoints
            .iter()
            .map(stored_json)
            .collect::<Result<Vec<_>, _>>()?;
        json_out::print(&Value::Array(items))
    } else if listing.checkpoints.is_empty() {
        emit(&format!("no checkpoints in {}", repo.dir().display()))
    } else {
        emit(text::table(&listing.checkpoints).trim_end())
    }
}

fn show(repo: &FsCheckpointRepository, id: &CheckpointId, json: bool) -> CmdResult {
    let stored = repo
        .get(*id)
        .map_err(storage)?
        .ok_or_else(|| not_found(*id, &repo.dir()))?;
    if json {
        json_out::print(&stored_json(&stored)?)
    } else {
        let file = repo.dir().join(id.file_name());
        emit(text::page(&stored, &file.display().to_string()).trim_end())
    }
}

/// Refuses a checkpoint it cannot read (the same reason `show` gives, no marker written), and
/// records `CheckpointAcknowledged` in `.ctxmon/events.jsonl` like the hooks do.
fn ack(
    repo: &FsCheckpointRepository,
    layout: &ProjectLayout,
    id: CheckpointId,
    json: bool,
) -> CmdResult {
    let events = FsEventLog::new(layout.clone());
    let outcome = match acknowledge_checkpoint(repo, &events, &SystemClock, id) {
        Ok(outcome) => outcome,
        Err(e) if e.kind == PortErrorKind::NotFound => return Err(not_found(id, &repo.dir())),
        Err(e) if e.kind == PortErrorKind::InvalidData => {
            return Err(Failure::Other(anyhow!(
                "cannot acknowledge {id}: {e}; nothing was written (`ctxmon checkpoint list` names every unreadable file)"
            )));
        }
        Err(e) => return Err(storage(e)),
    };
    for w in &outcome.warnings {
        note(&format!("warning: {w}"));
    }
    let created = outcome.created;
    if json {
        json_out::print(
            &json!({"id": id.to_string(), "acknowledged": true, "already_acknowledged": !created})
                .to_string(),
        )
    } else if created {
        emit(&format!("acknowledged {id}"))
    } else {
        emit(&format!("{id} was already acknowledged"))
    }
}

/// `--keep 0` is allowed and deletes every checkpoint: it is what a user clearing the folder
/// means, and ids still never repeat afterwards. Only checkpoints ctxmon can read count and
/// go; unreadable ones are named on stderr (and in `--json`'s `unreadable`) and left alone.
fn prune(repo: &FsCheckpointRepository, keep: u64, json: bool) -> CmdResult {
    let keep = usize::try_from(keep).unwrap_or(usize::MAX);
    let outcome = repo.prune(keep).map_err(storage)?;
    for problem in &outcome.unreadable {
        note(problem);
    }
    let pruned = outcome.pruned;
    if json {
        let ids: Vec<String> = pruned.iter().map(ToString::to_string).collect();
        return json_out::print(
            &json!({"pruned": ids, "keep": keep, "unreadable": outcome.unreadable}),
        );
    }
    let kept = if keep == 0 {
        "kept none".to_string()
    } else {
        format!("kept the newest {keep}")
    };
    let text = match pruned.as_slice() {
        [] => format!("nothing to prune ({kept})"),
        [only] => format!("pruned 1 checkpoint: {only} ({kept})"),
        [first, .., last] if pruned.len() > 8 => format!(
            "pruned {} checkpoints, {first} to {last} ({kept})",
            pruned.len()
        ),
        ids => {
            let names: Vec<String> = ids.iter().map(ToString::to_string).collect();
            format!(
                "pruned {} checkpoints: {} ({kept})",
                ids.len(),
                names.join(", ")
            )
        }
    };
    emit(&text)
}

/// The stored data with its acknowledgement, as one JSON object.
fn stored_json(stored: &StoredCheckpoint) -> Result<Value, Failure> {
    let mut value = serde_json::to_value(&stored.data).map_err(|e| Failure::Other(anyhow!(e)))?;
    if let Some(object) = value.as_object_mut() {
        object.insert("acknowledged".into(), stored.acknowledged.into());
    }
    Ok(value)
}

fn not_found(id: CheckpointId, dir: &Path) -> Failure {
    Failure::Other(anyhow!(
        "no checkpoint {id} in {}; `ctxmon checkpoint list` shows the ids there are",
        dir.display()
    ))
}
