//! Where ctxmon keeps its files inside a project (spec §12).

use std::io;
use std::path::{Path, PathBuf};

use ctxmon_domain::SessionKey;

/// The `.ctxmon` folder of one project and the paths inside it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProjectLayout {
    project_dir: PathBuf,
    root: PathBuf,
}

impl ProjectLayout {
    pub fn new(project_dir: impl Into<PathBuf>) -> ProjectLayout {
        let project_dir = project_dir.into();
        let root = project_dir.join(".ctxmon");
        ProjectLayout { project_dir, root }
    }

    pub fn project_dir(&self) -> &Path {
        &self.project_dir
    }

    /// Creates `dir` (a folder inside `.ctxmon`) and its missing parents, mode 0700, but never
    /// the project directory: ctxmon only creates `.ctxmon` and below inside a project that
    /// exists, so a wrong `cwd` or `--project-dir` cannot leave folders all over the disk.
    /// A missing project is `NotFound` with a message that names it.
    pub fn ensure_dir(&self, dir: &Path) -> io::Result<()> {
        if dir.is_dir() {
            return Ok(());
        }
        if !self.project_dir.is_dir() {
            return Err(io::Error::new(
                io::ErrorKind::NotFound,
                format!(
                    "project directory {} does not exist",
                    self.project_dir.display()
                ),
            ));
        }
        crate::fsutil::ensure_private_dir(dir)
    }
    pub fn root(&self) -> &Path {
        &self.root
    }
    pub fn state_dir(&self) -> PathBuf {
        self.root.join("state")
    }
    /// Session keys are validated or hashed, so this never leaves `state/`.
    pub fn state_file(&self, session: &SessionKey) -> PathBuf {
        self.state_dir().join(format!("{}.json", session.as_str()))
    }
    /// The lock that serialises one session's hooks (load → modify → save of its state).
    pub fn state_lock(&self, session: &SessionKey) -> PathBuf {
        self.state_dir().join(format!("{}.lock", session.as_str()))
    }
    pub fn events_file(&self) -> PathBuf {
        self.root.join("events.jsonl")
    }
    pub fn events_lock(&self) -> PathBuf {
        self.root.join(".events.lock")
    }
    pub fn checkpoints_dir(&self) -> PathBuf {
        self.root.join("checkpoints")
    }
    pub fn resume_logs_dir(&self) -> PathBuf {
        self.root.join("resume-logs")
    }
    pub fn logs_dir(&self) -> PathBuf {
        self.root.join("logs")
    }
    pub fn hooks_log(&self) -> PathBuf {
        self.logs_dir().join("hooks.log")
    }
}

#[cfg(test)]
mod tests {
    use ctxmon_application::ports::{
        CheckpointRepository, EventLog, PortErrorKind, ResumeLogStore, SessionStateStore,
    };
    use ctxmon_domain::{
        ContextMetrics, DomainEvent, EventRecord, ResumeLog, SessionKey, SessionState, Timestamp,
    };

    use super::*;
    use crate::{FsCheckpointRepository, FsEventLog, FsResumeLogStore, FsSessionStateStore};

    #[test]
    fn ensure_dir_creates_inside_an_existing_project_only() {
        let tmp = tempfile::tempdir().unwrap();
        let layout = ProjectLayout::new(tmp.path());
        layout.ensure_dir(&layout.state_dir()).unwrap();
        assert!(layout.state_dir().is_dir());

        let missing = ProjectLayout::new(tmp.path().join("no/such/project"));
        let e = missing.ensure_dir(&missing.state_dir()).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::NotFound);
        assert!(
            e.to_string().contains("no/such/project does not exist"),
            "{e}"
        );
        assert!(!tmp.path().join("no").exists());
    }

    /// Every store that writes refuses a missing project instead of creating it (a hook with a
    /// wrong `cwd` must not leave folders behind); reads find nothing.
    #[test]
    fn no_store_creates_a_missing_project() {
        let tmp = tempfile::tempdir().unwrap();
        let layout = ProjectLayout::new(tmp.path().join("gone"));
        let key = SessionKey::from_raw("s");

        let states = FsSessionStateStore::new(layout.clone());
        assert_eq!(states.load(&key).unwrap(), None);
        let e = states.save(&key, &SessionState::default()).unwrap_err();
        assert_eq!(e.kind, PortErrorKind::NotFound);
        assert!(e.message.contains("does not exist"), "{e}");

        let event = EventRecord::new(
            Timestamp(0),
            None,
            DomainEvent::SessionEnded {
                reason: "other".into(),
            },
        );
        assert!(FsEventLog::new(layout.clone()).append(&[event]).is_err());

        let checkpoints = FsCheckpointRepository::new(layout.clone());
        assert_eq!(checkpoints.latest_unacknowledged(None).unwrap(), None);
        assert!(
            checkpoints
                .save_new(Some("s"), &mut |_| unreachable!())
                .is_err()
        );

        let log = ResumeLog::new(
            "s",
            ContextMetrics::new(200_000, 1, "manual", "m", Timestamp(0)),
        );
        let logs = FsResumeLogStore::new(layout.clone());
        assert!(logs.save(&log, &log.to_markdown()).is_err());

        assert!(!crate::HookLog::new(&layout, 0).write(Timestamp(0), "h", "warn", "x"));
        assert!(!tmp.path().join("gone").exists());
    }
}
