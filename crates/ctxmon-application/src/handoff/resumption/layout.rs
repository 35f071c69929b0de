//! How the sections of `<resumption-context>` share its room: each section keeps back what
//! the later ones need for their minimum (the first entry of a high-priority list, a shortened
//! text), and what does not fit is named in `<left-out>` with where to read it.

use ctxmon_domain::human::{plural, thousands};
use ctxmon_domain::xml::escape_text;

use crate::handoff::budget_writer::{
    BudgetWriter, Entry, ItemKind, ListSpec, chars, fit, frame, list_reservation,
};

pub(super) const CLOSING: &str = "</resumption-context>";

/// Room kept for `<left-out>` (what the sections dropped, and where to read it).
pub(super) const LEFT_OUT_ROOM: &str = "<left-out>3 items in progress, 12 next steps, 14 more files, 8 completed items, the first request: ctxmon checkpoint show cx-0000000000</left-out>\n";

/// Writes the sections in order and returns, a few words each, what did not fit. Each section
/// takes what it can while the room the later ones need stays free (the first entry of each
/// high-priority list, or its prose shortened), so a long section never pushes a later one out
/// silently: what does not fit is named in `<left-out>`.
pub(super) fn write_within_room(w: &mut BudgetWriter, sections: &[Section<'_>]) -> Vec<String> {
    let reservations: Vec<usize> = sections.iter().map(Section::reservation).collect();
    let reserved = keep_what_fits(&reservations, w.remaining());
    let mut left_out: Vec<String> = Vec::new();
    for (i, section) in sections.iter().enumerate() {
        let room = w
            .remaining()
            .saturating_sub(reserved[i + 1..].iter().sum::<usize>());
        if let Some(missing) = section.write(w, room) {
            left_out.push(missing);
        }
    }
    left_out
}

/// The end of the tag: `<left-out>` with as many of the counts as fit in the room kept for it
/// and what the sections left (`remaining`), the most important first, then the closing tag.
pub(super) fn closing(left_out: &[String], id: &str, remaining: usize) -> String {
    let mut closing = String::new();
    if !left_out.is_empty() {
        let room = chars(LEFT_OUT_ROOM) + remaining;
        let show = format!("ctxmon checkpoint show {}", escape_text(id));
        let line = (1..=left_out.len())
            .rev()
            .map(|n| {
                let more = if n < left_out.len() { ", more" } else { "" };
                format!(
                    "<left-out>{}{more}: {show}</left-out>\n",
                    left_out[..n].join(", ")
                )
            })
            .chain(std::iter::once(format!(
                "<left-out>more: {show}</left-out>\n"
            )))
            .find(|l| chars(l) <= room);
        closing.push_str(&line.unwrap_or_default());
    }
    closing.push_str(CLOSING);
    closing
}

/// One part of the tag, as it reserves room and as it is written.
pub(super) enum Section<'a> {
    /// A list, its items capped at `cap`, its first item reserved at `first` (0: nothing).
    List(ListSpec<'a>, usize, usize),
    /// `<tag>text</tag>`, the text capped at `cap`, reserved at `first` (0: nothing).
    Element(&'static str, &'a str, usize, usize),
    /// Markup written whole or not at all.
    Raw(&'a str),
}

impl<'a> Section<'a> {
    pub(super) fn list(spec: ListSpec<'a>, cap: usize, first: usize) -> Section<'a> {
        Section::List(spec, cap, first)
    }

    pub(super) fn element(
        tag: &'static str,
        text: &'a str,
        cap: usize,
        first: usize,
    ) -> Section<'a> {
        Section::Element(tag, text, cap, first)
    }

    fn reservation(&self) -> usize {
        match self {
            Section::List(_, _, 0) | Section::Element(_, _, _, 0) => 0,
            Section::List(spec, cap, first) => list_reservation(spec, *cap, *first),
            Section::Element(tag, text, _, first) => {
                fit(text, *first, ItemKind::Text).map_or(0, |t| chars(&t) + frame(tag))
            }
            Section::Raw(markup) => chars(markup),
        }
    }

    /// Writes what fits in `room`; returns what was left out, as a few words, when anything
    /// was (a request cut short is left out in part).
    fn write(&self, w: &mut BudgetWriter, room: usize) -> Option<String> {
        match self {
            Section::List(spec, cap, _) => {
                let omitted = w.list_within(spec, *cap, room);
                (omitted > 0).then(|| {
                    let n = omitted as u64;
                    let shown = spec.entries.len() > omitted;
                    let (one, many) = spec.noun;
                    let more = if shown { "more " } else { "" };
                    format!("{} {more}{}", thousands(n), plural(n, one, many))
                })
            }
            Section::Element(tag, text, cap, _) => {
                let room = room.min(cap + frame(tag));
                let whole = chars(&escape_text(text.trim())) + frame(tag) <= room;
                let written = w.element_within(tag, text, ItemKind::Text, room);
                match (written, whole) {
                    (true, true) => None,
                    (true, false) => Some(format!("the rest of {}", tag.replace('-', " "))),
                    (false, _) => Some(format!("the {}", tag.replace('-', " "))),
                }
            }
            Section::Raw(markup) => {
                if chars(markup) <= room {
                    w.raw(markup);
                    None
                } else {
                    Some("the quality trajectory".to_string())
                }
            }
        }
    }
}

pub(super) fn texts(items: &[String]) -> Vec<Entry<'_>> {
    items.iter().map(|s| Entry::Text(s)).collect()
}

/// The reservations, highest priority first, that fit in `room` together; the others are 0.
pub(super) fn keep_what_fits(reservations: &[usize], room: usize) -> Vec<usize> {
    let mut left = room;
    reservations
        .iter()
        .map(|&r| {
            if r <= left {
                left -= r;
                r
            } else {
                0
            }
        })
        .collect()
}

/// A list of the tag whose left-out entries are counted in `<left-out>`, not under the list.
pub(super) fn list<'a>(
    tag: &'a str,
    noun: (&'a str, &'a str),
    location: &'a str,
    entries: Vec<Entry<'a>>,
) -> ListSpec<'a> {
    ListSpec {
        tag,
        noun,
        location,
        entries,
        count_left_out: false,
    }
}
