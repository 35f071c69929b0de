//! Per-session state files: `.ctxmon/state/<session>.json`, replaced atomically.

use std::fs;
use std::io;

use ctxmon_application::ports::{PortError, PortErrorKind, SessionStateStore};
use ctxmon_domain::{SessionKey, SessionState};

use crate::fsutil::{Durability, io_error, remove_temps_older_than, write_atomic};
use crate::layout::ProjectLayout;

/// State files larger than this are not state ctxmon wrote; refusing them bounds the hook's work.
const MAX_STATE_BYTES: u64 = 256 * 1024;
/// Sessions write their state files under their own locks, not one for the folder, so a temp
/// file is known to be orphaned only by its age; no writer holds one for anything near this.
const ORPHAN_AGE: std::time::Duration = std::time::Duration::from_secs(600);

#[derive(Debug, Clone)]
pub struct FsSessionStateStore {
    layout: ProjectLayout,
}

impl FsSessionStateStore {
    pub fn new(layout: ProjectLayout) -> Self {
        FsSessionStateStore { layout }
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
        let bytes = serde_json::to_vec_pretty(state)
            .map_err(|e| PortError::new(PortErrorKind::InvalidData, e.to_string()))?;
        if fs::symlink_metadata(&path).is_err() {
            // A session's first save (one stat per save, one folder read per session) clears
            // what killed hooks and hooks stopped at their deadline left behind.
            remove_temps_older_than(&self.layout.state_dir(), ORPHAN_AGE);
        }
        let dir = self.layout.state_dir();
        self.layout
            .ensure_dir(&dir)
            .map_err(|e| io_error(&dir, &e))?;
        write_atomic(&path, &bytes, Durability::RenameOnly).map_err(|e| io_error(&path, &e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ctxmon_domain::ThresholdTier;

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

    #[test]
    fn a_new_session_clears_old_temp_files_of_killed_hooks() {
        let dir = tempfile::tempdir().unwrap();
        let layout = ProjectLayout::new(dir.path());
        let store = FsSessionStateStore::new(layout.clone());
        store
            .save(&SessionKey::from_raw("s1"), &SessionState::default())
            .unwrap();
        let old = layout.state_dir().join(".tmp-killed");
        let fresh = layout.state_dir().join(".tmp-live");
        fs::write(&old, b"{").unwrap();
        fs::write(&fresh, b"{").unwrap();
        let hour_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
        fs::File::options()
            .write(true)
            .open(&old)
            .unwrap()
            .set_modified(hour_ago)
            .unwrap();
        // An existing session's save costs no folder read.
        store
            .save(&SessionKey::from_raw("s1"), &SessionState::default())
            .unwrap();
        assert!(old.exists());
        store
            .save(&SessionKey::from_raw("s2"), &SessionState::default())
            .unwrap();
        assert!(!old.exists(), "an hour-old temp file is a dead writer's");
        assert!(fresh.exists(), "a fresh one may be a live writer's");
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
