//! The memory snapshot: pinned chunks (dropped last), recent ones and long-term summaries.

use serde::{Deserialize, Serialize};

use super::open_enum::open_enum;

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MemorySnapshot {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub summaries: Vec<MemoryChunk>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pinned: Vec<MemoryChunk>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub recent: Vec<MemoryChunk>,
}

impl MemorySnapshot {
    pub fn len(&self) -> usize {
        self.summaries.len() + self.pinned.len() + self.recent.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MemoryChunk {
    /// Unique across the whole snapshot: a repeated id is dropped (pinned, then recent, then
    /// summaries, first wins).
    pub id: String,
    pub content: String,
    /// 0–1, higher first. Non-finite values count as 0.5; others are clamped to 0–1.
    pub importance: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timestamp: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<MemoryType>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub related_to: Vec<String>,
}

open_enum! {
    pub enum MemoryType {
        Fact = "fact",
        Decision = "decision",
        Context = "context",
        Feedback = "feedback",
    }
}
