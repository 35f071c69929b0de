//! The repository snapshot: files, diffs, symbols and metadata, all handed in by the caller.
//! Assembly never reads the file system; a file without `content` cannot be included.

use serde::{Deserialize, Serialize};

use super::open_enum::open_enum;

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RepoSnapshot {
    /// The repository root, shown to the agent; never opened.
    pub root: String,
    #[serde(default)]
    pub files: Vec<FileDescriptor>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub symbols: Vec<SymbolIndex>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub diffs: Vec<GitDiff>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<RepoMetadata>,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FileDescriptor {
    /// Relative to the root. Paths are unique keys: a repeated path is dropped (first wins).
    pub path: String,
    /// Size in bytes as the producer saw it; reported back as `originalSize`.
    #[serde(default)]
    pub size: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub language: Option<String>,
    /// Milliseconds since the epoch; newer files win ties on relevance.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_modified: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
    /// 0–1 from an external ranker. Non-finite values are ignored and others clamped to 0–1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub relevance_score: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SymbolIndex {
    pub name: String,
    pub kind: SymbolKind,
    pub file: String,
    /// 1-based first and last line.
    pub range: (u64, u64),
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub documentation: Option<String>,
}

open_enum! {
    pub enum SymbolKind {
        Function = "function",
        Class = "class",
        Type = "type",
        Interface = "interface",
        Variable = "variable",
        Constant = "constant",
    }
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GitDiff {
    pub file: String,
    pub patch: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub change_type: Option<ChangeType>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub additions: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deletions: Option<u64>,
}

open_enum! {
    pub enum ChangeType {
        Added = "added",
        Modified = "modified",
        Deleted = "deleted",
        Renamed = "renamed",
    }
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RepoMetadata {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub branch: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commit: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dirty: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub remote_url: Option<String>,
}
