//! The repository snapshot: files, diffs, symbols and metadata, all handed in by the caller.
//! Assembly never reads the file system; a file without `content` cannot be included.

use serde::{Deserialize, Serialize};

use super::open_enum::open_enum;

/// The repository as the caller sees it; assembly reads only what is given here.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RepoSnapshot {
    /// The repository root, shown to the agent; never opened.
    pub root: String,
    /// Files that may be included, ranked by relevance.
    #[serde(default)]
    pub files: Vec<FileDescriptor>,
    /// Symbols (functions, types, …) that may be listed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub symbols: Vec<SymbolIndex>,
    /// Uncommitted changes that may be shown.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub diffs: Vec<GitDiff>,
    /// Branch and commit, shown in the system prompt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<RepoMetadata>,
}

/// A file that may be included.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FileDescriptor {
    /// Relative to the root. Paths are unique keys: a repeated path is dropped (first wins).
    pub path: String,
    /// Size in bytes as the producer saw it; reported back as `originalSize`.
    #[serde(default)]
    pub size: u64,
    /// The language, shown with the file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub language: Option<String>,
    /// Milliseconds since the epoch; newer files win ties on relevance.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_modified: Option<i64>,
    /// The file's text; a file without it cannot be included.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
    /// 0–1 from an external ranker. Non-finite values are ignored and others clamped to 0–1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub relevance_score: Option<f64>,
}

/// A symbol (function, type, …) that may be listed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SymbolIndex {
    /// The symbol's name.
    pub name: String,
    /// What kind of symbol it is.
    pub kind: SymbolKind,
    /// The file it is in, relative to the root.
    pub file: String,
    /// 1-based first and last line.
    pub range: (u64, u64),
    /// Its doc comment; shown cut at 100 characters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub documentation: Option<String>,
}

open_enum! {
    /// What kind of symbol it is.
    pub enum SymbolKind {
        /// A function or method.
        Function = "function",
        /// A class.
        Class = "class",
        /// A type alias or other type.
        Type = "type",
        /// An interface or trait.
        Interface = "interface",
        /// A variable.
        Variable = "variable",
        /// A constant.
        Constant = "constant",
    }
}

/// One file's uncommitted change.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GitDiff {
    /// The changed file, relative to the root.
    pub file: String,
    /// The unified diff.
    pub patch: String,
    /// What the change did to the file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub change_type: Option<ChangeType>,
    /// Lines added, for the stats line a shortened diff is reduced to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub additions: Option<u64>,
    /// Lines removed, for the same stats line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deletions: Option<u64>,
}

open_enum! {
    /// What a diff did to its file.
    pub enum ChangeType {
        /// The file is new.
        Added = "added",
        /// The file changed.
        Modified = "modified",
        /// The file was removed.
        Deleted = "deleted",
        /// The file was moved.
        Renamed = "renamed",
    }
}

/// Git facts about the repository.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RepoMetadata {
    /// The checked-out branch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub branch: Option<String>,
    /// The checked-out commit; the system prompt shows its first seven characters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commit: Option<String>,
    /// True when the work tree has uncommitted changes; not shown to the agent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dirty: Option<bool>,
    /// The remote's URL; not shown to the agent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub remote_url: Option<String>,
}
