//! Fitting the session metadata: its one-line facts first (in order, while they fit), then its
//! lists, then its notes (in key order, the last one shortened if prose).
//!
//! The lists (files, uncommitted changes, errors, commands, agents) are oldest first and the
//! newest entries are what a resuming agent needs — the error it must fix, the command it ran
//! last — so each list keeps a suffix: the lists take turns adding their next-newest entry
//! until none fits, so one long list cannot crowd out the others; a list stops at its first
//! entry that does not fit (it keeps a suffix, never skips), and the entry it stopped at is
//! shortened into what is left when it is prose. The list's label counts what it left out
//! (`**Commands Run (12 older left out):**`), and that label is paid for exactly as it grows
//! or shrinks.

use super::SessionMetadata;
use super::fit_plan::{Cut, boundary, fill, shorten, tokens};
use super::meta_fields::MetaField;
use super::pieces::{Origin, Piece, body_of};
use super::pieces_meta::{ListPieces, MetaPieces, list_lead};
use super::truncate::marker;

/// What fitting the metadata into a room keeps.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct MetaPlan {
    /// The leading facts kept.
    facts: usize,
    /// For each list of [`MetaList::ALL`]: how many of its newest entries are kept, and the
    /// shortened form of the oldest of those, if it was shortened.
    lists: Vec<(usize, Option<String>)>,
    notes: usize,
    note_cut: Option<String>,
    pub omitted: u64,
    /// Characters of the body as planned, its marker included (at least what it will draw).
    pub used: usize,
}

/// `None` when the metadata fits `room` as it is.
pub(super) fn plan_meta(m: &MetaPieces, room: usize, already: u64) -> Option<MetaPlan> {
    let text = m.text();
    if body_of(&text, already).chars().count() <= room {
        return None;
    }
    let total = text.chars().count();
    let reserve = marker(already.saturating_add(tokens(total)))
        .chars()
        .count();
    let avail = room.saturating_sub(reserve);

    let mut used = 0usize;
    let mut facts = 0usize;
    for p in &m.facts {
        if used + p.chars() > avail {
            break;
        }
        used += p.chars();
        facts += 1;
    }

    let mut kept = vec![0usize; m.lists.len()];
    let mut stopped = vec![false; m.lists.len()];
    loop {
        let mut progressed = false;
        for (i, l) in m.lists.iter().enumerate() {
            let Some(next) = newest_but(l, kept[i]) else {
                continue;
            };
            if stopped[i] {
                continue;
            }
            let grown = used - lead(l, kept[i]) + lead(l, kept[i] + 1) + next.chars();
            if grown <= avail {
                used = grown;
                kept[i] += 1;
                progressed = true;
            } else {
                stopped[i] = true;
            }
        }
        if !progressed {
            break;
        }
    }
    // The entry each list stopped at, shortened into what is left if it is prose.
    let mut cuts: Vec<Option<String>> = vec![None; m.lists.len()];
    for (i, l) in m.lists.iter().enumerate() {
        let Some(next) = newest_but(l, kept[i]) else {
            continue;
        };
        let with_lead = used - lead(l, kept[i]) + lead(l, kept[i] + 1);
        let at = boundary(avail, used);
        if let Some((Cut::Text(t), n)) = avail
            .checked_sub(with_lead)
            .and_then(|left| shorten(next, left, at))
        {
            used = with_lead + n;
            kept[i] += 1;
            cuts[i] = Some(t);
        }
    }

    let (notes, note_cut) = fill(&m.notes, avail, &mut used);
    let omitted = already.saturating_add(tokens(total.saturating_sub(used)).max(1));
    Some(MetaPlan {
        facts,
        lists: kept.into_iter().zip(cuts).collect(),
        notes,
        note_cut: note_cut.and_then(Cut::into_text),
        omitted,
        used: used + marker(omitted).chars().count(),
    })
}

/// The entry before the `kept` newest ones, if any is left.
fn newest_but(l: &ListPieces, kept: usize) -> Option<&Piece> {
    l.items
        .len()
        .checked_sub(kept + 1)
        .and_then(|i| l.items.get(i))
}

/// The characters of a list's label when it shows its `kept` newest entries (none: no label).
fn lead(l: &ListPieces, kept: usize) -> usize {
    if kept == 0 {
        return 0;
    }
    let left_out = (l.items.len() - kept.min(l.items.len())) as u64;
    list_lead(l.list, l.older.saturating_add(left_out))
        .chars()
        .count()
}

/// Removes from `meta` what `plan` leaves out and counts each list's older entries left out.
pub(super) fn apply_meta(meta: &mut SessionMetadata, pieces: &MetaPieces, plan: MetaPlan) {
    if let Some(Origin::Field(f)) = pieces.facts.get(plan.facts).map(|p| &p.origin) {
        clear_facts_from(meta, *f);
    }
    for (l, (kept, cut)) in pieces.lists.iter().zip(plan.lists) {
        let len = l.items.len();
        if kept >= len && cut.is_none() {
            continue;
        }
        let entries = l.list.of_mut(meta);
        let first = len.saturating_sub(kept);
        match l.items.get(first).map(|p| &p.origin) {
            Some(Origin::List(_, at)) if kept > 0 => {
                drop(entries.drain(..*at));
                if let (Some(t), Some(oldest)) = (cut, entries.first_mut()) {
                    *oldest = t;
                }
                if first > 0 {
                    let count = meta
                        .older_left_out
                        .entry(l.list.key().to_string())
                        .or_insert(0);
                    *count = count.saturating_add(first as u64);
                }
            }
            _ => {
                // Nothing of the list is shown: its label goes too, and so does its count
                // (the section's marker counts the tokens).
                entries.clear();
                meta.older_left_out.remove(l.list.key());
            }
        }
    }
    if let Some(Origin::Note(k)) = pieces.notes.get(plan.notes).map(|p| &p.origin) {
        let k = k.clone();
        drop(meta.notes.split_off(&k));
        if let Some(t) = plan.note_cut {
            meta.notes.insert(k, t);
        }
    }
}

/// Clears the one-line facts from `first` on.
fn clear_facts_from(m: &mut SessionMetadata, first: MetaField) {
    if first <= MetaField::Trigger {
        m.trigger.clear();
    }
    if first <= MetaField::Sources {
        m.sources.clear();
    }
    if first <= MetaField::Transcript {
        m.transcript_path = None;
    }
    if first <= MetaField::Git {
        m.git_branch = None;
        m.git_head = None;
    }
    if first <= MetaField::Duration {
        m.started_at = None;
        m.last_activity_at = None;
    }
    m.session_duration_minutes = None;
}
