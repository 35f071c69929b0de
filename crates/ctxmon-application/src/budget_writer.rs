//! A writer for injected XML tags that must fit a token budget: sections are added in priority
//! order, each list keeps whole items only and ends with a count of what it left out, and text
//! is cut at a word boundary, never inside an escape, a path or an id.

use ctxmon_domain::xml::escape_text;

/// Characters per estimated token (the estimate is `ceil(chars / 4)`).
const CHARS_PER_TOKEN: usize = 4;

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
        let limit = usize::try_from(max_tokens)
            .unwrap_or(usize::MAX / 8)
            .saturating_mul(CHARS_PER_TOKEN);
        BudgetWriter {
            out: String::with_capacity(limit.min(16_384)),
            used: 0,
            limit,
            reserve: chars(closing),
        }
    }

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
        let frame = chars(tag) * 2 + 6;
        let Some(body) = fit(text, self.remaining().saturating_sub(frame), kind) else {
            return false;
        };
        self.raw(&format!("<{tag}>{body}</{tag}>\n"))
    }

    /// A list section: whole items in order until one does not fit, then `+N more {noun} in
    /// {where}`. Items longer than `item_cap` characters are shortened first (prose) or left
    /// out (atoms), so one huge item cannot starve the rest. Returns how many items were left
    /// out.
    pub fn list(
        &mut self,
        tag: &str,
        noun: &str,
        location: &str,
        items: &[String],
        kind: ItemKind,
        item_cap: usize,
    ) -> usize {
        if items.is_empty() {
            return 0;
        }
        let open = format!("<{tag}>\n");
        let close = format!("</{tag}>\n");
        let note = |n: usize| format!("- +{n} more {noun} in {}\n", escape_text(location));
        let worst_note = chars(&note(items.len()));
        let mut lines: Vec<String> = Vec::new();
        let mut body = 0usize;
        let mut kept = 0usize;
        let room = self
            .remaining()
            .saturating_sub(chars(&open) + chars(&close));
        for (i, item) in items.iter().enumerate() {
            let Some(text) = fit(item, item_cap, kind) else {
                continue;
            };
            let line = format!("- {text}\n");
            let more_after = i + 1 < items.len();
            let need = chars(&line) + if more_after { worst_note } else { 0 };
            if body + need <= room {
                body += chars(&line);
                lines.push(line);
                kept += 1;
                continue;
            }
            // The first item of a prose list may still fit shortened.
            if lines.is_empty() && kind == ItemKind::Text {
                let avail = room.saturating_sub(4 + if more_after { worst_note } else { 0 });
                if let Some(short) = fit(item, avail, kind) {
                    let line = format!("- {short}\n");
                    body += chars(&line);
                    lines.push(line);
                    kept += 1;
                }
            }
            break;
        }
        let omitted = items.len() - kept;
        if omitted > 0 {
            let line = note(omitted);
            if body + chars(&line) <= room {
                lines.push(line);
            } else if lines.is_empty() {
                return omitted;
            }
        }
        if lines.is_empty() {
            return omitted;
        }
        let mut section = open;
        for l in lines {
            section.push_str(&l);
        }
        section.push_str(&close);
        self.raw(&section);
        omitted
    }

    /// Appends the closing text (which the reserve guaranteed room for).
    pub fn finish(mut self, closing: &str) -> String {
        self.out.push_str(closing);
        self.out
    }
}

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
        let omitted = w.list(
            "next-steps",
            "next steps",
            "cx-004",
            &items,
            ItemKind::Text,
            200,
        );
        let out = w.finish("</x>");
        assert!(omitted > 0);
        assert!(
            out.contains(&format!("+{omitted} more next steps in cx-004")),
            "{out}"
        );
        assert!(chars(&out) <= 160, "{}", chars(&out));
    }
}
