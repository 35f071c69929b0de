//! Uncommitted changes, in the order of their files' relevance (then path), under one header.

use std::collections::HashSet;

use ctxmon_domain::assembly::{ContextMessage, MessageMetadata, MessageRole};

use super::{ContextSource, DIFFS, SourceCandidates, SourceContext, file_relevance};
use crate::assembly::candidate::{Candidate, TextItem};
use crate::assembly::format::{diff_parts, diff_stats};
use crate::assembly::notes::Notes;

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
        let relevance = file_relevance(ctx.input);
        let mut notes = Notes::new();
        let mut unavailable = 0;
        let mut seen = HashSet::with_capacity(repo.diffs.len());
        let mut ranked = Vec::with_capacity(repo.diffs.len());
        for (i, diff) in repo.diffs.iter().enumerate() {
            if !seen.insert(diff.file.as_str()) {
                unavailable += 1;
                notes.push_with(|| {
                    format!(
                        "repo.diffs[{i}].file: {:?} has an earlier diff, left out",
                        diff.file
                    )
                });
                continue;
            }
            let score = relevance.get(diff.file.as_str()).copied().unwrap_or(0.5);
            ranked.push((score, diff));
        }
        ranked.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.file.cmp(&b.1.file)));
        let candidates = ranked
            .into_iter()
            .enumerate()
            .map(|(rank, (score, diff))| {
                let (prefix, suffix) = diff_parts(diff);
                let item = TextItem {
                    role: MessageRole::User,
                    prefix,
                    text: &diff.patch,
                    suffix,
                    metadata: MessageMetadata {
                        source: Some(format!("diff:{}", diff.file)),
                        priority: Some(score),
                        original_size: Some(diff.patch.len() as u64),
                        truncated: false,
                    },
                    fallback: Some(diff_stats(diff, diff.patch.chars().count())),
                };
                Candidate::text(ctx.counter, item, rank, None)
            })
            .collect();
        SourceCandidates {
            candidates,
            header: Some(ContextMessage {
                role: MessageRole::System,
                content: "## Uncommitted Changes".into(),
                tool_call_id: None,
                tool_name: None,
                metadata: None,
            }),
            unavailable,
            notes,
        }
    }
}
