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
pub use candidate::{Candidate, CandidateBody, ItemMeta, Prefix, TextItem};
// The standard sources' arithmetic and text, shared by them and by the tests that hold them
// to their budgets: not something a source of an embedder's own has to match.
#[doc(hidden)]
pub use candidate::{
    MESSAGE_OVERHEAD, MIN_SHOWN_TOKENS, Shortened, message_text_tokens, message_tokens,
};
pub use default_tools::default_tools;
pub use error::{AssemblyError, AssemblyErrorKind};
pub use filters::{CapabilityBasedFilter, RoleBasedFilter, ToolFilter};
#[doc(hidden)]
pub use format::{
    EVENT_PAYLOAD_CHARS, TRUNCATION_MARKER, diff_parts, event_text, file_parts, memory_prefix,
    symbol_text, truncation_marker,
};
#[doc(hidden)]
pub use notes::MAX_NOTES;
pub use notes::Notes;
#[doc(hidden)]
pub use packing::Packed;
pub use packing::{Fit, Packing};
#[doc(hidden)]
pub use strategies::PRIORITY;
pub use strategies::{AssemblyStrategy, BalancedStrategy, ConservativeStrategy, GreedyStrategy};
pub use system_prompt::SystemPromptBuilder;
