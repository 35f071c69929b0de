//! The markdown rendering of a resume log, in the seed's layout: title, metrics, mission,
//! accomplishments, key findings, decisions & rationale, next steps, critical context, session
//! metadata.
//!
//! Deterministic (no clock, no hash-map order: the log's maps are `BTreeMap`s) and budgeted:
//! each section is rendered as one block of at most `budget × 4` characters, so its estimate
//! `ceil(chars / 4)` is within budget, and since the document is exactly the concatenation of
//! the blocks, it stays within the 10,000-token total. Text from outside is made safe for a
//! terminal (control characters replaced) and kept inside its list item (continuation lines
//! indented), but otherwise shown as written.

use crate::{TokenCount, estimate_tokens};

use super::truncate::truncate_chars;
use super::{ResumeLog, ResumeLogSection, SessionMetadata};

/// Longest session id, model or trigger shown on one line; a 10 KB id is not a title.
const ONE_LINE_MAX: usize = 128;

/// What an empty section says, so the layout is the same for every log.
const NONE: &str = "_None recorded._";

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
    /// Renders every section within its budget.
    pub fn render(&self) -> RenderedLog {
        RenderedLog {
            sections: vec![
                self.metrics_block(),
                block(
                    ResumeLogSection::MissionSummary,
                    &paragraph(&self.mission_summary),
                ),
                block(
                    ResumeLogSection::Accomplishments,
                    &bullets("- [x] ", &self.accomplishments),
                ),
                block(
                    ResumeLogSection::KeyFindings,
                    &bullets("- ", &self.key_findings),
                ),
                block(ResumeLogSection::Decisions, &self.decisions_body()),
                block(
                    ResumeLogSection::NextSteps,
                    &bullets("- [ ] ", &self.next_steps),
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
        fit(ResumeLogSection::ContextMetrics, &head, &body)
    }

    fn decisions_body(&self) -> String {
        let mut out = String::new();
        let mut n = 0usize;
        for d in &self.decisions {
            let decision = clean(&d.decision);
            let rationale = clean(&d.rationale);
            if decision.is_empty() && rationale.is_empty() {
                continue;
            }
            n += 1;
            let prefix = format!("{n}. ");
            push_item(
                &mut out,
                &prefix,
                if decision.is_empty() {
                    "(unstated)"
                } else {
                    &decision
                },
            );
            if !rationale.is_empty() {
                push_item(&mut out, "   - Rationale: ", &rationale);
            }
        }
        or_none(out)
    }

    /// Critical context, then session metadata, sharing one budget: the metadata may claim up
    /// to 40% of it and gives back what it does not need.
    fn critical_block(&self) -> RenderedSection {
        let section = ResumeLogSection::CriticalContext;
        let head = format!("\n## {}\n\n", section.title());
        let middle = "\n\n## Session Metadata\n\n";
        let critical = pairs(self.critical_context.iter());
        let metadata = metadata_body(&self.metadata);
        let avail = room(section, &head).saturating_sub(middle.chars().count());
        let metadata_len = metadata.chars().count();
        let critical_room = avail - metadata_len.min(avail * 2 / 5);
        let c = truncate_chars(&critical, critical_room);
        let m = truncate_chars(&metadata, avail.saturating_sub(c.text.chars().count()));
        let text = format!("{head}{}{middle}{}\n", c.text, m.text);
        RenderedSection {
            section,
            tokens: estimate_tokens(&text),
            text,
            omitted_tokens: c.omitted_tokens + m.omitted_tokens,
        }
    }
}

/// `\n## Title\n\n{body}\n`, the body cut to what the budget leaves.
fn block(section: ResumeLogSection, body: &str) -> RenderedSection {
    let head = format!("\n## {}\n\n", section.title());
    fit(section, &head, body)
}

fn fit(section: ResumeLogSection, head: &str, body: &str) -> RenderedSection {
    let t = truncate_chars(body, room(section, head));
    let mut text = String::with_capacity(head.len() + t.text.len() + 1);
    text.push_str(head);
    text.push_str(&t.text);
    text.push('\n');
    RenderedSection {
        section,
        tokens: estimate_tokens(&text),
        text,
        omitted_tokens: t.omitted_tokens,
    }
}

/// Characters left for the body of `section` after `head` and the closing newline.
fn room(section: ResumeLogSection, head: &str) -> usize {
    let chars = usize::try_from(section.budget().get().saturating_mul(4)).unwrap_or(usize::MAX);
    chars.saturating_sub(head.chars().count() + 1)
}

fn metadata_body(m: &SessionMetadata) -> String {
    let mut out = String::new();
    let mut line = |label: &str, value: &str| {
        if !value.trim().is_empty() {
            push_item(&mut out, &format!("- {label}: "), &clean(value));
        }
    };
    line("Trigger", &m.trigger);
    line("Sources", &m.sources.join(", "));
    line(
        "Transcript",
        m.transcript_path.as_deref().unwrap_or_default(),
    );
    let git = match (m.git_branch.as_deref(), m.git_head.as_deref()) {
        (Some(b), Some(h)) => format!("{b} @ {h}"),
        (Some(b), None) => format!("{b} (no commits)"),
        (None, Some(h)) => format!("detached @ {h}"),
        (None, None) => String::new(),
    };
    line("Git", &git);
    for (label, items) in [
        ("Files Modified", &m.files_modified),
        ("Uncommitted Changes (git status)", &m.git_dirty_files),
        ("Errors/Warnings", &m.errors),
        ("Commands Run", &m.commands_run),
        ("Agents Used", &m.agents_used),
    ] {
        let list = bullets_or_empty("- ", items);
        if !list.is_empty() {
            out.push_str(&format!("\n**{label}:**\n\n{list}"));
        }
    }
    if !m.notes.is_empty() {
        let notes = pairs(m.notes.iter());
        out.push_str(&format!("\n**Notes:**\n\n{notes}\n"));
    }
    or_none(out.trim_end().to_string())
}

fn paragraph(text: &str) -> String {
    or_none(clean(text))
}

fn bullets(prefix: &str, items: &[String]) -> String {
    or_none(bullets_or_empty(prefix, items).trim_end().to_string())
}

fn bullets_or_empty(prefix: &str, items: &[String]) -> String {
    let mut out = String::new();
    for item in items {
        let text = clean(item);
        if !text.is_empty() {
            push_item(&mut out, prefix, &text);
        }
    }
    out
}

/// `- **key:** value` lines, in key order.
fn pairs<'a>(entries: impl Iterator<Item = (&'a String, &'a String)>) -> String {
    let mut out = String::new();
    for (k, v) in entries {
        let key = one_line(k, "");
        let value = clean(v);
        if key.is_empty() && value.is_empty() {
            continue;
        }
        push_item(&mut out, &format!("- **{key}:** "), &value);
    }
    or_none(out.trim_end().to_string())
}

/// Appends `prefix` + the first line, and every further line indented to stay in the item.
fn push_item(out: &mut String, prefix: &str, text: &str) {
    let indent = " ".repeat(prefix.chars().count().min(8));
    for (i, line) in text.split('\n').enumerate() {
        if i == 0 {
            out.push_str(prefix);
        } else if !line.is_empty() {
            out.push_str(&indent);
        }
        out.push_str(line);
        out.push('\n');
    }
}

fn or_none(text: String) -> String {
    let t = text.trim_end();
    if t.trim().is_empty() {
        NONE.to_string()
    } else {
        t.to_string()
    }
}

/// Trimmed, line breaks normalised to `\n`, other control characters replaced: text from a
/// transcript or an agent must not move the cursor of the terminal showing it.
fn clean(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.trim().chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\r' => {
                if chars.peek() != Some(&'\n') {
                    out.push('\n');
                }
            }
            '\n' | '\t' => out.push(c),
            c if c.is_control() => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}

/// One line of at most [`ONE_LINE_MAX`] characters (`fallback` when empty).
fn one_line(text: &str, fallback: &str) -> String {
    let cleaned = clean(text);
    let mut out: String = cleaned
        .chars()
        .map(|c| if c == '\n' || c == '\t' { ' ' } else { c })
        .take(ONE_LINE_MAX)
        .collect();
    if cleaned.chars().nth(ONE_LINE_MAX).is_some() {
        out.pop();
        out.push('…');
    }
    if out.is_empty() {
        fallback.to_string()
    } else {
        out
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
