//! What an agent writes for `ctxmon resume-log generate --from`: the narrative sections, in the
//! resume log's own JSON format (a document with every field loads whole). ctxmon
//! fills in its measured metrics, the session and the facts it can read itself.
//!
//! Every struct rejects unknown fields: `next_step` instead of `next_steps` would otherwise
//! drop the agent's most important section without a word. `critical_context` takes any JSON
//! object, since agents nest maps and lists there.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::{ContextValue, Decision, ReportedMetrics};

/// What an agent writes for `ctxmon resume-log generate --from`: its own account of the session.
/// Its sections take precedence over what ctxmon derives; unknown fields are rejected.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields, default)]
pub struct ResumeLogDraft {
    /// The session the document is about; `ctxmon resume-log generate`
    /// uses it when neither `--session` nor `$CLAUDE_CODE_SESSION_ID` names one.
    pub session_id: Option<String>,
    /// The agent's own figures, shown beside ctxmon's measurement ([`ReportedMetrics`]).
    pub context_metrics: Option<ReportedMetrics>,
    /// What the session set out to do, in the agent's words.
    pub mission_summary: Option<String>,
    /// What was done.
    pub accomplishments: Vec<String>,
    /// What was learnt that the next session should know.
    pub key_findings: Vec<String>,
    /// Choices made and why.
    pub decisions: Vec<Decision>,
    /// What to do next, in order.
    pub next_steps: Vec<String>,
    /// Paths, ids and values the next session must not lose (any JSON object).
    pub critical_context: BTreeMap<String, ContextValue>,
    /// Facts the agent recorded about the session.
    pub metadata: DraftMetadata,
}

/// The part of the session metadata an agent may know better than the transcript.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields, default)]
pub struct DraftMetadata {
    /// Files the agent wrote or edited.
    pub files_modified: Vec<String>,
    /// Commands the agent ran.
    pub commands_run: Vec<String>,
    /// Errors the agent met.
    pub errors: Vec<String>,
    /// The agents or subagents it used.
    pub agents_used: Vec<String>,
    /// Anything else, by name.
    pub notes: BTreeMap<String, String>,
    /// How long the session ran, as the agent reports it.
    pub session_duration_minutes: Option<u64>,
}
