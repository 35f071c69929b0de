//! What an agent writes for `ctxmon resume-log generate --from`: the narrative sections only.
//! ctxmon fills in the metrics, the session id and the facts it can read itself.
//!
//! Every struct rejects unknown fields: `next_step` instead of `next_steps` would otherwise
//! drop the agent's most important section without a word.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::Decision;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields, default)]
pub struct ResumeLogDraft {
    pub mission_summary: Option<String>,
    pub accomplishments: Vec<String>,
    pub key_findings: Vec<String>,
    pub decisions: Vec<Decision>,
    pub next_steps: Vec<String>,
    pub critical_context: BTreeMap<String, String>,
    pub metadata: DraftMetadata,
}

/// The part of the session metadata an agent may know better than the transcript.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields, default)]
pub struct DraftMetadata {
    pub files_modified: Vec<String>,
    pub commands_run: Vec<String>,
    pub errors: Vec<String>,
    pub agents_used: Vec<String>,
    pub notes: BTreeMap<String, String>,
}
