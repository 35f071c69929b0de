//! In-memory fakes of the ports, for this crate's tests and for anyone running the use cases
//! without a file system (an embedder's tests, the crate's examples): a settable clock, session
//! states, events, checkpoints, the resumption source, transcripts read for the fill
//! (`transcripts`) and their tail as records, git and resume logs (`resume_logs`); the stores
//! have a switch that makes them fail, for the fail-open paths; and the status line's payload
//! checks. `records` builds transcript records and events by hand.
//!
//! They are ordinary public code, not test-only: an embedder's tests depend on them as they
//! are, so they behave like the adapters wherever a use case could tell the difference.

use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;

use ctxmon_domain::{EventRecord, PayloadCheck, SessionKey, SessionState, Timestamp};

use crate::ports::{
    Clock, EventLog, PayloadCheckStore, PortError, PortErrorKind, SessionStateStore,
};

pub mod records;
mod resume_logs;
mod transcripts;

pub use resume_logs::FakeResumeLogs;
pub use transcripts::{FakeTranscript, FakeTranscripts};

/// A clock that returns a settable time, advancing by `step` on every read.
#[derive(Debug, Default)]
pub struct FixedClock {
    now: Cell<i64>,
    step: i64,
}

impl FixedClock {
    /// A clock at `start` that moves `step_ms` forward after every read (0: it stands still).
    pub fn new(start: Timestamp, step_ms: i64) -> FixedClock {
        FixedClock {
            now: Cell::new(start.millis()),
            step: step_ms,
        }
    }

    /// Moves the clock to `t`.
    pub fn set(&self, t: Timestamp) {
        self.now.set(t.millis());
    }

    /// The time the next read gives, without moving the clock.
    pub fn now_ms(&self) -> i64 {
        self.now.get()
    }
}

impl Clock for FixedClock {
    fn now(&self) -> Timestamp {
        let t = self.now.get();
        self.now.set(t.saturating_add(self.step));
        Timestamp(t)
    }
}

/// Session states in a map; `fail` makes every call error, to test fail-open paths.
#[derive(Debug, Default)]
pub struct FakeStates {
    /// The stored states, by session key.
    pub states: RefCell<BTreeMap<SessionKey, SessionState>>,
    /// When true, every load and save fails (`PermissionDenied`).
    pub fail: Cell<bool>,
}

impl FakeStates {
    /// `PermissionDenied` while `fail` is set.
    fn refuse_when_failing(&self) -> Result<(), PortError> {
        if self.fail.get() {
            return Err(PortError::new(
                PortErrorKind::PermissionDenied,
                "state store is read-only",
            ));
        }
        Ok(())
    }
}

impl SessionStateStore for FakeStates {
    fn load(&self, session: &SessionKey) -> Result<Option<SessionState>, PortError> {
        self.refuse_when_failing()?;
        Ok(self.states.borrow().get(session).cloned())
    }

    fn save(&self, session: &SessionKey, state: &SessionState) -> Result<(), PortError> {
        self.refuse_when_failing()?;
        self.states
            .borrow_mut()
            .insert(session.clone(), state.clone());
        Ok(())
    }

    // Kept in the stored state, where the whole state is: as the file store keeps it apart.
    fn last_prompt(&self, session: &SessionKey) -> Option<Timestamp> {
        self.states.borrow().get(session)?.last_prompt_at
    }

    fn save_last_prompt(&self, session: &SessionKey, at: Timestamp) -> Result<(), PortError> {
        self.refuse_when_failing()?;
        self.states
            .borrow_mut()
            .entry(session.clone())
            .or_default()
            .last_prompt_at = Some(at);
        Ok(())
    }
}

/// The status line's payload checks in a map, one per session; `fail` makes every call fail.
#[derive(Debug, Default)]
pub struct FakePayloadChecks {
    /// The stored checks, by session key.
    pub checks: RefCell<BTreeMap<SessionKey, PayloadCheck>>,
    /// When true, every load and save fails (`PermissionDenied`).
    pub fail: Cell<bool>,
}

impl PayloadCheckStore for FakePayloadChecks {
    fn load(&self, session: &SessionKey) -> Result<Option<PayloadCheck>, PortError> {
        if self.fail.get() {
            return Err(PortError::new(
                PortErrorKind::PermissionDenied,
                "status-line folder is read-only",
            ));
        }
        Ok(self.checks.borrow().get(session).cloned())
    }

    fn save(&self, session: &SessionKey, check: &PayloadCheck) -> Result<(), PortError> {
        if self.fail.get() {
            return Err(PortError::new(
                PortErrorKind::PermissionDenied,
                "status-line folder is read-only",
            ));
        }
        self.checks
            .borrow_mut()
            .insert(session.clone(), check.clone());
        Ok(())
    }
}

/// Events in a vector; `fail` makes every append fail as a full disk would.
#[derive(Debug, Default)]
pub struct FakeEvents {
    /// Every record appended, in order.
    pub records: RefCell<Vec<EventRecord>>,
    /// When true, every append fails (`Io`).
    pub fail: Cell<bool>,
}

impl EventLog for FakeEvents {
    fn append(&self, records: &[EventRecord]) -> Result<(), PortError> {
        if self.fail.get() {
            return Err(PortError::new(PortErrorKind::Io, "event log is full"));
        }
        self.records.borrow_mut().extend_from_slice(records);
        Ok(())
    }
}

/// Checkpoints in a vector, ids and per-session sequences allocated like the file
/// repository's (never reused, whatever is pruned).
#[derive(Debug, Default)]
pub struct FakeCheckpoints {
    /// Every checkpoint saved and not pruned, oldest first.
    pub stored: RefCell<Vec<crate::ports::StoredCheckpoint>>,
    /// The last id given (0 before the first).
    pub next: Cell<u32>,
    /// The highest compaction sequence given to each session.
    pub sequences: RefCell<BTreeMap<String, u32>>,
    /// When true, every call fails (`PermissionDenied`).
    pub fail: Cell<bool>,
    /// Alert claims: checkpoint id → held until (milliseconds).
    pub claims: RefCell<BTreeMap<ctxmon_domain::CheckpointId, i64>>,
    /// How many checkpoints were read one by one (`get`, the session's lookups): what a test
    /// that bounds a hook's work counts. Listing the whole folder counts every checkpoint.
    pub reads: Cell<usize>,
}

impl FakeCheckpoints {
    fn count_reads(&self, n: usize) {
        self.reads.set(self.reads.get() + n);
    }

    fn check(&self) -> Result<(), PortError> {
        if self.fail.get() {
            Err(PortError::new(
                PortErrorKind::PermissionDenied,
                "checkpoint folder is read-only",
            ))
        } else {
            Ok(())
        }
    }
}

impl crate::ports::CheckpointRepository for FakeCheckpoints {
    fn save_new(
        &self,
        session: Option<&str>,
        build: &mut dyn FnMut(crate::ports::Allocation) -> ctxmon_domain::CheckpointData,
    ) -> Result<ctxmon_domain::CheckpointData, PortError> {
        self.check()?;
        let seq = self.next.get().saturating_add(1);
        let id = ctxmon_domain::CheckpointId::new(seq)
            .ok_or_else(|| PortError::new(PortErrorKind::Io, "ids exhausted"))?;
        self.next.set(seq);
        let compaction_sequence = match session {
            Some(s) => {
                let mut sequences = self.sequences.borrow_mut();
                let n = sequences.entry(s.to_string()).or_insert(0);
                *n = n.saturating_add(1);
                *n
            }
            None => 1,
        };
        let mut data = build(crate::ports::Allocation {
            id,
            compaction_sequence,
        });
        data.checkpoint_id = id;
        data.compaction_sequence = compaction_sequence;
        self.stored
            .borrow_mut()
            .push(crate::ports::StoredCheckpoint {
                data: data.clone(),
                acknowledged: false,
            });
        Ok(data)
    }

    /// A name, not a path: nothing is stored anywhere.
    fn location(&self, id: ctxmon_domain::CheckpointId) -> String {
        format!("checkpoints/{}", id.file_name())
    }

    fn get(
        &self,
        id: ctxmon_domain::CheckpointId,
    ) -> Result<Option<crate::ports::StoredCheckpoint>, PortError> {
        self.check()?;
        self.count_reads(1);
        Ok(self
            .stored
            .borrow()
            .iter()
            .find(|s| s.data.checkpoint_id == id)
            .cloned())
    }

    fn of_session(&self, session: &str) -> Result<Vec<crate::ports::StoredCheckpoint>, PortError> {
        self.check()?;
        let own: Vec<crate::ports::StoredCheckpoint> = self
            .stored
            .borrow()
            .iter()
            .filter(|s| s.data.session_info.session_id.as_deref() == Some(session))
            .cloned()
            .collect();
        self.count_reads(own.len());
        Ok(own)
    }

    fn newest(&self) -> Result<Option<ctxmon_domain::CheckpointData>, PortError> {
        self.check()?;
        self.count_reads(1);
        Ok(self.stored.borrow().last().map(|s| s.data.clone()))
    }

    fn is_acknowledged(&self, id: ctxmon_domain::CheckpointId) -> Result<bool, PortError> {
        self.check()?;
        Ok(self
            .stored
            .borrow()
            .iter()
            .any(|s| s.data.checkpoint_id == id && s.acknowledged))
    }

    fn claim_alert(
        &self,
        id: ctxmon_domain::CheckpointId,
        now: ctxmon_domain::Timestamp,
        until: ctxmon_domain::Timestamp,
    ) -> Result<bool, PortError> {
        self.check()?;
        if self.is_acknowledged(id)? {
            return Ok(false);
        }
        let mut claims = self.claims.borrow_mut();
        if claims.get(&id).is_some_and(|&held| held > now.millis()) {
            return Ok(false);
        }
        claims.insert(id, until.millis());
        Ok(true)
    }

    fn release_alert(&self, id: ctxmon_domain::CheckpointId) -> Result<(), PortError> {
        self.check()?;
        self.claims.borrow_mut().remove(&id);
        Ok(())
    }

    fn latest_unacknowledged(
        &self,
        session: Option<&str>,
    ) -> Result<Option<ctxmon_domain::CheckpointData>, PortError> {
        self.check()?;
        Ok(self
            .stored
            .borrow()
            .iter()
            .rev()
            .find(|s| {
                !s.acknowledged
                    && session
                        .is_none_or(|want| s.data.session_info.session_id.as_deref() == Some(want))
            })
            .map(|s| s.data.clone()))
    }

    fn acknowledge(&self, id: ctxmon_domain::CheckpointId) -> Result<bool, PortError> {
        self.check()?;
        let mut stored = self.stored.borrow_mut();
        let entry = stored
            .iter_mut()
            .find(|s| s.data.checkpoint_id == id)
            .ok_or_else(|| {
                PortError::new(PortErrorKind::NotFound, format!("no checkpoint {id}"))
            })?;
        let created = !entry.acknowledged;
        entry.acknowledged = true;
        self.claims.borrow_mut().remove(&id);
        Ok(created)
    }

    fn list(&self) -> Result<crate::ports::CheckpointListing, PortError> {
        self.check()?;
        self.count_reads(self.stored.borrow().len());
        Ok(crate::ports::CheckpointListing {
            checkpoints: self.stored.borrow().clone(),
            problems: Vec::new(),
        })
    }

    fn prune(&self, keep: usize) -> Result<crate::ports::PruneOutcome, PortError> {
        self.check()?;
        let mut stored = self.stored.borrow_mut();
        let excess = stored.len().saturating_sub(keep);
        Ok(crate::ports::PruneOutcome {
            pruned: stored
                .drain(..excess)
                .map(|s| s.data.checkpoint_id)
                .collect(),
            unreadable: Vec::new(),
        })
    }

    fn prune_automatic(
        &self,
        policy: crate::ports::AutoPrune<'_>,
    ) -> Result<crate::ports::PruneOutcome, PortError> {
        self.check()?;
        let mut stored = self.stored.borrow_mut();
        let older = stored.len().saturating_sub(policy.keep);
        // Each session's newest checkpoint: an unacknowledged one older than it is superseded.
        let mut newest: BTreeMap<String, ctxmon_domain::CheckpointId> = BTreeMap::new();
        for s in stored.iter() {
            if let Some(session) = &s.data.session_info.session_id {
                newest.insert(session.clone(), s.data.checkpoint_id);
            }
        }
        let mut pruned = Vec::new();
        let mut index = 0;
        stored.retain(|s| {
            let superseded = s
                .data
                .session_info
                .session_id
                .as_ref()
                .and_then(|session| newest.get(session))
                .is_some_and(|&n| n > s.data.checkpoint_id);
            let goes = index < older
                && (s.acknowledged || superseded)
                && !policy.spare.contains(&s.data.checkpoint_id)
                && pruned.len() < policy.max_removals;
            index += 1;
            if goes {
                pruned.push(s.data.checkpoint_id);
            }
            !goes
        });
        Ok(crate::ports::PruneOutcome {
            pruned,
            unreadable: Vec::new(),
        })
    }
}

/// A resumption source that returns a fixed document (or none).
#[derive(Debug, Default)]
pub struct FakeSource(pub RefCell<Option<crate::ports::SourceDocument>>);

impl crate::ports::ResumptionSource for FakeSource {
    fn read(
        &self,
        _project_dir: &std::path::Path,
    ) -> Result<Option<crate::ports::SourceDocument>, PortError> {
        Ok(self.0.borrow().clone())
    }

    /// The document's path, taken from the project folder when relative.
    fn locate(&self, project_dir: &std::path::Path) -> Option<std::path::PathBuf> {
        self.0.borrow().as_ref().map(|d| project_dir.join(&d.path))
    }
}

/// A transcript tail of fixed lines.
#[derive(Debug, Default)]
pub struct FakeTail(pub RefCell<Vec<crate::ports::TranscriptRecord>>);

impl crate::ports::TranscriptTail for FakeTail {
    fn read_tail(
        &self,
        _path: &std::path::Path,
        _max_bytes: u64,
    ) -> Result<Vec<crate::ports::TranscriptRecord>, crate::ports::TranscriptError> {
        Ok(self.0.borrow().clone())
    }

    /// The same lines: in memory the whole transcript is both its head and its tail.
    fn read_head(
        &self,
        _path: &std::path::Path,
        _max_bytes: u64,
        visit: &mut dyn FnMut(&crate::ports::TranscriptRecord) -> std::ops::ControlFlow<()>,
    ) -> Result<(), crate::ports::TranscriptError> {
        for line in self.0.borrow().iter() {
            if visit(line).is_break() {
                break;
            }
        }
        Ok(())
    }
}

/// A project's files as a list: `None` (the default) says every path is a file, so tests that
/// do not care about files see every pointer; `Some(list)` only those.
#[derive(Debug, Default)]
pub struct FakeFiles {
    /// The files that exist; `None`: every path is a file.
    pub present: Option<Vec<String>>,
    /// The session's resumption note, as the agent wrote it (one note for any session).
    pub note: RefCell<Option<crate::ports::NoteFile>>,
}

impl crate::ports::ProjectFiles for FakeFiles {
    fn is_file(&self, _project_dir: &std::path::Path, path: &str) -> bool {
        self.present
            .as_ref()
            .is_none_or(|files| files.iter().any(|f| f == path))
    }

    fn note_location(
        &self,
        project_dir: &std::path::Path,
        session: &ctxmon_domain::SessionKey,
    ) -> Option<String> {
        Some(format!(
            "{}/.ctxmon/notes/{}.md",
            project_dir.display(),
            session.as_str()
        ))
    }

    fn read_note(
        &self,
        _project_dir: &std::path::Path,
        _session: &ctxmon_domain::SessionKey,
        max_bytes: usize,
    ) -> Result<Option<crate::ports::NoteFile>, PortError> {
        Ok(self.note.borrow().clone().map(|mut note| {
            if note.text.len() > max_bytes {
                let mut end = max_bytes;
                while !note.text.is_char_boundary(end) {
                    end -= 1;
                }
                note.text.truncate(end);
                note.cut = true;
            }
            note
        }))
    }
}

/// Git that reports a fixed head (or no repository).
#[derive(Debug, Default)]
pub struct FakeGit(pub Option<crate::ports::GitHead>);

impl crate::ports::GitInfo for FakeGit {
    fn head(&self, _dir: &std::path::Path) -> Option<crate::ports::GitHead> {
        self.0.clone()
    }
}
