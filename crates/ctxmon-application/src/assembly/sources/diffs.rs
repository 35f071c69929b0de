//! Uncommitted changes, in the order of their files' relevance (then path), under one header.

use ctxmon_domain::assembly::MessageRole;

use super::{
    ContextSource, DIFFS, Rank, SourceCandidates, SourceContext, best_first, earlier_duplicates,
};
use crate::assembly::candidate::{Candidate, ItemMeta, Prefix, TextItem};
use crate::assembly::format::{diff_parts, diff_stats};
use crate::assembly::notes::Notes;

/// The repository's uncommitted changes, in the order of their files' relevance, under one
/// header.
#[derive(Debug, Clone, Copy, Default)]
pub struct DiffSource;

impl ContextSource for DiffSource {
    fn name(&self) -> &str {
        DIFFS
    }

    fn candidates<'a>(&self, ctx: &SourceContext<'a>) -> SourceCandidates<'a> {
        let Some(repo) = ctx.input.repo.as_ref().filter(|r| !r.diffs.is_empty()) else {
            return SourceCandidates::default();
        };
        let mut notes = Notes::new();
        let mut unavailable = 0;
        let keys: Vec<Option<&str>> = repo.diffs.iter().map(|d| Some(d.file.as_str())).collect();
        let earlier = earlier_duplicates(&keys);
        let mut ranked = Vec::with_capacity(repo.diffs.len());
        for (i, diff) in repo.diffs.iter().enumerate() {
            if earlier[i].is_some() {
                unavailable += 1;
                notes.push_with(|| {
                    format!(
                        "repo.diffs[{i}].file: {:?} has an earlier diff, left out",
                        diff.file
                    )
                });
                continue;
            }
            // Diffs carry no time: the file's relevance, then the (unique) path.
            let rank = Rank {
                score: ctx.file_relevance(&diff.file),
                newest: 0,
                key: &diff.file,
                position: i,
            };
            ranked.push((rank, diff));
        }
        best_first(&mut ranked);
        let candidates = ranked
            .into_iter()
            .enumerate()
            .map(|(rank, (Rank { score, .. }, diff))| {
                let (prefix, suffix) = diff_parts(diff);
                let item = TextItem {
                    role: MessageRole::User,
                    prefix: Prefix::Owned(prefix),
                    text: &diff.patch,
                    suffix,
                    meta: ItemMeta {
                        source_prefix: "diff:",
                        source: &diff.file,
                        priority: score,
                        original_size: Some(diff.patch.len() as u64),
                    },
                    fallback: Some(diff_stats(diff, diff.patch.chars().count())),
                };
                Candidate::text(ctx.counter, item, rank, None)
            })
            .collect();
        SourceCandidates::offer(candidates, unavailable, notes)
            .with_header("## Uncommitted Changes")
    }
}
