//! The status line's latest payload comparison per session:
//! `.ctxmon/status-line/<session>.json`, replaced atomically (see the application's
//! `payload_check`). Doctor reads the newest of them.

use std::fs;
use std::io;
use std::path::Path;

use ctxmon_application::ports::{PayloadCheckStore, PortError};
use ctxmon_domain::{PayloadCheck, SessionKey};

use crate::fsutil::io_error;
use crate::layout::ProjectLayout;

/// Larger files are not records ctxmon wrote (one is a few hundred bytes).
const MAX_RECORD_BYTES: u64 = 64 * 1024;
/// Doctor looks at no more files than this (the newest by modification time).
const MAX_SCANNED: usize = 256;

#[derive(Debug, Clone)]
pub struct FsPayloadCheckStore {
    layout: ProjectLayout,
}

impl FsPayloadCheckStore {
    pub fn new(layout: ProjectLayout) -> Self {
        FsPayloadCheckStore { layout }
    }

    /// The most recent comparison of any session (by `checked_at`), among the
    /// [`MAX_SCANNED`] most recently written files; unreadable files are skipped. `Ok(None)`
    /// when there is none (no folder, or a `.ctxmon` that is not a folder: that is the
    /// storage check's finding).
    pub fn latest(&self) -> Result<Option<PayloadCheck>, PortError> {
        let dir = self.layout.status_line_dir();
        let entries = match fs::read_dir(&dir) {
            Ok(entries) => entries,
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::NotFound | io::ErrorKind::NotADirectory
                ) =>
            {
                return Ok(None);
            }
            Err(e) => return Err(io_error(&dir, &e)),
        };
        let mut files: Vec<(std::time::SystemTime, std::path::PathBuf)> = entries
            .filter_map(Result::ok)
            .filter(|e| {
                let name = e.file_name();
                let name = name.to_string_lossy();
                name.ends_with(".json") && !name.starts_with('.')
            })
            .filter_map(|e| {
                let modified = e.metadata().ok()?.modified().ok()?;
                Some((modified, e.path()))
            })
            .collect();
        files.sort_by_key(|f| std::cmp::Reverse(f.0));
        Ok(files
            .iter()
            .take(MAX_SCANNED)
            .filter_map(|(_, path)| read(&self.layout, path).ok().flatten())
            .max_by_key(|c| c.checked_at))
    }
}

fn read(layout: &ProjectLayout, path: &Path) -> Result<Option<PayloadCheck>, PortError> {
    layout.load_json(
        path,
        MAX_RECORD_BYTES,
        |c: &PayloadCheck| c.schema_version,
        PayloadCheck::SCHEMA_VERSION,
    )
}

impl PayloadCheckStore for FsPayloadCheckStore {
    fn load(&self, session: &SessionKey) -> Result<Option<PayloadCheck>, PortError> {
        read(&self.layout, &self.layout.status_line_file(session))
    }

    fn save(&self, session: &SessionKey, check: &PayloadCheck) -> Result<(), PortError> {
        let path = self.layout.status_line_file(session);
        self.layout
            .save_json(&self.layout.status_line_dir(), &path, check)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ctxmon_domain::{FillSource, Timestamp};

    fn check(session: &str, at: i64, disagrees: bool) -> PayloadCheck {
        PayloadCheck {
            schema_version: 1,
            session_id: Some(session.into()),
            used_percentage: 50.0,
            ctxmon_percentage: if disagrees { 40.0 } else { 49.5 },
            tokens: 80_000,
            window: 200_000,
            source: FillSource::Transcript,
            payload_window: Some(200_000),
            disagrees,
            since: Timestamp(at),
            checked_at: Timestamp(at),
        }
    }

    #[test]
    fn round_trips_and_the_latest_is_the_newest_comparison() {
        let dir = tempfile::tempdir().unwrap();
        let layout = ProjectLayout::new(dir.path());
        let store = FsPayloadCheckStore::new(layout.clone());
        assert_eq!(store.latest().unwrap(), None);
        let (a, b) = (SessionKey::from_raw("a"), SessionKey::from_raw("b"));
        assert_eq!(store.load(&a).unwrap(), None);
        store.save(&a, &check("a", 2_000, true)).unwrap();
        store.save(&b, &check("b", 1_000, false)).unwrap();
        assert_eq!(store.load(&b).unwrap(), Some(check("b", 1_000, false)));
        assert_eq!(store.latest().unwrap(), Some(check("a", 2_000, true)));
        // A corrupt file is skipped by `latest` and reported by `load`.
        fs::write(layout.status_line_file(&SessionKey::from_raw("c")), b"{").unwrap();
        assert_eq!(store.latest().unwrap(), Some(check("a", 2_000, true)));
        assert!(store.load(&SessionKey::from_raw("c")).is_err());
    }

    #[cfg(unix)]
    #[test]
    fn a_planted_link_for_the_folder_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let elsewhere = tempfile::tempdir().unwrap();
        let layout = ProjectLayout::new(dir.path());
        fs::create_dir_all(layout.root()).unwrap();
        std::os::unix::fs::symlink(elsewhere.path(), layout.status_line_dir()).unwrap();
        let store = FsPayloadCheckStore::new(layout);
        assert!(
            store
                .save(&SessionKey::from_raw("a"), &check("a", 1, true))
                .is_err()
        );
        assert_eq!(fs::read_dir(elsewhere.path()).unwrap().count(), 0);
    }
}
