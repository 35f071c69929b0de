//! In-memory adapters for every port: used by this crate's tests and by anyone embedding the
//! use cases without a file system.

use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;

use ctxmon_domain::{EventRecord, SessionKey, SessionState, Timestamp};

use crate::ports::{Clock, EventLog, PortError, PortErrorKind, SessionStateStore};

/// A clock that returns a settable time, advancing by `step` on every read.
#[derive(Debug, Default)]
pub struct FixedClock {
    now: Cell<i64>,
    step: i64,
}

impl FixedClock {
    pub fn new(start: Timestamp, step_ms: i64) -> FixedClock {
        FixedClock {
            now: Cell::new(start.millis()),
            step: step_ms,
        }
    }

    pub fn set(&self, t: Timestamp) {
        self.now.set(t.millis());
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
pub struct MemoryStates {
    pub states: RefCell<BTreeMap<SessionKey, SessionState>>,
    pub fail: Cell<bool>,
}

impl SessionStateStore for MemoryStates {
    fn load(&self, session: &SessionKey) -> Result<Option<SessionState>, PortError> {
        if self.fail.get() {
            return Err(PortError::new(
                PortErrorKind::PermissionDenied,
                "state store is read-only",
            ));
        }
        Ok(self.states.borrow().get(session).cloned())
    }

    fn save(&self, session: &SessionKey, state: &SessionState) -> Result<(), PortError> {
        if self.fail.get() {
            return Err(PortError::new(
                PortErrorKind::PermissionDenied,
                "state store is read-only",
            ));
        }
        self.states
            .borrow_mut()
            .insert(session.clone(), state.clone());
        Ok(())
    }
}

#[derive(Debug, Default)]
pub struct MemoryEvents {
    pub records: RefCell<Vec<EventRecord>>,
    pub fail: Cell<bool>,
}

impl EventLog for MemoryEvents {
    fn append(&self, records: &[EventRecord]) -> Result<(), PortError> {
        if self.fail.get() {
            return Err(PortError::new(PortErrorKind::Io, "event log is full"));
        }
        self.records.borrow_mut().extend_from_slice(records);
        Ok(())
    }
}
