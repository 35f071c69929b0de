//! Per-session state files: `.ctxmon/state/<session>.json`, replaced atomically; beside each,
//! `<session>.last-prompt`, the time of the session's last prompt, overwritten in place.

use std::fs;
use std::io::{self, Read, Write};
use std::time::Duration;

use ctxmon_application::ports::{PortError, PortErrorKind, SessionStateStore};
use ctxmon_domain::{SessionKey, SessionState, Timestamp};

use crate::fsutil::{io_error, open_in_place, open_regular, with_lock};
use crate::layout::ProjectLayout;

/// State files larger than this are not state ctxmon wrote; refusing them bounds the hook's work.
const MAX_STATE_BYTES: u64 = 256 * 1024;

#[derive(Debug, Clone)]
pub struct FsSessionStateStore {
    layout: ProjectLayout,
    lock_wait: Duration,
}

impl FsSessionStateStore {
    /// How long [`SessionStateStore::with_lock`] waits unless told otherwise.
    pub const DEFAULT_LOCK_WAIT: Duration = Duration::from_secs(1);

    pub fn new(layout: ProjectLayout) -> Self {
        FsSessionStateStore {
            layout,
            lock_wait: Self::DEFAULT_LOCK_WAIT,
        }
    }

    /// The longest wait for a session's lock (a hook gives a share of its deadline).
    pub fn with_lock_wait(mut self, wait: Duration) -> Self {
        self.lock_wait = wait;
        self
    }
}

impl SessionStateStore for FsSessionStateStore {
    fn load(&self, session: &SessionKey) -> Result<Option<SessionState>, PortError> {
        let path = self.layout.state_file(session);
        let meta = match fs::metadata(&path) {
            Ok(m) => m,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(io_error(&path, &e)),
        };
        if !meta.is_file() || meta.len() > MAX_STATE_BYTES {
            return Err(PortError::new(
                PortErrorKind::InvalidData,
                format!("{} is not a state file ctxmon wrote", path.display()),
            ));
        }
        let bytes = fs::read(&path).map_err(|e| io_error(&path, &e))?;
        let state: SessionState = serde_json::from_slice(&bytes).map_err(|e| {
            PortError::new(
                PortErrorKind::InvalidData,
                format!("{}: {e}", path.display()),
            )
        })?;
        if state.schema_version > SessionState::SCHEMA_VERSION {
            return Err(PortError::new(
                PortErrorKind::InvalidData,
                format!(
                    "{} has schema version {} (this ctxmon knows {})",
                    path.display(),
                    state.schema_version,
                    SessionState::SCHEMA_VERSION
                ),
            ));
        }
        Ok(Some(state))
    }

    fn save(&self, session: &SessionKey, state: &SessionState) -> Result<(), PortError> {
        let path = self.layout.state_file(session);
        self.layout
            .save_json(&self.layout.state_dir(), &path, state)
    }

    /// Read as written by [`SessionStateStore::save_last_prompt`]; anything else (a file cut
    /// by a crash, planted, too long) is no time at all.
    fn last_prompt(&self, session: &SessionKey) -> Option<Timestamp> {
        let (file, _) = open_regular(&self.layout.last_prompt_file(session)).ok()?;
        let mut text = String::new();
        file.take(32).read_to_string(&mut text).ok()?;
        text.trim().parse::<i64>().ok().map(Timestamp::from_millis)
    }

    /// Overwritten in place, never replaced nor truncated: a prompt pays for one small write.
    /// The state's atomic replacement (a new file and a rename) cost it more than its own work,
    /// and so did cutting the file first (the file system then writes it out at close). The
    /// number is written at one width, so each write covers the one before.
    fn save_last_prompt(&self, session: &SessionKey, at: Timestamp) -> Result<(), PortError> {
        let dir = self.layout.state_dir();
        self.layout
            .ensure_dir(&dir)
            .map_err(|e| io_error(&dir, &e))?;
        let path = self.layout.last_prompt_file(session);
        let written = open_in_place(&path)
            .and_then(|mut file| file.write_all(format!("{:>20}\n", at.millis()).as_bytes()));
        written.map_err(|e| io_error(&path, &e))
    }

    /// `state/<session>.lock`, in the state folder (created, and checked not to be a link,
    /// first).
    fn with_lock(&self, session: &SessionKey, work: &mut dyn FnMut()) -> Result<(), PortError> {
        let dir = self.layout.state_dir();
        self.layout
            .ensure_dir(&dir)
            .map_err(|e| io_error(&dir, &e))?;
        with_lock(&self.layout.state_lock(session), self.lock_wait, || {
            work();
            Ok(())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ctxmon_domain::ThresholdTier;

    #[test]
    fn the_last_prompt_is_kept_apart_and_anything_else_there_is_no_time() {
        let dir = tempfile::tempdir().unwrap();
        let layout = ProjectLayout::new(dir.path());
        let store = FsSessionStateStore::new(layout.clone());
        let key = SessionKey::from_raw("s1");
        assert_eq!(store.last_prompt(&key), None);
        for ms in [1_796_656_123_410, 7] {
            store
                .save_last_prompt(&key, Timestamp::from_millis(ms))
                .unwrap();
            assert_eq!(store.last_prompt(&key), Some(Timestamp::from_millis(ms)));
        }
        // The state's own file neither holds it nor is touched by it.
        assert!(!layout.state_file(&key).exists());
        let path = layout.last_prompt_file(&key);
        for junk in [&b""[..], b"17x", b"99999999999999999999999999999999999999"] {
            fs::write(&path, junk).unwrap();
            assert_eq!(store.last_prompt(&key), None, "{junk:?}");
        }
        // A link planted in its place is neither read nor written through.
        fs::remove_file(&path).unwrap();
        let elsewhere = dir.path().join("elsewhere");
        fs::write(&elsewhere, b"5").unwrap();
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(&elsewhere, &path).unwrap();
            assert!(
                store
                    .save_last_prompt(&key, Timestamp::from_millis(9))
                    .is_err()
            );
            assert_eq!(fs::read(&elsewhere).unwrap(), b"5");
        }
    }

    #[test]
    fn round_trips_and_reports_corruption() {
        let dir = tempfile::tempdir().unwrap();
        let layout = ProjectLayout::new(dir.path());
        let store = FsSessionStateStore::new(layout.clone());
        let key = SessionKey::from_raw("s1");
        assert_eq!(store.load(&key).unwrap(), None);
        let state = SessionState {
            last_tier: Some(ThresholdTier::Warning),
            schema_version: 1,
            ..Default::default()
        };
        store.save(&key, &state).unwrap();
        assert_eq!(store.load(&key).unwrap(), Some(state));

        fs::write(layout.state_file(&key), b"{not json").unwrap();
        assert_eq!(
            store.load(&key).unwrap_err().kind,
            PortErrorKind::InvalidData
        );
        fs::write(layout.state_file(&key), br#"{"schema_version": 99}"#).unwrap();
        assert!(
            store
                .load(&key)
                .unwrap_err()
                .message
                .contains("schema version 99")
        );
    }

    /// Found by attacking the stores with planted files: the first save of a session deleted every
    /// old `.tmp-*` file in `state/`, whoever had made it. Only this process's own temp file goes.
    #[test]
    fn a_save_deletes_no_temp_file_it_did_not_create() {
        let dir = tempfile::tempdir().unwrap();
        let layout = ProjectLayout::new(dir.path());
        let store = FsSessionStateStore::new(layout.clone());
        store
            .save(&SessionKey::from_raw("s1"), &SessionState::default())
            .unwrap();
        let planted = layout.state_dir().join(".tmp-x");
        fs::write(&planted, b"not ctxmon's").unwrap();
        let hour_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
        fs::File::options()
            .write(true)
            .open(&planted)
            .unwrap()
            .set_modified(hour_ago)
            .unwrap();
        store
            .save(&SessionKey::from_raw("s2"), &SessionState::default())
            .unwrap();
        assert_eq!(fs::read(&planted).unwrap(), b"not ctxmon's");
        let names: Vec<String> = fs::read_dir(layout.state_dir())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names.len(), 3, "{names:?}");
        // Invisible to readers.
        assert_eq!(
            store.load(&SessionKey::from_raw("s2")).unwrap(),
            Some(SessionState::default())
        );
    }

    /// A `state/` folder linked elsewhere takes no state file: the session's state would land
    /// outside the project.
    #[cfg(unix)]
    #[test]
    fn a_linked_state_folder_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let layout = ProjectLayout::new(dir.path().join("p"));
        fs::create_dir_all(layout.root()).unwrap();
        let outside = dir.path().join("outside");
        fs::create_dir(&outside).unwrap();
        std::os::unix::fs::symlink(&outside, layout.state_dir()).unwrap();
        let e = FsSessionStateStore::new(layout)
            .save(&SessionKey::from_raw("s"), &SessionState::default())
            .unwrap_err();
        assert_eq!(e.kind, PortErrorKind::PermissionDenied, "{e}");
        assert_eq!(fs::read_dir(&outside).unwrap().count(), 0);
    }

    #[test]
    fn hostile_session_ids_stay_inside_state_dir() {
        let dir = tempfile::tempdir().unwrap();
        let layout = ProjectLayout::new(dir.path());
        let store = FsSessionStateStore::new(layout.clone());
        let key = SessionKey::from_raw("../../escape");
        store.save(&key, &SessionState::default()).unwrap();
        let files: Vec<_> = fs::read_dir(layout.state_dir())
            .unwrap()
            .filter_map(|e| e.ok())
            .collect();
        assert_eq!(files.len(), 1);
        assert!(!dir.path().join("escape.json").exists());
    }
}
