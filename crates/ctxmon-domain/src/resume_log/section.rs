//! The seven budgeted sections of a resume log and what each may cost (contract C9).

use serde::{Deserialize, Serialize};

use crate::TokenCount;

/// A section of the rendered markdown, in document order. Every character of the document
/// belongs to exactly one section — the title and `Generated:` line to `ContextMetrics`, the
/// `Session Metadata` part to `CriticalContext` — and the sections' budgets add up to the
/// whole document's. A section's budget is its share: room a section leaves unused goes to
/// sections that need more (`fit`), the whole stays within [`ResumeLogSection::TOTAL_BUDGET`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ResumeLogSection {
    /// ctxmon's measurement of the context (500 tokens).
    ContextMetrics,
    /// What the session set out to do (1,000 tokens).
    MissionSummary,
    /// What was done (2,000 tokens).
    Accomplishments,
    /// What was learnt (2,500 tokens).
    KeyFindings,
    /// Choices made and why (1,500 tokens).
    Decisions,
    /// What to do next (1,500 tokens).
    NextSteps,
    /// Paths, ids and values not to lose (1,000 tokens).
    CriticalContext,
}

impl ResumeLogSection {
    /// Every section, in document order.
    pub const ALL: [ResumeLogSection; 7] = [
        ResumeLogSection::ContextMetrics,
        ResumeLogSection::MissionSummary,
        ResumeLogSection::Accomplishments,
        ResumeLogSection::KeyFindings,
        ResumeLogSection::Decisions,
        ResumeLogSection::NextSteps,
        ResumeLogSection::CriticalContext,
    ];

    /// The whole document's budget: the sum of the section budgets.
    pub const TOTAL_BUDGET: TokenCount = TokenCount(10_000);

    /// Each section's guaranteed share of the 10,000 tokens: numbers are cheap, discoveries are
    /// the most valuable.
    pub fn budget(self) -> TokenCount {
        TokenCount(match self {
            ResumeLogSection::ContextMetrics => 500,
            ResumeLogSection::MissionSummary => 1_000,
            ResumeLogSection::Accomplishments => 2_000,
            ResumeLogSection::KeyFindings => 2_500,
            ResumeLogSection::Decisions => 1_500,
            ResumeLogSection::NextSteps => 1_500,
            ResumeLogSection::CriticalContext => 1_000,
        })
    }

    /// The markdown heading.
    pub fn title(self) -> &'static str {
        match self {
            ResumeLogSection::ContextMetrics => "Context Metrics",
            ResumeLogSection::MissionSummary => "Mission Summary",
            ResumeLogSection::Accomplishments => "Accomplishments",
            ResumeLogSection::KeyFindings => "Key Findings",
            ResumeLogSection::Decisions => "Decisions & Rationale",
            ResumeLogSection::NextSteps => "Next Steps",
            ResumeLogSection::CriticalContext => "Critical Context",
        }
    }

    /// The JSON field name, also used in `--json` summaries.
    pub fn key(self) -> &'static str {
        match self {
            ResumeLogSection::ContextMetrics => "context_metrics",
            ResumeLogSection::MissionSummary => "mission_summary",
            ResumeLogSection::Accomplishments => "accomplishments",
            ResumeLogSection::KeyFindings => "key_findings",
            ResumeLogSection::Decisions => "decisions",
            ResumeLogSection::NextSteps => "next_steps",
            ResumeLogSection::CriticalContext => "critical_context",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn budgets_add_up_to_the_total() {
        let sum: u64 = ResumeLogSection::ALL.iter().map(|s| s.budget().get()).sum();
        assert_eq!(TokenCount(sum), ResumeLogSection::TOTAL_BUDGET);
    }
}
