//! The input of one assembly run: who the context is for, what they want, and the world state.
//!
//! Field names are camelCase on the wire, as the producers of these inputs write them. The
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
    /// What the user asked for; shown in the system prompt.
    pub goal: UserGoal,
    /// Who the context is for: the role picks the tools and the system prompt's identity.
    pub agent: AgentDescriptor,
    /// The files, diffs, symbols and git metadata to choose from; `None` when there is no
    /// repository.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repo: Option<RepoSnapshot>,
    /// Memories to choose from (pinned, recent, summaries).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory: Option<MemorySnapshot>,
    /// Recent tool calls, results, errors and interruptions, in any order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub recent_events: Vec<RuntimeEvent>,
    /// The token budget and the knobs of this run.
    pub constraints: ContextConstraints,
}

/// What the user asked for.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UserGoal {
    /// The request as the user wrote it.
    pub raw: String,
    /// A rewritten goal; used instead of `raw` when present.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub normalized: Option<String>,
    /// The kind of work, shown in the system prompt when given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub intent_type: Option<IntentType>,
}

open_enum! {
    /// The kind of work the goal asks for.
    pub enum IntentType {
        /// Writing new code.
        Coding = "coding",
        /// Finding and fixing a fault.
        Debugging = "debugging",
        /// Changing structure without changing behaviour.
        Refactoring = "refactoring",
        /// Explaining code or a concept.
        Explaining = "explaining",
        /// Anything else (`other`).
        Unclassified = "other",
    }
}

/// The agent the context is assembled for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentDescriptor {
    /// Identifies the agent for the caller; shown nowhere.
    pub id: String,
    /// The agent's primary role.
    pub role: AgentRole,
    /// What the agent may do; `CapabilityBasedFilter` offers a tool only when the agent has
    /// every capability it requires.
    #[serde(default)]
    pub capabilities: Vec<AgentCapability>,
    /// Areas the agent knows well, listed in the system prompt.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub specializations: Vec<String>,
}

open_enum! {
    /// The agent's primary role. Unknown roles are treated as `generic` (and noted).
    pub enum AgentRole {
        /// Analyses requirements and designs a plan.
        Planner = "planner",
        /// Implements features and fixes bugs.
        Coder = "coder",
        /// Reviews code for correctness and security.
        Reviewer = "reviewer",
        /// Runs commands, deployments and infrastructure tasks.
        Executor = "executor",
        /// A general assistant; also what unknown roles are treated as.
        Generic = "generic",
    }
}

open_enum! {
    /// Something the agent may do. Unknown capabilities are kept: a custom tool may require
    /// them by the same name.
    pub enum AgentCapability {
        /// Read files in the repository.
        ReadFiles = "read_files",
        /// Create and change files.
        WriteFiles = "write_files",
        /// Run git operations.
        Git = "git",
        /// Run the test suite.
        RunTests = "run_tests",
        /// Search the code.
        Search = "search",
        /// Run commands or code.
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
