//! [`HookRun`]: one hook invocation's session state, the events it will record and the
//! warnings it collected. The state is loaded once, on first use, and saved once, at the end
//! (or earlier where a step must know that the save worked); the events are appended in one
//! write. Use cases are steps on a run, so none of them threads a state, an event list or a
//! warning list through its helpers.

use ctxmon_domain::{DomainEvent, EventRecord, SessionState};

use super::{HookContext, HookPorts, Warning};

/// One invocation's state, events and warnings (see the module documentation).
#[derive(Debug)]
pub struct HookRun<'a> {
    /// What the invocation knows.
    pub ctx: HookContext<'a>,
    /// The ports it may use.
    pub ports: HookPorts<'a>,
    /// `None` until a step asks for it.
    state: Option<SessionState>,
    /// The state as loaded (or as last saved): a run that changed nothing writes nothing.
    saved: Option<SessionState>,
    events: Vec<DomainEvent>,
    warnings: Vec<Warning>,
}

impl<'a> HookRun<'a> {
    /// A run with nothing loaded, recorded or warned yet.
    pub fn new(ctx: HookContext<'a>, ports: HookPorts<'a>) -> HookRun<'a> {
        HookRun {
            ctx,
            ports,
            state: None,
            saved: None,
            events: Vec::new(),
            warnings: Vec::new(),
        }
    }

    /// A run whose state is `state` rather than the stored one (tests of single steps).
    #[cfg(test)]
    pub(crate) fn with_state(
        ctx: HookContext<'a>,
        ports: HookPorts<'a>,
        state: SessionState,
    ) -> HookRun<'a> {
        let mut run = HookRun::new(ctx, ports);
        run.saved = Some(state.clone());
        run.state = Some(state);
        run
    }

    /// The warnings so far (a test of single steps reads them without finishing the run).
    #[cfg(test)]
    pub(crate) fn warnings(&self) -> &[Warning] {
        &self.warnings
    }

    /// Adds a warning to the ones [`HookRun::finish`] returns.
    pub fn warn(&mut self, warning: Warning) {
        self.warnings.push(warning);
    }

    /// An event to record when the run ends (in the order given).
    pub fn record(&mut self, event: DomainEvent) {
        self.events.push(event);
    }

    /// The session's state, loaded on first use: the stored one, or a fresh one (with a
    /// warning) when it cannot be read; a fresh one, silently, for an input that names no
    /// session (there is nothing to load).
    pub fn state(&mut self) -> &mut SessionState {
        if self.state.is_none() {
            let loaded = self.load();
            self.saved = Some(loaded.clone());
            self.state = Some(loaded);
        }
        self.state.get_or_insert_with(SessionState::default)
    }

    fn load(&mut self) -> SessionState {
        let key = self.ctx.session_key();
        let loaded = match &key {
            Some(key) => self.ports.states.load(key),
            None => Ok(None),
        };
        let mut state = match loaded {
            Ok(state) => state.unwrap_or_default(),
            Err(e) => {
                self.warn(Warning::StateUnreadable(e));
                SessionState::default()
            }
        };
        state.schema_version = SessionState::SCHEMA_VERSION;
        if let Some(at) = key.and_then(|k| self.ports.states.last_prompt(&k)) {
            state.last_prompt_at = Some(at);
        }
        state
    }

    /// Saves the state now (when it was loaded); false (with a warning) when it could not be,
    /// or when the input names no session (there is no file to keep it in: see
    /// `session_key`). Whatever the outcome, the end of the run does not try again unless the
    /// state changes after this.
    pub fn save_state(&mut self) -> bool {
        let Some(state) = self.state.as_mut() else {
            return false;
        };
        let Some(key) = self.ctx.session_key() else {
            self.saved = Some(state.clone());
            return false;
        };
        state.updated_at = Some(self.ports.clock.now());
        let prompt_moved = self
            .saved
            .as_ref()
            .is_none_or(|s| s.last_prompt_at != state.last_prompt_at);
        self.saved = Some(state.clone());
        let saved = self
            .ports
            .states
            .save(&key, state)
            .and_then(|()| match state.last_prompt_at {
                Some(at) if prompt_moved => self.ports.states.save_last_prompt(&key, at),
                _ => Ok(()),
            });
        match saved {
            Ok(()) => true,
            Err(e) => {
                self.warn(Warning::StateNotSaved(e));
                false
            }
        }
    }

    /// Keeps a new time of the last prompt when nothing else of the state changed: without
    /// rewriting the state's file.
    fn save_last_prompt(&mut self) {
        let (Some(state), Some(saved)) = (self.state.as_ref(), self.saved.as_mut()) else {
            return;
        };
        let (Some(key), Some(at)) = (self.ctx.session_key(), state.last_prompt_at) else {
            return;
        };
        saved.last_prompt_at = Some(at);
        if let Err(e) = self.ports.states.save_last_prompt(&key, at) {
            self.warn(Warning::StateNotSaved(e));
        }
    }

    /// Appends the events recorded so far (one write, each stamped with the time of writing).
    pub fn record_events(&mut self) {
        if self.events.is_empty() {
            return;
        }
        let now = self.ports.clock.now();
        let session = self.ctx.session_id.map(str::to_string);
        let records: Vec<EventRecord> = std::mem::take(&mut self.events)
            .into_iter()
            .map(|e| EventRecord::new(now, session.clone(), e))
            .collect();
        if let Err(e) = self.ports.events.append(&records) {
            self.warn(Warning::EventsNotRecorded(e));
        }
    }

    /// Ends the run: saves the state when it changed since it was loaded (or last saved),
    /// records the events, and returns every warning in the order they arose.
    pub fn finish(mut self) -> Vec<Warning> {
        if let (Some(state), Some(saved)) = (&self.state, &self.saved)
            && state.last_prompt_at != saved.last_prompt_at
            && *state
                == (SessionState {
                    last_prompt_at: state.last_prompt_at,
                    ..saved.clone()
                })
        {
            self.save_last_prompt();
        } else if self.state.is_some() && self.state != self.saved {
            self.save_state();
        }
        self.record_events();
        self.warnings
    }
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;
    use std::path::Path;

    use ctxmon_domain::{SessionKey, ThresholdTier, Timestamp};

    use super::*;
    use crate::config::Config;
    use crate::fakes::FixedClock;
    use crate::fakes::{FakeCheckpoints, FakeEvents, FakeGit, FakeSource, FakeStates, FakeTail};
    use crate::monitor::fill::FillSettings;
    use crate::ports::{
        PortError, ScanLimits, SessionStateStore, TranscriptError, TranscriptErrorKind,
        TranscriptReader, TranscriptReading,
    };

    /// The fake store, counting reads and writes.
    #[derive(Default)]
    struct Counted {
        inner: FakeStates,
        loads: Cell<u32>,
        saves: Cell<u32>,
        prompt_saves: Cell<u32>,
    }

    impl SessionStateStore for Counted {
        fn load(&self, session: &SessionKey) -> Result<Option<SessionState>, PortError> {
            self.loads.set(self.loads.get() + 1);
            self.inner.load(session)
        }
        fn save(&self, session: &SessionKey, state: &SessionState) -> Result<(), PortError> {
            self.saves.set(self.saves.get() + 1);
            self.inner.save(session, state)
        }
        fn last_prompt(&self, session: &SessionKey) -> Option<Timestamp> {
            self.inner.last_prompt(session)
        }
        fn save_last_prompt(&self, session: &SessionKey, at: Timestamp) -> Result<(), PortError> {
            self.prompt_saves.set(self.prompt_saves.get() + 1);
            self.inner.save_last_prompt(session, at)
        }
    }

    struct NoTranscript;
    impl TranscriptReader for NoTranscript {
        fn read_latest(
            &self,
            _: &Path,
            _: ScanLimits,
        ) -> Result<TranscriptReading, TranscriptError> {
            Err(TranscriptError::new(TranscriptErrorKind::NotFound, "none"))
        }
    }

    /// Runs `f` on a fresh run of session `s1` over `states`; returns the run's warnings.
    fn with_run(
        states: &Counted,
        events: &FakeEvents,
        f: impl FnOnce(&mut HookRun<'_>),
    ) -> Vec<Warning> {
        let config = Config::default();
        let settings = FillSettings::from_config(&config).unwrap();
        let (tail, clock) = (FakeTail::default(), FixedClock::new(Timestamp(1_000), 1));
        let (checkpoints, source, git) = (
            FakeCheckpoints::default(),
            FakeSource::default(),
            FakeGit(None),
        );
        let ports = HookPorts {
            transcripts: &NoTranscript,
            tail: &tail,
            states,
            events,
            clock: &clock,
            checkpoints: &checkpoints,
            source: &source,
            git: &git,
            files: &crate::fakes::FakeFiles::default(),
        };
        let ctx = HookContext {
            config: &config,
            settings: &settings,
            project_dir: Path::new("/proj"),
            session_id: Some("s1"),
            transcript_path: None,
            cwd: None,
            config_error: None,
        };
        let mut run = HookRun::new(ctx, ports);
        f(&mut run);
        run.finish()
    }

    #[test]
    fn the_state_is_loaded_once_and_saved_once_and_only_when_it_changed() {
        let (states, events) = (Counted::default(), FakeEvents::default());
        with_run(&states, &events, |run| {
            run.state();
            run.state();
        });
        assert_eq!(
            (states.loads.get(), states.saves.get()),
            (1, 0),
            "unchanged: no write"
        );
        with_run(&states, &events, |run| {
            run.state().last_tier = Some(ThresholdTier::Low);
            run.state().last_fill = Some(0.55);
        });
        assert_eq!((states.loads.get(), states.saves.get()), (2, 1));
        // A step that saved early (it must know the save worked) is not saved again.
        with_run(&states, &events, |run| {
            run.state().last_tier = Some(ThresholdTier::Warning);
            assert!(run.save_state());
        });
        assert_eq!((states.loads.get(), states.saves.get()), (3, 2));
        let saved = states.inner.states.borrow()[&SessionKey::from_raw("s1")].clone();
        assert_eq!(saved.last_tier, Some(ThresholdTier::Warning));
        assert!(saved.updated_at.is_some());
        // A run that never asks for the state reads nothing.
        with_run(&states, &events, |_| {});
        assert_eq!(states.loads.get(), 3);
    }

    #[test]
    fn a_new_prompt_time_alone_does_not_rewrite_the_state() {
        // Every prompt moves the time of the last prompt: rewriting the whole state for it
        // was most of a prompt's own work.
        let (states, events) = (Counted::default(), FakeEvents::default());
        let at = |ms| Some(Timestamp::from_millis(ms));
        with_run(&states, &events, |run| {
            run.state().last_prompt_at = at(1_000);
        });
        assert_eq!((states.saves.get(), states.prompt_saves.get()), (0, 1));
        with_run(&states, &events, |run| {
            assert_eq!(run.state().last_prompt_at, at(1_000));
            run.state().last_prompt_at = at(2_000);
            run.state().last_tier = Some(ThresholdTier::Low);
        });
        assert_eq!((states.saves.get(), states.prompt_saves.get()), (1, 2));
        with_run(&states, &events, |run| {
            assert_eq!(run.state().last_prompt_at, at(2_000));
            run.state().last_tier = Some(ThresholdTier::Warning);
        });
        assert_eq!((states.saves.get(), states.prompt_saves.get()), (2, 2));
    }

    #[test]
    fn problems_become_warnings_and_a_failed_save_is_not_repeated() {
        let (states, events) = (Counted::default(), FakeEvents::default());
        states.inner.fail.set(true);
        events.fail.set(true);
        let warnings = with_run(&states, &events, |run| {
            run.state().last_tier = Some(ThresholdTier::Low);
            assert!(!run.save_state());
            run.record(ctxmon_domain::DomainEvent::SessionEnded { reason: "x".into() });
        });
        let shown: Vec<String> = warnings.iter().map(ToString::to_string).collect();
        assert_eq!(shown.len(), 3, "{shown:?}");
        assert!(shown[0].starts_with("session state unreadable, starting afresh: "));
        assert!(shown[1].starts_with("session state not saved: "));
        assert!(shown[2].starts_with("events not recorded: "));
        assert_eq!(states.saves.get(), 1);
    }

    #[test]
    fn events_are_recorded_in_one_write_in_their_order() {
        let (states, events) = (Counted::default(), FakeEvents::default());
        let warnings = with_run(&states, &events, |run| {
            run.record(ctxmon_domain::DomainEvent::SessionEnded { reason: "a".into() });
            run.record(ctxmon_domain::DomainEvent::SessionEnded { reason: "b".into() });
        });
        assert!(warnings.is_empty(), "{warnings:?}");
        let records = events.records.borrow();
        let reasons: Vec<String> = records
            .iter()
            .map(|r| match &r.event {
                ctxmon_domain::DomainEvent::SessionEnded { reason } => reason.clone(),
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(reasons, ["a", "b"]);
        assert_eq!(
            records[0].timestamp, records[1].timestamp,
            "one write, one time"
        );
        assert_eq!(records[0].session_id.as_deref(), Some("s1"));
    }
}
