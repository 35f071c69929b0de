//! A writer for injected XML tags that must fit a token budget: sections are added in priority
//! order, each list keeps whole items only and ends with a count of what it left out (even when
//! it left out everything), and text is cut at a word boundary, never inside an escape, a path
//! or an id. `list_reservation` says how much room a later list needs, so a caller filling
//! sections in priority order can keep it back.

use ctxmon_domain::human::{plural, thousands};
use ctxmon_domain::tokens::chars_for_tokens;
use ctxmon_domain::xml::escape_text;

/// Writes an injected tag within a token budget, keeping back the room its closing text needs.
#[derive(Debug)]
pub struct BudgetWriter {
    out: String,
    used: usize,
    limit: usize,
    /// Characters kept back for what must close the tag.
    reserve: usize,
}

/// How an item may be shortened when it does not fit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ItemKind {
    /// Prose: may be cut at a word boundary with `…`.
    Text,
    /// A path or an id: kept whole or left out.
    Atom,
}

impl BudgetWriter {
    /// `max_tokens` for the whole tag; `reserve` is the closing text written by `finish`.
    pub fn new(max_tokens: u64, closing: &str) -> BudgetWriter {
        let limit = chars_for_tokens(max_tokens);
        BudgetWriter {
            out: String::with_capacity(limit.min(16_384)),
            used: 0,
            limit,
            reserve: chars(closing),
        }
    }

    /// Characters still free, the closing text's room excluded.
    pub fn remaining(&self) -> usize {
        self.limit
            .saturating_sub(self.used)
            .saturating_sub(self.reserve)
    }

    /// Writes already-escaped markup if it fits; returns whether it did.
    pub fn raw(&mut self, markup: &str) -> bool {
        let n = chars(markup);
        if n > self.remaining() {
            return false;
        }
        self.out.push_str(markup);
        self.used += n;
        true
    }

    /// `<tag>text</tag>\n`, with the text shortened to fit when it is prose.
    pub fn element(&mut self, tag: &str, text: &str, kind: ItemKind) -> bool {
        self.element_within(tag, text, kind, usize::MAX)
    }

    /// Like [`BudgetWriter::element`], in at most `room` characters.
    pub fn element_within(&mut self, tag: &str, text: &str, kind: ItemKind, room: usize) -> bool {
        let room = room.min(self.remaining());
        let Some(body) = fit(text, room.saturating_sub(frame(tag)), kind) else {
            return false;
        };
        self.raw(&format!("<{tag}>{body}</{tag}>\n"))
    }

    /// Writes [`render_list`] within `room` (and what remains); returns how many entries were
    /// left out.
    pub fn list_within(&mut self, list: &ListSpec<'_>, item_cap: usize, room: usize) -> usize {
        let (section, omitted) =
            render_list(list, item_cap, usize::MAX, room.min(self.remaining()));
        self.raw(&section);
        omitted
    }

    /// Appends the closing text (which the reserve guaranteed room for).
    pub fn finish(mut self, closing: &str) -> String {
        self.out.push_str(closing);
        self.out
    }
}

/// The length in characters (the unit budgets are measured in), not bytes.
pub fn chars(s: &str) -> usize {
    s.chars().count()
}

/// The escaped form of `text` within `max` characters: whole for atoms (or `None`), cut at a
/// word boundary with `…` for prose (or `None` when not even a word fits).
pub fn fit(text: &str, max: usize, kind: ItemKind) -> Option<String> {
    let text = text.trim();
    if text.is_empty() {
        return None;
    }
    let escaped = escape_text(text);
    if chars(&escaped) <= max {
        return Some(escaped);
    }
    if kind == ItemKind::Atom || max < 8 {
        return None;
    }
    // Cut the raw text, then escape: an entity is never split. Escaping can only lengthen, so
    // shrink until the escaped form fits.
    let mut take = max.saturating_sub(1);
    while take >= 1 {
        let raw: String = text.chars().take(take).collect();
        let cut = match raw.rfind(char::is_whitespace) {
            Some(i) if i > raw.len() / 2 => &raw[..i],
            _ => raw.as_str(),
        };
        let candidate = format!("{}…", escape_text(cut.trim_end()));
        let n = chars(&candidate);
        if n <= max {
            return Some(candidate);
        }
        // Shrink in proportion to the overshoot (entities can make the escaped form 5x longer).
        take = (take * max / n).min(take - 1);
    }
    None
}

/// `- ` and the newline around each list entry.
const LINE_FRAME: usize = 3;
/// The shortest a list's first prose entry is cut to; with less room only the count is shown.
const MIN_SHORTENED: usize = 40;

/// The characters `<tag>…</tag>\n` adds around a body.
pub fn frame(tag: &str) -> usize {
    chars(tag) * 2 + 6
}

/// One list entry and how it may be shortened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Entry<'a> {
    /// Prose: may be cut at a word boundary with `…`.
    Text(&'a str),
    /// A path or an id: kept whole or left out.
    Atom(&'a str),
    /// A path with a note on it, `path (note)`: the path whole, the note shortened or dropped.
    Annotated(&'a str, &'a str),
}

impl Entry<'_> {
    /// The escaped entry within `max` characters, shortened as its kind allows.
    fn form(self, max: usize) -> Option<String> {
        match self {
            Entry::Text(text) => fit(text, max, ItemKind::Text),
            Entry::Atom(atom) => fit(atom, max, ItemKind::Atom),
            Entry::Annotated(atom, note) => {
                let atom = fit(atom, max, ItemKind::Atom)?;
                let room = max.saturating_sub(chars(&atom) + 3);
                Some(match fit(note, room, ItemKind::Text) {
                    Some(note) => format!("{atom} ({note})"),
                    None => atom,
                })
            }
        }
    }

    /// Prose can always be shortened; an entry bound to an atom cannot be made shorter than it.
    fn is_atom_bound(self) -> bool {
        !matches!(self, Entry::Text(_))
    }
}

/// A list section: `<tag>` with one `- entry` line each and, when any is left out,
/// `- +N more {noun} in {location}`.
#[derive(Debug, Clone)]
pub struct ListSpec<'a> {
    /// The element's name.
    pub tag: &'a str,
    /// The entries' noun, singular and plural: `+1 more file`, `+2 more files`.
    pub noun: (&'a str, &'a str),
    /// Where the entries left out can be read (`cx-004`, a command).
    pub location: &'a str,
    /// The entries, in priority order.
    pub entries: Vec<Entry<'a>>,
    /// Whether a shortened list ends with its `+N more` line; without it the caller says what
    /// was left out in one place of its own.
    pub count_left_out: bool,
}

/// Renders `list` within `room` characters and returns it with the number of entries left
/// out. Entries are taken whole (each shortened to `item_cap` first, so one huge entry cannot
/// starve the rest) in order until one does not fit or `max_items` are shown; an entry that
/// cannot fit even in `item_cap` (an over-long path) is left out and counted. The first entry
/// shown may be shortened to the room there is, and when an atom does not fit the next one is
/// tried, so the list shows an entry whenever one fits. Whatever is left out is counted on the
/// last line — even all of it, as a count-only section — and the section is empty only when
/// `list` is or not even the count fits.
pub fn render_list(
    list: &ListSpec<'_>,
    item_cap: usize,
    max_items: usize,
    room: usize,
) -> (String, usize) {
    let entries = &list.entries;
    if entries.is_empty() {
        return (String::new(), 0);
    }
    let open = format!("<{}>\n", list.tag);
    let close = format!("</{}>\n", list.tag);
    let location = escape_text(list.location);
    let note = |n: usize| {
        let n = n as u64;
        let (one, many) = list.noun;
        format!(
            "- +{} more {} in {location}\n",
            thousands(n),
            plural(n, one, many)
        )
    };
    let worst_note = if list.count_left_out {
        chars(&note(entries.len()))
    } else {
        0
    };
    let Some(inner) = room.checked_sub(chars(&open) + chars(&close)) else {
        return (String::new(), entries.len());
    };
    let mut lines: Vec<String> = Vec::new();
    let mut body = 0usize;
    let mut skipped = 0usize;
    for (i, entry) in entries.iter().enumerate() {
        if lines.len() >= max_items {
            break;
        }
        let last = i + 1 == entries.len();
        let reserve = if last && skipped == 0 { 0 } else { worst_note };
        let avail = inner.saturating_sub(body + reserve);
        let Some(whole) = entry.form(item_cap.saturating_sub(LINE_FRAME)) else {
            skipped += 1;
            continue;
        };
        let line = format!("- {whole}\n");
        if chars(&line) <= avail {
            body += chars(&line);
            lines.push(line);
            continue;
        }
        if lines.is_empty() {
            let short_room = avail.saturating_sub(LINE_FRAME);
            // A few words of prose say nothing; the count says more.
            let worth_it = entry.is_atom_bound() || short_room >= MIN_SHORTENED;
            if let Some(short) = entry.form(short_room).filter(|_| worth_it) {
                let line = format!("- {short}\n");
                body += chars(&line);
                lines.push(line);
            } else if entry.is_atom_bound() {
                skipped += 1;
                continue;
            }
        }
        break;
    }
    let omitted = entries.len() - lines.len();
    if omitted > 0 && !list.count_left_out && lines.is_empty() {
        return (String::new(), omitted);
    }
    if omitted > 0 && list.count_left_out {
        let line = note(omitted);
        if body + chars(&line) > inner {
            // Only possible when nothing was shown (every shown line kept room for the note).
            return (String::new(), omitted);
        }
        lines.push(line);
    }
    let mut section = open;
    for line in lines {
        section.push_str(&line);
    }
    section.push_str(&close);
    (section, omitted)
}

/// The room to keep for `list` so that it can show its first entry (shortened to `first_cap`)
/// and its count later, however much the sections before it take; with `first_cap` 0, room for
/// the count alone. A little more than the rendering, because the count can grow a digit.
pub fn list_reservation(list: &ListSpec<'_>, item_cap: usize, first_cap: usize) -> usize {
    if list.entries.is_empty() {
        return 0;
    }
    let unbounded = usize::MAX / 2;
    let (section, _) = if first_cap == 0 {
        render_list(list, item_cap, 0, unbounded)
    } else {
        render_list(list, item_cap.min(first_cap), 1, unbounded)
    };
    chars(&section) + 2
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prose_is_cut_at_a_word_and_atoms_stay_whole() {
        assert_eq!(
            fit("hello wonderful world", 16, ItemKind::Text).as_deref(),
            Some("hello wonderful…")
        );
        assert_eq!(fit("/a/very/long/path.rs", 10, ItemKind::Atom), None);
        assert_eq!(
            fit("a < b & c", 40, ItemKind::Atom).as_deref(),
            Some("a &lt; b &amp; c")
        );
        let cut = fit("&&&&&&&&&&&&", 12, ItemKind::Text).unwrap();
        assert!(chars(&cut) <= 12 && !cut.contains("&am…"), "{cut}");
    }

    #[test]
    fn lists_count_what_they_leave_out() {
        let mut w = BudgetWriter::new(40, "</x>");
        let items: Vec<String> = (0..50).map(|i| format!("step number {i}")).collect();
        let list = ListSpec {
            tag: "next-steps",
            noun: ("next step", "next steps"),
            location: "cx-004",
            entries: items.iter().map(|i| Entry::Text(i)).collect(),
            count_left_out: true,
        };
        let omitted = w.list_within(&list, 200, usize::MAX);
        let out = w.finish("</x>");
        assert!(omitted > 0);
        assert!(
            out.contains(&format!("+{omitted} more next steps in cx-004")),
            "{out}"
        );
        assert!(chars(&out) <= 160, "{}", chars(&out));
    }

    #[test]
    fn a_list_left_out_entirely_still_says_so() {
        let items: Vec<String> = (0..40).map(|i| format!("decision {i}")).collect();
        let list = ListSpec {
            tag: "decisions",
            noun: ("decision", "decisions"),
            location: "cx-001",
            entries: items.iter().map(|i| Entry::Text(i)).collect(),
            count_left_out: true,
        };
        let (count_only, omitted) = render_list(&list, 400, 0, 1_000);
        assert_eq!(omitted, 40);
        assert_eq!(
            count_only,
            "<decisions>\n- +40 more decisions in cx-001\n</decisions>\n"
        );
        assert!(list_reservation(&list, 400, 0) >= chars(&count_only));
        let (first, omitted) =
            render_list(&list, 400, usize::MAX, list_reservation(&list, 400, 160));
        assert_eq!(omitted, 39, "{first}");
        assert!(first.contains("- decision 0\n- +39 more"), "{first}");
    }

    #[test]
    fn a_list_without_its_count_leaves_out_quietly() {
        let items: Vec<String> = (0..40).map(|i| format!("decision {i}")).collect();
        let list = ListSpec {
            tag: "decisions",
            noun: ("decision", "decisions"),
            location: "cx-001",
            entries: items.iter().map(|i| Entry::Text(i)).collect(),
            count_left_out: false,
        };
        let (nothing, omitted) = render_list(&list, 400, 0, 1_000);
        assert_eq!((nothing.as_str(), omitted), ("", 40));
        let (some, omitted) = render_list(&list, 400, usize::MAX, 60);
        assert_eq!(omitted, 38, "{some}");
        assert_eq!(
            some,
            "<decisions>\n- decision 0\n- decision 1\n</decisions>\n"
        );
    }

    #[test]
    fn an_atom_that_does_not_fit_gives_way_to_one_that_does() {
        let long = format!("/{}", "d/".repeat(200));
        let paths = [long.as_str(), "src/lib.rs", "src/main.rs"];
        let list = ListSpec {
            tag: "files-to-read",
            noun: ("file", "files"),
            location: "cx-001",
            entries: vec![
                Entry::Annotated(paths[0], "first"),
                Entry::Annotated(paths[1], "the entry point & more"),
                Entry::Atom(paths[2]),
            ],
            count_left_out: true,
        };
        let (out, omitted) = render_list(&list, 300, usize::MAX, 90);
        assert_eq!(omitted, 2, "{out}");
        assert!(out.contains("- src/lib.rs"), "{out}");
        assert!(out.contains("- +2 more files in cx-001"), "{out}");
        let (roomy, omitted) = render_list(&list, 300, usize::MAX, 1_000);
        assert_eq!(omitted, 1, "the over-long path never fits its cap: {roomy}");
        assert!(roomy.contains("- src/lib.rs (the entry point &amp; more)\n- src/main.rs\n"));
    }
}
