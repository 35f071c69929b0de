//! Repository files, most relevant first (relevance, then newest, then path).

use std::collections::HashMap;
use std::collections::hash_map::Entry;

use ctxmon_domain::assembly::{MessageMetadata, MessageRole};

use super::{ContextSource, FILES, SourceCandidates, SourceContext};
use crate::assembly::candidate::{Candidate, TextItem};
use crate::assembly::format::file_parts;
use crate::assembly::notes::{Notes, sanitize_score};

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
        let mut first_at: HashMap<&str, usize> = HashMap::with_capacity(repo.files.len());
        let mut ranked = Vec::with_capacity(repo.files.len());
        for (i, file) in repo.files.iter().enumerate() {
            match first_at.entry(file.path.as_str()) {
                Entry::Occupied(first) => {
                    unavailable += 1;
                    let first = *first.get();
                    notes.push_with(|| {
                        format!(
                            "repo.files[{i}].path: {:?} repeats repo.files[{first}], left out",
                            file.path
                        )
                    });
                    continue;
                }
                Entry::Vacant(slot) => {
                    slot.insert(i);
                }
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
            ranked.push((
                relevance,
                file.last_modified.unwrap_or(i64::MIN),
                file,
                content,
            ));
        }
        // A total order: equal relevance and age fall back to the (unique) path.
        ranked.sort_by(|a, b| {
            b.0.total_cmp(&a.0)
                .then(b.1.cmp(&a.1))
                .then_with(|| a.2.path.cmp(&b.2.path))
        });
        let candidates = ranked
            .into_iter()
            .enumerate()
            .map(|(rank, (relevance, _, file, content))| {
                let (prefix, suffix) = file_parts(file);
                let size = if file.size > 0 {
                    file.size
                } else {
                    content.len() as u64
                };
                let item = TextItem {
                    role: MessageRole::User,
                    prefix,
                    text: content,
                    suffix,
                    metadata: MessageMetadata {
                        source: Some(file.path.clone()),
                        priority: Some(relevance),
                        original_size: Some(size),
                        truncated: false,
                    },
                    fallback: None,
                };
                Candidate::text(ctx.counter, item, rank, Some(file.path.as_str()))
            })
            .collect();
        SourceCandidates {
            candidates,
            header: None,
            unavailable,
            notes,
        }
    }
}
