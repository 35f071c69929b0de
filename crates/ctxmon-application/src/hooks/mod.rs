//! One use case per Claude Code hook event. Each takes plain inputs and ports and returns what
//! to answer; the wire format (JSON on stdout, exit 0) is the CLI's business. None of them
//! fails: problems come back as warnings beside the answer.

mod compaction;
mod delivery;
pub mod lifecycle;
pub mod pre_compact;
pub mod pre_tool_use;
pub mod prompt_submit;
pub mod session_start;

pub(crate) use compaction::note_checkpoint;
pub use compaction::reset_if_stale;

#[cfg(test)]
mod pre_compact_tests;
#[cfg(test)]
mod prompt_submit_tests;
#[cfg(test)]
mod repeat_tests;
#[cfg(test)]
mod resilience_tests;
#[cfg(test)]
mod session_start_tests;
#[cfg(test)]
mod test_world;

use std::path::Path;

use ctxmon_domain::{EventRecord, SessionKey, SessionState};

use crate::config::Config;
use crate::fill::FillSettings;
use crate::ports::{
    CheckpointRepository, Clock, EventLog, GitInfo, ResumptionSource, SessionStateStore,
    TranscriptReader, TranscriptTail,
};

/// Every port a hook may need.
#[derive(Clone, Copy)]
pub struct HookPorts<'a> {
    pub transcripts: &'a dyn TranscriptReader,
    pub tail: &'a dyn TranscriptTail,
    pub states: &'a dyn SessionStateStore,
    pub events: &'a dyn EventLog,
    pub clock: &'a dyn Clock,
    pub checkpoints: &'a dyn CheckpointRepository,
    pub source: &'a dyn ResumptionSource,
    pub git: &'a dyn GitInfo,
}

impl std::fmt::Debug for HookPorts<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("HookPorts")
    }
}

/// What every hook knows about its invocation.
#[derive(Debug, Clone, Copy)]
pub struct HookContext<'a> {
    pub config: &'a Config,
    pub settings: &'a FillSettings,
    pub project_dir: &'a Path,
    /// The raw `session_id` from the hook input (recorded in events as given).
    pub session_id: Option<&'a str>,
    pub transcript_path: Option<&'a Path>,
    pub cwd: Option<&'a str>,
    /// Set when the configuration could not be loaded and `config` and `settings` are the
    /// built-in defaults standing in for it (the reason, naming the bad key and its file).
    /// Hooks still do what does not depend on the configured window and thresholds, but
    /// `prompt_submit` shows no tier: one computed on a window the user may have configured
    /// differently could be wrong either way.
    pub config_error: Option<&'a str>,
}

impl HookContext<'_> {
    pub fn session_key(&self) -> SessionKey {
        SessionKey::from_raw(self.session_id.unwrap_or(""))
    }
}

/// Loads the session's state, or a fresh one (with a warning) when it cannot be read.
pub(crate) fn load_state(
    ctx: &HookContext<'_>,
    ports: &HookPorts<'_>,
    warnings: &mut Vec<String>,
) -> SessionState {
    let mut state = match ports.states.load(&ctx.session_key()) {
        Ok(state) => state.unwrap_or_default(),
        Err(e) => {
            warnings.push(format!("session state unreadable, starting afresh: {e}"));
            SessionState::default()
        }
    };
    state.schema_version = SessionState::SCHEMA_VERSION;
    state
}

pub(crate) fn save_state(
    ctx: &HookContext<'_>,
    ports: &HookPorts<'_>,
    state: &mut SessionState,
    warnings: &mut Vec<String>,
) {
    state.updated_at = Some(ports.clock.now());
    if let Err(e) = ports.states.save(&ctx.session_key(), state) {
        warnings.push(format!("session state not saved: {e}"));
    }
}

pub(crate) fn record(
    ctx: &HookContext<'_>,
    ports: &HookPorts<'_>,
    events: Vec<ctxmon_domain::DomainEvent>,
    warnings: &mut Vec<String>,
) {
    if events.is_empty() {
        return;
    }
    let now = ports.clock.now();
    let session = ctx.session_id.map(str::to_string);
    let records: Vec<EventRecord> = events
        .into_iter()
        .map(|e| EventRecord::new(now, session.clone(), e))
        .collect();
    if let Err(e) = ports.events.append(&records) {
        warnings.push(format!("events not recorded: {e}"));
    }
}
