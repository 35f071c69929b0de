//! The budget and knobs of one assembly run.

use serde::{Deserialize, Serialize};

/// The token budget and the knobs of one assembly run. There is no default: a budget is the
/// one thing every run must be given ([`ContextConstraints::new`]), and a zero one is refused
/// by the builder.
///
/// Rejects unknown keys: a misspelt limit (`maxToken`, `maxEventAgeMS`) must not be ignored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ContextConstraints {
    /// The hard ceiling on `tokenEstimate`, system prompt and tools included. Must be at least 1.
    pub max_tokens: u64,
    /// Absent: the builder's default (balanced).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub strategy: Option<AssemblyStrategyType>,
    /// Whether content may be shortened (truncated with a visible marker, or a diff reduced to
    /// its stats) instead of being left out.
    #[serde(default)]
    pub allow_summarization: bool,
    /// Percent of `maxTokens` to leave unused. Absent: 0 for greedy, 10 for balanced; the
    /// conservative strategy always keeps at least 20. Clamped to 0–100.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub buffer_percentage: Option<f64>,
    /// At most this many files in the bundle; absent, no count limit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_files: Option<u64>,
    /// Events older than this (relative to `nowMs`) are left out. `maxEventAge`, the name some
    /// producers use, is accepted as an alias.
    #[serde(
        default,
        alias = "maxEventAge",
        skip_serializing_if = "Option::is_none"
    )]
    pub max_event_age_ms: Option<u64>,
    /// "Now" in milliseconds since the epoch. Assembly reads no clock, so age limits and future
    /// timestamps are judged against this; absent, the newest event's time stands in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub now_ms: Option<i64>,
}

impl ContextConstraints {
    /// A budget of `max_tokens` (system prompt and tools included), everything else at the
    /// builder's defaults: the balanced strategy, nothing shortened, no file or age limit, and
    /// the newest event's time as "now". Change a knob with struct update syntax:
    /// `ContextConstraints { allow_summarization: true, ..ContextConstraints::new(2_000) }`.
    pub fn new(max_tokens: u64) -> ContextConstraints {
        ContextConstraints {
            max_tokens,
            strategy: None,
            allow_summarization: false,
            buffer_percentage: None,
            max_files: None,
            max_event_age_ms: None,
            now_ms: None,
        }
    }
}

/// How the budget is shared between the sources.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AssemblyStrategyType {
    /// Sources in priority order, each taking all it can.
    Greedy,
    /// Pinned memory first, then a weighted share per source, leftovers passed on.
    Balanced,
    /// Pinned memory, the last two events and the top three files, with a 20% buffer.
    Conservative,
}

impl AssemblyStrategyType {
    /// Every strategy: greedy, balanced, conservative.
    pub const ALL: [AssemblyStrategyType; 3] = [
        AssemblyStrategyType::Greedy,
        AssemblyStrategyType::Balanced,
        AssemblyStrategyType::Conservative,
    ];

    /// The lower-case name, as in the input's `strategy`.
    pub fn as_str(self) -> &'static str {
        match self {
            AssemblyStrategyType::Greedy => "greedy",
            AssemblyStrategyType::Balanced => "balanced",
            AssemblyStrategyType::Conservative => "conservative",
        }
    }

    /// Parses the lower-case name, ignoring case and surrounding space.
    pub fn parse(s: &str) -> Option<AssemblyStrategyType> {
        Self::ALL
            .into_iter()
            .find(|t| t.as_str().eq_ignore_ascii_case(s.trim()))
    }
}

impl std::fmt::Display for AssemblyStrategyType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}
