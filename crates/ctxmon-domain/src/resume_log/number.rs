//! A JSON number kept as the text the agent wrote: [`JsonNumber`], the value of
//! [`ContextValue::Number`](super::ContextValue::Number).
//!
//! Why text: an agent's `critical_context` may hold any JSON, and a number that is not a 64-bit
//! integer (2^64, 24 significant digits, `-0`, `1e400`, `1.50`) has no Rust type that keeps it
//! exactly; an `f64` rounds it, or cannot hold it at all. Why a type of its own rather than the
//! text as a string value: JSON tells `7` from `"7"`, and so must every JSON ctxmon writes.
//!
//! Only text in JSON's number grammar can become a `JsonNumber` (so a writer may put it in a
//! document as it is), and never the plain text of a 64-bit integer, which is an
//! [`Integer`](super::ContextValue::Integer): each number has one form, and a log reads back
//! as itself.
//!
//! serde's data model has no number of arbitrary text. A plain serde serializer gets the
//! nearest value it can carry (the integer, else the nearest finite `f64`, else, for a number
//! beyond `f64` such as `1e400`, the text as a string); ctxmon's own JSON goes through a writer
//! that puts the text in the document as it is (`ctxmon_application`'s
//! `handoff::resume_log::stored_json`).

use std::fmt;

use serde::{Serialize, Serializer};

/// A number in JSON's grammar (`-? int frac? exp?`) that is not the plain text of an `i64`,
/// exactly as written.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct JsonNumber(String);

impl JsonNumber {
    /// `text` as a number; `None` when it is not in JSON's number grammar (`+1`, `01`, `.5`,
    /// `1.`, `0x10`, `NaN`, spaces) or is an `i64` written plainly (`7`, `-12`: an integer).
    pub fn new(text: &str) -> Option<JsonNumber> {
        (is_json_number(text) && !is_plain_i64(text)).then(|| JsonNumber(text.to_owned()))
    }

    /// The text as written.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for JsonNumber {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl Serialize for JsonNumber {
    /// The nearest value serde's data model carries (see the module docs); the exact text
    /// needs a writer that knows the type.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let text = self.as_str();
        if let Ok(n) = text.parse::<u64>()
            && n.to_string() == text
        {
            return serializer.serialize_u64(n);
        }
        match text.parse::<f64>() {
            Ok(f) if f.is_finite() => serializer.serialize_f64(f),
            // Beyond f64 (`1e400`): a JSON reader refuses the number, but keeps the text.
            _ => serializer.serialize_str(text),
        }
    }
}

/// Whether `text` is an `i64` written as Rust writes it (no sign on zero, no leading zero).
fn is_plain_i64(text: &str) -> bool {
    text.parse::<i64>().is_ok_and(|n| n.to_string() == text)
}

/// JSON's number grammar (RFC 8259, section 6), the whole of `text`.
fn is_json_number(text: &str) -> bool {
    let b = text.as_bytes();
    let mut i = usize::from(b.first() == Some(&b'-'));
    let digits = |i: &mut usize| {
        let start = *i;
        while b.get(*i).is_some_and(u8::is_ascii_digit) {
            *i += 1;
        }
        *i > start
    };
    match b.get(i) {
        Some(b'0') => i += 1,
        Some(b'1'..=b'9') => {
            digits(&mut i);
        }
        _ => return false,
    }
    if b.get(i) == Some(&b'.') {
        i += 1;
        if !digits(&mut i) {
            return false;
        }
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        if !digits(&mut i) {
            return false;
        }
    }
    i == b.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_json_number_text_that_is_not_a_plain_i64_is_a_number() {
        for good in [
            "18446744073709551616",
            "-0",
            "1e400",
            "1.50",
            "0.1",
            "1E2",
            "-1.5e-7",
            "2e+3",
            "0e0",
            "9223372036854775808",
            "-9223372036854775809",
        ] {
            assert_eq!(
                JsonNumber::new(good).as_ref().map(JsonNumber::as_str),
                Some(good)
            );
        }
        for bad in [
            "", "-", "+1", "01", "-01", "00", ".5", "1.", "1.e3", "1e", "1e+", "0x10", "NaN",
            "inf", "-inf", " 1", "1 ", "1,5", "1_000", "١", "\"1\"", "1e4x", "--1",
        ] {
            assert_eq!(JsonNumber::new(bad), None, "{bad:?}");
        }
        // A plain i64 is an integer, never a number's text: one form per value.
        for integer in [
            "7",
            "0",
            "-12",
            "9223372036854775807",
            "-9223372036854775808",
        ] {
            assert_eq!(JsonNumber::new(integer), None, "{integer}");
        }
    }

    #[test]
    fn a_plain_serializer_gets_the_nearest_value_it_carries() {
        let json = |t: &str| serde_json::to_string(&JsonNumber::new(t).unwrap()).unwrap();
        assert_eq!(json("18446744073709551615"), "18446744073709551615");
        assert_eq!(json("1.50"), "1.5");
        assert_eq!(json("-0"), "-0.0");
        assert_eq!(json("1e400"), r#""1e400""#);
    }
}
