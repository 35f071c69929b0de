//! Memory chunks of one kind (pinned, recent or summaries), most important first.

use ctxmon_domain::assembly::{MemoryChunk, MemorySnapshot, MessageRole};

use super::{
    ContextSource, MEMORY_PINNED, MEMORY_RECENT, MEMORY_SUMMARIES, Rank, SourceCandidates,
    SourceContext, best_first, earlier_duplicates,
};
use crate::assembly::candidate::{Candidate, ItemMeta, Prefix, TextItem};
use crate::assembly::format::memory_prefix;
use crate::assembly::notes::{Notes, sanitize_score};

/// The three memory lists, in the order a repeated id is resolved: pinned wins over recent,
/// recent over summaries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MemoryKind {
    /// `memory.pinned`: the first claim on the budget.
    Pinned,
    /// `memory.recent`.
    Recent,
    /// `memory.summaries`.
    Summaries,
}

impl MemoryKind {
    /// Every kind, in the order a repeated id is resolved.
    pub const ALL: [MemoryKind; 3] = [
        MemoryKind::Pinned,
        MemoryKind::Recent,
        MemoryKind::Summaries,
    ];

    fn key(self) -> &'static str {
        match self {
            MemoryKind::Pinned => "pinned",
            MemoryKind::Recent => "recent",
            MemoryKind::Summaries => "summaries",
        }
    }

    fn chunks(self, memory: &MemorySnapshot) -> &[MemoryChunk] {
        match self {
            MemoryKind::Pinned => &memory.pinned,
            MemoryKind::Recent => &memory.recent,
            MemoryKind::Summaries => &memory.summaries,
        }
    }
}

/// The chunks of one memory list, most important first (then newest, then id).
#[derive(Debug, Clone, Copy)]
pub struct MemorySource {
    kind: MemoryKind,
}

impl MemorySource {
    /// The source for the `kind` list.
    pub fn new(kind: MemoryKind) -> MemorySource {
        MemorySource { kind }
    }
}

impl ContextSource for MemorySource {
    fn name(&self) -> &str {
        match self.kind {
            MemoryKind::Pinned => MEMORY_PINNED,
            MemoryKind::Recent => MEMORY_RECENT,
            MemoryKind::Summaries => MEMORY_SUMMARIES,
        }
    }

    fn candidates<'a>(&self, ctx: &SourceContext<'a>) -> SourceCandidates<'a> {
        let Some(memory) = &ctx.input.memory else {
            return SourceCandidates::default();
        };
        let chunks = self.kind.chunks(memory);
        if chunks.is_empty() {
            return SourceCandidates::default();
        }
        let key = self.kind.key();
        // Ids are unique across the lists, resolved in list order: find this list's repeats
        // among everything up to and including it.
        let upto: Vec<&MemoryChunk> = MemoryKind::ALL
            .iter()
            .take_while(|k| **k != self.kind)
            .flat_map(|k| k.chunks(memory))
            .chain(chunks)
            .collect();
        let offset = upto.len() - chunks.len();
        let keys: Vec<Option<&str>> = upto.iter().map(|c| Some(c.id.as_str())).collect();
        let earlier = earlier_duplicates(&keys);
        let mut notes = Notes::new();
        let mut unavailable = 0;
        let mut ranked = Vec::with_capacity(chunks.len());
        for (i, chunk) in chunks.iter().enumerate() {
            if earlier[offset + i].is_some() {
                unavailable += 1;
                notes.push_with(|| {
                    format!(
                        "memory.{key}[{i}].id: {:?} appears earlier, left out",
                        chunk.id
                    )
                });
                continue;
            }
            let importance = sanitize_score(
                Some(chunk.importance),
                || format!("memory.{key}[{i}].importance"),
                &mut notes,
            );
            let rank = Rank {
                score: importance,
                newest: chunk.timestamp.unwrap_or(i64::MIN),
                key: &chunk.id,
                position: i,
            };
            ranked.push((rank, chunk));
        }
        best_first(&mut ranked);
        let candidates = ranked
            .into_iter()
            .enumerate()
            .map(
                |(
                    rank,
                    (
                        Rank {
                            score: importance, ..
                        },
                        chunk,
                    ),
                )| {
                    let item = TextItem {
                        role: MessageRole::System,
                        prefix: Prefix::Owned(memory_prefix(chunk, importance)),
                        text: &chunk.content,
                        suffix: "",
                        meta: ItemMeta {
                            source_prefix: "memory:",
                            source: &chunk.id,
                            priority: importance,
                            original_size: Some(chunk.content.len() as u64),
                        },
                        fallback: None,
                    };
                    Candidate::text(ctx.counter, item, rank, None)
                },
            )
            .collect();
        SourceCandidates::offer(candidates, unavailable, notes)
    }
}
