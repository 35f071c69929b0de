//! What a session's context holds since its last compaction, as a transcript shows it: the
//! largest items in it (tool outputs, file reads, pasted text) and the fill after each recent
//! response (the pace at which it grows).
//!
//! Both come from one backward reading that stops at the last compaction, because what came
//! before it is no longer in the context.

use serde::Serialize;

/// What kind of item fills the context.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ItemKind {
    /// A file's content, read by a tool.
    FileRead,
    /// What any other tool returned (a command's output, a search, a fetched page).
    ToolOutput,
    /// A long message the user sent (text pasted into a prompt).
    PastedText,
}

impl ItemKind {
    /// The word a sentence uses for it.
    pub fn words(self) -> &'static str {
        match self {
            ItemKind::FileRead => "file read",
            ItemKind::ToolOutput => "tool output",
            ItemKind::PastedText => "pasted text",
        }
    }
}

/// One item still in the context.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ContextItem {
    /// What it is.
    pub kind: ItemKind,
    /// The tool that produced it, as the transcript names it (`"prompt"` for pasted text).
    pub tool: String,
    /// What the tool was pointed at, shortened: a file path (relative to the session's folder
    /// when inside it), a command's first line, a pattern or an address.
    pub target: Option<String>,
    /// Its size by the project's one estimate, `ceil(chars / 4)`.
    pub tokens: u64,
}

/// A transcript's context since its last compaction.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
pub struct RecentContext {
    /// The largest items, largest first (ties in file order, newest first), at most as many
    /// as were asked for.
    pub largest: Vec<ContextItem>,
    /// The context's size after each of the newest main-chain responses since the last
    /// compaction (or the session's start), oldest first: one figure per response, the newest
    /// last, at most as many as the pace looks at.
    pub fills: Vec<u64>,
    /// The reading reached the last compaction or the file's start: `largest` saw every item
    /// still in the context. `false` when the byte bound cut it short, or when only the fills
    /// were asked for and the walk ended with them.
    pub complete: bool,
}
