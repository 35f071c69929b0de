//! Tool descriptors offered to the agent; their JSON is counted against the budget.

use serde::{Deserialize, Serialize};

use super::input::AgentCapability;
use super::json::JsonValue;
use super::open_enum::open_enum;

/// A tool the agent may be offered. Its JSON (as serialized) is counted against the budget.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolDescriptor {
    /// Unique; the role filter matches on it.
    pub name: String,
    /// What the tool does, for the model.
    pub description: String,
    /// JSON Schema of the parameters.
    #[serde(default)]
    pub schema: JsonValue,
    /// The agent must have every one of these.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub required_capabilities: Vec<AgentCapability>,
    /// What kind of tool it is; without `required_capabilities`, `CapabilityBasedFilter` decides
    /// by it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub category: Option<ToolCategory>,
    /// True when the tool changes nothing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_only: Option<bool>,
}

open_enum! {
    /// What kind of tool it is.
    pub enum ToolCategory {
        /// Reads or writes files (the capability filter asks for `read_files` or `write_files`).
        Filesystem = "filesystem",
        /// Works with git (the capability filter asks for `git`).
        Git = "git",
        /// Runs commands or code (the capability filter asks for `execute_code` or `run_tests`).
        Execution = "execution",
        /// Searches the code (the capability filter asks for `search`).
        Search = "search",
        /// Anything else; the capability filter asks for nothing.
        Utility = "utility",
    }
}
