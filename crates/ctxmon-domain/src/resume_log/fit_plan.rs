//! What fitting a run of pieces into a room keeps: the leading pieces that fit whole, and the
//! next one shortened at a sentence or word boundary when it is prose and the pieces kept so
//! far fill less than 80% of the room (the 80% rule of `truncate`, an item boundary counting as
//! a sentence end), else dropped; everything after it is dropped.

use crate::tokens::tokens_for_chars;

use super::Decision;
use super::pieces::{Piece, RATIONALE, Shape, body, decision_head, item, quote};
use super::truncate::{cut_point, marker, sentence_point};

/// A shortened piece keeps at least this many characters of its text, or is dropped.
const MIN_KEPT: usize = 16;

/// What fitting a section's pieces into a room keeps.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Plan {
    /// The leading pieces kept whole.
    pub keep: usize,
    /// The shortened form of the next piece, if it is kept at all.
    pub cut: Option<Cut>,
    /// Tokens the section has lost in all (earlier fittings included).
    pub omitted: u64,
    /// Characters of the body as planned, its marker included (at least what it will draw).
    pub used: usize,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Cut {
    Text(String),
    Decision(Decision),
}

impl Cut {
    pub(super) fn into_text(self) -> Option<String> {
        match self {
            Cut::Text(t) => Some(t),
            Cut::Decision(_) => None,
        }
    }
}

/// `None` when the pieces fit `room` as they are (with the marker of what earlier fittings
/// removed, `already`).
pub(super) fn plan(pieces: &[Piece], room: usize, already: u64) -> Option<Plan> {
    if body(pieces, already).chars().count() <= room {
        return None;
    }
    let total: usize = pieces.iter().map(Piece::chars).sum();
    // The marker's count cannot exceed what there was, so this reserve always holds it.
    let reserve = marker(already.saturating_add(tokens(total)))
        .chars()
        .count();
    let avail = room.saturating_sub(reserve);
    let mut used = 0;
    let (keep, cut) = fill(pieces, avail, &mut used);
    let omitted = already.saturating_add(tokens(total.saturating_sub(used)).max(1));
    Some(Plan {
        keep,
        cut,
        omitted,
        used: used + marker(omitted).chars().count(),
    })
}

/// Adds to `used` (what the section holds so far) the leading `pieces` that fit within
/// `avail`, then the next one shortened if the rule allows; returns how many were kept whole
/// and the shortened one.
pub(super) fn fill(pieces: &[Piece], avail: usize, used: &mut usize) -> (usize, Option<Cut>) {
    let mut keep = 0usize;
    for p in pieces {
        let n = p.chars();
        if *used + n > avail {
            break;
        }
        *used += n;
        keep += 1;
    }
    let at = boundary(avail, *used);
    match pieces
        .get(keep)
        .and_then(|p| shorten(p, avail.saturating_sub(*used), at))
    {
        Some((cut, n)) => {
            *used += n;
            (keep, Some(cut))
        }
        None => (keep, None),
    }
}

/// The 80% rule over the whole section: whole pieces filling 80% of the room end it as
/// well as a sentence would, so the next piece is cut only at one of its own sentence ends;
/// with less, at a word boundary too.
pub(super) fn boundary(avail: usize, used: usize) -> Boundary {
    if used > 0 && used.saturating_mul(5) >= avail.saturating_mul(4) {
        Boundary::Sentence
    } else {
        Boundary::Word
    }
}

pub(super) fn tokens(chars: usize) -> u64 {
    tokens_for_chars(chars as u64).get()
}

/// Where a shortened text may end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Boundary {
    /// After a sentence (or at a line break) only.
    Sentence,
    /// By the truncation rule: a late sentence end, else a word boundary.
    Word,
}

/// The piece drawn with a shorter text that fits `room`, and its length; `None` for atoms
/// and when too little would be left to be worth keeping.
pub(super) fn shorten(piece: &Piece, room: usize, at: Boundary) -> Option<(Cut, usize)> {
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
