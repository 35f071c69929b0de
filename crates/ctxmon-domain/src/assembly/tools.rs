//! Tool descriptors offered to the agent; their JSON is counted against the budget.

use serde::{Deserialize, Serialize};

use super::input::AgentCapability;
use super::json::JsonValue;
use super::open_enum::open_enum;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolDescriptor {
    /// Unique; the role filter matches on it.
    pub name: String,
    pub description: String,
    /// JSON Schema of the parameters.
    #[serde(default)]
    pub schema: JsonValue,
    /// The agent must have every one of these.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub required_capabilities: Vec<AgentCapability>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub category: Option<ToolCategory>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_only: Option<bool>,
}

open_enum! {
    pub enum ToolCategory {
        Filesystem = "filesystem",
        Git = "git",
        Execution = "execution",
        Search = "search",
        Utility = "utility",
    }
}
