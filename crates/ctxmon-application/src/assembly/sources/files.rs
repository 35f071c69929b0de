//! Repository files, most relevant first (relevance, then newest, then path).

use ctxmon_domain::assembly::MessageRole;

use super::{ContextSource, FILES, Rank, SourceCandidates, SourceContext, best_first};
use crate::assembly::candidate::{Candidate, ItemMeta, Prefix, TextItem};
use crate::assembly::format::file_parts;
use crate::assembly::notes::{Notes, sanitize_score};

/// Repository files with content, most relevant first (relevance, then newest, then path).
#[derive(Debug, Clone, Copy, Default)]
pub struct FileSource;

impl ContextSource for FileSource {
    fn name(&self) -> &str {
        FILES
    }

    fn candidates<'a>(&self, ctx: &SourceContext<'a>) -> SourceCandidates<'a> {
        let Some(repo) = &ctx.input.repo else {
            return SourceCandidates::default();
        };
        let mut notes = Notes::new();
        let mut unavailable = 0;
        let mut ranked = Vec::with_capacity(repo.files.len());
        for (i, file) in repo.files.iter().enumerate() {
            if let Some(first) = ctx.earlier_file(i) {
                unavailable += 1;
                notes.push_with(|| {
                    format!(
                        "repo.files[{i}].path: {:?} repeats repo.files[{first}], left out",
                        file.path
                    )
                });
                continue;
            }
            let relevance = sanitize_score(
                file.relevance_score,
                || format!("repo.files[{i}].relevanceScore"),
                &mut notes,
            );
            // Assembly reads no files: a file the caller did not load cannot be shown.
            let Some(content) = file.content.as_deref() else {
                unavailable += 1;
                continue;
            };
            let rank = Rank {
                score: relevance,
                newest: file.last_modified.unwrap_or(i64::MIN),
                key: &file.path,
                position: i,
            };
            ranked.push((rank, (file, content)));
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
                            score: relevance, ..
                        },
                        (file, content),
                    ),
                )| {
                    let (parts, suffix) = file_parts(file);
                    let size = if file.size > 0 {
                        file.size
                    } else {
                        content.len() as u64
                    };
                    let item = TextItem {
                        role: MessageRole::User,
                        prefix: Prefix::Parts(parts),
                        text: content,
                        suffix,
                        meta: ItemMeta {
                            source_prefix: "",
                            source: &file.path,
                            priority: relevance,
                            original_size: Some(size),
                        },
                        fallback: None,
                    };
                    Candidate::text(ctx.counter, item, rank, Some(file.path.as_str()))
                },
            )
            .collect();
        SourceCandidates::offer(candidates, unavailable, notes)
    }
}
