//! The input of one assembly run: who the context is for, what they want, and the world state.
//!
//! Field names are camelCase on the wire so the seed's JSON shapes are accepted as written. The
//! top level rejects unknown keys: a misspelt `recentEvent` would otherwise silently drop every
//! event. Inner records accept extra keys, because producers attach their own metadata to files,
//! memories and events.

use serde::{Deserialize, Serialize};

use super::constraints::ContextConstraints;
use super::memory::MemorySnapshot;
use super::open_enum::open_enum;
use super::repo::RepoSnapshot;
use super::runtime::RuntimeEvent;

/// Everything `ContextBuilder::build` reads. Nothing else reaches the assembly: no file system,
/// no clock (`constraints.now_ms` stands in for "now").
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ContextBuildInput {
    /// Identifies the run for the caller; assembly does not interpret it.
    pub run_id: String,
    pub goal: UserGoal,
    pub agent: AgentDescriptor,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repo: Option<RepoSnapshot>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory: Option<MemorySnapshot>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub recent_events: Vec<RuntimeEvent>,
    pub constraints: ContextConstraints,
}

/// What the user asked for.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UserGoal {
    pub raw: String,
    /// A rewritten goal; used instead of `raw` when present.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub normalized: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub intent_type: Option<IntentType>,
}

open_enum! {
    /// The kind of work the goal asks for.
    pub enum IntentType {
        Coding = "coding",
        Debugging = "debugging",
        Refactoring = "refactoring",
        Explaining = "explaining",
        Unclassified = "other",
    }
}

/// The agent the context is assembled for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentDescriptor {
    pub id: String,
    pub role: AgentRole,
    #[serde(default)]
    pub capabilities: Vec<AgentCapability>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub specializations: Vec<String>,
}

open_enum! {
    /// The agent's primary role. Unknown roles are treated as `generic` (and noted).
    pub enum AgentRole {
        Planner = "planner",
        Coder = "coder",
        Reviewer = "reviewer",
        Executor = "executor",
        Generic = "generic",
    }
}

open_enum! {
    /// Something the agent may do. Unknown capabilities are kept: a custom tool may require
    /// them by the same name.
    pub enum AgentCapability {
        ReadFiles = "read_files",
        WriteFiles = "write_files",
        Git = "git",
        RunTests = "run_tests",
        Search = "search",
        ExecuteCode = "execute_code",
    }
}

impl AgentDescriptor {
    /// Whether the agent has `capability` (compared by spelling, so `Other("git")` built by hand
    /// still matches `Git`).
    pub fn has_capability(&self, capability: &AgentCapability) -> bool {
        self.capabilities
            .iter()
            .any(|c| c.as_str() == capability.as_str())
    }
}
