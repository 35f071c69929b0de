//! `ContextAssembler`: asks every source for its candidates and lets the chosen strategy pack
//! them into the budget.

use ctxmon_domain::assembly::{AssemblyStrategyType, ContextBuildInput, TokenBudget, TokenCounter};

use super::error::{AssemblyError, AssemblyErrorKind};
use super::packing::{Packed, Packing};
use super::sources::{
    ContextSource, DiffSource, EventSource, FileSource, MemoryKind, MemorySource, SourceContext,
    SymbolSource,
};
use super::strategies::{AssemblyStrategy, BalancedStrategy, ConservativeStrategy, GreedyStrategy};

/// Asks every [`ContextSource`] for its candidates and has the chosen [`AssemblyStrategy`]
/// pack them into the budget that is left after the fixed costs.
#[derive(Debug)]
pub struct ContextAssembler {
    /// In bundle order; names must be unique (a repeated name is never served).
    sources: Vec<Box<dyn ContextSource>>,
    strategies: Vec<Box<dyn AssemblyStrategy>>,
}

impl ContextAssembler {
    /// An assembler over `sources` (in bundle order, unique names) and `strategies` (one per
    /// kind; the first of a kind is used).
    pub fn new(
        sources: Vec<Box<dyn ContextSource>>,
        strategies: Vec<Box<dyn AssemblyStrategy>>,
    ) -> ContextAssembler {
        ContextAssembler {
            sources,
            strategies,
        }
    }

    /// The seven standard sources and three strategies. Bundle order puts standing knowledge
    /// first (memory, symbols), then the code (files, diffs), and the newest history last,
    /// nearest the model's turn.
    pub fn standard() -> ContextAssembler {
        ContextAssembler::new(
            vec![
                Box::new(MemorySource::new(MemoryKind::Pinned)),
                Box::new(MemorySource::new(MemoryKind::Summaries)),
                Box::new(MemorySource::new(MemoryKind::Recent)),
                Box::new(SymbolSource),
                Box::new(FileSource),
                Box::new(DiffSource),
                Box::new(EventSource),
            ],
            vec![
                Box::new(GreedyStrategy),
                Box::new(BalancedStrategy::default()),
                Box::new(ConservativeStrategy),
            ],
        )
    }

    /// Packs `input` into what `budget` has left (the caller has booked the fixed costs).
    /// Returns the packed messages and the name of the strategy that ran: the requested one, or
    /// balanced if this assembler has no such strategy.
    pub fn assemble<'a>(
        &self,
        input: &'a ContextBuildInput,
        strategy: AssemblyStrategyType,
        budget: TokenBudget,
        counter: &'a dyn TokenCounter,
    ) -> Result<(Packed, &'static str), AssemblyError> {
        let chosen = self
            .strategies
            .iter()
            .find(|s| s.kind() == strategy)
            .or_else(|| {
                self.strategies
                    .iter()
                    .find(|s| s.kind() == AssemblyStrategyType::Balanced)
            })
            .ok_or_else(|| {
                AssemblyError::new(
                    AssemblyErrorKind::Internal,
                    format!("no {strategy} or balanced strategy is registered with this assembler"),
                )
            })?;
        let ctx = SourceContext::new(input, counter);
        let offers = self
            .sources
            .iter()
            .map(|s| (s.name().to_owned(), s.candidates(&ctx)))
            .collect();
        let mut packing = Packing::new(
            budget,
            offers,
            counter,
            input.constraints.allow_summarization,
        );
        chosen.assemble(&mut packing, &input.constraints);
        Ok((packing.finish(), chosen.name()))
    }
}
