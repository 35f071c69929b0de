//! The markdown rendering of a resume log, its sections in a fixed order: title, metrics, mission,
//! accomplishments, key findings, decisions & rationale, next steps, critical context, session
//! metadata.
//!
//! Deterministic (no clock, no hash-map order: the log's maps are `BTreeMap`s) and budgeted:
//! rendering fits a copy of the log to its budget first (`fit`), then draws each part as one
//! block of at most the characters fitting gave it from its pieces (`pieces`); those rooms add
//! up to at most 40,000 characters and the document is exactly the concatenation of the
//! blocks, so its estimate `ceil(chars / 4)` stays within the 10,000-token total. Text from
//! outside is made safe for a terminal (control characters replaced) and kept in its place
//! (list items indented, the mission quoted, keys on one line), but otherwise shown as written.

use crate::human::{percent_of_100, thousands};
use crate::tokens::tokens_for_chars;
use crate::{TokenCount, estimate_tokens};

use super::fit::{
    ACCOMPLISHED, FINDING, METADATA_HEADING, METADATA_KEY, OPEN, Part, Rooms, critical_overhead,
    heading,
};
use super::pieces::{
    Piece, body, body_of, context_pieces, decision_pieces, item_pieces, mission_pieces, one_line,
};
use super::pieces_meta::metadata_pieces;
use super::truncate::truncate_chars;
use super::{ReportedMetrics, ResumeLog, ResumeLogSection};

/// One section's block of markdown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RenderedSection {
    /// Which section this is.
    pub section: ResumeLogSection,
    /// Its markdown, heading included.
    pub text: String,
    /// Its size, `ceil(chars / 4)`.
    pub tokens: TokenCount,
    /// Tokens of content cut to fit the budget (0 when everything fit).
    pub omitted_tokens: u64,
}

/// The rendered document, section by section.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RenderedLog {
    /// The sections in document order.
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
        tokens_for_chars(chars)
    }

    /// Tokens cut from all sections together.
    pub fn omitted_tokens(&self) -> u64 {
        self.sections.iter().map(|s| s.omitted_tokens).sum()
    }
}

impl ResumeLog {
    /// Renders every section within its budget. The log is fitted first (on a copy), so a log
    /// renders the same before and after [`ResumeLog::fit_to_budget`].
    pub fn render(&self) -> RenderedLog {
        let mut log = self.clone();
        log.fit_and_render()
    }

    /// Fits the log to its budget ([`ResumeLog::fit_to_budget`]) and renders it: what a
    /// writer calls, so the data it stores is what the markdown shows, at the cost of one
    /// fitting instead of two.
    pub fn fit_and_render(&mut self) -> RenderedLog {
        let rooms = self.fit_rooms();
        self.render_fitted(&rooms)
    }

    /// Draws each part within its room. For a fitted log with the rooms its fitting gave,
    /// every cut here is a no-op; they keep the bound for any input.
    pub(super) fn render_fitted(&self, rooms: &Rooms) -> RenderedLog {
        let block = |section: ResumeLogSection, part: Part, pieces: Vec<Piece>| {
            let omitted = self.omitted(section.key());
            drawn(
                section,
                &heading(section),
                &body(&pieces, omitted),
                rooms.of(part),
                omitted,
            )
        };
        let (head, metrics) = self.metrics_block_parts();
        RenderedLog {
            sections: vec![
                drawn(
                    ResumeLogSection::ContextMetrics,
                    &head,
                    &metrics,
                    rooms.of(Part::Metrics).min(Part::Metrics.share()),
                    0,
                ),
                block(
                    ResumeLogSection::MissionSummary,
                    Part::Mission,
                    mission_pieces(&self.mission_summary),
                ),
                block(
                    ResumeLogSection::Accomplishments,
                    Part::Accomplishments,
                    item_pieces(ACCOMPLISHED, &self.accomplishments),
                ),
                block(
                    ResumeLogSection::KeyFindings,
                    Part::KeyFindings,
                    item_pieces(FINDING, &self.key_findings),
                ),
                block(
                    ResumeLogSection::Decisions,
                    Part::Decisions,
                    decision_pieces(&self.decisions),
                ),
                block(
                    ResumeLogSection::NextSteps,
                    Part::NextSteps,
                    item_pieces(OPEN, &self.next_steps),
                ),
                self.critical_block(rooms),
            ],
        }
    }

    /// The metrics block as drawn whole (for the fitting, which never cuts it).
    pub(super) fn metrics_block_text(&self) -> String {
        let (head, body) = self.metrics_block_parts();
        format!("{head}{body}\n")
    }

    /// The title, `Generated:` line and heading; then ctxmon's figures and, when the agent's
    /// document gave its own, those beneath under their own label.
    fn metrics_block_parts(&self) -> (String, String) {
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
                "- Total Budget: {} tokens\n- Used: {} tokens ({})\n- Remaining: {} tokens",
                thousands(m.total_budget),
                thousands(m.used_tokens),
                percent_of_100(m.percentage_used),
                thousands(m.remaining_tokens),
            )
        };
        let mut body = format!(
            "- Model: {}\n{usage}\n- Stop Reason: {}",
            one_line(&m.model, "unknown"),
            one_line(&m.stop_reason, "unknown"),
        );
        if let Some(why) = &m.estimate {
            body.push_str(&format!(
                "\n- Measured: no, an estimate ({})",
                one_line(why, "after a compaction")
            ));
        }
        if let Some(a) = &self.agent_metrics {
            body.push_str(&reported(a));
        }
        (head, body)
    }

    /// Critical context, then session metadata, sharing one section (see `fit`).
    fn critical_block(&self, rooms: &Rooms) -> RenderedSection {
        let section = ResumeLogSection::CriticalContext;
        let head = heading(section);
        let critical = body(
            &context_pieces(&self.critical_context),
            self.omitted(section.key()),
        );
        let metadata = body_of(
            &metadata_pieces(&self.metadata).text(),
            self.omitted(METADATA_KEY),
        );
        let c = truncate_chars(
            &critical,
            rooms.of(Part::Critical).saturating_sub(critical_overhead()),
        );
        let m = truncate_chars(&metadata, rooms.of(Part::Metadata));
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

/// The agent's own figures, labelled as such: ctxmon did not measure them.
fn reported(a: &ReportedMetrics) -> String {
    let mut out = String::from("\n\nAs the agent reported them (not measured by ctxmon):\n");
    let mut line = |label: &str, value: String| {
        out.push_str(&format!("\n- {label}: {value}"));
    };
    if let Some(model) = &a.model {
        line("Model", one_line(model, ""));
    }
    if let Some(total) = a.total_budget {
        line("Total Budget", format!("{} tokens", thousands(total)));
    }
    match (a.used_tokens, a.percentage_used) {
        (Some(used), Some(p)) => line(
            "Used",
            format!("{} tokens ({})", thousands(used), percent_of_100(p)),
        ),
        (Some(used), None) => line("Used", format!("{} tokens", thousands(used))),
        (None, Some(p)) => line("Used", percent_of_100(p)),
        (None, None) => {}
    }
    if let Some(left) = a.remaining_tokens {
        line("Remaining", format!("{} tokens", thousands(left)));
    }
    if let Some(stop) = &a.stop_reason {
        line("Stop Reason", one_line(stop, ""));
    }
    if let Some(at) = &a.timestamp {
        line("At", one_line(at, ""));
    }
    out
}

/// `head`, the body and a newline, the body cut to the `room` of the whole block if it is
/// longer (never, for a fitted log). `omitted` is what fitting removed.
fn drawn(
    section: ResumeLogSection,
    head: &str,
    body: &str,
    room: usize,
    omitted: u64,
) -> RenderedSection {
    let t = truncate_chars(body, room.saturating_sub(head.chars().count() + 1));
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
