//! Runtime events: the recent history of tool calls, results, errors and interruptions.

use serde::{Deserialize, Serialize};

use super::json::JsonValue;
use super::open_enum::open_enum;

/// Something that happened while the agent worked: a tool call, its result or error, an
/// interruption.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RuntimeEvent {
    /// What kind of event it is (`type` on the wire).
    #[serde(rename = "type")]
    pub event_type: RuntimeEventType,
    /// Type-specific; tool events carry `toolName` and `toolCallId`, which pair a result with
    /// its call.
    #[serde(default)]
    pub payload: JsonValue,
    /// Milliseconds since the epoch. Times after `constraints.nowMs` are treated as "now".
    pub timestamp: i64,
    /// The producer's id for the event, shown with it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub event_id: Option<String>,
}

open_enum! {
    /// What kind of runtime event it is. Unknown kinds are kept and shown like the others.
    pub enum RuntimeEventType {
        /// The agent called a tool.
        ToolCall = "tool_call",
        /// A tool call failed; shown only with its call.
        ToolError = "tool_error",
        /// A tool call's result; shown only with its call.
        ToolResult = "tool_result",
        /// The outcome of running code or a command.
        ExecutionResult = "execution_result",
        /// The user stopped or redirected the agent.
        UserInterruption = "user_interruption",
        /// Work passed to another agent.
        AgentSwitch = "agent_switch",
        /// A point the producer marked in the run.
        Checkpoint = "checkpoint",
    }
}

impl RuntimeEventType {
    /// Results and errors answer a call; they are never shown without it.
    pub fn answers_a_call(&self) -> bool {
        matches!(
            self,
            RuntimeEventType::ToolResult | RuntimeEventType::ToolError
        )
    }
}

impl RuntimeEvent {
    /// The payload's `toolCallId`, if it is a non-empty string.
    pub fn tool_call_id(&self) -> Option<&str> {
        self.payload
            .get("toolCallId")
            .and_then(JsonValue::as_str)
            .filter(|s| !s.is_empty())
    }

    /// The payload's `toolName`, if it is a non-empty string.
    pub fn tool_name(&self) -> Option<&str> {
        self.payload
            .get("toolName")
            .and_then(JsonValue::as_str)
            .filter(|s| !s.is_empty())
    }
}
