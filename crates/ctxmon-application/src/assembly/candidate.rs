//! A candidate is one item a source could add to the bundle, priced exactly before it is
//! written: a file, a diff, a memory, a symbol, or a tool call together with its results.

use ctxmon_domain::assembly::{ContextMessage, MessageMetadata, MessageRole, TokenCounter};

use super::format::truncation_marker;

/// A fixed cost per message for its role and framing (the seed's 4), on top of its text.
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

#[derive(Debug)]
pub struct Candidate<'a> {
    /// Tokens of the item whole, overhead included (a source header is priced separately).
    pub cost: u64,
    /// Where the item goes among its source's kept items (sources rank by priority but may
    /// present in another order, e.g. events chronologically).
    pub present_rank: usize,
    /// How many messages leaving it out drops.
    pub message_count: u64,
    /// The file path, for the debug lists; `None` for other sources.
    pub file_path: Option<&'a str>,
    pub body: CandidateBody<'a>,
}

#[derive(Debug)]
pub enum CandidateBody<'a> {
    /// One message: `prefix + text + suffix`, which may be shortened.
    Text(TextItem<'a>),
    /// Messages kept or dropped together, already written (a tool call and its results).
    Group(Vec<ContextMessage>),
}

#[derive(Debug)]
pub struct TextItem<'a> {
    pub role: MessageRole,
    pub prefix: String,
    pub text: &'a str,
    pub suffix: &'static str,
    pub metadata: MessageMetadata,
    /// A smaller stand-in for when the whole item does not fit and shortening is allowed.
    pub fallback: Option<String>,
}

/// The cheapest-first way an item ended up in the bundle.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Shortened {
    /// `prefix + text[..end] + suffix + marker`.
    Prefix {
        end: usize,
        content: String,
    },
    Fallback(String),
}

impl<'a> Candidate<'a> {
    /// Prices a text item whole.
    pub fn text(
        counter: &dyn TokenCounter,
        item: TextItem<'a>,
        present_rank: usize,
        file_path: Option<&'a str>,
    ) -> Candidate<'a> {
        let cost = counter
            .count_parts(&[&item.prefix, item.text, item.suffix])
            .saturating_add(MESSAGE_OVERHEAD);
        Candidate {
            cost,
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
        let cost = messages
            .iter()
            .map(|m| message_tokens(counter, m))
            .fold(0u64, u64::saturating_add);
        Candidate {
            cost,
            present_rank,
            message_count: messages.len() as u64,
            file_path: None,
            body: CandidateBody::Group(messages),
        }
    }

    /// The messages of the whole item.
    pub fn render_whole(&self) -> Vec<ContextMessage> {
        match &self.body {
            CandidateBody::Text(item) => vec![ContextMessage {
                role: item.role,
                content: format!("{}{}{}", item.prefix, item.text, item.suffix),
                tool_call_id: None,
                tool_name: None,
                metadata: Some(item.metadata.clone()),
            }],
            CandidateBody::Group(messages) => messages.clone(),
        }
    }

    /// The item's single message in shortened form, marked as truncated.
    pub fn render_shortened(&self, shortened: &Shortened) -> Vec<ContextMessage> {
        let CandidateBody::Text(item) = &self.body else {
            return self.render_whole();
        };
        let content = match shortened {
            Shortened::Prefix { content, .. } | Shortened::Fallback(content) => content.clone(),
        };
        vec![ContextMessage {
            role: item.role,
            content,
            tool_call_id: None,
            tool_name: None,
            metadata: Some(MessageMetadata {
                truncated: true,
                ..item.metadata.clone()
            }),
        }]
    }

    /// The longest shortened form costing at most `available` tokens (overhead included): a
    /// prefix of the text with a marker, or else the fallback. `None` when neither fits or
    /// fewer than `MIN_SHOWN_TOKENS` of text would be shown.
    pub fn shorten(&self, counter: &dyn TokenCounter, available: u64) -> Option<(Shortened, u64)> {
        let CandidateBody::Text(item) = &self.body else {
            return None;
        };
        self.shorten_prefix(counter, item, available).or_else(|| {
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
            .count_parts(&[&item.prefix, item.suffix, &widest])
            .saturating_add(MESSAGE_OVERHEAD);
        let mut text_budget = available.checked_sub(frame)?;
        if text_budget < MIN_SHOWN_TOKENS {
            return None;
        }
        let total_chars = item.text.chars().count();
        while text_budget >= MIN_SHOWN_TOKENS {
            let end = prefer_line_break(item.text, counter.fit_prefix(item.text, text_budget));
            let shown = &item.text[..end];
            let shown_chars = shown.chars().count();
            if end >= item.text.len() {
                // Everything would show: not a truncation. Only a counter that disagrees with
                // its own whole-item price gets here; leave the item out.
                return None;
            }
            let marker = truncation_marker(shown_chars, total_chars);
            let cost = counter
                .count_parts(&[&item.prefix, shown, item.suffix, &marker])
                .saturating_add(MESSAGE_OVERHEAD);
            if cost <= available {
                let content = format!("{}{shown}{}{marker}", item.prefix, item.suffix);
                return Some((Shortened::Prefix { end, content }, cost));
            }
            // A counter that is not additive can overshoot; step down by the excess.
            text_budget = text_budget.saturating_sub((cost - available).max(1));
        }
        None
    }
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
            prefix: "--- File: a ---\n```\n".into(),
            text,
            suffix: "\n```",
            metadata: MessageMetadata::default(),
            fallback: None,
        }
    }

    #[test]
    fn whole_cost_matches_the_rendered_message() {
        let c = Candidate::text(&CharsPerFour, item("fn main() {}\n"), 0, None);
        let rendered = c.render_whole();
        assert_eq!(rendered.len(), 1);
        assert_eq!(message_tokens(&CharsPerFour, &rendered[0]), c.cost);
    }

    #[test]
    fn shortening_fits_the_budget_and_says_so() {
        let text = "line of text\n".repeat(1000);
        let c = Candidate::text(&CharsPerFour, item(&text), 0, None);
        for available in [60, 61, 100, 333, 1000, 3000] {
            let (short, cost) = c.shorten(&CharsPerFour, available).unwrap();
            let rendered = c.render_shortened(&short);
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
        assert_eq!(c.cost, 17);
        assert_eq!(c.message_count, 2);
    }
}
