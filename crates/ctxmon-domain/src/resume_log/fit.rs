//! Fitting a log to its budget (contract C9): what the document cannot show is removed from the
//! data itself, so the JSON holds no more than the markdown shows and both describe the same
//! log.
//!
//! The 10,000-token whole is the bound; the section budgets are each section's share of it.
//! Cutting each section to its budget alone would waste the room a section leaves unused;
//! left there, a log could drop the newest errors while using a sixth of its
//! budget. So fitting runs in two passes over the document's parts (the seven sections, the
//! critical context's shared with the session metadata, 60/40):
//!
//! 1. each part is fitted into its own share ([`Part::share`]);
//! 2. what the document leaves unused goes, in [`Part::SPARE_ORDER`], to each part that had to
//!    leave something out: it is fitted again into what it used plus all the room still
//!    unused, and keeps the result if it shows more.
//!
//! No part gets less than its share, the parts' rooms add up to at most 10,000 tokens, and
//! after the second pass the room left unused is smaller than the first piece each part that
//! left anything out could not show whole (plus its marker's digits): nothing is left out
//! while the document has room for it. Both passes fit the original data, so fitting is
//! idempotent and a log renders the same before and after it is fitted.
//!
//! Within a part (`fit_plan`, `fit_meta`), pieces are kept in order; the session metadata's
//! lists keep their newest entries. What was removed is counted, per section, in
//! [`ResumeLog::omitted_tokens`], which the section's truncation marker shows.

use std::collections::BTreeMap;

use crate::tokens::chars_for_tokens;

use super::context::retain_leaves;
use super::fit_meta::{MetaPlan, apply_meta, plan_meta};
use super::fit_plan::{Cut, Plan, plan};
use super::meta_fields::MetaList;
use super::pieces::{
    ONE_LINE_MAX, Origin, Piece, body, body_of, clean, context_pieces, decision_pieces,
    item_pieces, mission_pieces, one_line,
};
use super::pieces_meta::{MetaPieces, metadata_pieces};
use super::{ContextValue, ResumeLog, ResumeLogSection};

/// The key under which the session metadata's omissions are counted: it shares the critical
/// context's budget but ends with its own marker.
pub const METADATA_KEY: &str = "session_metadata";

pub(super) const METADATA_HEADING: &str = "\n\n## Session Metadata\n\n";

pub(super) const ACCOMPLISHED: &str = "- [x] ";
pub(super) const FINDING: &str = "- ";
pub(super) const OPEN: &str = "- [ ] ";

/// The whole document's room, in characters (`estimate_tokens` counts four per token).
pub(super) const TOTAL_CHARS: usize = 40_000;

/// `\n## Title\n\n`.
pub(super) fn heading(section: ResumeLogSection) -> String {
    format!("\n## {}\n\n", section.title())
}

/// The parts of the document that room is given to, in document order. `Critical` is the
/// critical-context section's heading, body and the metadata heading; `Metadata` is the
/// session metadata's body, which shares that section's budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Part {
    Metrics,
    Mission,
    Accomplishments,
    KeyFindings,
    Decisions,
    NextSteps,
    Critical,
    Metadata,
}

impl Part {
    pub(super) const ALL: [Part; 8] = [
        Part::Metrics,
        Part::Mission,
        Part::Accomplishments,
        Part::KeyFindings,
        Part::Decisions,
        Part::NextSteps,
        Part::Critical,
        Part::Metadata,
    ];

    /// Who gets the room others leave unused, first: what the next agent must do, what it
    /// must know, why, where things are and what happened (the newest errors and commands),
    /// then what was done and the goal, which their own shares hold in all but rare logs.
    /// The metrics are a few capped lines and never need more.
    pub(super) const SPARE_ORDER: [Part; 7] = [
        Part::NextSteps,
        Part::KeyFindings,
        Part::Decisions,
        Part::Critical,
        Part::Metadata,
        Part::Accomplishments,
        Part::Mission,
    ];

    fn index(self) -> usize {
        self as usize
    }

    /// The part's share of the document, in characters: its section's budget,
    /// the critical-context section's split so that the metadata may use up to 40% of its body.
    pub(super) fn share(self) -> usize {
        let chars = |s: ResumeLogSection| chars_for_tokens(s.budget().get());
        match self {
            Part::Metrics => chars(ResumeLogSection::ContextMetrics),
            Part::Mission => chars(ResumeLogSection::MissionSummary),
            Part::Accomplishments => chars(ResumeLogSection::Accomplishments),
            Part::KeyFindings => chars(ResumeLogSection::KeyFindings),
            Part::Decisions => chars(ResumeLogSection::Decisions),
            Part::NextSteps => chars(ResumeLogSection::NextSteps),
            Part::Critical => chars(ResumeLogSection::CriticalContext) - metadata_share(),
            Part::Metadata => metadata_share(),
        }
    }
}

/// The characters of the critical-context section that are not its two bodies.
pub(super) fn critical_overhead() -> usize {
    heading(ResumeLogSection::CriticalContext).chars().count()
        + METADATA_HEADING.chars().count()
        + 1
}

fn metadata_share() -> usize {
    let section = chars_for_tokens(ResumeLogSection::CriticalContext.budget().get());
    section.saturating_sub(critical_overhead()) * 2 / 5
}

/// The characters each part may draw, as fitting gave them: what it uses after fitting.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Rooms([usize; 8]);

impl Rooms {
    pub(super) fn of(&self, part: Part) -> usize {
        self.0[part.index()]
    }
}

/// Every part's pieces, drawn once from the tidied log.
struct Drawn {
    mission: Vec<Piece>,
    accomplishments: Vec<Piece>,
    key_findings: Vec<Piece>,
    decisions: Vec<Piece>,
    next_steps: Vec<Piece>,
    context: Vec<Piece>,
    metadata: MetaPieces,
    metrics_chars: usize,
}

/// A part's fitting: nothing to remove, a prefix of its pieces, or the metadata's plan.
#[derive(Debug, Clone)]
enum Fitted {
    Whole,
    Prefix(Plan),
    Meta(MetaPlan),
}

impl ResumeLog {
    /// Removes what the markdown cannot show: each part's data is cut to the room it gets (see
    /// the module documentation), texts at a sentence or word boundary, metadata lists to
    /// their newest entries, and the tokens removed are recorded in
    /// [`ResumeLog::omitted_tokens`]. One-line fields (model, trigger, time, keys) are capped
    /// at what their line shows. The session id is left whole: it is the log's identity.
    pub fn fit_to_budget(&mut self) {
        self.fit_rooms();
    }

    /// [`ResumeLog::fit_to_budget`], returning the room each part draws in.
    pub(super) fn fit_rooms(&mut self) -> Rooms {
        self.tidy();
        let drawn = self.drawn();
        let mut fitted: Vec<Fitted> = Vec::with_capacity(Part::ALL.len());
        let mut used = [0usize; 8];
        for part in Part::ALL {
            let (f, n) = self.fit_part(&drawn, part, part.share());
            fitted.push(f);
            used[part.index()] = n;
        }
        let mut free = TOTAL_CHARS.saturating_sub(used.iter().sum());
        for part in Part::SPARE_ORDER {
            let i = part.index();
            if free == 0 || matches!(fitted[i], Fitted::Whole) {
                continue;
            }
            let (f, n) = self.fit_part(&drawn, part, used[i] + free);
            if n > used[i] || matches!(f, Fitted::Whole) {
                free -= n.saturating_sub(used[i]).min(free);
                used[i] = n;
                fitted[i] = f;
            }
        }
        for (part, f) in Part::ALL.into_iter().zip(fitted) {
            self.apply(&drawn, part, f);
        }
        Rooms(used)
    }

    /// The characters each part draws as the log stands, untruncated (tests compare them with
    /// the rooms fitting gave).
    #[cfg(test)]
    pub(super) fn drawn_chars(&self) -> Rooms {
        let d = self.drawn();
        let mut out = [0usize; 8];
        for part in Part::ALL {
            out[part.index()] = self.fit_part(&d, part, usize::MAX).1;
        }
        Rooms(out)
    }

    fn drawn(&self) -> Drawn {
        Drawn {
            mission: mission_pieces(&self.mission_summary),
            accomplishments: item_pieces(ACCOMPLISHED, &self.accomplishments),
            key_findings: item_pieces(FINDING, &self.key_findings),
            decisions: decision_pieces(&self.decisions),
            next_steps: item_pieces(OPEN, &self.next_steps),
            context: context_pieces(&self.critical_context),
            metadata: metadata_pieces(&self.metadata),
            metrics_chars: self.metrics_block_text().chars().count(),
        }
    }

    /// How `part` fits `room` characters, and how many it then uses.
    fn fit_part(&self, d: &Drawn, part: Part, room: usize) -> (Fitted, usize) {
        // A run of pieces drawn within `frame` characters of heading and line ends.
        let prefix = |pieces: &[Piece], frame: usize, s: ResumeLogSection| {
            let already = self.omitted(s.key());
            match plan(pieces, room.saturating_sub(frame), already) {
                Some(p) => {
                    let n = frame + p.used;
                    (Fitted::Prefix(p), n)
                }
                None => (Fitted::Whole, frame + body(pieces, already).chars().count()),
            }
        };
        let section = |pieces: &[Piece], s: ResumeLogSection| {
            prefix(pieces, heading(s).chars().count() + 1, s)
        };
        match part {
            // A few capped lines: drawn whole, within its share by construction.
            Part::Metrics => (Fitted::Whole, d.metrics_chars.min(room)),
            Part::Mission => section(&d.mission, ResumeLogSection::MissionSummary),
            Part::Accomplishments => section(&d.accomplishments, ResumeLogSection::Accomplishments),
            Part::KeyFindings => section(&d.key_findings, ResumeLogSection::KeyFindings),
            Part::Decisions => section(&d.decisions, ResumeLogSection::Decisions),
            Part::NextSteps => section(&d.next_steps, ResumeLogSection::NextSteps),
            Part::Critical => prefix(
                &d.context,
                critical_overhead(),
                ResumeLogSection::CriticalContext,
            ),
            Part::Metadata => {
                let already = self.omitted(METADATA_KEY);
                match plan_meta(&d.metadata, room, already) {
                    Some(p) => {
                        let n = p.used;
                        (Fitted::Meta(p), n)
                    }
                    None => (
                        Fitted::Whole,
                        body_of(&d.metadata.text(), already).chars().count(),
                    ),
                }
            }
        }
    }

    /// Removes from the data what `fitted` leaves out of `part`, recording the omission.
    fn apply(&mut self, d: &Drawn, part: Part, fitted: Fitted) {
        let plan = match fitted {
            Fitted::Whole => return,
            Fitted::Meta(p) => {
                self.omitted_tokens
                    .insert(METADATA_KEY.to_string(), p.omitted);
                apply_meta(&mut self.metadata, &d.metadata, p);
                return;
            }
            Fitted::Prefix(p) => p,
        };
        let section = match part {
            Part::Mission => {
                // One piece, which did not fit: shortened or gone.
                self.mission_summary = plan
                    .cut
                    .clone()
                    .and_then(Cut::into_text)
                    .unwrap_or_default();
                ResumeLogSection::MissionSummary
            }
            Part::Accomplishments | Part::KeyFindings | Part::NextSteps => {
                let (list, pieces, section) = match part {
                    Part::Accomplishments => (
                        &mut self.accomplishments,
                        &d.accomplishments,
                        ResumeLogSection::Accomplishments,
                    ),
                    Part::KeyFindings => (
                        &mut self.key_findings,
                        &d.key_findings,
                        ResumeLogSection::KeyFindings,
                    ),
                    _ => (
                        &mut self.next_steps,
                        &d.next_steps,
                        ResumeLogSection::NextSteps,
                    ),
                };
                if let Some(Origin::Item(i)) = pieces.get(plan.keep).map(|p| &p.origin) {
                    list.truncate(*i);
                }
                if let Some(t) = plan.cut.clone().and_then(Cut::into_text) {
                    list.push(t);
                }
                section
            }
            Part::Decisions => {
                if let Some(Origin::Decision(i)) = d.decisions.get(plan.keep).map(|p| &p.origin) {
                    self.decisions.truncate(*i);
                }
                if let Some(Cut::Decision(c)) = plan.cut.clone() {
                    self.decisions.push(c);
                }
                ResumeLogSection::Decisions
            }
            Part::Critical => {
                let cut = plan.cut.clone().and_then(Cut::into_text);
                retain_leaves(&mut self.critical_context, plan.keep, cut);
                ResumeLogSection::CriticalContext
            }
            Part::Metrics | Part::Metadata => return,
        };
        self.omitted_tokens
            .insert(section.key().to_string(), plan.omitted);
    }

    /// Tokens a section (by key) lost when the log was fitted.
    pub fn omitted(&self, key: &str) -> u64 {
        self.omitted_tokens.get(key).copied().unwrap_or(0)
    }

    /// Every text as the markdown shows it (trimmed, line breaks normalised, control
    /// characters replaced), items that show nothing dropped, one-line fields and keys capped
    /// at their line. Porcelain entries keep their leading space: ` M` is not `M `.
    pub(super) fn tidy(&mut self) {
        let m = &mut self.context_metrics;
        for field in [&mut m.model, &mut m.stop_reason, &mut m.timestamp] {
            cap_line(field);
        }
        if let Some(a) = &mut self.agent_metrics {
            for field in [&mut a.model, &mut a.stop_reason, &mut a.timestamp] {
                if let Some(text) = field {
                    *text = one_line(text, "");
                }
                if field.as_deref().is_some_and(str::is_empty) {
                    *field = None;
                }
            }
        }
        if self.agent_metrics.as_ref().is_some_and(|a| a.is_empty()) {
            self.agent_metrics = None;
        }
        self.mission_summary = clean(&self.mission_summary);
        for list in [
            &mut self.accomplishments,
            &mut self.key_findings,
            &mut self.next_steps,
        ] {
            tidy_list(list);
        }
        for d in &mut self.decisions {
            d.decision = clean(&d.decision);
            d.rationale = clean(&d.rationale);
        }
        self.decisions
            .retain(|d| !(d.decision.is_empty() && d.rationale.is_empty()));
        tidy_context(&mut self.critical_context);
        let meta = &mut self.metadata;
        meta.trigger = clean(&meta.trigger);
        tidy_list(&mut meta.sources);
        meta.transcript_path = meta
            .transcript_path
            .as_deref()
            .map(clean)
            .filter(|p| !p.is_empty());
        for list in MetaList::ALL {
            if list == MetaList::Dirty {
                list.of_mut(meta).retain(|e| !e.trim().is_empty());
            } else {
                tidy_list(list.of_mut(meta));
            }
        }
        // A count shows only in the label of a list that has entries.
        let counts = std::mem::take(&mut meta.older_left_out);
        for list in MetaList::ALL {
            if let Some(&n) = counts.get(list.key())
                && n > 0
                && !list.of(meta).is_empty()
            {
                meta.older_left_out.insert(list.key().to_string(), n);
            }
        }
        tidy_pairs(&mut meta.notes);
        // The times show only as a duration: without one they are not kept.
        for time in [&mut meta.started_at, &mut meta.last_activity_at]
            .into_iter()
            .flatten()
        {
            cap_line(time);
        }
        if meta.duration_minutes().is_none() {
            meta.started_at = None;
            meta.last_activity_at = None;
        }
    }
}

fn tidy_list(list: &mut Vec<String>) {
    for item in list.iter_mut() {
        *item = clean(item);
    }
    list.retain(|t| !t.is_empty());
}

/// Values cleaned, keys longer than a line replaced by what the line shows (the first of
/// equal ones kept), entries without key or value dropped.
fn tidy_pairs(map: &mut BTreeMap<String, String>) {
    for (k, v) in std::mem::take(map) {
        let key = capped_key(k);
        let value = clean(&v);
        if key.trim().is_empty() && value.is_empty() {
            continue;
        }
        map.entry(key).or_insert(value);
    }
}

/// [`tidy_pairs`] for the critical context, at every level of it.
fn tidy_context(map: &mut BTreeMap<String, ContextValue>) {
    for (k, mut v) in std::mem::take(map) {
        let key = capped_key(k);
        tidy_value(&mut v);
        if key.trim().is_empty() && v.as_str().is_some_and(str::is_empty) {
            continue;
        }
        map.entry(key).or_insert(v);
    }
}

fn tidy_value(value: &mut ContextValue) {
    match value {
        ContextValue::Text(t) => *t = clean(t),
        ContextValue::List(items) => items.iter_mut().for_each(tidy_value),
        ContextValue::Map(map) => tidy_context(map),
        ContextValue::Integer(_)
        | ContextValue::Number(_)
        | ContextValue::Bool(_)
        | ContextValue::Null => {}
    }
}

fn capped_key(k: String) -> String {
    if k.chars().nth(ONE_LINE_MAX).is_some() {
        one_line(&k, "")
    } else {
        k
    }
}

/// A one-line field longer than its line: replaced by what the line shows.
fn cap_line(field: &mut String) {
    if field.chars().nth(ONE_LINE_MAX).is_some() {
        *field = one_line(field, "");
    }
}
