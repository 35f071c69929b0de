//! Context assembly (contract C10): packs a snapshot of the world (goal, agent, files, diffs,
//! symbols, memories, events) into the exact context an agent should see, within a hard token
//! budget.
//!
//! The pipeline: `SystemPromptBuilder` writes the fixed part and a `ToolFilter` picks the
//! tools, both paid for first; each `ContextSource` ranks and prices its candidates; an
//! `AssemblyStrategy` offers slices of the remaining budget to the sources through `Packing`;
//! `ContextBuilder` counts the finished bundle and reports the breakdown.
//!
//! Guarantees, each property-tested: `tokenEstimate <= maxTokens` for every input; the breakdown
//! sums to the estimate; identical input gives identical output (no clock, no hash-order
//! iteration, every tie broken by path or id); a tool result never appears without its call;
//! pinned memory has the first claim on the budget; budget a source leaves unused is offered to
//! the next; shortened content says so.

mod assembler;
mod builder;
mod candidate;
mod default_tools;
mod error;
mod filters;
mod format;
mod notes;
mod packing;
pub mod sources;
mod strategies;
mod system_prompt;

pub use assembler::ContextAssembler;
pub use builder::{ContextBuilder, ContextBuilderOptions, create_context_builder};
pub use candidate::{
    Candidate, CandidateBody, ItemMeta, MESSAGE_OVERHEAD, MIN_SHOWN_TOKENS, Prefix, Shortened,
    TextItem, message_text_tokens, message_tokens,
};
pub use default_tools::default_tools;
pub use error::{AssemblyError, AssemblyErrorKind};
pub use filters::{CapabilityBasedFilter, RoleBasedFilter, ToolFilter};
pub use format::{
    EVENT_PAYLOAD_CHARS, TRUNCATION_MARKER, diff_parts, event_text, file_parts, memory_prefix,
    symbol_text, truncation_marker,
};
pub use notes::{MAX_NOTES, Notes};
pub use packing::{Fit, Packed, Packing};
pub use strategies::{
    AssemblyStrategy, BalancedStrategy, ConservativeStrategy, GreedyStrategy, PRIORITY,
};
pub use system_prompt::SystemPromptBuilder;
