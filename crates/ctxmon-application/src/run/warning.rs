//! Every problem a use case reports instead of failing, as data, and the one place that words
//! them for the hook log, stderr and `--json` output ([`Warning`]'s `Display`).
//!
//! A use case never fails (contract C15): what went wrong beside its answer becomes a warning. The
//! wording is part of the contract (the hook log is read by people and by `doctor`, tests look
//! for phrases), so it lives here and nowhere else.

use std::fmt;

use ctxmon_domain::CheckpointId;

use crate::ports::PortError;

/// A problem that did not stop a use case.
#[derive(Debug, Clone, PartialEq)]
pub enum Warning {
    // The invocation itself (what the composition root found before any use case ran).
    /// A line of the configuration's error; `on_defaults` adds that the hook runs on the
    /// built-in defaults (prompt-submit's own warning says what it leaves out instead).
    ConfigInvalid {
        /// The loader's message, naming the bad key and its file.
        line: String,
        /// True when the hook runs on the built-in defaults instead.
        on_defaults: bool,
    },
    /// The hook's stdin could not be read or parsed (the reason as the wire layer gave it).
    InputUnreadable(String),
    /// The input names another hook's event: the registration is wrong, nothing is answered.
    WrongEvent {
        /// The `hook_event_name` the input carried.
        received: String,
        /// The `ctxmon hooks` subcommand that ran.
        command: String,
        /// The event that subcommand serves.
        expected: &'static str,
    },
    /// The input has no `hook_event_name`; it is taken as this hook's event.
    NoEventName,
    /// The configured thresholds are invalid (the reason).
    ThresholdsInvalid(String),
    /// The agent's transcript could not be found (the reason, e.g. a Codex session's rollout).
    TranscriptNotFound(String),
    /// A value in the agent's own settings that was ignored (the reason, naming its file).
    AgentSettingIgnored(String),
    /// The per-session lock could not be taken in time; the hook runs unlocked.
    SessionLockNotTaken(PortError),

    // Session state and events.
    /// The session state could not be read; the hook starts from an empty state.
    StateUnreadable(PortError),
    /// The session state could not be saved.
    StateNotSaved(PortError),
    /// The hook's events could not be appended to `events.jsonl`.
    EventsNotRecorded(PortError),
    /// `ctxmon checkpoint ack`'s one event.
    EventNotRecorded(PortError),

    // The fill.
    /// Why the fill was not measured (the estimator's note).
    FillNotMeasured(String),
    /// Post-tool-use measured a rise but could not save its record of the tag.
    TagNotRemembered,

    // Checkpoints.
    /// The checkpoint folder could not be listed or read.
    CheckpointsUnreadable(PortError),
    /// One checkpoint could not be read.
    CheckpointUnreadable {
        /// Which checkpoint.
        id: CheckpointId,
        /// Why.
        error: PortError,
    },
    /// PreCompact's checkpoint could not be written.
    CheckpointNotSaved(PortError),
    /// A checkpoint could not be marked acknowledged.
    CheckpointNotAcknowledged {
        /// Which checkpoint.
        id: CheckpointId,
        /// Why.
        error: PortError,
    },
    /// The session's older checkpoints could not be marked acknowledged.
    OlderCheckpointsNotAcknowledged(PortError),
    /// The claim on a checkpoint's alert could not be taken; the alert is given anyway.
    AlertNotClaimed {
        /// Which checkpoint.
        id: CheckpointId,
        /// Why.
        error: PortError,
    },
    /// The session's earlier checkpoints could not be listed for the history line.
    CheckpointHistoryUnavailable(PortError),
    /// Pruning needs the checkpoints the resume logs name; they could not be read.
    PruneWithoutResumeLogs(PortError),
    /// Pruning old checkpoints failed.
    PruneFailed(PortError),
    /// A checkpoint pruning left alone, as the repository words it.
    PruneKept(String),

    // Sources of a checkpoint's or a log's content.
    /// A problem with part of the resumption source file.
    SourceProblem {
        /// The source file's path, as configured.
        path: String,
        /// What is wrong with that part.
        problem: String,
    },
    /// The resumption source file could not be read.
    SourceUnreadable(PortError),
    /// The agent's resumption note could not be read (a link, not a file, an I/O error).
    NoteUnreadable(PortError),
    /// The transcript's end could not be read (the reason).
    TailUnreadable(String),
    /// The transcript's start (for the session's goal) could not be read (the reason).
    HeadUnreadable(String),
    /// `.git/HEAD` could not be read; the checkpoint records no branch or commit.
    GitHeadUnreadable,

    // Resume logs.
    /// The log of the checkpoint's session, named in the resumption context.
    ResumeLogUnreadable(PortError),
    /// The logs SessionStart may point at.
    ResumeLogsUnreadable(PortError),
    /// The session's previous resume log, whose content is carried over, could not be read.
    PreviousResumeLogUnreadable(PortError),
    /// Resume logs past `resume_logs.keep` could not be removed.
    ResumeLogsNotCleanedUp(PortError),
    /// A resume log needs a session id, and the hook input had none.
    ResumeLogWithoutSession,
    /// A resume log could not be saved.
    ResumeLogNotSaved {
        /// The trigger it was written for.
        trigger: String,
        /// Why.
        error: PortError,
    },
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use Warning::*;
        match self {
            ConfigInvalid { line, on_defaults } => {
                f.write_str(line)?;
                if *on_defaults {
                    f.write_str("; using built-in defaults")?;
                }
                Ok(())
            }
            InputUnreadable(why) | TranscriptNotFound(why) | AgentSettingIgnored(why) => {
                f.write_str(why)
            }
            WrongEvent {
                received,
                command,
                expected,
            } => write!(
                f,
                "received a {received} event on `hooks {command}` (expected {expected}); check the hook registration"
            ),
            NoEventName => {
                f.write_str("hook input has no hook_event_name; treating it as this hook's event")
            }
            ThresholdsInvalid(why) => write!(f, "invalid thresholds ({why}); using defaults"),
            SessionLockNotTaken(e) => write!(f, "session lock not taken ({e}); running unlocked"),
            StateUnreadable(e) => write!(f, "session state unreadable, starting afresh: {e}"),
            StateNotSaved(e) => write!(f, "session state not saved: {e}"),
            EventsNotRecorded(e) => write!(f, "events not recorded: {e}"),
            EventNotRecorded(e) => write!(f, "event not recorded: {e}"),
            FillNotMeasured(note) => write!(f, "fill not measured: {note}"),
            TagNotRemembered => f.write_str(
                "no <context-monitor> tag after this tool call: without its record it would be repeated after every call",
            ),
            CheckpointsUnreadable(e) => write!(f, "checkpoints unreadable: {e}"),
            CheckpointUnreadable { id, error } => write!(f, "checkpoint {id} unreadable: {error}"),
            CheckpointNotSaved(e) => write!(f, "checkpoint not saved: {e}"),
            CheckpointNotAcknowledged { id, error } => {
                write!(f, "checkpoint {id} not acknowledged: {error}")
            }
            OlderCheckpointsNotAcknowledged(e) => {
                write!(f, "older checkpoints not acknowledged: {e}")
            }
            AlertNotClaimed { id, error } => {
                write!(f, "alert about checkpoint {id} given without a claim: {error}")
            }
            CheckpointHistoryUnavailable(e) => write!(f, "checkpoint history unavailable: {e}"),
            PruneWithoutResumeLogs(e) => {
                write!(f, "old checkpoints not pruned: resume logs unreadable: {e}")
            }
            PruneFailed(e) => write!(f, "old checkpoints not pruned: {e}"),
            PruneKept(why) => f.write_str(why),
            SourceProblem { path, problem } => write!(f, "{path}: {problem}"),
            SourceUnreadable(e) => write!(f, "resumption source unreadable: {e}"),
            NoteUnreadable(e) => write!(f, "resumption note unreadable: {e}"),
            TailUnreadable(e) => write!(f, "transcript tail unreadable: {e}"),
            HeadUnreadable(e) => write!(f, "transcript start unreadable: {e}"),
            GitHeadUnreadable => f.write_str(
                "git HEAD unreadable (not a regular file, or neither a ref nor a commit id); the checkpoint records no branch or commit",
            ),
            ResumeLogUnreadable(e) => write!(f, "resume log unreadable: {e}"),
            ResumeLogsUnreadable(e) => write!(f, "resume logs unreadable: {e}"),
            PreviousResumeLogUnreadable(e) => write!(f, "previous resume log unreadable: {e}"),
            ResumeLogsNotCleanedUp(e) => write!(f, "old resume logs not cleaned up: {e}"),
            ResumeLogWithoutSession => {
                f.write_str("resume log not written: the hook input has no session_id")
            }
            ResumeLogNotSaved { trigger, error } => {
                write!(f, "resume log not saved ({trigger}): {error}")
            }
        }
    }
}

/// Serialised as its wording (`ctxmon resume-log generate --json` lists them).
impl serde::Serialize for Warning {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ports::PortErrorKind;

    /// The hook log's phrases that tests, `doctor` and people look for.
    #[test]
    fn the_wording_is_the_logs() {
        let e = || PortError::new(PortErrorKind::Busy, "x.lock is held");
        let cases = [
            (
                Warning::ConfigInvalid {
                    line: "bad key".into(),
                    on_defaults: true,
                },
                "bad key; using built-in defaults",
            ),
            (
                Warning::ConfigInvalid {
                    line: "bad key".into(),
                    on_defaults: false,
                },
                "bad key",
            ),
            (
                Warning::WrongEvent {
                    received: "Stop".into(),
                    command: "prompt-submit".into(),
                    expected: "UserPromptSubmit",
                },
                "received a Stop event on `hooks prompt-submit` (expected UserPromptSubmit); check the hook registration",
            ),
            (
                Warning::SessionLockNotTaken(e()),
                "session lock not taken (x.lock is held); running unlocked",
            ),
            (
                Warning::ResumeLogNotSaved {
                    trigger: "tier:critical".into(),
                    error: e(),
                },
                "resume log not saved (tier:critical): x.lock is held",
            ),
        ];
        for (warning, text) in cases {
            assert_eq!(warning.to_string(), text);
        }
        assert_eq!(
            serde_json::to_string(&Warning::StateNotSaved(e())).unwrap(),
            "\"session state not saved: x.lock is held\""
        );
    }
}
