//! The truncation rule every budgeted text goes through: cut at a sentence boundary when one
//! lies past 80% of the room, else at a word boundary, and say visibly how much was left out.
//!
//! Why sentences first: a reader (person or agent) can trust a whole sentence; half of one can
//! say the opposite of what was meant. The 80% rule stops a sentence boundary
//! near the start from throwing away most of the room.

use crate::estimate_tokens;

/// A text shortened to a number of characters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Truncated {
    /// The kept text, with its marker when something was cut.
    pub text: String,
    /// Tokens (`ceil(chars / 4)`) of the part that was cut off; 0 when nothing was.
    pub omitted_tokens: u64,
}

/// The marker that ends a shortened text, on a line of its own. Never shorter for a larger
/// count (the fitting reserves room for it from an upper bound).
pub fn marker(omitted_tokens: u64) -> String {
    format!(
        "\n\n… [truncated: {} omitted]",
        crate::human::tokens(omitted_tokens)
    )
}

/// `text` unchanged when it has at most `max_chars` characters; else a prefix cut by the rule
/// above followed by [`marker`], the whole at most `max_chars` characters.
///
/// When even the marker does not fit (a room of a few characters), the text is cut hard and
/// ends with "…": the bound holds for every input.
pub fn truncate_chars(text: &str, max_chars: usize) -> Truncated {
    let total = text.chars().count();
    if total <= max_chars {
        return Truncated {
            text: text.to_string(),
            omitted_tokens: 0,
        };
    }
    // The omitted part is shorter than the text, so the text's own token count bounds the
    // marker's digits: reserving for it guarantees the final marker fits.
    let reserve = marker(estimate_tokens(text).get()).chars().count();
    let Some(room) = max_chars.checked_sub(reserve) else {
        return hard_cut(text, max_chars);
    };
    let cut = cut_point(text, room);
    let kept = text.get(..cut).unwrap_or_default().trim_end();
    let omitted = estimate_tokens(text.get(cut..).unwrap_or_default().trim_start()).get();
    let mut out = String::with_capacity(kept.len() + reserve + 4);
    out.push_str(kept);
    out.push_str(&marker(omitted.max(1)));
    Truncated {
        text: out,
        omitted_tokens: omitted.max(1),
    }
}

/// `text` itself when it has at most `max_chars` characters, else its longest prefix of at most
/// `max_chars` characters that ends at a sentence boundary (past 80% of the room) or a word
/// boundary, by the same rule as [`truncate_chars`] but without a marker: for a pre-cap whose
/// cut the final budget will report.
pub fn cut_at_boundary(text: &str, max_chars: usize) -> &str {
    if text.chars().nth(max_chars).is_none() {
        return text;
    }
    text.get(..cut_point(text, max_chars))
        .unwrap_or_default()
        .trim_end()
}

/// The byte index to cut `text` at so that at most `room` characters are kept.
pub(super) fn cut_point(text: &str, room: usize) -> usize {
    let (limit, sentence, word) = boundaries(text, room);
    let threshold = room.saturating_mul(4) / 5;
    match (sentence, word) {
        (Some((at, kept_chars)), _) if kept_chars > threshold => at,
        (_, Some(at)) if at > 0 => at,
        _ => limit,
    }
}

/// The byte index just past the last sentence end (or line break) within the first `room`
/// characters of `text`, if there is one.
pub(super) fn sentence_point(text: &str, room: usize) -> Option<usize> {
    boundaries(text, room).1.map(|(at, _)| at)
}

/// Within the first `room` characters: the byte index past them, the last sentence end (byte
/// index, characters kept) and the last word boundary (byte index).
fn boundaries(text: &str, room: usize) -> (usize, Option<(usize, usize)>, Option<usize>) {
    // Byte index just past the `room`-th character: everything before it may be kept.
    let limit = text.char_indices().nth(room).map_or(text.len(), |(i, _)| i);
    let mut sentence = None;
    let mut word = None;
    let mut chars_seen = 0usize;
    let mut iter = text.char_indices().peekable();
    while let Some((i, c)) = iter.next() {
        if i >= limit {
            break;
        }
        chars_seen += 1;
        let next = iter.peek().map(|&(_, n)| n);
        if c == '\n' {
            // A line break ends a list item or a paragraph: as good as a sentence end.
            sentence = Some((i, chars_seen - 1));
        } else if matches!(c, '.' | '!' | '?' | '。') && next.is_none_or(char::is_whitespace) {
            let end = i + c.len_utf8();
            if end <= limit {
                sentence = Some((end, chars_seen));
            }
        }
        if c.is_whitespace() {
            word = Some(i);
        }
    }
    (limit, sentence, word)
}

fn hard_cut(text: &str, max_chars: usize) -> Truncated {
    let keep = max_chars.saturating_sub(1);
    let end = text.char_indices().nth(keep).map_or(text.len(), |(i, _)| i);
    let mut out: String = text.get(..end).unwrap_or_default().to_string();
    if max_chars > 0 {
        out.push('…');
    }
    Truncated {
        omitted_tokens: estimate_tokens(text.get(end..).unwrap_or_default()).get(),
        text: out,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn short_text_is_untouched() {
        let t = truncate_chars("One. Two.", 9);
        assert_eq!(t.text, "One. Two.");
        assert_eq!(t.omitted_tokens, 0);
    }

    #[test]
    fn a_late_sentence_boundary_wins() {
        let text = format!("{}. {}", "a".repeat(90), "b ".repeat(200));
        let t = truncate_chars(&text, 140);
        assert!(
            t.text
                .starts_with(&format!("{}.\n\n… [truncated: ", "a".repeat(90)))
        );
        assert!(t.text.chars().count() <= 140, "{}", t.text);
        assert!(t.omitted_tokens > 0);
    }

    #[test]
    fn an_early_sentence_boundary_loses_to_a_word_boundary() {
        let text = format!("Hi. {}", "word ".repeat(100));
        let t = truncate_chars(&text, 120);
        // Past "Hi." the cut falls between words, far beyond 80% of the room.
        assert!(t.text.starts_with("Hi. word word"), "{}", t.text);
        assert!(t.text.contains("word\n\n… [truncated: "), "{}", t.text);
        assert!(t.text.chars().count() <= 120);
    }

    #[test]
    fn a_single_giant_word_is_cut_hard() {
        let text = "x".repeat(1_000);
        let t = truncate_chars(&text, 100);
        assert!(t.text.chars().count() <= 100);
        assert!(t.text.ends_with("tokens omitted]"));
    }

    #[test]
    fn a_tiny_room_still_holds() {
        let t = truncate_chars("abcdefghijklmnop", 5);
        assert_eq!(t.text, "abcd…");
        assert_eq!(truncate_chars("abc", 0).text, "");
    }

    #[test]
    fn a_pre_cap_ends_at_a_boundary_without_a_marker() {
        assert_eq!(cut_at_boundary("One. Two.", 9), "One. Two.");
        let text = format!("{}. {}", "a".repeat(90), "b ".repeat(200));
        assert_eq!(cut_at_boundary(&text, 100), format!("{}.", "a".repeat(90)));
        assert_eq!(
            cut_at_boundary("Hi. word word word word", 16),
            "Hi. word word"
        );
    }

    #[test]
    fn decimal_points_are_not_sentence_ends() {
        let text = format!(
            "{} version 1.5.3 is out {}",
            "w ".repeat(40),
            "z".repeat(300)
        );
        let t = truncate_chars(&text, 120);
        assert!(!t.text.contains("1.\n"), "{}", t.text);
    }

    proptest! {
        #[test]
        fn never_exceeds_the_room(text in any::<String>(), room in 0usize..400) {
            let t = truncate_chars(&text, room);
            prop_assert!(t.text.chars().count() <= room);
            if text.chars().count() <= room {
                prop_assert_eq!(&t.text, &text);
            }
        }

        #[test]
        fn kept_text_is_a_prefix(text in "[a-z .!?\n]{0,600}", room in 60usize..300) {
            let t = truncate_chars(&text, room);
            if t.omitted_tokens > 0 {
                let kept = t.text.split("\n\n… [truncated: ").next().unwrap_or_default();
                prop_assert!(text.starts_with(kept));
            }
        }
    }
}
