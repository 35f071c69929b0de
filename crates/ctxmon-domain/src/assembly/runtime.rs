//! Runtime events: the recent history of tool calls, results, errors and interruptions.

use serde::{Deserialize, Serialize};

use super::json::JsonValue;
use super::open_enum::open_enum;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RuntimeEvent {
    #[serde(rename = "type")]
    pub event_type: RuntimeEventType,
    /// Type-specific; tool events carry `toolName` and `toolCallId`, which pair a result with
    /// its call.
    #[serde(default)]
    pub payload: JsonValue,
    /// Milliseconds since the epoch. Times after `constraints.nowMs` are treated as "now".
    pub timestamp: i64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub event_id: Option<String>,
}

open_enum! {
    pub enum RuntimeEventType {
        ToolCall = "tool_call",
        ToolError = "tool_error",
        ToolResult = "tool_result",
        ExecutionResult = "execution_result",
        UserInterruption = "user_interruption",
        AgentSwitch = "agent_switch",
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
