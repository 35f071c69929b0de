//! Context assembly types: the input snapshot, the output bundle, the token budget ledger and
//! the token-counting port (contract C10). The packing itself lives in `ctxmon-application`.
//!
//! Shapes are camelCase JSON, as producers of these inputs write them (contract C10). Where a
//! value may be any JSON, `JsonValue` stands in (the domain depends on `serde` only).

mod budget;
mod constraints;
mod counter;
mod input;
mod json;
mod memory;
mod open_enum;
mod output;
mod repo;
mod runtime;
mod tools;

pub use budget::{BudgetBreakdown, BudgetUsage, RESERVED, TokenBudget, ZeroBudget};
pub use constraints::{AssemblyStrategyType, ContextConstraints};
pub use counter::{CharsPerFour, TokenCounter};
pub use input::{
    AgentCapability, AgentDescriptor, AgentRole, ContextBuildInput, IntentType, UserGoal,
};
pub use json::{JsonNumber, JsonValue};
pub use memory::{MemoryChunk, MemorySnapshot, MemoryType};
pub use output::{
    ContextBundle, ContextDebugInfo, ContextMessage, MessageMetadata, MessageRole, SourceStats,
    TokenBreakdown,
};
pub use repo::{
    ChangeType, FileDescriptor, GitDiff, RepoMetadata, RepoSnapshot, SymbolIndex, SymbolKind,
};
pub use runtime::{RuntimeEvent, RuntimeEventType};
pub use tools::{ToolCategory, ToolDescriptor};
