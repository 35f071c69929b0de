//! The markdown rendering of a resume log, in the seed's layout: title, metrics, mission,
//! accomplishments, key findings, decisions & rationale, next steps, critical context, session
//! metadata.
//!
//! Deterministic (no clock, no hash-map order: the log's maps are `BTreeMap`s) and budgeted:
//! rendering fits a copy of the log to its budget first (`fit`), then draws each section as
//! one block of at most `budget × 4` characters from its pieces (`pieces`), so its estimate
//! `ceil(chars / 4)` is within budget; the document is exactly the concatenation of the blocks,
//! so it stays within the 10,000-token total. Text from outside is made safe for a terminal
//! (control characters replaced) and kept in its place (list items indented, the mission
//! quoted), but otherwise shown as written.

use crate::{TokenCount, estimate_tokens};

use super::fit::{
    ACCOMPLISHED, FINDING, METADATA_HEADING, METADATA_KEY, OPEN, critical_rooms, heading, room,
};
use super::pieces::{
    Origin, Piece, body, decision_pieces, item_pieces, metadata_pieces, mission_pieces, one_line,
    pair_pieces,
};
use super::truncate::truncate_chars;
use super::{ResumeLog, ResumeLogSection};

/// One section's block of markdown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RenderedSection {
    pub section: ResumeLogSection,
    pub text: String,
    pub tokens: TokenCount,
    /// Tokens of content cut to fit the budget (0 when everything fit).
    pub omitted_tokens: u64,
}

/// The rendered document, section by section.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RenderedLog {
    pub sections: Vec<RenderedSection>,
}

impl RenderedLog {
    /// The whole document: the blocks, concatenated.
    pub fn markdown(&self) -> String {
        let len = self.sections.iter().map(|s| s.text.len()).sum();
        let mut out = String::with_capacity(len);
        for s in &self.sections {
            out.push_str(&s.text);
        }
        out
    }

    /// The document's tokens by the one estimation rule, without re-walking the text twice.
    pub fn total_tokens(&self) -> TokenCount {
        let chars: u64 = self
            .sections
            .iter()
            .map(|s| s.text.chars().count() as u64)
            .sum();
        TokenCount(chars.div_ceil(4))
    }

    pub fn omitted_tokens(&self) -> u64 {
        self.sections.iter().map(|s| s.omitted_tokens).sum()
    }
}

impl ResumeLog {
    /// Renders every section within its budget. The log is fitted first (on a copy), so a log
    /// renders the same before and after [`ResumeLog::fit_to_budget`].
    pub fn render(&self) -> RenderedLog {
        let mut log = self.clone();
        log.fit_to_budget();
        log.render_fitted()
    }

    /// Fits the log to its budget ([`ResumeLog::fit_to_budget`]) and renders it: what a
    /// writer calls, so the data it stores is what the markdown shows, at the cost of one
    /// fitting instead of two.
    pub fn fit_and_render(&mut self) -> RenderedLog {
        self.fit_to_budget();
        self.render_fitted()
    }

    fn render_fitted(&self) -> RenderedLog {
        let block = |section: ResumeLogSection, pieces: Vec<Piece>| {
            let head = heading(section);
            let omitted = self.omitted(section.key());
            drawn(section, &head, &body(&pieces, omitted), omitted)
        };
        RenderedLog {
            sections: vec![
                self.metrics_block(),
                block(
                    ResumeLogSection::MissionSummary,
                    mission_pieces(&self.mission_summary),
                ),
                block(
                    ResumeLogSection::Accomplishments,
                    item_pieces(ACCOMPLISHED, &self.accomplishments),
                ),
                block(
                    ResumeLogSection::KeyFindings,
                    item_pieces(FINDING, &self.key_findings),
                ),
                block(
                    ResumeLogSection::Decisions,
                    decision_pieces(&self.decisions),
                ),
                block(
                    ResumeLogSection::NextSteps,
                    item_pieces(OPEN, &self.next_steps),
                ),
                self.critical_block(),
            ],
        }
    }

    fn metrics_block(&self) -> RenderedSection {
        let m = &self.context_metrics;
        let head = format!(
            "# Session Resume Log: {}\n\nGenerated: {}\n\n## {}\n\n",
            one_line(&self.session_id, "(no session id)"),
            one_line(&m.timestamp, "unknown"),
            ResumeLogSection::ContextMetrics.title()
        );
        // A zero window means nothing was measured (no transcript): say so rather than
        // claim an empty context.
        let usage = if m.total_budget == 0 {
            "- Total Budget: unknown\n- Used: not measured\n- Remaining: unknown".to_string()
        } else {
            format!(
                "- Total Budget: {} tokens\n- Used: {} tokens ({:.1}%)\n- Remaining: {} tokens",
                thousands(m.total_budget),
                thousands(m.used_tokens),
                // Tenths rounded down, as every fill is shown: 99.99% is 99.9%, not 100.0%.
                crate::fill::floor_scaled(m.percentage_used, 10.0) as f64 / 10.0,
                thousands(m.remaining_tokens),
            )
        };
        let body = format!(
            "- Model: {}\n{usage}\n- Stop Reason: {}",
            one_line(&m.model, "unknown"),
            one_line(&m.stop_reason, "unknown"),
        );
        drawn(ResumeLogSection::ContextMetrics, &head, &body, 0)
    }

    /// Critical context, then session metadata, sharing one budget (see `fit`).
    fn critical_block(&self) -> RenderedSection {
        let section = ResumeLogSection::CriticalContext;
        let head = heading(section);
        let critical = body(
            &pair_pieces(&self.critical_context, "", Origin::Context),
            self.omitted(section.key()),
        );
        let metadata = body(&metadata_pieces(&self.metadata), self.omitted(METADATA_KEY));
        // For a fitted log both cuts are no-ops; they keep the bound for any input.
        let (avail, critical_room) = critical_rooms(metadata.chars().count());
        let c = truncate_chars(&critical, critical_room);
        let m = truncate_chars(&metadata, avail.saturating_sub(c.text.chars().count()));
        let text = format!("{head}{}{METADATA_HEADING}{}\n", c.text, m.text);
        RenderedSection {
            section,
            tokens: estimate_tokens(&text),
            text,
            omitted_tokens: self.omitted(section.key())
                + self.omitted(METADATA_KEY)
                + c.omitted_tokens
                + m.omitted_tokens,
        }
    }
}

/// `head`, the body and a newline; the body cut to the section's room if it is longer (never,
/// for a fitted log). `omitted` is what fitting removed.
fn drawn(section: ResumeLogSection, head: &str, body: &str, omitted: u64) -> RenderedSection {
    let t = truncate_chars(body, room(section, head));
    let mut text = String::with_capacity(head.len() + t.text.len() + 1);
    text.push_str(head);
    text.push_str(&t.text);
    text.push('\n');
    RenderedSection {
        section,
        tokens: estimate_tokens(&text),
        text,
        omitted_tokens: omitted + t.omitted_tokens,
    }
}

/// 150000 → "150,000".
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}
