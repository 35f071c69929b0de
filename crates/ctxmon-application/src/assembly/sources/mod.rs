//! Context sources: each turns one part of the input into ranked, priced candidates. Sources
//! choose nothing; strategies decide how much of each to keep.

mod diffs;
mod events;
mod files;
mod memory;
mod symbols;

use std::collections::HashMap;

use ctxmon_domain::assembly::{ContextBuildInput, ContextMessage, TokenCounter};

use super::candidate::Candidate;
use super::notes::Notes;

pub use diffs::DiffSource;
pub use events::EventSource;
pub use files::FileSource;
pub use memory::{MemoryKind, MemorySource};
pub use symbols::SymbolSource;

/// Source names, as strategies and `debug.sources` spell them.
pub const FILES: &str = "files";
pub const DIFFS: &str = "diffs";
pub const MEMORY_PINNED: &str = "memory_pinned";
pub const MEMORY_RECENT: &str = "memory_recent";
pub const MEMORY_SUMMARIES: &str = "memory_summaries";
pub const EVENTS: &str = "events";
pub const SYMBOLS: &str = "symbols";

/// What a source reads: the input, the run's counter, and "now" (never the clock).
#[derive(Debug, Clone, Copy)]
pub struct SourceContext<'a> {
    pub input: &'a ContextBuildInput,
    pub counter: &'a dyn TokenCounter,
    /// `constraints.nowMs`, else the newest event's timestamp, else `None`.
    pub now_ms: Option<i64>,
}

impl<'a> SourceContext<'a> {
    pub fn new(input: &'a ContextBuildInput, counter: &'a dyn TokenCounter) -> SourceContext<'a> {
        let now_ms = input
            .constraints
            .now_ms
            .or_else(|| input.recent_events.iter().map(|e| e.timestamp).max());
        SourceContext {
            input,
            counter,
            now_ms,
        }
    }
}

/// A source's offer: candidates best first, and what it had to leave out regardless of budget.
#[derive(Debug, Default)]
pub struct SourceCandidates<'a> {
    pub candidates: Vec<Candidate<'a>>,
    /// Shown once before this source's messages if any of them is kept; priced with the first.
    pub header: Option<ContextMessage>,
    /// Items that can never be included: no content, duplicates, too old, results without
    /// their call.
    pub unavailable: u64,
    pub notes: Notes,
}

pub trait ContextSource: std::fmt::Debug + Send + Sync {
    /// Unique among a builder's sources.
    fn name(&self) -> &str;

    fn candidates<'a>(&self, ctx: &SourceContext<'a>) -> SourceCandidates<'a>;
}

/// Each file path's relevance (0.5 when absent or not a number, else clamped to 0–1), first
/// occurrence winning, so diffs and symbols can follow the files' ranking.
fn file_relevance(input: &ContextBuildInput) -> HashMap<&str, f64> {
    let mut map = HashMap::new();
    if let Some(repo) = &input.repo {
        for file in &repo.files {
            map.entry(file.path.as_str()).or_insert_with(|| {
                file.relevance_score
                    .filter(|v| v.is_finite())
                    .map_or(0.5, |v| v.clamp(0.0, 1.0))
            });
        }
    }
    map
}
