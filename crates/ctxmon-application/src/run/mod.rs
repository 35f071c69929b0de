//! One invocation of a use case: what it knows about itself ([`HookContext`]), the ports it may
//! use ([`HookPorts`]), where its session's state is kept ([`session_key`]), the run that
//! loads and saves that state and collects events and warnings ([`HookRun`]), and the
//! warnings themselves ([`Warning`]).
//!
//! This module sits below both `hooks` and `handoff`: a hook writes resume logs, and a resume
//! log written on request (`ctxmon resume-log generate`) runs on the same context and ports
//! without any hook.

mod hook_run;
mod warning;

pub use hook_run::HookRun;
pub use warning::Warning;

use std::path::Path;

use ctxmon_domain::SessionKey;

use crate::config::Config;
use crate::monitor::fill::FillSettings;
use crate::ports::{
    CheckpointRepository, Clock, EventLog, GitInfo, ProjectFiles, ResumptionSource,
    SessionStateStore, TranscriptReader, TranscriptTail,
};

/// Every port a hook may need.
#[derive(Clone, Copy)]
pub struct HookPorts<'a> {
    /// Finds the newest usage record at the transcript's end (the fill).
    pub transcripts: &'a dyn TranscriptReader,
    /// Reads the transcript's recent lines as typed records (resumption state, resume logs).
    pub tail: &'a dyn TranscriptTail,
    /// Loads and saves the per-session state.
    pub states: &'a dyn SessionStateStore,
    /// Appends to `events.jsonl`.
    pub events: &'a dyn EventLog,
    /// The time (the only clock use cases read).
    pub clock: &'a dyn Clock,
    /// Writes, reads, acknowledges and prunes checkpoints.
    pub checkpoints: &'a dyn CheckpointRepository,
    /// Reads the resumption source file.
    pub source: &'a dyn ResumptionSource,
    /// Reads the branch and head commit.
    pub git: &'a dyn GitInfo,
    /// Says which of the files a handoff names still exist.
    pub files: &'a dyn ProjectFiles,
}

impl std::fmt::Debug for HookPorts<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("HookPorts")
    }
}

/// What every hook knows about its invocation.
#[derive(Debug, Clone, Copy)]
pub struct HookContext<'a> {
    /// The configuration in force (the defaults when it could not be loaded).
    pub config: &'a Config,
    /// The fill estimator's settings, derived from `config` plus the agent's own settings.
    pub settings: &'a FillSettings,
    /// The project folder: where `.ctxmon/` is and relative paths start.
    pub project_dir: &'a Path,
    /// The raw `session_id` from the hook input (recorded in events as given).
    pub session_id: Option<&'a str>,
    /// `transcript_path` from the hook input.
    pub transcript_path: Option<&'a Path>,
    /// `cwd` from the hook input.
    pub cwd: Option<&'a str>,
    /// Set when the configuration could not be loaded and `config` and `settings` are the
    /// built-in defaults standing in for it (the reason, naming the bad key and its file).
    /// Hooks still do what does not depend on the configured window and thresholds, but
    /// `prompt_submit` shows no tier: one computed on a window the user may have configured
    /// differently could be wrong either way.
    pub config_error: Option<&'a str>,
}

impl HookContext<'_> {
    /// Where this session's state is kept (see [`session_key`]).
    pub fn session_key(&self) -> Option<SessionKey> {
        session_key(self.session_id, self.transcript_path)
    }
}

/// The key of a session's per-session state: its `session_id`; without one, its transcript's
/// file name without extension (Claude Code names the transcript after the session, so that is
/// the same key); without either, none, and nothing per-session is kept. A blank id is no id:
/// before, every input without one shared the state of the empty id.
pub fn session_key(session_id: Option<&str>, transcript_path: Option<&Path>) -> Option<SessionKey> {
    if let Some(id) = session_id.filter(|s| !s.trim().is_empty()) {
        return Some(SessionKey::from_raw(id));
    }
    let stem = transcript_path?.file_stem()?.to_string_lossy();
    (!stem.trim().is_empty()).then(|| SessionKey::from_raw(&stem))
}

#[cfg(test)]
mod session_key_tests {
    use super::*;

    /// Every input without `session_id` once mapped to the hash of the empty id, so all such
    /// sessions shared one state file.
    #[test]
    fn the_key_is_the_id_else_the_transcripts_stem_else_none() {
        let t = Some(Path::new("/home/u/.claude/projects/p/0f3c2a10-5b1e.jsonl"));
        let other = Some(Path::new("/home/u/.claude/projects/p/77aa.jsonl"));
        let key = |id, path| session_key(id, path).map(|k| k.as_str().to_string());
        assert_eq!(key(Some("abc"), t).as_deref(), Some("abc"));
        // Claude Code names the transcript after its session: the same key either way.
        assert_eq!(key(None, t).as_deref(), Some("0f3c2a10-5b1e"));
        assert_eq!(key(Some(" "), t).as_deref(), Some("0f3c2a10-5b1e"));
        assert_ne!(key(None, t), key(None, other));
        assert_eq!(key(None, None), None);
        assert_eq!(key(Some(""), Some(Path::new("/"))), None);
        // A stem that is not a safe name is hashed like any unsafe id.
        let odd = key(None, Some(Path::new("/t/a b.jsonl"))).unwrap();
        assert!(odd.starts_with("h-"), "{odd}");
    }
}
