//! How numbers are written for people, one rule each, so that every command, log and tag says
//! them the same way: whole numbers with thousands separators (`3,500`), fills as whole
//! percentages rounded down (`81%`, never `81.7%` in one place and `82%` in another), and
//! counts with the noun agreeing (`1 tool definition`, `2 tool definitions`).
//!
//! Attribute values meant for programs (`tokens="150000"` in `<context-monitor>`) and JSON keep
//! plain digits: these rules are for sentences and tables. Times for people are
//! [`Timestamp::to_local_text`](crate::Timestamp::to_local_text).

use crate::fill::floor_scaled;

/// 150000 → `150,000`; 999 → `999`.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A fill ratio as a whole percentage, rounded down like every fill ctxmon shows (see
/// [`floor_scaled`]): 0.817 → `81%`, 0.999 → `99%`.
pub fn percent(ratio: f64) -> String {
    format!("{}%", floor_scaled(ratio, 100.0))
}

/// A percentage given as a number of percent (the resume log's `percentage_used`, 81.7) written
/// by the same rule as [`percent`]: `81%`.
pub fn percent_of_100(percent: f64) -> String {
    format!("{}%", floor_scaled(percent, 1.0))
}

/// `one` for 1, else `many`.
pub fn plural<'a>(n: u64, one: &'a str, many: &'a str) -> &'a str {
    if n == 1 { one } else { many }
}

/// `n` with its noun: `1 tool definition`, `2 tool definitions`, `3,500 tokens`.
pub fn count(n: u64, one: &str, many: &str) -> String {
    format!("{} {}", thousands(n), plural(n, one, many))
}

/// `n` tokens, the noun most of ctxmon's sentences count: `1 token`, `3,500 tokens`.
pub fn tokens(n: u64) -> String {
    count(n, "token", "tokens")
}

/// A size where a sentence has little room (the `<context-monitor>` tag): `950`, `18k` (to
/// the nearest thousand), `1.2M` (to the nearest hundred thousand).
pub fn short(n: u64) -> String {
    match n {
        0..=999 => n.to_string(),
        1_000..=999_499 => format!("{}k", (n + 500) / 1_000),
        _ => {
            let tenths = n.saturating_add(50_000) / 100_000;
            format!("{}.{}M", tenths / 10, tenths % 10)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_sizes_round_to_their_unit() {
        assert_eq!(short(0), "0");
        assert_eq!(short(999), "999");
        assert_eq!(short(1_000), "1k");
        assert_eq!(short(18_499), "18k");
        assert_eq!(short(18_500), "19k");
        assert_eq!(short(999_499), "999k");
        assert_eq!(short(999_500), "1.0M");
        assert_eq!(short(1_250_000), "1.3M");
        assert_eq!(short(u64::MAX), "18446744073709.5M");
    }

    #[test]
    fn numbers_read_the_same_everywhere() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(3_500), "3,500");
        assert_eq!(thousands(1_000_000), "1,000,000");
        assert_eq!(thousands(u64::MAX), "18,446,744,073,709,551,615");
        assert_eq!(percent(0.817), "81%");
        assert_eq!(percent(0.57), "57%");
        assert_eq!(percent(0.999_99), "99%");
        assert_eq!(percent(1.0), "100%");
        assert_eq!(percent(f64::NAN), "0%");
        assert_eq!(percent_of_100(81.7), "81%");
        assert_eq!(percent_of_100(57.0), "57%");
        assert_eq!(
            count(1, "tool definition", "tool definitions"),
            "1 tool definition"
        );
        assert_eq!(count(0, "file", "files"), "0 files");
        assert_eq!(tokens(1), "1 token");
        assert_eq!(tokens(3_500), "3,500 tokens");
    }
}
