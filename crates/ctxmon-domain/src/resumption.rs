//! Resumption state: what the agent needs handed back after a compaction (contract C5).
//!
//! It comes either from the project's resumption source file (`ORCHESTRATION.yaml`'s
//! `resumption:` section, written by the agent or its orchestrator) or, for most users, is
//! derived from the transcript's tail. Only the keys the generators use are kept.

use serde::ser::SerializeStruct;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Where a resumption state came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum ResumptionOrigin {
    /// The resumption source file.
    SourceFile,
    /// Derived from the transcript tail.
    #[default]
    Transcript,
}

/// How the work's quality has moved, as an orchestrator records it in the source file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(default)]
pub struct QualityTrajectory {
    /// The latest quality score, on whatever scale the orchestrator uses (e.g. 0.0 to 1.0).
    pub score: Option<f64>,
    /// Which iteration of the work the score belongs to.
    pub iteration: Option<u64>,
}

/// A file the next context should read first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(default)]
pub struct FileToRead {
    /// The path as the source file gives it (relative to the project or absolute).
    pub path: String,
    /// Lower numbers first; files without a priority come last.
    pub priority: Option<i64>,
    /// Why it matters, when the source file says.
    pub reason: Option<String>,
}

/// A decision from the source file: what was decided and, when the file says, why.
///
/// Stored as a plain string when there is no rationale (as checkpoints always stored
/// decisions, so older ones load unchanged), else as `{decision, rationale}`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct KeyDecision {
    /// What was decided.
    pub decision: String,
    /// Why, when the source file says.
    pub rationale: Option<String>,
}

impl KeyDecision {
    /// A decision with an optional rationale.
    pub fn new(decision: impl Into<String>, rationale: Option<String>) -> KeyDecision {
        KeyDecision {
            decision: decision.into(),
            rationale,
        }
    }
}

/// One line: "decision — rationale" (what the resumption context shows).
impl std::fmt::Display for KeyDecision {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.rationale {
            Some(why) => write!(f, "{} — {why}", self.decision),
            None => f.write_str(&self.decision),
        }
    }
}

impl From<&str> for KeyDecision {
    fn from(decision: &str) -> KeyDecision {
        KeyDecision::new(decision, None)
    }
}

impl From<String> for KeyDecision {
    fn from(decision: String) -> KeyDecision {
        KeyDecision::new(decision, None)
    }
}

/// Compares the one-line form, so a list of decisions reads like a list of strings in tests.
impl PartialEq<&str> for KeyDecision {
    fn eq(&self, other: &&str) -> bool {
        match &self.rationale {
            None => self.decision == *other,
            Some(why) => other
                .strip_prefix(self.decision.as_str())
                .and_then(|rest| rest.strip_prefix(" — "))
                .is_some_and(|rest| rest == why),
        }
    }
}

impl Serialize for KeyDecision {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match &self.rationale {
            None => s.serialize_str(&self.decision),
            Some(why) => {
                let mut map = s.serialize_struct("KeyDecision", 2)?;
                map.serialize_field("decision", &self.decision)?;
                map.serialize_field("rationale", why)?;
                map.end()
            }
        }
    }
}

impl<'de> Deserialize<'de> for KeyDecision {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<KeyDecision, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Repr {
            Text(String),
            Full {
                decision: String,
                #[serde(default)]
                rationale: Option<String>,
            },
        }
        Ok(match Repr::deserialize(d)? {
            Repr::Text(decision) => KeyDecision::new(decision, None),
            Repr::Full {
                decision,
                rationale,
            } => KeyDecision::new(decision, rationale),
        })
    }
}

/// One entry of a todo or task list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(default)]
pub struct Todo {
    /// What is to be done.
    pub content: String,
    /// `pending`, `in_progress` or `completed` (TodoWrite's statuses; others kept as given).
    pub status: String,
}

/// What the agent needs handed back after a compaction. Every field is optional or may be
/// empty; [`ResumptionState::is_empty`] says whether any of it helps.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(default)]
pub struct ResumptionState {
    /// Which source this state came from.
    pub origin: ResumptionOrigin,
    /// `recovery_state` or `summary` from the source file.
    pub summary: Option<String>,
    /// From the source file only.
    pub quality_trajectory: Option<QualityTrajectory>,
    /// Decisions from the source file, in document order.
    pub decisions: Vec<KeyDecision>,
    /// One line per agent from the source file (`agent (status): summary`).
    pub agent_summaries: Vec<String>,
    /// From the source file, lowest priority number first.
    pub files_to_read: Vec<FileToRead>,
    /// What to do next, from the source file, in order.
    pub next_steps: Vec<String>,
    /// When the source file says it was last updated, as written there.
    pub updated_at: Option<String>,
    /// Newest last, verbatim but trimmed.
    pub last_user_requests: Vec<String>,
    /// The newest TodoWrite list.
    pub todos: Vec<Todo>,
    /// Files written or edited, most recent last, without duplicates.
    pub files_touched: Vec<String>,
    /// The agent's newest answer text in the transcript tail.
    pub last_assistant_text: Option<String>,
    /// The session's goal: its first request typed by the user (leading slash commands
    /// skipped), from the transcript's start.
    pub goal: Option<String>,
    /// The agent's tasks (task tools: created, updated, listed), in creation order; `status`
    /// as the tools spell it.
    pub tasks: Vec<Todo>,
    /// The git branch the transcript's newest line names (when `.git` cannot say).
    pub git_branch: Option<String>,
    /// Uncommitted changes (`git status` entries) at the compaction; `None` when unknown.
    pub uncommitted_changes: Option<u64>,
    /// Commits made in the session, "short-hash subject", oldest first.
    pub commits: Vec<String>,
    /// The newest failing tool result that no later success of the same command resolved.
    pub failure: Option<Failure>,
    /// The newest test or build command and whether it passed.
    pub last_check: Option<Check>,
    /// Subagents started and not yet finished, by their description.
    pub subagents_running: Vec<String>,
    /// Each tool call the user declined, with what they said: `declined Edit a.rs: "keep it"`,
    /// oldest first.
    pub user_constraints: Vec<String>,
    /// When the newest request is a short reply ("yes", "sí", "继续"), the assistant's last
    /// question or proposal before it, verbatim: what the reply answers.
    pub request_answers: Option<String>,
    /// The assistant's newest words since the newest request (the end of its newest text),
    /// which say what it does next ("… Now let me…") or how it answered.
    pub intent: Option<String>,
    /// The newest request's turn ended with the assistant's answer (nothing was under way).
    pub request_answered: bool,
    /// Tool calls made after the assistant's newest words: what they announced may be done.
    pub calls_since_intent: u64,
    /// The user's standing instructions (never, always, don't, only, must, use … instead, and
    /// their Spanish and Chinese forms), verbatim, newest first. A rule the user later took
    /// back is gone, or reads "newer words (replaces: older words)".
    pub rules: Vec<String>,
    /// The files the next step needs: those named in the newest request and in the statement
    /// of intent, as the transcript spells them.
    pub files_next: Vec<String>,
    /// Files edited in the newest turns (the current request's and the one before), newest
    /// first.
    pub files_recent: Vec<String>,
    /// Files read (not edited) in the newest turns, newest first.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub files_read: Vec<String>,
    /// The lines of each file the newest turns read or edited last, as the tool's result
    /// numbered them: where to look again rather than reading the whole file.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub line_ranges: Vec<LineRange>,
    /// Files the session created, oldest first.
    pub files_created: Vec<String>,
    /// The newest commands that worked (builds, tests, runs), verbatim, newest first.
    pub commands_ok: Vec<String>,
    /// Facts of the environment the work runs in, taken from commands that worked (container,
    /// database, host, port, virtualenv) and from tools that failed as unusable.
    pub environment: Vec<String>,
    /// What the agent calls its list of steps: `plan` (Codex) or `todo list` (Claude Code);
    /// `None` when the session has none.
    pub todo_noun: Option<String>,
    /// "use `X`, not `Y`": a command that failed and the variant of it that worked next,
    /// newest first.
    pub lessons: Vec<String>,
    /// The agent's own resumption note, as it stood at the checkpoint, with what the
    /// transcript shows happened after it was written.
    pub note: Option<AgentNote>,
}

/// The lines of a file a read or an edit last showed, first to last (1-based, inclusive).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(default)]
pub struct LineRange {
    /// The file, as the call named it.
    pub path: String,
    /// The first line shown.
    pub first: u64,
    /// The last line shown.
    pub last: u64,
}

/// The note an agent keeps of its own state (goal, done, in progress, next, decisions,
/// gotchas), copied into the checkpoint: what the agent itself judged worth keeping, which
/// neither a transcript extract nor a model's summary can know.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(default)]
pub struct AgentNote {
    /// The note's text, trimmed and capped.
    pub text: String,
    /// Where the note is, as the agent was told to write it.
    pub location: String,
    /// When it was last written (RFC 3339), from the file's modification time.
    pub written_at: Option<String>,
    /// The user's requests the transcript holds from after the note was written, verbatim,
    /// oldest first: what the note cannot know.
    pub requests_after: Vec<String>,
    /// Files edited after the note was written, newest first.
    pub files_after: Vec<String>,
    /// Items of the todo list marked completed after the note was written.
    pub completed_after: Vec<String>,
    /// Tool calls the agent made after the note was written: work the note cannot know.
    pub calls_after: u64,
}

impl AgentNote {
    /// True when the user asked for something after the note was written: the note describes
    /// an earlier state and must not outrank what came after it.
    pub fn is_older_than_newest_request(&self) -> bool {
        !self.requests_after.is_empty()
    }

    /// True when anything happened after the note was written: a request or a tool call.
    pub fn is_behind(&self) -> bool {
        self.is_older_than_newest_request() || self.calls_after > 0
    }
}

/// A failed tool call: what ran and the lines that say what failed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(default)]
pub struct Failure {
    /// The command (a shell call) or the tool's name.
    pub command: String,
    /// The lines that say what failed, then the result's last lines.
    pub excerpt: String,
}

/// A test or build command and its outcome.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(default)]
pub struct Check {
    /// The command as it ran (shell commands verbatim).
    pub command: String,
    /// True when it exited 0 (or the tool reported no error).
    pub passed: bool,
}

impl ResumptionState {
    /// True when nothing in it would help an agent resume.
    pub fn is_empty(&self) -> bool {
        self.summary.is_none()
            && self.quality_trajectory.is_none()
            && self.decisions.is_empty()
            && self.agent_summaries.is_empty()
            && self.files_to_read.is_empty()
            && self.next_steps.is_empty()
            && self.last_user_requests.is_empty()
            && self.todos.is_empty()
            && self.files_touched.is_empty()
            && self.last_assistant_text.is_none()
            && self.goal.is_none()
            && self.tasks.is_empty()
            && self.commits.is_empty()
            && self.failure.is_none()
            && self.last_check.is_none()
            && self.subagents_running.is_empty()
            && self.user_constraints.is_empty()
            && self.request_answers.is_none()
            && self.intent.is_none()
            && self.rules.is_empty()
            && self.files_next.is_empty()
            && self.files_recent.is_empty()
            && self.files_created.is_empty()
            && self.files_read.is_empty()
            && self.commands_ok.is_empty()
            && self.environment.is_empty()
            && self.lessons.is_empty()
            && self.note.is_none()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_decision_is_a_string_unless_it_has_a_rationale() {
        let plain = KeyDecision::from("use sqlite");
        let why = KeyDecision::new("no async", Some("hooks are short".into()));
        let json = serde_json::to_string(&[&plain, &why]).unwrap();
        assert_eq!(
            json,
            r#"["use sqlite",{"decision":"no async","rationale":"hooks are short"}]"#
        );
        let back: Vec<KeyDecision> = serde_json::from_str(&json).unwrap();
        assert_eq!(back, [plain, why.clone()]);
        assert_eq!(why.to_string(), "no async — hooks are short");
        // A checkpoint written before rationales were kept loads as before.
        let old: ResumptionState = serde_json::from_str(r#"{"decisions":["a — b"]}"#).unwrap();
        assert_eq!(old.decisions, [KeyDecision::from("a — b")]);
    }
}
