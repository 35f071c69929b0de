//! The resume-log store: where generated logs live. `.ctxmon/resume-logs/` in production,
//! memory in tests; any other backend (a shared folder, object storage) implements the same
//! trait: the extension point for storage backends of your own.
//!
//! A store keeps one log per session (a later log of the session replaces the earlier one),
//! keyed by [`SessionKey`] so a hostile session id never reaches a path.

use std::collections::BTreeSet;

use ctxmon_domain::{CheckpointId, ResumeLog, SessionKey, Timestamp};

use super::PortError;

/// One stored log, as listed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResumeLogEntry {
    /// The key the store files the log under.
    pub key: SessionKey,
    /// The session id as the log records it.
    pub session_id: String,
    /// `context_metrics.timestamp`; `None` when it does not parse.
    pub generated_at: Option<Timestamp>,
    /// Why the log was written (`context_metrics.stop_reason`): `pre_compact`, `tier:critical`, …
    pub trigger: String,
    /// Where the markdown is (a path for the file store): what a person or agent opens.
    pub location: String,
    /// Where the JSON is.
    pub json_location: String,
    /// The markdown's and the JSON's bytes together.
    pub bytes: u64,
    /// The checkpoints the log names ([`ResumeLog::named_checkpoints`]).
    pub checkpoints: Vec<CheckpointId>,
}

impl ResumeLogEntry {
    /// The entry for `log` stored at `location` (markdown) and `json_location`.
    pub fn of(
        log: &ResumeLog,
        location: impl Into<String>,
        json_location: impl Into<String>,
        bytes: u64,
    ) -> ResumeLogEntry {
        ResumeLogEntry {
            key: SessionKey::from_raw(&log.session_id),
            session_id: log.session_id.clone(),
            generated_at: Timestamp::parse_rfc3339(&log.context_metrics.timestamp),
            trigger: log.context_metrics.stop_reason.clone(),
            location: location.into(),
            json_location: json_location.into(),
            bytes,
            checkpoints: log.named_checkpoints(),
        }
    }
}

/// Readable logs, newest first, and what could not be read (one line each, naming the file).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ResumeLogListing {
    /// The readable logs, newest first.
    pub entries: Vec<ResumeLogEntry>,
    /// One line per file that could not be read, naming it.
    pub problems: Vec<String>,
}

/// A loaded log: the data, and the stored markdown when there is one.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredResumeLog {
    /// Where it is and what it names.
    pub entry: ResumeLogEntry,
    /// The log's data.
    pub log: ResumeLog,
    /// The stored markdown; `None` when the store has none (the JSON is the record, and the
    /// markdown is its rendering).
    pub markdown: Option<String>,
}

/// What `save` wrote.
pub type SavedResumeLog = ResumeLogEntry;

/// `ctxmon resume-log stats`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ResumeLogStats {
    /// How many logs are stored.
    pub count: usize,
    /// Their bytes, markdown and JSON together.
    pub bytes: u64,
    /// The oldest log's time.
    pub oldest: Option<Timestamp>,
    /// The newest log's time.
    pub newest: Option<Timestamp>,
    /// Files that were skipped (corrupt, foreign).
    pub problems: Vec<String>,
}

/// Where resume logs are kept, one per session. The file store lives in the adapters; a test
/// or an embedder can keep them in memory ([`crate::fakes::FakeResumeLogs`]). A store that
/// keeps JSON writes it as `handoff::resume_log::ExactJson` does and reads it with
/// `handoff::resume_log::from_json`, so the critical context's numbers stay the agent's tokens.
pub trait ResumeLogStore {
    /// Writes the log's JSON and markdown, each replaced atomically, over any earlier log of
    /// the same session. On failure the earlier files are intact.
    fn save(&self, log: &ResumeLog, markdown: &str) -> Result<SavedResumeLog, PortError>;

    /// `Ok(None)` when the session has no log; an unreadable one is `InvalidData`.
    fn load(&self, key: &SessionKey) -> Result<Option<StoredResumeLog>, PortError>;

    /// Every readable log, newest first ([`sort_newest_first`]). A file that cannot be read is
    /// named in `problems` and skipped; it never hides the others.
    fn list(&self) -> Result<ResumeLogListing, PortError>;

    /// Returns true when the session had a log.
    fn delete(&self, key: &SessionKey) -> Result<bool, PortError>;

    /// The newest log that still loads (one deleted or broken since listing is passed over).
    fn latest(&self) -> Result<Option<StoredResumeLog>, PortError> {
        for entry in self.list()?.entries {
            if let Ok(Some(stored)) = self.load(&entry.key) {
                return Ok(Some(stored));
            }
        }
        Ok(None)
    }

    /// Deletes all but the newest `keep` logs; returns the sessions whose logs went. Files the
    /// listing could not read are left alone: what ctxmon cannot identify it does not delete.
    fn cleanup(&self, keep: usize) -> Result<Vec<SessionKey>, PortError> {
        let mut removed = Vec::new();
        for entry in self.list()?.entries.into_iter().skip(keep) {
            if self.delete(&entry.key)? {
                removed.push(entry.key);
            }
        }
        Ok(removed)
    }

    /// Every checkpoint a readable log names: automatic checkpoint pruning must not delete
    /// what a handoff document tells its reader to open. A log that cannot be read names
    /// nothing (no reader can follow it either).
    fn named_checkpoints(&self) -> Result<BTreeSet<CheckpointId>, PortError> {
        Ok(self
            .list()?
            .entries
            .iter()
            .flat_map(|e| e.checkpoints.iter().copied())
            .collect())
    }

    /// How many logs there are, their size and their time span.
    fn stats(&self) -> Result<ResumeLogStats, PortError> {
        let listing = self.list()?;
        let times = listing.entries.iter().filter_map(|e| e.generated_at);
        Ok(ResumeLogStats {
            count: listing.entries.len(),
            bytes: listing.entries.iter().map(|e| e.bytes).sum(),
            oldest: times.clone().min(),
            newest: times.max(),
            problems: listing.problems,
        })
    }
}

/// Newest first; logs without a readable time last; ties by key, so the order is total.
pub fn sort_newest_first(entries: &mut [ResumeLogEntry]) {
    entries.sort_by(|a, b| {
        b.generated_at
            .cmp(&a.generated_at)
            .then_with(|| a.key.cmp(&b.key))
    });
}
