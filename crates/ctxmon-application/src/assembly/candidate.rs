//! A candidate is one item a source could add to the bundle, priced exactly before it is
//! written: a file, a diff, a memory, a symbol, or a tool call together with its results.

use std::cell::{Cell, OnceCell};

use ctxmon_domain::assembly::{ContextMessage, MessageMetadata, MessageRole, TokenCounter};

use super::format::truncation_marker;

/// A fixed cost per message for its role and framing, on top of its text.
pub const MESSAGE_OVERHEAD: u64 = 4;

/// Shortening below this many tokens of shown text is not worth the marker; the item is left out
/// instead.
pub const MIN_SHOWN_TOKENS: u64 = 32;

/// The tokens a message costs without its overhead: content plus tool call id and name, which
/// are sent to the model too.
pub fn message_text_tokens(counter: &dyn TokenCounter, message: &ContextMessage) -> u64 {
    counter
        .count(&message.content)
        .saturating_add(
            message
                .tool_call_id
                .as_deref()
                .map_or(0, |s| counter.count(s)),
        )
        .saturating_add(message.tool_name.as_deref().map_or(0, |s| counter.count(s)))
}

/// What a message costs in the bundle: its text tokens plus `MESSAGE_OVERHEAD`.
pub fn message_tokens(counter: &dyn TokenCounter, message: &ContextMessage) -> u64 {
    message_text_tokens(counter, message).saturating_add(MESSAGE_OVERHEAD)
}

/// One item a source could add to the bundle (a file, a diff, a memory, a symbol, or a tool
/// call with its results), priced exactly before it is written.
#[derive(Debug)]
pub struct Candidate<'a> {
    /// A lower bound on `cost`, known without counting the text.
    cost_floor: u64,
    /// Tokens of the item whole, overhead included (a source header is priced separately);
    /// counted the first time an offer could afford the floor.
    cost: Cell<Option<u64>>,
    /// Where the item goes among its source's kept items (sources rank by priority but may
    /// present in another order, e.g. events chronologically).
    pub present_rank: usize,
    /// How many messages leaving it out drops.
    pub message_count: u64,
    /// The file path, for the debug lists; `None` for other sources.
    pub file_path: Option<&'a str>,
    /// What the item is made of.
    pub body: CandidateBody<'a>,
}

/// What a candidate is made of.
#[derive(Debug)]
pub enum CandidateBody<'a> {
    /// One message: `prefix + text + suffix`, which may be shortened.
    Text(TextItem<'a>),
    /// Messages kept or dropped together, already written.
    Group(Vec<ContextMessage>),
    /// Messages kept or dropped together (a tool call and its results), written the first time
    /// they are priced: a long history costs what is shown, not what is stored.
    Lazy(LazyGroup<'a>),
}

pub struct LazyGroup<'a> {
    write: Box<dyn Fn() -> Vec<ContextMessage> + 'a>,
    written: OnceCell<Vec<ContextMessage>>,
}

impl LazyGroup<'_> {
    fn messages(&self) -> &[ContextMessage] {
        self.written.get_or_init(|| (self.write)())
    }
}

impl std::fmt::Debug for LazyGroup<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LazyGroup")
            .field("written", &self.written.get())
            .finish_non_exhaustive()
    }
}

/// A message written as `prefix + text + suffix`, where only `text` may be shortened.
#[derive(Debug)]
pub struct TextItem<'a> {
    /// Who speaks the message.
    pub role: MessageRole,
    /// The fixed text before the item's own (a file's header and fence, …).
    pub prefix: Prefix<'a>,
    /// The item's own text: the part shortening cuts.
    pub text: &'a str,
    /// The fixed text after it (a closing fence, …).
    pub suffix: &'static str,
    /// What becomes the message's metadata.
    pub meta: ItemMeta<'a>,
    /// A smaller stand-in for when the whole item does not fit and shortening is allowed.
    pub fallback: Option<String>,
}

/// What becomes the message's metadata, kept borrowed until the item is written, so an item
/// that is left out costs no allocation.
#[derive(Debug, Clone, Copy)]
pub struct ItemMeta<'a> {
    /// Written before `source` (`memory:`, `diff:`, or empty for a file path).
    pub source_prefix: &'static str,
    /// The item's name in its source: a path, a memory id, an event type.
    pub source: &'a str,
    /// The source's ranking score (0–1).
    pub priority: f64,
    /// The item's size before shortening, in bytes, when it has one.
    pub original_size: Option<u64>,
}

impl ItemMeta<'_> {
    fn metadata(&self, truncated: bool) -> MessageMetadata {
        MessageMetadata {
            source: Some(format!("{}{}", self.source_prefix, self.source)),
            priority: Some(self.priority),
            original_size: self.original_size,
            truncated,
        }
    }
}

/// The text before an item's own text: written out, or borrowed pieces (so the 100,000th file
/// costs no allocation until it is kept).
#[derive(Debug)]
pub enum Prefix<'a> {
    /// Written out already.
    Owned(String),
    /// Borrowed pieces, written out in order.
    Parts([&'a str; 5]),
}

impl Prefix<'_> {
    fn parts(&self) -> [&str; 5] {
        match self {
            Prefix::Owned(s) => [s, "", "", "", ""],
            Prefix::Parts(parts) => *parts,
        }
    }
}

impl TextItem<'_> {
    /// Every piece of the message with `text` replaced by `shown` and `tail` appended.
    fn pieces<'s>(&'s self, shown: &'s str, tail: &'s str) -> [&'s str; 8] {
        let [a, b, c, d, e] = self.prefix.parts();
        [a, b, c, d, e, shown, self.suffix, tail]
    }

    fn write(&self, shown: &str, tail: &str) -> String {
        let pieces = self.pieces(shown, tail);
        let mut out = String::with_capacity(pieces.iter().map(|p| p.len()).sum());
        for piece in pieces {
            out.push_str(piece);
        }
        out
    }
}

/// How a kept item ended up in the bundle when it did not fit whole.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Shortened {
    /// `prefix + text[..end] + suffix + marker`.
    Prefix {
        /// The byte offset in `text` where the shown part ends (a character boundary).
        end: usize,
        /// The message as written.
        content: String,
    },
    /// The item's smaller stand-in (a diff's stats line instead of the diff).
    Fallback(String),
}

impl<'a> Candidate<'a> {
    /// A text item, priced lazily: only its bounds are computed here.
    pub fn text(
        counter: &dyn TokenCounter,
        item: TextItem<'a>,
        present_rank: usize,
        file_path: Option<&'a str>,
    ) -> Candidate<'a> {
        let (lower, upper) = counter.bounds_parts(&item.pieces(item.text, ""));
        Candidate {
            cost_floor: lower.saturating_add(MESSAGE_OVERHEAD),
            cost: Cell::new((lower == upper).then(|| lower.saturating_add(MESSAGE_OVERHEAD))),
            present_rank,
            message_count: 1,
            file_path,
            body: CandidateBody::Text(item),
        }
    }

    /// Prices a group of written messages.
    pub fn group(
        counter: &dyn TokenCounter,
        messages: Vec<ContextMessage>,
        present_rank: usize,
    ) -> Candidate<'a> {
        let cost = group_tokens(counter, &messages);
        Candidate {
            cost_floor: cost,
            cost: Cell::new(Some(cost)),
            present_rank,
            message_count: messages.len() as u64,
            file_path: None,
            body: CandidateBody::Group(messages),
        }
    }

    /// A group of `message_count` messages written by `write` when first priced. Its cost floor
    /// is only the per-message overhead, so it suits sources whose offers stop at the first item
    /// that does not fit (`SourceCandidates::contiguous`).
    pub fn lazy_group(
        message_count: u64,
        present_rank: usize,
        write: impl Fn() -> Vec<ContextMessage> + 'a,
    ) -> Candidate<'a> {
        Candidate {
            cost_floor: message_count.saturating_mul(MESSAGE_OVERHEAD),
            cost: Cell::new(None),
            present_rank,
            message_count,
            file_path: None,
            body: CandidateBody::Lazy(LazyGroup {
                write: Box::new(write),
                written: OnceCell::new(),
            }),
        }
    }

    /// No more than `cost`; free to ask.
    pub fn cost_floor(&self) -> u64 {
        self.cost_floor
    }

    /// Tokens of the item whole, overhead included.
    pub fn cost(&self, counter: &dyn TokenCounter) -> u64 {
        if let Some(cost) = self.cost.get() {
            return cost;
        }
        let cost = match &self.body {
            CandidateBody::Text(item) => counter
                .count_parts(&item.pieces(item.text, ""))
                .saturating_add(MESSAGE_OVERHEAD),
            CandidateBody::Group(messages) => group_tokens(counter, messages),
            CandidateBody::Lazy(group) => group_tokens(counter, group.messages()),
        };
        self.cost.set(Some(cost));
        cost
    }

    /// The messages of the whole item (a group's are copied; items are kept in place so that
    /// the many left out are never moved).
    pub fn render_whole(&self) -> Vec<ContextMessage> {
        match &self.body {
            CandidateBody::Text(item) => vec![ContextMessage {
                role: item.role,
                content: item.write(item.text, ""),
                tool_call_id: None,
                tool_name: None,
                metadata: Some(item.meta.metadata(false)),
            }],
            CandidateBody::Group(messages) => messages.clone(),
            CandidateBody::Lazy(group) => group.messages().to_vec(),
        }
    }

    /// The item's single message in shortened form, marked as truncated.
    pub fn render_shortened(&self, shortened: Shortened) -> Vec<ContextMessage> {
        let CandidateBody::Text(item) = &self.body else {
            return self.render_whole();
        };
        let content = match shortened {
            Shortened::Prefix { content, .. } | Shortened::Fallback(content) => content,
        };
        vec![ContextMessage {
            role: item.role,
            content,
            tool_call_id: None,
            tool_name: None,
            metadata: Some(item.meta.metadata(true)),
        }]
    }

    /// The longest shortened form costing at most `available` tokens (overhead included): a
    /// prefix of the text with a marker, or else the fallback. `None` when neither fits or
    /// fewer than `MIN_SHOWN_TOKENS` of text would be shown.
    pub fn shorten(&self, counter: &dyn TokenCounter, available: u64) -> Option<(Shortened, u64)> {
        let CandidateBody::Text(item) = &self.body else {
            return None;
        };
        // Cheap refusal first: most offers after the budget is spent end here.
        let prefix = if available >= MIN_SHOWN_TOKENS + MESSAGE_OVERHEAD {
            self.shorten_prefix(counter, item, available)
        } else {
            None
        };
        prefix.or_else(|| {
            let fallback = item.fallback.as_ref()?;
            let cost = counter.count(fallback).saturating_add(MESSAGE_OVERHEAD);
            (cost <= available).then(|| (Shortened::Fallback(fallback.clone()), cost))
        })
    }

    fn shorten_prefix(
        &self,
        counter: &dyn TokenCounter,
        item: &TextItem<'a>,
        available: u64,
    ) -> Option<(Shortened, u64)> {
        // A marker at least as wide as the real one (bytes bound characters), so the first guess
        // is rarely too long, and so hopeless offers are refused before counting a large text.
        let widest = truncation_marker(item.text.len(), item.text.len());
        let frame = counter
            .count_parts(&item.pieces("", &widest))
            .saturating_add(MESSAGE_OVERHEAD);
        let mut text_budget = available.checked_sub(frame)?;
        if text_budget < MIN_SHOWN_TOKENS {
            return None;
        }
        let total_chars = item.text.chars().count();
        while text_budget >= MIN_SHOWN_TOKENS {
            // `fit_prefix` promises a char boundary inside the text; a counter (a port anyone
            // can implement) that breaks the promise must cost a shorter prefix, not a panic.
            let fitted = item
                .text
                .floor_char_boundary(counter.fit_prefix(item.text, text_budget));
            let end = prefer_line_break(item.text, fitted);
            if end >= item.text.len() {
                // Everything would show: not a truncation. Only a counter that disagrees with
                // its own whole-item price gets here; leave the item out.
                return None;
            }
            let shown = &item.text[..end];
            let marker = truncation_marker(shown.chars().count(), total_chars);
            let cost = counter
                .count_parts(&item.pieces(shown, &marker))
                .saturating_add(MESSAGE_OVERHEAD);
            if cost <= available {
                let content = item.write(shown, &marker);
                return Some((Shortened::Prefix { end, content }, cost));
            }
            // A counter that is not additive can overshoot; step down by the excess.
            text_budget = text_budget.saturating_sub((cost - available).max(1));
        }
        None
    }
}

fn group_tokens(counter: &dyn TokenCounter, messages: &[ContextMessage]) -> u64 {
    messages
        .iter()
        .map(|m| message_tokens(counter, m))
        .fold(0u64, u64::saturating_add)
}

/// Moves `end` back to the last line break in its final fifth, so shortened text stops at a
/// whole line when one is near; otherwise keeps `end`.
fn prefer_line_break(text: &str, end: usize) -> usize {
    let window_start = end - end / 5;
    let mut start = window_start;
    while start > 0 && !text.is_char_boundary(start) {
        start -= 1;
    }
    match text[start..end].rfind('\n') {
        Some(pos) if start + pos > 0 => start + pos,
        _ => end,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ctxmon_domain::assembly::CharsPerFour;

    fn item(text: &str) -> TextItem<'_> {
        TextItem {
            role: MessageRole::User,
            prefix: Prefix::Parts(["--- File: ", "a", " ---\n```", "", "\n"]),
            text,
            suffix: "\n```",
            meta: ItemMeta {
                source_prefix: "",
                source: "a",
                priority: 0.5,
                original_size: None,
            },
            fallback: None,
        }
    }

    #[test]
    fn whole_cost_matches_the_rendered_message() {
        let c = Candidate::text(&CharsPerFour, item("fn main() {}\n"), 0, None);
        let cost = c.cost(&CharsPerFour);
        assert!(c.cost_floor() <= cost);
        let rendered = c.render_whole();
        assert_eq!(rendered.len(), 1);
        assert_eq!(message_tokens(&CharsPerFour, &rendered[0]), cost);
    }

    #[test]
    fn shortening_fits_the_budget_and_says_so() {
        let text = "line of text\n".repeat(1000);
        let c = Candidate::text(&CharsPerFour, item(&text), 0, None);
        for available in [60, 61, 100, 333, 1000, 3000] {
            let (short, cost) = c.shorten(&CharsPerFour, available).unwrap();
            assert!(matches!(short, Shortened::Prefix { .. }));
            let rendered = c.render_shortened(short);
            assert_eq!(message_tokens(&CharsPerFour, &rendered[0]), cost);
            assert!(cost <= available, "{cost} > {available}");
            assert!(
                rendered[0]
                    .content
                    .contains("[truncated: showing the first")
            );
            assert!(rendered[0].metadata.as_ref().unwrap().truncated);
            // Stops at a whole line.
            assert!(rendered[0].content.contains("text\n```\n[truncated"));
            // Uses most of what it was given.
            assert!(cost + 8 >= available, "{cost} of {available}");
        }
        assert!(c.shorten(&CharsPerFour, 40).is_none());
    }

    #[test]
    fn a_fallback_is_used_when_no_prefix_fits() {
        let text = "x".repeat(10_000);
        let mut it = item(&text);
        it.fallback = Some("stats [truncated: patch omitted]".into());
        let c = Candidate::text(&CharsPerFour, it, 0, None);
        let (short, cost) = c.shorten(&CharsPerFour, 20).unwrap();
        assert!(matches!(short, Shortened::Fallback(_)));
        assert_eq!(cost, 8 + MESSAGE_OVERHEAD);
    }

    #[test]
    fn lazy_groups_are_written_once_when_priced() {
        let writes = Cell::new(0);
        let c = Candidate::lazy_group(1, 0, || {
            writes.set(writes.get() + 1);
            vec![ContextMessage {
                role: MessageRole::User,
                content: "abcdefgh".into(),
                tool_call_id: None,
                tool_name: None,
                metadata: None,
            }]
        });
        assert_eq!(writes.get(), 0);
        assert_eq!(c.cost_floor(), MESSAGE_OVERHEAD);
        assert_eq!(c.cost(&CharsPerFour), 2 + MESSAGE_OVERHEAD);
        assert_eq!(c.cost(&CharsPerFour), 2 + MESSAGE_OVERHEAD);
        assert_eq!(c.render_whole().len(), 1);
        assert_eq!(writes.get(), 1);
    }

    #[test]
    fn groups_cost_the_sum_of_their_messages() {
        let m = |content: &str| ContextMessage {
            role: MessageRole::Tool,
            content: content.into(),
            tool_call_id: Some("call-1".into()),
            tool_name: Some("git".into()),
            metadata: None,
        };
        let c = Candidate::group(&CharsPerFour, vec![m("abcd"), m("abcdefgh")], 0);
        // (1 + 2 + 1) + (2 + 2 + 1) + 2 * 4
        assert_eq!(c.cost(&CharsPerFour), 17);
        assert_eq!(c.message_count, 2);
    }
}
