//! An in-memory `ResumeLogStore`: for tests, and for embedders without a file system.

use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;

use ctxmon_domain::{ResumeLog, SessionKey};

use crate::ports::{
    PortError, PortErrorKind, ResumeLogEntry, ResumeLogListing, ResumeLogStore, SavedResumeLog,
    StoredResumeLog, sort_newest_first,
};

/// Logs in a map; `fail` makes every call fail as a read-only folder would.
#[derive(Debug, Default)]
pub struct FakeResumeLogs {
    /// The stored logs and their markdown, by session key.
    pub logs: RefCell<BTreeMap<SessionKey, (ResumeLog, String)>>,
    /// When true, every call fails.
    pub fail: Cell<bool>,
}

impl FakeResumeLogs {
    fn check(&self) -> Result<(), PortError> {
        if self.fail.get() {
            Err(PortError::new(
                PortErrorKind::PermissionDenied,
                "resume-log store is read-only",
            ))
        } else {
            Ok(())
        }
    }

    fn entry(log: &ResumeLog, markdown: &str) -> ResumeLogEntry {
        let key = SessionKey::from_raw(&log.session_id);
        let bytes = serde_json::to_vec(log).map_or(0, |j| j.len()) + markdown.len();
        ResumeLogEntry::of(
            log,
            format!("memory:session-{key}.md"),
            format!("memory:session-{key}.json"),
            bytes as u64,
        )
    }
}

impl ResumeLogStore for FakeResumeLogs {
    fn save(&self, log: &ResumeLog, markdown: &str) -> Result<SavedResumeLog, PortError> {
        self.check()?;
        let entry = FakeResumeLogs::entry(log, markdown);
        self.logs
            .borrow_mut()
            .insert(entry.key.clone(), (log.clone(), markdown.to_string()));
        Ok(entry)
    }

    fn load(&self, key: &SessionKey) -> Result<Option<StoredResumeLog>, PortError> {
        self.check()?;
        Ok(self
            .logs
            .borrow()
            .get(key)
            .map(|(log, md)| StoredResumeLog {
                entry: FakeResumeLogs::entry(log, md),
                log: log.clone(),
                markdown: Some(md.clone()),
            }))
    }

    fn list(&self) -> Result<ResumeLogListing, PortError> {
        self.check()?;
        let mut entries: Vec<ResumeLogEntry> = self
            .logs
            .borrow()
            .values()
            .map(|(log, md)| FakeResumeLogs::entry(log, md))
            .collect();
        sort_newest_first(&mut entries);
        Ok(ResumeLogListing {
            entries,
            problems: Vec::new(),
        })
    }

    fn delete(&self, key: &SessionKey) -> Result<bool, PortError> {
        self.check()?;
        Ok(self.logs.borrow_mut().remove(key).is_some())
    }
}
