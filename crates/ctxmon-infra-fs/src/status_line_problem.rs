//! What went wrong on the status line's latest troubled run — no figure (`ctx --`) and why, or
//! a format it could not use — kept in `.ctxmon/status-line/.problem.json` for `ctxmon doctor`,
//! which sees no payload and no status-line stderr (Claude Code shows neither).
//!
//! The status line runs every 300 ms, so the record is rewritten only when what it says changes
//! or it is an hour old, and a run without a problem only removes it (one `unlink`, which finds
//! nothing almost always). Only inside a `.ctxmon` that exists: the status line never creates
//! one. The leading dot keeps it out of the per-session comparisons beside it
//! (`payload_check_store`).

use std::fs;
use std::io;

use ctxmon_application::ports::{PortError, PortErrorKind};
use ctxmon_domain::Timestamp;
use serde::{Deserialize, Serialize};

use crate::fsutil::{Durability, io_error, write_atomic};
use crate::layout::ProjectLayout;

/// A record is a few hundred bytes; anything larger is not one ctxmon wrote.
const MAX_RECORD_BYTES: u64 = 64 * 1024;
/// An unchanged record is rewritten after this long, so its time says the problem is current.
const REFRESH_MS: i64 = 60 * 60 * 1000;
const FILE_NAME: &str = ".problem.json";

/// One troubled run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StatusLineProblem {
    pub schema_version: u32,
    /// When it was seen (the first time, while it stays the same, within the hour).
    pub at: Timestamp,
    /// A stable code: `input`, `config`, `deadline`, `no-transcript`, `transcript`,
    /// `no-response-yet`, `scan-limit`, `format`.
    pub reason: String,
    /// For people: what was found and what to do.
    pub detail: String,
    #[serde(default)]
    pub session_id: Option<String>,
}

impl StatusLineProblem {
    pub const SCHEMA_VERSION: u32 = 1;
}

#[derive(Debug, Clone)]
pub struct FsStatusLineProblems {
    layout: ProjectLayout,
}

impl FsStatusLineProblems {
    pub fn new(layout: ProjectLayout) -> Self {
        FsStatusLineProblems { layout }
    }

    fn path(&self) -> std::path::PathBuf {
        self.layout.status_line_dir().join(FILE_NAME)
    }

    /// The latest problem, `Ok(None)` when the last runs had none (or there is no folder).
    pub fn load(&self) -> Result<Option<StatusLineProblem>, PortError> {
        let path = self.path();
        self.layout.load_json(
            &path,
            MAX_RECORD_BYTES,
            |p: &StatusLineProblem| p.schema_version,
            StatusLineProblem::SCHEMA_VERSION,
        )
    }

    /// Keeps `problem` unless the record already says the same (reason, detail and session)
    /// and is younger than an hour. Does nothing outside an existing `.ctxmon`.
    pub fn record(&self, problem: &StatusLineProblem) -> Result<(), PortError> {
        if !self.layout.root().is_dir() {
            return Ok(());
        }
        if let Ok(Some(old)) = self.load()
            && old.reason == problem.reason
            && old.detail == problem.detail
            && old.session_id == problem.session_id
            && problem.at.millis().saturating_sub(old.at.millis()) < REFRESH_MS
        {
            return Ok(());
        }
        let bytes = serde_json::to_vec_pretty(problem)
            .map_err(|e| PortError::new(PortErrorKind::InvalidData, e.to_string()))?;
        // As for the payload comparisons: the folder is checked (a link is refused) first, and
        // the file is replaced by rename, which never follows a link.
        let dir = self.layout.status_line_dir();
        self.layout
            .ensure_dir(&dir)
            .map_err(|e| io_error(&dir, &e))?;
        let path = self.path();
        write_atomic(&path, &bytes, Durability::RenameOnly).map_err(|e| io_error(&path, &e))
    }

    /// Forgets the problem: the latest run had none. Almost always there is nothing to forget,
    /// and one `lstat` says so; otherwise the folder is checked first (a planted link in its
    /// place is refused, as for every write), and removing a name never follows a link.
    pub fn clear(&self) -> Result<(), PortError> {
        let path = self.path();
        match fs::symlink_metadata(&path) {
            Ok(_) => {}
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::NotFound | io::ErrorKind::NotADirectory
                ) =>
            {
                return Ok(());
            }
            Err(e) => return Err(io_error(&path, &e)),
        }
        let dir = self.layout.status_line_dir();
        self.layout
            .ensure_dir(&dir)
            .map_err(|e| io_error(&dir, &e))?;
        match fs::remove_file(&path) {
            Ok(()) => Ok(()),
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::NotFound | io::ErrorKind::NotADirectory
                ) =>
            {
                Ok(())
            }
            Err(e) => Err(io_error(&path, &e)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn problem(at: i64, reason: &str) -> StatusLineProblem {
        StatusLineProblem {
            schema_version: 1,
            at: Timestamp(at),
            reason: reason.into(),
            detail: format!("{reason} detail"),
            session_id: Some("s".into()),
        }
    }

    #[test]
    fn kept_only_inside_an_existing_ctxmon_and_rewritten_only_on_change() {
        let dir = tempfile::tempdir().unwrap();
        let store = FsStatusLineProblems::new(ProjectLayout::new(dir.path()));
        store.record(&problem(1_000, "input")).unwrap();
        assert!(
            !dir.path().join(".ctxmon").exists(),
            "never creates .ctxmon"
        );
        std::fs::create_dir(dir.path().join(".ctxmon")).unwrap();
        store.record(&problem(1_000, "input")).unwrap();
        assert_eq!(store.load().unwrap(), Some(problem(1_000, "input")));
        store.record(&problem(2_000, "input")).unwrap();
        assert_eq!(
            store.load().unwrap().map(|p| p.at),
            Some(Timestamp(1_000)),
            "the same problem within the hour is not rewritten"
        );
        store.record(&problem(3_000, "config")).unwrap();
        assert_eq!(store.load().unwrap(), Some(problem(3_000, "config")));
        store
            .record(&problem(3_000 + REFRESH_MS, "config"))
            .unwrap();
        assert_eq!(
            store.load().unwrap().map(|p| p.at),
            Some(Timestamp(3_000 + REFRESH_MS))
        );
        store.clear().unwrap();
        assert_eq!(store.load().unwrap(), None);
        store.clear().unwrap();
        std::fs::write(store.path(), "{not json").unwrap();
        assert!(store.load().is_err());
    }

    /// A `status-line` folder replaced by a link (a cloned repository can commit one) is
    /// neither written through nor cleared through.
    #[cfg(unix)]
    #[test]
    fn a_planted_link_is_not_followed() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join(".ctxmon")).unwrap();
        std::os::unix::fs::symlink(outside.path(), dir.path().join(".ctxmon/status-line")).unwrap();
        let victim = outside.path().join(FILE_NAME);
        std::fs::write(&victim, "theirs").unwrap();
        let store = FsStatusLineProblems::new(ProjectLayout::new(dir.path()));
        assert!(store.clear().is_err());
        assert!(store.record(&problem(1, "input")).is_err());
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "theirs");
    }
}
