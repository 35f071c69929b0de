//! Builds a `serde_json::Value` from any serde deserializer (YAML or JSON) under a budget of
//! values, string bytes and depth.
//!
//! Why: YAML aliases let a file of a few hundred kilobytes describe billions of values
//! (`a: &a [x, x, …]` then `b: [*a, *a, …]`). The YAML crate's own guard counts alias jumps,
//! not the values they expand to, so that file passes it and would exhaust memory. Counting
//! here, while the value is built, stops any expansion at the budget whatever its shape.
//!
//! Deep flow nesting (`[[[[…`) needs a check *before* parsing: the YAML parser's time grows
//! with the square of the nesting (20,000 levels take seconds, a 1 MiB file of `[` would take
//! minutes) and it reads the whole document before the first value reaches us.

use std::cell::Cell;
use std::fmt;

use serde::de::{
    self, DeserializeSeed, Deserializer, EnumAccess, MapAccess, SeqAccess, VariantAccess, Visitor,
};
use serde_json::{Map, Number, Value};

/// What one document may expand to. A hand-written 1 MiB file holds far fewer values and
/// string bytes than this; only alias expansion gets near it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Limits {
    pub values: usize,
    pub string_bytes: usize,
    pub depth: usize,
}

pub(crate) const LIMITS: Limits = Limits {
    values: 250_000,
    string_bytes: 8 * 1024 * 1024,
    depth: 64,
};

/// Deserializes one value from `de` within `limits`.
pub(crate) fn bounded_value<'de, D: Deserializer<'de>>(
    de: D,
    limits: Limits,
) -> Result<Value, D::Error> {
    let budget = Budget {
        values: Cell::new(limits.values),
        string_bytes: Cell::new(limits.string_bytes),
        limits,
    };
    Seed {
        budget: &budget,
        depth: 0,
    }
    .deserialize(de)
}

/// Flow collections (`[`, `{`) opened deeper than this are rejected by [`flow_depth_over`]
/// without parsing. It is above `LIMITS.depth` because the scan is approximate; the exact
/// check happens while the value is built.
pub(crate) const MAX_FLOW_DEPTH: usize = 128;

/// True when `text` opens flow collections more than `limit` levels deep.
///
/// A linear scan, approximate in the safe direction for ordinary files: brackets count only
/// where a YAML node can start (after line start, `:`, `-`, `?`, `,`, `[`, `{` and spaces), so
/// `a[b]` in a plain scalar does not; quoted scalars and comments are skipped, and a quote
/// counts as opening one only where a node can start (so the apostrophe in `it's` does not).
pub(crate) fn flow_depth_over(text: &[u8], limit: usize) -> bool {
    let mut depth = 0usize;
    // The last byte that was not a space or tab, for "where a node can start".
    let mut prev = b'\n';
    let mut i = 0;
    while let Some(&b) = text.get(i) {
        let node_start = matches!(prev, b'\n' | b':' | b'-' | b'?' | b',' | b'[' | b'{');
        match b {
            b' ' | b'\t' | b'\r' => {
                i += 1;
                continue;
            }
            b'#' if node_start
                || text
                    .get(i.wrapping_sub(1))
                    .is_some_and(|p| *p == b' ' || *p == b'\t') =>
            {
                i = skip_past(text, i, b'\n', false);
                prev = b'\n';
                continue;
            }
            b'&' | b'!' if node_start => {
                // An anchor (`&a`) or a tag (`!!seq`) belongs to the node that follows it, so
                // that node still starts here: skip the name and keep `prev`. (Reading the name
                // as plain text once let `b: &b [[[…` past this scan into the parser's
                // quadratic time.) The name ends at a blank or a flow indicator, as in YAML.
                i += 1;
                while let Some(&c) = text.get(i) {
                    if matches!(
                        c,
                        b' ' | b'\t' | b'\r' | b'\n' | b'[' | b']' | b'{' | b'}' | b','
                    ) {
                        break;
                    }
                    i += 1;
                }
                continue;
            }
            b'"' if node_start => i = skip_past(text, i + 1, b'"', true),
            b'\'' if node_start => i = skip_past(text, i + 1, b'\'', false),
            b'[' | b'{' if node_start => {
                depth += 1;
                if depth > limit {
                    return true;
                }
            }
            b'[' | b'{' => {
                // Text inside a plain scalar: the next byte is not at a node start either.
                prev = b'a';
                i += 1;
                continue;
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
        prev = b;
        i += 1;
    }
    false
}

/// The index of the closing `end` at or after `from` (skipping `\x` escapes when
/// `escapes`), or the text's end. A single-quoted scalar's `''` is two quotes in a row, which
/// this reads as close-and-reopen: the same thing for counting.
fn skip_past(text: &[u8], from: usize, end: u8, escapes: bool) -> usize {
    let mut i = from;
    while let Some(&b) = text.get(i) {
        if escapes && b == b'\\' {
            i += 2;
            continue;
        }
        if b == end {
            return i;
        }
        i += 1;
    }
    text.len()
}

struct Budget {
    values: Cell<usize>,
    string_bytes: Cell<usize>,
    limits: Limits,
}

impl Budget {
    fn take_value<E: de::Error>(&self) -> Result<(), E> {
        let left = self.values.get();
        if left == 0 {
            return Err(E::custom(format_args!(
                "the document expands to more than {} values (YAML aliases?); simplify it",
                self.limits.values
            )));
        }
        self.values.set(left - 1);
        Ok(())
    }

    fn take_string<E: de::Error>(&self, s: &str) -> Result<String, E> {
        self.take_value()?;
        let left = self.string_bytes.get();
        if s.len() > left {
            return Err(E::custom(format_args!(
                "the document expands to more than {} bytes of text (YAML aliases?); simplify it",
                ctxmon_domain::human::thousands(self.limits.string_bytes as u64)
            )));
        }
        self.string_bytes.set(left - s.len());
        Ok(s.to_string())
    }
}

#[derive(Clone, Copy)]
struct Seed<'b> {
    budget: &'b Budget,
    depth: usize,
}

impl Seed<'_> {
    fn nested<E: de::Error>(self) -> Result<Self, E> {
        if self.depth >= self.budget.limits.depth {
            return Err(E::custom(format_args!(
                "the document is nested more than {} levels deep; flatten it",
                self.budget.limits.depth
            )));
        }
        Ok(Seed {
            budget: self.budget,
            depth: self.depth + 1,
        })
    }
}

impl<'de> DeserializeSeed<'de> for Seed<'_> {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, de: D) -> Result<Value, D::Error> {
        de.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Seed<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any YAML or JSON value")
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Value, E> {
        self.budget.take_value()?;
        Ok(Value::Bool(v))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Value, E> {
        self.budget.take_value()?;
        Ok(Value::Number(v.into()))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Value, E> {
        self.budget.take_value()?;
        Ok(Value::Number(v.into()))
    }

    fn visit_i128<E: de::Error>(self, v: i128) -> Result<Value, E> {
        // Outside i64/u64 JSON numbers lose precision; the digits as text lose nothing.
        self.budget.take_string(&v.to_string()).map(Value::String)
    }

    fn visit_u128<E: de::Error>(self, v: u128) -> Result<Value, E> {
        self.budget.take_string(&v.to_string()).map(Value::String)
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        self.budget.take_value()?;
        // YAML's .nan and .inf have no JSON form.
        Ok(Number::from_f64(v).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Value, E> {
        self.budget.take_string(v).map(Value::String)
    }

    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<Value, E> {
        self.budget
            .take_string(&String::from_utf8_lossy(v))
            .map(Value::String)
    }

    fn visit_none<E: de::Error>(self) -> Result<Value, E> {
        self.visit_unit()
    }

    fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
        self.budget.take_value()?;
        Ok(Value::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, de: D) -> Result<Value, D::Error> {
        self.deserialize(de)
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(self, de: D) -> Result<Value, D::Error> {
        self.deserialize(de)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        self.budget.take_value()?;
        let inner = self.nested()?;
        let mut items = Vec::new();
        while let Some(item) = seq.next_element_seed(inner)? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        self.budget.take_value()?;
        let inner = self.nested()?;
        let mut out = Map::new();
        while let Some(key) = map.next_key_seed(KeySeed(self.budget))? {
            let value = map.next_value_seed(inner)?;
            // A repeated key keeps its last value, as most YAML and JSON readers do.
            out.insert(key, value);
        }
        Ok(Value::Object(out))
    }

    /// A YAML value with a custom tag (`!secret x`) arrives as an enum; the tag carries no
    /// meaning for ctxmon, so the value is kept and the tag dropped.
    fn visit_enum<A: EnumAccess<'de>>(self, data: A) -> Result<Value, A::Error> {
        let (_tag, variant): (Value, _) = data.variant_seed(self)?;
        variant.newtype_variant_seed(self)
    }
}

/// A map key as a string: JSON keys always are; YAML keys may be numbers or booleans
/// (`1: first`), which become their text. Lists or maps as keys are rejected.
#[derive(Clone, Copy)]
struct KeySeed<'b>(&'b Budget);

impl<'de> DeserializeSeed<'de> for KeySeed<'_> {
    type Value = String;

    fn deserialize<D: Deserializer<'de>>(self, de: D) -> Result<String, D::Error> {
        de.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for KeySeed<'_> {
    type Value = String;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string, number or boolean as a map key")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<String, E> {
        self.0.take_string(v)
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<String, E> {
        self.0.take_string(if v { "true" } else { "false" })
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<String, E> {
        self.0.take_string(&v.to_string())
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<String, E> {
        self.0.take_string(&v.to_string())
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<String, E> {
        self.0.take_string(&v.to_string())
    }

    fn visit_unit<E: de::Error>(self) -> Result<String, E> {
        self.0.take_string("null")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn yaml(text: &str, limits: Limits) -> Result<Value, String> {
        bounded_value(serde_norway::Deserializer::from_str(text), limits).map_err(|e| e.to_string())
    }

    #[test]
    fn plain_documents_come_through_whole() {
        let v = yaml(
            "a: [1, -2, 2.5, true, ~, text]\n1: one\nnested: {x: {y: z}}\n",
            LIMITS,
        );
        assert_eq!(
            v,
            Ok(
                serde_json::json!({"a": [1, -2, 2.5, true, null, "text"], "1": "one", "nested": {"x": {"y": "z"}}})
            )
        );
        assert_eq!(
            yaml("x: !custom 5\n", LIMITS),
            Ok(serde_json::json!({"x": 5}))
        );
        assert_eq!(
            yaml("x: .nan\n", LIMITS),
            Ok(serde_json::json!({"x": null}))
        );
    }

    #[test]
    fn value_and_byte_budgets_stop_expansion() {
        let small = Limits {
            values: 10,
            string_bytes: 1_000,
            depth: 64,
        };
        let err = yaml("a: &a [x, x, x, x]\nb: [*a, *a, *a]\n", small);
        assert!(
            err.as_ref()
                .is_err_and(|e| e.contains("more than 10 values")),
            "{err:?}"
        );
        let bytes = Limits {
            values: 1_000,
            string_bytes: 10,
            depth: 64,
        };
        let err = yaml("a: &a 0123456789\nb: *a\n", bytes);
        assert!(
            err.as_ref().is_err_and(|e| e.contains("bytes of text")),
            "{err:?}"
        );
    }

    #[test]
    fn depth_is_bounded() {
        let shallow = Limits {
            values: 1_000,
            string_bytes: 1_000,
            depth: 3,
        };
        assert!(yaml("[[[1]]]", shallow).is_ok());
        let err = yaml("[[[[1]]]]", shallow);
        assert!(
            err.as_ref()
                .is_err_and(|e| e.contains("nested more than 3")),
            "{err:?}"
        );
    }

    #[test]
    fn flow_depth_scan_counts_real_nesting_only() {
        assert!(!flow_depth_over(b"a: [[1], {b: [2]}]\n", 3));
        assert!(flow_depth_over(b"a: [[1], {b: [2]}]\n", 2));
        assert!(flow_depth_over(b"a: [[[1]]]\n", 2));
        assert!(flow_depth_over(b"- {a: {b: {c: 1}}}\n", 2));
        // Brackets inside plain scalars, quoted scalars and comments are text.
        assert!(!flow_depth_over(
            b"a: x[[[[y\nb: '[[[[' # [[[[\nc: \"[[[[\\\"[[\"\n",
            2
        ));
        // An apostrophe inside a plain scalar does not open a quoted scalar.
        assert!(flow_depth_over(b"a: it's\nb: [[[1]]]\n", 2));
        // An anchor or a tag before a collection does not hide it (found by fuzzing: the
        // parser then spent seconds on `b: &b [[[…`).
        assert!(flow_depth_over(b"b: &b [[[1]]]\n", 2));
        assert!(flow_depth_over(b"b: !!seq [[[1]]]\n", 2));
        assert!(flow_depth_over(b"- &a !!map {a: &x {b: !t {c: 1}}}\n", 2));
        assert!(flow_depth_over(b"b: &b\n  [[[1]]]\n", 2));
        assert!(!flow_depth_over(b"b: &b [[1]]\nc: *b\n", 2));
        assert!(!flow_depth_over(&b"[".repeat(128), MAX_FLOW_DEPTH));
        assert!(flow_depth_over(&b"[".repeat(129), MAX_FLOW_DEPTH));
    }

    #[test]
    fn complex_keys_are_rejected() {
        assert!(yaml("? [a, b]\n: c\n", LIMITS).is_err());
    }
}
