//! How assembly counts tokens: a trait, so embedders can plug in a real tokenizer, with the
//! product's default rule `ceil(chars / 4)` (the same as `estimate_tokens`).

use crate::tokens::{chars_for_tokens, estimate_tokens, tokens_for_chars};

/// The most bytes UTF-8 spends on one character, so `bytes / 4` is the fewest characters.
const MAX_UTF8_BYTES: u64 = 4;

/// Counts tokens of text. Implementations must be deterministic and monotonic (a longer prefix
/// never counts fewer tokens), which is what makes truncation-to-fit sound.
pub trait TokenCounter: std::fmt::Debug + Send + Sync {
    /// The number of tokens in `text`.
    fn count(&self, text: &str) -> u64;

    /// The count of the concatenation of `parts`. Assembly prices every candidate this way
    /// without building its text; the default builds it, which is exact for any counter.
    fn count_parts(&self, parts: &[&str]) -> u64 {
        self.count(&parts.concat())
    }

    /// Bounds `(lower, upper)` on `count_parts(parts)`, cheaper than counting. Assembly uses the
    /// lower bound to pass over items that cannot fit without counting them, which matters when
    /// 50 MB of files compete for a 200,000-token budget. The default counts exactly.
    fn bounds_parts(&self, parts: &[&str]) -> (u64, u64) {
        let exact = self.count_parts(parts);
        (exact, exact)
    }

    /// The byte length of the longest prefix of `text` (ending on a char boundary) that counts
    /// at most `budget` tokens. The default is a binary search over `count`.
    fn fit_prefix(&self, text: &str, budget: u64) -> usize {
        if self.count(text) <= budget {
            return text.len();
        }
        // Invariant: the prefix ending at `lo` fits (or `lo` is 0) and the one at `hi` does not.
        let (mut lo, mut hi) = (0usize, text.len());
        loop {
            let mut mid = floor_boundary(text, lo + (hi - lo) / 2);
            if mid <= lo {
                mid = ceil_boundary(text, lo + 1);
            }
            if mid >= hi {
                return lo;
            }
            let fits = text
                .get(..mid)
                .is_some_and(|prefix| self.count(prefix) <= budget);
            if fits {
                lo = mid;
            } else {
                hi = mid;
            }
        }
    }
}

fn floor_boundary(text: &str, mut i: usize) -> usize {
    while i > 0 && !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn ceil_boundary(text: &str, mut i: usize) -> usize {
    while i < text.len() && !text.is_char_boundary(i) {
        i += 1;
    }
    i.min(text.len())
}

/// `ceil(chars / 4)`: the product's one estimation rule. Characters, not bytes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CharsPerFour;

impl TokenCounter for CharsPerFour {
    fn count(&self, text: &str) -> u64 {
        estimate_tokens(text).get()
    }

    /// Exact without concatenating: the rule only depends on the total number of characters.
    fn count_parts(&self, parts: &[&str]) -> u64 {
        let chars: u64 = parts.iter().map(|p| p.chars().count() as u64).sum();
        tokens_for_chars(chars).get()
    }

    /// From byte lengths alone: UTF-8 spends one to four bytes per character.
    fn bounds_parts(&self, parts: &[&str]) -> (u64, u64) {
        let bytes: u64 = parts.iter().map(|p| p.len() as u64).sum();
        let fewest_chars = bytes.div_ceil(MAX_UTF8_BYTES);
        (
            tokens_for_chars(fewest_chars).get(),
            tokens_for_chars(bytes).get(),
        )
    }

    /// `budget * 4` characters, found in one forward pass that stops there, so fitting a slice
    /// of a 50 MB file costs what the slice costs.
    fn fit_prefix(&self, text: &str, budget: u64) -> usize {
        let chars = chars_for_tokens(budget);
        text.char_indices()
            .nth(chars)
            .map_or(text.len(), |(index, _)| index)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A counter that only implements `count`, to exercise the default methods.
    #[derive(Debug)]
    struct Words;

    impl TokenCounter for Words {
        fn count(&self, text: &str) -> u64 {
            text.split_whitespace().count() as u64
        }
    }

    #[test]
    fn chars_per_four_matches_the_domain_rule() {
        for text in ["", "a", "abcd", "abcde", "éééé", "日本語のテキスト"] {
            assert_eq!(CharsPerFour.count(text), estimate_tokens(text).get());
            assert_eq!(
                CharsPerFour.count_parts(&[text, text]),
                CharsPerFour.count(&format!("{text}{text}"))
            );
        }
    }

    #[test]
    fn chars_per_four_bounds_hold() {
        for parts in [
            &["", ""][..],
            &["abc", "d"],
            &["é", "日本語", "x"],
            &["𝄞𝄞𝄞𝄞𝄞"],
        ] {
            let (lower, upper) = CharsPerFour.bounds_parts(parts);
            let exact = CharsPerFour.count_parts(parts);
            assert!(
                lower <= exact && exact <= upper,
                "{parts:?}: {lower} {exact} {upper}"
            );
        }
        assert_eq!(Words.bounds_parts(&["a b", "c"]), (2, 2));
    }

    #[test]
    fn chars_per_four_fits_on_char_boundaries() {
        let text = "ééééé"; // 5 chars, 10 bytes
        assert_eq!(CharsPerFour.fit_prefix(text, 0), 0);
        assert_eq!(CharsPerFour.fit_prefix(text, 1), 8);
        assert_eq!(CharsPerFour.fit_prefix(text, 2), text.len());
    }

    #[test]
    fn default_fit_prefix_is_the_longest_fitting_prefix() {
        let text = "one two three four five";
        for budget in 0..7 {
            let end = Words.fit_prefix(text, budget);
            assert!(text.is_char_boundary(end));
            assert!(Words.count(&text[..end]) <= budget);
            if end < text.len() {
                let next = text[end..].chars().next().map_or(0, char::len_utf8);
                assert!(
                    Words.count(&text[..end + next]) > budget,
                    "budget {budget} end {end}"
                );
            }
        }
    }

    #[test]
    fn default_fit_prefix_handles_multibyte_text() {
        #[derive(Debug)]
        struct Chars;
        impl TokenCounter for Chars {
            fn count(&self, text: &str) -> u64 {
                text.chars().count() as u64
            }
        }
        let text = "añb日c";
        for budget in 0..6 {
            let end = Chars.fit_prefix(text, budget);
            assert_eq!(text[..end].chars().count() as u64, budget.min(5));
        }
    }
}
