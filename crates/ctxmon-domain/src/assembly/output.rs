//! The bundle an assembly run produces: the only thing the model will see, plus debug figures.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::tools::ToolDescriptor;

/// What an assembly run returns: the system prompt, messages and tools the model will see,
/// and their count.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ContextBundle {
    /// The system prompt: identity, goal, current context, constraints.
    pub system: String,
    /// The selected files, memories, events, diffs and symbols, as messages.
    pub messages: Vec<ContextMessage>,
    /// The tools offered to the agent.
    pub tools: Vec<ToolDescriptor>,
    /// System prompt + message contents and tool ids + per-message overhead + tool JSON, as
    /// counted by the run's token counter. Never above `constraints.maxTokens`.
    pub token_estimate: u64,
    /// How the run decided (what was kept, left out, shortened); not sent to the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub debug: Option<ContextDebugInfo>,
}

/// One message of the bundle.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ContextMessage {
    /// Who speaks it.
    pub role: MessageRole,
    /// The text.
    pub content: String,
    /// Set on a tool call (role `assistant`) and on its results (role `tool`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
    /// The tool a call or result belongs to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_name: Option<String>,
    /// Where it came from and how it was ranked; not sent to the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<MessageMetadata>,
}

/// Who speaks a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MessageRole {
    /// The system; memories are shown as system messages.
    System,
    /// The user; files, diffs, symbols and other events are shown as user messages.
    User,
    /// The assistant; tool calls are shown as assistant messages.
    Assistant,
    /// A tool's result or error.
    Tool,
}

/// Not sent to the model, so not counted in `tokenEstimate`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MessageMetadata {
    /// A file path, `memory:<id>`, `event:<type>`, or `diff:<path>`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// The source's ranking score for the item (0–1, higher kept first).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority: Option<f64>,
    /// The item's size before shortening, in bytes (a file's `size`, a text's length).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub original_size: Option<u64>,
    /// The content was shortened; the content itself also says so.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub truncated: bool,
}

/// Figures about how the bundle was assembled, for debugging; not sent to the model.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ContextDebugInfo {
    /// Paths of files in the bundle, in bundle order.
    pub included_files: Vec<String>,
    /// The best-ranked files left out (at most 100, rank order); `excludedFileCount` has all.
    pub excluded_files: Vec<String>,
    /// How many files were left out in all.
    pub excluded_file_count: u64,
    /// Candidate messages (every source) that did not make it into the bundle.
    pub dropped_messages: u64,
    /// Items shortened instead of dropped.
    pub summarizations_applied: u64,
    /// Where the tokens went.
    pub token_breakdown: TokenBreakdown,
    /// The strategy that ran: `greedy`, `balanced` or `conservative`.
    pub strategy_used: String,
    /// `constraints.nowMs`: assembly reads no clock, so this is the caller's "now" if given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub assembled_at: Option<i64>,
    /// Per source (`files`, `memory_pinned`, …), what was kept and left out.
    pub sources: BTreeMap<String, SourceStats>,
    /// How odd input was interpreted (non-finite scores, duplicates, unknown roles, …).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// `system + messages + tools + overhead == total == tokenEstimate`, and
/// `system + tools + sum(bySource) == total`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TokenBreakdown {
    /// Tokens of the system prompt.
    pub system: u64,
    /// Message contents plus tool call ids and names.
    pub messages: u64,
    /// Tokens of the tools' JSON.
    pub tools: u64,
    /// A fixed cost per message for role and framing.
    pub overhead: u64,
    /// `system + messages + tools + overhead`; equals `tokenEstimate`.
    pub total: u64,
    /// `maxTokens - total`.
    pub remaining: u64,
    /// The part of `remaining` the strategy kept free on purpose (the buffer).
    pub reserved: u64,
    /// The budget: `constraints.maxTokens`.
    pub max_tokens: u64,
    /// Message tokens including overhead, per source.
    pub by_source: BTreeMap<String, u64>,
}

/// What one source contributed.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SourceStats {
    /// Items (a file, a memory, a tool call with its results) in the bundle.
    pub included: u64,
    /// Items left out: over budget, over a count limit, too old, duplicated or unpairable.
    pub excluded: u64,
    /// Included items that were shortened.
    pub summarized: u64,
    /// Tokens of this source's messages, overhead included.
    pub tokens: u64,
}
