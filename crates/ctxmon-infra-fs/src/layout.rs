//! Where ctxmon keeps its files inside a project (spec §12).

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
