//! Deterministic filler text for synthetic transcripts: source code and test logs that look like
//! what Claude Code's Read, Write and Bash tools return.
//!
//! The text deliberately contains what makes JSON encoding and line scanning work: quotes,
//! backslashes, tabs, non-ASCII characters, and a log line quoting a transcript's
//! `"input_tokens"` key (inside a JSON string its quotes are escaped, so a reader's pre-filter
//! must not mistake it for a usage record).

use std::fmt::Write as _;

/// Rust-like source code of at least `min_bytes` bytes; `seed` varies identifiers.
pub fn code(min_bytes: usize, seed: u64) -> String {
    let mut out = String::with_capacity(min_bytes + 128);
    let mut i = 0u64;
    out.push_str("//! Invoice totals and tax rules (généré pour les tests).\n\nuse std::collections::BTreeMap;\n\n");
    while out.len() < min_bytes {
        let n = seed.wrapping_mul(31).wrapping_add(i);
        let _ = write!(
            out,
            "/// Computes line {n} of the invoice; see \"billing.md\" § {i}.\n\
             pub fn line_total_{n}(items: &[Item], rates: &BTreeMap<String, u32>) -> u64 {{\n\
             \tlet rate = rates.get(\"vat-{i}\").copied().unwrap_or(20);\n\
             \titems.iter().map(|it| it.cents * u64::from(rate) / 100).sum::<u64>() // ▰▱ {i}\n\
             }}\n\n"
        );
        i += 1;
    }
    out
}

/// `cargo test` output of at least `min_bytes` bytes; `seed` varies test names.
pub fn test_log(min_bytes: usize, seed: u64) -> String {
    let mut out = String::with_capacity(min_bytes + 128);
    out.push_str("   Compiling shop v0.3.1 (/home/dev/shop)\n    Finished `test` profile [unoptimized + debuginfo] target(s) in 4.21s\n     Running unittests src/lib.rs (target/debug/deps/shop-5f2c)\n\n");
    let mut i = 0u64;
    while out.len() < min_bytes {
        let n = seed.wrapping_mul(17).wrapping_add(i);
        if i % 25 == 7 {
            // A tool result that quotes a transcript line: escaped quotes inside a JSON string.
            let _ = writeln!(
                out,
                "fixture line {n}: {{\"type\":\"assistant\",\"usage\":{{\"input_tokens\":{i},\"output_tokens\":3}}}}"
            );
        } else {
            let _ = writeln!(
                out,
                "test billing::tests::line_total_{n}_rounds_half_up ... ok"
            );
        }
        i += 1;
    }
    out.push_str(
        "\ntest result: ok. 118 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out\n",
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texts_reach_their_size_and_are_deterministic() {
        for size in [0, 100, 5_000] {
            assert!(code(size, 3).len() >= size);
            assert!(test_log(size, 3).len() >= size);
        }
        assert_eq!(code(2_000, 9), code(2_000, 9));
        assert_ne!(code(2_000, 9), code(2_000, 10));
    }

    #[test]
    fn the_log_quotes_a_usage_key() {
        assert!(test_log(4_000, 1).contains("\"input_tokens\":"));
    }
}
