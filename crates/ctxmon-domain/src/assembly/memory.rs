//! The memory snapshot: pinned chunks (dropped last), recent ones and long-term summaries.

use serde::{Deserialize, Serialize};

use super::open_enum::open_enum;

/// What the agent remembers, in three lists; each list is its own source with its own share of
/// the budget.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MemorySnapshot {
    /// Long-term summaries; served after files and diffs.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub summaries: Vec<MemoryChunk>,
    /// Chunks that must be kept: they have the first claim on the budget.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pinned: Vec<MemoryChunk>,
    /// Recent memories; served after pinned memory and events.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub recent: Vec<MemoryChunk>,
}

impl MemorySnapshot {
    /// The number of chunks in all three lists.
    pub fn len(&self) -> usize {
        self.summaries.len() + self.pinned.len() + self.recent.len()
    }

    /// True when all three lists are empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// One remembered piece of text.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MemoryChunk {
    /// Unique across the whole snapshot: a repeated id is dropped (pinned, then recent, then
    /// summaries, first wins).
    pub id: String,
    /// The text shown to the agent.
    pub content: String,
    /// 0–1, higher first. Non-finite values count as 0.5; others are clamped to 0–1.
    pub importance: f64,
    /// When it was recorded, in milliseconds since the epoch; newer wins ties on importance.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timestamp: Option<i64>,
    /// Where it came from (e.g. `user`), shown with it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// What kind of memory it is (`type` on the wire), shown with it.
    #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<MemoryType>,
    /// Ids of related chunks, as the producer links them; assembly does not follow them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub related_to: Vec<String>,
}

open_enum! {
    /// What kind of memory a chunk is.
    pub enum MemoryType {
        /// Something true about the user, project or world.
        Fact = "fact",
        /// A choice that was made.
        Decision = "decision",
        /// Background for the current work.
        Context = "context",
        /// What the user said about earlier work.
        Feedback = "feedback",
    }
}
