//! Ports for time, per-session state, the status line's payload comparison, the event log and
//! the files a handoff names (the agent's resumption note among them).

use ctxmon_domain::{EventRecord, PayloadCheck, SessionKey, SessionState, Timestamp};

use std::path::Path;

use super::PortError;

/// The only way time reaches the core.
pub trait Clock {
    /// The current time.
    fn now(&self) -> Timestamp;
}

/// Per-session monitor state (`.ctxmon/state/<session>.json`).
pub trait SessionStateStore {
    /// `Ok(None)` when the session has no state yet.
    fn load(&self, session: &SessionKey) -> Result<Option<SessionState>, PortError>;
    /// Replaces the session's state atomically: a reader sees the old or the new file, never a
    /// mix.
    fn save(&self, session: &SessionKey, state: &SessionState) -> Result<(), PortError>;
    /// Runs `work` holding `session`'s lock, so that one session's hooks (each loads, changes
    /// and saves the state) run one at a time. `Err` when the lock could not be taken within
    /// the store's wait, and `work` has not run. A store without concurrent writers (in
    /// memory) just runs it.
    fn with_lock(&self, _session: &SessionKey, work: &mut dyn FnMut()) -> Result<(), PortError> {
        work();
        Ok(())
    }

    /// When the session's user last sent a prompt ([`SessionState::last_prompt_at`]), which
    /// the store keeps apart from the state; `None` when it keeps none, or it cannot be read.
    fn last_prompt(&self, _session: &SessionKey) -> Option<Timestamp> {
        None
    }

    /// Keeps `at` as the session's last prompt: cheaply, since it changes on every prompt. A
    /// store without a place of its own for it keeps nothing (the default).
    fn save_last_prompt(&self, _session: &SessionKey, _at: Timestamp) -> Result<(), PortError> {
        Ok(())
    }
}

/// The status line's latest comparison of Claude Code's figure with ctxmon's, per session
/// (`.ctxmon/status-line/<session>.json`).
pub trait PayloadCheckStore {
    /// `Ok(None)` when the session has none yet.
    fn load(&self, session: &SessionKey) -> Result<Option<PayloadCheck>, PortError>;
    /// Replaces it atomically.
    fn save(&self, session: &SessionKey, check: &PayloadCheck) -> Result<(), PortError>;
}

/// The append-only domain event log (`.ctxmon/events.jsonl`).
pub trait EventLog {
    /// Appends whole lines under a lock so concurrent hooks never interleave or lose a line.
    fn append(&self, records: &[EventRecord]) -> Result<(), PortError>;
}

/// What is on disk now at a path the transcript named: the resumption context lists a file
/// only while it still is one.
pub trait ProjectFiles {
    /// True when `path` (absolute, or relative to `project_dir`) is a regular file now. A
    /// directory, a missing path or one that cannot be looked at is not.
    fn is_file(&self, project_dir: &Path, path: &str) -> bool;

    /// Where `session`'s resumption note is kept, as the agent should name it when it writes
    /// the note (an absolute path); `None` where this store keeps no notes.
    fn note_location(&self, _project_dir: &Path, _session: &SessionKey) -> Option<String> {
        None
    }

    /// `session`'s resumption note: read only while it is a regular file inside the project,
    /// at most `max_bytes` of it. `Ok(None)` when the agent has written none.
    fn read_note(
        &self,
        _project_dir: &Path,
        _session: &SessionKey,
        _max_bytes: usize,
    ) -> Result<Option<NoteFile>, PortError> {
        Ok(None)
    }
}

/// A resumption note as found on disk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NoteFile {
    /// Its text (invalid UTF-8 replaced), at most the bytes asked for.
    pub text: String,
    /// When it was last written; `None` when the file system cannot say.
    pub modified: Option<Timestamp>,
    /// True when the file was longer than the bytes read.
    pub cut: bool,
}
