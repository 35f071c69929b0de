//! Resumption state: what the agent needs handed back after a compaction (spec §5).
//!
//! It comes either from the project's resumption source file (`ORCHESTRATION.yaml`'s
//! `resumption:` section, written by the agent or its orchestrator) or, for most users, is
//! derived from the transcript's tail. Only the keys the generators use are kept.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum ResumptionOrigin {
    /// The resumption source file.
    SourceFile,
    /// Derived from the transcript tail.
    #[default]
    Transcript,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(default)]
pub struct QualityTrajectory {
    pub score: Option<f64>,
    pub iteration: Option<u64>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(default)]
pub struct FileToRead {
    pub path: String,
    /// Lower numbers first; files without a priority come last.
    pub priority: Option<i64>,
    pub reason: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(default)]
pub struct Todo {
    pub content: String,
    /// `pending`, `in_progress` or `completed` (TodoWrite's statuses; others kept as given).
    pub status: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(default)]
pub struct ResumptionState {
    pub origin: ResumptionOrigin,
    /// `recovery_state` or `summary` from the source file.
    pub summary: Option<String>,
    pub quality_trajectory: Option<QualityTrajectory>,
    pub decisions: Vec<String>,
    pub agent_summaries: Vec<String>,
    pub files_to_read: Vec<FileToRead>,
    pub next_steps: Vec<String>,
    pub updated_at: Option<String>,
    /// Newest last, verbatim but trimmed.
    pub last_user_requests: Vec<String>,
    /// The newest TodoWrite list.
    pub todos: Vec<Todo>,
    /// Files written or edited, most recent last, without duplicates.
    pub files_touched: Vec<String>,
    pub last_assistant_text: Option<String>,
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
    }
}
