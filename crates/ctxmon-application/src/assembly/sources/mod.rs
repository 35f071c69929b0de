//! Context sources: each turns one part of the input into ranked, priced candidates. Sources
//! choose nothing; strategies decide how much of each to keep.

mod diffs;
mod events;
mod files;
mod memory;
mod symbols;

use ctxmon_domain::assembly::{ContextBuildInput, ContextMessage, MessageRole, TokenCounter};
use ctxmon_domain::hash::fnv1a64;

use super::candidate::Candidate;
use super::notes::Notes;

pub use diffs::DiffSource;
pub use events::EventSource;
pub use files::FileSource;
pub use memory::{MemoryKind, MemorySource};
pub use symbols::SymbolSource;

/// Repository files ([`FileSource`]). Source names, as strategies and `debug.sources` spell
/// them.
pub const FILES: &str = "files";
/// Uncommitted changes ([`DiffSource`]).
pub const DIFFS: &str = "diffs";
/// Pinned memory.
pub const MEMORY_PINNED: &str = "memory_pinned";
/// Recent memory.
pub const MEMORY_RECENT: &str = "memory_recent";
/// Long-term memory summaries.
pub const MEMORY_SUMMARIES: &str = "memory_summaries";
/// Runtime events ([`EventSource`]).
pub const EVENTS: &str = "events";
/// The symbol index ([`SymbolSource`]).
pub const SYMBOLS: &str = "symbols";

/// What a source reads: the input, the run's counter, and "now" (never the clock).
#[derive(Debug)]
pub struct SourceContext<'a> {
    /// The run's input.
    pub input: &'a ContextBuildInput,
    /// The run's token counter, for pricing candidates.
    pub counter: &'a dyn TokenCounter,
    /// `constraints.nowMs`, else the newest event's timestamp, else `None`.
    pub now_ms: Option<i64>,
    files: FileIndex<'a>,
}

impl<'a> SourceContext<'a> {
    /// The context for `input`, "now" taken from `constraints.nowMs`, else the newest event.
    pub fn new(input: &'a ContextBuildInput, counter: &'a dyn TokenCounter) -> SourceContext<'a> {
        let now_ms = input
            .constraints
            .now_ms
            .or_else(|| input.recent_events.iter().map(|e| e.timestamp).max());
        SourceContext {
            input,
            counter,
            now_ms,
            files: FileIndex::new(input),
        }
    }

    /// For `repo.files[i]`, the index of an earlier file with the same path, if any.
    pub fn earlier_file(&self, i: usize) -> Option<usize> {
        self.files.earlier.get(i).copied().flatten()
    }

    /// A path's relevance as the files source ranks it (0.5 when unknown).
    pub fn file_relevance(&self, path: &str) -> f64 {
        let key = (fnv1a(path), path);
        self.files
            .by_path
            .binary_search_by(|(hash, p, _)| (*hash, *p).cmp(&key))
            .map_or(0.5, |at| self.files.by_path[at].2)
    }
}

/// The files by path, built once per run: which entries repeat an earlier path, and each
/// path's relevance for ranking diffs and symbols alongside their files.
#[derive(Debug, Default)]
struct FileIndex<'a> {
    earlier: Vec<Option<usize>>,
    /// First occurrences, sorted by `(fnv1a(path), path)`.
    by_path: Vec<(u64, &'a str, f64)>,
}

impl<'a> FileIndex<'a> {
    fn new(input: &'a ContextBuildInput) -> FileIndex<'a> {
        let Some(repo) = &input.repo else {
            return FileIndex::default();
        };
        // One sort serves both the repeats and the lookup table.
        let files = &repo.files;
        let mut order: Vec<(u64, &str, usize)> = files
            .iter()
            .enumerate()
            .map(|(i, f)| (fnv1a(&f.path), f.path.as_str(), i))
            .collect();
        order.sort_unstable();
        let mut earlier = vec![None; files.len()];
        let mut by_path = Vec::with_capacity(files.len());
        let mut first: Option<(u64, &str, usize)> = None;
        for &(hash, path, i) in &order {
            match first {
                Some((h, p, f)) if h == hash && p == path => earlier[i] = Some(f),
                _ => {
                    first = Some((hash, path, i));
                    by_path.push((hash, path, quiet_score(files[i].relevance_score)));
                }
            }
        }
        FileIndex { earlier, by_path }
    }
}

/// A source's offer: candidates best first, and what it had to leave out regardless of budget.
#[derive(Debug, Default)]
pub struct SourceCandidates<'a> {
    /// What the source could add, best first.
    pub candidates: Vec<Candidate<'a>>,
    /// Shown once before this source's messages if any of them is kept; priced with the first.
    pub header: Option<ContextMessage>,
    /// Items that can never be included: no content, duplicates, too old, results without
    /// their call.
    pub unavailable: u64,
    /// How odd input was read.
    pub notes: Notes,
    /// Offers stop at the first candidate that does not fit instead of skipping it, so a
    /// later (lower-ranked) candidate is never kept while an earlier one is left out. Events use
    /// it: recent history stays without gaps.
    pub contiguous: bool,
}

impl<'a> SourceCandidates<'a> {
    /// An offer of `candidates` (best first), skipping over what does not fit, without a header.
    fn offer(candidates: Vec<Candidate<'a>>, unavailable: u64, notes: Notes) -> Self {
        SourceCandidates {
            candidates,
            header: None,
            unavailable,
            notes,
            contiguous: false,
        }
    }

    /// The same with a section heading shown before the first message kept.
    fn with_header(self, title: &str) -> Self {
        SourceCandidates {
            header: Some(ContextMessage {
                role: MessageRole::System,
                content: title.to_owned(),
                tool_call_id: None,
                tool_name: None,
                metadata: None,
            }),
            ..self
        }
    }
}

/// Where a candidate stands among its source's: the higher score first, then the newer, then
/// the key (a path or an id), then the input position, so the order never depends on how the
/// sort ran. Every source that ranks by score or age sorts with [`best_first`].
#[derive(Debug, Clone, Copy)]
struct Rank<'a> {
    score: f64,
    newest: i64,
    key: &'a str,
    position: usize,
}

/// Sorts `ranked` best first by [`Rank`], a total order.
fn best_first<T>(ranked: &mut [(Rank<'_>, T)]) {
    ranked.sort_by(|(a, _), (b, _)| {
        b.score
            .total_cmp(&a.score)
            .then(b.newest.cmp(&a.newest))
            .then_with(|| a.key.cmp(b.key))
            .then(a.position.cmp(&b.position))
    });
}

/// Turns one part of the input into ranked, priced candidates; strategies decide how many are
/// kept.
pub trait ContextSource: std::fmt::Debug + Send + Sync {
    /// Unique among a builder's sources.
    fn name(&self) -> &str;

    /// This source's offer for the run.
    fn candidates<'a>(&self, ctx: &SourceContext<'a>) -> SourceCandidates<'a>;
}

/// A score sanitized like `notes::sanitize_score`, without a note (the files source notes it).
fn quiet_score(value: Option<f64>) -> f64 {
    value
        .filter(|v| v.is_finite())
        .map_or(0.5, |v| v.clamp(0.0, 1.0))
}

/// For each item, the index of the first earlier item with the same key; `None` for first
/// occurrences and for items without a key.
///
/// Sorting rather than a hash map: deterministic, and a crafted input cannot make it quadratic.
/// Keys sort by an FNV-1a hash first, so most comparisons are integer ones even when thousands
/// of paths share a long prefix; equal hashes still compare the keys, so a collision only costs
/// time.
pub fn earlier_duplicates(keys: &[Option<&str>]) -> Vec<Option<usize>> {
    let mut order: Vec<(u64, &str, usize)> = keys
        .iter()
        .enumerate()
        .filter_map(|(i, k)| k.map(|k| (fnv1a(k), k, i)))
        .collect();
    order.sort_unstable();
    let mut out = vec![None; keys.len()];
    let mut first: Option<(u64, &str, usize)> = None;
    for &(hash, key, i) in &order {
        match first {
            Some((h, k, f)) if h == hash && k == key => out[i] = Some(f),
            _ => first = Some((hash, key, i)),
        }
    }
    out
}

/// The domain's FNV-1a of a key's bytes: deterministic across runs and platforms, good enough
/// to spread paths.
fn fnv1a(text: &str) -> u64 {
    fnv1a64(text.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn earlier_duplicates_point_at_the_first() {
        let keys = [
            Some("b"),
            Some("a"),
            None,
            Some("b"),
            Some("a"),
            None,
            Some("b"),
        ];
        assert_eq!(
            earlier_duplicates(&keys),
            [None, None, None, Some(0), Some(1), None, Some(0)]
        );
    }
}
