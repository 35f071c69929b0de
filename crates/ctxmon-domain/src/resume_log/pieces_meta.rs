//! The session metadata's pieces: its one-line facts, its labelled lists (oldest first, each
//! label saying how many older entries fitting left out: it keeps their newest, see
//! `fit_meta`) and its notes.

use super::SessionMetadata;
use super::meta_fields::{MetaField, MetaList};
use super::pieces::{Origin, Piece, Shape, clean, item, pair_pieces, pieces_of};

/// One metadata list as drawn: its items (oldest first, no label) and how many older ones
/// were left out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct ListPieces {
    pub list: MetaList,
    pub items: Vec<Piece>,
    pub older: u64,
}

/// The session metadata as drawn: its one-line facts, its labelled lists and its notes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct MetaPieces {
    pub facts: Vec<Piece>,
    pub lists: Vec<ListPieces>,
    pub notes: Vec<Piece>,
}

impl MetaPieces {
    /// The pieces' text in document order: facts, each list that has items under its label,
    /// notes (before trimming and the marker: see [`body_of`]).
    pub(super) fn text(&self) -> String {
        let mut out = String::new();
        for p in &self.facts {
            out.push_str(&p.text);
        }
        for l in &self.lists {
            if l.items.is_empty() {
                continue;
            }
            out.push_str(&list_lead(l.list, l.older));
            for p in &l.items {
                out.push_str(&p.text);
            }
        }
        for p in &self.notes {
            out.push_str(&p.text);
        }
        out
    }
}

/// A list's label: `**Commands Run:**`, or `**Commands Run (12 older left out):**` when its
/// oldest entries were left out to fit the budget.
pub(super) fn list_lead(list: MetaList, older: u64) -> String {
    if older == 0 {
        format!("\n**{}:**\n\n", list.label())
    } else {
        format!(
            "\n**{} ({} older left out):**\n\n",
            list.label(),
            crate::human::thousands(older)
        )
    }
}

/// The metadata's one-line facts, its labelled lists and its notes, in document order.
pub(super) fn metadata_pieces(m: &SessionMetadata) -> MetaPieces {
    let mut facts = Vec::new();
    let git = match (m.git_branch.as_deref(), m.git_head.as_deref()) {
        (Some(b), Some(h)) => format!("{b} @ {h}"),
        (Some(b), None) => format!("{b} (no commits)"),
        (None, Some(h)) => format!("detached @ {h}"),
        (None, None) => String::new(),
    };
    let duration = match (m.duration_minutes(), &m.started_at, &m.last_activity_at) {
        (Some(minutes), Some(start), Some(end)) => {
            format!("{} ({start} to {end})", minutes_text(minutes))
        }
        _ => String::new(),
    };
    let reported = m
        .session_duration_minutes
        .map(|n| {
            let minutes = i64::try_from(n).unwrap_or(i64::MAX);
            format!(
                "{} ({} min)",
                minutes_text(minutes),
                crate::human::thousands(n)
            )
        })
        .unwrap_or_default();
    for (field, label, value) in [
        (MetaField::Trigger, "Trigger", m.trigger.clone()),
        (MetaField::Sources, "Sources", m.sources.join(", ")),
        (
            MetaField::Transcript,
            "Transcript",
            m.transcript_path.clone().unwrap_or_default(),
        ),
        (MetaField::Git, "Git", git),
        (MetaField::Duration, "Session Duration", duration),
        (
            MetaField::ReportedDuration,
            "Session Duration (as the agent reported it)",
            reported,
        ),
    ] {
        if !value.trim().is_empty() {
            facts.push(Piece {
                text: item(&format!("- {label}: "), &clean(&value)),
                origin: Origin::Field(field),
                shape: Shape::Atom,
            });
        }
    }
    let lists = MetaList::ALL
        .into_iter()
        .map(|list| ListPieces {
            list,
            items: list_items(list, list.of(m)),
            older: m.older_left_out.get(list.key()).copied().unwrap_or(0),
        })
        .collect();
    MetaPieces {
        facts,
        lists,
        notes: pair_pieces(&m.notes, "\n**Notes:**\n\n", Origin::Note),
    }
}

/// A list's items as `- text` pieces, oldest first; paths and porcelain entries are atoms.
pub(super) fn list_items(list: MetaList, items: &[String]) -> Vec<Piece> {
    pieces_of("- ", items, |i| Origin::List(list, i), list.is_atom())
}

/// 154 → "2 h 34 min"; 0 → "under a minute".
fn minutes_text(minutes: i64) -> String {
    match (minutes / 60, minutes % 60) {
        (0, 0) => "under a minute".into(),
        (0, m) => format!("{m} min"),
        (h, 0) => format!("{h} h"),
        (h, m) => format!("{h} h {m} min"),
    }
}
