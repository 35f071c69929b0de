//! Token counts and the product's one estimation rule for text it writes itself,
//! `ceil(chars / 4)`, in both directions (tokens of a text, characters of a budget). Every crate
//! counts through these functions; `human` writes the counts for people.

use serde::{Deserialize, Serialize};

/// A number of tokens. A newtype so that token counts are never confused with byte or char
/// counts, which differ by roughly a factor of four.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize,
)]
#[serde(transparent)]
pub struct TokenCount(pub u64);

impl TokenCount {
    /// No tokens.
    pub const ZERO: TokenCount = TokenCount(0);

    /// The count as a number.
    pub fn get(self) -> u64 {
        self.0
    }

    /// Saturating so that hostile usage figures can never wrap around to a small number.
    pub fn saturating_add(self, other: TokenCount) -> TokenCount {
        TokenCount(self.0.saturating_add(other.0))
    }

    /// `self - other`, stopping at zero.
    pub fn saturating_sub(self, other: TokenCount) -> TokenCount {
        TokenCount(self.0.saturating_sub(other.0))
    }
}

impl std::fmt::Display for TokenCount {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0)
    }
}

impl From<u64> for TokenCount {
    fn from(v: u64) -> Self {
        TokenCount(v)
    }
}

/// Characters per estimated token: the estimate is `ceil(chars / CHARS_PER_TOKEN)`.
pub const CHARS_PER_TOKEN: u64 = 4;

/// Estimates the tokens of text ctxmon injects: `ceil(chars / 4)`.
///
/// This is deliberately the same crude rule everywhere (budgets, checks, tests) so that a budget
/// proven in a test is the budget enforced at run time. Characters, not bytes: a multi-byte
/// character is still roughly one character's worth of tokens.
pub fn estimate_tokens(text: &str) -> TokenCount {
    tokens_for_chars(text.chars().count() as u64)
}

/// The same rule for a caller that has already counted the characters (of several parts, say).
pub const fn tokens_for_chars(chars: u64) -> TokenCount {
    TokenCount(chars.div_ceil(CHARS_PER_TOKEN))
}

/// The rule backwards: the most characters whose estimate fits `tokens` (saturating), which is
/// how a token budget becomes a length to cut text at.
pub fn chars_for_tokens(tokens: u64) -> usize {
    usize::try_from(tokens.saturating_mul(CHARS_PER_TOKEN)).unwrap_or(usize::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn estimate_rounds_up() {
        assert_eq!(estimate_tokens(""), TokenCount(0));
        assert_eq!(estimate_tokens("a"), TokenCount(1));
        assert_eq!(estimate_tokens("abcd"), TokenCount(1));
        assert_eq!(estimate_tokens("abcde"), TokenCount(2));
    }

    #[test]
    fn estimate_counts_chars_not_bytes() {
        // Four two-byte characters are one token, not two.
        assert_eq!(estimate_tokens("éééé"), TokenCount(1));
    }

    #[test]
    fn the_rule_runs_both_ways() {
        assert_eq!(tokens_for_chars(0), TokenCount(0));
        assert_eq!(tokens_for_chars(5), TokenCount(2));
        assert_eq!(chars_for_tokens(280), 1_120);
        assert_eq!(chars_for_tokens(u64::MAX), usize::MAX);
        for chars in 0..64 {
            let tokens = tokens_for_chars(chars).get();
            assert!(chars_for_tokens(tokens) as u64 >= chars);
        }
    }

    #[test]
    fn arithmetic_saturates() {
        assert_eq!(
            TokenCount(u64::MAX).saturating_add(TokenCount(5)),
            TokenCount(u64::MAX)
        );
        assert_eq!(TokenCount(3).saturating_sub(TokenCount(5)), TokenCount(0));
    }
}
