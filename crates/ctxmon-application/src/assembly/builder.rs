//! `ContextBuilder`: input in, bundle out. It writes the system prompt, filters the tools, has
//! the assembler pack the messages, then counts the finished bundle itself, so the figures it
//! reports are measured on what is returned rather than trusted from the packer.

use std::collections::BTreeMap;

use ctxmon_domain::assembly::{
    AgentRole, AssemblyStrategyType, CharsPerFour, ContextBuildInput, ContextBundle,
    ContextDebugInfo, SourceStats, TokenBreakdown, TokenBudget, TokenCounter, ToolDescriptor,
};
use ctxmon_domain::human::{self, count, thousands};

use super::assembler::ContextAssembler;
use super::candidate::{MESSAGE_OVERHEAD, message_text_tokens};
use super::default_tools::default_tools;
use super::error::{AssemblyError, AssemblyErrorKind};
use super::filters::{RoleBasedFilter, ToolFilter};
use super::notes::Notes;
use super::packing::Packed;
use super::system_prompt::SystemPromptBuilder;

/// Input in, bundle out: writes the system prompt, filters the tools, has the assembler pack
/// the messages, then counts the finished bundle itself. [`create_context_builder`] makes the
/// standard one.
#[derive(Debug)]
pub struct ContextBuilder {
    assembler: ContextAssembler,
    tool_filter: Box<dyn ToolFilter>,
    system_prompt: SystemPromptBuilder,
    tools: Vec<ToolDescriptor>,
    counter: Box<dyn TokenCounter>,
    default_strategy: AssemblyStrategyType,
}

/// What [`create_context_builder`] may change about the standard builder.
#[derive(Debug, Clone)]
pub struct ContextBuilderOptions {
    /// Replaces the default tool registry.
    pub tools: Option<Vec<ToolDescriptor>>,
    /// Used when the input names no strategy.
    pub default_strategy: AssemblyStrategyType,
}

impl Default for ContextBuilderOptions {
    fn default() -> ContextBuilderOptions {
        ContextBuilderOptions {
            tools: None,
            default_strategy: AssemblyStrategyType::Balanced,
        }
    }
}

/// The standard builder: seven sources, three strategies, the role-based tool filter, the
/// default tools and the `ceil(chars / 4)` counter.
pub fn create_context_builder(options: ContextBuilderOptions) -> ContextBuilder {
    ContextBuilder::new(
        ContextAssembler::standard(),
        Box::new(RoleBasedFilter),
        SystemPromptBuilder,
        options.tools.unwrap_or_else(default_tools),
    )
    .with_default_strategy(options.default_strategy)
}

impl ContextBuilder {
    /// A builder from its parts, counting with `ceil(chars / 4)` and defaulting to the balanced
    /// strategy.
    pub fn new(
        assembler: ContextAssembler,
        tool_filter: Box<dyn ToolFilter>,
        system_prompt: SystemPromptBuilder,
        tools: Vec<ToolDescriptor>,
    ) -> ContextBuilder {
        ContextBuilder {
            assembler,
            tool_filter,
            system_prompt,
            tools,
            counter: Box::new(CharsPerFour),
            default_strategy: AssemblyStrategyType::Balanced,
        }
    }

    /// Counts with `counter` instead of `ceil(chars / 4)`.
    pub fn with_counter(mut self, counter: Box<dyn TokenCounter>) -> ContextBuilder {
        self.counter = counter;
        self
    }

    /// Uses `strategy` when the input names none.
    pub fn with_default_strategy(mut self, strategy: AssemblyStrategyType) -> ContextBuilder {
        self.default_strategy = strategy;
        self
    }

    /// The counter every figure in the bundle is measured with.
    pub fn counter(&self) -> &dyn TokenCounter {
        &*self.counter
    }

    /// The bundle for `input`, within `constraints.maxTokens`. Pure: the same input always
    /// gives the same bundle, byte for byte once serialized.
    ///
    /// Fails only when the budget cannot hold what must be sent: `maxTokens` of 0, or smaller
    /// than the system prompt and tool definitions together.
    pub fn build(&self, input: &ContextBuildInput) -> Result<ContextBundle, AssemblyError> {
        let constraints = &input.constraints;
        let max_tokens = constraints.max_tokens;
        let mut budget = TokenBudget::new(max_tokens).map_err(|_| {
            AssemblyError::new(
                AssemblyErrorKind::InvalidBudget,
                "constraints.maxTokens is 0; a bundle needs room for at least the system prompt, so pass a positive number of tokens",
            )
        })?;
        let counter = self.counter();
        let mut notes = Notes::new();
        note_odd_input(input, &mut notes);

        let fixed = self.fixed_part(input, &mut notes)?;
        budget.force_allocate(fixed.system_tokens, "system");
        budget.force_allocate(fixed.tool_tokens, "tools");

        let strategy = constraints.strategy.unwrap_or(self.default_strategy);
        let (mut packed, strategy_used) =
            self.assembler.assemble(input, strategy, budget, counter)?;
        let counted = count_messages(counter, &packed, fixed.tokens(), max_tokens)?;

        notes.append(std::mem::take(&mut packed.notes));
        let file_count = input.repo.as_ref().map_or(0, |r| r.files.len()) as u64;
        let (sources, by_source) = source_stats(&packed, &counted.by_source);
        let debug = ContextDebugInfo {
            excluded_file_count: file_count.saturating_sub(packed.included_files.len() as u64),
            included_files: packed.included_files,
            excluded_files: packed.excluded_files,
            dropped_messages: packed.dropped_messages,
            summarizations_applied: packed.summarizations,
            token_breakdown: TokenBreakdown {
                system: fixed.system_tokens,
                messages: counted.message_tokens,
                tools: fixed.tool_tokens,
                overhead: counted.overhead,
                total: counted.total,
                remaining: max_tokens - counted.total,
                reserved: packed.reserved,
                max_tokens,
                by_source,
            },
            strategy_used: strategy_used.to_owned(),
            assembled_at: constraints.now_ms,
            sources,
            notes: notes.into_vec(),
        };
        Ok(ContextBundle {
            system: fixed.system,
            messages: packed.messages.into_iter().map(|(_, m)| m).collect(),
            tools: fixed.tools,
            token_estimate: counted.total,
            debug: Some(debug),
        })
    }

    /// What every bundle sends whatever the budget: the system prompt and the tools the agent
    /// may use, counted. Fails when they alone do not fit in `maxTokens`.
    fn fixed_part(
        &self,
        input: &ContextBuildInput,
        notes: &mut Notes,
    ) -> Result<FixedPart, AssemblyError> {
        let counter = self.counter();
        let system = self.system_prompt.build(input);
        let tools = unique_by_name(self.tool_filter.filter(&self.tools, &input.agent), notes);
        let system_tokens = counter.count(&system);
        let mut tool_tokens = 0u64;
        for tool in &tools {
            let json = serde_json::to_string(tool).map_err(|e| {
                AssemblyError::new(
                    AssemblyErrorKind::Internal,
                    format!("tool {:?} cannot be written as JSON: {e}", tool.name),
                )
            })?;
            tool_tokens = tool_tokens.saturating_add(counter.count(&json));
        }
        let fixed = FixedPart {
            system,
            tools,
            system_tokens,
            tool_tokens,
        };
        let max_tokens = input.constraints.max_tokens;
        if fixed.tokens() > max_tokens {
            return Err(AssemblyError::new(
                AssemblyErrorKind::BudgetTooSmall,
                format!(
                    "constraints.maxTokens is {}, but the system prompt ({}) and the {} ({}) alone need {}; raise maxTokens to at least {}",
                    thousands(max_tokens),
                    human::tokens(system_tokens),
                    count(
                        fixed.tools.len() as u64,
                        "tool definition",
                        "tool definitions"
                    ),
                    human::tokens(tool_tokens),
                    thousands(fixed.tokens()),
                    fixed.tokens()
                ),
            ));
        }
        Ok(fixed)
    }
}

/// The system prompt and the tools, with what each costs.
struct FixedPart {
    system: String,
    tools: Vec<ToolDescriptor>,
    system_tokens: u64,
    tool_tokens: u64,
}

impl FixedPart {
    fn tokens(&self) -> u64 {
        self.system_tokens.saturating_add(self.tool_tokens)
    }
}

/// The finished messages as counted, per source and in all, the fixed part included.
struct Counted {
    by_source: Vec<u64>,
    message_tokens: u64,
    overhead: u64,
    total: u64,
}

/// Counts the finished messages: this, not the packer's ledger, is what is reported. Fails
/// when the counter prices the whole above `max_tokens` after the packer fitted the parts.
fn count_messages(
    counter: &dyn TokenCounter,
    packed: &Packed,
    fixed: u64,
    max_tokens: u64,
) -> Result<Counted, AssemblyError> {
    let mut by_source = vec![0u64; packed.source_names.len()];
    let (mut message_tokens, mut overhead) = (0u64, 0u64);
    for (source, message) in &packed.messages {
        let text = message_text_tokens(counter, message);
        message_tokens = message_tokens.saturating_add(text);
        overhead = overhead.saturating_add(MESSAGE_OVERHEAD);
        if let Some(slot) = by_source.get_mut(*source) {
            *slot = slot.saturating_add(text.saturating_add(MESSAGE_OVERHEAD));
        }
    }
    let total = fixed
        .saturating_add(message_tokens)
        .saturating_add(overhead);
    if total > max_tokens {
        return Err(AssemblyError::new(
            AssemblyErrorKind::Internal,
            format!(
                "the token counter priced the bundle at {} after packing it into {}; it must count a text the same way whole and in parts",
                human::tokens(total),
                thousands(max_tokens)
            ),
        ));
    }
    Ok(Counted {
        by_source,
        message_tokens,
        overhead,
        total,
    })
}

/// Each source's figures for the debug breakdown (items and tokens), and its tokens alone.
fn source_stats(
    packed: &Packed,
    tokens_by_source: &[u64],
) -> (BTreeMap<String, SourceStats>, BTreeMap<String, u64>) {
    let mut sources = BTreeMap::new();
    let mut by_source = BTreeMap::new();
    for (i, name) in packed.source_names.iter().enumerate() {
        let (included, excluded, summarized) = packed.counts.get(i).copied().unwrap_or_default();
        let tokens = tokens_by_source.get(i).copied().unwrap_or(0);
        sources.insert(
            name.clone(),
            SourceStats {
                included,
                excluded,
                summarized,
                tokens,
            },
        );
        by_source.insert(name.clone(), tokens);
    }
    (sources, by_source)
}

/// Notes on input the builder itself interprets: the agent and the buffer.
fn note_odd_input(input: &ContextBuildInput, notes: &mut Notes) {
    let agent = &input.agent;
    if !AgentRole::parse(agent.role.as_str()).is_known() {
        notes.push_with(|| {
            format!(
                "agent.role: unknown role {:?}, treated as generic",
                agent.role.as_str()
            )
        });
    }
    for (i, capability) in agent.capabilities.iter().enumerate() {
        if !capability.is_known() {
            notes.push_with(|| {
                format!(
                    "agent.capabilities[{i}]: unknown capability {:?}, kept for tools that require it by name",
                    capability.as_str()
                )
            });
        }
    }
    if let Some(pct) = input.constraints.buffer_percentage {
        if !pct.is_finite() {
            notes.push_with(|| {
                format!("constraints.bufferPercentage: {pct:?} is not a number, the strategy's default is used")
            });
        } else if !(0.0..=100.0).contains(&pct) {
            notes.push_with(|| {
                format!("constraints.bufferPercentage: {pct:?} is outside 0-100, clamped")
            });
        }
    }
}

/// Drops tools whose name appeared earlier: names are how models call tools.
fn unique_by_name(tools: Vec<ToolDescriptor>, notes: &mut Notes) -> Vec<ToolDescriptor> {
    let mut out: Vec<ToolDescriptor> = Vec::with_capacity(tools.len());
    for tool in tools {
        if out.iter().any(|t| t.name == tool.name) {
            notes.push_with(|| {
                format!(
                    "tools: {:?} is registered twice, the first is offered",
                    tool.name
                )
            });
        } else {
            out.push(tool);
        }
    }
    out
}
