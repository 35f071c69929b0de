//! The markdown pieces a section's body is made of: one per datum (the mission, a list item, a
//! decision, a context entry, a metadata line), so that fitting a log to its budget (`fit`)
//! keeps, shortens or drops data piece by piece and the rendering (`render`) is exactly the
//! pieces kept.
//!
//! Free text cannot leave its place: a list item's further lines are indented under it, the
//! mission is a blockquote (every line behind `>`), and control characters are replaced. A
//! `## Next Steps` or a `---` inside an agent's text therefore stays inside its item or quote
//! and never starts a heading or section of the document. Keys are one line each.
//!
//! The critical context is a tree: a nested list whose pieces are its leaves, each carrying
//! the labels of the lists and maps it opens (`lead`), so a label never shows without an entry.
//! The session metadata's pieces are in `pieces_meta`, the names of its facts and lists in
//! `meta_fields`.

use std::collections::BTreeMap;

use super::meta_fields::{MetaField, MetaList};
use super::truncate::marker;
use super::{ContextValue, Decision};

/// Longest session id, model, trigger or key shown on one line; a 10 KB id is not a title.
pub(super) const ONE_LINE_MAX: usize = 128;

/// What an empty section says, so the layout is the same for every log.
pub(super) const NONE: &str = "_None recorded._";

/// Which datum a piece shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Origin {
    Mission,
    /// An item of the section's list (accomplishments, findings, next steps), by index.
    Item(usize),
    Decision(usize),
    /// A critical-context leaf, by its position in document order.
    Context(usize),
    Field(MetaField),
    List(MetaList, usize),
    /// A metadata note, by its key as stored.
    Note(String),
}

/// How a piece is drawn from its (cleaned) text, so a shorter text can be drawn the same way.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Shape {
    /// The mission: a blockquote.
    Quote { text: String },
    /// `lead` (a list's label, before its first item), then `prefix` + the text as a list item.
    Item {
        lead: String,
        prefix: String,
        text: String,
    },
    /// Kept whole or dropped: paths, ids, one-line facts.
    Atom,
    /// A numbered decision with its rationale beneath.
    Decision {
        number: usize,
        decision: String,
        rationale: String,
    },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Piece {
    /// The markdown, ending with a newline.
    pub text: String,
    pub origin: Origin,
    pub shape: Shape,
}

impl Piece {
    pub(super) fn chars(&self) -> usize {
        self.text.chars().count()
    }
}

pub(super) fn mission_pieces(mission: &str) -> Vec<Piece> {
    let text = clean(mission);
    if text.is_empty() {
        return Vec::new();
    }
    vec![Piece {
        text: quote(&text),
        origin: Origin::Mission,
        shape: Shape::Quote { text },
    }]
}

pub(super) fn item_pieces(prefix: &str, items: &[String]) -> Vec<Piece> {
    pieces_of(prefix, items, Origin::Item, false)
}

/// One piece per non-empty item, `prefix` before each: an atom (kept whole or not at all) or
/// an item whose text may be shortened; `origin` says where the item's index points.
pub(super) fn pieces_of(
    prefix: &str,
    items: &[String],
    origin: impl Fn(usize) -> Origin,
    atom: bool,
) -> Vec<Piece> {
    items
        .iter()
        .enumerate()
        .filter_map(|(i, t)| {
            let text = clean(t);
            (!text.is_empty()).then(|| Piece {
                text: item(prefix, &text),
                origin: origin(i),
                shape: if atom {
                    Shape::Atom
                } else {
                    Shape::Item {
                        lead: String::new(),
                        prefix: prefix.to_string(),
                        text,
                    }
                },
            })
        })
        .collect()
}

pub(super) fn decision_pieces(decisions: &[Decision]) -> Vec<Piece> {
    let mut out = Vec::new();
    for (i, d) in decisions.iter().enumerate() {
        let number = out.len() + 1;
        let (decision, rationale) = (clean(&d.decision), clean(&d.rationale));
        if let Some(text) = decision_text(number, &decision, &rationale) {
            out.push(Piece {
                text,
                origin: Origin::Decision(i),
                shape: Shape::Decision {
                    number,
                    decision,
                    rationale,
                },
            });
        }
    }
    out
}

/// `1. decision` and `   - Rationale: …` beneath, from cleaned texts; `None` when both are
/// empty.
pub(super) fn decision_text(number: usize, decision: &str, rationale: &str) -> Option<String> {
    if decision.is_empty() && rationale.is_empty() {
        return None;
    }
    let mut out = decision_head(number, decision);
    if !rationale.is_empty() {
        out.push_str(&item(RATIONALE, rationale));
    }
    Some(out)
}

pub(super) fn decision_head(number: usize, decision: &str) -> String {
    let head = if decision.is_empty() {
        "(unstated)"
    } else {
        decision
    };
    item(&format!("{number}. "), head)
}

pub(super) const RATIONALE: &str = "   - Rationale: ";

/// `- **key:** value` pieces, in key order; `lead` goes before the first.
pub(super) fn pair_pieces(
    entries: &BTreeMap<String, String>,
    lead: &str,
    origin: fn(String) -> Origin,
) -> Vec<Piece> {
    let mut out: Vec<Piece> = Vec::new();
    for (k, v) in entries {
        let key = one_line(k, "");
        let value = clean(v);
        if key.is_empty() && value.is_empty() {
            continue;
        }
        let lead = if out.is_empty() { lead } else { "" };
        let prefix = pair_prefix(&key);
        out.push(Piece {
            text: format!("{lead}{}", item(&prefix, &value)),
            origin: origin(k.clone()),
            shape: Shape::Item {
                lead: lead.to_string(),
                prefix,
                text: value,
            },
        });
    }
    out
}

pub(super) fn pair_prefix(key: &str) -> String {
    format!("- **{key}:** ")
}

/// The critical context as a nested list, one piece per leaf in document order: maps by key
/// (`- **key:** value`), lists in order (`- value`; a nested list or map in a list is labelled
/// `#n`), each level indented two spaces; an empty list or map shows `(none)`.
pub(super) fn context_pieces(map: &BTreeMap<String, ContextValue>) -> Vec<Piece> {
    let mut out = Vec::new();
    let mut lead = String::new();
    context_map(map, 0, &mut lead, &mut out);
    out
}

fn context_map(
    map: &BTreeMap<String, ContextValue>,
    depth: usize,
    lead: &mut String,
    out: &mut Vec<Piece>,
) {
    for (k, v) in map {
        let key = one_line(k, "");
        context_value(&format!("**{key}:** "), v, depth, lead, out);
    }
}

fn context_value(
    label: &str,
    value: &ContextValue,
    depth: usize,
    lead: &mut String,
    out: &mut Vec<Piece>,
) {
    let indent = "  ".repeat(depth);
    match value {
        ContextValue::List(items) if !items.is_empty() => {
            lead.push_str(&format!("{indent}- {}\n", label.trim_end()));
            for (i, item) in items.iter().enumerate() {
                let label = if item.is_branch() {
                    format!("**#{}:** ", i + 1)
                } else {
                    String::new()
                };
                context_value(&label, item, depth + 1, lead, out);
            }
        }
        ContextValue::Map(map) if !map.is_empty() => {
            lead.push_str(&format!("{indent}- {}\n", label.trim_end()));
            context_map(map, depth + 1, lead, out);
        }
        leaf => {
            let prefix = format!("{indent}- {label}");
            let lead = std::mem::take(lead);
            // A number's text is as long as the agent made it, so it is shown and cut like any
            // text; a cut number is kept as the shortened text (`retain_leaves`), which is no
            // longer that number.
            let written = match leaf {
                ContextValue::Text(t) => Some(t.as_str()),
                ContextValue::Number(n) => Some(n.as_str()),
                _ => None,
            };
            let (text, shape) = match written {
                Some(t) => {
                    let text = clean(t);
                    let shape = Shape::Item {
                        lead: lead.clone(),
                        prefix: prefix.clone(),
                        text: text.clone(),
                    };
                    (text, shape)
                }
                None => (
                    leaf.scalar_text().unwrap_or_else(|| "(none)".into()),
                    Shape::Atom,
                ),
            };
            out.push(Piece {
                text: format!("{lead}{}", item(&prefix, &text)),
                origin: Origin::Context(out.len()),
                shape,
            });
        }
    }
}

/// A section's body: the pieces, then the truncation marker when anything was left out, or
/// [`NONE`] when there is nothing at all.
pub(super) fn body(pieces: &[Piece], omitted_tokens: u64) -> String {
    let mut out = String::with_capacity(pieces.iter().map(|p| p.text.len()).sum());
    for p in pieces {
        out.push_str(&p.text);
    }
    body_of(&out, omitted_tokens)
}

/// [`body`] of pieces already joined into `text`.
pub(super) fn body_of(text: &str, omitted_tokens: u64) -> String {
    let mut out = text.trim().to_string();
    if omitted_tokens > 0 {
        let m = marker(omitted_tokens);
        if out.is_empty() {
            out.push_str(m.trim_start());
        } else {
            out.push_str(&m);
        }
    } else if out.is_empty() {
        out.push_str(NONE);
    }
    out
}

/// `prefix` + the text's first line, every further line indented to stay in the item: at
/// least to the item's content (past a nested item's own indentation and its `- `), at most 8
/// columns beyond its indentation.
pub(super) fn item(prefix: &str, text: &str) -> String {
    let chars = prefix.chars().count();
    let leading = prefix.chars().take_while(|c| *c == ' ').count();
    let indent = if leading == 0 {
        chars.min(8)
    } else {
        chars.min(8).max(leading + 2)
    };
    let indent = " ".repeat(indent);
    let mut out = String::with_capacity(prefix.len() + text.len() + 8);
    for (i, line) in text.split('\n').enumerate() {
        if i == 0 {
            out.push_str(prefix);
        } else if !line.is_empty() {
            out.push_str(&indent);
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// Every line behind `> `, blank lines as `>`, so the text is one quote whatever it holds.
pub(super) fn quote(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    for line in text.split('\n') {
        if line.trim().is_empty() {
            out.push_str(">\n");
        } else {
            out.push_str("> ");
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// Trimmed, line breaks normalised to `\n`, other control characters replaced: text from a
/// transcript or an agent must not move the cursor of the terminal showing it.
pub(super) fn clean(text: &str) -> String {
    let text = text.trim();
    // Most text has nothing to replace: copy it whole instead of char by char.
    if !needs_cleaning(text.as_bytes()) {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
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

/// True when `text` holds a control character other than `\n` and `\t` (C0, DEL, or C1,
/// which UTF-8 writes as `0xC2 0x80..=0x9F`).
fn needs_cleaning(text: &[u8]) -> bool {
    // A branch-free pass first (it vectorises): most text has none of these bytes at all.
    let suspect = |b: u8| (b < 0x20 && b != b'\n' && b != b'\t') | (b == 0x7F) | (b == 0xC2);
    if !text.iter().fold(false, |any, &b| any | suspect(b)) {
        return false;
    }
    text.iter().enumerate().any(|(i, &b)| {
        (b < 0x20 && b != b'\n' && b != b'\t')
            || b == 0x7F
            || (b == 0xC2 && text.get(i + 1).is_some_and(|n| (0x80..=0x9F).contains(n)))
    })
}

/// One line of at most [`ONE_LINE_MAX`] characters (`fallback` when empty).
pub(super) fn one_line(text: &str, fallback: &str) -> String {
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
