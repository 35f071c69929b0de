//! Fitting a log to its budget (spec §9): what a section cannot show is removed from the data
//! itself, so the JSON holds no more than the markdown shows and both describe the same log.
//!
//! A section keeps its pieces (`pieces`) in order while they fit. The first that does not is
//! shortened at a sentence or word boundary when it is prose and the pieces kept so far fill
//! less than 80% of the room (the seed's rule, an item boundary counting as a sentence end),
//! else dropped; everything after it is dropped. What was removed is counted, per section, in
//! [`ResumeLog::omitted_tokens`], which the section's truncation marker shows.
//!
//! Fitting is idempotent, and rendering fits a copy first, so a log renders the same before
//! and after it is fitted.

use std::collections::BTreeMap;

use super::pieces::{
    MetaField, MetaList, ONE_LINE_MAX, Origin, Piece, RATIONALE, Shape, body, clean, decision_head,
    decision_pieces, item, item_pieces, metadata_pieces, mission_pieces, one_line, pair_pieces,
    quote,
};
use super::truncate::{cut_point, marker, sentence_point};
use super::{Decision, ResumeLog, ResumeLogSection, SessionMetadata};

/// The key under which the session metadata's omissions are counted: it shares the critical
/// context's budget but ends with its own marker.
pub const METADATA_KEY: &str = "session_metadata";

/// A shortened piece keeps at least this many characters of its text, or is dropped.
const MIN_KEPT: usize = 16;

pub(super) const METADATA_HEADING: &str = "\n\n## Session Metadata\n\n";

pub(super) const ACCOMPLISHED: &str = "- [x] ";
pub(super) const FINDING: &str = "- ";
pub(super) const OPEN: &str = "- [ ] ";

/// `\n## Title\n\n`.
pub(super) fn heading(section: ResumeLogSection) -> String {
    format!("\n## {}\n\n", section.title())
}

/// Characters left for the body of `section` after `head` and the closing newline.
pub(super) fn room(section: ResumeLogSection, head: &str) -> usize {
    let chars = usize::try_from(section.budget().get().saturating_mul(4)).unwrap_or(usize::MAX);
    chars.saturating_sub(head.chars().count() + 1)
}

/// The room the critical context and the metadata share, and the critical context's part of
/// it: the metadata may claim up to 40% and gives back what it does not need.
pub(super) fn critical_rooms(metadata_chars: usize) -> (usize, usize) {
    let section = ResumeLogSection::CriticalContext;
    let avail = room(section, &heading(section)).saturating_sub(METADATA_HEADING.chars().count());
    (avail, avail - metadata_chars.min(avail * 2 / 5))
}

/// What fitting a section's pieces into a room keeps.
#[derive(Debug)]
struct Plan {
    /// The leading pieces kept whole.
    keep: usize,
    /// The shortened form of the next piece, if it is kept at all.
    cut: Option<Cut>,
    /// Tokens the section has lost in all (earlier fittings included).
    omitted: u64,
}

#[derive(Debug)]
enum Cut {
    Text(String),
    Decision(Decision),
}

impl ResumeLog {
    /// Removes what the markdown cannot show: each section's data is cut to what fits its
    /// budget, texts at a sentence or word boundary, and the tokens removed are recorded in
    /// [`ResumeLog::omitted_tokens`]. One-line fields (model, trigger, time, keys) are capped
    /// at what their line shows. The session id is left whole: it is the log's identity.
    pub fn fit_to_budget(&mut self) {
        self.tidy();

        let section = ResumeLogSection::MissionSummary;
        let pieces = mission_pieces(&self.mission_summary);
        if let Some(plan) = self.plan_section(section, &pieces) {
            // One piece, which did not fit: shortened or gone.
            self.mission_summary = match plan.cut {
                Some(Cut::Text(t)) => t,
                _ => String::new(),
            };
        }
        for (section, prefix) in [
            (ResumeLogSection::Accomplishments, ACCOMPLISHED),
            (ResumeLogSection::KeyFindings, FINDING),
            (ResumeLogSection::NextSteps, OPEN),
        ] {
            let list = match section {
                ResumeLogSection::Accomplishments => &mut self.accomplishments,
                ResumeLogSection::KeyFindings => &mut self.key_findings,
                _ => &mut self.next_steps,
            };
            let pieces = item_pieces(prefix, list);
            if let Some(plan) = plan_for(&self.omitted_tokens, section, &pieces) {
                if let Some(Origin::Item(i)) = pieces.get(plan.keep).map(|p| &p.origin) {
                    list.truncate(*i);
                }
                if let Some(Cut::Text(t)) = plan.cut {
                    list.push(t);
                }
                self.omitted_tokens
                    .insert(section.key().to_string(), plan.omitted);
            }
        }
        let section = ResumeLogSection::Decisions;
        let pieces = decision_pieces(&self.decisions);
        if let Some(plan) = self.plan_section(section, &pieces) {
            if let Some(Origin::Decision(i)) = pieces.get(plan.keep).map(|p| &p.origin) {
                self.decisions.truncate(*i);
            }
            if let Some(Cut::Decision(d)) = plan.cut {
                self.decisions.push(d);
            }
        }
        self.fit_critical_and_metadata();
    }

    /// Every text as the markdown shows it (trimmed, line breaks normalised, control
    /// characters replaced), items that show nothing dropped, one-line fields and keys capped
    /// at their line. Porcelain entries keep their leading space: ` M` is not `M `.
    fn tidy(&mut self) {
        let m = &mut self.context_metrics;
        for field in [&mut m.model, &mut m.stop_reason, &mut m.timestamp] {
            cap_line(field);
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
        tidy_pairs(&mut self.critical_context);
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

    /// The plan for one of the first sections, recording its omission.
    fn plan_section(&mut self, section: ResumeLogSection, pieces: &[Piece]) -> Option<Plan> {
        let plan = plan_for(&self.omitted_tokens, section, pieces)?;
        self.omitted_tokens
            .insert(section.key().to_string(), plan.omitted);
        Some(plan)
    }

    fn fit_critical_and_metadata(&mut self) {
        let key = ResumeLogSection::CriticalContext.key();
        let meta_pieces = metadata_pieces(&self.metadata);
        let meta_before = self.omitted(METADATA_KEY);
        let metadata_chars = body(&meta_pieces, meta_before).chars().count();
        let (avail, critical_room) = critical_rooms(metadata_chars);

        let pieces = pair_pieces(&self.critical_context, "", Origin::Context);
        if let Some(plan) = plan(&pieces, critical_room, self.omitted(key)) {
            if let Some(Origin::Context(k)) = pieces.get(plan.keep).map(|p| &p.origin) {
                drop(self.critical_context.split_off(k));
                if let Some(Cut::Text(t)) = plan.cut {
                    self.critical_context.insert(k.clone(), t);
                }
            }
            self.omitted_tokens.insert(key.to_string(), plan.omitted);
        }
        let critical = pair_pieces(&self.critical_context, "", Origin::Context);
        let critical_chars = body(&critical, self.omitted(key)).chars().count();
        let meta_room = avail.saturating_sub(critical_chars);
        if let Some(plan) = plan(&meta_pieces, meta_room, meta_before) {
            if let Some(at) = meta_pieces.get(plan.keep).map(|p| &p.origin) {
                truncate_metadata(&mut self.metadata, at);
                match (at, plan.cut) {
                    (Origin::List(list, _), Some(Cut::Text(t))) => {
                        list.of_mut(&mut self.metadata).push(t);
                    }
                    (Origin::Note(k), Some(Cut::Text(t))) => {
                        self.metadata.notes.insert(k.clone(), t);
                    }
                    _ => {}
                }
            }
            self.omitted_tokens
                .insert(METADATA_KEY.to_string(), plan.omitted);
        }
    }

    /// Tokens a section (by key) lost when the log was fitted.
    pub fn omitted(&self, key: &str) -> u64 {
        self.omitted_tokens.get(key).copied().unwrap_or(0)
    }
}

fn plan_for(
    omitted: &BTreeMap<String, u64>,
    section: ResumeLogSection,
    pieces: &[Piece],
) -> Option<Plan> {
    let already = omitted.get(section.key()).copied().unwrap_or(0);
    plan(pieces, room(section, &heading(section)), already)
}

/// `None` when the pieces fit `room` as they are.
fn plan(pieces: &[Piece], room: usize, already: u64) -> Option<Plan> {
    if body(pieces, already).chars().count() <= room {
        return None;
    }
    let total: usize = pieces.iter().map(Piece::chars).sum();
    // The marker's count cannot exceed what there was, so this reserve always holds it.
    let reserve = marker(already.saturating_add(tokens(total)))
        .chars()
        .count();
    let avail = room.saturating_sub(reserve);
    let (mut keep, mut used) = (0usize, 0usize);
    for p in pieces {
        let n = p.chars();
        if used + n > avail {
            break;
        }
        used += n;
        keep += 1;
    }
    let mut cut = None;
    let mut kept = used;
    // The seed's rule over the whole section: whole pieces filling 80% of the room end it as
    // well as a sentence would, so the next piece is cut only at one of its own sentence
    // ends; with less, at a word boundary too.
    let full = keep > 0 && used.saturating_mul(5) >= avail.saturating_mul(4);
    let at = if full {
        Boundary::Sentence
    } else {
        Boundary::Word
    };
    if let Some((c, n)) = pieces.get(keep).and_then(|p| shorten(p, avail - used, at)) {
        cut = Some(c);
        kept += n;
    }
    Some(Plan {
        keep,
        cut,
        omitted: already.saturating_add(tokens(total.saturating_sub(kept)).max(1)),
    })
}

fn tokens(chars: usize) -> u64 {
    chars.div_ceil(4) as u64
}

/// Where a shortened text may end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Boundary {
    /// After a sentence (or at a line break) only.
    Sentence,
    /// By the truncation rule: a late sentence end, else a word boundary.
    Word,
}

/// The piece drawn with a shorter text that fits `room`, and its length; `None` for atoms
/// and when too little would be left to be worth keeping.
fn shorten(piece: &Piece, room: usize, at: Boundary) -> Option<(Cut, usize)> {
    match &piece.shape {
        Shape::Atom => None,
        Shape::Quote { text } => shorter(text, room, at, quote).map(|(t, n)| (Cut::Text(t), n)),
        Shape::Item { lead, prefix, text } => {
            let lead_chars = lead.chars().count();
            shorter(text, room.checked_sub(lead_chars)?, at, |t| item(prefix, t))
                .map(|(t, n)| (Cut::Text(t), lead_chars + n))
        }
        Shape::Decision {
            number,
            decision,
            rationale,
        } => {
            let head = decision_head(*number, decision).chars().count();
            // The decision whole and its rationale shortened, else the decision shortened.
            let with_rationale = (!rationale.is_empty())
                .then(|| room.checked_sub(head))
                .flatten()
                .and_then(|left| shorter(rationale, left, at, |t| item(RATIONALE, t)))
                .map(|(r, n)| {
                    let d = Decision {
                        decision: decision.clone(),
                        rationale: r,
                    };
                    (Cut::Decision(d), head + n)
                });
            with_rationale.or_else(|| {
                let prefix = format!("{number}. ");
                shorter(decision, room, at, |t| item(&prefix, t)).map(|(d, n)| {
                    let d = Decision {
                        decision: d,
                        rationale: String::new(),
                    };
                    (Cut::Decision(d), n)
                })
            })
        }
    }
}

/// The longest prefix of `text` ending at a boundary of the kind `at` whose drawing fits
/// `room`, with the drawing's length.
fn shorter(
    text: &str,
    room: usize,
    at: Boundary,
    draw: impl Fn(&str) -> String,
) -> Option<(String, usize)> {
    // A drawing is at least as long as its text, so no more than `room` characters can fit.
    let (mut lo, mut hi) = (0usize, text.chars().count().min(room));
    let mut best: Option<(&str, usize)> = None;
    while lo < hi {
        let mid = lo + (hi - lo).div_ceil(2);
        let end = match at {
            Boundary::Sentence => sentence_point(text, mid).unwrap_or(0),
            Boundary::Word => cut_point(text, mid),
        };
        let kept = text.get(..end).unwrap_or_default().trim_end();
        let n = draw(kept).chars().count();
        if !kept.is_empty() && n <= room {
            best = Some((kept, n));
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    best.filter(|(kept, _)| kept.chars().count() >= MIN_KEPT)
        .map(|(kept, n)| (kept.to_string(), n))
}

/// Clears the metadata from `at` on: later facts, lists and notes.
fn truncate_metadata(m: &mut SessionMetadata, at: &Origin) {
    let (first_field, first_list, notes_from) = match at {
        Origin::Field(f) => (Some(*f), Some(0), None),
        Origin::List(list, i) => {
            list.of_mut(m).truncate(*i);
            let next = MetaList::ALL.iter().position(|l| l == list).map(|p| p + 1);
            (None, next, None)
        }
        Origin::Note(k) => (None, None, Some(k.clone())),
        _ => (None, None, None),
    };
    if let Some(f) = first_field {
        if f <= MetaField::Trigger {
            m.trigger.clear();
        }
        if f <= MetaField::Sources {
            m.sources.clear();
        }
        if f <= MetaField::Transcript {
            m.transcript_path = None;
        }
        if f <= MetaField::Git {
            m.git_branch = None;
            m.git_head = None;
        }
        m.started_at = None;
        m.last_activity_at = None;
    }
    if let Some(from) = first_list {
        for list in MetaList::ALL.iter().skip(from) {
            list.of_mut(m).clear();
        }
        m.notes.clear();
    }
    if let Some(k) = notes_from {
        drop(m.notes.split_off(&k));
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
        let key = if k.chars().nth(ONE_LINE_MAX).is_some() {
            one_line(&k, "")
        } else {
            k
        };
        let value = clean(&v);
        if key.trim().is_empty() && value.is_empty() {
            continue;
        }
        map.entry(key).or_insert(value);
    }
}

/// A one-line field longer than its line: replaced by what the line shows.
fn cap_line(field: &mut String) {
    if field.chars().nth(ONE_LINE_MAX).is_some() {
        *field = one_line(field, "");
    }
}
