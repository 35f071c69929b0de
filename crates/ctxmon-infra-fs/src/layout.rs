//! Where ctxmon keeps its files inside a project (contract C12), and the one place that creates
//! `.ctxmon` and the folders below it.
//!
//! Nothing inside `.ctxmon` is followed through a symbolic link when written, appended, locked
//! or deleted: a cloned repository can commit links (`.ctxmon/checkpoints -> /somewhere`), and
//! a hook must not write or delete through them. Files are opened with `O_NOFOLLOW`
//! (`fsutil::open_append`) or created under fresh names and renamed into place
//! (`fsutil::write_atomic`), which never follows a link either; the folders are checked here,
//! before every write, with `symlink_metadata` (a link a concurrent process swaps in between
//! the check and the write is outside what this guards: a committed link is there before any
//! hook runs). A `.ctxmon` that is itself a link is the user's
//! way to keep the state elsewhere (another disk) and is followed, but only to a folder the
//! current user owns outside the project: not the project, one of its parents (`/` among
//! them), a folder inside it (`.ctxmon -> src` would mix the state with the sources), nor the
//! home folder itself (its `.claude`, `.codex` and dotfiles are not ctxmon's to write among).

use std::fs;
use std::io::{self, Write};
use std::path::{Component, Path, PathBuf};

use ctxmon_application::ports::{PortError, PortErrorKind};
use ctxmon_domain::SessionKey;
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::fsutil::{Durability, io_error, write_atomic};

/// What `.ctxmon/.gitignore` holds when ctxmon creates the folder: everything in it stays out
/// of version control (prompts, commands run and their errors are in there), as pytest and ruff
/// do with their cache folders. People who want to share a file list it after a `!`.
pub const GITIGNORE: &str = "*\n";

/// The `.ctxmon` folder of one project and the paths inside it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProjectLayout {
    project_dir: PathBuf,
    root: PathBuf,
    /// Why `.ctxmon` must not be created here, when it must not (see [`Self::refusing_to_create`]).
    no_create: Option<String>,
    /// The user's home folder, which a linked `.ctxmon` must not lead to ([`Self::with_home`]).
    home: Option<PathBuf>,
}

impl ProjectLayout {
    pub fn new(project_dir: impl Into<PathBuf>) -> ProjectLayout {
        let project_dir = project_dir.into();
        let root = project_dir.join(".ctxmon");
        ProjectLayout {
            project_dir,
            root,
            no_create: None,
            home: None,
        }
    }

    /// The user's home folder (the composition root reads the environment): a `.ctxmon` that
    /// is a link to it is refused, as one to the project or a folder of it is.
    pub fn with_home(mut self, home: Option<PathBuf>) -> ProjectLayout {
        self.home = home;
        self
    }

    /// A layout that uses an existing `.ctxmon` but never creates one: for a project directory
    /// nobody named on purpose that is `/` or the home folder (the composition root decides).
    /// `reason` is the error every write then reports.
    pub fn refusing_to_create(mut self, reason: impl Into<String>) -> ProjectLayout {
        self.no_create = Some(reason.into());
        self
    }

    pub fn project_dir(&self) -> &Path {
        &self.project_dir
    }

    /// Writes `value` as JSON to `path` in `dir`, a folder below `.ctxmon`: the folder is
    /// checked (and made) first, a link refused, and the file replaced by rename, which never
    /// follows a link. A temp file of a writer killed mid-write stays, invisible to readers:
    /// nothing says it is not someone else's. The session state and the status line's payload
    /// check are saved this way.
    pub fn save_json<T: Serialize>(
        &self,
        dir: &Path,
        path: &Path,
        value: &T,
    ) -> Result<(), PortError> {
        let bytes = serde_json::to_vec_pretty(value)
            .map_err(|e| PortError::new(PortErrorKind::InvalidData, e.to_string()))?;
        self.ensure_dir(dir).map_err(|e| io_error(dir, &e))?;
        write_atomic(path, &bytes, Durability::RenameOnly).map_err(|e| io_error(path, &e))
    }

    /// Reads a small JSON record ctxmon wrote with [`Self::save_json`]: `Ok(None)` when it (or
    /// its folder) is missing; an error for anything that is not a regular file of at most
    /// `max_bytes`, does not parse, or carries a `schema_version` (given by `version`) newer
    /// than `known`, since its fields may mean something this ctxmon does not know.
    pub fn load_json<T: DeserializeOwned>(
        &self,
        path: &Path,
        max_bytes: u64,
        version: impl Fn(&T) -> u32,
        known: u32,
    ) -> Result<Option<T>, PortError> {
        let meta = match fs::metadata(path) {
            Ok(m) => m,
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::NotFound | io::ErrorKind::NotADirectory
                ) =>
            {
                return Ok(None);
            }
            Err(e) => return Err(io_error(path, &e)),
        };
        if !meta.is_file() || meta.len() > max_bytes {
            return Err(PortError::new(
                PortErrorKind::InvalidData,
                format!("{} is not a record ctxmon wrote", path.display()),
            ));
        }
        let bytes = fs::read(path).map_err(|e| io_error(path, &e))?;
        let record: T = serde_json::from_slice(&bytes).map_err(|e| {
            PortError::new(
                PortErrorKind::InvalidData,
                format!("{}: {e}", path.display()),
            )
        })?;
        let found = version(&record);
        if found > known {
            return Err(PortError::new(
                PortErrorKind::InvalidData,
                format!(
                    "{} has schema version {found} (this ctxmon knows {known})",
                    path.display()
                ),
            ));
        }
        Ok(Some(record))
    }

    /// Makes sure `dir` (`.ctxmon` or a folder inside it) is a real folder ctxmon may write in,
    /// creating what is missing (mode 0700), but never the project directory: ctxmon only
    /// creates `.ctxmon` and below inside a project that exists, so a wrong `cwd` or
    /// `--project-dir` cannot leave folders all over the disk. A missing project is `NotFound`
    /// with a message that names it.
    ///
    /// Every folder below `.ctxmon` must be a real folder: a symbolic link is refused
    /// (`PermissionDenied`, naming it), so nothing is written or deleted through it. `.ctxmon`
    /// itself may be a link (see the module's documentation). When ctxmon creates `.ctxmon`, it
    /// writes `.ctxmon/.gitignore` ([`GITIGNORE`]); a folder that exists is never given one.
    pub fn ensure_dir(&self, dir: &Path) -> io::Result<()> {
        let below = dir.strip_prefix(&self.root).map_err(|_| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("{} is not inside {}", dir.display(), self.root.display()),
            )
        })?;
        self.ensure_root()?;
        let mut current = self.root.clone();
        for part in below.components() {
            let Component::Normal(name) = part else {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    format!("{} is not a plain folder name", dir.display()),
                ));
            };
            current.push(name);
            ensure_real_dir(&current)?;
        }
        Ok(())
    }

    fn ensure_root(&self) -> io::Result<()> {
        match fs::symlink_metadata(&self.root) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => self.create_root(),
            Err(e) => Err(e),
            Ok(meta) => self.check_existing_root(&meta),
        }
    }

    fn check_existing_root(&self, meta: &fs::Metadata) -> io::Result<()> {
        if meta.is_dir() {
            return Ok(());
        }
        if meta.file_type().is_symlink() {
            return self.check_linked_root();
        }
        Err(not_a_folder(&self.root, meta))
    }

    /// A `.ctxmon` the user made a link (to keep the state on another disk, say) is followed
    /// when it leads to a folder the current user owns outside the project: a link committed
    /// to a repository and pointing at `/`, `..`, the home folder, a folder of the project
    /// (`src`) or a folder of someone else is refused, before anything is created there.
    fn check_linked_root(&self) -> io::Result<()> {
        let refuse = |why: String| {
            io::Error::new(
                io::ErrorKind::PermissionDenied,
                format!(
                    "{} is a symbolic link {why}; ctxmon follows a linked .ctxmon only to a folder you own outside the project",
                    self.root.display()
                ),
            )
        };
        let target = match fs::metadata(&self.root) {
            Ok(meta) if meta.is_dir() => meta,
            Ok(meta) => return Err(refuse(format!("to {}", crate::fsutil::kind_of(&meta)))),
            Err(e) => return Err(refuse(format!("that leads nowhere ({e})"))),
        };
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            let me = rustix::process::geteuid().as_raw();
            if target.uid() != me {
                return Err(refuse(format!(
                    "to a folder owned by user {} (you are {me})",
                    target.uid()
                )));
            }
        }
        #[cfg(not(unix))]
        let _ = target;
        let (Ok(resolved), Ok(project)) = (
            fs::canonicalize(&self.root),
            fs::canonicalize(&self.project_dir),
        ) else {
            return Err(refuse("that cannot be resolved".to_string()));
        };
        if project.starts_with(&resolved) {
            return Err(refuse(format!(
                "to {}, which holds the project itself",
                resolved.display()
            )));
        }
        if resolved.starts_with(&project) {
            return Err(refuse(format!(
                "to {}, a folder inside the project",
                resolved.display()
            )));
        }
        let home = self.home.as_ref().and_then(|h| fs::canonicalize(h).ok());
        if home.as_ref() == Some(&resolved) {
            return Err(refuse(format!(
                "to {}, your home folder",
                resolved.display()
            )));
        }
        Ok(())
    }

    fn create_root(&self) -> io::Result<()> {
        if !self.project_dir.is_dir() {
            return Err(io::Error::new(
                io::ErrorKind::NotFound,
                format!(
                    "project directory {} does not exist",
                    self.project_dir.display()
                ),
            ));
        }
        if let Some(reason) = &self.no_create {
            return Err(io::Error::new(io::ErrorKind::NotFound, reason.clone()));
        }
        match create_private_dir(&self.root) {
            Ok(()) => {
                write_gitignore(&self.root);
                Ok(())
            }
            // Another hook created it first (and wrote the .gitignore).
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                self.check_existing_root(&fs::symlink_metadata(&self.root)?)
            }
            Err(e) => Err(e),
        }
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
    /// When the session's user last sent a prompt (milliseconds since the epoch), apart from
    /// the state: it changes on every prompt.
    pub fn last_prompt_file(&self, session: &SessionKey) -> PathBuf {
        self.state_dir()
            .join(format!("{}.last-prompt", session.as_str()))
    }
    /// The lock that serialises one session's hooks (load → modify → save of its state).
    pub fn state_lock(&self, session: &SessionKey) -> PathBuf {
        self.state_dir().join(format!("{}.lock", session.as_str()))
    }
    /// The status line's latest payload comparison per session.
    pub fn status_line_dir(&self) -> PathBuf {
        self.root.join("status-line")
    }
    /// Session keys are validated or hashed, so this never leaves `status-line/`.
    pub fn status_line_file(&self, session: &SessionKey) -> PathBuf {
        self.status_line_dir()
            .join(format!("{}.json", session.as_str()))
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
    /// The agents' own resumption notes, one per session: written by the agent, read by
    /// ctxmon at each checkpoint.
    pub fn notes_dir(&self) -> PathBuf {
        self.root.join("notes")
    }
    /// Session keys are validated or hashed, so this never leaves `notes/`.
    pub fn note_file(&self, session: &SessionKey) -> PathBuf {
        self.notes_dir().join(format!("{}.md", session.as_str()))
    }
    pub fn hooks_log(&self) -> PathBuf {
        self.logs_dir().join("hooks.log")
    }
    /// What the project's other Claude Code transcripts showed of their automatic
    /// compactions (`claude_history`).
    pub fn compaction_history_file(&self) -> PathBuf {
        self.root.join("compaction-history.json")
    }
}

/// `dir` (below `.ctxmon`) as a real folder: created (0700) when missing, refused when it is a
/// link or anything but a folder.
fn ensure_real_dir(dir: &Path) -> io::Result<()> {
    let meta = match fs::symlink_metadata(dir) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => match create_private_dir(dir) {
            Ok(()) => return Ok(()),
            // Created meanwhile by another process: look at what is there now.
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => fs::symlink_metadata(dir)?,
            Err(e) => return Err(e),
        },
        other => other?,
    };
    if meta.is_dir() {
        Ok(())
    } else if meta.file_type().is_symlink() {
        Err(crate::fsutil::symlink_refused(dir))
    } else {
        Err(not_a_folder(dir, &meta))
    }
}

fn not_a_folder(dir: &Path, meta: &fs::Metadata) -> io::Error {
    io::Error::new(
        io::ErrorKind::AlreadyExists,
        format!(
            "{} is {}, not a folder",
            dir.display(),
            crate::fsutil::kind_of(meta)
        ),
    )
}

/// One folder (its parent exists), mode 0700 (contract C15). `mkdir` never follows a link: an
/// existing name of any kind is `AlreadyExists`.
fn create_private_dir(dir: &Path) -> io::Result<()> {
    let mut builder = fs::DirBuilder::new();
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        builder.mode(0o700);
    }
    builder.create(dir)
}

/// `.ctxmon/.gitignore` in a `.ctxmon` this process has just created: `create_new` (and
/// `O_NOFOLLOW`), so nothing that exists is replaced. Best effort: the folder is usable
/// without it, and a folder that exists is never given one later (a user may have removed it
/// on purpose).
fn write_gitignore(root: &Path) {
    let mut options = fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
        options.custom_flags(libc::O_NOFOLLOW);
    }
    if let Ok(mut file) = options.open(root.join(".gitignore")) {
        let _ = file.write_all(GITIGNORE.as_bytes());
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

#[cfg(test)]
#[cfg(unix)]
mod link_tests;
