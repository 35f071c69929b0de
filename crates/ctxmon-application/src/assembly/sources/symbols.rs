//! The symbol index, one line group per symbol, ordered by their files' relevance.

use ctxmon_domain::assembly::{ContextMessage, MessageMetadata, MessageRole};

use super::{ContextSource, SYMBOLS, SourceCandidates, SourceContext};
use crate::assembly::candidate::Candidate;
use crate::assembly::format::symbol_text;
use crate::assembly::notes::Notes;

/// The symbol index, one group of lines per symbol, ordered by their files' relevance.
#[derive(Debug, Clone, Copy, Default)]
pub struct SymbolSource;

impl ContextSource for SymbolSource {
    fn name(&self) -> &str {
        SYMBOLS
    }

    fn candidates<'a>(&self, ctx: &SourceContext<'a>) -> SourceCandidates<'a> {
        let Some(repo) = ctx.input.repo.as_ref().filter(|r| !r.symbols.is_empty()) else {
            return SourceCandidates::default();
        };
        let mut ranked: Vec<_> = repo
            .symbols
            .iter()
            .map(|s| (ctx.file_relevance(&s.file), s))
            .collect();
        ranked.sort_by(|a, b| {
            b.0.total_cmp(&a.0)
                .then_with(|| a.1.file.cmp(&b.1.file))
                .then(a.1.range.cmp(&b.1.range))
                .then_with(|| a.1.name.cmp(&b.1.name))
                .then_with(|| a.1.kind.cmp(&b.1.kind))
        });
        let candidates = ranked
            .into_iter()
            .enumerate()
            .map(|(rank, (score, symbol))| {
                let (content, cut) = symbol_text(symbol);
                let message = ContextMessage {
                    role: MessageRole::User,
                    content,
                    tool_call_id: None,
                    tool_name: None,
                    metadata: Some(MessageMetadata {
                        source: Some(symbol.file.clone()),
                        priority: Some(score),
                        original_size: None,
                        truncated: cut,
                    }),
                };
                Candidate::group(ctx.counter, vec![message], rank)
            })
            .collect();
        SourceCandidates::offer(candidates, 0, Notes::new()).with_header("## Code Symbols")
    }
}
